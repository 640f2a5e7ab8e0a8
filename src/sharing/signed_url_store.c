/* File URLs of tables on object stores: URLs the store itself honors, so
 * recipients download from S3 or Azure, not through this server.
 *   S3     presigned GET URLs (storage/store_s3_presign.c)
 *   Azure  read-only service SAS URLs of one blob (storage/store_azure_presign.c)
 * Each needs the store's own keys (an S3 access key; an Azure account key:
 * a SAS the operator configured is never passed on). The table's store
 * configuration (its URI, then AWS_* / AZURE_* variables and files, as the
 * stores read them) is loaded once per table and kept for the server's
 * life. Without keys, and for other schemes, the caller makes the server's
 * own /files URLs (signed_url.c). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "sharing/server.h"
#include "storage/store_azure.h"
#include "storage/store_s3.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

typedef enum store_kind { KIND_OTHER = 0, KIND_S3, KIND_AZURE } store_kind;

/* Configurations by table; each allocated alone so a pointer handed out
 * stays valid while the arrays grow (srv->s3_mu guards the arrays). */
typedef struct store_cfg {
	store_kind kind;
	dl_s3_config s3;
	dl_az_config az;
} store_cfg;

struct dl_shr_s3_cache {
	const dl_shr_table **tables;
	store_cfg **cfgs;
	size_t n, cap;
};

static const char *env(const char *name)
{
	return getenv(name);
}

static store_kind kind_of(const char *loc)
{
	if (!strncasecmp(loc, "s3://", 5) || !strncasecmp(loc, "s3a://", 6)) return KIND_S3;
	static const char *const az[] = {"az://", "azure://", "abfs://", "abfss://", "wasb://", "wasbs://"};
	for (size_t i = 0; i < sizeof az / sizeof *az; i++)
		if (!strncasecmp(loc, az[i], strlen(az[i]))) return KIND_AZURE;
	return KIND_OTHER;
}

void dl_shr_s3_cache_free(dl_shr_s3_cache *c)
{
	if (!c) return;
	for (size_t i = 0; i < c->n; i++) {
		if (c->cfgs[i]->kind == KIND_S3) dl_s3_config_free(&c->cfgs[i]->s3);
		else dl_az_config_free(&c->cfgs[i]->az);
		dl_free(c->cfgs[i]);
	}
	dl_free(c->tables);
	dl_free(c->cfgs);
	dl_free(c);
}

static int config_of(const store_cfg **out, dl_shr_server *srv, const dl_shr_table *t, store_kind kind)
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
			store_cfg **ncf = nt ? dl_reallocarray(c->cfgs, nc, sizeof *ncf) : NULL;
			if (ncf) c->cfgs = ncf;
			if (!nt || !ncf) rc = DL_ENOMEM;
			else c->cap = nc;
		}
		store_cfg *cfg = rc == 0 ? dl_calloc(1, sizeof *cfg) : NULL;
		if (rc == 0 && !cfg) rc = DL_ENOMEM;
		if (rc == 0) {
			/* The stores' loaders want options: the defaults. */
			dl_store_options so = DL_STORE_OPTIONS_INIT;
			cfg->kind = kind;
			rc = kind == KIND_S3 ? dl_s3_config_load(&cfg->s3, t->location, &so, env, NULL)
			                     : dl_az_config_load(&cfg->az, t->location, &so, env);
		}
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

static int full_key(char **out, const char *prefix, const char *rel)
{
	*out = dl_malloc(strlen(prefix) + strlen(rel) + 1);
	if (!*out) return DL_ENOMEM;
	strcpy(*out, prefix);
	strcat(*out, rel);
	return 0;
}

int dl_shr_presign(dl_buf *out, bool *done, dl_shr_server *srv, const dl_shr_table *t, const char *rel,
                   int64_t expires_ms)
{
	*done = false;
	store_kind kind = kind_of(t->location);
	if (kind == KIND_OTHER) return 0;
	const store_cfg *cfg = NULL;
	DL_TRY(config_of(&cfg, srv, t, kind));
	int64_t now = dl_now_millis();
	int64_t secs = (expires_ms - now + 999) / 1000;
	if (secs < 1) secs = 1;
	char *key;
	int rc;
	if (kind == KIND_S3) {
		if (cfg->s3.skip_signature || !cfg->s3.access_key_id) return 0; /* no keys: served by us */
		char date[17];
		time_t tt = (time_t)(now / 1000);
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(date, sizeof date, "%Y%m%dT%H%M%SZ", &tm);
		DL_TRY(full_key(&key, cfg->s3.prefix, rel));
		rc = dl_s3_presign_get(out, &cfg->s3, key, secs, date);
	} else {
		if (!cfg->az.key) return 0; /* a SAS or anonymous: served by us */
		DL_TRY(full_key(&key, cfg->az.prefix, rel));
		rc = dl_az_presign_get(out, &cfg->az, key, now / 1000 + secs);
	}
	dl_free(key);
	if (rc == 0) *done = true;
	return rc;
}
