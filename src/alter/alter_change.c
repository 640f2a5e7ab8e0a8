/* ALTER TABLE ALTER | CHANGE COLUMN and RENAME COLUMN as Spark's
 * AlterTableChangeColumnDeltaCommand (verifyColumnChange,
 * verifyMapArrayChange): the column keeps its metadata (column mapping id
 * and physical name above all) and gets the changes asked for. A rename
 * needs column mapping; a type change is only a typeWidening widening,
 * recorded in delta.typeChanges of the nearest struct field; SET NOT NULL
 * reads the table first; SYNC IDENTITY sets the identity high water mark
 * from the data. No data file is rewritten. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/alter_columns_internal.h"
#include "deltalake/arrow.h"
#include "deltalake/scan.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "ops/type_change_meta.h"
#include "rewrite/conform.h"
#include "util/error.h"
#include "util/mem.h"

/* ---- the change ---- */

typedef struct change_ctx {
	dl_alter_txn *a;
	const dl_column_change *ch;
	se_path path;          /* the column */
	dl_type *new_type;     /* parsed TYPE, or NULL */
	bool widened;          /* a type widening to record */
	const dl_type *old_type;
	dl_field result;       /* the changed struct field (for parameters) */
	char *result_meta;
	int64_t hwm;           /* SYNC IDENTITY: the new high water mark */
	bool hwm_set;
} change_ctx;

static void path_text(dl_buf *b, const se_path *p, int n)
{
	dl_field_path_text(b, (const char *const *)p->parts, n);
}

static int change_refused(change_ctx *c, const dl_type *old, bool old_null, const dl_type *neu,
                          bool new_null)
{
	dl_buf b = DL_BUF_INIT;
	path_text(&b, &c->path, c->path.n);
	char ot[160], nt[160];
	dl_type_sql(old, ot, sizeof ot);
	dl_type_sql(neu, nt, sizeof nt);
	int rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP",
	                            "ALTER TABLE CHANGE COLUMN is not supported for changing column %s "
	                            "from %s%s to %s%s",
	                            b.data, ot, old_null ? "" : " NOT NULL", nt, new_null ? "" : " NOT NULL");
	dl_buf_free(&b);
	return rc;
}

static bool widening_enabled(const dl_alter_txn *a)
{
	return dl_snapshot_props(a->snap)->enable_type_widening &&
	       (dl_protocol_has(&a->proto, DL_FEATURE_TYPE_WIDENING) ||
	        dl_protocol_has(&a->proto, DL_FEATURE_TYPE_WIDENING_PREVIEW));
}

/* verifyColumnChange's type rules: same type, or (primitives) a
 * widening the typeWidening feature allows when it is enabled. */
static int check_type(change_ctx *c, const dl_type *old, bool nullable)
{
	const dl_type *neu = c->new_type;
	if (!neu || ac_same_shape(old, neu)) return 0;
	dl_buf b = DL_BUF_INIT;
	path_text(&b, &c->path, c->path.n);
	int rc = 0;
	if (old->id == DL_TYPE_STRUCT)
		rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CANNOT_UPDATE_STRUCT_FIELD",
		                        "Cannot update field %s type: update a struct by adding, deleting, "
		                        "or updating its fields", b.data);
	else if (old->id == DL_TYPE_MAP)
		rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CANNOT_UPDATE_MAP_FIELD",
		                        "Cannot update field %s type: update a map by updating %s.key or "
		                        "%s.value", b.data, b.data, b.data);
	else if (old->id == DL_TYPE_ARRAY)
		rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_CANNOT_UPDATE_ARRAY_FIELD",
		                        "Cannot update field %s type: update the element by updating %s.element",
		                        b.data, b.data);
	else if (neu->nchildren || !widening_enabled(c->a) || !ac_widening_allowed(old, neu))
		rc = change_refused(c, old, nullable, neu, nullable);
	dl_buf_free(&b);
	if (rc < 0) return rc;
	DL_TRY(ac_check_dependents(c->a, (const char *const *)c->path.parts, c->path.n, "changing its type"));
	c->widened = true;
	c->old_type = old;
	return 0;
}

/* Rows where the column is null: SET NOT NULL must find none. */
static int count_nulls(change_ctx *c, int64_t *count)
{
	*count = 0;
	dl_buf filter = DL_BUF_INIT;
	for (int i = 0; i < c->path.n; i++) {
		dl_buf_printf(&filter, "%s`", i ? "." : "");
		for (const char *p = c->path.parts[i]; *p; p++) {
			if (*p == '`') dl_buf_putc(&filter, '`');
			dl_buf_putc(&filter, *p);
		}
		dl_buf_putc(&filter, '`');
	}
	dl_buf_puts(&filter, " IS NULL");
	const char *cols[1] = {c->path.parts[0]};
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = cols;
	so.ncolumns = 1;
	so.filter = filter.data;
	dl_scan *scan = NULL;
	int rc = dl_scan_open(&scan, c->a->snap, &so);
	struct ArrowArrayStream st = {0};
	if (rc == 0) rc = dl_scan_to_arrow(&st, scan);
	while (rc == 0) {
		struct ArrowArray arr = {0};
		if (st.get_next(&st, &arr) != 0) {
			const char *msg = st.get_last_error ? st.get_last_error(&st) : NULL;
			rc = dl_error_last()->code < 0 ? dl_error_last()->code
			                               : dl_error_set(DL_EIO, "SET NOT NULL: reading the table "
			                                                      "failed: %s", msg ? msg : "?");
			break;
		}
		if (!arr.release) break;
		*count += arr.length;
		arr.release(&arr);
		if (*count) break;
		rc = dl_alter_progress(c->a, "checking rows", "rows", *count, -1, -1);
	}
	if (st.release) st.release(&st);
	dl_scan_free(scan);
	dl_buf_free(&filter);
	return rc;
}

/* Spark's IdentityColumn.syncIdentity: the extreme of the data rounded
 * to the identity sequence start + k * step. */
static int64_t round_to_sequence(int64_t start, int64_t step, int64_t v)
{
	__extension__ typedef __int128 i128;
	i128 off = (i128)v - start;
	i128 q = off / step, r = off % step;
	if (r != 0 && ((off > 0) == (step > 0))) q++;
	i128 res = (i128)start + q * step;
	if (res > INT64_MAX) return INT64_MAX;
	if (res < INT64_MIN) return INT64_MIN;
	return (int64_t)res;
}

static int data_extreme(change_ctx *c, bool want_max, bool *found, int64_t *out)
{
	*found = false;
	const char *cols[1] = {c->path.parts[0]};
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.columns = cols;
	so.ncolumns = 1;
	dl_scan *scan = NULL;
	int rc = dl_scan_open(&scan, c->a->snap, &so);
	struct ArrowArrayStream st = {0};
	if (rc == 0) rc = dl_scan_to_arrow(&st, scan);
	while (rc == 0) {
		struct ArrowArray arr = {0};
		if (st.get_next(&st, &arr) != 0) {
			rc = dl_error_last()->code < 0 ? dl_error_last()->code
			                               : dl_error_set(DL_EIO, "SYNC IDENTITY: reading failed");
			break;
		}
		if (!arr.release) break;
		const struct ArrowArray *col = arr.n_children > 0 ? arr.children[0] : NULL;
		if (col && col->n_buffers >= 2) {
			const uint8_t *valid = col->buffers[0];
			const int64_t *vals = col->buffers[1];
			for (int64_t i = 0; i < col->length; i++) {
				int64_t k = i + col->offset;
				if (valid && !(valid[k >> 3] >> (k & 7) & 1)) continue;
				int64_t v = vals[k];
				if (!*found || (want_max ? v > *out : v < *out)) *out = v;
				*found = true;
			}
		}
		arr.release(&arr);
	}
	if (st.release) st.release(&st);
	dl_scan_free(scan);
	return rc;
}

static int sync_identity(change_ctx *c, const dl_field *f, char **meta)
{
	dl_identity_info id;
	DL_TRY(dl_field_identity(f, &id));
	if (!id.is_identity || c->path.n != 1)
		return dl_error_set_class(DL_EINVALID, "DELTA_IDENTITY_COLUMNS_ALTER_NON_IDENTITY_COLUMN",
		                          "ALTER TABLE ALTER COLUMN SYNC IDENTITY cannot be called on non "
		                          "IDENTITY columns (%s).", f->name);
	/* A concurrent write could add rows past the mark just computed. */
	dl_txn_read_whole_table(c->a->txn);
	bool found;
	int64_t v = 0;
	DL_TRY(data_extreme(c, id.step > 0, &found, &v));
	if (!found) return 0;
	int64_t hwm = round_to_sequence(id.start, id.step, v);
	/* The mark never goes back (Spark's default: lowering it is allowed only
	 * under a conf, to avoid handing out values already used). */
	if (id.has_high_water_mark)
		hwm = id.step > 0 ? (hwm > id.high_water_mark ? hwm : id.high_water_mark)
		                  : (hwm < id.high_water_mark ? hwm : id.high_water_mark);
	char num[32], *m2 = NULL;
	snprintf(num, sizeof num, "%lld", (long long)hwm);
	DL_TRY(se_meta_set(&m2, *meta, DL_IDENTITY_HWM_KEY, num));
	dl_free(*meta);
	*meta = m2;
	c->hwm = hwm;
	c->hwm_set = true;
	return 0;
}

static int set_meta_string(char **meta, const char *key, const char *value)
{
	char *q = NULL, *m2 = NULL;
	if (value && !(q = se_json_string(value))) return DL_ENOMEM;
	int rc = se_meta_set(&m2, *meta, key, q);
	dl_free(q);
	if (rc < 0) return rc;
	dl_free(*meta);
	*meta = m2;
	return 0;
}

static int position_index(change_ctx *c, const dl_type *st, int self, int *at)
{
	const dl_column_change *ch = c->ch;
	*at = self;
	if (ch->position == DL_COLUMN_POSITION_FIRST) *at = 0;
	if (ch->position != DL_COLUMN_POSITION_AFTER) return 0;
	int x = ch->after ? dl_type_field_index(st, ch->after) : -1;
	if (x < 0) {
		dl_buf b = DL_BUF_INIT;
		path_text(&b, &c->path, c->path.n - 1);
		int rc = dl_error_set_class(DL_EINVALID, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA",
		                            "Couldn't resolve positional argument AFTER %s%s%s: missing field",
		                            b.len ? b.data : "", b.len ? "." : "", ch->after ? ch->after : "");
		dl_buf_free(&b);
		return rc;
	}
	/* index among the other fields, then after it */
	*at = x == self ? self : (x < self ? x + 1 : x);
	return 0;
}

/* A struct field's change: the struct `st` rebuilt. */
static int change_struct_field(dl_type **out, const dl_type *st, void *payload)
{
	change_ctx *c = payload;
	const dl_column_change *ch = c->ch;
	const char *leaf = c->path.parts[c->path.n - 1];
	int self = se_child_index(st, leaf);
	const dl_field *f = &st->children[self];
	bool nullable = f->nullable;
	DL_TRY(check_type(c, f->type, f->nullable));
	if (ch->drop_not_null) nullable = true;
	if (ch->set_not_null && f->nullable) {
		int64_t n;
		DL_TRY(count_nulls(c, &n));
		if (n > 0) {
			dl_buf b = DL_BUF_INIT;
			path_text(&b, &c->path, c->path.n);
			int rc = dl_error_set_class(DL_ECONSTRAINT, "DELTA_NOT_NULL_CONSTRAINT_VIOLATED",
			                            "NOT NULL constraint violated for column: %s. The table "
			                            "has rows where it is null; update or delete them first.",
			                            b.data);
			dl_buf_free(&b);
			return rc;
		}
		dl_txn_read_whole_table(c->a->txn);
		nullable = false;
	}
	char *meta = dl_strdup(f->metadata ? f->metadata : "{}");
	if (!meta) return DL_ENOMEM;
	int rc = 0;
	if (ch->comment) rc = set_meta_string(&meta, "comment", ch->comment);
	if (rc == 0 && ch->set_default) rc = set_meta_string(&meta, DL_DEFAULT_KEY, ch->set_default);
	if (rc == 0 && ch->drop_default) rc = set_meta_string(&meta, DL_DEFAULT_KEY, NULL);
	if (rc == 0 && ch->sync_identity) rc = sync_identity(c, f, &meta);
	if (rc == 0 && c->widened && c->path.n >= 1) {
		char *m2 = NULL;
		rc = dl_type_change_meta(&m2, meta, c->old_type, c->new_type, NULL);
		dl_free(meta);
		meta = m2;
	}
	const char *name = ch->new_name ? ch->new_name : f->name;
	if (rc == 0 && ch->new_name) {
		int other = dl_type_field_index(st, ch->new_name);
		if (other >= 0 && other != self)
			rc = dl_error_set_class(DL_EINVALID, "FIELD_ALREADY_EXISTS",
			                        "Cannot rename column %s to %s, because %s already exists",
			                        f->name, ch->new_name, st->children[other].name);
	}
	int at = self;
	if (rc == 0) rc = position_index(c, st, self, &at);
	if (rc < 0) {
		dl_free(meta);
		return rc;
	}
	dl_field nf = *f;
	nf.name = (char *)name;
	nf.nullable = nullable;
	nf.metadata = meta;
	if (c->widened) nf.type = c->new_type;
	dl_field *fs = dl_calloc((size_t)st->nchildren, sizeof *fs);
	if (!fs) {
		dl_free(meta);
		return DL_ENOMEM;
	}
	/* the other fields in order, the changed one at index `at` among them */
	bool placed = false;
	for (int i = 0, k = 0; i < st->nchildren; i++) {
		if (i == self) continue;
		if (k == at && !placed) {
			fs[k++] = nf;
			placed = true;
		}
		fs[k++] = st->children[i];
	}
	if (!placed) fs[st->nchildren - 1] = nf;
	*out = dl_type_struct(fs, st->nchildren);
	dl_free(fs);
	if (!*out) {
		dl_free(meta);
		return DL_ENOMEM;
	}
	c->result = nf;
	c->result.name = (char *)name;
	c->result_meta = meta;
	c->result.metadata = meta;
	return 0;
}

/* The element of an array or the key / value of a map. */
static int change_nested(dl_type **out, const dl_type *t, void *payload)
{
	change_ctx *c = payload;
	const dl_column_change *ch = c->ch;
	const char *leaf = c->path.parts[c->path.n - 1];
	int i = se_child_index(t, leaf);
	const dl_field *f = &t->children[i];
	dl_buf b = DL_BUF_INIT;
	path_text(&b, &c->path, c->path.n);
	int rc = 0;
	if (ch->comment)
		rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_COMMENT_MAP_ARRAY",
		                        "Can't add a comment to %s, which is a map key/value or array element",
		                        b.data);
	else if (ch->new_name || ch->position != DL_COLUMN_POSITION_NONE || ch->set_default ||
	         ch->drop_default || ch->sync_identity)
		rc = dl_error_set_class(DL_EINVALID, "INVALID_FIELD_NAME",
		                        "%s is a map key/value or array element: only its type and "
		                        "nullability can change", b.data);
	bool nullable = f->nullable;
	bool is_key = t->id == DL_TYPE_MAP && i == 0;
	if (rc == 0 && ch->set_not_null && f->nullable)
		rc = dl_error_set_class(DL_EUNSUPPORTED, "_LEGACY_ERROR_TEMP_2330",
		                        "Cannot change nullable column to non-nullable: %s", b.data);
	if (rc == 0 && ch->drop_not_null && is_key)
		rc = change_refused(c, f->type, false, f->type, true);
	if (rc == 0 && ch->drop_not_null) nullable = true;
	dl_buf_free(&b);
	if (rc == 0) rc = check_type(c, f->type, f->nullable);
	if (rc < 0) return rc;
	dl_type *nt = c->widened ? c->new_type : f->type;
	if (t->id == DL_TYPE_ARRAY) *out = dl_type_array(nt, nullable);
	else if (is_key) *out = dl_type_map(nt, t->children[1].type, t->children[1].nullable);
	else *out = dl_type_map(t->children[0].type, nt, nullable);
	return *out ? 0 : DL_ENOMEM;
}

typedef struct meta_edit {
	const char *leaf;
	const char *meta;
} meta_edit;

static int replace_meta(dl_type **out, const dl_type *st, void *payload)
{
	meta_edit *m = payload;
	int i = se_child_index(st, m->leaf);
	return se_with_child(out, st, i, st->children[i].type, m->meta);
}

/* A widened map key/value or array element is recorded on the nearest
 * struct field above it, with the steps below it as fieldPath. */
static int record_nested_widening(change_ctx *c, dl_type **schema)
{
	const se_path *p = &c->path;
	int k = -1;
	for (int j = 0; j < p->n; j++) {
		const dl_type *t = se_resolve(*schema, (const char *const *)p->parts, j, NULL);
		if (t && t->id == DL_TYPE_STRUCT) k = j;
	}
	if (k < 0) return dl_error_set(DL_ERROR, "type widening: no struct field above the change");
	const dl_type *st = se_resolve(*schema, (const char *const *)p->parts, k, NULL);
	const dl_field *f = &st->children[se_child_index(st, p->parts[k])];
	dl_buf fp = DL_BUF_INIT;
	for (int j = k + 1; j < p->n; j++) dl_buf_printf(&fp, "%s%s", j > k + 1 ? "." : "", p->parts[j]);
	char *meta = NULL;
	int rc = dl_type_change_meta(&meta, f->metadata, c->old_type, c->new_type, fp.data);
	dl_type *next = NULL;
	meta_edit m = {p->parts[k], meta};
	if (rc == 0) rc = se_edit_at(&next, *schema, (const char *const *)p->parts, k, replace_meta, &m);
	if (rc == 0) {
		dl_type_unref(*schema);
		*schema = next;
	}
	dl_free(meta);
	dl_buf_free(&fp);
	return rc;
}

static int rename_not_supported(void)
{
	return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_RENAME_COLUMN",
	                          "Column rename is not supported for your Delta table. Please upgrade "
	                          "your table to reader version 2 and writer version 5 and change the "
	                          "column mapping mode to 'name' mapping. You can use the following "
	                          "command:\n\nALTER TABLE <table_name> SET TBLPROPERTIES (\n"
	                          "   'delta.columnMapping.mode' = 'name',\n"
	                          "   'delta.minReaderVersion' = '2',\n"
	                          "   'delta.minWriterVersion' = '5')");
}

/* delta.dataSkippingStatsColumns and partitionColumns follow a renamed
 * top-level column. */
static int rename_references(change_ctx *c, const char *old, const char *neu)
{
	dl_alter_txn *a = c->a;
	int pi = ac_partition_index(a, old);
	if (pi >= 0) {
		const char **pc = dl_arena_calloc(&a->arena, a->md.npartition_columns, sizeof *pc);
		if (!pc) return DL_ENOMEM;
		for (uint32_t i = 0; i < a->md.npartition_columns; i++)
			pc[i] = (int)i == pi ? dl_arena_strdup(&a->arena, neu) : a->md.partition_columns[i];
		if (!pc[pi]) return DL_ENOMEM;
		a->md.partition_columns = pc;
		a->md_changed = true;
	}
	const char *cols = dl_alter_config(a, "delta.dataSkippingStatsColumns");
	if (!cols) return 0;
	dl_buf b = DL_BUF_INIT;
	const char *p = cols;
	bool changed = false;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *s = p;
		size_t m = n;
		while (m && *s == ' ') s++, m--;
		while (m && s[m - 1] == ' ') m--;
		bool hit = m == strlen(old) && strncasecmp(s, old, m) == 0;
		changed |= hit;
		if (hit) dl_buf_printf(&b, "%s%s", b.len ? "," : "", neu);
		else dl_buf_printf(&b, "%s%.*s", b.len ? "," : "", (int)m, s);
		p += n;
		if (*p == ',') p++;
	}
	int rc = changed ? dl_alter_set_config(a, "delta.dataSkippingStatsColumns", b.data) : 0;
	dl_buf_free(&b);
	return rc;
}

static int run_change(change_ctx *c, const char *column)
{
	dl_alter_txn *a = c->a;
	const dl_column_change *ch = c->ch;
	DL_TRY(se_path_parse(&c->path, &a->arena, column));
	const se_path *p = &c->path;
	const dl_type *schema = dl_alter_read_schema(a);
	const dl_type *container = se_resolve(schema, (const char *const *)p->parts, p->n - 1, NULL);
	if (!container || se_child_index(container, p->parts[p->n - 1]) < 0)
		return ac_not_found(a, (const char *const *)p->parts, p->n);
	if (ch->set_not_null && ch->drop_not_null)
		return dl_error_set(DL_EINVALID, "ALTER COLUMN %s: SET NOT NULL and DROP NOT NULL together",
		                    column);
	if (ch->set_default && ch->drop_default)
		return dl_error_set(DL_EINVALID, "ALTER COLUMN %s: SET DEFAULT and DROP DEFAULT together",
		                    column);
	if (ch->new_name) {
		if (ac_mapping_mode(a) == DL_CM_NONE) return rename_not_supported();
		if (!*ch->new_name) return dl_error_set(DL_EINVALID, "RENAME COLUMN: the new name is empty");
		if (strcmp(ch->new_name, p->parts[p->n - 1]) != 0 &&
		    strcasecmp(ch->new_name, p->parts[p->n - 1]) != 0)
			DL_TRY(ac_check_dependents(a, (const char *const *)p->parts, p->n, "renaming"));
	}
	if (ch->set_default) {
		DL_TRY(ac_check_defaults_allowed(a, "ALTER TABLE"));
		DL_TRY(ac_check_default_expr(ch->set_default, column));
	}
	if (ch->type) DL_TRY(ac_parse_type(&c->new_type, ch->type, column));
	dl_type *next = NULL;
	const char *const *parts = (const char *const *)p->parts;
	bool is_struct = container->id == DL_TYPE_STRUCT;
	DL_TRY(se_edit_at(&next, schema, parts, p->n - 1, is_struct ? change_struct_field : change_nested, c));
	int rc = 0;
	if (!is_struct && c->widened) rc = record_nested_widening(c, &next);
	if (rc == 0 && ch->new_name && p->n == 1) rc = rename_references(c, p->parts[0], ch->new_name);
	if (rc == 0) rc = dl_alter_set_schema(a, next);
	/* operationParameters */
	dl_buf b = DL_BUF_INIT;
	if (rc == 0 && ch->new_name) {
		dl_field_path_text(&b, parts, p->n);
		rc = dl_txn_set_parameter(a->txn, "oldColumnPath", b.data);
		dl_buf_clear(&b);
		const char **np = dl_arena_calloc(&a->arena, (size_t)p->n, sizeof *np);
		if (!np) rc = DL_ENOMEM;
		for (int i = 0; rc == 0 && i < p->n; i++) np[i] = i + 1 == p->n ? ch->new_name : p->parts[i];
		if (rc == 0) dl_field_path_text(&b, np, p->n);
		if (rc == 0) rc = dl_txn_set_parameter(a->txn, "newColumnPath", b.data);
	} else if (rc == 0) {
		dl_field f;
		if (is_struct) {
			f = c->result;
		} else {
			const dl_type *t = se_resolve(next, parts, p->n, NULL);
			const dl_type *cont = se_resolve(next, parts, p->n - 1, NULL);
			f = cont->children[se_child_index(cont, p->parts[p->n - 1])];
			f.type = (dl_type *)t;
		}
		ac_field_json(&b, parts, p->n - 1, &f);
		rc = dl_txn_set_parameter(a->txn, "column", b.data);
		if (rc == 0 && ch->position != DL_COLUMN_POSITION_NONE) {
			dl_buf_clear(&b);
			if (ch->position == DL_COLUMN_POSITION_FIRST) dl_buf_puts(&b, "FIRST");
			else dl_buf_printf(&b, "AFTER %s", ch->after ? ch->after : "");
			rc = dl_txn_set_parameter(a->txn, "position", b.data);
		}
	}
	dl_buf_free(&b);
	dl_type_unref(next);
	return rc;
}

static int change_column(int64_t *version, const char *uri, const char *column,
                         const dl_column_change *change, const dl_alter_options *opts)
{
	dl_alter_txn a;
	change_ctx c;
	memset(&c, 0, sizeof c);
	c.ch = change;
	c.a = &a;
	int rc = dl_alter_begin(&a, change->new_name ? "RENAME COLUMN" : "CHANGE COLUMN", uri, opts);
	if (rc == 0) rc = run_change(&c, column);
	if (rc == 0) rc = dl_alter_commit(&a, version);
	dl_free(c.result_meta);
	dl_type_unref(c.new_type);
	dl_alter_end(&a);
	return rc;
}

int dl_alter_change_column(int64_t *version, const char *uri, const char *column,
                           const dl_column_change *change, const dl_alter_options *opts)
{
	if (!version) return dl_error_set(DL_EINVALID, "dl_alter_change_column: version missing");
	*version = -1;
	if (!column || !change) return dl_error_set(DL_EINVALID, "dl_alter_change_column: column or change missing");
	return change_column(version, uri, column, change, opts);
}

int dl_alter_rename_column(int64_t *version, const char *uri, const char *from, const char *to,
                           const dl_alter_options *opts)
{
	if (!version) return dl_error_set(DL_EINVALID, "dl_alter_rename_column: version missing");
	*version = -1;
	if (!from || !to) return dl_error_set(DL_EINVALID, "dl_alter_rename_column: names missing");
	dl_column_change ch = DL_COLUMN_CHANGE_INIT;
	ch.new_name = to;
	return change_column(version, uri, from, &ch, opts);
}
