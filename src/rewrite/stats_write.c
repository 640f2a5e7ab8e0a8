/* Building the stats JSON of a written data file (see stats_write.h). */
#include "rewrite/stats_write.h"
#include <string.h>
#include <strings.h>
#include "columnar/format_value.h"
#include "json/json.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

#define STATS_STRING_CHARS 32
#define MAX_DEPTH 64

typedef enum pass { PASS_MIN, PASS_MAX, PASS_NULLS } pass;

/* The logical dotted name of a leaf ("a.b"), following the writer's walk. */
static int logical_name(dl_buf *out, const pq_leaf *leaf, const dl_type *logical)
{
	const dl_type *t = logical;
	int child = leaf->top;
	dl_buf_clear(out);
	for (int k = 0;; k++) {
		if (child < 0 || child >= t->nchildren) return dl_error_set(DL_EINVALID, "stats: bad leaf walk");
		const dl_field *f = &t->children[child];
		if (out->len) DL_TRY(dl_buf_putc(out, '.'));
		DL_TRY(dl_buf_puts(out, f->name));
		if (k >= leaf->nsteps || leaf->steps[k].kind != PQ_STEP_STRUCT) break;
		t = f->type;
		child = leaf->steps[k].child;
	}
	return 0;
}

static bool under_repeated(const pq_leaf *leaf)
{
	for (int k = 0; k < leaf->nsteps; k++)
		if (leaf->steps[k].kind == PQ_STEP_REPEATED) return true;
	return false;
}

/* Whether `name` is listed in the comma-separated stats column list (or is
 * inside a listed struct). */
static bool listed(const char *list, const char *name)
{
	size_t nlen = strlen(name);
	const char *p = list;
	while (*p) {
		while (*p == ' ' || *p == ',') p++;
		const char *e = p;
		while (*e && *e != ',') e++;
		const char *te = e;
		while (te > p && te[-1] == ' ') te--;
		size_t n = (size_t)(te - p);
		if (n && n <= nlen && strncasecmp(p, name, n) == 0 && (n == nlen || name[n] == '.'))
			return true;
		p = e;
	}
	return false;
}

/* Writes at most STATS_STRING_CHARS characters of a UTF-8 string; a cut
 * max gets U+FFFD so it still bounds every value with that prefix. */
static void put_string(dl_json_writer *w, const char *s, size_t n, bool is_max, dl_buf *tmp)
{
	size_t i = 0;
	int chars = 0;
	while (i < n && chars < STATS_STRING_CHARS) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		if (i + len > n) len = n - i;
		i += len;
		chars++;
	}
	/* U+FFFD only bounds the cut values if the first character cut is
	 * below it (in UTF-8 byte order); otherwise the prefix grows, as
	 * Delta's truncateMaxStringAgg does. */
	while (is_max && i < n) {
		const unsigned char *u = (const unsigned char *)s + i;
		bool at_least_fffd = u[0] >= 0xF0 || (u[0] == 0xEF && i + 2 < n && u[1] == 0xBF && u[2] >= 0xBD);
		if (!at_least_fffd) break;
		i += u[0] >= 0xF0 ? 4 : 3;
	}
	if (i >= n) {
		dl_jw_string_n(w, s, n);
		return;
	}
	dl_buf_clear(tmp);
	dl_buf_append(tmp, s, i);
	if (is_max) dl_buf_puts(tmp, "\xEF\xBF\xBD");
	dl_jw_string_n(w, tmp->data ? tmp->data : "", tmp->len);
}

/* Whether the leaf's min/max are written (Spark skips booleans, binaries,
 * and anything without an order). */
static bool has_bounds(const pq_leaf *leaf, const pq_stats *st)
{
	if (!st->has_minmax) return false;
	switch (leaf->type->id) {
	case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER: case DL_TYPE_LONG:
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE: case DL_TYPE_DECIMAL: case DL_TYPE_DATE:
	case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ: case DL_TYPE_STRING:
		return true;
	default:
		return false;
	}
}

void dl_stats_put_bound(dl_json_writer *w, const dl_type *t, int64_t i, double d, dl_i128 dec, const char *str,
                        size_t len, bool is_max, dl_buf *tmp)
{
	char text[DL_TIME_TEXT_MAX > 64 ? DL_TIME_TEXT_MAX : 64];
	switch (t->id) {
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE:
		dl_jw_double(w, d);
		return;
	case DL_TYPE_DECIMAL: {
		char num[DL_NUMBER_TEXT_MAX];
		size_t n = dl_format_decimal(num, dec, t->scale);
		num[n] = 0;
		dl_jw_raw(w, num);
		return;
	}
	case DL_TYPE_DATE:
		dl_date_format(text, (int32_t)i);
		dl_jw_string(w, text);
		return;
	case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ: {
		/* Milliseconds, as Spark writes them: the min floored, and the max
		 * too (readers widen a max by a millisecond). */
		int64_t us = dl_floor_div(i, 1000) * 1000;
		dl_timestamp_format_iso(text, us, NULL, 3);
		if (t->id == DL_TYPE_TIMESTAMP) {
			size_t n = strlen(text);
			text[n] = 'Z';
			text[n + 1] = 0;
		}
		dl_jw_string(w, text);
		return;
	}
	case DL_TYPE_STRING:
		put_string(w, str ? str : "", len, is_max, tmp);
		return;
	default:
		dl_jw_int(w, i);
	}
}

static void put_bound(dl_json_writer *w, const pq_leaf *leaf, const pq_stats *st, bool is_max,
                      dl_buf *tmp)
{
	const pq_stats_value *v = is_max ? &st->max : &st->min;
	const dl_buf *b = is_max ? &st->max_bytes : &st->min_bytes;
	dl_stats_put_bound(w, leaf->type, v->i, v->d, v->dec, b->data, b->len, is_max, tmp);
}

typedef struct nest {
	const char *open[MAX_DEPTH];
	int depth;
} nest;

/* Opens the objects of path[0..n-1) (closing what no longer applies) and
 * writes the key of the leaf. */
static void enter(dl_json_writer *w, nest *ns, char **path, int n)
{
	int common = 0;
	while (common < ns->depth && common < n - 1 && strcmp(ns->open[common], path[common]) == 0)
		common++;
	while (ns->depth > common) {
		dl_jw_object_end(w);
		ns->depth--;
	}
	for (int i = common; i < n - 1 && ns->depth < MAX_DEPTH; i++) {
		dl_jw_key(w, path[i]);
		dl_jw_object_begin(w);
		ns->open[ns->depth++] = path[i];
	}
	dl_jw_key(w, path[n - 1]);
}

/* How many path steps lead to the variant column holding the leaf (0 when
 * it is not inside one). */
static int variant_depth(const pq_leaf *leaf, const dl_type *logical)
{
	const dl_type *t = logical;
	int child = leaf->top;
	for (int k = 0;; k++) {
		if (child < 0 || child >= t->nchildren) return 0;
		const dl_field *f = &t->children[child];
		if (f->type->id == DL_TYPE_VARIANT) return k + 1 < leaf->npath ? k + 1 : 0;
		if (k >= leaf->nsteps || leaf->steps[k].kind != PQ_STEP_STRUCT) return 0;
		t = f->type;
		child = leaf->steps[k].child;
	}
}

static void write_pass(dl_json_writer *w, const pq_writer *pw, const dl_type *logical, const bool *inc, pass p,
                       dl_buf *tmp)
{
	nest ns = {{0}, 0};
	dl_jw_object_begin(w);
	for (int i = 0; i < pq_writer_num_leaves(pw); i++) {
		if (!inc[i]) continue;
		const pq_leaf *leaf = pq_writer_leaf(pw, i);
		const pq_stats *st = pq_writer_leaf_stats(pw, i);
		if (!st || leaf->npath < 1 || leaf->npath > MAX_DEPTH) continue;
		int vd = variant_depth(leaf, logical);
		if (vd > 0) {
			/* PROTOCOL.md: a variant column's nullCount is one number, the
			 * column's own (its required `metadata` is null exactly when
			 * the variant is); no bounds without shredding */
			if (p != PASS_NULLS || strcmp(leaf->path[vd], "metadata") != 0) continue;
			enter(w, &ns, leaf->path, vd);
			dl_jw_int(w, st->null_count);
			continue;
		}
		if (p != PASS_NULLS && !has_bounds(leaf, st)) continue;
		if (p != PASS_NULLS && (leaf->type->id == DL_TYPE_FLOAT || leaf->type->id == DL_TYPE_DOUBLE)) {
			double d = p == PASS_MIN ? st->min.d : st->max.d;
			if (d != d || d - d != 0) continue; /* no JSON form */
		}
		enter(w, &ns, leaf->path, leaf->npath);
		if (p == PASS_NULLS) dl_jw_int(w, st->null_count);
		else put_bound(w, leaf, st, p == PASS_MAX, tmp);
	}
	while (ns.depth-- > 0) dl_jw_object_end(w);
	dl_jw_object_end(w);
}

static int included(bool *inc, const pq_writer *w, const dl_type *logical,
                    const dl_table_properties *props, int n)
{
	int counted = 0;
	for (int i = n; i < pq_writer_num_leaves(w); i++) inc[i] = false; /* hidden */
	int limit = props->data_skipping_num_indexed_cols;
	dl_buf name = DL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		const pq_leaf *leaf = pq_writer_leaf(w, i);
		inc[i] = false;
		if (props->data_skipping_stats_columns) {
			int rc = logical_name(&name, leaf, logical);
			if (rc < 0) {
				dl_buf_free(&name);
				return rc;
			}
			inc[i] = !under_repeated(leaf) && listed(props->data_skipping_stats_columns, name.data);
			continue;
		}
		/* Each leaf counts toward the limit, statistics or not. */
		bool in_limit = limit < 0 || counted < limit;
		counted++;
		inc[i] = in_limit && !under_repeated(leaf);
	}
	dl_buf_free(&name);
	return 0;
}

int dl_stats_json(dl_buf *out, const pq_writer *w, const dl_type *logical,
                  const dl_table_properties *props, int nhidden)
{
	int n = pq_writer_num_leaves(w);
	bool *inc = dl_calloc((size_t)(n ? n : 1), sizeof *inc);
	if (!inc) return DL_ENOMEM;
	int rc = included(inc, w, logical, props, n - nhidden);
	dl_buf tmp = DL_BUF_INIT;
	if (rc == 0) {
		dl_json_writer jw;
		dl_jw_init(&jw, out);
		dl_jw_object_begin(&jw);
		dl_jw_key(&jw, "numRecords");
		dl_jw_int(&jw, pq_writer_num_rows(w));
		dl_jw_key(&jw, "minValues");
		write_pass(&jw, w, logical, inc, PASS_MIN, &tmp);
		dl_jw_key(&jw, "maxValues");
		write_pass(&jw, w, logical, inc, PASS_MAX, &tmp);
		dl_jw_key(&jw, "nullCount");
		write_pass(&jw, w, logical, inc, PASS_NULLS, &tmp);
		dl_jw_object_end(&jw);
		rc = dl_jw_finish(&jw);
	}
	dl_buf_free(&tmp);
	dl_free(inc);
	return rc;
}
