/* The sidecar files V2 checkpoints reference (PROTOCOL.md "Metadata
 * Cleanup", steps 4 and 5): read from the `sidecar` column of Parquet
 * checkpoints and the sidecar lines of JSON ones, so log cleanup deletes
 * only sidecars no remaining checkpoint needs. */
#include "txn/sidecar_refs.h"

#include <string.h>

#include "json/json.h"
#include "log/path.h"
#include "parquet/reader.h"
#include "util/error.h"
#include "util/mem.h"

/* The file name of a sidecar path (relative names, or full URIs). */
static int add_ref(dl_strmap *refs, const char *path, size_t n)
{
	dl_arena a = DL_ARENA_INIT;
	const char *decoded;
	int rc = dl_log_path_decode(&a, path, n, "sidecar.path", &decoded);
	if (rc == 0) {
		const char *slash = strrchr(decoded, '/');
		const char *name = slash ? slash + 1 : decoded;
		rc = dl_strmap_put(refs, name, strlen(name), NULL, NULL);
	}
	dl_arena_free(&a);
	return rc;
}

static int refs_parquet(dl_strmap *refs, dl_store *store, const char *path)
{
	pq_reader *r;
	DL_TRY(pq_reader_open_store(&r, store, path, -1));
	const char *cols[] = {"sidecar"};
	int rc = pq_reader_select_columns(r, cols, 1);
	if (rc == DL_ENOTFOUND) { /* a V2 checkpoint without sidecars */
		dl_error_clear();
		pq_reader_free(r);
		return 0;
	}
	while (rc == 0) {
		dl_batch *b = NULL;
		int64_t first;
		rc = pq_reader_next(r, &b, &first);
		if (rc < 0 || !b) break;
		const dl_array *sc = b->cols[0];
		int pi = dl_type_field_index(sc->type, "path");
		const dl_array *p = pi >= 0 ? sc->children[pi] : NULL;
		for (int64_t i = 0; p && i < b->num_rows && rc == 0; i++) {
			if ((sc->validity && !dl_bit_get(sc->validity, i)) ||
			    (p->validity && !dl_bit_get(p->validity, i)))
				continue;
			rc = add_ref(refs, (const char *)p->data + p->offsets[i],
			             (size_t)(p->offsets[i + 1] - p->offsets[i]));
		}
		dl_batch_free(b);
	}
	pq_reader_free(r);
	return rc;
}

static int on_line(const dl_json *line, int64_t lineno, void *payload)
{
	(void)lineno;
	const dl_json *sc = dl_json_get(line, "sidecar");
	const char *p = sc ? dl_json_get_str(sc, "path") : NULL;
	return p ? add_ref(payload, p, strlen(p)) : 0;
}

static int refs_json(dl_strmap *refs, dl_store *store, const char *path)
{
	uint8_t *data;
	size_t len;
	DL_TRY(dl_store_get(&data, &len, store, path));
	dl_arena a = DL_ARENA_INIT;
	int rc = dl_json_parse_lines(&a, (const char *)data, len, path, on_line, refs);
	dl_arena_free(&a);
	dl_free(data);
	return rc;
}

int dl_sidecar_refs_add(dl_strmap *refs, dl_store *store, const char *checkpoint_path)
{
	size_t n = strlen(checkpoint_path);
	int rc = n > 5 && strcmp(checkpoint_path + n - 5, ".json") == 0
	             ? refs_json(refs, store, checkpoint_path)
	             : refs_parquet(refs, store, checkpoint_path);
	if (rc < 0) dl_error_prefix("reading the sidecars of %s", checkpoint_path);
	return rc;
}
