/* A shared table as a read-only Delta table: the store backend behind
 * "PROFILE#share.schema.table" (docs/SHARING_CLIENT.md).
 *
 * The reader above asks a store for `_delta_log/` and the files the log
 * names; this backend answers from the sharing server:
 * - the listing of `_delta_log/` holds one JSON v2 checkpoint name per
 *   version 0..latest (latest from GET .../version). Each is built only
 *   when read, from POST .../query (with "version" for an older one): the
 *   protocol, the metaData and one add per file. A snapshot at version V
 *   is then exactly the server's answer for V, and time travel is the
 *   reader's own choice of checkpoint.
 * - an add's path is a name of this store, `_sharing/<hex of the file
 *   id>.parquet`, not the URL: the URL expires, the id does not (PROTOCOL.md
 *   "File"). A read of that name goes to the file's current URL; when its
 *   expirationTimestamp has passed, or the URL is refused (401/403: S3 and
 *   Azure answer so after expiry), the query is sent again and the fresh
 *   URLs replace the old ones, so a long scan outlives its URLs.
 * - in the delta format a deletion vector stored at a URL ('p' with a
 *   pre-signed pathOrInlineDv) becomes a 'u' vector whose uuid is derived
 *   from its file id; its name `deletion_vector_<uuid>.bin` is served like
 *   a data file. Inline vectors stay as they are.
 * - `_delta_log/<v>.json` commits, unlisted, for the change data feed:
 *   client_changes.c.
 * Writes are refused: a share is read-only. */
#include <inttypes.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/sys/store_backend.h"
#include "json/json.h"
#include "sharing/client.h"
#include "sharing/client_table.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/time.h"
#include "util/uuid.h"
#include "util/z85.h"

/* Files per query page unless delta-sharing.max_files says otherwise. */
#define DEFAULT_MAX_FILES 10000
/* Versions per commits request in the query form: Spark's
 * DeltaSharingOptions.MAX_VERSIONS_PER_RPC_DEFAULT. */
#define DEFAULT_COMMIT_VERSIONS 100

/* ---- paths ---- */

int dl_sharing_parse_path(char **profile, char **share, char **schema, char **table, const char *path)
{
	*profile = *share = *schema = *table = NULL;
	const char *hash = path ? strrchr(path, '#') : NULL;
	if (!hash || hash == path)
		return dl_error_set(DL_EINVALID, "\"%s\" is not a shared table path: write "
		                    "PROFILE#share.schema.table", path ? path : "(null)");
	const char *n1 = hash + 1, *d1 = strchr(n1, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (!d1 || !d2 || strchr(d2 + 1, '.') || d1 == n1 || d2 == d1 + 1 || !d2[1])
		return dl_error_set(DL_EINVALID, "shared table \"%s\": the name after '#' must be "
		                    "share.schema.table (three non-empty names)", path);
	*profile = dl_strndup(path, (size_t)(hash - path));
	*share = dl_strndup(n1, (size_t)(d1 - n1));
	*schema = dl_strndup(d1 + 1, (size_t)(d2 - d1 - 1));
	*table = dl_strdup(d2 + 1);
	if (*profile && *share && *schema && *table) return 0;
	dl_free(*profile);
	dl_free(*share);
	dl_free(*schema);
	dl_free(*table);
	*profile = *share = *schema = *table = NULL;
	return DL_ENOMEM;
}

static void vfile_free(vfile *f)
{
	if (!f) return;
	dl_free(f->url);
	dl_free(f);
}

int sh_put_file(sh_table *t, const char *name, const char *url, int64_t size, int64_t exp,
                    int64_t qv)
{
	vfile *f = dl_calloc(1, sizeof *f);
	if (!f) return DL_ENOMEM;
	f->url = dl_strdup(url);
	f->size = size;
	f->expiration_ms = exp;
	f->query_version = qv;
	f->ch_start = t->cur_ch_start;
	f->ch_end = t->cur_ch_end;
	f->generation = t->generation;
	if (!f->url) {
		vfile_free(f);
		return DL_ENOMEM;
	}
	void *old = NULL;
	vfile *prev = dl_strmap_get(&t->files, name, strlen(name));
	if (prev && prev->size > f->size) f->size = prev->size;
	int rc = dl_strmap_put(&t->files, name, strlen(name), f, &old);
	if (rc < 0) vfile_free(f);
	vfile_free(old);
	return rc;
}

int sh_hex_name(dl_buf *out, const char *prefix, const char *id, const char *suffix)
{
	DL_TRY(dl_buf_puts(out, prefix));
	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		DL_TRY(dl_buf_printf(out, "%02x", *p));
	return dl_buf_puts(out, suffix);
}

/* ---- building a version's checkpoint from the query answer ---- */


/* A 'p' deletion vector at a URL becomes a 'u' one named after its id. */
static int rewrite_dv(build_ctx *b, dl_json_writer *w, const dl_json *dv, const char *dv_id,
                      int64_t exp)
{
	const char *st = dl_json_get_str(dv, "storageType");
	const char *where = dl_json_get_str(dv, "pathOrInlineDv");
	if (!st || strcmp(st, "p") != 0 || !where ||
	    (strncmp(where, "https://", 8) != 0 && strncmp(where, "http://", 7) != 0)) {
		dl_buf tmp = DL_BUF_INIT;
		int rc = dl_json_write(&tmp, dv);
		if (rc == 0) dl_jw_raw(w, tmp.data);
		dl_buf_free(&tmp);
		return rc;
	}
	/* The id names the DV file across requests; without one, the URL
	 * without its query string (the signature) does. */
	unsigned char md[SHA256_DIGEST_LENGTH];
	size_t idn = dv_id ? strlen(dv_id) : strcspn(where, "?");
	SHA256((const unsigned char *)(dv_id ? dv_id : where), idn, md);
	md[6] = (md[6] & 0x0f) | 0x40;
	md[8] = (md[8] & 0x3f) | 0x80;
	char uuid[DL_UUID_TEXT_LEN + 1], name[80];
	dl_uuid_format(uuid, md);
	snprintf(name, sizeof name, "deletion_vector_%s.bin", uuid);
	int64_t off = 0, sz = 0;
	const dl_json *o = dl_json_get(dv, "offset");
	const dl_json *s = dl_json_get(dv, "sizeInBytes");
	if (o) dl_json_int64(o, &off);
	if (s) dl_json_int64(s, &sz);
	/* A pre-signed URL answers only GET, so the file's size is not asked
	 * for: what the vectors in it span (4-byte size, the bitmap, 4-byte
	 * checksum, Delta PROTOCOL.md "Deletion Vector Format") is all a
	 * reader reads, and bounds its reads. */
	DL_TRY(sh_put_file(b->t, name, where, off + sz + 8, exp, b->qv));
	dl_buf z = DL_BUF_INIT;
	int rc = dl_z85_encode(&z, md, 16);
	dl_jw_object_begin(w);
	for (size_t i = 0; rc == 0 && i < dv->u.obj.n; i++) {
		const dl_json_member *m = &dv->u.obj.items[i];
		dl_jw_key(w, m->key);
		if (strcmp(m->key, "storageType") == 0) dl_jw_string(w, "u");
		else if (strcmp(m->key, "pathOrInlineDv") == 0) dl_jw_string(w, z.data);
		else {
			dl_buf tmp = DL_BUF_INIT;
			rc = dl_json_write(&tmp, &m->value);
			if (rc == 0) dl_jw_raw(w, tmp.data);
			dl_buf_free(&tmp);
		}
	}
	dl_jw_object_end(w);
	dl_buf_free(&z);
	return rc;
}

int sh_write_delta_action(build_ctx *b, dl_buf *o, const dl_sharing_line *l, const char *name)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *sa;
	int rc = dl_json_parse(&a, l->delta_action, strlen(l->delta_action), "deltaSingleAction", &sa);
	/* the parser checked: one member, add/cdc/remove, an object */
	const dl_json_member *act = rc == 0 ? &sa->u.obj.items[0] : NULL;
	const dl_json *add = act ? &act->value : NULL;
	dl_buf line = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &line);
	if (rc == 0) {
		dl_jw_object_begin(&w);
		dl_jw_key(&w, act->key);
		dl_jw_object_begin(&w);
		for (size_t i = 0; rc == 0 && i < add->u.obj.n; i++) {
			const dl_json_member *m = &add->u.obj.items[i];
			if (strcmp(m->key, "path") == 0) {
				dl_jw_key(&w, "path");
				dl_jw_string(&w, name);
			} else if (strcmp(m->key, "deletionVector") == 0 && m->value.kind == DL_JSON_OBJECT) {
				dl_jw_key(&w, "deletionVector");
				rc = rewrite_dv(b, &w, &m->value, l->deletion_vector_file_id, l->expiration_ms);
			} else {
				dl_buf tmp = DL_BUF_INIT;
				rc = dl_json_write(&tmp, &m->value);
				if (rc == 0) {
					dl_jw_key(&w, m->key);
					dl_jw_raw(&w, tmp.data);
				}
				dl_buf_free(&tmp);
			}
		}
		dl_jw_object_end(&w);
		dl_jw_object_end(&w);
	}
	int frc = dl_jw_finish(&w);
	if (rc == 0) rc = frc;
	if (rc == 0 && o) rc = dl_buf_printf(o, "%s\n", line.data);
	dl_buf_free(&line);
	dl_arena_free(&a);
	return rc;
}

static int on_line(const dl_sharing_line *l, void *p)
{
	build_ctx *b = p;
	dl_buf *o = b->out;
	switch (l->kind) {
	case DL_SHARING_PROTOCOL:
		b->saw_protocol = true;
		b->delta = l->delta_format;
		if (!o || b->page > 0) return 0;
		/* The parquet format's protocol is the sharing protocol's; the
		 * table it describes needs no reader feature (else the server
		 * must answer in delta). */
		if (l->delta_format) return dl_buf_printf(o, "{\"protocol\":%s}\n", l->delta_protocol);
		return dl_buf_puts(o, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n");
	case DL_SHARING_METADATA:
		b->saw_metadata = true;
		return o && b->page == 0 ? dl_buf_printf(o, "{\"metaData\":%s}\n", l->metadata) : 0;
	case DL_SHARING_FILE: {
		dl_buf name = DL_BUF_INIT;
		int rc = sh_hex_name(&name, DATA_DIR "/", l->id, ".parquet");
		if (rc == 0) rc = sh_put_file(b->t, name.data, l->url, l->size, l->expiration_ms, b->qv);
		if (rc == 0 && o) {
			if (l->delta_format) {
				rc = sh_write_delta_action(b, o, l, name.data);
			} else {
				dl_json_writer w;
				dl_jw_init(&w, o);
				dl_jw_object_begin(&w);
				dl_jw_key(&w, "add");
				dl_jw_object_begin(&w);
				dl_jw_key(&w, "path");
				dl_jw_string(&w, name.data);
				dl_jw_key(&w, "partitionValues");
				dl_jw_raw(&w, l->partition_values);
				dl_jw_key(&w, "size");
				dl_jw_int(&w, l->size);
				dl_jw_key(&w, "modificationTime");
				dl_jw_int(&w, l->timestamp >= 0 ? l->timestamp : 0);
				dl_jw_key(&w, "dataChange");
				dl_jw_bool(&w, false);
				if (l->stats) {
					dl_jw_key(&w, "stats");
					dl_jw_string(&w, l->stats);
				}
				dl_jw_object_end(&w);
				dl_jw_object_end(&w);
				rc = dl_jw_finish(&w);
				if (rc == 0) rc = dl_buf_putc(o, '\n');
			}
		} else if (rc == 0 && l->delta_format) {
			rc = sh_write_delta_action(b, NULL, l, name.data); /* registers the DV's URL */
		}
		dl_buf_free(&name);
		return rc;
	}
	case DL_SHARING_END_STREAM:
		dl_free(b->next_token);
		b->next_token = NULL;
		if (l->next_page_token && l->next_page_token[0] && !(b->next_token = dl_strdup(l->next_page_token)))
			return DL_ENOMEM;
		return 0;
	default:
		return dl_error_set(DL_ECORRUPT, "query line %" PRId64 ": a change-data line in a snapshot "
		                    "answer", l->line);
	}
}

/* Sends the query of version qv (-1: latest) and builds its checkpoint
 * into out, or (out NULL) refreshes the URLs. In pages of t->max_files
 * files (PROTOCOL.md maxFiles / pageToken) when set: each page's
 * endStreamAction names the next, and the server pins the version of the
 * first, so the pages together are one snapshot. Called with t->mu held. */
static int run_query(sh_table *t, int64_t qv, dl_buf *out)
{
	dl_sharing_query q = DL_SHARING_QUERY_INIT;
	q.as_of_version = qv;
	q.max_files = t->max_files > 0 ? t->max_files : -1;
	build_ctx b = {.t = t, .qv = qv, .out = out};
	int64_t first_version = -1;
	char *token = NULL;
	t->generation++;
	if (out) DL_TRY(dl_buf_printf(out, "{\"checkpointMetadata\":{\"version\":%" PRId64 "}}\n",
	                              qv >= 0 ? qv : t->latest));
	int rc = 0;
	for (;; b.page++) {
		int64_t tv;
		q.page_token = token;
		b.saw_protocol = b.saw_metadata = false;
		rc = dl_sharing_query_table(&tv, t->c, t->share, t->schema, t->table, &q, on_line, &b);
		if (rc == 0 && (!b.saw_protocol || !b.saw_metadata))
			rc = dl_error_set(DL_ECORRUPT, "query of %s.%s.%s: the answer lacks the %s line", t->share,
			                  t->schema, t->table, b.saw_protocol ? "metaData" : "protocol");
		if (rc == 0 && b.page == 0) first_version = tv;
		else if (rc == 0 && tv >= 0 && first_version >= 0 && tv != first_version)
			rc = dl_error_set(DL_ECORRUPT, "query of %s.%s.%s: page %d is of version %" PRId64 ", the "
			                  "first of version %" PRId64 "; read it again", t->share, t->schema,
			                  t->table, b.page + 1, tv, first_version);
		if (rc < 0 || !b.next_token) break;
		/* A server repeating a token would page for ever. */
		if (token && strcmp(token, b.next_token) == 0) {
			rc = dl_error_set(DL_ECORRUPT, "query of %s.%s.%s: the server gave the same pageToken "
			                  "twice", t->share, t->schema, t->table);
			break;
		}
		dl_free(token);
		token = b.next_token;
		b.next_token = NULL;
	}
	dl_free(token);
	dl_free(b.next_token);
	if (rc < 0) dl_error_prefix("shared table %s.%s.%s", t->share, t->schema, t->table);
	return rc;
}

/* ---- timestamps: the server resolves them ---- */

static int ignore_line(const dl_sharing_line *l, void *p)
{
	(void)l;
	(void)p;
	return 0;
}

/* The table version at ts_ms, asked of the server (the store lists no
 * commit files whose times the reader could use): the earliest version at
 * or after it from GET .../version?startingTimestamp (what the protocol's
 * changes do with startingTimestamp), the version as of it from the
 * Delta-Table-Version of a query with "timestamp" (one file asked for:
 * only the header is used). The server's own errors (a time before the
 * first commit or after the last, a table without history sharing) are
 * passed on with its message. */
static int t_version_at(int64_t *version, void *impl, int64_t ts_ms, int mode, int after_latest_ok)
{
	sh_table *t = impl;
	*version = -1;
	if (ts_ms > INT64_MAX / 1000 || ts_ms < INT64_MIN / 1000)
		return dl_error_set(DL_EINVALID, "timestamp %" PRId64 " ms is out of range", ts_ms);
	char iso[DL_TIME_TEXT_MAX + 2];
	size_t n = dl_timestamp_format_iso(iso, ts_ms * 1000, NULL, 3);
	iso[n] = 'Z';
	iso[n + 1] = 0;
	int rc;
	if (mode == DL_STORE_TS_STARTING) {
		rc = dl_sharing_table_version(version, t->c, t->share, t->schema, t->table, iso);
	} else {
		dl_sharing_query q = DL_SHARING_QUERY_INIT;
		q.timestamp = iso;
		q.max_files = 1;
		rc = dl_sharing_query_table(version, t->c, t->share, t->schema, t->table, &q, ignore_line, NULL);
		if (rc == DL_EINVALID && after_latest_ok) {
			/* After the last commit no version starts at or after it: then
			 * the latest is meant; any other refusal stands. */
			char *msg = dl_strdup(dl_error_last()->message);
			int64_t sv;
			int r2 = dl_sharing_table_version(&sv, t->c, t->share, t->schema, t->table, iso);
			if (r2 == DL_EINVALID) {
				rc = dl_sharing_table_version(version, t->c, t->share, t->schema, t->table, NULL);
			} else if (msg) {
				dl_error_set(rc, "%s", msg);
			}
			dl_free(msg);
		}
	}
	if (rc == 0 && *version < 0)
		rc = dl_error_set(DL_ECORRUPT, "the server did not give the version at %s (no "
		                  "Delta-Table-Version header)", iso);
	if (rc < 0) return dl_error_prefix("shared table %s.%s.%s: the version at %s", t->share,
	                                   t->schema, t->table, iso);
	return 0;
}

/* ---- the backend ---- */

static int parse_ckpt_name(const char *path, int64_t *version)
{
	static const char tail[] = ".checkpoint." CKPT_UUID ".json";
	size_t n = strlen(path), pre = sizeof LOG_DIR;
	if (n != pre + 20 + sizeof tail - 1 || strncmp(path, LOG_DIR "/", pre) != 0 ||
	    strcmp(path + pre + 20, tail) != 0)
		return 0;
	int64_t v = 0;
	for (size_t i = 0; i < 20; i++) {
		char ch = path[pre + i];
		if (ch < '0' || ch > '9') return 0;
		v = v * 10 + (ch - '0');
	}
	*version = v;
	return 1;
}

static void t_free(void *impl);

static int t_open(void **impl, const char *uri, const dl_store_options *opts, void *payload)
{
	(void)payload;
	*impl = NULL;
	sh_table *t = dl_calloc(1, sizeof *t);
	if (!t) return DL_ENOMEM;
	char *profile = NULL;
	t->latest = -1;
	t->cur_ch_start = t->cur_ch_end = t->ch_start = t->ch_end = -1;
	dl_strmap_init(&t->files, true);
	pthread_mutex_init(&t->mu, NULL);
	int rc = dl_sharing_parse_path(&profile, &t->share, &t->schema, &t->table, uri);
	dl_sharing_client_options co = DL_SHARING_CLIENT_OPTIONS_INIT;
	co.response_format = dl_store_options_get(opts, "delta-sharing.response_format");
	/* the well-known store options (checked as whole numbers by dl_store) */
	const char *to = dl_store_options_get(opts, "timeout_ms");
	const char *ma = dl_store_options_get(opts, "retry.max_attempts");
	if (to) co.timeout_ms = strtol(to, NULL, 10);
	if (ma) co.max_attempts = (int)strtol(ma, NULL, 10);
	/* Query answers in pages: a table of millions of files never needs
	 * one giant response. */
	t->max_files = DEFAULT_MAX_FILES;
	const char *mf = dl_store_options_get(opts, "delta-sharing.max_files");
	if (mf) {
		char *end;
		long long v = strtoll(mf, &end, 10);
		if (end == mf || *end || v < 0)
			rc = dl_error_set(DL_EINVALID, "store option delta-sharing.max_files is '%s': give the "
			                  "files per query page (a whole number; 0: no paging)", mf);
		t->max_files = v;
	}
	/* Which answer `_delta_log/<v>.json` is built from (client_changes.c):
	 * the change data feed's (changes) or a stream's (query). */
	const char *cm = dl_store_options_get(opts, "delta-sharing.commits");
	if (rc == 0 && cm && strcmp(cm, "query") == 0) {
		t->commits_query = true;
		t->commit_versions = DEFAULT_COMMIT_VERSIONS;
	} else if (rc == 0 && cm && strcmp(cm, "changes") != 0) {
		rc = dl_error_set(DL_EINVALID, "store option delta-sharing.commits is '%s': give 'changes' "
		                  "(commits from the changes endpoint, the default) or 'query' (from the "
		                  "query's startingVersion form, what streams read)", cm);
	}
	if (rc == 0) rc = dl_sharing_client_open(&t->c, profile, &co);
	/* Asking for the version now makes a table that is not shared (404)
	 * or a refused token fail the open with the server's words; the
	 * first listing reuses the answer. */
	if (rc == 0) rc = dl_sharing_table_version(&t->latest, t->c, t->share, t->schema, t->table, NULL);
	if (rc < 0) dl_error_prefix("shared table %s.%s.%s", t->share ? t->share : "",
	                            t->schema ? t->schema : "", t->table ? t->table : "");
	t->fresh_latest = rc == 0;
	dl_free(profile);
	if (rc < 0) { /* dl_store_open does not call free after a failed open */
		t_free(t);
		return rc;
	}
	*impl = t;
	return 0;
}

static void t_free(void *impl)
{
	sh_table *t = impl;
	if (!t) return;
	size_t it = 0;
	const dl_strmap_slot *s;
	while (dl_strmap_next(&t->files, &it, &s)) vfile_free(s->value);
	dl_strmap_free(&t->files);
	sh_free_commits(t);
	dl_sharing_client_free(t->c);
	dl_free(t->share);
	dl_free(t->schema);
	dl_free(t->table);
	pthread_mutex_destroy(&t->mu);
	dl_free(t);
}

static int readonly(void *impl, const char *path)
{
	sh_table *t = impl;
	return dl_store_backend_error(DL_EPERM, "%s: shared table %s.%s.%s is read-only (Delta Sharing "
	                              "does not write)", path, t->share, t->schema, t->table);
}
static int t_put(void *impl, const char *path, const void *d, size_t n)
{
	(void)d;
	(void)n;
	return readonly(impl, path);
}
static int t_del(void *impl, const char *path) { return readonly(impl, path); }

static int t_list(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *ep)
{
	sh_table *t = impl;
	if (strcmp(dir, LOG_DIR) != 0 && !(recursive && dir[0] == 0)) return 0;
	pthread_mutex_lock(&t->mu);
	int64_t v = t->latest;
	int rc = 0;
	if (!t->fresh_latest) rc = dl_sharing_table_version(&v, t->c, t->share, t->schema, t->table, NULL);
	t->fresh_latest = false;
	if (rc == 0) t->latest = v;
	pthread_mutex_unlock(&t->mu);
	if (rc < 0) return dl_error_prefix("shared table %s.%s.%s", t->share, t->schema, t->table);
	char name[128];
	for (int64_t i = 0; rc == 0 && i <= v; i++) {
		snprintf(name, sizeof name, LOG_DIR "/%020" PRId64 ".checkpoint." CKPT_UUID ".json", i);
		rc = emit(name, 0, 0, ep);
	}
	return rc;
}

static int build_ckpt(dl_buf *out, sh_table *t, int64_t v)
{
	pthread_mutex_lock(&t->mu);
	int64_t qv = v == t->latest ? -1 : v;
	int rc = run_query(t, qv, out);
	pthread_mutex_unlock(&t->mu);
	return rc;
}

/* The current URL of a file, refreshing first when it has expired or when
 * `refused_gen` (>= 0) says the URL of that generation was refused. */
static int current_url(char **url, int64_t *size, int64_t *gen, sh_table *t, const char *path,
                       int64_t refused_gen)
{
	*url = NULL;
	pthread_mutex_lock(&t->mu);
	vfile *f = dl_strmap_get(&t->files, path, strlen(path));
	int rc = 0;
	if (!f) {
		pthread_mutex_unlock(&t->mu);
		return dl_store_backend_error(DL_ENOTFOUND, "%s: not a file of shared table %s.%s.%s", path,
		                              t->share, t->schema, t->table);
	}
	bool expired = f->expiration_ms >= 0 && dl_now_millis() >= f->expiration_ms;
	if (expired || (refused_gen >= 0 && f->generation == refused_gen)) {
		rc = f->ch_start >= 0 ? sh_run_changes(t, f->ch_start, f->ch_end, false)
		                      : run_query(t, f->query_version, NULL);
		f = rc == 0 ? dl_strmap_get(&t->files, path, strlen(path)) : NULL;
		if (rc == 0 && (!f || f->generation != t->generation))
			rc = dl_error_set(DL_ENOTFOUND, "%s: the file is no longer in shared table %s.%s.%s "
			                  "(it changed during the read); read it again", path, t->share,
			                  t->schema, t->table);
		if (rc == 0 && f->expiration_ms >= 0 && dl_now_millis() >= f->expiration_ms)
			rc = dl_error_set(DL_EIO, "%s: the server hands out URLs that have already expired",
			                  path);
	}
	if (rc == 0) {
		*url = dl_strdup(f->url);
		*size = f->size;
		*gen = f->generation;
		if (!*url) rc = DL_ENOMEM;
	}
	pthread_mutex_unlock(&t->mu);
	return rc;
}

/* A GET of a file's URL (ranged when len > 0), refreshing the URL once
 * when it has expired or is refused. */
static int fetch(sh_response *resp, sh_table *t, const char *path, int64_t off, size_t len,
                 uint8_t *dest)
{
	int64_t refused = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		char *url;
		int64_t size = 0, gen = -1;
		DL_TRY(current_url(&url, &size, &gen, t, path, refused));
		char range[64];
		if (len) snprintf(range, sizeof range, "%" PRId64 "-%" PRId64, off, off + (int64_t)len - 1);
		/* The URL's query string is its signature: messages name the file. */
		sh_request req = {.method = "GET", .url = url, .display = path, .range = len ? range : NULL,
		                  .dest = dest, .dest_cap = len};
		int rc = sh_http_send(resp, t->c, &req);
		dl_free(url);
		DL_TRY(rc);
		if ((resp->status == 401 || resp->status == 403) && attempt == 0) {
			sh_response_free(resp);
			refused = gen;
			continue;
		}
		if (resp->status == 416) { /* a range past the end */
			resp->dest_len = 0;
			return 0;
		}
		if (resp->status != 200 && resp->status != 206) {
			rc = sh_http_error(resp, &req);
			sh_response_free(resp);
			return rc;
		}
		if (len && resp->status == 200 && off != 0) {
			/* A server that ignores Range sends the whole file: too much
			 * for dest (on_body refused it) unless the file is small. */
			sh_response_free(resp);
			return dl_store_backend_error(DL_EIO, "%s: the URL's server ignored the Range header",
			                              path);
		}
		return 0;
	}
	return DL_EIO;
}

static int t_get(uint8_t **data, size_t *len, void *impl, const char *path)
{
	sh_table *t = impl;
	*data = NULL;
	*len = 0;
	int64_t v;
	if (parse_ckpt_name(path, &v)) {
		dl_buf b = DL_BUF_INIT;
		int rc = build_ckpt(&b, t, v);
		if (rc < 0) {
			dl_buf_free(&b);
			return rc;
		}
		if (!b.data) DL_TRY(dl_buf_puts(&b, ""));
		*data = (uint8_t *)dl_buf_detach(&b, len);
		return 0;
	}
	if (sh_parse_commit_name(path, &v)) return sh_get_commit(data, len, t, v);
	if (strncmp(path, LOG_DIR "/", sizeof LOG_DIR) == 0)
		return dl_store_backend_error(DL_ENOTFOUND, "%s: no such object in a shared table", path);
	sh_response r;
	DL_TRY(fetch(&r, t, path, 0, 0, NULL));
	*data = (uint8_t *)dl_buf_detach(&r.body, len);
	if (!*data) *data = dl_calloc(1, 1);
	return *data ? 0 : DL_ENOMEM;
}

static int t_get_range(uint8_t *buf, size_t *got, void *impl, const char *path, int64_t off,
                       size_t len)
{
	sh_table *t = impl;
	*got = 0;
	if (len == 0) return 0;
	sh_response r;
	DL_TRY(fetch(&r, t, path, off, len, buf));
	*got = r.dest_len;
	sh_response_free(&r);
	return 0;
}

static int t_stat(int64_t *size, int64_t *mtime, void *impl, const char *path)
{
	sh_table *t = impl;
	*mtime = 0;
	int64_t v;
	if (parse_ckpt_name(path, &v)) {
		dl_buf b = DL_BUF_INIT;
		int rc = build_ckpt(&b, t, v);
		*size = (int64_t)b.len;
		dl_buf_free(&b);
		return rc;
	}
	pthread_mutex_lock(&t->mu);
	vfile *f = dl_strmap_get(&t->files, path, strlen(path));
	*size = f ? f->size : -1;
	pthread_mutex_unlock(&t->mu);
	if (!f || *size < 0)
		return dl_store_backend_error(DL_ENOTFOUND, "%s: no such object in shared table %s.%s.%s",
		                              path, t->share, t->schema, t->table);
	return 0;
}

/* No reader_*: dl_store reads through t_stat and t_get_range (ranged GETs),
 * so a Parquet reader reads the footer and the column chunks it needs,
 * never the whole file. */
static const dl_store_backend sharing_backend = {
	.version = DL_STORE_BACKEND_VERSION,
	.scheme = "delta-sharing",
	.open = t_open,
	.free = t_free,
	.get = t_get,
	.get_range = t_get_range,
	.put = t_put,
	.put_if_absent = t_put,
	.list = t_list,
	.del = t_del,
	.stat = t_stat,
	.version_at_timestamp = t_version_at,
	/* commits are served by name (t_get), but the listing shows one
	 * checkpoint per version and no commit: the server's history sharing
	 * decides which versions exist */
	.limits = DL_STORE_LIMIT_UNLISTED_COMMITS,
};

int dl_sharing_register(void)
{
	int rc = dl_store_backend_register(&sharing_backend);
	if (rc == DL_EEXISTS) {
		dl_error_clear();
		return 0;
	}
	return rc;
}
