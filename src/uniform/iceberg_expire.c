/* Iceberg snapshot expiry, as Spark's delta-iceberg converter does it
 * (IcebergConverter.convertSnapshotInternal / expireIcebergSnapshot): when
 * the Delta commits a conversion covers include an OPTIMIZE, the Iceberg
 * transaction also runs Iceberg's ExpireSnapshots with the table's
 * defaults, and its file cleanup deletes only under the metadata location
 * (manifest lists and manifests, never data files: those are Delta's, for
 * VACUUM). No other commit expires anything, and Delta log cleanup does
 * not touch the Iceberg metadata.
 *
 * ExpireSnapshots (Iceberg's RemoveSnapshots) with no explicit ids keeps
 *  - the head of main (here the new snapshot) and its ancestors while
 *    fewer than history.expire.min-snapshots-to-keep (default 1) are kept
 *    or the ancestor is not older than now - history.expire.max-snapshot-
 *    age-ms (default 5 days); the first ancestor failing both ends the walk;
 *  - snapshots outside main's ancestry not older than that cutoff;
 * and drops the rest. The snapshot-log loses every entry up to the last
 * one naming a dropped snapshot (TableMetadata's updateSnapshotLog, so the
 * history has no gaps). Old metadata.json files stay (Iceberg deletes them
 * only with write.metadata.delete-after-commit.enabled). */
#include "uniform/iceberg_expire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deltalake/store.h"
#include "json/json.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/mem.h"

int dl_ice_commits_have_optimize(bool *out, dl_store *store, int64_t from, int64_t to)
{
	*out = false;
	for (int64_t v = from + 1; v <= to && !*out; v++) {
		char path[64];
		snprintf(path, sizeof path, "_delta_log/%020lld.json", (long long)v);
		uint8_t *data = NULL;
		size_t len = 0;
		int rc = dl_store_get(&data, &len, store, path);
		if (rc == DL_ENOTFOUND) {
			dl_error_clear();
			continue;
		}
		DL_TRY(rc);
		/* the commitInfo line (the protocol writes one action per line) */
		const char *p = (const char *)data, *end = p + len;
		while (p < end && !*out) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;
			if ((size_t)(le - p) > 14 && memcmp(p, "{\"commitInfo\"", 13) == 0) {
				dl_arena a = DL_ARENA_INIT;
				dl_json *root = NULL;
				if (dl_json_parse(&a, p, (size_t)(le - p), path, &root) == 0) {
					const char *op = dl_json_get_str(dl_json_get(root, "commitInfo"), "operation");
					*out = op && strcmp(op, "OPTIMIZE") == 0;
				} else {
					dl_error_clear();
				}
				dl_arena_free(&a);
			}
			p = le + 1;
		}
		dl_free(data);
	}
	return 0;
}

/* A long-valued table property of the new metadata version: Spark's
 * ExpireSnapshots runs in the transaction that set them. */
static int64_t prop_long(const dl_str_map *props, const char *key, int64_t dflt)
{
	bool found;
	const char *v = dl_str_map_get(props, key, &found);
	if (!v || !*v) return dflt;
	char *e;
	long long x = strtoll(v, &e, 10);
	return *e ? dflt : (int64_t)x;
}

typedef struct snap {
	int64_t id, parent, ts;
	const char *list;
	bool keep;
} snap;

static int64_t field(const dl_json *o, const char *k, int64_t dflt)
{
	const dl_json *v = dl_json_get(o, k);
	int64_t x;
	if (!v || dl_json_int64(v, &x) < 0) {
		dl_error_clear();
		return dflt;
	}
	return x;
}

int dl_ice_expiry_plan(dl_ice_expiry *out, const dl_ice_metadata *prev, const dl_str_map *props,
                       int64_t head_parent, int64_t now_ms)
{
	memset(out, 0, sizeof *out);
	size_t n = prev && prev->snapshots ? prev->snapshots->u.arr.n : 0;
	if (!n) return 0;
	snap *s = dl_calloc(n, sizeof *s);
	out->ids = dl_calloc(n, sizeof *out->ids);
	out->lists = dl_calloc(n, sizeof *out->lists);
	out->kept = dl_calloc(n, sizeof *out->kept);
	out->kept_lists = dl_calloc(n, sizeof *out->kept_lists);
	if (!s || !out->ids || !out->lists || !out->kept || !out->kept_lists) {
		dl_free(s);
		dl_ice_expiry_free(out);
		return DL_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const dl_json *o = &prev->snapshots->u.arr.items[i];
		s[i].id = field(o, "snapshot-id", -1);
		s[i].parent = field(o, "parent-snapshot-id", -1);
		s[i].ts = field(o, "timestamp-ms", 0);
		s[i].list = dl_json_get_str(o, "manifest-list");
	}
	int64_t max_age = prop_long(props, "history.expire.max-snapshot-age-ms", DL_ICE_MAX_SNAPSHOT_AGE_MS_DEFAULT);
	int64_t min_keep = prop_long(props, "history.expire.min-snapshots-to-keep", 1);
	int64_t cutoff = now_ms - max_age;
	/* main's ancestry from the new head (kept: it is the branch head) */
	int64_t kept = 1;
	bool *in_main = dl_calloc(n, sizeof *in_main);
	if (!in_main) {
		dl_free(s);
		dl_ice_expiry_free(out);
		return DL_ENOMEM;
	}
	bool walking = true;
	for (int64_t id = head_parent; id >= 0;) {
		size_t k = 0;
		while (k < n && s[k].id != id) k++;
		if (k == n || in_main[k]) break; /* the ancestry ends (or loops) */
		in_main[k] = true;
		if (walking && (kept < min_keep || s[k].ts >= cutoff)) {
			s[k].keep = true;
			kept++;
		} else {
			walking = false;
		}
		id = s[k].parent;
	}
	for (size_t i = 0; i < n; i++) {
		if (!in_main[i] && s[i].ts >= cutoff) s[i].keep = true;
		if (s[i].keep) {
			out->kept[out->nkept] = s[i].id;
			out->kept_lists[out->nkept++] = s[i].list;
		} else {
			out->ids[out->n] = s[i].id;
			out->lists[out->n++] = s[i].list;
		}
	}
	dl_free(in_main);
	dl_free(s);
	return 0;
}

bool dl_ice_expiry_has(const dl_ice_expiry *e, int64_t id)
{
	for (size_t i = 0; e && i < e->n; i++)
		if (e->ids[i] == id) return true;
	return false;
}

static bool under_metadata(const char *rel)
{
	return rel && strncmp(rel, "metadata/", 9) == 0 && !strstr(rel, "/../");
}

/* Adds the manifests of a manifest list to the set (a list that cannot be
 * read keeps nothing: its manifests then stay unless another names them). */
static void add_list(dl_strmap *set, dl_store *store, const char *list, dl_ice_rel_fn rel, void *payload,
                     dl_ice_manifest_info **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (!list) return;
	if (dl_ice_manifest_list_read(out, nout, store, rel(list, payload)) < 0) {
		dl_error_clear();
		*out = NULL;
		*nout = 0;
		return;
	}
	for (size_t i = 0; set && i < *nout; i++) {
		const char *r = rel((*out)[i].path, payload);
		if (dl_strmap_put(set, r, strlen(r), NULL, NULL) < 0) dl_error_clear();
	}
}

static void free_list(dl_ice_manifest_info *l, size_t n)
{
	for (size_t i = 0; i < n; i++) dl_ice_manifest_info_free(&l[i]);
	dl_free(l);
}

void dl_ice_expiry_clean(dl_store *store, const dl_ice_expiry *e, const dl_ice_manifest_info *current,
                         size_t ncurrent, dl_ice_rel_fn rel, void *payload)
{
	if (!e || !e->n) return;
	dl_strmap live;
	dl_strmap_init(&live, true);
	for (size_t i = 0; i < ncurrent; i++) {
		const char *r = rel(current[i].path, payload);
		if (dl_strmap_put(&live, r, strlen(r), NULL, NULL) < 0) dl_error_clear();
	}
	for (size_t i = 0; i < e->nkept; i++) {
		dl_ice_manifest_info *l;
		size_t n;
		add_list(&live, store, e->kept_lists[i], rel, payload, &l, &n);
		free_list(l, n);
	}
	for (size_t i = 0; i < e->n; i++) {
		dl_ice_manifest_info *l;
		size_t n;
		add_list(NULL, store, e->lists[i], rel, payload, &l, &n);
		for (size_t k = 0; k < n; k++) {
			const char *r = rel(l[k].path, payload);
			if (!under_metadata(r) || dl_strmap_find(&live, r, strlen(r), NULL)) continue;
			if (dl_store_delete(store, r) < 0) dl_error_clear();
			/* a manifest named by two expired lists is deleted once */
			if (dl_strmap_put(&live, r, strlen(r), NULL, NULL) < 0) dl_error_clear();
		}
		free_list(l, n);
		const char *lr = e->lists[i] ? rel(e->lists[i], payload) : NULL;
		if (under_metadata(lr) && dl_store_delete(store, lr) < 0) dl_error_clear();
	}
	dl_strmap_free(&live);
}

void dl_ice_expiry_free(dl_ice_expiry *e)
{
	dl_free(e->ids);
	dl_free(e->lists);
	dl_free(e->kept);
	dl_free(e->kept_lists);
	memset(e, 0, sizeof *e);
}
