/* Row-group pruning: the scan's filter against each row group's footer
 * statistics (Parquet ColumnChunk min/max/null counts), after file pruning
 * by the log's statistics. Only leaves whose file type is the column's
 * logical type are used (a widened column's old file statistics would be
 * compared in the wrong type). */
#include <string.h>
#include <strings.h>
#include "log/schema.h"
#include "parquet/reader.h"
#include "table/scan.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct rg_provider {
	const dl_scan *s;
	pq_reader *r;
	int rg;
	dl_arena arena;
} rg_provider;

/* The dotted physical path of a logical column path; false when a piece
 * is not a struct field of the schema. */
static bool physical_path(rg_provider *p, const char *const *path, int depth, const dl_type **leaf,
                          dl_buf *out)
{
	const dl_type *t = dl_snapshot_schema(p->s->snap);
	for (int i = 0; i < depth; i++) {
		if (!t || t->id != DL_TYPE_STRUCT) return false;
		int k = dl_type_field_index(t, path[i]);
		if (k < 0) return false;
		const char *name = t->children[k].name;
		if (p->s->mode != DL_CM_NONE && dl_field_physical_name(&t->children[k], p->s->mode, &p->arena, &name) < 0) {
			dl_error_clear();
			return false;
		}
		if (i && dl_buf_putc(out, '.') < 0) return false;
		if (dl_buf_puts(out, name) < 0) return false;
		t = t->children[k].type;
	}
	*leaf = t;
	return true;
}

static int rg_column(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	rg_provider *p = payload;
	memset(out, 0, sizeof *out);
	if (depth == 1) {
		for (int i = 0; i < p->s->npart; i++)
			if (strcasecmp(p->s->part_names[i], path[0]) == 0) return 0; /* file pruning did it */
	}
	dl_buf b = DL_BUF_INIT;
	const dl_type *t = NULL;
	bool ok = physical_path(p, path, depth, &t, &b);
	int leaf = ok && b.data ? pq_reader_find_leaf(p->r, b.data) : -1;
	dl_buf_free(&b);
	if (leaf < 0 || !dl_type_is_primitive(t)) return 0;
	pq_column_stats cs;
	if (pq_reader_column_stats(p->r, p->rg, leaf, &cs) < 0) {
		dl_error_clear();
		return 0;
	}
	if (!cs.type || !dl_type_equals(cs.type, t)) return 0;
	if (cs.has_null_count) {
		out->has_null_count = true;
		out->null_count = cs.null_count;
		if (cs.null_count == cs.num_values && cs.num_values > 0) out->all_null = true;
	}
	if (!cs.has_min_max) return 0;
	dl_scalar *v[2] = {&out->min, &out->max};
	const pq_stat_value *sv[2] = {&cs.min, &cs.max};
	for (int k = 0; k < 2; k++) {
		dl_scalar *x = v[k];
		x->type = t->id;
		x->precision = t->precision;
		x->scale = t->scale;
		switch (t->id) {
		case DL_TYPE_BOOLEAN: x->v.b = sv[k]->b; break;
		case DL_TYPE_FLOAT:
		case DL_TYPE_DOUBLE: x->v.f64 = sv[k]->d; break;
		case DL_TYPE_DECIMAL: x->v.dec = sv[k]->dec; break;
		case DL_TYPE_STRING:
		case DL_TYPE_BINARY:
			x->v.str.ptr = (const char *)sv[k]->s;
			x->v.str.len = sv[k]->len;
			break;
		default: x->v.i64 = sv[k]->i; break;
		}
	}
	out->has_min = out->has_max = true;
	/* writers may truncate long byte-array bounds: treat max as a prefix */
	out->max_is_prefix = t->id == DL_TYPE_STRING || t->id == DL_TYPE_BINARY;
	return 0;
}

int dl_scan_prune_row_groups(const dl_scan *s, pq_reader *r)
{
	int n = pq_reader_num_row_groups(r);
	if (n <= 0 || !s->prune) return 0;
	int *keep = dl_calloc((size_t)n, sizeof *keep);
	if (!keep) return DL_ENOMEM;
	rg_provider p = {s, r, 0, DL_ARENA_INIT};
	int nk = 0, rc = 0;
	for (int rg = 0; rg < n && rc == 0; rg++) {
		p.rg = rg;
		dl_stats_provider sp = {pq_reader_row_group_rows(r, rg), rg_column, &p};
		bool may = true;
		rc = dl_expr_may_match(&may, s->prune, &sp);
		if (may) keep[nk++] = rg;
		dl_arena_reset(&p.arena);
	}
	if (rc == 0 && nk < n) {
		/* an empty list would mean "all": keep none by selecting nothing */
		if (nk == 0) rc = 1;
		else rc = pq_reader_set_row_groups(r, keep, nk);
	}
	dl_arena_free(&p.arena);
	dl_free(keep);
	return rc; /* 1: no row group can match */
}
