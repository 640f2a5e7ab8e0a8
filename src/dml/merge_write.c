/* MERGE's write side: the target rows the clauses act on go to the rewrite
 * engine by file and position (deletion vectors or copy-on-write; row ids
 * kept, change data written), whose callback computes each updated row from
 * its clause's assignments (unassigned columns keep their value, generated
 * columns not assigned are recomputed, NOT NULL / CHECK enforced) and drops
 * the deleted ones; inserted rows are appended through the write path
 * (dl_ops_write_into: every rule of an append). Schema evolution adds the
 * source's new top-level columns and nested struct fields (merge_nested.c),
 * as Spark's MERGE WITH SCHEMA EVOLUTION, and with delta.enableTypeWidening
 * widens the written columns' types to the source's; on column-mapping tables they get
 * their ids and physical names before anything is written. */
#include "dml/merge_capture.h"
#include "dml/merge_internal.h"
#include "dml/merge_nested.h"
#include "dml/merge_recs.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "exec/spill.h"
#include "json/json.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "log/table_features.h"
#include "ops/column_mapping.h"
#include "ops/type_change_deps.h"
#include "ops/type_change_meta.h"
#include "ops/write.h"
#include "rewrite/change_data.h"
#include "rewrite/conform.h"
#include "rewrite/file_writer.h"
#include "table/scan.h"
#include "uniform/iceberg_nested_ids.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

/* ---- schema evolution ---- */

static bool star_clauses(const dl_merge *m)
{
	for (int i = 0; i < m->ncl; i++)
		if (m->cl[i].action == MG_UPDATE_ALL || m->cl[i].action == MG_INSERT_ALL) return true;
	return false;
}

static bool nested_type(const dl_type *t)
{
	return t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP;
}

static bool assigned_by_name(const dl_merge *m, const char *name)
{
	size_t al = m->talias ? strlen(m->talias) : 0;
	for (int i = 0; i < m->ncl; i++)
		for (int k = 0; k < m->cl[i].n; k++) {
			const char *c = m->cl[i].cols[k];
			if (al && strncasecmp(c, m->talias, al) == 0 && c[al] == '.') c += al + 1;
			if (strcasecmp(c, name) == 0) return true;
		}
	return false;
}

/* Spark's findNullTypeColumn: the first VOID column or struct field (dotted
 * path in SQL-quoted parts), not looking into arrays and maps, whose VOID
 * the data-file writer refuses on its own. */
static int find_void(const dl_type *t, dl_buf *path)
{
	for (int i = 0; t->id == DL_TYPE_STRUCT && i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		if (f->type->id != DL_TYPE_NULL && f->type->id != DL_TYPE_STRUCT) continue;
		size_t len = path->len;
		if ((len && dl_buf_putc(path, '.') < 0) || dl_buf_printf(path, "`%s`", f->name) < 0) return DL_ENOMEM;
		int r = f->type->id == DL_TYPE_NULL ? 1 : find_void(f->type, path);
		if (r != 0) return r;
		path->len = len;
	}
	return 0;
}

/* A MERGE with schema evolution never puts a VOID column in the log: Spark
 * refuses it (MergeIntoCommand; its suite's "void columns are not
 * allowed"), as a column of no type cannot be evolved further. */
static int refuse_void(const dl_type *schema)
{
	dl_buf path = DL_BUF_INIT;
	int rc = find_void(schema, &path);
	if (rc > 0)
		rc = dl_error_set_class(DL_ESCHEMA, "DELTA_MERGE_ADD_VOID_COLUMN",
		                        "[DELTA_MERGE_ADD_VOID_COLUMN] Cannot add column %.*s with type VOID. "
		                        "Please explicitly specify a non-void type.",
		                        (int)path.len, path.data);
	dl_buf_free(&path);
	return rc;
}

int dl_mg_evolve_schema(mg_exec *x)
{
	int extra = 0;
	bool nested = false;
	dl_field *f = dl_calloc((size_t)(x->nt + x->ns) + 1, sizeof *f);
	dl_type **merged = dl_calloc((size_t)(x->nt + x->ns) + 1, sizeof *merged);
	if (!f || !merged) {
		dl_free(f);
		dl_free(merged);
		return DL_ENOMEM;
	}
	int rc = 0;
	for (int i = 0; i < x->nt; i++) {
		f[i] = x->tschema->children[i];
		int j = x->m->evolve ? dl_type_field_index(x->sschema, f[i].name) : -1;
		if (j < 0 || !(x->widen || nested_type(f[i].type) || nested_type(x->sschema->children[j].type)))
			continue;
		/* the source's new nested fields join the target's struct (inside
		 * arrays and maps too) */
		char *path[32] = {f[i].name};
		rc = dl_mg_evolve_type(x, f[i].type, x->sschema->children[j].type, path, 1, &merged[i]);
		if (rc < 0) break;
		nested |= !dl_type_equals(merged[i], f[i].type);
		f[i].type = merged[i];
	}
	if (rc == 0 && x->m->evolve) {
		bool star = star_clauses(x->m);
		for (int j = 0; j < x->ns; j++) {
			const dl_field *s = &x->sschema->children[j];
			if (dl_type_field_index(x->tschema, s->name) >= 0) continue;
			bool dup = false;
			for (int i = 0; i < x->nt; i++) dup |= strcasecmp(x->tschema->children[i].name, s->name) == 0;
			if (dup) continue;
			dl_type *only = NULL;
			if (!star && !assigned_by_name(x->m, s->name)) {
				/* a new struct column that assignments to its fields name
				 * joins with just those fields (Spark's filterSchema) */
				if (s->type->id != DL_TYPE_STRUCT) continue;
				dl_type *none = dl_type_struct(s, 0);
				char *path[32] = {s->name};
				rc = none ? dl_mg_evolve_type(x, none, s->type, path, 1, &only) : dl_error_last()->code;
				dl_type_unref(none);
				if (rc < 0) break;
				if (only->nchildren == 0) {
					dl_type_unref(only);
					continue;
				}
			}
			f[x->nt + extra] = *s;
			if (only) f[x->nt + extra].type = merged[x->nt + extra] = only;
			f[x->nt + extra].nullable = true;
			f[x->nt + extra].metadata = (char *)"{}";
			extra++;
		}
	}
	if (rc == 0 && !(x->wschema = dl_type_struct(f, x->nt + extra))) rc = dl_error_last()->code;
	if (rc == 0 && x->m->evolve) rc = refuse_void(x->wschema);
	if (rc == 0 && nested && x->widen) {
		/* the widened columns and fields get their delta.typeChanges */
		dl_type *rec = NULL;
		rc = dl_type_changes_record(&rec, x->tschema, x->wschema);
		/* not under a CHECK constraint or a generated column */
		if (rc == 0) rc = dl_type_changes_check_dependents(x->tschema, rec, &x->config);
		if (rc < 0) dl_type_unref(rec);
		if (rc == 0) {
			dl_type_unref(x->wschema);
			x->wschema = rec;
		}
	}
	if (rc == 0 && (extra || nested) && x->props.column_mapping_mode != DL_CM_NONE) {
		/* new columns and nested fields get ids and physical names now, as
		 * ALTER TABLE ADD COLUMNS gives them: the rewritten files and the
		 * inserts are written with them, and the commit's schema is this */
		int64_t max_id = x->props.column_mapping_max_id;
		dl_type *mapped;
		rc = dl_cm_assign(&mapped, x->wschema, &max_id);
		if (rc == 0) {
			dl_type_unref(x->wschema);
			x->wschema = mapped;
		}
		/* and under IcebergCompatV2 new arrays and maps their nested ids,
		 * which the rewritten files carry as Parquet field ids (the
		 * commit's metaData keeps them, maxColumnId raised past them) */
		if (rc == 0 && dl_ice_compat_v2_enabled(&x->config)) {
			bool nchanged;
			rc = dl_ice_assign_nested_ids(&mapped, x->wschema, &max_id, &nchanged);
			if (rc == 0) {
				dl_type_unref(x->wschema);
				x->wschema = mapped;
			}
		}
	}
	for (int i = 0; i < x->nt + extra; i++) dl_type_unref(merged[i]);
	dl_free(merged);
	dl_free(f);
	if (rc < 0) return rc;
	x->nw = x->nt + extra;
	x->schema_changed = extra > 0 || nested;
	return 0;
}

/* ---- updated and deleted rows (the rewrite engine's callback) ---- */

/* The canonical rows of the matched target rows: their columns (borrowed
 * from m->rows) and their source rows. */
static int canonical_rows(mg_exec *x, const dl_batch *rows, const dl_batch *cap, const int64_t *crow, int64_t n,
                          dl_batch **out, bool *borrowed)
{
	int nc = x->nt + 2 + x->ns + 1;
	dl_batch *V = dl_batch_new(x->canon, n);
	if (!V) return dl_error_last()->code;
	uint32_t *idx = dl_calloc((size_t)n + 1, sizeof *idx);
	int rc = idx ? 0 : DL_ENOMEM;
	/* rows without captured source columns (deleted rows, NOT MATCHED BY
	 * SOURCE updates, whose values cannot name the source) take row 0:
	 * nothing reads their source columns */
	for (int64_t i = 0; rc == 0 && i < n; i++) idx[i] = crow[i] < 0 ? 0 : (uint32_t)crow[i];
	for (int i = 0; rc == 0 && i < nc; i++) {
		borrowed[i] = false;
		if (i < x->nt) {
			V->cols[i] = rows->cols[i];
			borrowed[i] = true;
		} else if (i < x->nt + 2 || i == nc - 1) {
			V->cols[i] = dl_array_new_null(x->canon->children[i].type, n);
		} else {
			V->cols[i] = cap ? dl_array_take(cap->cols[i - x->nt - 2], idx, n)
			                 : dl_array_new_null(x->canon->children[i].type, n);
		}
		if (!V->cols[i]) rc = dl_error_last()->code;
	}
	dl_free(idx);
	if (rc < 0) {
		for (int i = 0; i < nc; i++)
			if (borrowed[i]) V->cols[i] = NULL;
		dl_batch_free(V);
		return rc;
	}
	*out = V;
	return 0;
}

static void free_canonical(mg_exec *x, dl_batch *V, const bool *borrowed)
{
	if (!V) return;
	for (int i = 0; i < x->nt + 3 + x->ns; i++)
		if (borrowed[i]) V->cols[i] = NULL;
	dl_batch_free(V);
}

/* One group's values of written column w. */
static int group_column(mg_exec *x, const mg_clause *c, int w, const dl_batch *Vg, dl_array **out)
{
	if (c && c->set && c->set[w]) return dl_expr_eval(out, c->set[w], Vg, NULL);
	dl_type *to = x->wschema->children[w].type;
	/* the dropped rows' struct gained nested fields: the old value in the
	 * new type, as every group's part is concatenated */
	if (w < x->nt && !dl_type_equals(Vg->cols[w]->type, to)) return dl_array_conform(out, Vg->cols[w], to);
	if (w < x->nt) *out = dl_array_slice(Vg->cols[w], 0, Vg->num_rows);
	else *out = dl_array_new_null(to, Vg->num_rows);
	return *out ? 0 : dl_error_last()->code;
}

static int update_rows(dl_batch **out, const dl_rewrite_matched *mm, void *payload)
{
	mg_exec *x = payload;
	*out = NULL;
	size_t f = 0;
	while (f < x->nfiles && x->files[f] != mm->file && strcmp(x->files[f]->path, mm->file->path) != 0) f++;
	if (f == x->nfiles) return dl_error_set(DL_EINVALID, "merge: %s is not a file it touched", mm->file->path);
	int64_t n = mm->rows->num_rows;
	int ng = x->m->ncl + 1; /* one group per clause, the last for dropped rows */
	int64_t *srow = dl_calloc((size_t)n + 1, sizeof *srow);
	int32_t *grp = dl_calloc((size_t)n + 1, sizeof *grp);
	int64_t *cnt = dl_calloc((size_t)ng + 1, sizeof *cnt);
	uint32_t *order = dl_calloc((size_t)n + 1, sizeof *order), *inv = dl_calloc((size_t)n + 1, sizeof *inv);
	int rc = srow && grp && cnt && order && inv ? 0 : DL_ENOMEM;
	int64_t consumed = 0;
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		mg_rec r;
		bool found;
		rc = dl_mg_recs_find(x, f, mm->positions[i], &r, &found);
		if (rc == 0 && !found)
			rc = dl_error_set(DL_EINVALID, "merge: row %llu of %s was not matched",
			                  (unsigned long long)mm->positions[i], mm->file->path);
		if (rc < 0) break;
		srow[i] = r.crow;
		consumed += r.crow >= 0;
		bool del = x->m->cl[r.clause].action == MG_DELETE;
		grp[i] = del ? ng - 1 : r.clause;
		mm->drop[i] = del;
		cnt[grp[i]]++;
	}
	/* rows ordered by group: order[] lists them, inv[] maps back */
	int64_t *start = dl_calloc((size_t)ng + 1, sizeof *start);
	if (rc == 0 && !start) rc = DL_ENOMEM;
	for (int g = 1; rc == 0 && g < ng; g++) start[g] = start[g - 1] + cnt[g - 1];
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		int64_t p = start[grp[i]]++;
		order[p] = (uint32_t)i;
		inv[i] = (uint32_t)p;
	}
	bool *borrowed = dl_calloc((size_t)(x->nt + x->ns + 3), sizeof *borrowed);
	dl_batch *V = NULL, *o = NULL;
	if (rc == 0 && !borrowed) rc = DL_ENOMEM;
	dl_batch *cap = NULL;
	if (rc == 0) rc = dl_mg_capture_get(x, f, consumed, &cap);
	if (rc == 0) rc = canonical_rows(x, mm->rows, cap, srow, n, &V, borrowed);
	if (rc == 0 && !(o = dl_batch_new(x->wschema, n))) rc = dl_error_last()->code;
	dl_batch **Vg = rc == 0 ? dl_calloc((size_t)ng, sizeof *Vg) : NULL;
	if (rc == 0 && !Vg) rc = DL_ENOMEM;
	for (int g = 0, off = 0; rc == 0 && g < ng; off += (int)cnt[g], g++)
		if (cnt[g] && !(Vg[g] = dl_batch_take(V, order + off, cnt[g]))) rc = dl_error_last()->code;
	dl_array **parts = rc == 0 ? dl_calloc((size_t)ng, sizeof *parts) : NULL;
	if (rc == 0 && !parts) rc = DL_ENOMEM;
	for (int w = 0; rc == 0 && w < x->nw; w++) {
		int np = 0;
		for (int g = 0; rc == 0 && g < ng; g++) {
			if (!cnt[g]) continue;
			rc = group_column(x, g < ng - 1 ? &x->m->cl[g] : NULL, w, Vg[g], &parts[np]);
			if (rc == 0) np++;
		}
		dl_array *all = NULL;
		if (rc == 0) all = np == 1 ? parts[0] : dl_array_concat(parts, np);
		if (rc == 0 && !all) rc = dl_error_last()->code;
		if (rc == 0) o->cols[w] = dl_array_take(all, inv, n);
		if (rc == 0 && !o->cols[w]) rc = dl_error_last()->code;
		if (all && np != 1) dl_array_free(all);
		for (int k = 0; k < np; k++) dl_array_free(parts[k]);
	}
	if (rc == 0) {
		bool *provided = dl_calloc((size_t)x->nw + 1, sizeof *provided);
		if (!provided) rc = DL_ENOMEM;
		for (int w = 0; rc == 0 && w < x->nw; w++) provided[w] = !x->gen_recompute[w];
		pthread_mutex_lock(&x->enf_lock);
		if (rc == 0) rc = dl_enforcer_fill(x->enf, o, provided);
		/* identity columns keep their values (never assigned: resolve
		 * refuses it), which are not explicit values to check */
		for (int w = 0; rc == 0 && w < x->nw; w++)
			if (x->wschema->children[w].metadata && strstr(x->wschema->children[w].metadata, "delta.identity."))
				provided[w] = false;
		if (rc == 0) rc = dl_enforcer_check(x->enf, o, provided);
		pthread_mutex_unlock(&x->enf_lock);
		dl_free(provided);
	}
	for (int g = 0; Vg && g < ng; g++) dl_batch_free(Vg[g]);
	dl_free(Vg);
	dl_free(parts);
	free_canonical(x, V, borrowed);
	if (cap) dl_mg_capture_done(x, f);
	dl_free(borrowed);
	dl_free(start);
	dl_free(srow);
	dl_free(grp);
	dl_free(cnt);
	dl_free(order);
	dl_free(inv);
	if (rc < 0) {
		dl_batch_free(o);
		return rc;
	}
	*out = o;
	return 0;
}

/* ---- inserts ---- */

static int row_id_high_water_mark(mg_exec *x, int64_t *hwm)
{
	*hwm = -1;
	const char *conf = dl_snapshot_domain(x->snap, "delta.rowTracking");
	if (!conf) return 0;
	dl_json *v;
	if (dl_json_parse(&x->arena, conf, strlen(conf), "delta.rowTracking domain", &v) < 0)
		return dl_error_set(DL_ECORRUPT, "the delta.rowTracking domain is not JSON: %s", conf);
	const dl_json *m = dl_json_get(v, "rowIdHighWaterMark");
	if (m && dl_json_int64(m, hwm) < 0)
		return dl_error_set(DL_ECORRUPT, "rowIdHighWaterMark is not an integer: %s", conf);
	return 0;
}

/* The columns the inserts write: those some INSERT clause gives, and the
 * evolved ones (so the write evolves the schema to exactly wschema). */
static int union_schema(mg_exec *x, dl_type **out, bool *given)
{
	dl_field *f = dl_calloc((size_t)x->nw + 1, sizeof *f);
	if (!f) return DL_ENOMEM;
	int n = 0;
	for (int w = 0; w < x->nw; w++) {
		/* new columns, and columns whose struct gained nested fields */
		given[w] = w >= x->nt || !dl_type_equals(x->tschema->children[w].type, x->wschema->children[w].type);
		for (int k = 0; k < x->m->ncl; k++)
			if (x->m->cl[k].kind == MG_NOT_MATCHED && x->m->cl[k].set && x->m->cl[k].set[w]) given[w] = true;
		if (given[w]) f[n++] = x->wschema->children[w];
	}
	*out = dl_type_struct(f, n);
	dl_free(f);
	return *out ? 0 : dl_error_last()->code;
}

/* Columns some INSERT clause gives are written as given by every clause
 * (the write fills only the columns no clause gives). So a column clause
 * k leaves out takes here what the write would have given it, as Spark's
 * per-clause insert does: its DEFAULT, or its generated value computed
 * from the row (the enforcer's fill over the row as clause k gives it),
 * else NULL. *full: the clause's rows in the table's columns, with every
 * column it leaves out filled; NULL when it leaves none of the given
 * columns out. An IDENTITY column left out where another clause gives
 * values is refused: its values come from the high-water mark, which only
 * the write advances. */
static int fill_left_out(mg_exec *x, int k, const dl_batch *b, const bool *given, dl_batch **full)
{
	*full = NULL;
	dl_expr *const *set = x->m->cl[k].set;
	bool any = false;
	for (int w = 0; w < x->nw; w++) {
		if (!given[w] || (set && set[w])) continue;
		const dl_field *f = &x->wschema->children[w];
		dl_identity_info id;
		DL_TRY(dl_field_identity(f, &id));
		if (id.is_identity)
			return dl_error_set(DL_EUNSUPPORTED,
			                    "MERGE: the IDENTITY column %s is given by one INSERT clause and left out by "
			                    "another, which is not supported yet; give it in every INSERT clause or in none",
			                    f->name);
		any = true;
	}
	if (!any) return 0;
	if (!x->ins_enf) DL_TRY(dl_enforcer_new(&x->ins_enf, x->wschema, &x->config));
	dl_batch *o = dl_batch_new(x->wschema, b->num_rows);
	bool *provided = dl_calloc((size_t)x->nw + 1, sizeof *provided);
	int rc = o && provided ? 0 : DL_ENOMEM;
	for (int w = 0, bj = 0; rc == 0 && w < x->nw; w++) {
		dl_identity_info id;
		rc = dl_field_identity(&x->wschema->children[w], &id);
		if (rc < 0) break;
		bool has = set && set[w];
		/* identity columns no clause gives are numbered by the write */
		provided[w] = has || id.is_identity;
		o->cols[w] = has ? dl_array_slice(b->cols[bj++], 0, b->num_rows)
		                 : dl_array_new_null(x->wschema->children[w].type, b->num_rows);
		if (!o->cols[w]) rc = dl_error_last()->code;
	}
	if (rc == 0) rc = dl_enforcer_fill(x->ins_enf, o, provided);
	dl_free(provided);
	if (rc < 0) {
		dl_batch_free(o);
		return rc;
	}
	*full = o;
	return 0;
}

static int conform_insert(mg_exec *x, int k, dl_batch *b, const dl_type *us, const bool *given, dl_batch **out)
{
	dl_batch *full;
	DL_TRY(fill_left_out(x, k, b, given, &full));
	dl_batch *o = dl_batch_new((dl_type *)us, b->num_rows);
	if (!o) {
		dl_batch_free(full);
		return dl_error_last()->code;
	}
	int j = 0, bj = 0, rc = 0;
	for (int w = 0; w < x->nw && rc == 0; w++) {
		bool has = x->m->cl[k].set && x->m->cl[k].set[w];
		if (given[w]) {
			if (has) {
				o->cols[j] = b->cols[bj];
				b->cols[bj] = NULL;
			} else if (full) {
				o->cols[j] = full->cols[w];
				full->cols[w] = NULL;
			} else if (!(o->cols[j] = dl_array_new_null(x->wschema->children[w].type, b->num_rows))) {
				rc = dl_error_last()->code;
			}
			j++;
		}
		if (has) bj++;
	}
	dl_batch_free(full);
	if (rc < 0) {
		dl_batch_free(o);
		return rc;
	}
	*out = o;
	return 0;
}

typedef struct cdc_ctx {
	mg_exec *x;
	dl_change_writer *w;
} cdc_ctx;

static int cdc_insert(void *payload, dl_batch *b)
{
	cdc_ctx *c = payload;
	int rc = dl_change_writer_write(c->w, b, "insert");
	dl_batch_free(b);
	return rc;
}

/* Change data of the inserted rows, when the commit carries change data
 * (readers then take its cdc files instead of its adds). */
static int insert_change_data(mg_exec *x, dl_batch **batches, int nb, struct dl_spill_file *spill)
{
	DL_TRY(dl_change_writer_open(&x->cdc, x->store, x->wschema,
	                             (const char *const *)dl_snapshot_state(x->snap)->metadata->partition_columns,
	                             (int)dl_snapshot_state(x->snap)->metadata->npartition_columns, &x->props));
	int rc = 0;
	if (!x->schema_changed && x->ninsert_files) {
		/* the rows as written (generated, default and identity values filled) */
		const char **cols = dl_calloc((size_t)x->nt + 1, sizeof *cols);
		if (!cols) return DL_ENOMEM;
		for (int i = 0; i < x->nt; i++) cols[i] = x->tschema->children[i].name;
		dl_scan_options so = DL_SCAN_OPTIONS_INIT;
		so.columns = cols;
		so.ncolumns = x->nt;
		so.threads = 1;
		dl_scan *reader;
		rc = dl_scan_open(&reader, x->snap, &so);
		dl_free(cols);
		cdc_ctx c = {x, x->cdc};
		for (size_t i = 0; rc == 0 && i < dl_files_writer_count(x->insert_files[0]); i++)
			rc = dl_scan_read_add(reader, dl_files_writer_add(x->insert_files[0], i), NULL, 0, false,
			                      cdc_insert, &c);
		if (rc == 0 || reader) dl_scan_free(reader);
	} else {
		/* the rows as given: in memory, or read back from their spill file */
		if (spill) rc = dl_spill_rewind(spill);
		for (int i = 0; rc == 0 && (spill || i < nb); i++) {
			dl_batch *in = NULL;
			if (spill) {
				rc = dl_spill_read(spill, &in);
				if (rc < 0 || !in) break;
			}
			const dl_batch *src = spill ? in : batches[i];
			dl_batch *b = dl_batch_new(x->wschema, src->num_rows);
			if (!b) rc = dl_error_last()->code;
			const dl_type *us = src->schema;
			for (int w = 0; w < x->nw && rc == 0; w++) {
				int k = dl_type_field_index(us, x->wschema->children[w].name);
				b->cols[w] = k >= 0 ? dl_array_slice(src->cols[k], 0, b->num_rows)
				                    : dl_array_new_null(x->wschema->children[w].type, b->num_rows);
				if (!b->cols[w]) rc = dl_error_last()->code;
			}
			if (rc == 0) rc = dl_change_writer_write(x->cdc, b, "insert");
			dl_batch_free(b);
			dl_batch_free(in);
		}
	}
	if (rc == 0) rc = dl_change_writer_finish(x->cdc);
	if (rc == 0) rc = dl_change_writer_commit(x->cdc, x->txn);
	return rc;
}

static bool keeps_cdc(const mg_exec *x)
{
	return x->props.enable_change_data_feed && x->schema_changed;
}

static int inserts_begin(mg_exec *x)
{
	x->ins_ready = true;
	x->ins_given = dl_calloc((size_t)x->nw + 1, sizeof *x->ins_given);
	if (!x->ins_given) return DL_ENOMEM;
	return union_schema(x, &x->ins_us, x->ins_given);
}

static int ins_spill_open(mg_exec *x, struct dl_spill_file **f)
{
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &x->mem;
	ctx.temp_dir = x->m->o.temp_dir;
	return dl_spill_open(f, &ctx, x->ins_us, "merge inserted rows");
}

static int ins_spill_write(mg_exec *x, const dl_batch *b)
{
	DL_TRY(dl_spill_write(x->ins_spill, b));
	return x->ins_spill_cdc ? dl_spill_write(x->ins_spill_cdc, b) : 0;
}

/* The budget is used up: the held rows go to the spill file(s). */
static int spill_inserts(mg_exec *x)
{
	DL_TRY(ins_spill_open(x, &x->ins_spill));
	if (keeps_cdc(x)) DL_TRY(ins_spill_open(x, &x->ins_spill_cdc));
	for (int i = 0; i < x->ninsb; i++) {
		DL_TRY(ins_spill_write(x, x->insb[i]));
		dl_batch_free(x->insb[i]);
		x->insb[i] = NULL;
	}
	x->ninsb = 0;
	dl_exec_mem_release(&x->mem, x->ins_charged);
	x->ins_charged = 0;
	return 0;
}

/* The row sets of the target reader and the rewrite engine (an old DV's
 * rows, the touched positions, the rows deleted now: about a bit a row at
 * most) are charged to the budget too. Over it the inserted rows held in
 * memory go to their spill file first (nothing reads them before the
 * rewrite is done, and nothing adds to them after the join); with nothing
 * left to spill the merge fails with the budget's error rather than exceed
 * it. Called from the rewrite's pool threads at once. */
static int charge_row_sets(void *payload, int64_t bytes)
{
	mg_exec *x = payload;
	static const char what[] = "merge row positions (touched rows, deletion vectors)";
	if (bytes < 0) {
		dl_exec_mem_release(&x->mem, -bytes);
		return 0;
	}
	if (dl_exec_mem_charge(&x->mem, bytes, what) == 0) return 0;
	pthread_mutex_lock(&x->rs_lock);
	int rc = 0;
	if (x->ninsb && !x->ins_spill) {
		dl_error_clear();
		rc = spill_inserts(x);
	}
	if (rc == 0) rc = dl_exec_mem_charge(&x->mem, bytes, what);
	pthread_mutex_unlock(&x->rs_lock);
	return rc;
}

int dl_mg_row_sets_budget(mg_exec *x)
{
	if (pthread_mutex_init(&x->rs_lock, NULL) != 0) return dl_error_set(DL_EIO, "mutex");
	x->rs_lock_init = true;
	x->rs_budget = (dl_rowset_budget){charge_row_sets, x};
	return 0;
}

void dl_mg_row_sets_done(mg_exec *x)
{
	if (x->rs_lock_init) pthread_mutex_destroy(&x->rs_lock);
	x->rs_lock_init = false;
}

int dl_mg_insert_add(mg_exec *x, int k, dl_batch *b)
{
	int rc = x->ins_ready ? 0 : inserts_begin(x);
	dl_batch *o = NULL;
	if (rc == 0) rc = conform_insert(x, k, b, x->ins_us, x->ins_given, &o);
	dl_batch_free(b);
	if (rc < 0) return rc;
	x->ins_rows += o->num_rows;
	int64_t bytes = dl_batch_bytes(o);
	if (!x->ins_spill && dl_exec_mem_charge(&x->mem, bytes, "merge inserted rows") != 0) rc = spill_inserts(x);
	if (rc == 0 && x->ins_spill) {
		rc = ins_spill_write(x, o);
		dl_batch_free(o);
		return rc;
	}
	if (rc == 0 && x->ninsb == x->capinsb) {
		int nc = x->capinsb ? x->capinsb * 2 : 16;
		dl_batch **nb = dl_reallocarray(x->insb, (size_t)nc, sizeof *nb);
		if (!nb) rc = DL_ENOMEM;
		else {
			x->insb = nb;
			x->capinsb = nc;
		}
	}
	if (rc < 0) {
		dl_exec_mem_release(&x->mem, bytes);
		dl_batch_free(o);
		return rc;
	}
	x->insb[x->ninsb++] = o;
	x->ins_charged += bytes;
	return 0;
}

void dl_mg_inserts_free(mg_exec *x)
{
	for (int i = 0; i < x->ninsb; i++) dl_batch_free(x->insb[i]);
	dl_free(x->insb);
	dl_exec_mem_release(&x->mem, x->ins_charged);
	dl_spill_free(x->ins_spill);
	dl_spill_free(x->ins_spill_cdc);
	dl_type_unref(x->ins_us);
	dl_free(x->ins_given);
	dl_enforcer_free(x->ins_enf);
}

static int write_inserts(mg_exec *x, bool cdf)
{
	if (!x->ins_rows && !x->schema_changed) return 0;
	int rc = x->ins_ready ? 0 : inserts_begin(x);
	int n = x->ninsb;
	/* the evolved schema must match what the write derives: keep the
	 * batches for the change data before the stream takes them */
	dl_batch **keep = NULL;
	if (rc == 0 && cdf && x->schema_changed && !x->ins_spill) {
		keep = dl_calloc((size_t)n + 1, sizeof *keep);
		if (!keep) rc = DL_ENOMEM;
		for (int i = 0; rc == 0 && i < n; i++)
			if (!(keep[i] = dl_batch_slice(x->insb[i], 0, x->insb[i]->num_rows))) rc = dl_error_last()->code;
	}
	dl_batch_stream *s = NULL;
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	ctx.mem = &x->mem;
	ctx.temp_dir = x->m->o.temp_dir;
	if (rc == 0 && x->ins_spill) {
		rc = dl_spill_stream(&s, x->ins_spill, &ctx);
		x->ins_spill = NULL;
	} else if (rc == 0) {
		rc = dl_batch_stream_from_batches(&s, x->ins_us, x->insb, n);
		dl_free(x->insb);
		x->insb = NULL;
		x->ninsb = x->capinsb = 0;
		/* the writer charges what it holds itself */
		dl_exec_mem_release(&x->mem, x->ins_charged);
		x->ins_charged = 0;
	}
	x->insert_files = rc == 0 ? dl_calloc(1, sizeof *x->insert_files) : NULL;
	if (rc == 0 && !x->insert_files) rc = DL_ENOMEM;
	if (rc == 0) {
		dl_write_options wo = DL_WRITE_OPTIONS_INIT;
		wo.mode = DL_WRITE_APPEND;
		wo.merge_schema = x->schema_changed;
		bool joined = false;
		/* the commit's schema is the evolved one: under column mapping it
		 * carries the ids the rewritten files were written with, and the
		 * widenings their delta.typeChanges */
		rc = dl_ops_write_into_schema(&x->insert_files[0], &x->row_hwm, &joined, x->txn, s, &wo,
		                              x->schema_changed ? x->wschema : NULL);
		if (rc == 0) x->ninsert_files = 1;
	}
	dl_batch_stream_free(s);
	if (rc == 0 && cdf) {
		rc = insert_change_data(x, keep, keep ? n : 0, x->schema_changed ? x->ins_spill_cdc : NULL);
	}
	for (int i = 0; keep && i < n; i++) dl_batch_free(keep[i]);
	dl_free(keep);
	return rc;
}

/* ---- driver ---- */

static bool is_generated(const dl_field *f)
{
	return f->metadata && strstr(f->metadata, "delta.generationExpression");
}

static int open_enforcer(mg_exec *x)
{
	DL_TRY(dl_enforcer_new(&x->enf, x->wschema, &x->config));
	if (pthread_mutex_init(&x->enf_lock, NULL) != 0) return dl_error_set(DL_EIO, "mutex");
	x->lock_init = true;
	if (pthread_mutex_init(&x->cap_lock, NULL) != 0) return dl_error_set(DL_EIO, "mutex");
	x->cap_lock_init = true;
	x->gen_recompute = dl_calloc((size_t)x->nw + 1, sizeof *x->gen_recompute);
	if (!x->gen_recompute) return DL_ENOMEM;
	for (int w = 0; w < x->nw; w++) {
		if (!is_generated(&x->wschema->children[w])) continue;
		bool assigned = false;
		for (int k = 0; k < x->m->ncl; k++)
			if (x->m->cl[k].kind != MG_NOT_MATCHED && x->m->cl[k].set && x->m->cl[k].set[w]) assigned = true;
		x->gen_recompute[w] = !assigned;
	}
	return 0;
}

int dl_mg_write(mg_exec *x)
{
	/* each clause's rows were counted by dl_mg_recs_check */
	bool touched = false;
	for (size_t f = 0; f < x->nfiles; f++) touched |= x->recs[f].n > 0;
	bool tracked = dl_protocol_has(dl_snapshot_state(x->snap)->protocol, DL_FEATURE_ROW_TRACKING);
	if (tracked) DL_TRY(row_id_high_water_mark(x, &x->row_hwm));
	else x->row_hwm = DL_NONE;
	int64_t hwm0 = x->row_hwm;
	int64_t t0 = dl_monotonic_ns();
	bool cdf = false;
	if (touched) {
		DL_TRY(open_enforcer(x));
		dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
		ro.txn = x->txn;
		ro.schema = x->wschema;
		ro.configuration = &x->config;
		ro.now_ms = dl_now_millis();
		ro.update = update_rows;
		ro.update_payload = x;
		ro.budget = &x->rs_budget;
		DL_TRY(dl_rewrite_new(&x->rw, &ro));
		for (size_t f = 0; f < x->nfiles; f++) {
			if (x->recs[f].n) DL_TRY(dl_mg_recs_touch(x, f, x->rw));
		}
		DL_TRY(dl_rewrite_run(x->rw));
		cdf = dl_rewrite_wrote_change_data(x->rw);
		int64_t h = tracked ? x->row_hwm : -1;
		DL_TRY(dl_rewrite_commit(x->rw, tracked ? &h : NULL));
		if (tracked) x->row_hwm = h;
	}
	DL_TRY(write_inserts(x, cdf));
	if (tracked && x->row_hwm != hwm0) {
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)x->row_hwm);
		DL_TRY(dl_txn_set_domain(x->txn, "delta.rowTracking", conf, false));
	}
	x->rewrite_ns = dl_monotonic_ns() - t0;
	return 0;
}

void dl_mg_discard(mg_exec *x)
{
	if (x->rw) dl_rewrite_discard(x->rw);
	for (int i = 0; i < x->ninsert_files; i++)
		if (x->insert_files[i]) dl_files_writer_discard(x->insert_files[i]);
	if (x->cdc) dl_change_writer_discard(x->cdc);
}
