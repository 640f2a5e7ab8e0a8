/* The column forms of ALTER TABLE (dl_alter_add_columns, _replace_columns,
 * _drop_columns, _rename_column, _change_column) as Spark's
 * DeltaAlterTableTests, DeltaColumnMappingSuite and TypeWidening suites
 * check them: the schema after each change, rows still read right (a
 * widened column reads old files widened, a renamed one keeps its data),
 * the commitInfo Spark writes, Spark's error classes on refusals with the
 * table left byte-identical, and a concurrent ALTER conflicting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "../dml/dml_fixture.h"
#include "alter/alter_txn.h"
#include "log/schema.h"
#include "txn/txn.h"
#include "deltalake/alter.h"

#define DDL "id BIGINT, name STRING, p INT"
#define ROWS "1,a,1;2,b,1;3,NULL,2"

static char *make(const char *name, const char *const *props, int nprops)
{
	char *uri = fx_table(g_dir, name);
	dx_create(uri, DDL, NULL, props, nprops);
	dx_append(uri, DDL, ROWS);
	return uri;
}

/* The latest schema string must contain / lack `s`. */
static char *schema_of(const char *uri)
{
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, uri, NULL) < 0) fail_msg("open: %s", dl_error_last()->message);
	const char *s = dl_snapshot_state(snap)->metadata->schema_string;
	char *copy = dl_strdup(s);
	dl_snapshot_free(snap);
	return copy;
}

static void schema_has(const char *uri, const char *s)
{
	char *sc = schema_of(uri);
	if (!strstr(sc, s)) fail_msg("schema lacks %s: %s", s, sc);
	dl_free(sc);
}

static void schema_lacks(const char *uri, const char *s)
{
	char *sc = schema_of(uri);
	if (strstr(sc, s)) fail_msg("schema has %s: %s", s, sc);
	dl_free(sc);
}

/* The top-level column names in order, "a,b,c". */
static void columns_are(const char *uri, const char *want)
{
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	const dl_type *t = dl_snapshot_schema(snap);
	dl_buf b = DL_BUF_INIT;
	dl_buf_puts(&b, "");
	for (int i = 0; i < t->nchildren; i++) dl_buf_printf(&b, "%s%s", i ? "," : "", t->children[i].name);
	if (strcmp(b.data, want) != 0) fail_msg("columns %s, expected %s", b.data, want);
	dl_buf_free(&b);
	dl_snapshot_free(snap);
}

/* rc must be the error with class `klass`, and the table unchanged. */
#define REFUSED(call, want_, uri, before)                                                       \
	do {                                                                                        \
		int rc_ = (call);                                                                       \
		if (rc_ >= 0) fail_msg("%s succeeded, expected %s", #call, want_);                      \
		if (strcmp(dl_error_last()->klass, want_) != 0)                                         \
			fail_msg("%s: class %s (%s), expected %s", #call, dl_error_last()->klass,          \
			         dl_error_last()->message, want_);                                         \
		char *after_ = dx_tree(uri);                                                            \
		assert_string_equal(before, after_);                                                    \
		free(after_);                                                                           \
	} while (0)

static void test_add_columns(void **state)
{
	(void)state;
	char *uri = make("add", NULL, 0);
	dl_alter_column c[3] = {DL_ALTER_COLUMN_INIT, DL_ALTER_COLUMN_INIT, DL_ALTER_COLUMN_INIT};
	c[0].name = "v3";
	c[0].type = "BIGINT";
	c[0].position = DL_COLUMN_POSITION_FIRST;
	c[1].name = "v4";
	c[1].type = "DOUBLE";
	c[1].position = DL_COLUMN_POSITION_AFTER;
	c[1].after = "ID"; /* case-insensitive, as Spark's default resolver */
	c[2].name = "s";
	c[2].type = "STRUCT<a: INT>";
	c[2].comment = "new column";
	dl_alter_options o = DL_ALTER_OPTIONS_INIT;
	o.user_metadata = "adding";
	int64_t v;
	assert_int_equal(dl_alter_add_columns(&v, uri, c, 3, &o), 0);
	assert_int_equal(v, 2);
	columns_are(uri, "v3,id,v4,name,p,s");
	schema_has(uri, "\"comment\":\"new column\"");
	/* old files read the new columns as null */
	dx_rows(uri, "id,v3,v4,s", "1,NULL,NULL,NULL;2,NULL,NULL,NULL;3,NULL,NULL,NULL");
	dx_commit_has(uri, 2, "\"operation\":\"ADD COLUMNS\"");
	dx_commit_has(uri, 2, "\"userMetadata\":\"adding\"");
	dx_commit_has(uri, 2, "\\\"position\\\":\\\"FIRST\\\"");
	dx_commit_has(uri, 2, "\\\"position\\\":\\\"AFTER ID\\\"");
	dx_commit_lacks(uri, 2, "\"add\":");
	/* a nested field, into the struct just added */
	dl_alter_column n = DL_ALTER_COLUMN_INIT;
	n.name = "s.b";
	n.type = "STRING";
	n.position = DL_COLUMN_POSITION_FIRST;
	assert_int_equal(dl_alter_add_columns(&v, uri, &n, 1, NULL), 0);
	schema_has(uri, "{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":[{\"name\":\"b\"");
	dx_commit_has(uri, 3, "\\\"name\\\":\\\"s.b\\\"");
	/* new rows carry the new columns */
	dx_append(uri, "v3 BIGINT, id BIGINT, v4 DOUBLE, name STRING, p INT", "9,4,1.5,d,2");
	dx_rows(uri, "id,v3,v4", "1,NULL,NULL;2,NULL,NULL;3,NULL,NULL;4,9,1.5");
	dl_free(uri);
}

static void test_add_refusals(void **state)
{
	(void)state;
	char *uri = make("add_refused", NULL, 0);
	char *before = dx_tree(uri);
	int64_t v;
	dl_alter_column c = DL_ALTER_COLUMN_INIT;
	c.name = "x";
	c.type = "INT";
	c.not_null = true;
	REFUSED(dl_alter_add_columns(&v, uri, &c, 1, NULL), "DELTA_OPERATION_NOT_ALLOWED", uri, before);
	assert_int_equal(v, -1);
	c.not_null = false;
	c.default_sql = "16";
	REFUSED(dl_alter_add_columns(&v, uri, &c, 1, NULL), "WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED",
	        uri, before);
	c.default_sql = NULL;
	c.name = "NAME";
	REFUSED(dl_alter_add_columns(&v, uri, &c, 1, NULL), "DELTA_DUPLICATE_COLUMNS_FOUND", uri, before);
	c.name = "name.x";
	REFUSED(dl_alter_add_columns(&v, uri, &c, 1, NULL), "INVALID_FIELD_NAME", uri, before);
	assert_non_null(strstr(dl_error_last()->message, "`name`.`x` is invalid: `name` is not a struct"));
	c.name = "x";
	c.position = DL_COLUMN_POSITION_AFTER;
	c.after = "unknown";
	REFUSED(dl_alter_add_columns(&v, uri, &c, 1, NULL), "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA", uri, before);
	c.position = DL_COLUMN_POSITION_NONE;
	c.name = "a column";
	REFUSED(dl_alter_add_columns(&v, uri, &c, 1, NULL), "DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES", uri,
	        before);
	c.name = "x";
	c.type = "NOT A TYPE";
	assert_true(dl_alter_add_columns(&v, uri, &c, 1, NULL) < 0);
	char *after = dx_tree(uri);
	assert_string_equal(before, after);
	free(after);
	free(before);
	dl_free(uri);
}

static void test_change_column(void **state)
{
	(void)state;
	char *uri = make("change", NULL, 0);
	int64_t v;
	dl_column_change ch = DL_COLUMN_CHANGE_INIT;
	ch.comment = "a comment";
	assert_int_equal(dl_alter_change_column(&v, uri, "id", &ch, NULL), 0);
	schema_has(uri, "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"comment\":\"a comment\"}}");
	dx_commit_has(uri, v, "\"operation\":\"CHANGE COLUMN\"");
	dl_column_change pos = DL_COLUMN_CHANGE_INIT;
	pos.position = DL_COLUMN_POSITION_FIRST;
	assert_int_equal(dl_alter_change_column(&v, uri, "p", &pos, NULL), 0);
	columns_are(uri, "p,id,name");
	pos.position = DL_COLUMN_POSITION_AFTER;
	pos.after = "name";
	assert_int_equal(dl_alter_change_column(&v, uri, "p", &pos, NULL), 0);
	columns_are(uri, "id,name,p");
	dx_commit_has(uri, v, "\"position\":\"AFTER name\"");
	pos.after = "id";
	assert_int_equal(dl_alter_change_column(&v, uri, "id", &pos, NULL), 0); /* after itself: stays */
	columns_are(uri, "id,name,p");
	dx_rows(uri, NULL, "1,a,1;2,b,1;3,NULL,2");

	/* SET NOT NULL reads every row first */
	char *before = dx_tree(uri);
	dl_column_change nn = DL_COLUMN_CHANGE_INIT;
	nn.set_not_null = true;
	REFUSED(dl_alter_change_column(&v, uri, "name", &nn, NULL), "DELTA_NOT_NULL_CONSTRAINT_VIOLATED", uri,
	        before);
	free(before);
	assert_int_equal(dl_alter_change_column(&v, uri, "id", &nn, NULL), 0);
	schema_has(uri, "{\"name\":\"id\",\"type\":\"long\",\"nullable\":false");
	dl_write_options wo = fx_opts(DL_WRITE_APPEND);
	assert_true(fx_write(&v, uri, DDL, "NULL,z,3", &wo) < 0); /* now enforced */
	dl_column_change dn = DL_COLUMN_CHANGE_INIT;
	dn.drop_not_null = true;
	assert_int_equal(dl_alter_change_column(&v, uri, "id", &dn, NULL), 0);
	schema_has(uri, "{\"name\":\"id\",\"type\":\"long\",\"nullable\":true");

	/* no type change without type widening */
	before = dx_tree(uri);
	dl_column_change ty = DL_COLUMN_CHANGE_INIT;
	ty.type = "BIGINT";
	REFUSED(dl_alter_change_column(&v, uri, "p", &ty, NULL), "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP",
	        uri, before);
	assert_non_null(strstr(dl_error_last()->message, "from INT to BIGINT"));
	dl_column_change df = DL_COLUMN_CHANGE_INIT;
	df.set_default = "5";
	REFUSED(dl_alter_change_column(&v, uri, "p", &df, NULL), "WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED",
	        uri, before);
	REFUSED(dl_alter_change_column(&v, uri, "nope", &ch, NULL), "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA", uri, before);
	dl_column_change rn = DL_COLUMN_CHANGE_INIT;
	rn.new_name = "n2";
	REFUSED(dl_alter_change_column(&v, uri, "name", &rn, NULL), "DELTA_UNSUPPORTED_RENAME_COLUMN", uri, before);
	REFUSED(dl_alter_rename_column(&v, uri, "name", "n2", NULL), "DELTA_UNSUPPORTED_RENAME_COLUMN", uri, before);
	const char *drop[] = {"name"};
	REFUSED(dl_alter_drop_columns(&v, uri, drop, 1, false, NULL), "DELTA_UNSUPPORTED_DROP_COLUMN", uri, before);
	free(before);
	dl_free(uri);
}

static void test_type_widening(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableTypeWidening", "true"};
	char *uri = make("widen", props, 1);
	int64_t v;
	dl_column_change ty = DL_COLUMN_CHANGE_INIT;
	ty.type = "BIGINT";
	assert_int_equal(dl_alter_change_column(&v, uri, "p", &ty, NULL), 0);
	schema_has(uri, "{\"name\":\"p\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.typeChanges\":"
	                "[{\"fromType\":\"integer\",\"toType\":\"long\"}]}}");
	/* the old file's INT values read widened, next to a value past INT */
	dx_append(uri, "id BIGINT, name STRING, p BIGINT", "4,d,5000000000");
	dx_rows(uri, "id,p", "1,1;2,1;3,2;4,5000000000");
	/* to a decimal: a long needs 20 integer digits */
	ty.type = "DECIMAL(21,2)";
	char *before = dx_tree(uri);
	REFUSED(dl_alter_change_column(&v, uri, "p", &ty, NULL), "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP", uri,
	        before);
	free(before);
	ty.type = "DECIMAL(22,1)";
	assert_int_equal(dl_alter_change_column(&v, uri, "p", &ty, NULL), 0);
	schema_has(uri, "[{\"fromType\":\"integer\",\"toType\":\"long\"},"
	                "{\"fromType\":\"long\",\"toType\":\"decimal(22,1)\"}]");
	dx_rows(uri, "id,p", "1,1.0;2,1.0;3,2.0;4,5000000000.0");
	dl_free(uri);
}

static void test_type_widening_history(void **state)
{
	(void)state;
	const char *props[] = {"delta.enableTypeWidening", "true"};
	char *uri = fx_table(g_dir, "widen2");
	dx_create(uri, "a TINYINT, d DECIMAL(6,2), b TINYINT, dt DATE", NULL, props, 1);
	int64_t v;
	dl_column_change ty = DL_COLUMN_CHANGE_INIT;
	/* integers go to decimals of 10 integer digits or more (the protocol's
	 * Decimal(10 + k1, k2)) */
	ty.type = "DECIMAL(5,0)";
	char *before0 = dx_tree(uri);
	REFUSED(dl_alter_change_column(&v, uri, "b", &ty, NULL), "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP", uri,
	        before0);
	free(before0);
	ty.type = "DECIMAL(11,1)";
	assert_int_equal(dl_alter_change_column(&v, uri, "b", &ty, NULL), 0);
	/* date to timestamp_ntz brings the timestampNtz feature along */
	ty.type = "TIMESTAMP_NTZ";
	assert_int_equal(dl_alter_change_column(&v, uri, "dt", &ty, NULL), 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	const dl_protocol *pr = dl_snapshot_state(snap)->protocol;
	bool ntz = false;
	for (uint32_t i = 0; i < pr->nwriter_features; i++) ntz |= strcmp(pr->writer_features[i], "timestampNtz") == 0;
	assert_true(ntz);
	dl_snapshot_free(snap);
	ty.type = "SMALLINT";
	assert_int_equal(dl_alter_change_column(&v, uri, "a", &ty, NULL), 0);
	ty.type = "INT";
	assert_int_equal(dl_alter_change_column(&v, uri, "a", &ty, NULL), 0);
	schema_has(uri, "\"delta.typeChanges\":[{\"fromType\":\"byte\",\"toType\":\"short\"},"
	                "{\"fromType\":\"short\",\"toType\":\"integer\"}]");
	ty.type = "DECIMAL(10,4)";
	assert_int_equal(dl_alter_change_column(&v, uri, "d", &ty, NULL), 0);
	schema_has(uri, "{\"fromType\":\"decimal(6,2)\",\"toType\":\"decimal(10,4)\"}");
	/* narrowing and cross-type changes stay refused */
	char *before = dx_tree(uri);
	ty.type = "SMALLINT";
	REFUSED(dl_alter_change_column(&v, uri, "a", &ty, NULL), "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP", uri,
	        before);
	ty.type = "STRING";
	REFUSED(dl_alter_change_column(&v, uri, "a", &ty, NULL), "DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP", uri,
	        before);
	free(before);
	dl_free(uri);
}

static void test_column_mapping(void **state)
{
	(void)state;
	const char *props[] = {"delta.columnMapping.mode", "name"};
	char *uri = make("cm", props, 1);
	int files = fx_count_parquet(uri);
	int64_t v;
	assert_int_equal(dl_alter_rename_column(&v, uri, "name", "full name", NULL), 0);
	columns_are(uri, "id,full name,p");
	dx_commit_has(uri, v, "\"operation\":\"RENAME COLUMN\"");
	dx_commit_has(uri, v, "\"oldColumnPath\":\"name\",\"newColumnPath\":\"`full name`\"");
	dx_rows(uri, "id,full name", "1,a;2,b;3,NULL");
	/* a new column gets the next id and a physical name */
	dl_alter_column c = DL_ALTER_COLUMN_INIT;
	c.name = "extra";
	c.type = "STRING";
	assert_int_equal(dl_alter_add_columns(&v, uri, &c, 1, NULL), 0);
	schema_has(uri, "{\"name\":\"extra\",\"type\":\"string\",\"nullable\":true,\"metadata\":"
	                "{\"delta.columnMapping.id\":4,\"delta.columnMapping.physicalName\":\"col-");
	dx_append(uri, "id BIGINT, `full name` STRING, p INT, extra STRING", "4,d,3,e");
	const char *drop[] = {"p", "missing"};
	char *before = dx_tree(uri);
	REFUSED(dl_alter_drop_columns(&v, uri, drop, 2, false, NULL), "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA", uri, before);
	free(before);
	assert_int_equal(dl_alter_drop_columns(&v, uri, drop, 2, true, NULL), 0);
	dx_commit_has(uri, v, "\"operation\":\"DROP COLUMNS\"");
	dx_commit_has(uri, v, "\"columns\":\"[\\\"p\\\"]\"");
	columns_are(uri, "id,full name,extra");
	dx_rows(uri, NULL, "1,a,NULL;2,b,NULL;3,NULL,NULL;4,d,e");
	/* re-adding a dropped name is a new column: old data stays hidden */
	c.name = "p";
	c.type = "INT";
	assert_int_equal(dl_alter_add_columns(&v, uri, &c, 1, NULL), 0);
	dx_rows(uri, "id,p", "1,NULL;2,NULL;3,NULL;4,NULL");
	/* nothing to drop: no commit */
	const char *none[] = {"zzz"};
	int64_t before_v = fx_version(uri);
	assert_int_equal(dl_alter_drop_columns(&v, uri, none, 1, true, NULL), 0);
	assert_int_equal(v, -1);
	assert_int_equal(fx_version(uri), before_v);
	/* only the appended file was written: no data file rewritten */
	assert_int_equal(fx_count_parquet(uri), files + 1);
	dl_free(uri);
}

static void test_dependents_and_partitions(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "deps");
	const char *props[] = {"delta.columnMapping.mode", "name", "delta.constraints.positive", "id > 0"};
	dx_create(uri, "id BIGINT, name STRING, p INT", "p", props, 2);
	dx_append(uri, DDL, ROWS);
	char *before = dx_tree(uri);
	int64_t v;
	const char *d1[] = {"id"};
	REFUSED(dl_alter_drop_columns(&v, uri, d1, 1, false, NULL), "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE", uri,
	        before);
	REFUSED(dl_alter_rename_column(&v, uri, "id", "ident", NULL), "DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE", uri,
	        before);
	const char *d2[] = {"p"};
	REFUSED(dl_alter_drop_columns(&v, uri, d2, 1, false, NULL), "DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN", uri,
	        before);
	free(before);
	/* renaming a partition column renames it in partitionColumns */
	assert_int_equal(dl_alter_rename_column(&v, uri, "p", "part", NULL), 0);
	dx_rows(uri, "id,part", "1,1;2,1;3,2");
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	assert_int_equal(dl_snapshot_state(snap)->metadata->npartition_columns, 1);
	assert_string_equal(dl_snapshot_state(snap)->metadata->partition_columns[0], "part");
	dl_snapshot_free(snap);
	dl_free(uri);
}

static void test_defaults(void **state)
{
	(void)state;
	const char *props[] = {"delta.feature.allowColumnDefaults", "supported"};
	char *uri = make("defaults", props, 1);
	int64_t v;
	dl_column_change df = DL_COLUMN_CHANGE_INIT;
	df.set_default = "16";
	assert_int_equal(dl_alter_change_column(&v, uri, "p", &df, NULL), 0);
	schema_has(uri, "\"CURRENT_DEFAULT\":\"16\"");
	df.set_default = "id + 1";
	char *before = dx_tree(uri);
	REFUSED(dl_alter_change_column(&v, uri, "p", &df, NULL), "INVALID_DEFAULT_VALUE.NOT_CONSTANT", uri, before);
	free(before);
	dl_column_change dd = DL_COLUMN_CHANGE_INIT;
	dd.drop_default = true;
	assert_int_equal(dl_alter_change_column(&v, uri, "p", &dd, NULL), 0);
	schema_lacks(uri, "CURRENT_DEFAULT");
	dl_free(uri);
}

static void test_replace_columns(void **state)
{
	(void)state;
	char *uri = make("replace", NULL, 0);
	dl_alter_column c[3] = {DL_ALTER_COLUMN_INIT, DL_ALTER_COLUMN_INIT, DL_ALTER_COLUMN_INIT};
	c[0].name = "name";
	c[0].type = "STRING";
	c[0].comment = "who";
	c[1].name = "id";
	c[1].type = "BIGINT";
	c[2].name = "p";
	c[2].type = "INT";
	int64_t v;
	assert_int_equal(dl_alter_replace_columns(&v, uri, c, 3, NULL), 0);
	columns_are(uri, "name,id,p");
	schema_has(uri, "\"comment\":\"who\"");
	dx_commit_has(uri, v, "\"operation\":\"REPLACE COLUMNS\"");
	dx_rows(uri, "id,name,p", "1,a,1;2,b,1;3,NULL,2");
	/* leaving a column out drops it: column mapping needed */
	char *before = dx_tree(uri);
	REFUSED(dl_alter_replace_columns(&v, uri, c, 2, NULL), "DELTA_UNSUPPORTED_ALTER_TABLE_REPLACE_COL_OP", uri,
	        before);
	c[2].type = "BIGINT";
	REFUSED(dl_alter_replace_columns(&v, uri, c, 3, NULL), "DELTA_UNSUPPORTED_ALTER_TABLE_REPLACE_COL_OP", uri,
	        before);
	free(before);
	dl_free(uri);
}

static void test_sync_identity(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "identity");
	dx_create(uri, "id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1 INCREMENT BY 10), v INT", NULL,
	          NULL, 0);
	dx_append(uri, "id BIGINT, v INT", "95,1;7,2");
	int64_t v;
	dl_column_change s = DL_COLUMN_CHANGE_INIT;
	s.sync_identity = true;
	assert_int_equal(dl_alter_change_column(&v, uri, "id", &s, NULL), 0);
	/* 95 rounds up to the sequence 1, 11, ... 101 */
	schema_has(uri, "\"delta.identity.highWaterMark\":101");
	char *before = dx_tree(uri);
	REFUSED(dl_alter_change_column(&v, uri, "v", &s, NULL), "DELTA_IDENTITY_COLUMNS_ALTER_NON_IDENTITY_COLUMN",
	        uri, before);
	free(before);
	dl_free(uri);
}

/* An ALTER whose snapshot went stale under another metadata change fails
 * with DELTA_METADATA_CHANGED, leaving the winner's change alone. */
static void test_concurrent_alter_conflicts(void **state)
{
	(void)state;
	char *uri = make("conflict", NULL, 0);
	dl_alter_txn a;
	assert_int_equal(dl_alter_begin(&a, "SET TBLPROPERTIES", uri, NULL), 0);
	dl_alter_column c = DL_ALTER_COLUMN_INIT;
	c.name = "x";
	c.type = "INT";
	int64_t v;
	assert_int_equal(dl_alter_add_columns(&v, uri, &c, 1, NULL), 0);
	assert_int_equal(dl_alter_set_config(&a, "k", "v"), 0);
	int64_t lost;
	assert_int_equal(dl_alter_commit(&a, &lost), DL_ECONFLICT);
	assert_string_equal(dl_error_last()->klass, "DELTA_METADATA_CHANGED");
	assert_int_equal(lost, -1);
	dl_alter_end(&a);
	columns_are(uri, "id,name,p,x");
	assert_int_equal(fx_version(uri), v);
	dl_free(uri);
}

/* A writer that began before an ALTER and commits after it fails with
 * DELTA_METADATA_CHANGED (its data was shaped for the old schema). */
static void test_writer_conflicts_with_alter(void **state)
{
	(void)state;
	char *uri = make("writer_conflict", NULL, 0);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	dl_store *store;
	assert_int_equal(dl_store_open(&store, uri, NULL), 0);
	dl_transaction *t;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "WRITE";
	assert_int_equal(dl_txn_begin(&t, store, snap, &to), 0);
	dl_add add = {.path = "never-written.parquet", .size = 10, .modification_time = 1, .data_change = true,
	              .stats = "{\"numRecords\":1}", .stats_len = 16, .base_row_id = DL_NONE,
	              .default_row_commit_version = DL_NONE};
	assert_int_equal(dl_txn_add_file(t, &add), 0);
	dl_column_change ch = DL_COLUMN_CHANGE_INIT;
	ch.comment = "changed meanwhile";
	int64_t v;
	assert_int_equal(dl_alter_change_column(&v, uri, "name", &ch, NULL), 0);
	int64_t wv;
	assert_int_equal(dl_txn_commit(t, &wv), DL_ECONFLICT);
	assert_string_equal(dl_error_last()->klass, "DELTA_METADATA_CHANGED");
	assert_int_equal(fx_version(uri), v);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	dl_store_free(store);
	dl_free(uri);
}

/* A clustering column (by physical name in the delta.clustering domain)
 * cannot be dropped; the other columns can. */
static void test_drop_clustering_column(void **state)
{
	(void)state;
	const char *props[] = {"delta.columnMapping.mode", "name", "delta.feature.domainMetadata", "supported"};
	char *uri = make("clustered", props, 2);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, uri, NULL), 0);
	dl_arena ar = DL_ARENA_INIT;
	const char *phys;
	assert_int_equal(dl_field_physical_name(&dl_snapshot_schema(snap)->children[0], DL_CM_NAME, &ar, &phys), 0);
	char conf[256];
	snprintf(conf, sizeof conf, "{\"clusteringColumns\":[[\"%s\"]]}", phys);
	dl_store *store;
	assert_int_equal(dl_store_open(&store, uri, NULL), 0);
	dl_transaction *t;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "CLUSTER BY";
	assert_int_equal(dl_txn_begin(&t, store, snap, &to), 0);
	assert_int_equal(dl_txn_set_domain(t, "delta.clustering", conf, false), 0);
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), 0);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	dl_store_free(store);
	dl_arena_free(&ar);
	char *before = dx_tree(uri);
	const char *d1[] = {"ID"};
	REFUSED(dl_alter_drop_columns(&v, uri, d1, 1, false, NULL), "DELTA_UNSUPPORTED_DROP_CLUSTERING_COLUMN", uri,
	        before);
	free(before);
	const char *d2[] = {"name"};
	assert_int_equal(dl_alter_drop_columns(&v, uri, d2, 1, false, NULL), 0);
	columns_are(uri, "id,p");
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_columns),
		cmocka_unit_test(test_add_refusals),
		cmocka_unit_test(test_change_column),
		cmocka_unit_test(test_type_widening),
		cmocka_unit_test(test_type_widening_history),
		cmocka_unit_test(test_column_mapping),
		cmocka_unit_test(test_dependents_and_partitions),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_replace_columns),
		cmocka_unit_test(test_sync_identity),
		cmocka_unit_test(test_concurrent_alter_conflicts),
		cmocka_unit_test(test_writer_conflicts_with_alter),
		cmocka_unit_test(test_drop_clustering_column),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
