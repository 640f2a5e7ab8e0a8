/* SHOW TABLES / SCHEMAS / COLUMNS / TBLPROPERTIES / CREATE TABLE with
 * Spark's result columns. LIKE patterns are Spark's for SHOW: '*' matches
 * anything, '|' separates alternatives, case-insensitive. */
#include "sql/session_internal.h"
#include "json/json.h"
#include "log/schema.h"
#include "deltalake/uniform.h"
#include "log/snapshot.h"
#include "sql/print.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <string.h>

static bool glob_match(const char *p, size_t pn, const char *s)
{
	if (pn == 0) return *s == 0;
	if (*p == '*') {
		for (const char *t = s;; t++) {
			if (glob_match(p + 1, pn - 1, t)) return true;
			if (!*t) return false;
		}
	}
	if (!*s || tolower((unsigned char)*p) != tolower((unsigned char)*s)) return false;
	return glob_match(p + 1, pn - 1, s + 1);
}

bool sql_show_like(const char *pattern, const char *name)
{
	if (!pattern) return true;
	const char *p = pattern;
	for (;;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		while (n && isspace((unsigned char)*p)) p++, n--;
		while (n && isspace((unsigned char)p[n - 1])) n--;
		if (glob_match(p, n, name)) return true;
		if (!bar) return false;
		p = bar + 1;
	}
}

int sql_run_show_tables(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	const char *schema = st->schema.nparts ? st->schema.parts[st->schema.nparts - 1] : NULL;
	dl_catalog_table_list l;
	DL_TRY(dl_catalog_list_tables(&l, c->cat, schema));
	static const char *const names[] = {"namespace", "tableName", "isTemporary"};
	static const dl_type_id types[] = {DL_TYPE_STRING, DL_TYPE_STRING, DL_TYPE_BOOLEAN};
	sql_rows r;
	int rc = sql_rows_init(&r, names, types, 3);
	for (size_t i = 0; rc == 0 && i < l.count; i++) {
		if (!sql_show_like(st->pattern, l.items[i].name)) continue;
		rc = sql_rows_str(&r, 0, l.items[i].schema);
		if (rc == 0) rc = sql_rows_str(&r, 1, l.items[i].name);
		if (rc == 0) rc = sql_rows_bool(&r, 2, false);
	}
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_catalog_table_list_free(&l);
	return rc;
}

int sql_run_show_schemas(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	dl_catalog_name_list l;
	DL_TRY(dl_catalog_list_schemas(&l, c->cat));
	static const char *const names[] = {"namespace"};
	static const dl_type_id types[] = {DL_TYPE_STRING};
	sql_rows r;
	int rc = sql_rows_init(&r, names, types, 1);
	for (size_t i = 0; rc == 0 && i < l.count; i++)
		if (sql_show_like(st->pattern, l.names[i])) rc = sql_rows_str(&r, 0, l.names[i]);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_catalog_name_list_free(&l);
	return rc;
}

int sql_run_show_columns(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	dl_snapshot *snap = NULL;
	/* SHOW COLUMNS IN t IN s: t of schema s */
	sql_table_ref q = *st->table;
	char *parts[2];
	if (st->schema.nparts && q.kind == TREF_NAME) {
		if (q.name.nparts != 1)
			return dl_error_set_class(DL_EINVALID, "SHOW_COLUMNS_WITH_CONFLICT_NAMESPACE",
			                          "[SHOW_COLUMNS_WITH_CONFLICT_NAMESPACE] SHOW COLUMNS with a qualified table "
			                          "and IN schema");
		parts[0] = st->schema.parts[st->schema.nparts - 1];
		parts[1] = q.name.parts[0];
		q.name.parts = parts;
		q.name.nparts = 2;
	}
	DL_TRY(sql_target_snapshot(&snap, &t, c, &q, true));
	static const char *const names[] = {"col_name"};
	static const dl_type_id types[] = {DL_TYPE_STRING};
	sql_rows r;
	int rc = sql_rows_init(&r, names, types, 1);
	const dl_type *s = dl_snapshot_schema(snap);
	for (int i = 0; rc == 0 && s && i < s->nchildren; i++) rc = sql_rows_str(&r, 0, s->children[i].name);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_snapshot_free(snap);
	sql_target_free(&t);
	return rc;
}

/* Delta's SHOW TBLPROPERTIES: the table's properties, then the protocol
 * versions as delta.minReaderVersion / delta.minWriterVersion; a UniForm
 * Iceberg table also shows its Iceberg metadata's converted_delta_version
 * and converted_delta_timestamp (what an Iceberg catalog's SHOW
 * TBLPROPERTIES shows; docs/UNIFORM.md), when there is metadata. */
int sql_run_show_tblproperties(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	dl_snapshot *snap = NULL;
	DL_TRY(sql_target_snapshot(&snap, &t, c, st->table, true));
	static const char *const names[] = {"key", "value"};
	static const dl_type_id types[] = {DL_TYPE_STRING, DL_TYPE_STRING};
	sql_rows r;
	int rc = sql_rows_init(&r, names, types, 2);
	size_t n = dl_snapshot_property_count(snap);
	char rv[16], wv[16];
	snprintf(rv, sizeof rv, "%d", dl_snapshot_min_reader_version(snap));
	snprintf(wv, sizeof wv, "%d", dl_snapshot_min_writer_version(snap));
	const char *only = st->nprops ? st->props[0].key : NULL;
	bool found = false;
	size_t extra = 2;
	char cv[24], ct[24];
	const char *fmts = dl_snapshot_property(snap, "delta.universalFormat.enabledFormats");
	if (rc == 0 && fmts && strstr(fmts, "iceberg")) {
		dl_uniform_options uo = DL_UNIFORM_OPTIONS_INIT;
		uo.store = dl_snapshot_store(snap);
		dl_uniform_info u;
		rc = dl_uniform_status(&u, NULL, &uo);
		if (rc == 0 && u.converted_delta_version >= 0) {
			snprintf(cv, sizeof cv, "%lld", (long long)u.converted_delta_version);
			snprintf(ct, sizeof ct, "%lld", (long long)u.converted_delta_timestamp);
			extra = 4;
		}
	}
	for (size_t i = 0; rc == 0 && i < n + extra; i++) {
		const char *k, *v;
		if (i < n) dl_snapshot_property_at(&k, &v, snap, i);
		else if (i == n) k = "delta.minReaderVersion", v = rv;
		else if (i == n + 1) k = "delta.minWriterVersion", v = wv;
		else if (i == n + 2) k = "converted_delta_version", v = cv;
		else k = "converted_delta_timestamp", v = ct;
		if (only && strcmp(only, k) != 0) continue;
		found = true;
		rc = sql_rows_str(&r, 0, k);
		if (rc == 0) rc = sql_rows_str(&r, 1, v);
	}
	if (rc == 0 && only && !found) {
		/* Spark answers a missing key with a row saying so */
		char msg[600];
		snprintf(msg, sizeof msg, "Table %s does not have property: %s", t.display, only);
		rc = sql_rows_str(&r, 0, only);
		if (rc == 0) rc = sql_rows_str(&r, 1, msg);
	}
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_snapshot_free(snap);
	sql_target_free(&t);
	return rc;
}

/* An identifier as Spark's SHOW CREATE TABLE writes it: back quotes only
 * when needed. */
static int ident(dl_buf *b, const char *s)
{
	bool plain = *s && !isdigit((unsigned char)*s);
	for (const char *p = s; *p && plain; p++) plain = isalnum((unsigned char)*p) || *p == '_';
	if (plain) return dl_buf_puts(b, s);
	DL_TRY(dl_buf_putc(b, '`'));
	for (const char *p = s; *p; p++) DL_TRY(*p == '`' ? dl_buf_puts(b, "``") : dl_buf_putc(b, *p));
	return dl_buf_putc(b, '`');
}

static int sql_string(dl_buf *b, const char *s)
{
	return sqlp_string(b, s);
}

/* The field's column options back as DDL (comment, generation expression,
 * identity, default) from its Delta metadata. */
static int column_options(dl_buf *b, const dl_field *f)
{
	dl_arena a = DL_ARENA_INIT;
	const char *s = NULL;
	int rc = 0;
	if (!f->nullable) rc = dl_buf_puts(b, " NOT NULL");
	if (rc == 0 && dl_field_metadata_string(f, "delta.generationExpression", &a, &s) == 0 && s)
		rc = dl_buf_printf(b, " GENERATED ALWAYS AS (%s)", s);
	int64_t start = 0, step = 0;
	bool has_start = false, has_step = false;
	if (rc == 0 && dl_field_metadata_long(f, "delta.identity.start", &start, &has_start) == 0 && has_start &&
	    dl_field_metadata_long(f, "delta.identity.step", &step, &has_step) == 0) {
		const dl_json *ae = NULL;
		bool explicit_ok = dl_field_metadata_get(f, "delta.identity.allowExplicitInsert", &a, &ae) == 0 && ae &&
		                   ae->kind == DL_JSON_TRUE;
		rc = dl_buf_printf(b, " GENERATED %s AS IDENTITY (START WITH %lld INCREMENT BY %lld)",
		                   explicit_ok ? "BY DEFAULT" : "ALWAYS", (long long)start, (long long)step);
	}
	s = NULL;
	if (rc == 0 && dl_field_metadata_string(f, "CURRENT_DEFAULT", &a, &s) == 0 && s)
		rc = dl_buf_printf(b, " DEFAULT %s", s);
	s = NULL;
	if (rc == 0 && dl_field_metadata_string(f, "comment", &a, &s) == 0 && s) {
		rc = dl_buf_puts(b, " COMMENT ");
		if (rc == 0) rc = sql_string(b, s);
	}
	dl_arena_free(&a);
	return rc;
}

int sql_run_show_create_table(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	sql_target t;
	dl_snapshot *snap = NULL;
	DL_TRY(sql_target_snapshot(&snap, &t, c, st->table, true));
	dl_buf b = DL_BUF_INIT;
	int rc = dl_buf_printf(&b, "CREATE TABLE %s (\n", t.display);
	const dl_type *s = dl_snapshot_schema(snap);
	for (int i = 0; rc == 0 && s && i < s->nchildren; i++) {
		char ty[1024];
		dl_type_sql(s->children[i].type, ty, sizeof ty);
		rc = dl_buf_puts(&b, "  ");
		if (rc == 0) rc = ident(&b, s->children[i].name);
		if (rc == 0) rc = dl_buf_printf(&b, " %s", ty);
		if (rc == 0) rc = column_options(&b, &s->children[i]);
		if (rc == 0) rc = dl_buf_puts(&b, i + 1 < s->nchildren ? ",\n" : ")\n");
	}
	if (rc == 0) rc = dl_buf_puts(&b, "USING delta\n");
	size_t np = dl_snapshot_partition_column_count(snap);
	for (size_t i = 0; rc == 0 && i < np; i++) {
		rc = dl_buf_puts(&b, i ? ", " : "PARTITIONED BY (");
		if (rc == 0) rc = ident(&b, dl_snapshot_partition_column(snap, i));
		if (rc == 0 && i + 1 == np) rc = dl_buf_puts(&b, ")\n");
	}
	if (rc == 0 && dl_snapshot_table_description(snap)) {
		rc = dl_buf_puts(&b, "COMMENT ");
		if (rc == 0) rc = sql_string(&b, dl_snapshot_table_description(snap));
		if (rc == 0) rc = dl_buf_putc(&b, '\n');
	}
	if (rc == 0 && (!t.from_catalog || t.info.type == DL_CATALOG_EXTERNAL)) {
		rc = dl_buf_puts(&b, "LOCATION ");
		if (rc == 0) rc = sql_string(&b, dl_snapshot_table_root(snap));
		if (rc == 0) rc = dl_buf_putc(&b, '\n');
	}
	size_t n = dl_snapshot_property_count(snap);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *k, *v;
		dl_snapshot_property_at(&k, &v, snap, i);
		rc = dl_buf_puts(&b, i ? ",\n  " : "TBLPROPERTIES (\n  ");
		if (rc == 0) rc = sql_string(&b, k);
		if (rc == 0) rc = dl_buf_puts(&b, " = ");
		if (rc == 0) rc = sql_string(&b, v);
		if (rc == 0 && i + 1 == n) rc = dl_buf_puts(&b, ")\n");
	}
	if (rc == 0) rc = dl_buf_putc(&b, 0);
	static const char *const names[] = {"createtab_stmt"};
	static const dl_type_id types[] = {DL_TYPE_STRING};
	sql_rows r;
	memset(&r, 0, sizeof r);
	if (rc == 0) rc = sql_rows_init(&r, names, types, 1);
	if (rc == 0) rc = sql_rows_str(&r, 0, (const char *)b.data);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	dl_buf_free(&b);
	dl_snapshot_free(snap);
	sql_target_free(&t);
	return rc;
}
