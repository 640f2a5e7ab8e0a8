/* Date and time functions. Timestamps are instants (UTC microseconds);
 * fields are taken in the session time zone. Parsing failures raise
 * CANNOT_PARSE_TIMESTAMP as in Spark 4's ANSI mode (try_to_timestamp gives
 * NULL); unknown truncation units give NULL as in Spark. */
#include "expr/datetime.h"
#include "expr/fn.h"
#include "util/error.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

static int parse_error(const ex_val *s, const char *fmt, size_t fl)
{
	return dl_error_set_class(DL_EINVALID, "CANNOT_PARSE_TIMESTAMP",
	                          "[CANNOT_PARSE_TIMESTAMP] Text '%.*s' could not be parsed%s%.*s%s. Use `try_to_timestamp` "
	                          "to tolerate invalid input string and return NULL instead.",
	                          (int)(s->v.s.n > 100 ? 100 : s->v.s.n), s->v.s.p, fmt ? " with the pattern '" : "",
	                          (int)fl, fmt ? fmt : "", fmt ? "'" : "");
}

/* Local wall-clock microseconds of a DATE / TIMESTAMP / TIMESTAMP_NTZ. */
static int64_t local_us(ex_row *r, const ex_val *v, const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_DATE: return ex_days_to_us(v->v.i);
	case DL_TYPE_TIMESTAMP: return ex_ts_to_local(v->v.i, r->run->tz);
	default: return v->v.i;
	}
}

static void fields(int64_t local, int64_t *y, int *m, int *d, int64_t *days, int64_t *tod)
{
	ex_split_us(local, days, tod);
	dl_civil_from_days(*days, y, m, d);
}

static bool is_datetime(dl_type_id t)
{
	return t == DL_TYPE_DATE || t == DL_TYPE_TIMESTAMP || t == DL_TYPE_TIMESTAMP_NTZ;
}

static int bind_parse_fn(ex_bind *b, ex_node *n, dl_type_id result)
{
	const dl_type *t = n->args[0]->type;
	char tn[64];
	if (t->id == DL_TYPE_NULL) DL_TRY(ex_coerce(b, &n->args[0], ex_type(b, DL_TYPE_STRING)));
	else if (t->id != DL_TYPE_STRING && !is_datetime(t->id)) {
		dl_type_sql(t, tn, sizeof tn);
		return dl_error_set(DL_EINVALID, "[DATATYPE_MISMATCH] %s() needs a STRING, DATE or TIMESTAMP, got %s",
		                    n->fn->name, tn);
	}
	if (n->nargs == 2) DL_TRY(ex_coerce(b, &n->args[1], ex_type(b, DL_TYPE_STRING)));
	n->type = ex_type(b, result);
	return 0;
}

BINDFN(bind_to_date) { return bind_parse_fn(b, n, DL_TYPE_DATE); }
BINDFN(bind_to_timestamp) { return bind_parse_fn(b, n, DL_TYPE_TIMESTAMP); }
BINDFN(bind_unix_timestamp)
{
	if (n->nargs == 0) {
		n->type = ex_type(b, DL_TYPE_LONG);
		return 0;
	}
	return bind_parse_fn(b, n, DL_TYPE_LONG);
}

/* Text -> local microseconds, with a pattern or Spark's cast syntax. */
static int parse_local(ex_row *r, const ex_val *a, bool try_mode, bool *ok, int64_t *local, int64_t *instant)
{
	*ok = true;
	if (r->nargs == 2) {
		if (!ex_pattern_parse(a[0].v.s.p, (size_t)a[0].v.s.n, a[1].v.s.p, (size_t)a[1].v.s.n, local)) {
			if (try_mode) return *ok = false, 0;
			return parse_error(&a[0], a[1].v.s.p, (size_t)a[1].v.s.n);
		}
		*instant = ex_local_to_ts(*local, r->run->tz);
		return 0;
	}
	if (!ex_ts_parse(a[0].v.s.p, (size_t)a[0].v.s.n, false, r->run->tz, instant)) {
		if (try_mode) return *ok = false, 0;
		return parse_error(&a[0], NULL, 0);
	}
	*local = ex_ts_to_local(*instant, r->run->tz);
	return 0;
}

ROWFN(fn_to_date)
{
	const dl_type *t = r->argt[0];
	if (t->id != DL_TYPE_STRING) {
		out->v.i = dl_floor_div(local_us(r, &a[0], t), EX_US_PER_DAY);
		return 0;
	}
	if (r->nargs == 1) {
		int32_t d;
		if (!ex_date_parse(a[0].v.s.p, (size_t)a[0].v.s.n, &d)) return parse_error(&a[0], NULL, 0);
		out->v.i = d;
		return 0;
	}
	bool ok;
	int64_t local, inst;
	DL_TRY(parse_local(r, a, false, &ok, &local, &inst));
	out->v.i = dl_floor_div(local, EX_US_PER_DAY);
	return 0;
}

static int to_ts(ex_row *r, ex_val *out, const ex_val *a, bool try_mode)
{
	const dl_type *t = r->argt[0];
	if (t->id == DL_TYPE_DATE) {
		out->v.i = ex_local_to_ts(ex_days_to_us(a[0].v.i), r->run->tz);
		return 0;
	}
	if (t->id == DL_TYPE_TIMESTAMP_NTZ) {
		out->v.i = ex_local_to_ts(a[0].v.i, r->run->tz);
		return 0;
	}
	if (t->id == DL_TYPE_TIMESTAMP) {
		out->v.i = a[0].v.i;
		return 0;
	}
	bool ok;
	int64_t local;
	DL_TRY(parse_local(r, a, try_mode, &ok, &local, &out->v.i));
	if (!ok) out->null = true;
	return 0;
}

ROWFN(fn_to_timestamp) { return to_ts(r, out, a, false); }
ROWFN(fn_try_to_timestamp) { return to_ts(r, out, a, true); }

ROWFN(fn_date_format)
{
	int64_t l = local_us(r, &a[0], r->argt[0]);
	DL_TRY(ex_pattern_format(r->buf, l, a[1].v.s.p, (size_t)a[1].v.s.n));
	out->v.s.p = r->buf->data ? r->buf->data : "";
	out->v.s.n = (int64_t)r->buf->len;
	return 0;
}

static int unit_of(const ex_val *f)
{
	static const struct {
		const char *name;
		int unit;
	} units[] = {{"YEAR", 1},   {"YYYY", 1},   {"YY", 1},          {"QUARTER", 2},     {"MONTH", 3},
	             {"MM", 3},     {"MON", 3},    {"WEEK", 4},        {"DAY", 5},         {"DD", 5},
	             {"HOUR", 6},   {"MINUTE", 7}, {"SECOND", 8},      {"MILLISECOND", 9}, {"MICROSECOND", 10}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if ((int64_t)strlen(units[i].name) == f->v.s.n && strncasecmp(units[i].name, f->v.s.p, (size_t)f->v.s.n) == 0)
			return units[i].unit;
	return 0;
}

/* Truncates local microseconds to a unit; false for unknown units. */
static bool trunc_local(int64_t local, int unit, int64_t *res)
{
	int64_t y, days, tod;
	int m, d;
	fields(local, &y, &m, &d, &days, &tod);
	switch (unit) {
	case 1: *res = ex_days_to_us(dl_days_from_civil(y, 1, 1)); return true;
	case 2: *res = ex_days_to_us(dl_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1)); return true;
	case 3: *res = ex_days_to_us(dl_days_from_civil(y, m, 1)); return true;
	case 4: *res = ex_days_to_us(days - dl_floor_mod(days + 3, 7)); return true; /* back to Monday */
	case 5: *res = ex_days_to_us(days); return true;
	case 6: *res = local - dl_floor_mod(local, 3600000000LL); return true;
	case 7: *res = local - dl_floor_mod(local, 60000000LL); return true;
	case 8: *res = local - dl_floor_mod(local, 1000000LL); return true;
	case 9: *res = local - dl_floor_mod(local, 1000LL); return true;
	case 10: *res = local; return true;
	default: return false;
	}
}

ROWFN(fn_date_trunc)
{
	int unit = unit_of(&a[0]);
	int64_t l = local_us(r, &a[1], r->argt[1]), t;
	if (!trunc_local(l, unit, &t)) {
		out->null = true;
		return 0;
	}
	out->v.i = r->argt[1]->id == DL_TYPE_TIMESTAMP_NTZ ? t : ex_local_to_ts(t, r->run->tz);
	return 0;
}

ROWFN(fn_trunc)
{
	(void)r;
	int unit = unit_of(&a[1]);
	int64_t t;
	if (unit < 1 || unit > 4 || !trunc_local(ex_days_to_us(a[0].v.i), unit, &t)) {
		out->null = true;
		return 0;
	}
	out->v.i = dl_floor_div(t, EX_US_PER_DAY);
	return 0;
}

#define FIELD_FN(name, expr)                                    \
	ROWFN(name)                                                 \
	{                                                           \
		int64_t l = local_us(r, &a[0], r->argt[0]), y, days, tod; \
		int m, d;                                               \
		fields(l, &y, &m, &d, &days, &tod);                     \
		(void)m;                                                \
		(void)d;                                                \
		(void)tod;                                              \
		out->v.i = (expr);                                      \
		return 0;                                               \
	}

FIELD_FN(fn_year, y)
FIELD_FN(fn_quarter, (m - 1) / 3 + 1)
FIELD_FN(fn_month, m)
FIELD_FN(fn_day, d)
FIELD_FN(fn_dayofweek, dl_floor_mod(days + 4, 7) + 1) /* 1 = Sunday */
FIELD_FN(fn_weekday, dl_floor_mod(days + 3, 7))       /* 0 = Monday */
FIELD_FN(fn_dayofyear, days - dl_days_from_civil(y, 1, 1) + 1)
FIELD_FN(fn_hour, tod / 3600000000LL)
FIELD_FN(fn_minute, tod / 60000000LL % 60)
FIELD_FN(fn_second, tod / 1000000 % 60)

/* ISO-8601 week number (weeks start on Monday; week 1 holds Jan 4th). */
ROWFN(fn_weekofyear)
{
	int64_t days = dl_floor_div(local_us(r, &a[0], r->argt[0]), EX_US_PER_DAY);
	int64_t thursday = days - dl_floor_mod(days + 3, 7) + 3, y;
	int m, d;
	dl_civil_from_days(thursday, &y, &m, &d);
	out->v.i = (thursday - dl_days_from_civil(y, 1, 1)) / 7 + 1;
	return 0;
}

static int date_result(ex_val *out, int64_t days)
{
	if (days < INT32_MIN || days > INT32_MAX) return ex_err_overflow("date", "try_add");
	out->v.i = days;
	return 0;
}

ROWFN(fn_date_add) { (void)r; return date_result(out, a[0].v.i + a[1].v.i); }
ROWFN(fn_date_sub) { (void)r; return date_result(out, a[0].v.i - a[1].v.i); }
ROWFN(fn_datediff) { (void)r; out->v.i = a[0].v.i - a[1].v.i; return 0; }

static int64_t plus_months(int64_t days, int64_t months)
{
	int64_t y;
	int m, d;
	dl_civil_from_days(days, &y, &m, &d);
	int64_t total = y * 12 + (m - 1) + months;
	int64_t ny = dl_floor_div(total, 12);
	int nm = (int)dl_floor_mod(total, 12) + 1;
	int dim = dl_days_in_month(ny, nm);
	return dl_days_from_civil(ny, nm, d > dim ? dim : d);
}

ROWFN(fn_add_months)
{
	(void)r;
	return date_result(out, plus_months(a[0].v.i, a[1].v.i));
}

ROWFN(fn_last_day)
{
	(void)r;
	int64_t y;
	int m, d;
	dl_civil_from_days(a[0].v.i, &y, &m, &d);
	out->v.i = dl_days_from_civil(y, m, dl_days_in_month(y, m));
	return 0;
}

ROWFN(fn_current_date)
{
	(void)a;
	out->v.i = dl_floor_div(ex_ts_to_local(r->run->now_us, r->run->tz), EX_US_PER_DAY);
	return 0;
}

ROWFN(fn_current_timezone)
{
	(void)a;
	const char *z = dl_tz_name(r->run->tz);
	DL_TRY(dl_buf_puts(r->buf, z));
	out->v.s.p = r->buf->data;
	out->v.s.n = (int64_t)r->buf->len;
	return 0;
}

ROWFN(fn_current_timestamp)
{
	(void)a;
	out->v.i = r->run->now_us;
	return 0;
}

ROWFN(fn_unix_timestamp)
{
	if (r->nargs == 0) {
		out->v.i = dl_floor_div(r->run->now_us, 1000000);
		return 0;
	}
	const dl_type *t = r->argt[0];
	int64_t inst = 0;
	if (t->id == DL_TYPE_STRING) {
		static const char def[] = "yyyy-MM-dd HH:mm:ss";
		ex_val args2[2] = {a[0], {.v.s = {def, sizeof def - 1}}};
		if (r->nargs == 2) args2[1] = a[1];
		ex_row rr = *r;
		rr.nargs = 2;
		bool ok;
		int64_t local;
		DL_TRY(parse_local(&rr, args2, false, &ok, &local, &inst));
	} else if (t->id == DL_TYPE_DATE) {
		inst = ex_local_to_ts(ex_days_to_us(a[0].v.i), r->run->tz);
	} else if (t->id == DL_TYPE_TIMESTAMP_NTZ) {
		inst = ex_local_to_ts(a[0].v.i, r->run->tz);
	} else {
		inst = a[0].v.i;
	}
	out->v.i = dl_floor_div(inst, 1000000);
	return 0;
}

ROWFN(fn_from_unixtime)
{
	static const char def[] = "yyyy-MM-dd HH:mm:ss";
	const char *f = r->nargs == 2 ? a[1].v.s.p : def;
	size_t fl = r->nargs == 2 ? (size_t)a[1].v.s.n : sizeof def - 1;
	int64_t us;
	if (__builtin_mul_overflow(a[0].v.i, (int64_t)1000000, &us)) return ex_err_overflow("long", "try_cast");
	DL_TRY(ex_pattern_format(r->buf, ex_ts_to_local(us, r->run->tz), f, fl));
	out->v.s.p = r->buf->data ? r->buf->data : "";
	out->v.s.n = (int64_t)r->buf->len;
	return 0;
}

/* x + INTERVAL: months and days on the local calendar, then the
 * microseconds as elapsed time (java.time's plusMonths/plusDays/plus). */
ROWFN(fn_add_interval)
{
	const dl_type *t = r->argt[0];
	int64_t months = a[1].v.i, days = a[2].v.i, micros = a[3].v.i;
	if (t->id == DL_TYPE_DATE) return date_result(out, plus_months(a[0].v.i, months) + days);
	int64_t local = t->id == DL_TYPE_TIMESTAMP ? ex_ts_to_local(a[0].v.i, r->run->tz) : a[0].v.i;
	int64_t d, tod;
	ex_split_us(local, &d, &tod);
	d = plus_months(d, months) + days;
	if (d > EX_MAX_TS_DAYS || d < -EX_MAX_TS_DAYS) return ex_err_overflow("timestamp", "try_add");
	local = d * EX_US_PER_DAY + tod;
	int64_t inst = t->id == DL_TYPE_TIMESTAMP ? ex_local_to_ts(local, r->run->tz) : local;
	if (__builtin_add_overflow(inst, micros, &out->v.i)) return ex_err_overflow("timestamp", "try_add");
	return 0;
}
