/* Shredded variant reassembly (see variant_shred.h), following
 * "Reconstructing a Shredded Variant" of VariantShredding.md: at every
 * level a non-null typed_value wins (an object also takes the fields of a
 * non-null value, which must then be an object with none of the shredded
 * names), a value alone is copied, and neither means "missing": an object
 * field is then left out, anywhere else it is the variant null. */
#include "parquet/variant_shred.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/builder.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/uuid.h"

/* ---- plan ---- */

static int field_index(const dl_type *t, const char *name)
{
	for (int i = 0; i < t->nchildren; i++)
		if (!strcmp(t->children[i].name, name)) return i;
	return -1;
}

static int bad_shape(const char *what, const char *column, const char *path, const char *why)
{
	return dl_error_set(DL_ECORRUPT, "%s: variant column '%s': %s%s%s", what, column, path ? path : "",
	                    path ? ": " : "", why);
}

static int check_typed(const pq_out *t, const char *what, const char *column, int depth);

/* A {value, typed_value} group: an object field or an array element. */
static int check_group(const pq_out *g, const char *what, const char *column, int depth)
{
	if (g->kind != PQ_OUT_STRUCT) return bad_shape(what, column, NULL, "a shredded field or element is not a group");
	int vi = field_index(g->type, "value"), ti = field_index(g->type, "typed_value");
	if (g->nchildren != (vi >= 0) + (ti >= 0) || g->nchildren == 0)
		return bad_shape(what, column, NULL, "a shredded field or element group must hold only value and typed_value");
	if (vi >= 0 && (g->children[vi].kind != PQ_OUT_LEAF || g->children[vi].type->id != DL_TYPE_BINARY))
		return bad_shape(what, column, NULL, "a shredded value is not binary");
	return ti >= 0 ? check_typed(&g->children[ti], what, column, depth + 1) : 0;
}

static int check_typed(const pq_out *t, const char *what, const char *column, int depth)
{
	if (depth > PQ_MAX_SCHEMA_DEPTH) return bad_shape(what, column, NULL, "nested too deeply");
	switch (t->kind) {
	case PQ_OUT_LEAF:
		switch (t->type->id) {
		case DL_TYPE_BOOLEAN: case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER:
		case DL_TYPE_LONG: case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE: case DL_TYPE_DECIMAL:
		case DL_TYPE_DATE: case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ:
		case DL_TYPE_STRING: case DL_TYPE_BINARY:
			return 0;
		default: {
			char s[64];
			dl_type_sql(t->type, s, sizeof s);
			return dl_error_set(DL_ECORRUPT, "%s: variant column '%s': typed_value of type %s is not a shredded variant type",
			                    what, column, s);
		}
		}
	case PQ_OUT_LIST:
		return check_group(&t->children[0], what, column, depth);
	case PQ_OUT_STRUCT:
		for (int i = 0; i < t->nchildren; i++) DL_TRY(check_group(&t->children[i], what, column, depth));
		return 0;
	default:
		return bad_shape(what, column, NULL, "typed_value is neither a primitive, a LIST nor a group of fields");
	}
}

int pq_variant_plan(pq_out *out, const pq_out *file, const dl_type *req, const char *what,
                    const char *column, bool *handled)
{
	*handled = false;
	const dl_type *ft = file->type;
	int ti = field_index(ft, "typed_value");
	if (ti < 0) return 0;
	int mi = field_index(ft, "metadata"), vi = field_index(ft, "value");
	if (mi < 0 || file->children[mi].kind != PQ_OUT_LEAF || file->children[mi].type->id != DL_TYPE_BINARY)
		return bad_shape(what, column, NULL, "a shredded variant group has no binary metadata field");
	if (vi >= 0 && (file->children[vi].kind != PQ_OUT_LEAF || file->children[vi].type->id != DL_TYPE_BINARY))
		return bad_shape(what, column, NULL, "the value field is not binary");
	if (ft->nchildren != 2 + (vi >= 0))
		return bad_shape(what, column, NULL, "a shredded variant group holds fields other than metadata, value and typed_value");
	DL_TRY(check_typed(&file->children[ti], what, column, 0));
	*handled = true;
	*out = *file;
	out->kind = PQ_OUT_VARIANT;
	out->type = dl_type_ref((dl_type *)req);
	out->nchildren = 0;
	out->children = dl_calloc(3, sizeof *out->children);
	if (!out->children) return DL_ENOMEM;
	int rc = 0;
	if (vi >= 0) {
		rc = pq_plan_copy(&out->children[0], &file->children[vi]);
	} else {
		/* no value column: every row's value is in typed_value (or missing) */
		pq_out *v = &out->children[0];
		v->kind = PQ_OUT_ABSENT;
		v->leaf = -1;
		v->nullable = true;
		v->type = dl_type_new(DL_TYPE_BINARY);
		if (!v->type) rc = DL_ENOMEM;
	}
	out->nchildren = 1;
	if (rc == 0) rc = pq_plan_copy(&out->children[1], &file->children[mi]);
	if (rc == 0) out->nchildren = 2;
	if (rc == 0) rc = pq_plan_copy(&out->children[2], &file->children[ti]);
	if (rc == 0) out->nchildren = 3;
	return rc;
}

void pq_variant_typed_leaves(const pq_out *p, bool *raw, bool under)
{
	if (p->kind == PQ_OUT_ABSENT) return;
	if (under && p->kind == PQ_OUT_LEAF && p->leaf >= 0) raw[p->leaf] = true;
	for (int i = 0; i < p->nchildren; i++)
		pq_variant_typed_leaves(&p->children[i], raw, under || (p->kind == PQ_OUT_VARIANT && i == 2));
}

/* ---- variant bytes ---- */

typedef struct vmeta {
	const uint8_t *offsets, *bytes;
	uint64_t dict_size, bytes_len;
	int offset_size;
	bool sorted;
} vmeta;

/* One shredded part: an array (NULL when the file has no such field) and
 * its plan. */
typedef struct part {
	const dl_array *a;
	const pq_out *p;
} part;

/* Dictionary ids of shredded field names, keyed by the (stable) name
 * pointer of the plan's type, valid while rows repeat the same metadata
 * bytes (writers usually give every row the same dictionary). */
#define ID_CACHE 64

typedef struct idslot {
	const char *name;
	uint32_t id;
} idslot;

typedef struct ctx {
	const pq_leaf_reader *readers;
	const char *file, *column;
	int64_t row; /* of the batch, for messages */
	vmeta m;
	const uint8_t *cache_meta; /* the metadata the cache holds ids of */
	size_t cache_meta_len;
	idslot cache[ID_CACHE];
} ctx;

/* An object field gathered for the rebuilt object. */
typedef struct ofield {
	uint32_t id;
	const uint8_t *name;
	size_t name_len;
	size_t at, len; /* in the values buffer */
} ofield;

static uint64_t read_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n; i-- > 0;) v = (v << 8) | p[i];
	return v;
}

static int put_le(dl_buf *b, uint64_t v, int n)
{
	uint8_t t[8];
	for (int i = 0; i < n; i++) t[i] = (uint8_t)(v >> (8 * i));
	return dl_buf_append(b, t, (size_t)n);
}

static int width_of(uint64_t v)
{
	return v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFFFF ? 3 : 4;
}

static const char *leaf_path(const ctx *c, const pq_out *p)
{
	return p && p->leaf >= 0 ? c->readers[p->leaf].leaf->path : c->column;
}

static int bad(const ctx *c, const pq_out *p, const char *why)
{
	return dl_error_set(DL_ECORRUPT, "%s: variant column '%s' (Parquet column '%s', row %lld of the batch): %s", c->file,
	                    c->column, leaf_path(c, p), (long long)c->row, why);
}

static int parse_metadata(ctx *c, const uint8_t *p, size_t n, const pq_out *mp)
{
	vmeta *m = &c->m;
	if (n < 1 || (p[0] & 0x0F) != 1) return bad(c, mp, "metadata is empty or not version 1");
	m->offset_size = ((p[0] >> 6) & 3) + 1;
	m->sorted = (p[0] >> 4) & 1;
	if (n < 1 + (size_t)m->offset_size) return bad(c, mp, "metadata shorter than its header");
	m->dict_size = read_le(p + 1, m->offset_size);
	uint64_t head = 1 + (uint64_t)m->offset_size * (m->dict_size + 2);
	if (m->dict_size > n || head > n) return bad(c, mp, "metadata dictionary past the end");
	m->offsets = p + 1 + m->offset_size;
	m->bytes = p + head;
	m->bytes_len = n - head;
	return 0;
}

static int dict_string(const ctx *c, uint64_t id, const uint8_t **s, size_t *len)
{
	const vmeta *m = &c->m;
	if (id >= m->dict_size) return bad(c, NULL, "field id outside the metadata dictionary");
	uint64_t a = read_le(m->offsets + id * (uint64_t)m->offset_size, m->offset_size);
	uint64_t b = read_le(m->offsets + (id + 1) * (uint64_t)m->offset_size, m->offset_size);
	if (a > b || b > m->bytes_len) return bad(c, NULL, "metadata string out of range");
	*s = m->bytes + a;
	*len = (size_t)(b - a);
	return 0;
}

static int name_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);
	return r ? r : (an > bn) - (an < bn);
}

/* The dictionary id of a shredded field name: "All field names of a
 * Variant, whether shredded or not, must be present in the metadata". */
static int dict_search(const ctx *c, const pq_out *p, const char *name, uint32_t *id);

static int dict_find(ctx *c, const pq_out *p, const char *name, uint32_t *id)
{
	idslot *slot = &c->cache[((uintptr_t)name >> 4) & (ID_CACHE - 1)];
	if (slot->name == name) {
		*id = slot->id;
		return 0;
	}
	DL_TRY(dict_search(c, p, name, id));
	*slot = (idslot){name, *id};
	return 0;
}

static int dict_search(const ctx *c, const pq_out *p, const char *name, uint32_t *id)
{
	size_t n = strlen(name);
	uint64_t lo = 0, hi = c->m.dict_size;
	if (c->m.sorted) {
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			const uint8_t *s;
			size_t sl;
			DL_TRY(dict_string(c, mid, &s, &sl));
			int r = name_cmp(s, sl, (const uint8_t *)name, n);
			if (r == 0) {
				*id = (uint32_t)mid;
				return 0;
			}
			if (r < 0) lo = mid + 1;
			else hi = mid;
		}
	} else {
		for (uint64_t i = 0; i < c->m.dict_size; i++) {
			const uint8_t *s;
			size_t sl;
			DL_TRY(dict_string(c, i, &s, &sl));
			if (sl == n && !memcmp(s, name, n)) {
				*id = (uint32_t)i;
				return 0;
			}
		}
	}
	char why[320];
	snprintf(why, sizeof why, "shredded field '%.200s' is not in the variant metadata", name);
	return bad(c, p, why);
}

/* Bytes taken by the variant value at v[0..n). */
static int value_size(const ctx *c, const pq_out *p, const uint8_t *v, size_t n, size_t *size)
{
	static const int8_t prim[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, -1, -1, 8, 8, 8, 16};
	if (n < 1) return bad(c, p, "empty variant value");
	int basic = v[0] & 3, hdr = v[0] >> 2;
	uint64_t s;
	if (basic == 0) {
		if (hdr >= (int)sizeof prim) return bad(c, p, "unknown variant primitive type");
		if (prim[hdr] >= 0) s = 1 + (uint64_t)prim[hdr];
		else s = n < 5 ? UINT64_MAX : 5 + read_le(v + 1, 4);
	} else if (basic == 1) {
		s = 1 + (uint64_t)hdr;
	} else {
		bool object = basic == 2;
		int large = object ? (hdr >> 4) & 1 : (hdr >> 2) & 1;
		int id_size = object ? ((hdr >> 2) & 3) + 1 : 0, off_size = (hdr & 3) + 1;
		uint64_t cs = large ? 4 : 1;
		if (n < 1 + cs) return bad(c, p, "variant container header truncated");
		uint64_t count = read_le(v + 1, (int)cs);
		uint64_t offs = 1 + cs + count * (uint64_t)id_size, vals = offs + (count + 1) * (uint64_t)off_size;
		if (count > n || vals > n) return bad(c, p, "variant container offsets past the end");
		s = vals + read_le(v + offs + count * (uint64_t)off_size, off_size);
	}
	if (s > n) return bad(c, p, "variant value longer than its bytes");
	*size = (size_t)s;
	return 0;
}

static int put_primitive_header(dl_buf *b, int type)
{
	return dl_buf_putc(b, (char)(type << 2));
}

static int put_len_bytes(dl_buf *b, int type, const uint8_t *p, size_t n)
{
	DL_TRY(put_primitive_header(b, type));
	DL_TRY(put_le(b, n, 4));
	return dl_buf_append(b, p, n);
}

/* typed_value row i of a primitive leaf, in the variant type the Parquet
 * type maps to (VariantShredding.md "Shredded Value Types"). */
static int primitive(ctx *c, dl_buf *out, const dl_array *a, const pq_out *p, int64_t i)
{
	const pq_schema_element *el = c->readers[p->leaf].leaf->el;
	const dl_type *t = a->type;
	switch (t->id) {
	case DL_TYPE_BOOLEAN: return put_primitive_header(out, dl_bit_get(a->values, i) ? 1 : 2);
	case DL_TYPE_BYTE:
		DL_TRY(put_primitive_header(out, 3));
		return put_le(out, (uint8_t)((const int8_t *)a->values)[i], 1);
	case DL_TYPE_SHORT:
		DL_TRY(put_primitive_header(out, 4));
		return put_le(out, (uint16_t)((const int16_t *)a->values)[i], 2);
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE:
		if (el->logical.kind == PQ_LT_TIME) return bad(c, p, "TIME typed_value must be TIME(false, MICROS) in INT64");
		DL_TRY(put_primitive_header(out, t->id == DL_TYPE_DATE ? 11 : 5));
		return put_le(out, (uint32_t)((const int32_t *)a->values)[i], 4);
	case DL_TYPE_LONG:
		if (el->logical.kind == PQ_LT_TIME) {
			if (el->logical.unit != PQ_UNIT_MICROS || el->logical.is_adjusted_to_utc)
				return bad(c, p, "TIME typed_value must be TIME(false, MICROS)");
			DL_TRY(put_primitive_header(out, 17));
		} else {
			DL_TRY(put_primitive_header(out, 6));
		}
		return put_le(out, (uint64_t)((const int64_t *)a->values)[i], 8);
	case DL_TYPE_FLOAT:
		DL_TRY(put_primitive_header(out, 14));
		return dl_buf_append(out, (const float *)a->values + i, 4);
	case DL_TYPE_DOUBLE:
		DL_TRY(put_primitive_header(out, 7));
		return dl_buf_append(out, (const double *)a->values + i, 8);
	case DL_TYPE_DECIMAL: {
		/* decimal4/8/16 as the precision's Parquet physical type
		 * (INT32, INT64, binary) */
		int w = t->precision <= 9 ? 4 : t->precision <= 18 ? 8 : 16;
		DL_TRY(put_primitive_header(out, w == 4 ? 8 : w == 8 ? 9 : 10));
		DL_TRY(dl_buf_putc(out, (char)t->scale));
		return dl_buf_append(out, (const uint8_t *)a->values + 16 * i, (size_t)w); /* little-endian */
	}
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: {
		int64_t v = ((const int64_t *)a->values)[i];
		/* TIMESTAMP(NANOS) leaves of typed_value are read in nanoseconds
		 * (pq_variant_typed_leaves): timestamp_nanos / timestamp_ntz_nanos */
		bool nanos = el->logical.kind == PQ_LT_TIMESTAMP && el->logical.unit == PQ_UNIT_NANOS;
		bool utc = t->id == DL_TYPE_TIMESTAMP;
		DL_TRY(put_primitive_header(out, nanos ? (utc ? 18 : 19) : (utc ? 12 : 13)));
		return put_le(out, (uint64_t)v, 8);
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: {
		const uint8_t *s = a->data + a->offsets[i];
		size_t n = (size_t)(a->offsets[i + 1] - a->offsets[i]);
		if (t->id == DL_TYPE_STRING && el->logical.kind == PQ_LT_UUID) {
			uint8_t u[16];
			if (dl_uuid_parse(u, (const char *)s, n) < 0) return bad(c, p, "malformed UUID");
			DL_TRY(put_primitive_header(out, 20));
			return dl_buf_append(out, u, 16);
		}
		if (t->id == DL_TYPE_BINARY) return put_len_bytes(out, 15, s, n);
		if (n < 64) { /* the short string form, as Spark's builder writes */
			DL_TRY(dl_buf_putc(out, (char)(n << 2 | 1)));
			return dl_buf_append(out, s, n);
		}
		return put_len_bytes(out, 16, s, n);
	}
	default: return bad(c, p, "typed_value is not a shredded variant type");
	}
}

static int rebuild(ctx *c, dl_buf *out, part value, part typed, int64_t i, bool *missing, int depth);

/* The value and typed_value parts of a {value, typed_value} group. */
static void group_parts(const dl_array *g, const pq_out *gp, part *value, part *typed)
{
	*value = (part){NULL, NULL};
	*typed = (part){NULL, NULL};
	for (int k = 0; k < g->nchildren; k++) {
		const char *name = g->type->children[k].name;
		part pt = {g->children[k], &gp->children[k]};
		if (!strcmp(name, "value")) *value = pt;
		else if (!strcmp(name, "typed_value")) *typed = pt;
	}
}

static void store_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes an array or object: header, [ids], offsets and the values of
 * `vals` in the order of `f` (arrays: f[k].id unused), with one reserve:
 * containers are built for every row. */
static int put_container(dl_buf *out, bool object, const ofield *f, size_t n, const dl_buf *vals)
{
	uint64_t total = 0, max_id = 0;
	for (size_t k = 0; k < n; k++) {
		total += f[k].len;
		if (f[k].id > max_id) max_id = f[k].id;
	}
	if (total > UINT32_MAX || n > UINT32_MAX) return dl_error_set(DL_EUNSUPPORTED, "variant value larger than 4 GiB");
	int large = n > 0xFF, off_size = width_of(total), id_size = object ? width_of(max_id) : 0;
	int hdr = object ? (large << 4) | ((id_size - 1) << 2) | (off_size - 1) : (large << 2) | (off_size - 1);
	int cs = large ? 4 : 1;
	size_t head = 1 + (size_t)cs + n * (size_t)id_size + (n + 1) * (size_t)off_size;
	DL_TRY(dl_buf_reserve(out, head + (size_t)total));
	uint8_t *p = (uint8_t *)out->data + out->len;
	*p++ = (uint8_t)(hdr << 2 | (object ? 2 : 3));
	store_le(p, n, cs);
	p += cs;
	for (size_t k = 0; k < n && object; k++, p += id_size) store_le(p, f[k].id, id_size);
	uint64_t at = 0;
	for (size_t k = 0; k < n; k++, p += off_size) {
		store_le(p, at, off_size);
		at += f[k].len;
	}
	store_le(p, at, off_size);
	p += off_size;
	for (size_t k = 0; k < n; k++) {
		memcpy(p, vals->data + f[k].at, f[k].len);
		p += f[k].len;
	}
	out->len += head + (size_t)total;
	out->data[out->len] = 0;
	return 0;
}

static int field_order(const void *x, const void *y)
{
	const ofield *a = x, *b = y;
	return name_cmp(a->name, a->name_len, b->name, b->name_len);
}

static int grow(ofield **f, size_t *cap, size_t need)
{
	if (need <= *cap) return 0;
	size_t nc = *cap ? *cap * 2 : 8;
	while (nc < need) nc *= 2;
	ofield *nf = dl_reallocarray(*f, nc, sizeof *nf);
	if (!nf) return DL_ENOMEM;
	*f = nf;
	*cap = nc;
	return 0;
}

static int rebuild_array(ctx *c, dl_buf *out, part typed, int64_t i, int depth)
{
	const dl_array *elems = typed.a->children[0];
	const pq_out *ep = &typed.p->children[0];
	part ev, et;
	group_parts(elems, ep, &ev, &et);
	int64_t lo = typed.a->offsets[i], hi = typed.a->offsets[i + 1];
	dl_buf vals = DL_BUF_INIT;
	ofield *f = NULL;
	size_t cap = 0;
	int rc = grow(&f, &cap, (size_t)(hi - lo));
	for (int64_t j = lo; rc == 0 && j < hi; j++) {
		size_t at = vals.len;
		bool missing = false;
		rc = rebuild(c, &vals, ev, et, j, &missing, depth + 1);
		/* "All elements of an array must be present"; a missing one is
		 * read as the variant null, as a missing required value is. */
		if (rc == 0 && missing) rc = dl_buf_putc(&vals, 0);
		if (rc == 0) f[j - lo] = (ofield){0, NULL, 0, at, vals.len - at};
	}
	if (rc == 0) rc = put_container(out, false, f, (size_t)(hi - lo), &vals);
	dl_free(f);
	dl_buf_free(&vals);
	return rc;
}

static int rebuild_object(ctx *c, dl_buf *out, part value, part typed, int64_t i, int depth)
{
	const dl_array *g = typed.a;
	dl_buf vals = DL_BUF_INIT;
	ofield *f = NULL;
	size_t cap = 0, n = 0, nshred;
	int rc = grow(&f, &cap, (size_t)g->nchildren + 1);
	for (int k = 0; rc == 0 && k < g->nchildren; k++) {
		const dl_array *fa = g->children[k];
		const pq_out *fp = &typed.p->children[k];
		if (!dl_array_is_valid(fa, i)) continue; /* a null field group: missing */
		part fv, ft;
		group_parts(fa, fp, &fv, &ft);
		size_t at = vals.len;
		bool missing = false;
		rc = rebuild(c, &vals, fv, ft, i, &missing, depth + 1);
		if (rc < 0 || missing) continue;
		const char *name = g->type->children[k].name;
		uint32_t id = 0;
		rc = dict_find(c, fp, name, &id);
		f[n++] = (ofield){id, (const uint8_t *)name, strlen(name), at, vals.len - at};
	}
	nshred = n;
	if (rc == 0 && value.a && dl_array_is_valid(value.a, i)) {
		/* a partially shredded object: the other fields are in value */
		const uint8_t *v = value.a->data + value.a->offsets[i];
		size_t vn = (size_t)(value.a->offsets[i + 1] - value.a->offsets[i]), size;
		rc = value_size(c, value.p, v, vn, &size);
		if (rc == 0 && (v[0] & 3) != 2) rc = bad(c, value.p, "typed_value is an object but value is not an object");
		int hdr = v[0] >> 2, large = (hdr >> 4) & 1, id_size = ((hdr >> 2) & 3) + 1, off_size = (hdr & 3) + 1;
		uint64_t cs = large ? 4 : 1, count = rc == 0 ? read_le(v + 1, (int)cs) : 0;
		uint64_t offs = 1 + cs + count * (uint64_t)id_size, base = offs + (count + 1) * (uint64_t)off_size;
		if (rc == 0) rc = grow(&f, &cap, n + (size_t)count);
		for (uint64_t k = 0; rc == 0 && k < count; k++) {
			uint64_t id = read_le(v + 1 + cs + k * (uint64_t)id_size, id_size);
			uint64_t fo = read_le(v + offs + k * (uint64_t)off_size, off_size);
			size_t fs = 0;
			const uint8_t *name = NULL;
			size_t nl = 0;
			rc = base + fo >= size ? bad(c, value.p, "object field offset past the value") : 0;
			if (rc == 0) rc = value_size(c, value.p, v + base + fo, size - (size_t)(base + fo), &fs);
			if (rc == 0) rc = dict_string(c, id, &name, &nl);
			for (size_t s = 0; rc == 0 && s < nshred; s++)
				if (!name_cmp(f[s].name, f[s].name_len, name, nl)) {
					char why[320];
					snprintf(why, sizeof why, "field '%.*s' is both shredded and in value", (int)(nl > 200 ? 200 : nl),
					         (const char *)name);
					rc = bad(c, value.p, why);
				}
			if (rc < 0) break;
			size_t at = vals.len;
			rc = dl_buf_append(&vals, v + base + fo, fs);
			f[n++] = (ofield){(uint32_t)id, name, nl, at, fs};
		}
	}
	if (rc == 0) {
		qsort(f, n, sizeof *f, field_order);
		for (size_t k = 1; rc == 0 && k < n; k++)
			if (!name_cmp(f[k - 1].name, f[k - 1].name_len, f[k].name, f[k].name_len))
				rc = bad(c, value.p, "duplicate field name in the variant object");
	}
	if (rc == 0) rc = put_container(out, true, f, n, &vals);
	dl_free(f);
	dl_buf_free(&vals);
	return rc;
}

/* construct_variant of the spec for row i of (value, typed). */
static int rebuild(ctx *c, dl_buf *out, part value, part typed, int64_t i, bool *missing, int depth)
{
	*missing = false;
	if (depth > PQ_MAX_SCHEMA_DEPTH) return bad(c, typed.p, "nested too deeply");
	bool has_value = value.a && dl_array_is_valid(value.a, i);
	if (typed.a && dl_array_is_valid(typed.a, i)) {
		if (typed.p->kind == PQ_OUT_STRUCT) return rebuild_object(c, out, value, typed, i, depth);
		if (has_value) return bad(c, value.p, "both value and typed_value are set for a value that is not an object");
		if (typed.p->kind == PQ_OUT_LIST) return rebuild_array(c, out, typed, i, depth);
		return primitive(c, out, typed.a, typed.p, i);
	}
	if (has_value) {
		const uint8_t *v = value.a->data + value.a->offsets[i];
		size_t n = (size_t)(value.a->offsets[i + 1] - value.a->offsets[i]), size;
		DL_TRY(value_size(c, value.p, v, n, &size));
		return dl_buf_append(out, v, size);
	}
	*missing = true;
	return 0;
}

int pq_variant_unshred(dl_array *a, const pq_out *o, const pq_leaf_reader *readers, const char *file)
{
	if (a->nchildren != 3) return dl_error_set(DL_ERROR, "internal: a shredded variant has %d parts", a->nchildren);
	const dl_array *meta = a->children[1];
	part value = {a->children[0], &o->children[0]}, typed = {a->children[2], &o->children[2]};
	/* The variant's name for messages: its metadata column's path. */
	const char *mpath = readers[o->children[1].leaf].leaf->path;
	size_t ml = strlen(mpath);
	char column[512];
	snprintf(column, sizeof column, "%.*s", (int)(ml > 9 && !strcmp(mpath + ml - 9, ".metadata") ? ml - 9 : ml), mpath);
	ctx c = {readers, file, column, 0, {0}, NULL, 0, {{0}}};
	dl_type *bin = dl_type_new(DL_TYPE_BINARY);
	dl_builder *b = NULL;
	int rc = bin ? dl_builder_new(&b, bin) : DL_ENOMEM;
	dl_buf row = DL_BUF_INIT;
	for (int64_t i = 0; rc == 0 && i < a->length; i++) {
		c.row = i;
		if (!dl_array_is_valid(a, i)) {
			rc = dl_builder_append_null(b);
			continue;
		}
		if (!dl_array_is_valid(meta, i)) {
			rc = bad(&c, &o->children[1], "metadata is null");
			break;
		}
		const uint8_t *mp = meta->data + meta->offsets[i];
		size_t ml = (size_t)(meta->offsets[i + 1] - meta->offsets[i]);
		if (!c.cache_meta || ml != c.cache_meta_len || memcmp(mp, c.cache_meta, ml)) {
			memset(c.cache, 0, sizeof c.cache);
			c.cache_meta = mp;
			c.cache_meta_len = ml;
		}
		rc = parse_metadata(&c, mp, ml, &o->children[1]);
		bool missing = false;
		dl_buf_clear(&row);
		if (rc == 0) rc = rebuild(&c, &row, value, typed, i, &missing, 0);
		/* a missing top-level value is the variant null */
		if (rc == 0 && missing) rc = dl_buf_putc(&row, 0);
		if (rc == 0) rc = dl_builder_append_bytes(b, row.data, row.len);
	}
	dl_array *nv = NULL;
	if (rc == 0) rc = dl_builder_finish(&nv, b);
	if (b) dl_builder_free(b);
	if (bin) dl_type_unref(bin);
	dl_buf_free(&row);
	if (rc < 0) return rc;
	dl_array_free(a->children[0]);
	dl_array_free(a->children[2]);
	a->children[0] = nv;
	a->children[2] = NULL;
	a->nchildren = 2;
	return 0;
}
