/* Shared checks of the ALTER TABLE column forms (see
 * alter_columns_internal.h), with Spark's error classes. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/alter_columns_internal.h"
#include "expr/expr.h"
#include "json/json.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "ops/column_mapping.h"
#include "ops/ddl.h"
#include "ops/type_change_deps.h"
#include "rewrite/conform.h"
#include "util/error.h"
#include "util/mem.h"

dl_column_mapping_mode ac_mapping_mode(const dl_alter_txn *a)
{
	return dl_snapshot_props(a->snap)->column_mapping_mode;
}

int ac_check_name(const dl_alter_txn *a, const char *name)
{
	if (ac_mapping_mode(a) != DL_CM_NONE) return 0;
	if (strpbrk(name, " ,;{}()\n\t=") == NULL) return 0;
	return dl_error_set_class(DL_EINVALID, "DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES",
	                          "Found invalid character(s) among ' ,;{}()\\n\\t=' in the column "
	                          "name '%s'. Please use column mapping ('delta.columnMapping.mode' = "
	                          "'name') to use these characters.",
	                          name);
}

int ac_not_found(const dl_alter_txn *a, const char *const *parts, int n)
{
	(void)a;
	dl_buf b = DL_BUF_INIT;
	dl_field_path_text(&b, parts, n);
	int rc = dl_error_set_class(DL_EINVALID, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA",
	                            "Unable to find %s column in the table schema", b.data);
	dl_buf_free(&b);
	return rc;
}

int ac_partition_index(const dl_alter_txn *a, const char *name)
{
	const dl_metadata *md = &a->md;
	for (uint32_t i = 0; i < md->npartition_columns; i++)
		if (strcasecmp(md->partition_columns[i], name) == 0) return (int)i;
	return -1;
}

int ac_parse_type(dl_type **out, const char *text, const char *column)
{
	if (!text || !*text) return dl_error_set(DL_EINVALID, "column %s: no type given", column);
	if (dl_ddl_parse_type(out, text) < 0) return dl_error_prefix("column %s", column);
	return 0;
}

/* ---- dependent expressions ---- */

int ac_check_dependents(dl_alter_txn *a, const char *const *parts, int n, const char *what)
{
	dl_buf col = DL_BUF_INIT, cons = DL_BUF_INIT, gen = DL_BUF_INIT;
	dl_field_path_text(&col, parts, n);
	int rc = dl_column_dependents(dl_alter_read_schema(a), &dl_alter_read_metadata(a)->configuration, parts, n,
	                              &cons, &gen);
	if (rc == 0 && cons.len)
		rc = dl_error_set_class(DL_ECONSTRAINT, "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE",
		                        "Cannot alter column %s because this column is referenced by the "
		                        "following check constraint(s):\n%s (%s it would break them)",
		                        col.data, cons.data, what);
	if (rc == 0 && gen.len)
		rc = dl_error_set_class(DL_ECONSTRAINT, "DELTA_GENERATED_COLUMNS_DEPENDENT_COLUMN_CHANGE",
		                        "Cannot alter column %s because this column is referenced by the "
		                        "following generated column(s):\n%s (%s it would break them)",
		                        col.data, gen.data, what);
	dl_buf_free(&col);
	dl_buf_free(&cons);
	dl_buf_free(&gen);
	return rc;
}

/* ---- operationParameters ---- */

void ac_field_json(dl_buf *out, const char *const *parent, int nparent, const dl_field *f)
{
	dl_buf name = DL_BUF_INIT;
	const char **all = dl_calloc((size_t)nparent + 1, sizeof *all);
	if (all) {
		for (int i = 0; i < nparent; i++) all[i] = parent[i];
		all[nparent] = f->name;
		dl_field_path_text(&name, all, nparent + 1);
	}
	char tname[128];
	dl_type_name(f->type, tname, sizeof tname);
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "name");
	dl_jw_string(&w, name.data ? name.data : f->name);
	dl_jw_key(&w, "type");
	dl_jw_string(&w, tname);
	dl_jw_key(&w, "nullable");
	dl_jw_bool(&w, f->nullable);
	dl_jw_key(&w, "metadata");
	dl_jw_raw(&w, f->metadata && *f->metadata ? f->metadata : "{}");
	dl_jw_object_end(&w);
	dl_jw_finish(&w);
	dl_free(all);
	dl_buf_free(&name);
}

/* ---- column mapping ---- */

int ac_assign_ids(dl_alter_txn *a, dl_type **schema)
{
	if (ac_mapping_mode(a) == DL_CM_NONE) return 0;
	int64_t max = dl_snapshot_props(a->snap)->column_mapping_max_id;
	dl_type *out;
	int rc = dl_cm_assign(&out, *schema, &max);
	if (rc < 0) return rc;
	dl_type_unref(*schema);
	*schema = out;
	char v[32];
	snprintf(v, sizeof v, "%lld", (long long)max);
	return dl_alter_set_config(a, "delta.columnMapping.maxColumnId", v);
}

/* ---- defaults ---- */

int ac_check_defaults_allowed(const dl_alter_txn *a, const char *command)
{
	if (dl_protocol_has(&a->proto, DL_FEATURE_ALLOW_COLUMN_DEFAULTS)) return 0;
	return dl_error_set_class(DL_EUNSUPPORTED, "WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED",
	                          "Failed to execute %s command because it assigned a column DEFAULT "
	                          "value, but the corresponding table feature was not enabled. Please "
	                          "retry the command again after executing ALTER TABLE tableName SET "
	                          "TBLPROPERTIES('delta.feature.allowColumnDefaults' = 'supported').",
	                          command);
}

int ac_check_default_expr(const char *sql, const char *column)
{
	dl_expr *e;
	if (dl_expr_parse(&e, sql) < 0) return dl_error_prefix("the DEFAULT of column %s", column);
	dl_type *empty = dl_type_struct(NULL, 0);
	int rc = empty ? dl_expr_bind(e, empty) : DL_ENOMEM;
	if (rc < 0)
		rc = dl_error_set_class(DL_EINVALID, "INVALID_DEFAULT_VALUE.NOT_CONSTANT",
		                        "the DEFAULT of column %s, %s, must be a constant expression "
		                        "(it may not reference columns): %s",
		                        column, sql, dl_error_last()->message);
	dl_type_unref(empty);
	dl_expr_free(e);
	return rc;
}

/* PROTOCOL.md "Type Widening": exactly dl_type_widens_to's pairs (which
 * carry the protocol's integer-to-decimal bound). */
bool ac_widening_allowed(const dl_type *from, const dl_type *to)
{
	return dl_type_widens_to(from, to);
}
