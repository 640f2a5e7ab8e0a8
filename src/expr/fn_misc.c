/* Conditional functions (coalesce, nvl, if, nvl2, nullif), null tests and
 * hashes: md5/sha1/sha2/crc32 and Spark's hash() (Murmur3, seed 42,
 * chained over the arguments, NULL leaving the seed unchanged). */
#include "expr/fn.h"
#include "expr/hash.h"
#include "util/error.h"
#include "util/mem.h"
#include <math.h>
#include <string.h>

int ex_eval_lazy(ex_vec *out, const ex_node *n, ex_run *r, const uint8_t *mask); /* eval.c */

static int hex_out(ex_row *r, ex_val *out, const uint8_t *d, int n)
{
	static const char hx[] = "0123456789abcdef";
	DL_TRY(dl_buf_reserve(r->buf, (size_t)n * 2));
	for (int i = 0; i < n; i++) {
		r->buf->data[2 * i] = hx[d[i] >> 4];
		r->buf->data[2 * i + 1] = hx[d[i] & 15];
	}
	r->buf->len = (size_t)n * 2;
	out->v.s.p = r->buf->data;
	out->v.s.n = n * 2;
	return 0;
}

ROWFN(fn_md5)
{
	uint8_t d[16];
	ex_md5(a[0].v.s.p, (size_t)a[0].v.s.n, d);
	return hex_out(r, out, d, 16);
}

ROWFN(fn_sha1)
{
	uint8_t d[20];
	ex_sha1(a[0].v.s.p, (size_t)a[0].v.s.n, d);
	return hex_out(r, out, d, 20);
}

ROWFN(fn_sha2)
{
	uint8_t d[64];
	switch (a[1].v.i) {
	case 0:
	case 256: ex_sha256(a[0].v.s.p, (size_t)a[0].v.s.n, d, false); return hex_out(r, out, d, 32);
	case 224: ex_sha256(a[0].v.s.p, (size_t)a[0].v.s.n, d, true); return hex_out(r, out, d, 28);
	case 384: ex_sha512(a[0].v.s.p, (size_t)a[0].v.s.n, d, true); return hex_out(r, out, d, 48);
	case 512: ex_sha512(a[0].v.s.p, (size_t)a[0].v.s.n, d, false); return hex_out(r, out, d, 64);
	default: out->null = true; return 0; /* Spark: unsupported bit length gives NULL */
	}
}

ROWFN(fn_crc32)
{
	(void)r;
	out->v.i = ex_crc32(a[0].v.s.p, (size_t)a[0].v.s.n);
	return 0;
}

static int32_t hash_val(const ex_val *v, const dl_type *t, int32_t seed);

static int32_t hash_decimal(dl_i128 v, int precision, int32_t seed)
{
	if (precision <= 18) return ex_murmur3_long((int64_t)v, seed);
	/* BigInteger.toByteArray: minimal big-endian two's complement */
	uint8_t be[16];
	for (int i = 0; i < 16; i++) be[15 - i] = (uint8_t)((ex_u128)v >> (8 * i));
	int start = 0;
	while (start < 15 && ((be[start] == 0x00 && !(be[start + 1] & 0x80)) || (be[start] == 0xFF && (be[start + 1] & 0x80))))
		start++;
	return ex_murmur3_bytes(be + start, (size_t)(16 - start), seed);
}

static int32_t hash_nested(const ex_val *v, const dl_type *t, int32_t seed)
{
	const dl_array *a = v->v.ref.a;
	int64_t row = v->v.ref.row;
	int32_t h = seed;
	if (t->id == DL_TYPE_STRUCT) {
		for (int i = 0; i < t->nchildren; i++) {
			ex_val c;
			ex_val_load(&c, a->children[i], row);
			h = hash_val(&c, t->children[i].type, h);
		}
		return h;
	}
	for (int32_t k = a->offsets[row]; k < a->offsets[row + 1]; k++) {
		ex_val c;
		if (t->id == DL_TYPE_MAP) {
			ex_val_load(&c, a->children[0]->children[0], k);
			h = hash_val(&c, t->children[0].type, h);
			ex_val_load(&c, a->children[0]->children[1], k);
			h = hash_val(&c, t->children[1].type, h);
		} else {
			ex_val_load(&c, a->children[0], k);
			h = hash_val(&c, t->children[0].type, h);
		}
	}
	return h;
}

static int32_t hash_val(const ex_val *v, const dl_type *t, int32_t seed)
{
	if (v->null) return seed;
	switch (t->id) {
	case DL_TYPE_BOOLEAN: return ex_murmur3_int(v->v.b ? 1 : 0, seed);
	case DL_TYPE_BYTE:
	case DL_TYPE_SHORT:
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: return ex_murmur3_int((int32_t)v->v.i, seed);
	case DL_TYPE_LONG:
	case DL_TYPE_TIMESTAMP:
	case DL_TYPE_TIMESTAMP_NTZ: return ex_murmur3_long(v->v.i, seed);
	case DL_TYPE_FLOAT: {
		float f = (float)v->v.d;
		int32_t bits;
		if (f == 0.0f) f = 0.0f; /* -0.0 hashes as 0.0 */
		if (isnan(f)) bits = 0x7fc00000;
		else memcpy(&bits, &f, 4);
		return ex_murmur3_int(bits, seed);
	}
	case DL_TYPE_DOUBLE: {
		double d = v->v.d;
		int64_t bits;
		if (d == 0.0) d = 0.0;
		if (isnan(d)) bits = 0x7ff8000000000000LL;
		else memcpy(&bits, &d, 8);
		return ex_murmur3_long(bits, seed);
	}
	case DL_TYPE_DECIMAL: return hash_decimal(v->v.dec, t->precision, seed);
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return ex_murmur3_bytes(v->v.s.p, (size_t)v->v.s.n, seed);
	case DL_TYPE_STRUCT:
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP: return hash_nested(v, t, seed);
	default: return seed;
	}
}

ROWFN(fn_hash)
{
	int32_t h = 42;
	for (int i = 0; i < r->nargs; i++) h = hash_val(&a[i], r->argt[i], h);
	out->null = false;
	out->v.i = h;
	return 0;
}

ROWFN(fn_isnull)
{
	(void)r;
	out->null = false;
	out->v.b = a[0].null;
	return 0;
}

ROWFN(fn_isnotnull)
{
	(void)r;
	out->null = false;
	out->v.b = !a[0].null;
	return 0;
}

BINDFN(bind_nullif)
{
	const dl_type *c = ex_common_type(b, n->args[0]->type, n->args[1]->type, "nullif", n->pos);
	if (!c) return DL_EINVALID;
	DL_TRY(ex_coerce(b, &n->args[0], c));
	DL_TRY(ex_coerce(b, &n->args[1], c));
	n->type = (dl_type *)c;
	return 0;
}

ROWFN(fn_nullif)
{
	if (!a[0].null && !a[1].null && ex_val_eq(&a[0], &a[1], r->node->type)) out->null = true;
	else *out = a[0];
	return 0;
}

BINDFN(bind_if)
{
	ex_node **c = &n->args[0];
	if ((*c)->type->id != DL_TYPE_BOOLEAN) DL_TRY(ex_coerce(b, c, ex_type(b, DL_TYPE_BOOLEAN)));
	const dl_type *t = ex_common_type(b, n->args[1]->type, n->args[2]->type, "if", n->pos);
	if (!t) return DL_EINVALID;
	DL_TRY(ex_coerce(b, &n->args[1], t));
	DL_TRY(ex_coerce(b, &n->args[2], t));
	n->type = (dl_type *)t;
	return 0;
}

BINDFN(bind_nvl2)
{
	const dl_type *t = ex_common_type(b, n->args[1]->type, n->args[2]->type, "nvl2", n->pos);
	if (!t) return DL_EINVALID;
	DL_TRY(ex_coerce(b, &n->args[1], t));
	DL_TRY(ex_coerce(b, &n->args[2], t));
	n->type = (dl_type *)t;
	return 0;
}

/* Picks, per row, a value from one of several vecs. */
static int gather(ex_vec *out, const dl_type *t, ex_vec *v, const int16_t *pick, int64_t n)
{
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, (dl_type *)t));
	int rc = dl_builder_reserve(b, n, 0);
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		if (pick[i] < 0) rc = dl_builder_append_null(b);
		else rc = dl_builder_append_range(b, v[pick[i]].a, ex_row_of(&v[pick[i]], i), 1);
	}
	dl_array *a = NULL;
	if (rc == 0) rc = dl_builder_finish(&a, b);
	dl_builder_free(b);
	if (rc < 0) return rc;
	out->a = out->owned = a;
	out->is_const = false;
	return 0;
}

/* coalesce / nvl / ifnull / if / iff / nvl2: arguments are evaluated only
 * for rows that need them (after a fast whole-batch attempt). */
int ex_eval_lazy_call(ex_vec *out, const ex_node *n, ex_run *r)
{
	const char *name = n->fn->name;
	int na = n->nargs;
	int64_t rows = r->n, nb = (rows + 7) / 8;
	ex_vec *v = dl_calloc((size_t)na, sizeof *v);
	int16_t *pick = dl_malloc((size_t)(rows ? rows : 1) * sizeof *pick);
	uint8_t *mask = dl_malloc((size_t)(nb ? nb : 1)), *mask2 = dl_malloc((size_t)(nb ? nb : 1));
	int rc = (!v || !pick || !mask || !mask2) ? DL_ENOMEM : 0;
	for (int64_t i = 0; rc == 0 && i < rows; i++) pick[i] = -1;
	if (rc == 0 && (strcmp(name, "if") == 0 || strcmp(name, "iff") == 0 || strcmp(name, "nvl2") == 0)) {
		bool is_if = name[0] == 'i';
		rc = ex_eval_node(&v[0], n->args[0], r);
		memset(mask, 0, (size_t)nb);
		memset(mask2, 0, (size_t)nb);
		for (int64_t i = 0; rc == 0 && i < rows; i++) {
			int64_t j = ex_row_of(&v[0], i);
			bool valid = dl_array_is_valid(v[0].a, j);
			bool t = is_if ? valid && dl_bit_get(v[0].a->values, j) : valid;
			dl_bit_set(t ? mask : mask2, i);
			pick[i] = t ? 1 : 2;
		}
		if (rc == 0) rc = ex_eval_lazy(&v[1], n->args[1], r, mask);
		if (rc == 0) rc = ex_eval_lazy(&v[2], n->args[2], r, mask2);
	} else if (rc == 0) {
		memset(mask, 0xFF, (size_t)nb);
		for (int k = 0; rc == 0 && k < na; k++) {
			rc = ex_eval_lazy(&v[k], n->args[k], r, mask);
			for (int64_t i = 0; rc == 0 && i < rows; i++) {
				if (pick[i] >= 0) continue;
				if (dl_array_is_valid(v[k].a, ex_row_of(&v[k], i))) {
					pick[i] = (int16_t)k;
					dl_bit_clear(mask, i);
				}
			}
		}
	}
	if (rc == 0) rc = gather(out, n->type, v, pick, rows);
	for (int k = 0; v && k < na; k++) ex_vec_release(&v[k]);
	dl_free(v);
	dl_free(pick);
	dl_free(mask);
	dl_free(mask2);
	return rc;
}
