/* File URLs of tables on S3: presigned GET URLs of the object store itself
 * (storage/store_s3_presign.c), so recipients download from S3, not
 * through this server. The table's S3 configuration (the URI, then AWS_*
 * variables and ~/.aws, as the S3 store reads it) is loaded once per table
 * and kept for the server's life. Other schemes use the server's own
 * /files URLs (signed_url.c). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "sharing/server.h"
#include "storage/store_s3.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

/* Configurations by table; each allocated alone so a pointer handed out
 * stays valid while the arrays grow (srv->s3_mu guards the arrays). */
struct dl_shr_s3_cache {
	const dl_shr_table **tables;
	dl_s3_config **cfgs;
	size_t n, cap;
};

static const char *env(const char *name)
{
	return getenv(name);
}

static bool is_s3(const char *loc)
{
	return !strncasecmp(loc, "s3://", 5) || !strncasecmp(loc, "s3a://", 6);
}

void dl_shr_s3_cache_free(dl_shr_s3_cache *c)
{
	if (!c) return;
	for (size_t i = 0; i < c->n; i++) {
		dl_s3_config_free(c->cfgs[i]);
		dl_free(c->cfgs[i]);
	}
	dl_free(c->tables);
	dl_free(c->cfgs);
	dl_free(c);
}

static int config_of(const dl_s3_config **out, dl_shr_server *srv, const dl_shr_table *t)
{
	pthread_mutex_lock(&srv->s3_mu);
	if (!srv->s3) srv->s3 = dl_calloc(1, sizeof *srv->s3);
	dl_shr_s3_cache *c = srv->s3;
	int rc = c ? 0 : DL_ENOMEM;
	size_t i = 0;
	while (rc == 0 && i < c->n && c->tables[i] != t) i++;
	if (rc == 0 && i == c->n) {
		if (c->n == c->cap) {
			size_t nc = c->cap ? c->cap * 2 : 8;
			const dl_shr_table **nt = dl_reallocarray(c->tables, nc, sizeof *nt);
			if (nt) c->tables = nt;
			dl_s3_config **ncf = nt ? dl_reallocarray(c->cfgs, nc, sizeof *ncf) : NULL;
			if (ncf) c->cfgs = ncf;
			if (!nt || !ncf) rc = DL_ENOMEM;
			else c->cap = nc;
		}
		dl_s3_config *cfg = rc == 0 ? dl_calloc(1, sizeof *cfg) : NULL;
		if (rc == 0 && !cfg) rc = DL_ENOMEM;
		if (rc == 0) rc = dl_s3_config_load(cfg, t->location, NULL, env, NULL);
		if (rc == 0) {
			c->tables[i] = t;
			c->cfgs[i] = cfg;
			c->n++;
		} else dl_free(cfg);
	}
	if (rc == 0) *out = c->cfgs[i];
	pthread_mutex_unlock(&srv->s3_mu);
	return rc;
}

int dl_shr_presign(dl_buf *out, bool *done, dl_shr_server *srv, const dl_shr_table *t, const char *rel,
                   int64_t expires_ms)
{
	*done = false;
	if (!is_s3(t->location)) return 0;
	const dl_s3_config *cfg = NULL;
	DL_TRY(config_of(&cfg, srv, t));
	if (cfg->skip_signature || !cfg->access_key_id) return 0; /* no keys: served by us */
	int64_t now = dl_now_millis();
	int64_t secs = (expires_ms - now + 999) / 1000;
	if (secs < 1) secs = 1;
	char date[17];
	time_t tt = (time_t)(now / 1000);
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(date, sizeof date, "%Y%m%dT%H%M%SZ", &tm);
	char *key = dl_malloc(strlen(cfg->prefix) + strlen(rel) + 1);
	if (!key) return DL_ENOMEM;
	strcpy(key, cfg->prefix);
	strcat(key, rel);
	int rc = dl_s3_presign_get(out, cfg, key, secs, date);
	dl_free(key);
	if (rc == 0) *done = true;
	return rc;
}
