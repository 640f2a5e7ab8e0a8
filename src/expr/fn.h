/* Built-in function implementations (fn_*.c), registered in functions.c. */
#ifndef DL_EXPR_FN_H
#define DL_EXPR_FN_H
#include "expr/binder.h"
#include "expr/eval.h"

#define ROWFN(name) int name(ex_row *r, ex_val *out, const ex_val *a)
#define BINDFN(name) int name(ex_bind *b, ex_node *n)
#define VECFN(name) int name(ex_vec *out, const ex_node *n, ex_vec *args, ex_run *r)

/* math */
ROWFN(fn_abs); ROWFN(fn_ceil); ROWFN(fn_floor); ROWFN(fn_round); ROWFN(fn_bround);
ROWFN(fn_mod); ROWFN(fn_pmod); ROWFN(fn_sqrt); ROWFN(fn_pow); ROWFN(fn_exp); ROWFN(fn_ln);
ROWFN(fn_log10); ROWFN(fn_log2); ROWFN(fn_log); ROWFN(fn_greatest); ROWFN(fn_least); ROWFN(fn_isnan);
ROWFN(fn_sign); ROWFN(fn_try_add); ROWFN(fn_try_sub); ROWFN(fn_try_mul); ROWFN(fn_try_div); ROWFN(fn_try_mod);
ROWFN(fn_negative); ROWFN(fn_nanvl); ROWFN(fn_positive);
ROWFN(fn_sin); ROWFN(fn_cos); ROWFN(fn_tan); ROWFN(fn_cot); ROWFN(fn_asin); ROWFN(fn_acos); ROWFN(fn_atan);
ROWFN(fn_sinh); ROWFN(fn_cosh); ROWFN(fn_tanh); ROWFN(fn_cbrt); ROWFN(fn_degrees); ROWFN(fn_radians); ROWFN(fn_rint);
ROWFN(fn_expm1); ROWFN(fn_log1p); ROWFN(fn_atan2); ROWFN(fn_hypot); ROWFN(fn_pi); ROWFN(fn_e); ROWFN(fn_shiftleft);
ROWFN(fn_shiftright); ROWFN(fn_shiftrightunsigned); ROWFN(fn_bit_count); ROWFN(fn_factorial);
BINDFN(bind_shift); BINDFN(bind_bit_count);
BINDFN(bind_ceil_floor); BINDFN(bind_round); BINDFN(bind_mod); BINDFN(bind_try_arith);

/* strings */
ROWFN(fn_length); ROWFN(fn_lower); ROWFN(fn_upper); ROWFN(fn_trim); ROWFN(fn_ltrim); ROWFN(fn_rtrim);
ROWFN(fn_substring); ROWFN(fn_concat); ROWFN(fn_concat_ws); ROWFN(fn_replace); ROWFN(fn_regexp_replace);
ROWFN(fn_regexp_extract); ROWFN(fn_instr); ROWFN(fn_lpad); ROWFN(fn_rpad); ROWFN(fn_startswith);
ROWFN(fn_endswith); ROWFN(fn_contains); ROWFN(fn_reverse); ROWFN(fn_repeat); ROWFN(fn_initcap);
ROWFN(fn_left); ROWFN(fn_right); ROWFN(fn_ascii); ROWFN(fn_rlike_fn); ROWFN(fn_locate); ROWFN(fn_chr);
ROWFN(fn_levenshtein);
VECFN(vec_split);
BINDFN(bind_concat); BINDFN(bind_split);

/* hashes */
ROWFN(fn_md5); ROWFN(fn_sha1); ROWFN(fn_sha2); ROWFN(fn_crc32); ROWFN(fn_hash);

/* dates */
ROWFN(fn_to_date); ROWFN(fn_to_timestamp); ROWFN(fn_date_format); ROWFN(fn_date_trunc); ROWFN(fn_trunc);
ROWFN(fn_year); ROWFN(fn_quarter); ROWFN(fn_month); ROWFN(fn_day); ROWFN(fn_dayofweek); ROWFN(fn_dayofyear);
ROWFN(fn_weekday); ROWFN(fn_hour); ROWFN(fn_minute); ROWFN(fn_second); ROWFN(fn_date_add); ROWFN(fn_date_sub);
ROWFN(fn_add_months); ROWFN(fn_datediff); ROWFN(fn_current_date); ROWFN(fn_current_timestamp);
ROWFN(fn_unix_timestamp); ROWFN(fn_from_unixtime); ROWFN(fn_add_interval); ROWFN(fn_last_day);
ROWFN(fn_weekofyear); ROWFN(fn_try_to_timestamp); ROWFN(fn_current_timezone);
BINDFN(bind_to_date); BINDFN(bind_to_timestamp); BINDFN(bind_unix_timestamp);

/* nested */
ROWFN(fn_size); ROWFN(fn_array_contains);
VECFN(vec_element_at); VECFN(vec_try_element_at); VECFN(vec_named_struct); VECFN(vec_array); VECFN(vec_struct);
BINDFN(bind_element_at); BINDFN(bind_size); BINDFN(bind_array_contains); BINDFN(bind_named_struct);
BINDFN(bind_array); BINDFN(bind_struct);
VECFN(vec_store_by_name); BINDFN(bind_store_by_name); VECFN(vec_check_overflow); BINDFN(bind_check_overflow); VECFN(vec_map); BINDFN(bind_map);
ROWFN(fn_array_join); ROWFN(fn_array_min); ROWFN(fn_array_max); ROWFN(fn_array_position); VECFN(vec_sort_array);
BINDFN(bind_array_join); BINDFN(bind_array_extreme); BINDFN(bind_array_position); BINDFN(bind_sort_array);

/* extra (fn_extra.c) */
ROWFN(fn_hex); ROWFN(fn_unhex); ROWFN(fn_base64); ROWFN(fn_unbase64); ROWFN(fn_octet_length); ROWFN(fn_bit_length);
ROWFN(fn_translate); ROWFN(fn_timestamp_seconds); ROWFN(fn_timestamp_millis); ROWFN(fn_timestamp_micros);
ROWFN(fn_unix_seconds); ROWFN(fn_unix_millis); ROWFN(fn_unix_micros); ROWFN(fn_unix_date); ROWFN(fn_date_from_unix_date);
ROWFN(fn_make_date); ROWFN(fn_months_between); ROWFN(fn_next_day); ROWFN(fn_equal_null); ROWFN(fn_typeof); ROWFN(fn_uuid);
VECFN(vec_map_parts);
BINDFN(bind_hex); BINDFN(bind_timestamp_seconds); BINDFN(bind_equal_null); BINDFN(bind_array_size); BINDFN(bind_map_parts);

/* variant (fn_variant.c) */
ROWFN(fn_is_variant_null); VECFN(vec_variant_get); VECFN(vec_parse_json);
BINDFN(bind_variant_get); BINDFN(bind_is_variant_null); BINDFN(bind_parse_json);

/* conditional / misc */
ROWFN(fn_nullif); ROWFN(fn_isnull); ROWFN(fn_isnotnull);
BINDFN(bind_if); BINDFN(bind_nvl2); BINDFN(bind_nullif);

#endif
