/* ALTER TABLE ADD COLUMNS, DROP COLUMNS and REPLACE COLUMNS as Spark's
 * AlterTableAddColumnsDeltaCommand, AlterTableDropColumnsDeltaCommand and
 * AlterTableReplaceColumnsDeltaCommand run them: one metaData action with
 * the new schema, no data file touched (a dropped column stays in the
 * files, unreadable once its physical name is gone from the schema; an
 * added one reads as null from files that lack it). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/alter_columns_internal.h"
#include "json/json.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "ops/type_change_meta.h"
#include "rewrite/conform.h"
#include "util/error.h"
#include "util/mem.h"

/* ---- ADD COLUMNS ---- */

typedef struct add_edit {
	const dl_alter_txn *a;
	const se_path *path;
	const dl_field *field;
	const dl_alter_column *col;
} add_edit;

static int not_a_struct(const se_path *p)
{
	dl_buf full = DL_BUF_INIT, parent = DL_BUF_INIT;
	/* Spark quotes every part here: "Field name `v2`.`x` is invalid: `v2` is not a struct" */
	for (int i = 0; i < p->n; i++) dl_buf_printf(&full, "%s`%s`", i ? "." : "", p->parts[i]);
	for (int i = 0; i + 1 < p->n; i++) dl_buf_printf(&parent, "%s`%s`", i ? "." : "", p->parts[i]);
	int rc = dl_error_set_class(DL_EINVALID, "INVALID_FIELD_NAME",
	                            "Field name %s is invalid: %s is not a struct", full.data,
	                            parent.data ? parent.data : "");
	dl_buf_free(&full);
	dl_buf_free(&parent);
	return rc;
}

static int insert_field(dl_type **out, const dl_type *st, void *payload)
{
	add_edit *e = payload;
	if (st->id != DL_TYPE_STRUCT) return not_a_struct(e->path);
	if (dl_type_field_index(st, e->field->name) >= 0) {
		dl_buf b = DL_BUF_INIT;
		dl_field_path_text(&b, (const char *const *)e->path->parts, e->path->n);
		int rc = dl_error_set_class(DL_EINVALID, "DELTA_DUPLICATE_COLUMNS_FOUND",
		                            "Found duplicate column(s) in adding columns: %s", b.data);
		dl_buf_free(&b);
		return rc;
	}
	int at = st->nchildren;
	if (e->col->position == DL_COLUMN_POSITION_FIRST) at = 0;
	if (e->col->position == DL_COLUMN_POSITION_AFTER) {
		int i = e->col->after ? dl_type_field_index(st, e->col->after) : -1;
		if (i < 0) {
			const char *parts[66];
			int n = 0;
			for (int k = 0; k + 1 < e->path->n && n < 64; k++) parts[n++] = e->path->parts[k];
			parts[n++] = e->col->after ? e->col->after : "";
			dl_buf b = DL_BUF_INIT;
			dl_field_path_text(&b, parts, n);
			int rc = dl_error_set_class(DL_EINVALID, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA",
			                            "Couldn't find column %s in the table schema (AFTER %s)",
			                            b.data, e->col->after ? e->col->after : "");
			dl_buf_free(&b);
			return rc;
		}
		at = i + 1;
	}
	dl_field *fs = dl_calloc((size_t)st->nchildren + 1, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	for (int i = 0, k = 0; i <= st->nchildren; i++) {
		if (i == at) fs[k++] = *e->field;
		if (i < st->nchildren) fs[k++] = st->children[i];
	}
	*out = dl_type_struct(fs, st->nchildren + 1);
	dl_free(fs);
	return *out ? 0 : DL_ENOMEM;
}

static const char *position_text(dl_buf *b, dl_column_position pos, const char *after)
{
	dl_buf_clear(b);
	if (pos == DL_COLUMN_POSITION_FIRST) dl_buf_puts(b, "FIRST");
	else if (pos == DL_COLUMN_POSITION_AFTER) dl_buf_printf(b, "AFTER %s", after ? after : "");
	return pos == DL_COLUMN_POSITION_NONE ? NULL : b->data;
}

/* The field an ADD / REPLACE column definition makes (metadata malloc'd). */
static int new_field(dl_field *f, const dl_alter_column *c, const char *leaf)
{
	memset(f, 0, sizeof *f);
	DL_TRY(ac_parse_type(&f->type, c->type, c->name));
	f->name = (char *)leaf;
	f->nullable = !c->not_null;
	char *meta = dl_strdup("{}");
	if (!meta) return DL_ENOMEM;
	if (c->comment) {
		char *q = se_json_string(c->comment), *m2 = NULL;
		int rc = q ? se_meta_set(&m2, meta, "comment", q) : DL_ENOMEM;
		dl_free(q);
		dl_free(meta);
		if (rc < 0) return rc;
		meta = m2;
	}
	if (c->default_sql) {
		char *q = se_json_string(c->default_sql), *m2 = NULL;
		int rc = q ? se_meta_set(&m2, meta, DL_DEFAULT_KEY, q) : DL_ENOMEM;
		dl_free(q);
		dl_free(meta);
		if (rc < 0) return rc;
		meta = m2;
	}
	f->metadata = meta;
	return 0;
}

static void field_release(dl_field *f)
{
	dl_type_unref(f->type);
	dl_free(f->metadata);
	f->type = NULL;
	f->metadata = NULL;
}

static int add_columns(dl_alter_txn *a, const dl_alter_column *cols, size_t ncols)
{
	if (ncols == 0) return dl_error_set(DL_EINVALID, "ADD COLUMNS: no column given");
	for (size_t i = 0; i < ncols; i++) {
		/* Spark checks these before anything else. */
		if (cols[i].not_null)
			return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_OPERATION_NOT_ALLOWED",
			                          "Operation not allowed: `NOT NULL in ALTER TABLE ADD "
			                          "COLUMNS` is not supported for Delta tables");
		if (cols[i].default_sql) {
			DL_TRY(ac_check_defaults_allowed(a, "ALTER TABLE ADD COLUMNS"));
			return dl_error_set_class(DL_EUNSUPPORTED, "ADD_DEFAULT_UNSUPPORTED",
			                          "Failed to execute ALTER TABLE ADD COLUMNS command because "
			                          "DEFAULT values are not supported when adding new columns to "
			                          "previously existing target data source with table provider: "
			                          "\"delta\" (set a default afterwards with ALTER TABLE ... "
			                          "ALTER COLUMN %s SET DEFAULT ...)",
			                          cols[i].name ? cols[i].name : "");
		}
	}
	dl_type *schema = dl_type_ref((dl_type *)dl_alter_read_schema(a));
	dl_buf params = DL_BUF_INIT, pos = DL_BUF_INIT, one = DL_BUF_INIT;
	dl_buf_putc(&params, '[');
	int rc = 0;
	for (size_t i = 0; i < ncols && rc == 0; i++) {
		se_path p;
		rc = se_path_parse(&p, &a->arena, cols[i].name);
		dl_field f;
		memset(&f, 0, sizeof f);
		if (rc == 0) rc = ac_check_name(a, p.parts[p.n - 1]);
		if (rc == 0) rc = new_field(&f, &cols[i], p.parts[p.n - 1]);
		dl_type *next = NULL;
		add_edit e = {a, &p, &f, &cols[i]};
		if (rc == 0) rc = se_edit_at(&next, schema, (const char *const *)p.parts, p.n - 1, insert_field, &e);
		if (rc == 0) {
			dl_type_unref(schema);
			schema = next;
			dl_buf_clear(&one);
			ac_field_json(&one, (const char *const *)p.parts, p.n - 1, &f);
			dl_buf_printf(&params, "%s{\"column\":%s", i ? "," : "", one.data);
			const char *pt = position_text(&pos, cols[i].position, cols[i].after);
			if (pt) {
				char *q = se_json_string(pt);
				dl_buf_printf(&params, ",\"position\":%s", q ? q : "\"\"");
				dl_free(q);
			}
			dl_buf_putc(&params, '}');
		}
		field_release(&f);
	}
	dl_buf_putc(&params, ']');
	if (rc == 0) rc = ac_assign_ids(a, &schema);
	if (rc == 0) rc = dl_alter_set_schema(a, schema);
	if (rc == 0) rc = dl_txn_set_parameter(a->txn, "columns", params.data);
	dl_type_unref(schema);
	dl_buf_free(&params);
	dl_buf_free(&pos);
	dl_buf_free(&one);
	return rc;
}

int dl_alter_add_columns(int64_t *version, const char *uri, const dl_alter_column *cols, size_t ncols,
                         const dl_alter_options *opts)
{
	if (!version) return dl_error_set(DL_EINVALID, "dl_alter_add_columns: version missing");
	*version = -1;
	if (!cols && ncols) return dl_error_set(DL_EINVALID, "dl_alter_add_columns: columns missing");
	dl_alter_txn a;
	int rc = dl_alter_begin(&a, "ADD COLUMNS", uri, opts);
	if (rc == 0) rc = add_columns(&a, cols, ncols);
	if (rc == 0) rc = dl_alter_commit(&a, version);
	dl_alter_end(&a);
	return rc;
}

/* ---- DROP COLUMNS ---- */

static int drop_not_supported(void)
{
	return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_DROP_COLUMN",
	                          "DROP COLUMN is not supported for your Delta table. Please upgrade "
	                          "your table to reader version 2 and writer version 5 and change the "
	                          "column mapping mode to 'name' mapping. You can use the following "
	                          "command:\n\nALTER TABLE <table_name> SET TBLPROPERTIES (\n"
	                          "   'delta.columnMapping.mode' = 'name',\n"
	                          "   'delta.minReaderVersion' = '2',\n"
	                          "   'delta.minWriterVersion' = '5')");
}

typedef struct drop_edit {
	const char *name;
	const se_path *path;
} drop_edit;

static int remove_field(dl_type **out, const dl_type *st, void *payload)
{
	drop_edit *e = payload;
	if (st->id != DL_TYPE_STRUCT) return not_a_struct(e->path);
	int at = se_child_index(st, e->name);
	if (at < 0) return dl_error_set(DL_ERROR, "DROP COLUMNS: field vanished");
	if (st->nchildren == 1)
		return dl_error_set_class(DL_EINVALID, "DELTA_DROP_COLUMN_ON_SINGLE_FIELD_SCHEMA",
		                          "Cannot drop column %s from a struct type with a single field",
		                          e->name);
	dl_field *fs = dl_calloc((size_t)st->nchildren, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	for (int i = 0, k = 0; i < st->nchildren; i++)
		if (i != at) fs[k++] = st->children[i];
	*out = dl_type_struct(fs, st->nchildren - 1);
	dl_free(fs);
	return *out ? 0 : DL_ENOMEM;
}

/* delta.dataSkippingStatsColumns without the dropped top-level column
 * (Spark's StatisticsCollection.dropDeltaStatsColumns). */
static int drop_stats_column(dl_alter_txn *a, const char *name)
{
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
		while (m && (*s == ' ')) s++, m--;
		while (m && s[m - 1] == ' ') m--;
		if (m == strlen(name) && strncasecmp(s, name, m) == 0) changed = true;
		else dl_buf_printf(&b, "%s%.*s", b.len ? "," : "", (int)m, s);
		p += n;
		if (*p == ',') p++;
	}
	int rc = changed ? dl_alter_set_config(a, "delta.dataSkippingStatsColumns", b.data ? b.data : "") : 0;
	dl_buf_free(&b);
	return rc;
}

/* Spark refuses dropping a clustering column (or a struct holding one):
 * the delta.clustering domain names them by physical name paths. */
static int check_clustering(dl_alter_txn *a, const dl_type *schema, const se_path *p)
{
	const char *conf = dl_snapshot_domain(a->snap, "delta.clustering");
	if (!conf) return 0;
	dl_column_mapping_mode mode = ac_mapping_mode(a);
	const char *phys[64];
	const dl_type *t = schema;
	int n = p->n < 64 ? p->n : 64;
	for (int i = 0; i < n; i++) {
		int k = se_child_index(t, p->parts[i]);
		if (k < 0 || t->id != DL_TYPE_STRUCT) return 0; /* inside a map/array: no clustering */
		DL_TRY(dl_field_physical_name(&t->children[k], mode, &a->arena, &phys[i]));
		t = t->children[k].type;
	}
	dl_json *root;
	DL_TRY(dl_json_parse(&a->arena, conf, strlen(conf), "delta.clustering domain metadata", &root));
	const dl_json *cols = dl_json_get(root, "clusteringColumns");
	for (size_t i = 0; cols && cols->kind == DL_JSON_ARRAY && i < cols->u.arr.n; i++) {
		const dl_json *path = &cols->u.arr.items[i];
		if (path->kind != DL_JSON_ARRAY || path->u.arr.n < (size_t)n) continue;
		bool hit = true;
		for (int k = 0; k < n && hit; k++) {
			const dl_json *e = &path->u.arr.items[k];
			hit = e->kind == DL_JSON_STRING && strlen(phys[k]) == e->u.str.len &&
			      memcmp(phys[k], e->u.str.ptr, e->u.str.len) == 0;
		}
		if (hit) {
			dl_buf b = DL_BUF_INIT;
			dl_field_path_text(&b, (const char *const *)p->parts, p->n);
			int rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_DROP_CLUSTERING_COLUMN",
			                            "Dropping clustering columns (%s) is not allowed.", b.data);
			dl_buf_free(&b);
			return rc;
		}
	}
	return 0;
}

static int drop_columns(dl_alter_txn *a, const char *const *names, size_t n, bool if_exists,
                        bool *nothing)
{
	*nothing = true;
	if (n == 0) return dl_error_set(DL_EINVALID, "DROP COLUMNS: no column given");
	if (ac_mapping_mode(a) == DL_CM_NONE) return drop_not_supported();
	dl_type *schema = dl_type_ref((dl_type *)dl_alter_read_schema(a));
	dl_buf params = DL_BUF_INIT, one = DL_BUF_INIT;
	dl_buf_putc(&params, '[');
	int rc = 0, ndropped = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		se_path p;
		rc = se_path_parse(&p, &a->arena, names[i]);
		if (rc < 0) break;
		if (!se_resolve(schema, (const char *const *)p.parts, p.n, NULL)) {
			if (if_exists) continue;
			rc = ac_not_found(a, (const char *const *)p.parts, p.n);
			break;
		}
		if (p.n == 1 && ac_partition_index(a, p.parts[0]) >= 0) {
			rc = dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN",
			                        "Dropping partition columns (%s) is not allowed.", p.parts[0]);
			break;
		}
		rc = check_clustering(a, schema, &p);
		if (rc == 0) rc = ac_check_dependents(a, (const char *const *)p.parts, p.n, "dropping");
		drop_edit e = {p.parts[p.n - 1], &p};
		dl_type *next = NULL;
		if (rc == 0)
			rc = se_edit_at(&next, schema, (const char *const *)p.parts, p.n - 1, remove_field, &e);
		if (rc == 0 && p.n == 1) rc = drop_stats_column(a, p.parts[0]);
		if (rc == 0) {
			dl_type_unref(schema);
			schema = next;
			dl_buf_clear(&one);
			dl_field_path_text(&one, (const char *const *)p.parts, p.n);
			char *q = se_json_string(one.data);
			dl_buf_printf(&params, "%s%s", ndropped ? "," : "", q ? q : "\"\"");
			dl_free(q);
			ndropped++;
		}
	}
	dl_buf_putc(&params, ']');
	if (rc == 0 && ndropped) {
		*nothing = false;
		rc = dl_alter_set_schema(a, schema);
		if (rc == 0) rc = dl_txn_set_parameter(a->txn, "columns", params.data);
	}
	dl_type_unref(schema);
	dl_buf_free(&params);
	dl_buf_free(&one);
	return rc;
}

int dl_alter_drop_columns(int64_t *version, const char *uri, const char *const *names, size_t n,
                          bool if_exists, const dl_alter_options *opts)
{
	if (!version) return dl_error_set(DL_EINVALID, "dl_alter_drop_columns: version missing");
	*version = -1;
	if (!names && n) return dl_error_set(DL_EINVALID, "dl_alter_drop_columns: names missing");
	dl_alter_txn a;
	bool nothing = true;
	int rc = dl_alter_begin(&a, "DROP COLUMNS", uri, opts);
	if (rc == 0) rc = drop_columns(&a, names, n, if_exists, &nothing);
	if (rc == 0 && !nothing) rc = dl_alter_commit(&a, version);
	dl_alter_end(&a);
	return rc;
}

/* ---- REPLACE COLUMNS ---- */

static int replace_refused(const dl_alter_txn *a, const dl_type *schema, const char *reason)
{
	(void)a;
	(void)schema;
	return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_UNSUPPORTED_ALTER_TABLE_REPLACE_COL_OP",
	                          "Unsupported ALTER TABLE REPLACE COLUMNS operation. Reason: %s", reason);
}

/* Same shape ignoring field metadata (types of REPLACE COLUMNS come from
 * SQL text, the table's carry column mapping ids): names exactly, as
 * Spark compares struct types. */
static bool same_shape(const dl_type *x, const dl_type *y)
{
	if (x->id != y->id || x->nchildren != y->nchildren) return false;
	if (x->id == DL_TYPE_DECIMAL && (x->precision != y->precision || x->scale != y->scale))
		return false;
	if (x->id == DL_TYPE_VARIANT) return true;
	for (int i = 0; i < x->nchildren; i++) {
		if (strcmp(x->children[i].name, y->children[i].name) != 0) return false;
		if (x->children[i].nullable != y->children[i].nullable) return false;
		if (!same_shape(x->children[i].type, y->children[i].type)) return false;
	}
	return true;
}

bool ac_same_shape(const dl_type *x, const dl_type *y)
{
	return same_shape(x, y);
}

static int replace_columns(dl_alter_txn *a, const dl_alter_column *cols, size_t ncols)
{
	const dl_type *old = dl_alter_read_schema(a);
	for (int i = 0; i < old->nchildren; i++) {
		dl_identity_info id;
		if (dl_field_identity(&old->children[i], &id) == 0 && id.is_identity)
			return dl_error_set_class(DL_EUNSUPPORTED,
			                          "DELTA_IDENTITY_COLUMNS_REPLACE_COLUMN_NOT_SUPPORTED",
			                          "ALTER TABLE REPLACE COLUMNS is not supported for table with "
			                          "IDENTITY columns.");
	}
	if (ncols == 0) return dl_error_set(DL_EINVALID, "REPLACE COLUMNS: no column given");
	const dl_table_properties *props = dl_snapshot_props(a->snap);
	bool widen = props->enable_type_widening &&
	             (dl_protocol_has(&a->proto, DL_FEATURE_TYPE_WIDENING) ||
	              dl_protocol_has(&a->proto, DL_FEATURE_TYPE_WIDENING_PREVIEW));
	dl_field *fs = dl_calloc(ncols, sizeof *fs);
	const char **names = dl_arena_calloc(&a->arena, ncols, sizeof *names);
	if (!fs || !names) {
		dl_free(fs);
		return DL_ENOMEM;
	}
	dl_buf params = DL_BUF_INIT, one = DL_BUF_INIT, why = DL_BUF_INIT;
	dl_buf_putc(&params, '[');
	int rc = 0;
	size_t made = 0;
	for (size_t i = 0; i < ncols && rc == 0; i++, made++) {
		/* the column as given, with its name unquoted */
		dl_alter_column cc = cols[i];
		const dl_alter_column *c = &cc;
		se_path p;
		rc = se_path_parse(&p, &a->arena, cols[i].name);
		if (rc == 0 && p.n != 1)
			rc = dl_error_set(DL_EINVALID, "REPLACE COLUMNS takes top-level columns: %s", cols[i].name);
		if (rc < 0) break;
		cc.name = names[i] = p.parts[0];
		for (size_t j = 0; j < i && rc == 0; j++)
			if (strcasecmp(names[j], c->name) == 0)
				rc = dl_error_set_class(DL_EINVALID, "DELTA_DUPLICATE_COLUMNS_FOUND",
				                        "Found duplicate column(s) in replacing columns: %s",
				                        c->name);
		if (rc == 0 && c->default_sql) rc = ac_check_defaults_allowed(a, "ALTER TABLE REPLACE COLUMNS");
		if (rc == 0) rc = new_field(&fs[i], c, c->name);
		if (rc < 0) break;
		fs[i].name = (char *)c->name;
		int k = dl_type_field_index(old, c->name);
		if (k < 0) {
			/* a new column */
			rc = ac_check_name(a, c->name);
			if (rc == 0 && !fs[i].nullable) {
				dl_buf_clear(&why);
				dl_buf_printf(&why, "adding non-nullable column %s", c->name);
				rc = replace_refused(a, old, why.data);
			}
		} else {
			const dl_field *of = &old->children[k];
			/* Spark keeps the old field's metadata (column mapping, constraints
			 * of identity/generation) and takes the comment of the new one. */
			char *meta = dl_strdup(of->metadata ? of->metadata : "{}"), *m2 = NULL;
			if (!meta) rc = DL_ENOMEM;
			const char *cq = NULL;
			char *q = c->comment ? se_json_string(c->comment) : NULL;
			cq = q;
			if (rc == 0) rc = se_meta_set(&m2, meta, "comment", cq);
			dl_free(q);
			dl_free(meta);
			meta = m2;
			if (rc == 0 && c->default_sql) {
				q = se_json_string(c->default_sql);
				m2 = NULL;
				rc = q ? se_meta_set(&m2, meta, DL_DEFAULT_KEY, q) : DL_ENOMEM;
				dl_free(q);
				dl_free(meta);
				meta = m2;
			}
			if (rc == 0 && !of->nullable && fs[i].nullable == false) {
				/* keeps NOT NULL */
			} else if (rc == 0 && of->nullable && !fs[i].nullable) {
				dl_buf_clear(&why);
				dl_buf_printf(&why, "tightening nullability of %s", c->name);
				rc = replace_refused(a, old, why.data);
			}
			if (rc == 0 && !same_shape(of->type, fs[i].type)) {
				bool prim = of->type->nchildren == 0 && fs[i].type->nchildren == 0;
				if (prim && widen && ac_widening_allowed(of->type, fs[i].type)) {
					m2 = NULL;
					rc = dl_type_change_meta(&m2, meta, of->type, fs[i].type, NULL);
					dl_free(meta);
					meta = m2;
				} else if (prim || !same_shape(of->type, fs[i].type)) {
					char ot[128], nt[128];
					dl_type_sql(of->type, ot, sizeof ot);
					dl_type_sql(fs[i].type, nt, sizeof nt);
					dl_buf_clear(&why);
					dl_buf_printf(&why, "changing data type of %s from %s to %s", c->name, ot, nt);
					rc = replace_refused(a, old, why.data);
				}
			}
			if (rc == 0) {
				/* the old type keeps the nested fields' metadata; a widened
				 * primitive takes the new type */
				if (same_shape(of->type, fs[i].type)) {
					dl_type_unref(fs[i].type);
					fs[i].type = dl_type_ref(of->type);
				}
				dl_free(fs[i].metadata);
				fs[i].metadata = meta;
			} else {
				dl_free(meta);
			}
		}
		if (rc == 0) {
			dl_buf_clear(&one);
			ac_field_json(&one, NULL, 0, &fs[i]);
			dl_buf_printf(&params, "%s%s", i ? "," : "", one.data);
		}
	}
	dl_buf_putc(&params, ']');
	/* Columns left out are dropped: that needs column mapping, and never a
	 * partition column. */
	for (int k = 0; k < old->nchildren && rc == 0; k++) {
		bool kept = false;
		for (size_t i = 0; i < ncols && !kept; i++) kept = strcasecmp(names[i], old->children[k].name) == 0;
		if (kept) continue;
		if (ac_partition_index(a, old->children[k].name) >= 0) {
			dl_buf_clear(&why);
			dl_buf_printf(&why, "dropping partition column %s", old->children[k].name);
			rc = replace_refused(a, old, why.data);
		} else if (ac_mapping_mode(a) == DL_CM_NONE) {
			dl_buf_clear(&why);
			dl_buf_printf(&why, "dropping column %s (dropping columns needs column mapping: "
			              "'delta.columnMapping.mode' = 'name')", old->children[k].name);
			rc = replace_refused(a, old, why.data);
		} else {
			const char *parts[1] = {old->children[k].name};
			rc = ac_check_dependents(a, parts, 1, "dropping");
		}
	}
	dl_type *schema = NULL;
	if (rc == 0) {
		schema = dl_type_struct(fs, (int)ncols);
		if (!schema) rc = DL_ENOMEM;
	}
	if (rc == 0) rc = ac_assign_ids(a, &schema);
	if (rc == 0) rc = dl_alter_set_schema(a, schema);
	if (rc == 0) rc = dl_txn_set_parameter(a->txn, "columns", params.data);
	dl_type_unref(schema);
	(void)made;
	for (size_t i = 0; i < ncols; i++) field_release(&fs[i]);
	dl_free(fs);
	dl_buf_free(&params);
	dl_buf_free(&one);
	dl_buf_free(&why);
	return rc;
}

int dl_alter_replace_columns(int64_t *version, const char *uri, const dl_alter_column *cols,
                             size_t ncols, const dl_alter_options *opts)
{
	if (!version) return dl_error_set(DL_EINVALID, "dl_alter_replace_columns: version missing");
	*version = -1;
	if (!cols && ncols) return dl_error_set(DL_EINVALID, "dl_alter_replace_columns: columns missing");
	dl_alter_txn a;
	int rc = dl_alter_begin(&a, "REPLACE COLUMNS", uri, opts);
	if (rc == 0) rc = replace_columns(&a, cols, ncols);
	if (rc == 0) rc = dl_alter_commit(&a, version);
	dl_alter_end(&a);
	return rc;
}
