/* ALTER TABLE ADD CONSTRAINT name CHECK (expr) / DROP CONSTRAINT [IF
 * EXISTS] name (Spark's AlterTableAddConstraintDeltaCommand /
 * AlterTableDropConstraintDeltaCommand; PROTOCOL.md "CHECK Constraints").
 *
 * A constraint is the table property delta.constraints.<name lower-cased>
 * holding the expression text. ADD refuses an existing name
 * (DELTA_CONSTRAINT_ALREADY_EXISTS), an expression that is not boolean
 * (DELTA_NON_BOOLEAN_CHECK_CONSTRAINT), and, after a full scan of the read
 * version, a table with rows where the expression is not TRUE - false or
 * NULL, as writes enforce it - (DELTA_NEW_CHECK_CONSTRAINT_VIOLATION with
 * the count, plus the first such row's values). The commit adds the
 * checkConstraints feature (writer 3, or listed under table features) and
 * reads the whole table, so a concurrent write conflicts rather than slip in
 * a violating row. Operations "ADD CONSTRAINT" {name, expr} and "DROP
 * CONSTRAINT" {name, expr, existed}. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "alter/properties_internal.h"
#include "exec/exec.h"
#include "ops/enforce.h"
#include "util/error.h"
#include "util/mem.h"

static int constraint_key(char **out, ap_ctx *c, const char *name)
{
	size_t n = strlen(name) + 19;
	char *k = dl_arena_alloc(&c->t.arena, n);
	if (!k) return DL_ENOMEM;
	snprintf(k, n, "delta.constraints.%s", name);
	for (char *p = k + 18; *p; p++) *p = (char)tolower((unsigned char)*p);
	*out = k;
	return 0;
}

/* The values of the first violating row, in the words of the write-time
 * check (DELTA_VIOLATE_CONSTRAINT_WITH_VALUES). */
static void first_row_text(char *out, size_t cap, const dl_type *schema, const dl_batch *b,
                           const char *key, const char *expr)
{
	out[0] = 0;
	dl_kv kv = {key, expr};
	dl_str_map m = {&kv, 1};
	dl_enforcer *e;
	if (dl_enforcer_new(&e, schema, &m) < 0) {
		dl_error_clear();
		return;
	}
	if (dl_enforcer_check(e, b, NULL) < 0) snprintf(out, cap, "; the first: %s", dl_error_last()->message);
	dl_error_clear();
	dl_enforcer_free(e);
}

/* Rows of the read version where `expr` is not TRUE. */
static int count_violations(ap_ctx *c, const char *key, const char *expr, int64_t *count, char *row,
                            size_t rowcap)
{
	*count = 0;
	row[0] = 0;
	size_t n = strlen(expr) * 2 + 32;
	char *sql = dl_malloc(n);
	if (!sql) return DL_ENOMEM;
	snprintf(sql, n, "NOT (%s) OR (%s) IS NULL", expr, expr);
	dl_expr *pred = NULL;
	int rc = dl_expr_parse(&pred, sql);
	dl_free(sql);
	dl_batch_stream *scan = NULL, *f = NULL;
	if (rc == 0) rc = dl_exec_scan_snapshot(&scan, c->t.snap, NULL);
	dl_exec_ctx ctx = DL_EXEC_CTX_INIT;
	if (rc == 0) {
		rc = dl_exec_filter(&f, scan, pred, &ctx);
		pred = NULL;
		scan = NULL;
	}
	dl_expr_free(pred);
	dl_batch_stream_free(scan);
	for (dl_batch *b = NULL; rc == 0;) {
		rc = dl_batch_stream_next(f, &b);
		if (rc < 0 || !b) break;
		if (*count == 0 && b->num_rows > 0)
			first_row_text(row, rowcap, dl_batch_stream_schema(f), b, key, expr);
		*count += b->num_rows;
		dl_batch_free(b);
	}
	if (f) dl_batch_stream_free(f);
	return rc;
}

static int add_constraint(ap_ctx *c, const char *name, const char *expr, int64_t *version)
{
	if (!name || !name[0] || !expr || !expr[0])
		return dl_error_set(DL_EINVALID, "ADD CONSTRAINT needs a name and an expression");
	if (strcmp(name, "__CHAR_VARCHAR_STRING_LENGTH_CHECK__") == 0)
		return dl_error_set_class(DL_EINVALID, "_LEGACY_ERROR_TEMP_DELTA_0001",
		                          "Cannot use '%s' as the name of a CHECK constraint.", name);
	DL_TRY(dl_alter_start(&c->t, "ADD CONSTRAINT"));
	char *key;
	DL_TRY(constraint_key(&key, c, name));
	const dl_metadata *md = ap_md(c);
	const char *old = dl_str_map_get(&md->configuration, key, NULL);
	if (old)
		return dl_error_set_class(DL_EEXISTS, "DELTA_CONSTRAINT_ALREADY_EXISTS",
		                          "Constraint '%s' already exists. Please delete the old constraint "
		                          "first.\nOld constraint:\n%s",
		                          name, old);
	/* Bound against the table's columns: unknown columns, non-boolean. */
	dl_expr *e = NULL;
	int rc = dl_expr_parse(&e, expr);
	if (rc == 0) rc = dl_expr_bind(e, dl_snapshot_schema(c->t.snap));
	if (rc < 0) {
		dl_expr_free(e);
		return dl_error_prefix("CHECK constraint %s", name);
	}
	bool boolean = dl_expr_type(e)->id == DL_TYPE_BOOLEAN;
	dl_expr_free(e);
	if (!boolean)
		return dl_error_set_class(DL_EINVALID, "DELTA_NON_BOOLEAN_CHECK_CONSTRAINT",
		                          "CHECK constraint '%s' (%s) should be a boolean expression.", name,
		                          expr);
	int64_t bad;
	char row[1024];
	DL_TRY(count_violations(c, key, expr, &bad, row, sizeof row));
	if (bad > 0)
		return dl_error_set_class(DL_ECONSTRAINT, "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION",
		                          "%lld rows in %s violate the new CHECK constraint (%s)%s", (long long)bad,
		                          ap_table_name(c), expr, row);
	dl_str_map conf;
	DL_TRY(ap_conf_copy(&conf, c, &md->configuration, 1));
	DL_TRY(ap_conf_put(&conf, c, key, expr));
	DL_TRY(ap_stage(c, &conf, NULL, NULL, NULL));
	dl_txn_read_whole_table(c->t.txn);
	DL_TRY(dl_txn_set_parameter(c->t.txn, "name", name));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "expr", expr));
	return dl_txn_commit(c->t.txn, version);
}

int dl_alter_add_constraint(int64_t *version, const char *uri, const char *name, const char *expr,
                            const dl_alter_options *opts)
{
	*version = -1;
	ap_ctx c;
	int rc = ap_open(&c, uri, opts);
	if (rc == 0) rc = add_constraint(&c, name, expr, version);
	dl_alter_end(&c.t);
	return rc;
}

static int drop_constraint(ap_ctx *c, const char *name, bool if_exists, int64_t *version)
{
	if (!name || !name[0]) return dl_error_set(DL_EINVALID, "DROP CONSTRAINT needs a name");
	char *key;
	DL_TRY(constraint_key(&key, c, name));
	const dl_metadata *md = ap_md(c);
	const char *old = dl_str_map_get(&md->configuration, key, NULL);
	if (!old && !if_exists)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_CONSTRAINT_DOES_NOT_EXIST",
		                          "Cannot drop nonexistent constraint %s from table %s. To avoid "
		                          "throwing an error, provide the parameter IF EXISTS or set the SQL "
		                          "session configuration "
		                          "spark.databricks.delta.constraints.assumesDropIfExists.enabled to "
		                          "true.",
		                          name, ap_table_name(c));
	if (!old) return 0; /* IF EXISTS found nothing: *version stays -1 */
	DL_TRY(dl_alter_start(&c->t, "DROP CONSTRAINT"));
	dl_str_map conf;
	DL_TRY(ap_conf_copy(&conf, c, &md->configuration, 0));
	ap_conf_remove(&conf, key);
	DL_TRY(ap_stage(c, &conf, NULL, ap_proto(c), NULL));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "name", name));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "expr", old));
	DL_TRY(dl_txn_set_parameter(c->t.txn, "existed", "true"));
	return dl_txn_commit(c->t.txn, version);
}

int dl_alter_drop_constraint(int64_t *version, const char *uri, const char *name, bool if_exists,
                             const dl_alter_options *opts)
{
	*version = -1;
	ap_ctx c;
	int rc = ap_open(&c, uri, opts);
	if (rc == 0) rc = drop_constraint(&c, name, if_exists, version);
	dl_alter_end(&c.t);
	return rc;
}
