/* Symlink-format manifests: see symlink_manifest.h. Files are grouped by
 * their partition directory (Spark's partition path of the partition
 * values, in the metadata's column order, Hive-escaped, null as
 * __HIVE_DEFAULT_PARTITION__), each group's absolute paths sorted and
 * written as one manifest; then every manifest under the directory whose
 * partition has no file any more is deleted. */
#include "txn/symlink_manifest.h"

#include <stdlib.h>
#include <string.h>

#include "log/partition_values.h"
#include "log/path.h"
#include "log/properties.h"
#include "log/protocol.h"
#include "log/snapshot.h"
#include "storage/backend.h"
#include "storage/path.h"
#include "storage/resolve.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"

bool dl_symlink_manifest_enabled(const dl_snapshot *snap)
{
	const dl_log_state *st = dl_snapshot_state(snap);
	if (!st->metadata) return false;
	bool found = false;
	const char *v = dl_str_map_get(&st->metadata->configuration, DL_SYMLINK_MANIFEST_PROPERTY,
	                               &found);
	bool on = false;
	if (!found || !v || dl_parse_bool_property(v, &on) < 0) {
		dl_error_clear();
		return false;
	}
	return on;
}

typedef struct entry {
	const char *dir;   /* partition dir ("k=v/") in the arena, "" unpartitioned */
	char *uri;         /* absolute path of the data file */
} entry;

static int cmp_entry(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	int c = strcmp(x->dir, y->dir);
	return c ? c : strcmp(x->uri, y->uri);
}

/* The absolute form Spark writes (Hadoop's Path.toString of the qualified
 * path): "file:/dir/file" on a local store, the store's URI otherwise. */
static int absolute_path(dl_buf *out, const char *root, bool local, const char *path)
{
	if (dl_log_path_is_absolute(path)) {
		if (path[0] == '/') return dl_buf_printf(out, "file:%s", path);
		return dl_buf_puts(out, path);
	}
	if (local) return dl_buf_printf(out, "file:%s/%s", root, path);
	return dl_buf_printf(out, "%s/%s", root, path);
}

static int write_group(dl_store *store, const entry *e, size_t n, dl_buf *body)
{
	dl_buf_clear(body);
	for (size_t i = 0; i < n; i++) {
		DL_TRY(dl_buf_puts(body, e[i].uri));
		DL_TRY(dl_buf_putc(body, '\n'));
	}
	dl_buf path = DL_BUF_INIT;
	int rc = dl_buf_printf(&path, DL_SYMLINK_MANIFEST_DIR "/%smanifest", e[0].dir);
	if (rc == 0) rc = dl_store_put(store, path.data, body->data ? body->data : "", body->len);
	dl_buf_free(&path);
	return rc;
}

/* Deletes the manifests under the directory whose partition is not in
 * `live` (keys "k=v/" or "" for the table's own). */
static int delete_stale(dl_store *store, const dl_strmap *live)
{
	dl_object_list l = {NULL, 0};
	DL_TRY(dl_store_list_recursive(&l, store, DL_SYMLINK_MANIFEST_DIR));
	int rc = 0;
	size_t pl = strlen(DL_SYMLINK_MANIFEST_DIR) + 1;
	for (size_t i = 0; i < l.count && rc == 0; i++) {
		const char *p = l.items[i].path;
		size_t n = strlen(p);
		if (n < pl + 8 || strcmp(p + n - 8, "manifest") != 0) continue;
		if (n > pl + 8 && p[n - 9] != '/') continue;
		const char *dir = p + pl;
		size_t dl = n - pl - 8;
		if (dl_strmap_find(live, dir, dl, NULL)) continue;
		rc = dl_store_delete(store, p);
		if (rc == DL_ENOTFOUND) {
			dl_error_clear();
			rc = 0;
		}
	}
	dl_object_list_free(&l);
	return rc;
}

int dl_symlink_manifest_write(int64_t *files, dl_store *store, dl_snapshot *snap)
{
	if (files) *files = 0;
	const dl_log_state *st = dl_snapshot_state(snap);
	if (st->metadata_only)
		return dl_error_set(DL_EINVALID, "symlink manifest: the snapshot has no files "
		                    "(opened metadata_only)");
	const dl_table_properties *props = dl_snapshot_props(snap);
	if (props->column_mapping_mode != DL_CM_NONE)
		return dl_error_set_class(DL_EUNSUPPORTED,
		                          "DELTA_UNSUPPORTED_MANIFEST_GENERATION_WITH_COLUMN_MAPPING",
		                          "Manifest generation is not supported for tables that leverage "
		                          "column mapping, as external readers cannot read these Delta "
		                          "tables. See Delta documentation for more details.");
	for (size_t i = 0; i < st->nadds; i++)
		if (dl_log_state_add(st, i)->dv)
			return dl_error_set_class(
				DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_GENERATE_WITH_DELETION_VECTORS",
				"The 'GENERATE symlink_format_manifest' command is not supported on table "
				"versions with deletion vectors (version %lld, file %s). In order to produce a "
				"version of the table without deletion vectors, run 'REORG TABLE table APPLY "
				"(PURGE)'. Then re-run the 'GENERATE' command. Make sure that no concurrent "
				"transactions are adding deletion vectors again between REORG and GENERATE. If "
				"you need to generate manifests regularly, or you cannot prevent concurrent "
				"transactions, consider disabling deletion vectors on this table using 'ALTER "
				"TABLE table SET TBLPROPERTIES (delta.enableDeletionVectors = false)'.",
				(long long)st->version, dl_log_state_add(st, i)->path);

	bool local = dl_store_impl_of(store, &dl_store_backend_file) != NULL;
	char *root = NULL;
	int rc = 0;
	if (local) {
		/* absolute, even for a table opened by a relative path */
		char *canon;
		DL_TRY(dl_path_canonical(&canon, dl_store_root(store)));
		root = dl_strdup(strncmp(canon, "file://", 7) == 0 ? canon + 7 : canon);
		dl_free(canon);
		if (!root) return DL_ENOMEM;
	} else {
		root = dl_strdup(dl_store_root(store));
		if (!root) return DL_ENOMEM;
	}
	const dl_metadata *md = st->metadata;
	int np = (int)md->npartition_columns;
	dl_arena arena = DL_ARENA_INIT;
	entry *es = st->nadds ? dl_calloc(st->nadds, sizeof *es) : NULL;
	const char **vals = np ? dl_calloc((size_t)np, sizeof *vals) : NULL;
	if ((st->nadds && !es) || (np && !vals)) rc = DL_ENOMEM;
	dl_buf b = DL_BUF_INIT;
	for (size_t i = 0; i < st->nadds && rc == 0; i++) {
		const dl_add *a = dl_log_state_add(st, i);
		for (int k = 0; k < np; k++) {
			bool found;
			vals[k] = dl_str_map_get(&a->partition_values, md->partition_columns[k], &found);
		}
		dl_buf_clear(&b);
		if (np) rc = dl_partition_dir(&b, md->partition_columns, vals, np);
		if (rc < 0) break;
		es[i].dir = dl_arena_strndup(&arena, b.data ? b.data : "", b.len);
		dl_buf_clear(&b);
		if (rc == 0) rc = absolute_path(&b, root, local, a->path);
		if (rc == 0) es[i].uri = dl_buf_detach(&b, NULL);
		if (rc == 0 && (!es[i].dir || !es[i].uri)) rc = DL_ENOMEM;
	}
	if (rc == 0 && st->nadds > 1) qsort(es, st->nadds, sizeof *es, cmp_entry);
	dl_strmap live;
	dl_strmap_init(&live, false);
	for (size_t i = 0; i < st->nadds && rc == 0;) {
		size_t j = i + 1;
		while (j < st->nadds && strcmp(es[j].dir, es[i].dir) == 0) j++;
		rc = write_group(store, es + i, j - i, &b);
		if (rc == 0) rc = dl_strmap_put(&live, es[i].dir, strlen(es[i].dir), (void *)1, NULL);
		i = j;
	}
	if (rc == 0) rc = delete_stale(store, &live);
	if (rc == 0 && files) *files = (int64_t)st->nadds;
	dl_strmap_free(&live);
	for (size_t i = 0; es && i < st->nadds; i++) dl_free(es[i].uri);
	dl_free(es);
	dl_free(vals);
	dl_buf_free(&b);
	dl_arena_free(&arena);
	dl_free(root);
	return rc;
}
