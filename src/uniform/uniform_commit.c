/* The UniForm converter (Spark's IcebergConverter): after a Delta commit,
 * the Iceberg metadata under <table>/metadata/ is brought up to the new
 * version. It continues from the version the newest Iceberg metadata
 * records as converted_delta_version, so a conversion that failed (or
 * never ran) is caught up by the next one; the versions in between are
 * folded into one Iceberg snapshot, as Spark folds commits that come
 * faster than the conversion.
 *
 * The snapshot is the difference between the Delta files at the last
 * converted version and at the new one: new files are ADDED entries in one
 * new manifest; a manifest of the previous snapshot that lists a removed
 * file is rewritten (its other files EXISTING with their sequence numbers,
 * the removed ones DELETED by this snapshot); untouched manifests are
 * carried as they are. A changed partition spec (REPLACE TABLE with other
 * partitioning) starts a new history in the same table.
 *
 * Publication follows the spec's file-system tables: the new
 * metadata/v<N+1>.metadata.json is written put-if-absent, so of two
 * concurrent converters one wins and the other fails without harm, then
 * metadata/version-hint.text names N+1 for path-based readers. Manifests
 * and lists written by a failed attempt are deleted. */
#include "uniform/uniform.h"

#include <stdio.h>
#include <string.h>

#include <strings.h>
#include <unistd.h>

#include "deltalake/error.h"
#include "deltalake/snapshot.h"
#include "storage/backend.h"
#include "log/snapshot.h"
#include "uniform/iceberg_metadata.h"
#include "uniform/iceberg_properties.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/random.h"
#include "util/time.h"
#include "util/uuid.h"

bool dl_uniform_format_enabled(const dl_str_map *conf, const char *format)
{
	bool found;
	const char *v = dl_str_map_get(conf, DL_UNIFORM_FORMATS_KEY, &found);
	size_t n = strlen(format);
	for (const char *p = v; p && *p;) {
		while (*p == ' ' || *p == ',') p++;
		const char *e = p;
		while (*e && *e != ',') e++;
		const char *t = e;
		while (t > p && t[-1] == ' ') t--;
		if ((size_t)(t - p) == n && strncasecmp(p, format, n) == 0) return true;
		p = e;
	}
	return false;
}

typedef struct conv {
	dl_store *store;
	dl_arena arena;
	dl_snapshot *cur, *prev;
	dl_snapshot *prev_conf_snap;     /* the last converted version, for its configuration only */
	dl_ice_metadata meta;
	bool have_meta, fresh;
	dl_ice_table_schema ice;
	char *schema_json;
	const char *location;
	dl_strmap cur_files, prev_files; /* relative path -> dl_add* */
	dl_strmap removed;               /* relative path -> dl_add* (from prev) */
	dl_ice_manifest_info *manifests;
	size_t nmanifests, cap;
	char **written;                  /* store paths written, deleted on failure */
	size_t nwritten, wcap, nwritten_total;
	int64_t snapshot_id, seq;
	int64_t added_files, deleted_files, added_records, deleted_records;
	int manifest_no;
	char uuid[DL_UUID_TEXT_LEN + 1];
	dl_ice_expiry expiry;            /* snapshots an OPTIMIZE expires */
} conv;

static int remember(conv *c, const char *path)
{
	if (c->nwritten == c->wcap) {
		size_t n = c->wcap ? c->wcap * 2 : 8;
		char **g = dl_reallocarray(c->written, n, sizeof *g);
		if (!g) return DL_ENOMEM;
		c->written = g;
		c->wcap = n;
	}
	c->written[c->nwritten] = dl_strdup(path);
	if (!c->written[c->nwritten]) return DL_ENOMEM;
	c->nwritten++;
	c->nwritten_total = c->nwritten;
	return 0;
}

static int push_manifest(conv *c, dl_ice_manifest_info *m)
{
	if (c->nmanifests == c->cap) {
		size_t n = c->cap ? c->cap * 2 : 8;
		dl_ice_manifest_info *g = dl_reallocarray(c->manifests, n, sizeof *g);
		if (!g) {
			dl_ice_manifest_info_free(m);
			return DL_ENOMEM;
		}
		c->manifests = g;
		c->cap = n;
	}
	c->manifests[c->nmanifests++] = *m;
	return 0;
}

static char *abs_path(conv *c, const char *rel)
{
	if (strstr(rel, "://") || rel[0] == '/') return dl_arena_strdup(&c->arena, rel);
	size_t n = strlen(c->location) + strlen(rel) + 2;
	char *p = dl_arena_alloc(&c->arena, n);
	if (p) snprintf(p, n, "%s/%s", c->location, rel);
	return p;
}

static int index_files(dl_strmap *m, const dl_snapshot *s)
{
	const dl_log_state *st = dl_snapshot_state(s);
	DL_TRY(dl_strmap_reserve(m, st->nadds));
	for (size_t i = 0; i < st->nadds; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		if (a->dv)
			return dl_error_set_class(DL_EUNSUPPORTED,
			                          "DELTA_ICEBERG_COMPAT_VIOLATION.DELETION_VECTORS_NOT_PURGED_OR_DISABLED",
			                          "IcebergCompatV2 requires Deletion Vectors to be completely "
			                          "purged from the table: data file %s has a deletion vector "
			                          "(run REORG TABLE ... APPLY (PURGE) first)",
			                          a->path);
		DL_TRY(dl_strmap_put(m, a->path, strlen(a->path), (void *)a, NULL));
	}
	return 0;
}

static dl_ice_data_file data_file(conv *c, const dl_add *a, const char *abs)
{
	dl_ice_data_file f;
	(void)c;
	f.path = abs;
	f.size = a->size;
	f.partition = &a->partition_values;
	f.stats = a->stats;
	f.stats_len = a->stats_len;
	return f;
}

static int new_manifest_path(conv *c, char *rel, size_t cap)
{
	snprintf(rel, cap, "metadata/%s-m%d.avro", c->uuid, c->manifest_no++);
	return remember(c, rel);
}

/* The manifest of this snapshot's new files. */
static int write_added(conv *c)
{
	const dl_log_state *st = dl_snapshot_state(c->cur);
	bool any = false;
	for (size_t i = 0; i < st->nadds && !any; i++)
		any = !dl_strmap_find(&c->prev_files, dl_log_state_add(st, i)->path,
		                      strlen(dl_log_state_add(st, i)->path), NULL);
	if (!any) return 0;
	char rel[128];
	DL_TRY(new_manifest_path(c, rel, sizeof rel));
	dl_ice_manifest_writer w;
	DL_TRY(dl_ice_manifest_open(&w, c->store, rel, abs_path(c, rel), &c->ice, c->schema_json, 0,
	                            c->snapshot_id, c->seq));
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < st->nadds; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		if (dl_strmap_find(&c->prev_files, a->path, strlen(a->path), NULL)) continue;
		const char *ap = abs_path(c, a->path);
		if (!ap) rc = DL_ENOMEM;
		dl_ice_data_file f = data_file(c, a, ap);
		if (rc == 0) rc = dl_ice_manifest_add(&w, DL_ICE_ADDED, c->snapshot_id, c->seq, c->seq, &f);
		c->added_files++;
	}
	dl_ice_manifest_info m;
	if (rc == 0) rc = dl_ice_manifest_close(&w, &m);
	else dl_ice_manifest_abort(&w);
	if (rc == 0) {
		c->added_records += m.added_rows;
		rc = push_manifest(c, &m);
	}
	return rc;
}

/* Does a previous manifest list a file this snapshot removes? */
typedef struct scan_ctx {
	conv *c;
	bool hit;
	dl_ice_manifest_writer *w; /* rewriting */
} scan_ctx;

/* A path the previous Iceberg metadata wrote, relative to the table: it
 * was written under that metadata's location, which need not be spelled as
 * this store's root (a table opened as "t" that was created as "/data/t"). */
static const char *old_relative(const conv *c, const char *path)
{
	const char *loc = c->have_meta && c->meta.location ? c->meta.location : c->location;
	const char *rel = dl_ice_relative(path, loc);
	return rel != path ? rel : dl_ice_relative(path, c->location);
}

static const char *expiry_rel(const char *path, void *payload) { return old_relative(payload, path); }

static int scan_entry(const dl_ice_entry *e, avro_value_t *df, void *payload)
{
	(void)df;
	scan_ctx *s = payload;
	if (e->status == DL_ICE_DELETED) return 0;
	const char *rel = old_relative(s->c, e->file_path);
	if (dl_strmap_find(&s->c->removed, rel, strlen(rel), NULL)) s->hit = true;
	return 0;
}

static int rewrite_entry(const dl_ice_entry *e, avro_value_t *df, void *payload)
{
	(void)df;
	scan_ctx *s = payload;
	conv *c = s->c;
	if (e->status == DL_ICE_DELETED) return 0; /* deleted by an earlier snapshot */
	const char *rel = old_relative(c, e->file_path);
	void *v = NULL;
	bool removed = dl_strmap_find(&c->removed, rel, strlen(rel), &v);
	if (!removed && !dl_strmap_find(&c->prev_files, rel, strlen(rel), &v))
		return dl_error_set(DL_ECORRUPT,
		                    "Iceberg metadata lists %s, which Delta version %lld does not have: "
		                    "the Iceberg metadata is out of step with the Delta log",
		                    e->file_path, (long long)dl_snapshot_version(c->prev));
	if (e->sequence_number < 0 || e->file_sequence_number < 0)
		return dl_error_set(DL_EUNSUPPORTED, "Iceberg manifest entry for %s has no sequence number",
		                    e->file_path);
	dl_ice_data_file f = data_file(c, v, e->file_path);
	if (removed) {
		c->deleted_files++;
		return dl_ice_manifest_add(s->w, DL_ICE_DELETED, c->snapshot_id, e->sequence_number,
		                           e->file_sequence_number, &f);
	}
	return dl_ice_manifest_add(s->w, DL_ICE_EXISTING, e->snapshot_id, e->sequence_number,
	                           e->file_sequence_number, &f);
}

static int carry_manifests(conv *c)
{
	if (!c->have_meta || c->fresh || !c->meta.current_manifest_list) return 0;
	dl_ice_manifest_info *old;
	size_t n;
	DL_TRY(dl_ice_manifest_list_read(&old, &n, c->store,
	                                 old_relative(c, c->meta.current_manifest_list)));
	int rc = 0;
	size_t i = 0;
	for (; rc == 0 && i < n; i++) {
		const char *mrel = old_relative(c, old[i].path);
		scan_ctx s = {c, false, NULL};
		if (c->removed.count) rc = dl_ice_manifest_read(c->store, mrel, scan_entry, &s);
		if (rc < 0) break;
		if (!s.hit) {
			rc = push_manifest(c, &old[i]);
			old[i].path = NULL; /* moved, with its partition summaries */
			old[i].parts = NULL;
			old[i].nparts = 0;
			continue;
		}
		char rel[128];
		rc = new_manifest_path(c, rel, sizeof rel);
		dl_ice_manifest_writer w;
		if (rc == 0)
			rc = dl_ice_manifest_open(&w, c->store, rel, abs_path(c, rel), &c->ice, c->schema_json, 0,
			                          c->snapshot_id, c->seq);
		if (rc < 0) break;
		s.w = &w;
		rc = dl_ice_manifest_read(c->store, mrel, rewrite_entry, &s);
		dl_ice_manifest_info m;
		if (rc == 0) rc = dl_ice_manifest_close(&w, &m);
		else dl_ice_manifest_abort(&w);
		if (rc == 0) {
			c->deleted_records += m.deleted_rows;
			rc = push_manifest(c, &m);
		}
	}
	for (size_t j = 0; j < n; j++) dl_ice_manifest_info_free(&old[j]);
	dl_free(old);
	return rc;
}

static int load_state(conv *c, int64_t version, bool force, bool *enabled)
{
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = c->store;
	so.as_of_version = version;
	so.skip_tombstones = true;
	DL_TRY(dl_snapshot_open(&c->cur, dl_store_root(c->store), &so));
	const dl_metadata *md = dl_snapshot_state(c->cur)->metadata;
	*enabled = dl_uniform_format_enabled(&md->configuration, "iceberg");
	if (!*enabled) {
		if (!force) return 0;
		return dl_error_set_class(DL_EINVALID, "DELTA_UNIVERSAL_FORMAT_VIOLATION",
		                          "The validation of Universal Format (iceberg) has failed: "
		                          "delta.universalFormat.enabledFormats does not include iceberg at "
		                          "version %lld of %s.",
		                          (long long)dl_snapshot_version(c->cur), dl_store_root(c->store));
	}
	int rc = dl_ice_metadata_load_latest(&c->meta, &c->arena, c->store);
	if (rc == DL_ENOTFOUND) dl_error_clear();
	else DL_TRY(rc);
	c->have_meta = rc == 0;
	return 0;
}

static int spec_changed(conv *c, bool *changed)
{
	*changed = false;
	if (!c->have_meta) return 0;
	dl_buf mine = DL_BUF_INIT, theirs = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &mine);
	dl_ice_write_spec(&w, &c->ice, false);
	int rc = dl_jw_finish(&w);
	const dl_json *spec = NULL;
	for (size_t i = 0; c->meta.specs && i < c->meta.specs->u.arr.n; i++) {
		int64_t id = -1;
		const dl_json *x = dl_json_get(&c->meta.specs->u.arr.items[i], "spec-id");
		if (x && dl_json_int64(x, &id) == 0 && id == c->meta.default_spec_id)
			spec = &c->meta.specs->u.arr.items[i];
		dl_error_clear();
	}
	if (rc == 0 && spec) rc = dl_json_write(&theirs, spec);
	if (rc == 0) *changed = !spec || strcmp(mine.data, theirs.data) != 0;
	dl_buf_free(&mine);
	dl_buf_free(&theirs);
	return rc;
}

static int convert(conv *c, dl_uniform_result *out)
{
	const dl_metadata *md = dl_snapshot_state(c->cur)->metadata;
	c->location = dl_store_root(c->store);
	/* Iceberg locations are absolute: a local table opened by a relative
	 * path is named from the working directory. */
	if (dl_store_is_local(c->store) && c->location[0] != '/' && !strstr(c->location, "://")) {
		char cwd[4096];
		if (!getcwd(cwd, sizeof cwd)) return dl_error_errno("UniForm: resolving the working directory for", c->location);
		size_t n = strlen(cwd) + strlen(c->location) + 2;
		char *abs = dl_arena_alloc(&c->arena, n);
		if (!abs) return DL_ENOMEM;
		snprintf(abs, n, "%s/%s", cwd, c->location);
		c->location = abs;
	}
	DL_TRY(dl_ice_schema_build(&c->ice, &c->arena, dl_snapshot_schema(c->cur), md));
	dl_buf sj = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &sj);
	dl_ice_write_schema(&w, dl_snapshot_schema(c->cur), 0);
	int rc = dl_jw_finish(&w);
	c->schema_json = rc == 0 ? dl_arena_strdup(&c->arena, sj.data) : NULL;
	dl_buf_free(&sj);
	DL_TRY(rc);
	if (!c->schema_json) return DL_ENOMEM;
	DL_TRY(spec_changed(c, &c->fresh));
	int64_t from = c->have_meta ? c->meta.converted_delta_version : -1;
	if (c->have_meta && !c->fresh && from >= 0 && from < dl_snapshot_version(c->cur)) {
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.store = c->store;
		so.as_of_version = from;
		so.skip_tombstones = true;
		rc = dl_snapshot_open(&c->prev, dl_store_root(c->store), &so);
		if (rc < 0)
			return dl_error_prefix("catching up Iceberg metadata from Delta version %lld", (long long)from);
		DL_TRY(index_files(&c->prev_files, c->prev));
	} else if (c->have_meta && !c->fresh) {
		c->fresh = true; /* no usable converted version: a new history */
	}
	DL_TRY(index_files(&c->cur_files, c->cur));
	size_t it = 0;
	const dl_strmap_slot *slot;
	while (dl_strmap_next(&c->prev_files, &it, &slot))
		if (!dl_strmap_find(&c->cur_files, slot->key, slot->klen, NULL))
			DL_TRY(dl_strmap_put(&c->removed, slot->key, slot->klen, slot->value, NULL));
	DL_TRY(dl_uuid_v4(c->uuid));
	uint64_t rnd;
	DL_TRY(dl_random_bytes(&rnd, sizeof rnd));
	c->snapshot_id = (int64_t)(rnd >> 1);
	if (c->snapshot_id == 0) c->snapshot_id = 1;
	c->seq = (c->have_meta ? c->meta.last_sequence_number : 0) + 1;
	DL_TRY(carry_manifests(c));
	DL_TRY(write_added(c));
	char list_rel[160];
	snprintf(list_rel, sizeof list_rel, "metadata/snap-%lld-1-%s.avro", (long long)c->snapshot_id, c->uuid);
	DL_TRY(remember(c, list_rel));
	int64_t parent = c->have_meta && !c->fresh ? c->meta.current_snapshot_id : -1;
	DL_TRY(dl_ice_manifest_list_write(c->store, list_rel, c->manifests, c->nmanifests, c->snapshot_id,
	                                  parent, c->seq));
	dl_ice_new_version v;
	memset(&v, 0, sizeof v);
	v.prev = c->have_meta ? &c->meta : NULL;
	v.fresh = c->fresh;
	char uuid[DL_UUID_TEXT_LEN + 1];
	DL_TRY(dl_uuid_v4(uuid));
	v.table_uuid = uuid;
	v.location = c->location;
	v.schema = dl_snapshot_schema(c->cur);
	v.ice = &c->ice;
	v.snapshot_id = c->snapshot_id;
	v.sequence_number = c->seq;
	v.delta_version = dl_snapshot_version(c->cur);
	v.delta_timestamp_ms = dl_snapshot_timestamp(c->cur);
	v.timestamp_ms = v.delta_timestamp_ms;
	if (c->have_meta && v.timestamp_ms < c->meta.last_updated_ms) v.timestamp_ms = c->meta.last_updated_ms;
	v.manifest_list = abs_path(c, list_rel);
	v.added_files = c->added_files;
	v.deleted_files = c->deleted_files;
	v.added_records = c->added_records;
	v.deleted_records = c->deleted_records;
	v.operation = c->deleted_files == 0 ? "append" : c->added_files == 0 ? "delete" : "overwrite";
	const dl_log_state *st = dl_snapshot_state(c->cur);
	v.total_files = (int64_t)st->nadds;
	for (size_t i = 0; i < c->nmanifests; i++)
		v.total_records += c->manifests[i].added_rows + c->manifests[i].existing_rows;
	char prev_file[64];
	if (c->have_meta) {
		snprintf(prev_file, sizeof prev_file, "metadata/v%lld.metadata.json", (long long)c->meta.file_version);
		v.prev_metadata_file = abs_path(c, prev_file);
	}
	/* The properties: the Delta configuration's pass-through changes from
	 * the last converted version's to this one's (iceberg_properties.c). */
	dl_snapshot *before = c->prev;
	if (!before && c->have_meta && from >= 0 && from < dl_snapshot_version(c->cur)) {
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.store = c->store;
		so.as_of_version = from;
		so.skip_tombstones = true;
		if (dl_snapshot_open(&c->prev_conf_snap, dl_store_root(c->store), &so) < 0) dl_error_clear();
		before = c->prev_conf_snap;
	}
	dl_ice_properties_in pin = {
		.prev = c->have_meta ? &c->meta : NULL,
		.prev_conf = before ? &dl_snapshot_state(before)->metadata->configuration : NULL,
		.conf = &md->configuration,
		.delta_version = v.delta_version,
		.delta_timestamp_ms = v.delta_timestamp_ms,
		.schema_json = c->schema_json,
	};
	dl_str_map props;
	rc = dl_ice_properties_build(&props, &c->arena, &pin);
	if (rc < 0) return dl_error_prefix("UniForm: Iceberg table properties of Delta version %lld",
	                                   (long long)v.delta_version);
	v.properties = &props;
	/* Spark expires Iceberg snapshots when the converted commits include
	 * an OPTIMIZE (iceberg_expire.c). */
	bool optimized = false;
	if (c->have_meta && !c->fresh && from >= 0)
		DL_TRY(dl_ice_commits_have_optimize(&optimized, c->store, from, dl_snapshot_version(c->cur)));
	if (optimized) DL_TRY(dl_ice_expiry_plan(&c->expiry, &c->meta, &props, parent, dl_now_millis()));
	v.expired = c->expiry.n ? &c->expiry : NULL;
	dl_buf json = DL_BUF_INIT;
	rc = dl_ice_metadata_write(&json, &v);
	int64_t n = c->have_meta ? c->meta.file_version + 1 : 1;
	char mpath[64];
	snprintf(mpath, sizeof mpath, "metadata/v%lld.metadata.json", (long long)n);
	if (rc == 0) rc = dl_store_put_if_absent(c->store, mpath, json.data, json.len);
	dl_buf_free(&json);
	if (rc == DL_EEXISTS)
		rc = dl_error_set(DL_ECONFLICT,
		                  "another conversion published Iceberg metadata %s first; this one is "
		                  "dropped (the next commit catches up)",
		                  mpath);
	DL_TRY(rc);
	c->nwritten = 0; /* published: keep the files even if the hint fails */
	char hint[24];
	int hl = snprintf(hint, sizeof hint, "%lld", (long long)n);
	DL_TRY(dl_store_put(c->store, "metadata/version-hint.text", hint, (size_t)hl));
	dl_ice_expiry_clean(c->store, &c->expiry, c->manifests, c->nmanifests, expiry_rel, c);
	out->expired_snapshots = (int64_t)c->expiry.n;
	out->converted = true;
	out->from_version = from;
	out->delta_version = v.delta_version;
	out->metadata_version = n;
	out->snapshot_id = c->snapshot_id;
	return 0;
}

int dl_uniform_convert(dl_uniform_result *out, dl_store *store, int64_t version, bool required,
                       bool always)
{
	memset(out, 0, sizeof *out);
	out->from_version = out->delta_version = out->metadata_version = -1;
	conv c;
	memset(&c, 0, sizeof c);
	c.store = store;
	c.arena = (dl_arena)DL_ARENA_INIT;
	dl_strmap_init(&c.cur_files, true);
	dl_strmap_init(&c.prev_files, true);
	dl_strmap_init(&c.removed, true);
	bool enabled = false;
	int rc = load_state(&c, version, required, &enabled);
	if (rc == 0 && enabled) {
		int64_t done = c.have_meta ? c.meta.converted_delta_version : -1;
		/* newer than the log: metadata of an earlier table at this path, rebuilt fresh */
		if (done == dl_snapshot_version(c.cur) && !always) {
			out->delta_version = done;
			out->from_version = done;
			out->metadata_version = c.meta.file_version;
			out->snapshot_id = c.meta.current_snapshot_id;
		} else {
			rc = convert(&c, out);
		}
	}
	if (rc < 0 && c.nwritten) {
		/* Delete what the failed attempt wrote, keeping its error. */
		const dl_error *e = dl_error_last();
		int code = e->code;
		char *klass = dl_strdup(e->klass ? e->klass : "");
		char *msg = dl_strdup(e->message ? e->message : "");
		for (size_t i = 0; i < c.nwritten; i++) dl_store_delete(store, c.written[i]);
		if (klass && msg && klass[0]) dl_error_set_class(code, klass, "%s", msg);
		else if (msg) dl_error_set(code, "%s", msg);
		dl_free(klass);
		dl_free(msg);
	}
	for (size_t i = 0; i < c.nwritten_total; i++) dl_free(c.written[i]);
	dl_free(c.written);
	for (size_t i = 0; i < c.nmanifests; i++) dl_ice_manifest_info_free(&c.manifests[i]);
	dl_free(c.manifests);
	dl_strmap_free(&c.cur_files);
	dl_strmap_free(&c.prev_files);
	dl_strmap_free(&c.removed);
	dl_ice_expiry_free(&c.expiry);
	dl_snapshot_free(c.cur);
	dl_snapshot_free(c.prev);
	dl_snapshot_free(c.prev_conf_snap);
	dl_arena_free(&c.arena);
	return rc;
}
