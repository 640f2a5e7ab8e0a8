/* Variant functions, as Spark 4 defines them (variantExpressions.scala):
 *   variant_get(v, path[, type]) / try_variant_get: the value at a JSON path
 *     ($, .key, ['key'], ["key"], [index]) cast to `type` (default VARIANT);
 *     a missing path, a non-object / non-array step or a variant null gives
 *     NULL; a value that cannot be cast is INVALID_VARIANT_CAST, or NULL
 *     for try_variant_get; a malformed path is INVALID_VARIANT_GET_PATH.
 *   is_variant_null(v): true exactly for a variant null (false for SQL NULL).
 *   parse_json(s) / try_parse_json(s): JSON text to a variant.
 * Shredded columns arrive here rebuilt (src/parquet/variant_shred.c), so
 * one reader of the binary encoding serves both. A variant result keeps
 * the row's whole metadata (Spark rebuilds a smaller dictionary; the value
 * is the same). */
#include "expr/fn_variant.h"
#include <stdio.h>
#include <string.h>
#include "columnar/variant_access.h"
#include "columnar/variant_json.h"
#include "expr/fn.h"
#include "expr/parse_util.h"
#include "expr/variant_encode.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/uuid.h"

/* ---- paths ------------------------------------------------------------- */

void ex_vpath_free(void *p)
{
	ex_vpath *vp = p;
	if (!vp) return;
	dl_free(vp->seg);
	dl_free(vp);
}

static int bad_path(const char *s, size_t n, const char *fn)
{
	return dl_error_set_class(DL_EINVALID, "INVALID_VARIANT_GET_PATH",
	                          "[INVALID_VARIANT_GET_PATH] The path `%.*s` is not a valid variant extraction path in "
	                          "`%s`. A valid path should start with `$` and is followed by zero or more segments like "
	                          "`[123]`, `.name`, `['name']`, or `[\"name\"]`.",
	                          (int)(n > 200 ? 200 : n), s, fn);
}

/* Spark's VariantPathParser: `$` then `.key` (no `.` or `[` in key),
 * `['key']`, `["key"]` (no quote of its kind inside) or `[digits]` (an int). */
int ex_vpath_parse(ex_vpath **out, const char *s, size_t n, const char *fn)
{
	*out = NULL;
	if (n < 1 || s[0] != '$') return bad_path(s, n, fn);
	ex_vpath *vp = dl_calloc(1, sizeof *vp);
	if (!vp) return DL_ENOMEM;
	vp->text = s;
	size_t cap = 0;
	for (size_t i = 1; i < n;) {
		ex_vseg g = {0};
		if (s[i] == '.') {
			size_t j = i + 1;
			while (j < n && s[j] != '.' && s[j] != '[') j++;
			if (j == i + 1) goto bad;
			g.key = s + i + 1;
			g.klen = j - i - 1;
			i = j;
		} else if (s[i] == '[' && i + 1 < n && (s[i + 1] == '\'' || s[i + 1] == '"')) {
			char q = s[i + 1];
			size_t j = i + 2;
			while (j < n && s[j] != q) j++;
			if (j + 1 >= n || s[j + 1] != ']') goto bad;
			g.key = s + i + 2;
			g.klen = j - i - 2;
			i = j + 2;
		} else if (s[i] == '[') {
			size_t j = i + 1;
			uint64_t v = 0;
			while (j < n && s[j] >= '0' && s[j] <= '9') {
				v = v * 10 + (uint64_t)(s[j] - '0');
				if (v > INT32_MAX) goto bad; /* Scala's toInt overflows */
				j++;
			}
			if (j == i + 1 || j >= n || s[j] != ']') goto bad;
			g.is_index = true;
			g.index = v;
			i = j + 1;
		} else {
			goto bad;
		}
		if (vp->nseg == cap) {
			cap = cap ? cap * 2 : 4;
			ex_vseg *ns = dl_reallocarray(vp->seg, cap, sizeof *ns);
			if (!ns) {
				ex_vpath_free(vp);
				return DL_ENOMEM;
			}
			vp->seg = ns;
		}
		vp->seg[vp->nseg++] = g;
	}
	*out = vp;
	return 0;
bad:
	ex_vpath_free(vp);
	return bad_path(s, n, fn);
}

/* ---- binding ----------------------------------------------------------- */

/* Spark's VariantGet.checkDataType: maps need string keys. */
static bool variant_castable(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_ARRAY: return variant_castable(t->children[0].type);
	case DL_TYPE_MAP:
		return t->children[0].type->id == DL_TYPE_STRING && variant_castable(t->children[1].type);
	case DL_TYPE_STRUCT:
		for (int i = 0; i < t->nchildren; i++)
			if (!variant_castable(t->children[i].type)) return false;
		return true;
	case DL_TYPE_NULL: return false;
	default: return dl_type_is_numeric(t) || t->id == DL_TYPE_BOOLEAN || t->id == DL_TYPE_STRING ||
		            t->id == DL_TYPE_BINARY || t->id == DL_TYPE_DATE || t->id == DL_TYPE_TIMESTAMP ||
		            t->id == DL_TYPE_TIMESTAMP_NTZ || t->id == DL_TYPE_VARIANT;
	}
}

static int need_variant(ex_node *n)
{
	const dl_type *t = n->args[0]->type;
	if (t->id == DL_TYPE_VARIANT || t->id == DL_TYPE_NULL) return 0;
	char tn[128];
	return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH",
	                          "[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] argument 1 of %s() requires the \"VARIANT\" "
	                          "type, got %s",
	                          n->fn->name, ex_tname(t, tn, sizeof tn));
}

BINDFN(bind_variant_get)
{
	DL_TRY(need_variant(n));
	DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_STRING)));
	dl_type *to = NULL;
	if (n->nargs == 3) {
		const ex_node *ta = n->args[2];
		if (ta->kind != EX_LIT || ta->lit.type != DL_TYPE_STRING || ta->lit.is_null)
			return dl_error_set_class(DL_EINVALID, "INVALID_SCHEMA",
			                          "[INVALID_SCHEMA.NON_STRING_LITERAL] The input schema of %s() must be a string "
			                          "literal (position %d)",
			                          n->fn->name, ta->pos);
		char *txt = dl_strndup(ta->lit.v.str.ptr, ta->lit.v.str.len);
		if (!txt) return DL_ENOMEM;
		int rc = ex_parse_type_text(&to, txt);
		dl_free(txt);
		if (rc < 0) {
			char why[256]; /* the message is rewritten in place below */
			snprintf(why, sizeof why, "%s", dl_error_last()->message);
			return dl_error_set_class(DL_EINVALID, "INVALID_SCHEMA",
			                          "[INVALID_SCHEMA.PARSE_ERROR] The input schema '%.*s' of %s() is not a valid type: %s",
			                          (int)ta->lit.v.str.len, ta->lit.v.str.ptr, n->fn->name, why);
		}
		to = ex_keep_type(b->e, to);
		if (!to) return DL_ENOMEM;
		if (!variant_castable(to)) {
			char tn[128];
			return dl_error_set_class(DL_EINVALID, "DATATYPE_MISMATCH",
			                          "[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] cannot cast \"VARIANT\" to %s in %s()",
			                          ex_tname(to, tn, sizeof tn), n->fn->name);
		}
	} else {
		to = ex_type(b, DL_TYPE_VARIANT);
	}
	n->type = to;
	const ex_node *p = n->args[1];
	if (p->kind == EX_LIT && !p->lit.is_null && p->lit.type == DL_TYPE_STRING) {
		ex_vpath *vp;
		DL_TRY(ex_vpath_parse(&vp, p->lit.v.str.ptr, p->lit.v.str.len, n->fn->name));
		DL_TRY(ex_keep_aux(b->e, vp, ex_vpath_free));
		n->aux = vp;
	}
	return 0;
}

BINDFN(bind_is_variant_null)
{
	(void)b;
	return need_variant(n);
}

/* ---- casting a variant value ------------------------------------------- */

typedef struct vctx {
	ex_run *run;
	const dl_vmeta *meta;
	const uint8_t *mraw;
	size_t mlen;
	bool try_mode;
	dl_buf buf;
} vctx;

static int invalid_cast(vctx *c, dl_builder *b, const uint8_t *v, size_t n, const dl_type *to)
{
	if (c->try_mode) return dl_builder_append_null(b);
	dl_buf j = DL_BUF_INIT;
	if (dl_variant_to_json(&j, v, n, c->mraw, c->mlen) < 0) dl_error_clear();
	char tn[128];
	int rc = dl_error_set_class(DL_EINVALID, "INVALID_VARIANT_CAST",
	                            "[INVALID_VARIANT_CAST] The variant value `%.*s` cannot be cast into \"%s\". Please use "
	                            "`try_variant_get` instead.",
	                            (int)(j.len > 200 ? 200 : j.len), j.data ? j.data : "", ex_tname(to, tn, sizeof tn));
	dl_buf_free(&j);
	return rc;
}

static bool is_atomic(const dl_type *t)
{
	return t->id != DL_TYPE_ARRAY && t->id != DL_TYPE_MAP && t->id != DL_TYPE_STRUCT && t->id != DL_TYPE_VARIANT;
}

/* Spark's getDecimal: trailing fraction zeros stripped. */
static void strip_decimal(dl_vprim *p)
{
	while (p->scale > 0 && p->dec % 10 == 0) p->dec /= 10, p->scale--;
}

static int digits_of(dl_i128 v)
{
	ex_u128 u = v < 0 ? -(ex_u128)v : (ex_u128)v;
	int d = 1;
	while (u >= 10) u /= 10, d++;
	return d;
}

static int put_text(dl_builder *b, const char *s, size_t n)
{
	return dl_builder_append_bytes(b, s, n);
}

static int cast_value(vctx *c, dl_builder *b, const uint8_t *v, size_t n, const dl_type *to);

static int cast_primitive(vctx *c, dl_builder *b, const uint8_t *v, size_t n, const dl_vprim *pp, const dl_type *to)
{
	dl_vprim p = *pp;
	ex_val in = {0};
	dl_type_id fid;
	int prec = 0, scale = 0;
	switch (p.kind) {
	case DL_V_BOOLEAN: fid = DL_TYPE_BOOLEAN, in.v.b = p.b; break;
	case DL_V_INT: fid = DL_TYPE_LONG, in.v.i = p.i; break;
	case DL_V_DOUBLE: fid = DL_TYPE_DOUBLE, in.v.d = p.d; break;
	case DL_V_FLOAT: fid = DL_TYPE_FLOAT, in.v.d = p.d; break;
	case DL_V_DECIMAL:
		strip_decimal(&p);
		fid = DL_TYPE_DECIMAL, in.v.dec = p.dec, scale = p.scale;
		prec = digits_of(p.dec);
		if (prec < scale) prec = scale;
		if (prec > 38) return invalid_cast(c, b, v, n, to);
		break;
	case DL_V_DATE: fid = DL_TYPE_DATE, in.v.i = p.i; break;
	case DL_V_TIMESTAMP: fid = DL_TYPE_TIMESTAMP, in.v.i = p.i; break;
	case DL_V_TIMESTAMP_NTZ: fid = DL_TYPE_TIMESTAMP_NTZ, in.v.i = p.i; break;
	case DL_V_BINARY: fid = DL_TYPE_BINARY, in.v.s.p = (const char *)p.s, in.v.s.n = (int64_t)p.slen; break;
	case DL_V_STRING: fid = DL_TYPE_STRING, in.v.s.p = (const char *)p.s, in.v.s.n = (int64_t)p.slen; break;
	case DL_V_UUID:
		if (to->id != DL_TYPE_STRING) return invalid_cast(c, b, v, n, to);
		{
			char u[DL_UUID_TEXT_LEN + 1];
			dl_uuid_format(u, p.s);
			return put_text(b, u, strlen(u));
		}
	default: {
		/* TIME and nanosecond timestamps (no Spark type): only their text */
		if (to->id != DL_TYPE_STRING) return invalid_cast(c, b, v, n, to);
		dl_buf j = DL_BUF_INIT;
		int rc = dl_variant_to_json(&j, v, n, c->mraw, c->mlen);
		if (rc == 0) rc = j.len >= 2 ? put_text(b, j.data + 1, j.len - 2) : put_text(b, j.data, j.len);
		dl_buf_free(&j);
		return rc;
	}
	}
	if (!is_atomic(to)) return invalid_cast(c, b, v, n, to);
	if (to->id == DL_TYPE_TIMESTAMP && (fid == DL_TYPE_LONG || fid == DL_TYPE_DECIMAL)) {
		/* seconds, overflow checked (Spark's castLongToTimestamp /
		 * castDecimalToTimestamp; plain Cast would wrap) */
		if (fid == DL_TYPE_LONG) {
			int64_t us;
			if (__builtin_mul_overflow(in.v.i, (int64_t)1000000, &us)) return invalid_cast(c, b, v, n, to);
			return dl_builder_append_int(b, us);
		}
		dl_i128 pw = ex_pow10(scale), q = in.v.dec / pw, rem = in.v.dec % pw;
		if (q > (dl_i128)(INT64_MAX / 1000000) + 1 || q < (dl_i128)(INT64_MIN / 1000000) - 1)
			return invalid_cast(c, b, v, n, to);
		/* toBigInteger truncates toward zero; q and rem share the sign */
		dl_i128 frac = scale > 6 ? rem / ex_pow10(scale - 6) : rem * ex_pow10(6 - scale);
		dl_i128 us = q * 1000000 + frac;
		if (us > INT64_MAX || us < INT64_MIN) return invalid_cast(c, b, v, n, to);
		return dl_builder_append_int(b, (int64_t)us);
	}
	dl_type *from = fid == DL_TYPE_DECIMAL ? dl_type_decimal(prec, scale) : dl_type_new(fid);
	if (!from) return DL_ENOMEM;
	int rc;
	if (!ex_castable(from, to)) {
		rc = invalid_cast(c, b, v, n, to);
	} else {
		ex_val out;
		dl_buf_clear(&c->buf);
		rc = ex_cast_val(&out, &in, from, to, true, c->run->tz, &c->buf);
		if (rc == DL_ENOMEM) {
			/* keep it */
		} else if (rc < 0 || out.null) {
			if (rc < 0) dl_error_clear();
			rc = invalid_cast(c, b, v, n, to);
		} else {
			rc = ex_builder_put(b, &out);
		}
	}
	dl_type_unref(from);
	return rc;
}

static int cast_value(vctx *c, dl_builder *b, const uint8_t *v, size_t n, const dl_type *to)
{
	if (to->id == DL_TYPE_VARIANT) {
		size_t sz;
		DL_TRY(dl_variant_size(v, n, &sz));
		DL_TRY(dl_builder_begin_struct(b));
		DL_TRY(dl_builder_append_bytes(dl_builder_child(b, 0), v, sz));
		DL_TRY(dl_builder_append_bytes(dl_builder_child(b, 1), c->mraw, c->meta->size));
		return dl_builder_end_struct(b);
	}
	dl_vprim p;
	DL_TRY(dl_variant_decode(&p, v, n));
	if (p.kind == DL_V_NULL) return dl_builder_append_null(b);
	if (p.kind != DL_V_OBJECT && p.kind != DL_V_ARRAY) return cast_primitive(c, b, v, n, &p, to);
	if (to->id == DL_TYPE_STRING) {
		dl_buf j = DL_BUF_INIT;
		int rc = dl_variant_to_json(&j, v, n, c->mraw, c->mlen);
		if (rc == 0) rc = put_text(b, j.data ? j.data : "", j.len);
		dl_buf_free(&j);
		return rc;
	}
	uint64_t cnt;
	if (p.kind == DL_V_ARRAY && to->id == DL_TYPE_ARRAY) {
		DL_TRY(dl_variant_count(v, n, &cnt));
		DL_TRY(dl_builder_begin_list(b));
		for (uint64_t i = 0; i < cnt; i++) {
			const uint8_t *ev;
			size_t en;
			DL_TRY(dl_variant_element(v, n, i, &ev, &en));
			DL_TRY(cast_value(c, dl_builder_child(b, 0), ev, en, to->children[0].type));
		}
		return dl_builder_end_list(b);
	}
	if (p.kind == DL_V_OBJECT && to->id == DL_TYPE_MAP) {
		DL_TRY(dl_variant_count(v, n, &cnt));
		DL_TRY(dl_builder_begin_list(b));
		for (uint64_t i = 0; i < cnt; i++) {
			const char *k;
			size_t kl;
			const uint8_t *fv;
			size_t fn;
			DL_TRY(dl_variant_field_at(c->meta, v, n, i, &k, &kl, &fv, &fn));
			DL_TRY(dl_builder_append_bytes(dl_builder_child(b, 0), k, kl));
			DL_TRY(cast_value(c, dl_builder_child(b, 1), fv, fn, to->children[1].type));
		}
		return dl_builder_end_list(b);
	}
	if (p.kind == DL_V_OBJECT && to->id == DL_TYPE_STRUCT) {
		DL_TRY(dl_builder_begin_struct(b));
		for (int i = 0; i < to->nchildren; i++) {
			const char *name = to->children[i].name;
			const uint8_t *fv;
			size_t fn;
			int hit = dl_variant_field(c->meta, v, n, name, strlen(name), &fv, &fn);
			if (hit < 0) return hit;
			dl_builder *cb = dl_builder_child(b, i);
			DL_TRY(hit ? cast_value(c, cb, fv, fn, to->children[i].type) : dl_builder_append_null(cb));
		}
		return dl_builder_end_struct(b);
	}
	return invalid_cast(c, b, v, n, to);
}

/* The value at path in (v, m): 1 found, 0 missing. */
static int walk(const ex_vpath *vp, const dl_vmeta *m, const uint8_t **v, size_t *n)
{
	for (size_t i = 0; i < vp->nseg; i++) {
		const ex_vseg *g = &vp->seg[i];
		int hit = g->is_index ? dl_variant_element(*v, *n, g->index, v, n)
		                      : dl_variant_field(m, *v, *n, g->key, g->klen, v, n);
		if (hit <= 0) return hit;
	}
	return 1;
}

static void row_bytes(const dl_array *a, int64_t row, const uint8_t **p, size_t *n)
{
	*p = a->data ? (const uint8_t *)a->data + a->offsets[row] : (const uint8_t *)"";
	*n = (size_t)(a->offsets[row + 1] - a->offsets[row]);
}

static int finish(ex_vec *out, dl_builder *b, bool cst)
{
	dl_array *a;
	DL_TRY(dl_builder_finish(&a, b));
	return ex_vec_set(out, a, cst);
}

VECFN(vec_variant_get)
{
	bool cst = args[0].is_const && args[1].is_const;
	int64_t len = cst ? 1 : r->n;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	vctx c = {.run = r, .try_mode = strcmp(n->fn->name, "try_variant_get") == 0};
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val x, pv;
		ex_val_load(&x, args[0].a, ex_row_of(&args[0], i));
		ex_val_load(&pv, args[1].a, ex_row_of(&args[1], i));
		if (x.null || pv.null) {
			rc = dl_builder_append_null(b);
			continue;
		}
		const ex_vpath *vp = n->aux;
		ex_vpath *own = NULL;
		if (!vp) {
			rc = ex_vpath_parse(&own, pv.v.s.p, (size_t)pv.v.s.n, n->fn->name);
			if (rc < 0) break;
			vp = own;
		}
		const dl_array *va = x.v.ref.a;
		const uint8_t *v, *m;
		size_t vn, mn;
		row_bytes(va->children[0], x.v.ref.row, &v, &vn);
		row_bytes(va->children[1], x.v.ref.row, &m, &mn);
		dl_vmeta meta;
		rc = dl_vmeta_parse(&meta, m, mn);
		if (rc == 0) rc = walk(vp, &meta, &v, &vn);
		if (rc == 0) {
			rc = dl_builder_append_null(b);
		} else if (rc == 1) {
			c.meta = &meta;
			c.mraw = m;
			c.mlen = mn;
			rc = cast_value(&c, b, v, vn, n->type);
		}
		ex_vpath_free(own);
	}
	if (rc == 0) rc = finish(out, b, cst);
	dl_builder_free(b);
	dl_buf_free(&c.buf);
	return rc;
}

ROWFN(fn_is_variant_null)
{
	(void)r;
	out->null = false;
	out->v.b = false;
	if (a[0].null) return 0;
	const dl_array *va = a[0].v.ref.a;
	const uint8_t *v;
	size_t n;
	row_bytes(va->children[0], a[0].v.ref.row, &v, &n);
	out->v.b = n >= 1 && v[0] == 0;
	return 0;
}

VECFN(vec_parse_json)
{
	bool cst = args[0].is_const, try_mode = strcmp(n->fn->name, "try_parse_json") == 0;
	int64_t len = cst ? 1 : r->n;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	dl_buf val = DL_BUF_INIT, meta = DL_BUF_INIT;
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val s;
		ex_val_load(&s, args[0].a, ex_row_of(&args[0], i));
		if (s.null) {
			rc = dl_builder_append_null(b);
			continue;
		}
		dl_buf_clear(&val);
		dl_buf_clear(&meta);
		rc = ex_variant_from_json(&val, &meta, s.v.s.p, (size_t)s.v.s.n);
		if (rc < 0 && try_mode && rc != DL_ENOMEM) {
			dl_error_clear();
			rc = dl_builder_append_null(b);
			continue;
		}
		if (rc < 0) break;
		rc = dl_builder_begin_struct(b);
		if (rc == 0) rc = dl_builder_append_bytes(dl_builder_child(b, 0), val.data, val.len);
		if (rc == 0) rc = dl_builder_append_bytes(dl_builder_child(b, 1), meta.data, meta.len);
		if (rc == 0) rc = dl_builder_end_struct(b);
	}
	if (rc == 0) rc = finish(out, b, cst);
	dl_builder_free(b);
	dl_buf_free(&val);
	dl_buf_free(&meta);
	return rc;
}

BINDFN(bind_parse_json)
{
	DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_STRING)));
	n->type = ex_type(b, DL_TYPE_VARIANT);
	return 0;
}
