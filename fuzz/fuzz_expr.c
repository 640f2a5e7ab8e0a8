/* Fuzzes the expression language: parse arbitrary text; on success the
 * canonical print must parse again to the same text (fixpoint); then bind
 * against a fixed schema, evaluate over a small batch with NULLs, filter,
 * and prune against made-up statistics. Any crash, leak or a broken
 * fixpoint (trap) is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/builder.h"
#include "expr/expr.h"
#include "util/error.h"
#include "util/mem.h"

static dl_type *schema;
static dl_batch *batch;

static void setup(void)
{
	dl_type *i = dl_type_new(DL_TYPE_INTEGER), *d = dl_type_new(DL_TYPE_DOUBLE), *s = dl_type_new(DL_TYPE_STRING),
	        *dt = dl_type_new(DL_TYPE_DATE), *ts = dl_type_new(DL_TYPE_TIMESTAMP);
	dl_type *arr = dl_type_array(i, true), *m = dl_type_map(s, i, true);
	dl_field f[] = {{"a", i, true, NULL},  {"b", d, true, NULL},   {"s", s, true, NULL}, {"d", dt, true, NULL},
	                {"t", ts, true, NULL}, {"arr", arr, true, NULL}, {"m", m, true, NULL}};
	int nf = (int)(sizeof f / sizeof f[0]);
	schema = dl_type_struct(f, nf);
	batch = dl_batch_new(schema, 3);
	for (int k = 0; k < nf; k++) {
		dl_builder *b;
		dl_builder_new(&b, f[k].type);
		for (int r = 0; r < 3; r++) {
			if (r == 2) {
				dl_builder_append_null(b);
				continue;
			}
			switch (k) {
			case 0: dl_builder_append_int(b, r ? -7 : 42); break;
			case 1: dl_builder_append_double(b, r ? 0.5 : -1e300); break;
			case 2: dl_builder_append_str(b, r ? "héllo" : "a%b"); break;
			case 3: dl_builder_append_int(b, r ? -719162 : 18262); break;
			case 4: dl_builder_append_int(b, r ? INT64_C(-62135596800000000) : INT64_C(1577836800000000)); break;
			case 5:
				dl_builder_begin_list(b);
				dl_builder_append_int(dl_builder_child(b, 0), r);
				dl_builder_end_list(b);
				break;
			default:
				dl_builder_begin_list(b);
				dl_builder_append_str(dl_builder_child(b, 0), "k");
				dl_builder_append_int(dl_builder_child(b, 1), r);
				dl_builder_end_list(b);
			}
		}
		dl_array_free(batch->cols[k]);
		dl_builder_finish(&batch->cols[k], b);
		dl_builder_free(b);
	}
	dl_type *all[] = {i, d, s, dt, ts, arr, m};
	for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) dl_type_unref(all[k]);
}

static int stats_cb(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	(void)payload;
	(void)depth;
	if (strcmp(path[0], "a") == 0) {
		out->has_min = out->has_max = out->has_null_count = true;
		out->min.type = out->max.type = DL_TYPE_INTEGER;
		out->min.v.i64 = -7;
		out->max.v.i64 = 42;
		out->null_count = 1;
	} else if (strcmp(path[0], "s") == 0) {
		out->has_min = out->has_max = true;
		out->min.type = out->max.type = DL_TYPE_STRING;
		out->min.v.str.ptr = "a";
		out->min.v.str.len = 1;
		out->max.v.str.ptr = "h";
		out->max.v.str.len = 1;
		out->max_is_prefix = true;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!schema) setup();
	if (size > 4096) return 0;
	char *text = malloc(size + 1);
	if (!text) return 0;
	memcpy(text, data, size);
	text[size] = 0;
	dl_expr *e;
	if (dl_expr_parse(&e, text) == 0) {
		dl_buf p1 = DL_BUF_INIT, p2 = DL_BUF_INIT;
		dl_expr_sql(e, &p1);
		dl_expr *e2;
		if (dl_expr_parse(&e2, p1.data ? p1.data : "") != 0) {
			/* grouping can add nesting levels past the parser's limit */
			if (!strstr(dl_error_last()->message, "nested too deeply")) __builtin_trap();
		} else {
			dl_expr_sql(e2, &p2);
			if (!p1.data || !p2.data || strcmp(p1.data, p2.data) != 0) __builtin_trap();
			dl_expr_free(e2);
		}
		dl_buf_free(&p1);
		dl_buf_free(&p2);
		dl_expr_is_deterministic(e);
		if (dl_expr_bind(e, schema) == 0) {
			dl_array *out;
			if (dl_expr_eval(&out, e, batch, NULL) == 0) dl_array_free(out);
			if (dl_expr_type(e)->id == DL_TYPE_BOOLEAN) {
				dl_selection sel = {0};
				dl_expr_filter(&sel, e, batch, NULL);
				dl_selection_free(&sel);
				dl_stats_provider sp = {3, stats_cb, NULL, NULL, NULL};
				bool m;
				dl_expr_may_match(&m, e, &sp);
			}
		}
		dl_expr_free(e);
	}
	free(text);
	dl_error_clear();
	return 0;
}
