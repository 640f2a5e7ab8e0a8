/* VACUUM ... USING INVENTORY (Spark's getFilesFromInventory): the caller's
 * rows (path STRING, length BIGINT, isDir BOOLEAN, modificationTime BIGINT)
 * replace the listing. Other columns are ignored; the four must all be
 * there with those types (DELTA_INVALID_INVENTORY_SCHEMA). Paths are fully
 * qualified; rows outside the table root are dropped, the rest made
 * relative, and hidden paths dropped as the listing would. Read straight
 * from the Arrow C Data buffers, one batch at a time. */
#include "maint/vacuum_internal.h"

#include <string.h>

#include "storage/resolve.h"
#include "util/error.h"
#include "util/mem.h"

#define INVENTORY_SCHEMA                                                                     \
	"root\n |-- path: string (nullable = true)\n |-- length: long (nullable = true)\n"      \
	" |-- isDir: boolean (nullable = true)\n |-- modificationTime: long (nullable = true)\n"

typedef struct inv_cols {
	int path, length, is_dir, mtime;
	bool large_path;
} inv_cols;

static int bad_schema(const char *why)
{
	return dl_error_set_class(DL_EINVALID, "DELTA_INVALID_INVENTORY_SCHEMA",
	                          "The schema for the specified INVENTORY does not contain all of the "
	                          "required fields (%s). Required fields are: \n%s", why,
	                          INVENTORY_SCHEMA);
}

static int find_cols(inv_cols *k, const struct ArrowSchema *s)
{
	k->path = k->length = k->is_dir = k->mtime = -1;
	if (!s->format || strcmp(s->format, "+s") != 0) return bad_schema("the rows are not a struct");
	for (int64_t i = 0; i < s->n_children; i++) {
		const struct ArrowSchema *f = s->children[i];
		if (!f->name || !f->format) continue;
		const char *want = NULL;
		int *slot = NULL;
		if (!strcmp(f->name, "path")) slot = &k->path, want = "u";
		else if (!strcmp(f->name, "length")) slot = &k->length, want = "l";
		else if (!strcmp(f->name, "isDir")) slot = &k->is_dir, want = "b";
		else if (!strcmp(f->name, "modificationTime")) slot = &k->mtime, want = "l";
		else continue;
		bool ok = !strcmp(f->format, want) || (slot == &k->path && !strcmp(f->format, "U"));
		if (!ok || f->dictionary) {
			dl_error_set(DL_EINVALID, "column %s has Arrow type %s", f->name, f->format);
			char why[256];
			snprintf(why, sizeof why, "%s", dl_error_last()->message);
			return bad_schema(why);
		}
		if (slot == &k->path) k->large_path = f->format[0] == 'U';
		*slot = (int)i;
	}
	if (k->path < 0) return bad_schema("no column path");
	if (k->length < 0) return bad_schema("no column length");
	if (k->is_dir < 0) return bad_schema("no column isDir");
	if (k->mtime < 0) return bad_schema("no column modificationTime");
	return 0;
}

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
	const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
	if (!v || a->null_count == 0) return true;
	int64_t j = a->offset + i;
	return (v[j >> 3] >> (j & 7)) & 1;
}

static int64_t i64_at(const struct ArrowArray *a, int64_t i)
{
	if (!valid_at(a, i)) return 0;
	return ((const int64_t *)a->buffers[1])[a->offset + i];
}

static int take_batch(dl_vacuum_ctx *c, const inv_cols *k, const struct ArrowArray *b)
{
	const struct ArrowArray *p = b->children[k->path], *len = b->children[k->length],
	                        *dir = b->children[k->is_dir], *mt = b->children[k->mtime];
	size_t rl = strlen(c->root_canon);
	for (int64_t i = 0; i < b->length; i++) {
		int64_t r = b->offset + i;
		if (!valid_at(p, r)) continue;
		int64_t j = p->offset + r, s, e;
		if (k->large_path) {
			s = ((const int64_t *)p->buffers[1])[j];
			e = ((const int64_t *)p->buffers[1])[j + 1];
		} else {
			s = ((const int32_t *)p->buffers[1])[j];
			e = ((const int32_t *)p->buffers[1])[j + 1];
		}
		char *uri = dl_malloc((size_t)(e - s) + 1);
		if (!uri) return DL_ENOMEM;
		memcpy(uri, (const char *)p->buffers[2] + s, (size_t)(e - s));
		uri[e - s] = '\0';
		char *canon = NULL;
		int rc = dl_path_canonical(&canon, uri);
		dl_free(uri);
		if (rc == DL_EPERM) {
			dl_error_clear();
			continue;
		}
		DL_TRY(rc);
		/* Spark: startswith(path, basePath + "/") */
		if (strncmp(canon, c->root_canon, rl) == 0 && canon[rl] == '/' && canon[rl + 1]) {
			const char *rel = canon + rl + 1;
			bool is_dir = false;
			if (valid_at(dir, r)) {
				int64_t d = dir->offset + r;
				is_dir = (((const uint8_t *)dir->buffers[1])[d >> 3] >> (d & 7)) & 1;
			}
			if (!dl_vacuum_hidden_path(c, rel)) {
				rc = dl_vacuum_push(c, rel, strlen(rel), i64_at(len, r), i64_at(mt, r), is_dir);
				if (rc == 0 && is_dir) c->dirs_present++;
			}
		}
		dl_free(canon);
		DL_TRY(rc);
	}
	return 0;
}

int dl_vacuum_list_inventory(dl_vacuum_ctx *c, struct ArrowArrayStream *inv)
{
	struct ArrowSchema schema;
	memset(&schema, 0, sizeof schema);
	int rc = 0;
	if (inv->get_schema(inv, &schema) != 0) {
		const char *m = inv->get_last_error ? inv->get_last_error(inv) : NULL;
		rc = dl_error_set(DL_EIO, "VACUUM: reading the inventory's schema failed: %s",
		                  m ? m : "(no message)");
	}
	inv_cols k;
	if (rc == 0) rc = find_cols(&k, &schema);
	if (schema.release) schema.release(&schema);
	while (rc == 0) {
		struct ArrowArray b;
		memset(&b, 0, sizeof b);
		if (inv->get_next(inv, &b) != 0) {
			const char *m = inv->get_last_error ? inv->get_last_error(inv) : NULL;
			rc = dl_error_set(DL_EIO, "VACUUM: reading the inventory failed: %s",
			                  m ? m : "(no message)");
			break;
		}
		if (!b.release) break; /* end of stream */
		rc = take_batch(c, &k, &b);
		b.release(&b);
	}
	inv->release(inv);
	return rc;
}
