/* More Spark functions: hex/unhex, base64/unbase64, octet_length,
 * bit_length, translate, btrim, timestamp_seconds/millis/micros,
 * unix_seconds/millis/micros/date, date_from_unix_date, make_date,
 * months_between, next_day, equal_null, typeof, array_size, map_keys,
 * map_values, uuid (non-deterministic). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <math.h>
#include "expr/datetime.h"
#include "expr/fn.h"
#include "util/base64.h"
#include "util/error.h"
#include "util/random.h"

static void set_buf(ex_row *r, ex_val *out)
{
	out->v.s.p = r->buf->data ? r->buf->data : "";
	out->v.s.n = (int64_t)r->buf->len;
}

/* hex(string|binary) -> upper-case hex of the bytes; hex(bigint) -> hex of
 * the two's complement value without leading zeros, as Spark. */
ROWFN(fn_hex)
{
	static const char hx[] = "0123456789ABCDEF";
	if (r->argt[0]->id == DL_TYPE_LONG) {
		DL_TRY(dl_buf_printf(r->buf, "%llX", (unsigned long long)a[0].v.i));
	} else {
		for (int64_t i = 0; i < a[0].v.s.n; i++) {
			unsigned char c = (unsigned char)a[0].v.s.p[i];
			DL_TRY(dl_buf_putc(r->buf, hx[c >> 4]));
			DL_TRY(dl_buf_putc(r->buf, hx[c & 15]));
		}
	}
	set_buf(r, out);
	return 0;
}

BINDFN(bind_hex)
{
	const dl_type *t = n->args[0]->type;
	if (dl_type_is_integral(t)) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_LONG)));
	else if (t->id != DL_TYPE_BINARY) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_STRING)));
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* unhex: an odd length gets a leading 0; invalid digits give NULL. */
ROWFN(fn_unhex)
{
	const char *s = a[0].v.s.p;
	int64_t n = a[0].v.s.n, i = 0;
	if (n % 2) {
		int v = hexval(s[0]);
		if (v < 0) return out->null = true, 0;
		DL_TRY(dl_buf_putc(r->buf, (char)v));
		i = 1;
	}
	for (; i + 1 < n + 1 && i < n; i += 2) {
		int hi = hexval(s[i]), lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0) return out->null = true, 0;
		DL_TRY(dl_buf_putc(r->buf, (char)(hi << 4 | lo)));
	}
	set_buf(r, out);
	return 0;
}

ROWFN(fn_base64)
{
	DL_TRY(dl_base64_encode(r->buf, a[0].v.s.p, (size_t)a[0].v.s.n));
	set_buf(r, out);
	return 0;
}

ROWFN(fn_unbase64)
{
	if (dl_base64_decode(r->buf, a[0].v.s.p, (size_t)a[0].v.s.n) < 0) {
		dl_error_clear();
		return dl_error_set(DL_EINVALID, "[CONVERSION_INVALID_INPUT] unbase64: '%.*s' is not valid base64; use try_to_binary",
		                    (int)(a[0].v.s.n > 60 ? 60 : a[0].v.s.n), a[0].v.s.p);
	}
	set_buf(r, out);
	return 0;
}

ROWFN(fn_octet_length) { (void)r; out->v.i = a[0].v.s.n; return 0; }
ROWFN(fn_bit_length) { (void)r; out->v.i = a[0].v.s.n * 8; return 0; }

static int u8len(unsigned char c)
{
	return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* translate(s, from, to): each character of `from` becomes the character
 * at the same position of `to`, or is removed when `to` is shorter. */
ROWFN(fn_translate)
{
	const char *s = a[0].v.s.p, *f = a[1].v.s.p, *t = a[2].v.s.p;
	int64_t n = a[0].v.s.n, fn = a[1].v.s.n, tn = a[2].v.s.n;
	for (int64_t i = 0; i < n;) {
		int l = u8len((unsigned char)s[i]);
		if (l > n - i) l = (int)(n - i);
		int64_t idx = -1, k = 0, pos = 0;
		while (k < fn) {
			int fl = u8len((unsigned char)f[k]);
			if (fl == l && k + fl <= fn && memcmp(f + k, s + i, (size_t)l) == 0) {
				idx = pos;
				break;
			}
			k += fl;
			pos++;
		}
		if (idx < 0) {
			DL_TRY(dl_buf_append(r->buf, s + i, (size_t)l));
		} else {
			int64_t q = 0, tp = 0;
			while (q < tn && tp < idx) {
				q += u8len((unsigned char)t[q]);
				tp++;
			}
			if (q < tn) DL_TRY(dl_buf_append(r->buf, t + q, (size_t)u8len((unsigned char)t[q])));
		}
		i += l;
	}
	set_buf(r, out);
	return 0;
}

static int ts_from(ex_val *out, int64_t v, int64_t mult)
{
	if (__builtin_mul_overflow(v, mult, &out->v.i)) return ex_err_overflow("long", "try_cast");
	return 0;
}

ROWFN(fn_timestamp_seconds)
{
	if (r->argt[0]->id == DL_TYPE_DOUBLE) {
		double d = a[0].v.d * 1e6;
		if (!isfinite(d) || fabs(d) > 9.2e18) return ex_err_overflow("double", "try_cast");
		out->v.i = (int64_t)d;
		return 0;
	}
	return ts_from(out, a[0].v.i, 1000000);
}
ROWFN(fn_timestamp_millis) { (void)r; return ts_from(out, a[0].v.i, 1000); }
ROWFN(fn_timestamp_micros) { (void)r; out->v.i = a[0].v.i; return 0; }

BINDFN(bind_timestamp_seconds)
{
	const dl_type *t = n->args[0]->type;
	bool frac = t->id == DL_TYPE_DOUBLE || t->id == DL_TYPE_FLOAT || t->id == DL_TYPE_DECIMAL;
	return ex_coerce(b, &n->args[0], ex_type(b, frac ? DL_TYPE_DOUBLE : DL_TYPE_LONG));
}

ROWFN(fn_unix_seconds) { (void)r; out->v.i = dl_floor_div(a[0].v.i, 1000000); return 0; }
ROWFN(fn_unix_millis) { (void)r; out->v.i = dl_floor_div(a[0].v.i, 1000); return 0; }
ROWFN(fn_unix_micros) { (void)r; out->v.i = a[0].v.i; return 0; }
ROWFN(fn_unix_date) { (void)r; out->v.i = a[0].v.i; return 0; }
ROWFN(fn_date_from_unix_date) { (void)r; out->v.i = a[0].v.i; return 0; }

ROWFN(fn_make_date)
{
	(void)r;
	int64_t y = a[0].v.i, m = a[1].v.i, d = a[2].v.i;
	if (m < 1 || m > 12 || d < 1 || y < -290000 || y > 290000 || d > dl_days_in_month(y, (int)m))
		return dl_error_set_class(DL_EINVALID, "DATETIME_FIELD_OUT_OF_BOUNDS",
		                          "[DATETIME_FIELD_OUT_OF_BOUNDS] make_date(%lld, %lld, %lld) is not a valid date",
		                          (long long)y, (long long)m, (long long)d);
	out->v.i = dl_days_from_civil(y, (int)m, (int)d);
	return 0;
}

/* months_between(t1, t2[, roundOff]): whole months when both are the same
 * day of month or both month ends, otherwise months + days/31 (with the
 * time of day), rounded to 8 digits unless roundOff is false. */
ROWFN(fn_months_between)
{
	int64_t l1 = ex_ts_to_local(a[0].v.i, r->run->tz), l2 = ex_ts_to_local(a[1].v.i, r->run->tz);
	int64_t d1, t1, d2, t2, y1, y2;
	int m1, m2, dd1, dd2;
	ex_split_us(l1, &d1, &t1);
	ex_split_us(l2, &d2, &t2);
	dl_civil_from_days(d1, &y1, &m1, &dd1);
	dl_civil_from_days(d2, &y2, &m2, &dd2);
	double months = (double)((y1 - y2) * 12 + (m1 - m2));
	bool end1 = dd1 == dl_days_in_month(y1, m1), end2 = dd2 == dl_days_in_month(y2, m2);
	if (dd1 == dd2 || (end1 && end2)) {
		out->v.d = months;
		return 0;
	}
	double secs = (double)(dd1 - dd2) * 86400 + (double)(t1 - t2) / 1e6;
	double v = months + secs / (31.0 * 86400);
	bool round_off = r->nargs < 3 || a[2].null || a[2].v.b;
	out->v.d = round_off ? round(v * 1e8) / 1e8 : v;
	return 0;
}

ROWFN(fn_next_day)
{
	(void)r;
	static const char *const names[7][3] = {{"MO", "MON", "MONDAY"},   {"TU", "TUE", "TUESDAY"}, {"WE", "WED", "WEDNESDAY"},
	                                        {"TH", "THU", "THURSDAY"}, {"FR", "FRI", "FRIDAY"},  {"SA", "SAT", "SATURDAY"},
	                                        {"SU", "SUN", "SUNDAY"}};
	int want = -1;
	for (int d = 0; d < 7 && want < 0; d++)
		for (int k = 0; k < 3; k++)
			if ((int64_t)strlen(names[d][k]) == a[1].v.s.n && strncasecmp(names[d][k], a[1].v.s.p, (size_t)a[1].v.s.n) == 0)
				want = d;
	if (want < 0)
		return dl_error_set_class(DL_EINVALID, "ILLEGAL_DAY_OF_WEEK", "[ILLEGAL_DAY_OF_WEEK] Illegal input for day of week: %.*s",
		                          (int)(a[1].v.s.n > 40 ? 40 : a[1].v.s.n), a[1].v.s.p);
	int64_t dow = dl_floor_mod(a[0].v.i + 3, 7); /* 0 = Monday */
	int64_t delta = (want - dow + 7) % 7;
	out->v.i = a[0].v.i + (delta ? delta : 7);
	return 0;
}

BINDFN(bind_equal_null)
{
	const dl_type *c = ex_common_type(b, n->args[0]->type, n->args[1]->type, "equal_null", n->pos);
	if (!c) return DL_EINVALID;
	DL_TRY(ex_coerce(b, &n->args[0], c));
	return ex_coerce(b, &n->args[1], c);
}

ROWFN(fn_equal_null)
{
	out->null = false;
	if (a[0].null || a[1].null) out->v.b = a[0].null && a[1].null;
	else out->v.b = ex_val_cmp(&a[0], &a[1], r->argt[0]) == 0;
	return 0;
}

/* Spark's DataType.simpleString: int, decimal(10,2), array<bigint>,
 * struct<a:int,B:string>, map<string,int>, void. */
static int simple_string(dl_buf *b, const dl_type *t)
{
	static const char *const names[] = {
	    [DL_TYPE_NULL] = "void",       [DL_TYPE_BOOLEAN] = "boolean", [DL_TYPE_BYTE] = "tinyint",
	    [DL_TYPE_SHORT] = "smallint",  [DL_TYPE_INTEGER] = "int",     [DL_TYPE_LONG] = "bigint",
	    [DL_TYPE_FLOAT] = "float",     [DL_TYPE_DOUBLE] = "double",   [DL_TYPE_STRING] = "string",
	    [DL_TYPE_BINARY] = "binary",   [DL_TYPE_DATE] = "date",       [DL_TYPE_TIMESTAMP] = "timestamp",
	    [DL_TYPE_TIMESTAMP_NTZ] = "timestamp_ntz", [DL_TYPE_VARIANT] = "variant"};
	switch (t->id) {
	case DL_TYPE_DECIMAL: return dl_buf_printf(b, "decimal(%d,%d)", t->precision, t->scale);
	case DL_TYPE_ARRAY:
		DL_TRY(dl_buf_puts(b, "array<"));
		DL_TRY(simple_string(b, t->children[0].type));
		return dl_buf_putc(b, '>');
	case DL_TYPE_MAP:
		DL_TRY(dl_buf_puts(b, "map<"));
		DL_TRY(simple_string(b, t->children[0].type));
		DL_TRY(dl_buf_putc(b, ','));
		DL_TRY(simple_string(b, t->children[1].type));
		return dl_buf_putc(b, '>');
	case DL_TYPE_STRUCT:
		DL_TRY(dl_buf_puts(b, "struct<"));
		for (int i = 0; i < t->nchildren; i++) {
			DL_TRY(dl_buf_printf(b, "%s%s:", i ? "," : "", t->children[i].name));
			DL_TRY(simple_string(b, t->children[i].type));
		}
		return dl_buf_putc(b, '>');
	default: return dl_buf_puts(b, names[t->id]);
	}
}

ROWFN(fn_typeof)
{
	(void)a;
	DL_TRY(simple_string(r->buf, r->argt[0]));
	out->null = false;
	set_buf(r, out);
	return 0;
}

BINDFN(bind_array_size)
{
	(void)b;
	if (n->args[0]->type->id != DL_TYPE_ARRAY && n->args[0]->type->id != DL_TYPE_NULL)
		return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] %s() needs an ARRAY", n->fn->name);
	return 0;
}

BINDFN(bind_map_parts)
{
	const dl_type *t = n->args[0]->type;
	if (t->id != DL_TYPE_MAP) return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] %s() needs a MAP", n->fn->name);
	dl_type *el = t->children[strcmp(n->fn->name, "map_keys") == 0 ? 0 : 1].type;
	n->type = ex_keep_type(b->e, dl_type_array(el, true));
	return n->type ? 0 : DL_ENOMEM;
}

VECFN(vec_map_parts)
{
	int which = strcmp(n->fn->name, "map_keys") == 0 ? 0 : 1;
	int64_t len = args[0].is_const ? 1 : r->n;
	dl_builder *b;
	DL_TRY(dl_builder_new(&b, n->type));
	int rc = 0;
	for (int64_t i = 0; rc == 0 && i < len; i++) {
		ex_val m;
		ex_val_load(&m, args[0].a, i);
		if (m.null) {
			rc = dl_builder_append_null(b);
			continue;
		}
		const dl_array *a = m.v.ref.a;
		int64_t row = m.v.ref.row, st = a->offsets[row], cnt = a->offsets[row + 1] - st;
		rc = dl_builder_begin_list(b);
		if (rc == 0 && cnt) rc = dl_builder_append_range(dl_builder_child(b, 0), a->children[0]->children[which], st, cnt);
		if (rc == 0) rc = dl_builder_end_list(b);
	}
	dl_array *res = NULL;
	if (rc == 0) rc = dl_builder_finish(&res, b);
	dl_builder_free(b);
	if (rc < 0) return rc;
	out->a = out->owned = res;
	out->is_const = args[0].is_const;
	return 0;
}

/* uuid(): a random (version 4) UUID per row. */
ROWFN(fn_uuid)
{
	(void)a;
	uint8_t u[16];
	DL_TRY(dl_random_bytes(u, sizeof u));
	u[6] = (uint8_t)((u[6] & 0x0F) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3F) | 0x80);
	DL_TRY(dl_buf_printf(r->buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
	                     u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]));
	set_buf(r, out);
	return 0;
}
