/* The function registry: name, arity, determinism, argument coercion spec
 * and implementation of every built-in function (argspec codes are
 * described in binder.c). */
#include "expr/fn.h"
#include <string.h>
#include <strings.h>

#define D (FN_DET)
#define DN (FN_DET | FN_NULLX)
#define DL_ (FN_DET | FN_LAZY)

static const ex_func funcs[] = {
    /* math */
    {"abs", 1, 1, DN, "N", '0', bind_abs, fn_abs, NULL},
    {"ceil", 1, 1, DN, "N", 0, bind_ceil_floor, fn_ceil, NULL},
    {"ceiling", 1, 1, DN, "N", 0, bind_ceil_floor, fn_ceil, NULL},
    {"floor", 1, 1, DN, "N", 0, bind_ceil_floor, fn_floor, NULL},
    {"round", 1, 2, DN, "NI", 0, bind_round, fn_round, NULL},
    {"bround", 1, 2, DN, "NI", 0, bind_round, fn_bround, NULL},
    {"mod", 2, 2, DN, "NN", 0, bind_mod, fn_mod, NULL},
    {"pmod", 2, 2, DN, "NN", 0, bind_mod, fn_pmod, NULL},
    {"sqrt", 1, 1, DN, "D", 'D', NULL, fn_sqrt, NULL},
    {"pow", 2, 2, DN, "DD", 'D', NULL, fn_pow, NULL},
    {"power", 2, 2, DN, "DD", 'D', NULL, fn_pow, NULL},
    {"exp", 1, 1, DN, "D", 'D', NULL, fn_exp, NULL},
    {"ln", 1, 1, DN, "D", 'D', NULL, fn_ln, NULL},
    {"log10", 1, 1, DN, "D", 'D', NULL, fn_log10, NULL},
    {"log2", 1, 1, DN, "D", 'D', NULL, fn_log2, NULL},
    {"log", 1, 2, DN, "DD", 'D', NULL, fn_log, NULL},
    {"greatest", 2, -1, D, "C", 'C', NULL, fn_greatest, NULL},
    {"least", 2, -1, D, "C", 'C', NULL, fn_least, NULL},
    {"isnan", 1, 1, D, "D", 'B', NULL, fn_isnan, NULL},
    {"nanvl", 2, 2, DN, "DD", 'D', NULL, fn_nanvl, NULL},
    {"sign", 1, 1, DN, "D", 'D', NULL, fn_sign, NULL},
    {"signum", 1, 1, DN, "D", 'D', NULL, fn_sign, NULL},
    {"negative", 1, 1, DN, "N", '0', NULL, fn_negative, NULL},
    {"positive", 1, 1, DN, "N", '0', NULL, fn_positive, NULL},
    {"try_add", 2, 2, DN, "XX", 0, bind_try_arith, fn_try_add, NULL},
    {"try_subtract", 2, 2, DN, "XX", 0, bind_try_arith, fn_try_sub, NULL},
    {"try_multiply", 2, 2, DN, "XX", 0, bind_try_arith, fn_try_mul, NULL},
    {"try_divide", 2, 2, DN, "XX", 0, bind_try_arith, fn_try_div, NULL},
    {"try_mod", 2, 2, DN, "XX", 0, bind_try_arith, fn_try_mod, NULL},
    /* strings */
    {"length", 1, 1, DN, "X", 'I', bind_concat, fn_length, NULL},
    {"char_length", 1, 1, DN, "X", 'I', bind_concat, fn_length, NULL},
    {"character_length", 1, 1, DN, "X", 'I', bind_concat, fn_length, NULL},
    {"lower", 1, 1, DN, "S", 'S', NULL, fn_lower, NULL},
    {"lcase", 1, 1, DN, "S", 'S', NULL, fn_lower, NULL},
    {"upper", 1, 1, DN, "S", 'S', NULL, fn_upper, NULL},
    {"ucase", 1, 1, DN, "S", 'S', NULL, fn_upper, NULL},
    {"trim", 1, 2, DN, "SS", 'S', NULL, fn_trim, NULL},
    {"ltrim", 1, 2, DN, "SS", 'S', NULL, fn_ltrim, NULL},
    {"rtrim", 1, 2, DN, "SS", 'S', NULL, fn_rtrim, NULL},
    {"substring", 2, 3, DN, "SII", 'S', NULL, fn_substring, NULL},
    {"substr", 2, 3, DN, "SII", 'S', NULL, fn_substring, NULL},
    {"concat", 0, -1, DN, "S", 'S', bind_concat, fn_concat, NULL},
    {"concat_ws", 1, -1, D, "S", 'S', NULL, fn_concat_ws, NULL},
    {"replace", 2, 3, DN, "SSS", 'S', NULL, fn_replace, NULL},
    {"regexp_replace", 3, 4, DN, "SSSI", 'S', NULL, fn_regexp_replace, NULL},
    {"regexp_extract", 2, 3, DN, "SSI", 'S', NULL, fn_regexp_extract, NULL},
    {"rlike", 2, 2, DN, "SS", 'B', NULL, fn_rlike_fn, NULL},
    {"regexp_like", 2, 2, DN, "SS", 'B', NULL, fn_rlike_fn, NULL},
    {"split", 2, 3, DN, "SSI", 0, bind_split, NULL, vec_split},
    {"instr", 2, 2, DN, "SS", 'I', NULL, fn_instr, NULL},
    {"locate", 2, 3, DN, "SSI", 'I', NULL, fn_locate, NULL},
    {"lpad", 2, 3, DN, "SIS", 'S', NULL, fn_lpad, NULL},
    {"rpad", 2, 3, DN, "SIS", 'S', NULL, fn_rpad, NULL},
    {"startswith", 2, 2, DN, "SS", 'B', NULL, fn_startswith, NULL},
    {"endswith", 2, 2, DN, "SS", 'B', NULL, fn_endswith, NULL},
    {"contains", 2, 2, DN, "SS", 'B', NULL, fn_contains, NULL},
    {"reverse", 1, 1, DN, "S", 'S', NULL, fn_reverse, NULL},
    {"repeat", 2, 2, DN, "SI", 'S', NULL, fn_repeat, NULL},
    {"initcap", 1, 1, DN, "S", 'S', NULL, fn_initcap, NULL},
    {"left", 2, 2, DN, "SI", 'S', NULL, fn_left, NULL},
    {"right", 2, 2, DN, "SI", 'S', NULL, fn_right, NULL},
    {"ascii", 1, 1, DN, "S", 'I', NULL, fn_ascii, NULL},
    /* hashes */
    {"md5", 1, 1, DN, "Y", 'S', NULL, fn_md5, NULL},
    {"sha1", 1, 1, DN, "Y", 'S', NULL, fn_sha1, NULL},
    {"sha", 1, 1, DN, "Y", 'S', NULL, fn_sha1, NULL},
    {"sha2", 2, 2, DN, "YI", 'S', NULL, fn_sha2, NULL},
    {"crc32", 1, 1, DN, "Y", 'L', NULL, fn_crc32, NULL},
    {"hash", 1, -1, D, "X", 'I', NULL, fn_hash, NULL},
    /* dates */
    {"to_date", 1, 2, DN, "XS", 0, bind_to_date, fn_to_date, NULL},
    {"to_timestamp", 1, 2, DN, "XS", 0, bind_to_timestamp, fn_to_timestamp, NULL},
    {"try_to_timestamp", 1, 2, DN, "XS", 0, bind_to_timestamp, fn_try_to_timestamp, NULL},
    {"date_format", 2, 2, DN, "ZS", 'S', NULL, fn_date_format, NULL},
    {"date_trunc", 2, 2, DN, "SZ", 'T', NULL, fn_date_trunc, NULL},
    {"trunc", 2, 2, DN, "AS", 'A', NULL, fn_trunc, NULL},
    {"year", 1, 1, DN, "Z", 'I', NULL, fn_year, NULL},
    {"quarter", 1, 1, DN, "Z", 'I', NULL, fn_quarter, NULL},
    {"month", 1, 1, DN, "Z", 'I', NULL, fn_month, NULL},
    {"day", 1, 1, DN, "Z", 'I', NULL, fn_day, NULL},
    {"dayofmonth", 1, 1, DN, "Z", 'I', NULL, fn_day, NULL},
    {"dayofweek", 1, 1, DN, "Z", 'I', NULL, fn_dayofweek, NULL},
    {"weekday", 1, 1, DN, "Z", 'I', NULL, fn_weekday, NULL},
    {"dayofyear", 1, 1, DN, "Z", 'I', NULL, fn_dayofyear, NULL},
    {"weekofyear", 1, 1, DN, "Z", 'I', NULL, fn_weekofyear, NULL},
    {"hour", 1, 1, DN, "T", 'I', NULL, fn_hour, NULL},
    {"minute", 1, 1, DN, "T", 'I', NULL, fn_minute, NULL},
    {"second", 1, 1, DN, "T", 'I', NULL, fn_second, NULL},
    {"date_add", 2, 2, DN, "AI", 'A', bind_date_add, fn_date_add, NULL},
    {"dateadd", 2, 2, DN, "AI", 'A', bind_date_add, fn_date_add, NULL},
    {"date_sub", 2, 2, DN, "AI", 'A', bind_date_add, fn_date_sub, NULL},
    {"add_months", 2, 2, DN, "AI", 'A', NULL, fn_add_months, NULL},
    {"datediff", 2, 2, DN, "AA", 'I', NULL, fn_datediff, NULL},
    {"last_day", 1, 1, DN, "A", 'A', NULL, fn_last_day, NULL},
    {"current_date", 0, 0, 0, "", 'A', NULL, fn_current_date, NULL},
    {"curdate", 0, 0, 0, "", 'A', NULL, fn_current_date, NULL},
    {"current_timestamp", 0, 0, 0, "", 'T', NULL, fn_current_timestamp, NULL},
    {"now", 0, 0, 0, "", 'T', NULL, fn_current_timestamp, NULL},
    {"localtimestamp", 0, 0, 0, "", 'T', NULL, fn_current_timestamp, NULL},
    {"unix_timestamp", 0, 2, DN, "XS", 'L', bind_unix_timestamp, fn_unix_timestamp, NULL},
    {"from_unixtime", 1, 2, DN, "LS", 'S', NULL, fn_from_unixtime, NULL},
    {"__add_interval", 4, 4, DN, "XIIL", '0', NULL, fn_add_interval, NULL},
    /* nested */
    {"element_at", 2, 2, D, "XX", 0, bind_element_at, NULL, vec_element_at},
    {"try_element_at", 2, 2, D, "XX", 0, bind_element_at, NULL, vec_try_element_at},
    {"size", 1, 1, DN, "X", 'I', bind_size, fn_size, NULL},
    {"cardinality", 1, 1, DN, "X", 'I', bind_size, fn_size, NULL},
    {"array_contains", 2, 2, D, "XX", 'B', bind_array_contains, fn_array_contains, NULL},
    {"named_struct", 2, -1, D, "X", 0, bind_named_struct, NULL, vec_named_struct},
    {"struct", 1, -1, D, "X", 0, bind_struct, NULL, vec_struct},
    {"array", 0, -1, D, "C", 0, bind_array, NULL, vec_array},
    /* conditional */
    {"coalesce", 1, -1, DL_, "C", 'C', NULL, NULL, NULL},
    {"nvl", 2, 2, DL_, "C", 'C', NULL, NULL, NULL},
    {"ifnull", 2, 2, DL_, "C", 'C', NULL, NULL, NULL},
    {"if", 3, 3, DL_, "BXX", 0, bind_if, NULL, NULL},
    {"iff", 3, 3, DL_, "BXX", 0, bind_if, NULL, NULL},
    {"nvl2", 3, 3, DL_, "XXX", 0, bind_nvl2, NULL, NULL},
    {"nullif", 2, 2, D, "CC", 0, bind_nullif, fn_nullif, NULL},
    {"isnull", 1, 1, D, "X", 'B', NULL, fn_isnull, NULL},
    {"isnotnull", 1, 1, D, "X", 'B', NULL, fn_isnotnull, NULL},
};

const ex_func *ex_func_at(size_t i)
{
	return i < sizeof funcs / sizeof funcs[0] ? &funcs[i] : NULL;
}

const ex_func *ex_func_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
		if (strcasecmp(funcs[i].name, name) == 0) return &funcs[i];
	return NULL;
}
