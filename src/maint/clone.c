/* SHALLOW CLONE (Spark's CloneTableCommand / CloneTableBase): a new table,
 * or a new version of an existing one under CREATE OR REPLACE, whose files
 * are the source version's files, referenced where they are.
 *
 * What the target's commit holds, as CloneTableBase builds it:
 *  - metaData: the source's, with a new table id (the target's own id when
 *    the target exists), the target's name and description, the source's
 *    configuration overridden by TBLPROPERTIES; the column mapping mode
 *    cannot change (DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE);
 *  - protocol: the source's merged with what the new configuration needs
 *    (and with the target's when it exists: never a downgrade);
 *  - adds: every source file with an absolute URI (makePathsAbsolute),
 *    deletion vectors of storage type 'u' turned into 'p' with the DV
 *    file's absolute URI, dataChange=true, without baseRowId and
 *    defaultRowCommitVersion ("CLONE does not preserve Row IDs"), which
 *    on a row-tracking table then get fresh ones as commitLarge assigns;
 *  - domains: only delta.clustering is copied
 *    (DomainMetadataUtils.handleDomainMetadataForCloneTable); app
 *    transactions (txn actions) are not copied, as Spark does not.
 * Under REPLACE the target's live files are removed (dataChange=true),
 * except those the clone adds again.
 * Files outside the target's root are never deleted by the target's
 * VACUUM, so the source's files survive it. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/maintenance.h"
#include "log/path.h"
#include "log/properties.h"
#include "log/snapshot.h"
#include "log/table_features.h"
#include "maint/restore_clone.h"
#include "ops/create.h"
#include "ops/protocol_choose.h"
#include "txn/txn.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"
#include "util/uuid.h"

static const size_t clone_options_ends[] = {sizeof(dl_clone_options)};
DL_OPTIONS_ENDS_CHECK(clone_options_ends, DL_CLONE_OPTIONS_VERSION);

#define OP "CLONE"
#define PROGRESS "clone"

typedef struct clone_cmd {
	dl_clone_options o;
	dl_store *src_store, *dst_store;
	bool owns_src, owns_dst;
	dl_snapshot *src, *dst;
	dl_transaction *txn;
	dl_arena arena;
	char *src_root;   /* the source's qualified root URI, no trailing '/' */
	int64_t now_ms;
} clone_cmd;

/* Hadoop's makeQualified of the source path: a URI with a scheme
 * ("file:///data/t" for local paths, absolute). */
static int qualified_root(char **out, const char *root)
{
	*out = NULL;
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	if (strstr(root, "://")) {
		rc = dl_buf_puts(&b, root);
	} else {
		const char *p = root;
		if (strncmp(p, "file:", 5) == 0) {
			p += 5;
			while (p[0] == '/' && p[1] == '/') p++;
		}
		char abs[PATH_MAX];
		if (!realpath(p, abs)) return dl_error_errno("CLONE: resolving the source path", p);
		rc = dl_buf_printf(&b, "file://%s", abs);
	}
	while (rc == 0 && b.len > 1 && b.data[b.len - 1] == '/') b.data[--b.len] = 0;
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = (char *)b.data;
	return 0;
}

static int absolute(const char **out, clone_cmd *c, const char *path)
{
	if (dl_log_path_is_absolute(path)) {
		*out = path;
		return 0;
	}
	size_t n = strlen(c->src_root) + strlen(path) + 2;
	char *s = dl_arena_alloc(&c->arena, n);
	if (!s) return DL_ENOMEM;
	snprintf(s, n, "%s/%s", c->src_root, path);
	*out = s;
	return 0;
}

/* DeletionVectorDescriptor.copyWithAbsolutePath: 'u' becomes 'p' naming
 * the DV file by its absolute (encoded) URI; 'i' and 'p' stay. */
static int absolute_dv(dl_dv_descriptor **out, clone_cmd *c, const dl_dv_descriptor *dv)
{
	*out = (dl_dv_descriptor *)dv;
	if (!dv || dv->storage_type != 'u') return 0;
	dl_buf rel = DL_BUF_INIT, enc = DL_BUF_INIT;
	int rc = dl_dv_file_path(dv, &rel);
	const char *abs = NULL;
	if (rc == 0) rc = absolute(&abs, c, (const char *)rel.data);
	if (rc == 0) rc = dl_log_path_encode(&enc, abs);
	dl_dv_descriptor *d = rc == 0 ? dl_arena_alloc(&c->arena, sizeof *d) : NULL;
	if (rc == 0 && !d) rc = DL_ENOMEM;
	if (rc == 0) {
		*d = *dv;
		d->storage_type = 'p';
		d->path_or_inline = dl_arena_strndup(&c->arena, (const char *)enc.data, enc.len);
		if (!d->path_or_inline) rc = DL_ENOMEM;
		else *out = d;
	}
	dl_buf_free(&rel);
	dl_buf_free(&enc);
	return rc;
}

static const char *column_mapping_mode(const dl_str_map *conf)
{
	bool found;
	const char *m = dl_str_map_get(conf, "delta.columnMapping.mode", &found);
	return m && *m ? m : "none";
}

/* metaData as CloneTableBase.determineTargetMetadata builds it */
static int target_metadata(dl_metadata *md, clone_cmd *c)
{
	const dl_metadata *sm = dl_snapshot_state(c->src)->metadata;
	*md = *sm;
	char id[DL_UUID_TEXT_LEN + 1];
	if (c->dst) {
		const dl_metadata *tm = dl_snapshot_state(c->dst)->metadata;
		md->id = tm->id;
		md->name = tm->name;
		md->description = tm->description;
	} else {
		DL_TRY(dl_uuid_v4(id));
		if (!(md->id = dl_arena_strdup(&c->arena, id))) return DL_ENOMEM;
		md->name = NULL;
		md->description = NULL;
	}
	int n = c->o.nproperties;
	if (n < 0 || (n > 0 && (!c->o.property_keys || !c->o.property_values)))
		return dl_error_set(DL_EINVALID, "CLONE: %d TBLPROPERTIES without keys or values", n);
	dl_kv *items = dl_arena_calloc(&c->arena, sm->configuration.n + (size_t)n + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < sm->configuration.n; i++) items[k++] = sm->configuration.items[i];
	for (int i = 0; i < n; i++) {
		const char *key = c->o.property_keys[i], *val = c->o.property_values[i];
		if (!key || !*key || !val) return dl_error_set(DL_EINVALID, "CLONE: table property %d has no key or value", i);
		if (strcmp(key, "delta.columnMapping.maxColumnId") == 0)
			return dl_error_set_class(DL_EINVALID, "DELTA_CANNOT_MODIFY_TABLE_PROPERTY",
			                          "[DELTA_CANNOT_MODIFY_TABLE_PROPERTY] The Delta table configuration "
			                          "delta.columnMapping.maxColumnId cannot be specified by the user");
		if (dl_ops_is_protocol_property(key)) continue;
		uint32_t j = 0;
		while (j < k && strcmp(items[j].key, key) != 0) j++;
		items[j].key = key;
		items[j].value = val;
		if (j == k) k++;
	}
	md->configuration.items = items;
	md->configuration.n = k;
	/* checkColumnMappingMode: against the source and the existing target */
	const char *before = column_mapping_mode(&sm->configuration), *after = column_mapping_mode(&md->configuration);
	if (strcmp(before, after) == 0 && c->dst)
		before = column_mapping_mode(&dl_snapshot_state(c->dst)->metadata->configuration);
	if (strcmp(before, after) != 0)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE",
		                          "[DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE] Changing column mapping "
		                          "mode from '%s' to '%s' is not supported.",
		                          before, after);
	return 0;
}

/* CloneTableBase.determineTargetProtocol */
static int target_protocol(dl_protocol *out, clone_cmd *c, const dl_metadata *md)
{
	const dl_protocol *sp = dl_snapshot_state(c->src)->protocol;
	/* the overrides may ask for features (delta.feature.x) and versions */
	int n = c->o.nproperties;
	dl_kv *items = dl_arena_calloc(&c->arena, md->configuration.n + (size_t)n + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < md->configuration.n; i++) items[k++] = md->configuration.items[i];
	for (int i = 0; i < n; i++)
		if (dl_ops_is_protocol_property(c->o.property_keys[i]))
			items[k++] = (dl_kv){c->o.property_keys[i], c->o.property_values[i]};
	dl_str_map conf = {items, k};
	dl_protocol need;
	DL_TRY(dl_ops_choose_protocol(&need, &c->arena, dl_snapshot_schema(c->src), &conf, sp));
	if (!c->dst) {
		*out = need;
		return 0;
	}
	return dl_maint_protocol_merge(out, &c->arena, &need, dl_snapshot_state(c->dst)->protocol);
}

static int build(clone_cmd *c, dl_clone_metrics *m)
{
	const dl_log_state *st = dl_snapshot_state(c->src);
	dl_metadata md;
	DL_TRY(target_metadata(&md, c));
	dl_protocol proto;
	DL_TRY(target_protocol(&proto, c, &md));
	DL_TRY(dl_txn_set_protocol(c->txn, &proto));
	DL_TRY(dl_txn_set_metadata(c->txn, &md));
	const char *cl = dl_snapshot_domain(c->src, "delta.clustering");
	if (cl) DL_TRY(dl_txn_set_domain(c->txn, "delta.clustering", cl, false));
	else if (c->dst && dl_snapshot_domain(c->dst, "delta.clustering"))
		DL_TRY(dl_txn_set_domain(c->txn, "delta.clustering", "{\"clusteringColumns\":[]}", false));
	/* the adds first, keyed, so that REPLACE removes only the target's
	 * files the clone does not add again (a commit may not both add and
	 * remove one file) */
	dl_strmap keys;
	dl_strmap_init(&keys, true);
	dl_buf k = DL_BUF_INIT;
	dl_add *adds = dl_arena_calloc(&c->arena, st->nadds ? st->nadds : 1, sizeof *adds);
	int rc = adds ? 0 : DL_ENOMEM;
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		dl_add *add = &adds[i];
		*add = *dl_log_state_add(st, i);
		rc = absolute(&add->path, c, add->path);
		if (rc == 0) rc = absolute_dv(&add->dv, c, add->dv);
		if (rc == 0 && c->dst) {
			/* keyed as the log reads the path back ("file:///x" is "/x") */
			dl_add as_read = *add;
			dl_buf enc = DL_BUF_INIT;
			rc = dl_log_path_encode(&enc, add->path);
			if (rc == 0)
				rc = dl_log_path_decode(&c->arena, (const char *)enc.data, enc.len, "the clone's add",
				                        &as_read.path);
			dl_buf_free(&enc);
			if (rc == 0) rc = dl_maint_file_key(&k, &as_read);
		}
		if (rc == 0 && c->dst) rc = dl_strmap_put(&keys, (const char *)k.data, k.len, add, NULL);
	}
	const dl_log_state *tst = c->dst ? dl_snapshot_state(c->dst) : NULL;
	for (size_t i = 0; tst && i < tst->nadds && rc == 0; i++) {
		const dl_add *t = dl_log_state_add(tst, i);
		rc = dl_maint_file_key(&k, t);
		if (rc < 0 || dl_strmap_find(&keys, (const char *)k.data, k.len, NULL)) continue;
		rc = dl_ops_remove_file(c->txn, t, c->now_ms, true);
		m->numRemovedFiles++;
		m->removedFilesSize += t->size;
	}
	dl_buf_free(&k);
	dl_strmap_free(&keys);
	if (rc < 0) return rc;
	/* CLONE does not keep row ids; on a row-tracking table commitLarge
	 * gives the adds fresh ones past the target's mark */
	bool track = dl_protocol_has(&proto, DL_FEATURE_ROW_TRACKING);
	int64_t hwm = track && c->dst ? dl_maint_row_id_hwm(c->dst) : -1, hwm0 = hwm;
	int64_t next_version = c->dst ? dl_snapshot_version(c->dst) + 1 : 0;
	for (size_t i = 0; i < st->nadds; i++) {
		dl_add add = adds[i];
		add.log_path = NULL;
		add.data_change = true;
		add.base_row_id = DL_NONE;
		add.default_row_commit_version = DL_NONE;
		if (track) DL_TRY(dl_maint_fresh_row_ids(&add, &hwm, next_version, &c->arena));
		DL_TRY(dl_txn_add_file(c->txn, &add));
		if ((i & 1023) == 1023)
			DL_TRY(dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "adding", "files",
			                         (int64_t)i + 1, (int64_t)st->nadds));
	}
	if (track && hwm != hwm0) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%" PRId64 "}", hwm);
		DL_TRY(dl_txn_set_domain(c->txn, "delta.rowTracking", conf, false));
	}
	m->sourceTableSize = st->total_size;
	m->sourceNumOfFiles = (int64_t)st->nadds;
	m->numCopiedFiles = 0;
	m->copiedFilesSize = 0;

	/* DeltaOperations.Clone(source, sourceVersion): only these two (Delta OSS
	 * records no isShallow; every clone it makes is shallow) */
	char v[32];
	snprintf(v, sizeof v, "%" PRId64, dl_snapshot_version(c->src));
	if (c->o.source_name) {
		DL_TRY(dl_txn_set_parameter(c->txn, "source", c->o.source_name));
	} else {
		/* Hadoop's Path text of the root: file:/data/t */
		const char *r = c->src_root;
		bool local = strncmp(r, "file://", 7) == 0;
		size_t n = strlen(r) + 16;
		char *name = dl_arena_alloc(&c->arena, n);
		if (!name) return DL_ENOMEM;
		snprintf(name, n, "delta.`%s%s`", local ? "file:" : "", local ? r + 7 : r);
		DL_TRY(dl_txn_set_parameter(c->txn, "source", name));
	}
	DL_TRY(dl_txn_set_parameter_json(c->txn, "sourceVersion", v));
	DL_TRY(dl_txn_set_metric(c->txn, "sourceTableSize", m->sourceTableSize));
	DL_TRY(dl_txn_set_metric(c->txn, "sourceNumOfFiles", m->sourceNumOfFiles));
	DL_TRY(dl_txn_set_metric(c->txn, "numRemovedFiles", m->numRemovedFiles));
	DL_TRY(dl_txn_set_metric(c->txn, "numCopiedFiles", m->numCopiedFiles));
	DL_TRY(dl_txn_set_metric(c->txn, "removedFilesSize", m->removedFilesSize));
	DL_TRY(dl_txn_set_metric(c->txn, "copiedFilesSize", m->copiedFilesSize));
	return 0;
}

static int open_source(clone_cmd *c, const char *source_uri)
{
	DL_TRY(dl_maint_store(&c->src_store, &c->owns_src, c->o.source_store, c->o.store_options, source_uri,
	                      "CLONE source"));
	dl_snapshot *latest = NULL;
	DL_TRY(dl_ops_open_latest(&latest, c->src_store));
	if (!latest)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE",
		                          "[DELTA_MISSING_DELTA_TABLE] %s is not a Delta table.",
		                          dl_store_root(c->src_store));
	int64_t version = c->o.source_version;
	int rc = 0;
	if (version < 0 && c->o.source_timestamp) {
		const char *ts_text;
		rc = dl_maint_version_at(&version, &ts_text, &c->arena, latest, c->o.source_timestamp, OP);
		if (rc == 0 && version == dl_snapshot_version(latest)) version = -1;
	} else if (version > dl_snapshot_version(latest)) {
		rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_VERSION_NOT_FOUND",
		                        "[DELTA_VERSION_NOT_FOUND] Cannot time travel Delta table to version %" PRId64
		                        ". Available versions: [0, %" PRId64 "].",
		                        version, dl_snapshot_version(latest));
	}
	if (rc == 0 && version >= 0 && version != dl_snapshot_version(latest)) {
		dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
		so.store = c->src_store;
		so.as_of_version = version;
		rc = dl_snapshot_open(&c->src, dl_store_root(c->src_store), &so);
		if (rc == DL_ENOTFOUND)
			rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_VERSION_NOT_FOUND",
			                        "[DELTA_VERSION_NOT_FOUND] Cannot time travel Delta table to version "
			                        "%" PRId64 ": %s",
			                        version, dl_error_last()->message);
		dl_snapshot_free(latest);
	} else if (rc == 0) {
		c->src = latest;
	} else {
		dl_snapshot_free(latest);
	}
	if (rc == 0) rc = qualified_root(&c->src_root, dl_store_root(c->src_store));
	return rc;
}

static int run(clone_cmd *c, dl_clone_metrics *m, const char *source_uri, const char *target_uri)
{
	DL_TRY(open_source(c, source_uri));
	DL_TRY(dl_maint_store(&c->dst_store, &c->owns_dst, c->o.store, c->o.store_options, target_uri,
	                      "CLONE target"));
	DL_TRY(dl_ops_open_latest(&c->dst, c->dst_store));
	if (c->dst) {
		if (c->o.if_not_exists) return 0;
		if (!c->o.replace)
			return dl_error_set_class(DL_EEXISTS, "DELTA_TABLE_ALREADY_EXISTS",
			                          "[DELTA_TABLE_ALREADY_EXISTS] Table %s already exists.",
			                          dl_store_root(c->dst_store));
		char *dst_root = NULL;
		int rc = qualified_root(&dst_root, dl_store_root(c->dst_store));
		bool same = rc == 0 && strcmp(dst_root, c->src_root) == 0;
		dl_free(dst_root);
		if (rc < 0) return rc;
		if (same)
			return dl_error_set_class(DL_EINVALID, "DELTA_UNSUPPORTED_CLONE_REPLACE_SAME_TABLE",
			                          "[DELTA_UNSUPPORTED_CLONE_REPLACE_SAME_TABLE] You tried to REPLACE an "
			                          "existing table (%s) with CLONE. This operation is unsupported. Try a "
			                          "different target for CLONE or delete the table at the current target.",
			                          dl_store_root(c->dst_store));
	}
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = OP;
	to.user_metadata = c->o.user_metadata;
	DL_TRY(dl_txn_begin(&c->txn, c->dst_store, c->dst, &to));
	if (c->dst) dl_txn_read_whole_table(c->txn);
	DL_TRY(build(c, m));
	DL_TRY(dl_maint_progress(c->o.progress, c->o.progress_payload, PROGRESS, "committing", "files",
	                         m->sourceNumOfFiles, m->sourceNumOfFiles));
	return dl_txn_commit(c->txn, &m->version);
}

int dl_shallow_clone(dl_clone_metrics *metrics, const char *source_uri, const char *target_uri,
                     const dl_clone_options *opts)
{
	if (!metrics) return dl_error_set(DL_EINVALID, "dl_shallow_clone: metrics missing");
	memset(metrics, 0, sizeof *metrics);
	metrics->version = -1;
	clone_cmd c;
	memset(&c, 0, sizeof c);
	dl_clone_options d = DL_CLONE_OPTIONS_INIT;
	c.o = d;
	DL_TRY(dl_options_load(&c.o, opts, clone_options_ends, DL_CLONE_OPTIONS_VERSION, "dl_clone_options",
	                       "DL_CLONE_OPTIONS_INIT"));
	if (c.o.source_version >= 0 && c.o.source_timestamp)
		return dl_error_set(DL_EINVALID, "CLONE: give a source version or a timestamp, not both");
	if (c.o.replace && c.o.if_not_exists)
		return dl_error_set(DL_EINVALID, "CLONE: OR REPLACE and IF NOT EXISTS cannot both be used");
	c.now_ms = dl_now_millis();
	c.arena = (dl_arena)DL_ARENA_INIT;
	int rc = run(&c, metrics, source_uri, target_uri);
	if (rc < 0) {
		memset(metrics, 0, sizeof *metrics);
		metrics->version = -1;
	}
	dl_txn_free(c.txn);
	dl_snapshot_free(c.src);
	dl_snapshot_free(c.dst);
	dl_free(c.src_root);
	dl_arena_free(&c.arena);
	if (c.owns_src) dl_store_free(c.src_store);
	if (c.owns_dst) dl_store_free(c.dst_store);
	return rc;
}
