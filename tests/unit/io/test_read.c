/* dl_read_csv / dl_read_jsonl: typing by a Delta schema and by inference,
 * the CSV options, and the errors a user sees for malformed input (file,
 * line and column named; nothing silently changed). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "deltalake.h"

static char dir[64];

static const char *file_with(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Every row of the stream as "a|b|c" lines of text cells ("NULL" for
 * null), after a header line of "name:format" per column. */
static char *rows_of(struct ArrowArrayStream *st, int *rc_out)
{
	struct ArrowSchema schema;
	assert_int_equal(st->get_schema(st, &schema), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	for (int64_t i = 0; i < schema.n_children; i++)
		fprintf(out, "%s%s:%s", i ? "|" : "", schema.children[i]->name, schema.children[i]->format);
	fputc('\n', out);
	dl_arrow_formatter *f;
	assert_int_equal(dl_arrow_formatter_new(&f, &schema), 0);
	*rc_out = 0;
	for (;;) {
		struct ArrowArray a;
		int err = st->get_next(st, &a);
		if (err) {
			*rc_out = dl_error_last()->code;
			assert_true(*rc_out < 0);
			assert_non_null(st->get_last_error(st));
			break;
		}
		if (!a.release) break;
		int64_t n;
		assert_int_equal(dl_arrow_formatter_set_batch(&n, f, &a), 0);
		for (int64_t r = 0; r < n; r++) {
			for (int c = 0; c < schema.n_children; c++) {
				const char *t;
				size_t l;
				assert_int_equal(dl_arrow_formatter_cell(&t, &l, f, c, r, DL_FORMAT_TEXT), 0);
				fprintf(out, "%s%s", c ? "|" : "", t ? t : "NULL");
			}
			fputc('\n', out);
		}
	}
	fclose(out);
	dl_arrow_formatter_free(f);
	dl_arrow_schema_release(&schema);
	st->release(st);
	return text;
}

static void csv_inferred_and_typed(void **state)
{
	(void)state;
	const char *p = file_with("a.csv", "id,amount,day,ok,name\r\n1,2.5,2024-01-31,true,\"x,\"\"y\"\"\"\r\n\r\n2,,2024-02-01,false,\r\n");
	struct ArrowArrayStream st;
	int rc;
	assert_int_equal(dl_read_csv(&st, p, NULL), 0);
	char *t = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(t, "id:l|amount:g|day:tdD|ok:b|name:u\n"
	                       "1|2.5|2024-01-31|true|x,\"y\"\n"
	                       "2|NULL|2024-02-01|false|NULL\n");
	free(t);
	/* The table's types win for its columns (case-insensitive); others inferred. */
	dl_csv_options o = DL_CSV_OPTIONS_INIT;
	o.schema_json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"ID\",\"type\":\"integer\",\"nullable\":true,"
	                "\"metadata\":{}},{\"name\":\"amount\",\"type\":\"decimal(5,2)\",\"nullable\":true,\"metadata\":{}}]}";
	assert_int_equal(dl_read_csv(&st, p, &o), 0);
	t = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(t, "id:i|amount:d:5,2|day:tdD|ok:b|name:u\n"
	                       "1|2.50|2024-01-31|true|x,\"y\"\n"
	                       "2|NULL|2024-02-01|false|NULL\n");
	free(t);
}

static void csv_options(void **state)
{
	(void)state;
	const char *p = file_with("b.csv", "1;NA;'a;b'\n2;x;''\n");
	dl_csv_options o = DL_CSV_OPTIONS_INIT;
	o.header = false;
	o.delimiter = ';';
	o.quote = '\'';
	o.null_string = "NA";
	o.batch_rows = 1;
	struct ArrowArrayStream st;
	int rc;
	assert_int_equal(dl_read_csv(&st, p, &o), 0);
	char *t = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	/* A quoted empty field stays the empty string; NA is null. */
	assert_string_equal(t, "_c0:l|_c1:u|_c2:u\n1|NULL|a;b\n2|x|\n");
	free(t);
	o.quote = ';';
	assert_int_equal(dl_read_csv(&st, p, &o), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "different characters"));
	o = (dl_csv_options)DL_CSV_OPTIONS_INIT;
	o.version = 99;
	assert_int_equal(dl_read_csv(&st, p, &o), DL_EINVALID);
}

static void csv_errors_name_file_line_and_column(void **state)
{
	(void)state;
	const char *schema = "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,"
	                     "\"metadata\":{}},{\"name\":\"amount\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}";
	dl_csv_options o = DL_CSV_OPTIONS_INIT;
	o.schema_json = schema;
	const char *p = file_with("bad.csv", "id,amount\n1,2\n3,abc\n");
	struct ArrowArrayStream st;
	int rc;
	assert_int_equal(dl_read_csv(&st, p, &o), 0);
	free(rows_of(&st, &rc));
	assert_int_equal(rc, DL_EINVALID);
	const char *m = dl_error_last()->message;
	assert_non_null(strstr(m, "bad.csv: line 3, column amount"));
	assert_non_null(strstr(m, "'abc' is not a valid"));

	p = file_with("wide.csv", "id,amount\n1,2,3\n");
	assert_int_equal(dl_read_csv(&st, p, &o), 0);
	free(rows_of(&st, &rc));
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "wide.csv: line 2 has more than the 2 fields"));

	/* malformed records are errors, never rows changed or swallowed */
	o.schema_json = NULL;
	const char *bad[][3] = {
	    {"unclosed.csv", "id,name,amount\n3,a,1.00\n4,\"open,1.00\n5,after,2.00\n",
	     "unclosed.csv: line 3, column name: the quoted field opened on line 3 is never closed"},
	    {"junk.csv", "id,name,amount\n1,\"x\"y\",2.00\n", "junk.csv: line 2, column name: 'y' after the closing quote"},
	    {"bare.csv", "id,name\n1,ab\"c\n", "bare.csv: line 2, column name: a quote inside an unquoted field"},
	    {"short.csv", "id,name,amount\n1,a,2\n2,b\n", "short.csv: line 3 has 2 fields, the header has 3"},
	    {"multi.csv", "id,name\n1,\"two\nlines\"\n2,\"x\"z\n",
	     "multi.csv: line 4, column name: 'z' after the closing quote"},
	    {"head.csv", "id,\"na\"me\n1,2\n", "head.csv: line 1, field 2: 'm' after the closing quote"},
	    {"utf8.csv", "id,name\n1,ok\n2,bad\xff\xfe\n", "utf8.csv: line 3, column name: invalid UTF-8 (byte 0xFF at offset 3"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		p = file_with(bad[i][0], bad[i][1]);
		rc = dl_read_csv(&st, p, &o);
		if (rc == 0) free(rows_of(&st, &rc));
		assert_int_equal(rc, DL_EINVALID);
		if (!strstr(dl_error_last()->message, bad[i][2]))
			fail_msg("%s: got \"%s\"", bad[i][0], dl_error_last()->message);
	}
	/* what RFC 4180 allows still reads: quotes doubled, line ends and
	 * delimiters inside quotes, CRLF after a closing quote */
	p = file_with("ok.csv", "id,name\r\n1,\"a \"\"q\"\", b\"\r\n2,\"two\nlines\"\r\n3,\"\"\r\n");
	assert_int_equal(dl_read_csv(&st, p, NULL), 0);
	char *txt = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(txt, "id:l|name:u\n1|a \"q\", b\n2|two\nlines\n3|\n");
	free(txt);

	p = file_with("empty.csv", "");
	assert_int_equal(dl_read_csv(&st, p, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "no header line"));

	char missing[128];
	snprintf(missing, sizeof missing, "%s/none.csv", dir);
	assert_int_equal(dl_read_csv(&st, missing, NULL), DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "none.csv"));

	o.schema_json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"nonsense\"}]}";
	assert_true(dl_read_csv(&st, p, &o) < 0);
	assert_non_null(strstr(dl_error_last()->message, "schema"));
}

/* Decimals take the column's scale as Spark's Decimal.toPrecision does:
 * HALF_UP, and a value that then needs more digits is an overflow error. */
static void csv_decimals_round_half_up(void **state)
{
	(void)state;
	dl_csv_options o = DL_CSV_OPTIONS_INIT;
	o.schema_json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"d\",\"type\":\"decimal(10,2)\",\"nullable\":true,"
	                "\"metadata\":{}}]}";
	const char *p = file_with("dec.csv", "d\n1.239\n-1.235\n1.5E1\n0.005\n99999999.994\n");
	struct ArrowArrayStream st;
	int rc;
	assert_int_equal(dl_read_csv(&st, p, &o), 0);
	char *t = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(t, "d:d:10,2\n1.24\n-1.24\n15.00\n0.01\n99999999.99\n");
	free(t);
	p = file_with("over.csv", "d\n1\n99999999.995\n");
	assert_int_equal(dl_read_csv(&st, p, &o), 0);
	free(rows_of(&st, &rc));
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "over.csv: line 3, column d: value '99999999.995' cannot be "
	                                                 "represented as decimal(10,2)"));
	p = file_with("space.csv", "d\n\" 1.5\"\n");
	assert_int_equal(dl_read_csv(&st, p, &o), 0);
	free(rows_of(&st, &rc));
	assert_int_equal(rc, DL_EINVALID);
}

/* The header line of rows_of: the columns' "name:format". */
static char *header_of(const char *path, const dl_csv_options *o, int *rc)
{
	struct ArrowArrayStream st;
	assert_int_equal(dl_read_csv(&st, path, o), 0);
	char *t = rows_of(&st, rc);
	char *nl = strchr(t, '\n');
	if (nl) *nl = 0;
	return t;
}

/* widen_types: a column gets the narrowest automatic widening holding its
 * values; others keep the schema's type; options of version 1 never widen. */
static void csv_widen_types(void **state)
{
	(void)state;
	dl_csv_options o = DL_CSV_OPTIONS_INIT;
	o.schema_json = "{\"type\":\"struct\",\"fields\":["
	                "{\"name\":\"f\",\"type\":\"float\",\"nullable\":true,\"metadata\":{}},"
	                "{\"name\":\"d\",\"type\":\"decimal(5,2)\",\"nullable\":true,\"metadata\":{}},"
	                "{\"name\":\"b\",\"type\":\"byte\",\"nullable\":true,\"metadata\":{}},"
	                "{\"name\":\"n\",\"type\":\"byte\",\"nullable\":true,\"metadata\":{}},"
	                "{\"name\":\"t\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}}]}";
	o.widen_types = true;
	int rc;
	const char *p = file_with("w1.csv", "f,d,b,n,t\n0.1,-123.456,-128,1,2024-01-01 00:00:00\n"
	                                    "16777217,-1234.565,-129,,2024-01-02\n");
	char *h = header_of(p, &o, &rc);
	assert_int_equal(rc, 0);
	/* 16777217 is not a FLOAT; -1234.565 rounds to -1234.57, six digits at
	 * scale 2; -129 needs a SHORT; midnight is still a date */
	assert_string_equal(h, "f:g|d:d:6,2|b:s|n:c|t:tdD");
	free(h);
	p = file_with("w2.csv", "f,d,b,n,t\n0.1,1,1,1,2024-01-01\n3.5,2,2,2,2024-01-02 10:00:00\ninf,3,3,3,\n");
	h = header_of(p, &o, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(h, "f:f|d:d:5,2|b:c|n:c|t:tsu:");
	free(h);
	p = file_with("w3.csv", "f,d,b,n,t\n1e-50,1,3000000000,1,2024-01-01\n");
	h = header_of(p, &o, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(h, "f:g|d:d:5,2|b:l|n:c|t:tdD");
	free(h);
	/* no automatic widening makes 1.5 an integer: reading names it */
	p = file_with("w4.csv", "f,d,b,n,t\n1,1,300,1.5,2024-01-01\n");
	free(header_of(p, &o, &rc));
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "w4.csv: line 2, column n: value '1.5' is not a valid byte"));
	/* without the option, or with options of version 1, the schema's types */
	p = file_with("w5.csv", "f,d,b,n,t\n1,1,-129,1,2024-01-01\n");
	o.widen_types = false;
	free(header_of(p, &o, &rc));
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "w5.csv: line 2, column b: value '-129' is not a valid byte"));
	o.widen_types = true;
	o.version = 1;
	free(header_of(p, &o, &rc));
	assert_int_equal(rc, DL_EINVALID);
}

static void jsonl_typed_inferred_and_errors(void **state)
{
	(void)state;
	char late[128];
	const char *p = file_with("a.jsonl", "{\"id\":1,\"tags\":[\"a\"],\"s\":{\"x\":1}}\n\n  {\"ID\":2,\"extra\":true}\n");
	struct ArrowArrayStream st;
	int rc;
	assert_int_equal(dl_read_jsonl(&st, p, NULL), 0);
	char *t = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	/* Nested values infer arrays and structs; members missing from a line are null. */
	assert_string_equal(t, "id:l|tags:+l|s:+s|extra:b\n1|[a]|{x: 1}|NULL\n2|NULL|NULL|true\n");
	free(t);
	dl_jsonl_options o = DL_JSONL_OPTIONS_INIT;
	o.schema_json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},"
	                "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true},"
	                "\"nullable\":true,\"metadata\":{}}]}";
	assert_int_equal(dl_read_jsonl(&st, p, &o), 0);
	t = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(t, "id:l|tags:+l|s:+s|extra:b\n1|[a]|{x: 1}|NULL\n"));
	free(t);

	p = file_with("bad.jsonl", "{\"id\":1,\"tags\":[\"a\"]}\n{\"id\":\"x\"}\n");
	assert_int_equal(dl_read_jsonl(&st, p, &o), 0);
	free(rows_of(&st, &rc));
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "bad.jsonl: line 2"));
	assert_non_null(strstr(dl_error_last()->message, "id"));

	/* Broken JSON within the lines inference reads fails at once. */
	p = file_with("broken.jsonl", "{\"id\":1}\n{\"id\":2\n");
	assert_int_equal(dl_read_jsonl(&st, p, NULL), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "broken.jsonl: line 2"));

	/* a nested field the table lacks is kept in the stream's type (the
	 * write then refuses or merges it), never dropped */
	o.schema_json = "{\"type\":\"struct\",\"fields\":[{\"name\":\"s\",\"type\":{\"type\":\"struct\",\"fields\":["
	                "{\"name\":\"a\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}},"
	                "{\"name\":\"b\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]},"
	                "\"nullable\":true,\"metadata\":{}}]}";
	p = file_with("nested.jsonl", "{\"s\":{\"a\":1,\"b\":2,\"c\":3}}\n");
	assert_int_equal(dl_read_jsonl(&st, p, &o), 0);
	t = rows_of(&st, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(t, "s:+s\n{a: 1, b: 2, c: 3}\n");
	free(t);
	/* a member first seen after the inferred lines is an error naming it */
	FILE *f = fopen(file_with("late.jsonl", ""), "w");
	for (int i = 0; i < 1001; i++) fputs("{\"s\":{\"a\":1}}\n", f);
	fputs("{\"s\":{\"a\":1,\"z\":5}}\n", f);
	fclose(f);
	snprintf(late, sizeof late, "%s/late.jsonl", dir);
	assert_int_equal(dl_read_jsonl(&st, late, &o), 0);
	free(rows_of(&st, &rc));
	assert_int_equal(rc, DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "late.jsonl: line 1002: field s: field 'z' is not in the schema"));

	p = file_with("none.jsonl", "[1]\n");
	assert_int_equal(dl_read_jsonl(&st, p, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "none.jsonl"));
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/dl_io_read_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_inferred_and_typed),
		cmocka_unit_test(csv_options),
		cmocka_unit_test(csv_errors_name_file_line_and_column),
		cmocka_unit_test(csv_decimals_round_half_up),
		cmocka_unit_test(csv_widen_types),
		cmocka_unit_test(jsonl_typed_inferred_and_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
