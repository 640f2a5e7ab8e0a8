/* The CLI framework in process: dispatch, help, exit codes, option parsing,
 * output formats and the progress bar. The framework's sources are compiled
 * into this test, with test commands registered the same way as real ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../../cli/cli.c"
#include "../../../cli/cmd_completion.c"
#include "../../../cli/help.c"
#include "../../../cli/options.c"
#include "../../../cli/registry.c"
#include "../../../cli/output.c"
#include "../../../cli/progress.c"
#include "../../../cli/util.c"
#include "../../../cli/storage_options.c"
#include "columnar/arrow_c.h"
#include "columnar/builder.h"
#include "util/error.h"

/* ---- test commands ---- */

typedef struct greet_args {
	const char *who;
	const char *greeting;
	int64_t times;
	bool shout;
	dl_cli_list tags;
	dl_cli_list cols;
	dl_cli_list rest;
} greet_args;

static const dl_cli_opt greet_opts[] = {
	DL_CLI_ARG(greet_args, who, "WHO", "whom to greet"),
	DL_CLI_ARG_REST(greet_args, rest, "MORE", "more names"),
	DL_CLI_STRING(greet_args, greeting, 'g', "greeting", "WORD", "hello", "the greeting"),
	DL_CLI_INT(greet_args, times, 'n', "times", "N", "1", "how many times"),
	DL_CLI_FLAG(greet_args, shout, 0, "shout", "upper case"),
	DL_CLI_LIST(greet_args, tags, 't', "tag", "TAG", "a tag"),
	DL_CLI_NAMES(greet_args, cols, 'c', "columns", "A,B", "columns"),
	DL_CLI_END,
};

/* Prints what it parsed, so tests can check the parser through the output. */
static int greet_run(dl_cli *cli, const void *args)
{
	const greet_args *a = args;
	fprintf(cli->out, "%s %s x%lld shout=%d fmt=%s quiet=%d", a->greeting, a->who, (long long)a->times,
	        a->shout, dl_out_format_name(cli->format), cli->quiet);
	for (int i = 0; i < a->tags.n; i++) fprintf(cli->out, " tag=%s", a->tags.items[i]);
	for (int i = 0; i < a->cols.n; i++) fprintf(cli->out, " col=%s", a->cols.items[i]);
	for (int i = 0; i < a->rest.n; i++) fprintf(cli->out, " more=%s", a->rest.items[i]);
	fputc('\n', cli->out);
	return 0;
}
DL_CLI_COMMAND(greet, .name = "greet", .summary = "greet someone", .opts = greet_opts,
               .args_size = sizeof(greet_args), .run = greet_run);

static int fail_run(dl_cli *cli, const void *args)
{
	(void)args;
	fputs("partial\n", cli->out);
	return dl_error_set(DL_ENOTFOUND, "no table at /nowhere; check the path");
}
DL_CLI_COMMAND(fail, .name = "fail", .summary = "always fails", .run = fail_run);

static int kv_run(dl_cli *cli, const void *args)
{
	(void)args;
	dl_out *o;
	int rc = dl_cli_out_begin(&o, cli, dl_out_kv_columns, 2);
	if (rc < 0) return rc;
	if (rc == 0) rc = dl_out_kv(o, "a", "1");
	if (rc == 0) rc = dl_out_kv(o, "b, c", "say \"hi\"");
	if (rc < 0) {
		dl_out_free(o);
		return rc;
	}
	return dl_out_end(o);
}
DL_CLI_COMMAND(kv, .name = "kv", .summary = "name/value rows", .run = kv_run);

/* A command with its own --format (more values than the global one). */
typedef struct own_format_args {
	const char *format;
} own_format_args;
static const dl_cli_opt own_format_opts[] = {
	DL_CLI_STRING(own_format_args, format, 0, "format", "FMT", "table", "table or arrow"),
	DL_CLI_END,
};
static int own_format_run(dl_cli *cli, const void *args)
{
	const own_format_args *a = args;
	fprintf(cli->out, "own=%s global=%s\n", a->format, dl_out_format_name(cli->format));
	return 0;
}
DL_CLI_COMMAND(own_format, .name = "ownfmt", .summary = "has its own format option", .opts = own_format_opts,
               .args_size = sizeof(own_format_args), .run = own_format_run);

static int sub_run(dl_cli *cli, const void *args)
{
	(void)args;
	fprintf(cli->out, "ran %s\n", cli->cmd->name);
	return 0;
}
DL_CLI_GROUP(grp, "grp", "a group of commands");
DL_CLI_COMMAND(grp_alpha, .name = "grp alpha", .summary = "first subcommand", .run = sub_run);
DL_CLI_COMMAND(grp_beta, .name = "grp beta", .summary = "second subcommand", .run = sub_run);

/* ---- harness ---- */

typedef struct run_result {
	int code;
	char *out;
	char *err;
} run_result;

static run_result run_argv(const char *const *args)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"deltalake";
	for (; args[argc - 1]; argc++) argv[argc] = (char *)args[argc - 1];
	run_result r = {0, NULL, NULL};
	size_t olen, elen;
	FILE *out = open_memstream(&r.out, &olen);
	FILE *err = open_memstream(&r.err, &elen);
	assert_non_null(out);
	assert_non_null(err);
	r.code = dl_cli_main(argc, argv, out, err);
	fclose(out);
	fclose(err);
	return r;
}

#define RUN(...) run_argv((const char *const[]){__VA_ARGS__, NULL})

static void result_free(run_result *r)
{
	free(r->out);
	free(r->err);
}

/* ---- dispatch, help, exit codes ---- */

static void help_lists_commands_and_exits_0(void **state)
{
	(void)state;
	run_result r = RUN("--help");
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.out, "usage: deltalake"));
	assert_non_null(strstr(r.out, "  greet "));
	assert_non_null(strstr(r.out, "greet someone"));
	assert_non_null(strstr(r.out, "  grp "));
	assert_non_null(strstr(r.out, "a group of commands"));
	assert_null(strstr(r.out, "grp alpha")); /* subcommands are listed by the group */
	assert_string_equal(r.err, "");
	result_free(&r);

	r = RUN("help");
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.out, "Commands:"));
	result_free(&r);
}

static void no_command_is_usage_error(void **state)
{
	(void)state;
	run_result r = run_argv((const char *const[]){NULL});
	assert_int_equal(r.code, 2);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "usage: deltalake"));
	result_free(&r);
}

static void version_flag(void **state)
{
	(void)state;
	run_result r = RUN("--version");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "deltalake 0.1.0\n");
	result_free(&r);
}

static void unknown_command_suggests(void **state)
{
	(void)state;
	run_result r = RUN("gret", "x");
	assert_int_equal(r.code, 2);
	assert_string_equal(r.err,
	                    "deltalake: error: unknown command 'gret'; did you mean 'greet'? (see 'deltalake --help')\n");
	result_free(&r);

	r = RUN("zzzzzzzz");
	assert_int_equal(r.code, 2);
	assert_null(strstr(r.err, "did you mean"));
	assert_non_null(strstr(r.err, "unknown command 'zzzzzzzz'"));
	result_free(&r);
}

static void command_help_everywhere(void **state)
{
	(void)state;
	const char *const *forms[] = {
		(const char *const[]){"greet", "--help", NULL},
		(const char *const[]){"greet", "-h", NULL},
		(const char *const[]){"help", "greet", NULL},
		(const char *const[]){"--help", "greet", NULL},
	};
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		run_result r = run_argv(forms[i]);
		assert_int_equal(r.code, 0);
		assert_non_null(strstr(r.out, "usage: deltalake greet [OPTIONS] WHO [MORE...]\n"));
		assert_non_null(strstr(r.out, "\nGreet someone.\n"));
		assert_non_null(strstr(r.out, "-n, --times N"));
		assert_non_null(strstr(r.out, "(default: 1)"));
		assert_non_null(strstr(r.out, "-c, --columns A,B"));
		assert_non_null(strstr(r.out, "(comma-separated, repeatable)"));
		assert_non_null(strstr(r.out, "--format FMT"));
		assert_string_equal(r.err, "");
		result_free(&r);
	}
}

static void failing_command_exits_1_with_one_line(void **state)
{
	(void)state;
	run_result r = RUN("fail");
	assert_int_equal(r.code, 1);
	assert_string_equal(r.err, "deltalake: error: no table at /nowhere; check the path\n");
	result_free(&r);
}

static void groups_dispatch_two_levels(void **state)
{
	(void)state;
	run_result r = RUN("grp", "beta");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "ran grp beta\n");
	result_free(&r);

	r = RUN("grp");
	assert_int_equal(r.code, 2);
	assert_non_null(strstr(r.err, "'grp' needs a command"));
	assert_non_null(strstr(r.err, "alpha"));
	result_free(&r);

	r = RUN("grp", "--help");
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.out, "usage: deltalake grp COMMAND"));
	assert_non_null(strstr(r.out, "  alpha       first subcommand\n"));
	result_free(&r);

	r = RUN("grp", "alpah");
	assert_int_equal(r.code, 2);
	assert_non_null(strstr(r.err, "unknown command 'grp alpah'; did you mean 'grp alpha'?"));
	result_free(&r);

	r = RUN("help", "grp", "alpha");
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.out, "usage: deltalake grp alpha [OPTIONS]"));
	result_free(&r);
}

/* ---- option parsing ---- */

static void command_option_shadows_global(void **state)
{
	(void)state;
	run_result r = RUN("ownfmt", "--format", "arrow");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "own=arrow global=table\n");
	result_free(&r);
	r = RUN("ownfmt", "--help");
	assert_int_equal(r.code, 0);
	const char *first = strstr(r.out, "--format");
	assert_non_null(first);
	assert_null(strstr(first + 1, "--format")); /* listed once: the command's */
	assert_non_null(strstr(r.out, "table or arrow"));
	assert_non_null(strstr(r.out, "--quiet"));
	result_free(&r);
}

static void options_in_every_spelling(void **state)
{
	(void)state;
	run_result r = RUN("greet", "ann");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "hello ann x1 shout=0 fmt=table quiet=0\n");
	result_free(&r);

	r = RUN("greet", "--greeting=hi", "-n", "3", "bob", "--shout", "-t", "a", "--tag=b", "--tag", "c", "carl",
	        "-q", "--format", "csv");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "hi bob x3 shout=1 fmt=csv quiet=1 tag=a tag=b tag=c more=carl\n");
	result_free(&r);

	/* -nVALUE, a negative number as a value, "--" ending options */
	r = RUN("--quiet", "greet", "-n-2", "-gyo", "--", "--shout", "-x");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "yo --shout x-2 shout=0 fmt=table quiet=1 more=-x\n");
	result_free(&r);

	/* comma-separated names, repeated; commas elsewhere are kept */
	r = RUN("greet", "-c", "a,b", "x,y", "--columns=c", "-cd,e,f");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "hello x,y x1 shout=0 fmt=table quiet=0 col=a col=b col=c col=d col=e col=f\n");
	result_free(&r);

	r = RUN("--format=jsonl", "greet", "-n", "-5", "dan");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "hello dan x-5 shout=0 fmt=jsonl quiet=0\n");
	result_free(&r);
}

static void option_errors_exit_2(void **state)
{
	(void)state;
	static const struct {
		const char *args[6];
		const char *message;
	} cases[] = {
		{{"greet", NULL}, "deltalake: error: missing WHO (see 'deltalake greet --help')\n"},
		{{"greet", "a", "--times", "many", NULL},
		 "deltalake: error: --times expects an integer, got 'many' (see 'deltalake greet --help')\n"},
		{{"greet", "a", "--times", NULL},
		 "deltalake: error: option --times needs a value (N) (see 'deltalake greet --help')\n"},
		{{"greet", "a", "--nope", NULL},
		 "deltalake: error: unknown option '--nope' (see 'deltalake greet --help')\n"},
		{{"greet", "a", "--shout=yes", NULL},
		 "deltalake: error: option --shout takes no value (see 'deltalake greet --help')\n"},
		{{"greet", "a", "--format", "xml", NULL},
		 "deltalake: error: unknown output format 'xml'; use table, csv, jsonl, json or vertical (see "
		 "'deltalake greet --help')\n"},
		{{"kv", "extra", NULL}, "deltalake: error: unexpected argument 'extra' (see 'deltalake kv --help')\n"},
		{{"greet", "a", "--columns", "x,,y", NULL},
		 "deltalake: error: --columns needs names separated by commas, got 'x,,y' (see 'deltalake greet --help')\n"},
		{{"greet", "a", "-c", "x,", NULL},
		 "deltalake: error: --columns needs names separated by commas, got 'x,' (see 'deltalake greet --help')\n"},
		{{"--bogus", NULL}, "deltalake: error: unknown option '--bogus' (see 'deltalake --help')\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		run_result r = run_argv(cases[i].args);
		assert_int_equal(r.code, 2);
		assert_string_equal(r.err, cases[i].message);
		assert_string_equal(r.out, "");
		result_free(&r);
	}
}

static void format_names_parse(void **state)
{
	(void)state;
	dl_out_format f;
	assert_int_equal(dl_out_format_parse(&f, "table"), 0);
	assert_int_equal(f, DL_OUT_TABLE);
	assert_int_equal(dl_out_format_parse(&f, "csv"), 0);
	assert_int_equal(f, DL_OUT_CSV);
	assert_int_equal(dl_out_format_parse(&f, "jsonl"), 0);
	assert_int_equal(f, DL_OUT_JSONL);
	assert_int_equal(dl_out_format_parse(&f, "ndjson"), 0);
	assert_int_equal(f, DL_OUT_JSONL);
	assert_int_equal(dl_out_format_parse(&f, "json"), 0);
	assert_int_equal(f, DL_OUT_JSON);
	assert_int_equal(dl_out_format_parse(&f, "vertical"), 0);
	assert_int_equal(f, DL_OUT_VERTICAL);
	assert_int_equal(dl_out_format_parse(&f, "JSON"), DL_EINVALID);
	assert_int_equal(dl_out_format_parse(&f, ""), DL_EINVALID);
	assert_string_equal(dl_out_format_name(DL_OUT_JSONL), "jsonl");
}

/* ---- output ---- */

static const dl_out_column mixed_cols[] = {
	{"id", DL_OUT_NUMBER}, {"name", DL_OUT_STRING}, {"ok", DL_OUT_BOOL}, {"tags", DL_OUT_JSON_TEXT}};

/* Writes the same rows in `format` and returns what came out. */
static char *render(dl_out_format format, int nrows)
{
	static const char *rows[][4] = {
		{"1", "plain", "true", "[1,2]"},
		{"-20.5", "a,b", "false", NULL},
		{NULL, "say \"hi\"\nbye", NULL, "{}"},
		{"NaN", "", "maybe", "null"},
	};
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	dl_out *o;
	assert_int_equal(dl_out_begin(&o, fp, format, mixed_cols, 4), 0);
	for (int i = 0; i < nrows; i++) assert_int_equal(dl_out_row(o, rows[i]), 0);
	assert_int_equal(dl_out_end(o), 0);
	fclose(fp);
	return text;
}

static void csv_quotes_per_rfc4180(void **state)
{
	(void)state;
	char *t = render(DL_OUT_CSV, 4);
	assert_string_equal(t, "id,name,ok,tags\n"
	                       "1,plain,true,\"[1,2]\"\n"
	                       "-20.5,\"a,b\",false,\n"
	                       ",\"say \"\"hi\"\"\nbye\",,{}\n"
	                       "NaN,\"\",maybe,null\n");
	free(t);
	t = render(DL_OUT_CSV, 0);
	assert_string_equal(t, "id,name,ok,tags\n");
	free(t);
}

static void table_aligns_under_header(void **state)
{
	(void)state;
	char *t = render(DL_OUT_TABLE, 4);
	assert_string_equal(t, "   id  name           ok     tags\n"
	                       "-----  -------------  -----  -----\n"
	                       "    1  plain          true   [1,2]\n"
	                       "-20.5  a,b            false  NULL\n"
	                       " NULL  say \"hi\"\\nbye  NULL   {}\n"
	                       "  NaN                 maybe  null\n");
	free(t);
}

static void json_and_jsonl(void **state)
{
	(void)state;
	char *t = render(DL_OUT_JSONL, 4);
	assert_string_equal(t, "{\"id\":1,\"name\":\"plain\",\"ok\":true,\"tags\":[1,2]}\n"
	                       "{\"id\":-20.5,\"name\":\"a,b\",\"ok\":false,\"tags\":null}\n"
	                       "{\"id\":null,\"name\":\"say \\\"hi\\\"\\nbye\",\"ok\":null,\"tags\":{}}\n"
	                       "{\"id\":\"NaN\",\"name\":\"\",\"ok\":\"maybe\",\"tags\":null}\n");
	free(t);
	t = render(DL_OUT_JSON, 2);
	assert_string_equal(t, "[\n{\"id\":1,\"name\":\"plain\",\"ok\":true,\"tags\":[1,2]},\n"
	                       "{\"id\":-20.5,\"name\":\"a,b\",\"ok\":false,\"tags\":null}\n]\n");
	free(t);
	t = render(DL_OUT_JSON, 0);
	assert_string_equal(t, "[]\n");
	free(t);
}

static void vertical_lists_each_record(void **state)
{
	(void)state;
	char *t = render(DL_OUT_VERTICAL, 3);
	assert_string_equal(t, "id    1\n"
	                       "name  plain\n"
	                       "ok    true\n"
	                       "tags  [1,2]\n"
	                       "\n"
	                       "id    -20.5\n"
	                       "name  a,b\n"
	                       "ok    false\n"
	                       "tags  NULL\n"
	                       "\n"
	                       "id    NULL\n"
	                       "name  say \"hi\"\\nbye\n"
	                       "ok    NULL\n"
	                       "tags  {}\n");
	free(t);
	t = render(DL_OUT_VERTICAL, 0);
	assert_string_equal(t, "");
	free(t);
}

static void table_streams_after_window(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	dl_out *o;
	static const dl_out_column cols[] = {{"n", DL_OUT_NUMBER}};
	assert_int_equal(dl_out_begin(&o, fp, DL_OUT_TABLE, cols, 1), 0);
	char v[32];
	const char *row[1] = {v};
	for (int i = 0; i < DL_OUT_TABLE_WINDOW + 5; i++) {
		snprintf(v, sizeof v, "%d", i);
		assert_int_equal(dl_out_row(o, row), 0);
	}
	assert_int_equal(dl_out_end(o), 0);
	fclose(fp);
	/* Widths come from the first window (3 digits); later rows push wider. */
	assert_non_null(strstr(text, "  n\n---\n  0\n"));
	assert_non_null(strstr(text, "\n999\n1000\n1001\n"));
	size_t lines = 0;
	for (char *p = text; *p; p++) lines += *p == '\n';
	assert_int_equal(lines, DL_OUT_TABLE_WINDOW + 5 + 2);
	free(text);
}

static void format_option_reaches_output(void **state)
{
	(void)state;
	run_result r = RUN("kv", "--format", "csv");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "name,value\na,1\n\"b, c\",\"say \"\"hi\"\"\"\n");
	result_free(&r);
	r = RUN("--format", "json", "kv");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "[\n{\"name\":\"a\",\"value\":\"1\"},\n{\"name\":\"b, c\",\"value\":\"say \\\"hi\\\"\"}\n]\n");
	result_free(&r);
}

static void output_file_only_on_success(void **state)
{
	(void)state;
	char dir[] = "/tmp/dl-cli-test-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/out.csv", dir);

	run_result r = RUN("kv", "-o", path, "--format=csv");
	assert_int_equal(r.code, 0);
	assert_string_equal(r.out, "");
	result_free(&r);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	char buf[64] = {0};
	assert_true(fread(buf, 1, sizeof buf - 1, fp) > 0);
	fclose(fp);
	assert_string_equal(buf, "name,value\na,1\n\"b, c\",\"say \"\"hi\"\"\"\n");
	unlink(path);

	r = RUN("fail", "--output", path);
	assert_int_equal(r.code, 1);
	result_free(&r);
	assert_int_equal(access(path, F_OK), -1); /* no half-written file */
	rmdir(dir);

	r = RUN("kv", "-o", "/nonexistent-dir/x.csv");
	assert_int_equal(r.code, 1);
	assert_non_null(strstr(r.err, "deltalake: error: "));
	assert_non_null(strstr(r.err, "/nonexistent-dir/x.csv"));
	result_free(&r);
}

/* ---- batches ---- */

/* id long, name string, price decimal(6,2), tags array<int>; 3 rows with nulls. */
static dl_batch *sample_batch(void)
{
	dl_type *lng = dl_type_new(DL_TYPE_LONG), *str = dl_type_new(DL_TYPE_STRING);
	dl_type *dec = dl_type_decimal(6, 2), *in = dl_type_new(DL_TYPE_INTEGER);
	dl_type *arr = dl_type_array(in, true);
	dl_field f[4] = {{"id", lng, true, "{}"}, {"name", str, true, "{}"}, {"price", dec, true, "{}"},
	                 {"tags", arr, true, "{}"}};
	dl_type *schema = dl_type_struct(f, 4);
	assert_non_null(schema);
	dl_batch *b = dl_batch_new(schema, 3);
	assert_non_null(b);
	dl_builder *bl[4];
	for (int i = 0; i < 4; i++) assert_int_equal(dl_builder_new(&bl[i], f[i].type), 0);
	assert_int_equal(dl_builder_append_int(bl[0], 1), 0);
	assert_int_equal(dl_builder_append_int(bl[0], -22), 0);
	assert_int_equal(dl_builder_append_null(bl[0]), 0);
	assert_int_equal(dl_builder_append_str(bl[1], "plain"), 0);
	assert_int_equal(dl_builder_append_str(bl[1], "a,\"b\""), 0);
	assert_int_equal(dl_builder_append_null(bl[1]), 0);
	assert_int_equal(dl_builder_append_decimal(bl[2], 1050), 0);
	assert_int_equal(dl_builder_append_null(bl[2]), 0);
	assert_int_equal(dl_builder_append_decimal(bl[2], -5), 0);
	assert_int_equal(dl_builder_begin_list(bl[3]), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(bl[3], 0), 7), 0);
	assert_int_equal(dl_builder_append_int(dl_builder_child(bl[3], 0), 8), 0);
	assert_int_equal(dl_builder_end_list(bl[3]), 0);
	assert_int_equal(dl_builder_append_null(bl[3]), 0);
	assert_int_equal(dl_builder_begin_list(bl[3]), 0);
	assert_int_equal(dl_builder_end_list(bl[3]), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(dl_builder_finish(&b->cols[i], bl[i]), 0);
		dl_builder_free(bl[i]);
	}
	dl_type_unref(schema);
	dl_type_unref(lng);
	dl_type_unref(str);
	dl_type_unref(dec);
	dl_type_unref(arr);
	dl_type_unref(in);
	return b;
}

/* The sample batch twice through the Arrow path the commands use. */
static char *render_batch(dl_out_format format)
{
	dl_batch *b = sample_batch();
	struct ArrowSchema schema;
	assert_int_equal(dl_arrow_export_schema(&schema, b->schema), 0);
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	dl_out *o;
	assert_int_equal(dl_out_begin_arrow(&o, fp, format, &schema), 0);
	for (int i = 0; i < 2; i++) { /* batches append */
		struct ArrowArray arr;
		assert_int_equal(dl_arrow_export_batch(&arr, i ? sample_batch() : b), 0);
		int64_t n;
		assert_int_equal(dl_out_arrow_batch(&n, o, &arr, -1), 0);
		assert_int_equal(n, 3);
	}
	assert_int_equal(dl_out_end(o), 0);
	fclose(fp);
	dl_arrow_schema_release(&schema);
	return text;
}

static void batches_in_every_format(void **state)
{
	(void)state;
	char *t = render_batch(DL_OUT_TABLE);
	assert_string_equal(t, "  id  name   price  tags\n"
	                       "----  -----  -----  ------\n"
	                       "   1  plain  10.50  [7, 8]\n"
	                       " -22  a,\"b\"   NULL  NULL\n"
	                       "NULL  NULL   -0.05  []\n"
	                       "   1  plain  10.50  [7, 8]\n"
	                       " -22  a,\"b\"   NULL  NULL\n"
	                       "NULL  NULL   -0.05  []\n");
	free(t);
	t = render_batch(DL_OUT_CSV);
	assert_string_equal(t, "id,name,price,tags\n"
	                       "1,plain,10.50,\"[7, 8]\"\n"
	                       "-22,\"a,\"\"b\"\"\",,\n"
	                       ",,-0.05,[]\n"
	                       "1,plain,10.50,\"[7, 8]\"\n"
	                       "-22,\"a,\"\"b\"\"\",,\n"
	                       ",,-0.05,[]\n");
	free(t);
	t = render_batch(DL_OUT_JSONL);
	assert_string_equal(t, "{\"id\":1,\"name\":\"plain\",\"price\":10.50,\"tags\":[7,8]}\n"
	                       "{\"id\":-22,\"name\":\"a,\\\"b\\\"\",\"price\":null,\"tags\":null}\n"
	                       "{\"id\":null,\"name\":null,\"price\":-0.05,\"tags\":[]}\n"
	                       "{\"id\":1,\"name\":\"plain\",\"price\":10.50,\"tags\":[7,8]}\n"
	                       "{\"id\":-22,\"name\":\"a,\\\"b\\\"\",\"price\":null,\"tags\":null}\n"
	                       "{\"id\":null,\"name\":null,\"price\":-0.05,\"tags\":[]}\n");
	free(t);
}

/* ---- completion ---- */

static void completes_commands_options_and_values(void **state)
{
	(void)state;
	static const struct {
		const char *args[8];
		const char *out;
	} cases[] = {
		{{"__complete", "--", "gr", NULL}, "greet\ngrp\n"},
		{{"__complete", "--", "grp", "", NULL}, "alpha\nbeta\n"},
		{{"__complete", "--", "grp", "b", NULL}, "beta\n"},
		{{"__complete", "--", "greet", "--t", NULL}, "--times\n--tag\n"},
		{{"__complete", "--", "greet", "ann", "--q", NULL}, "--quiet\n"},
		{{"__complete", "--", "greet", "--format", "js", NULL}, "jsonl\njson\n"},
		{{"__complete", "--", "greet", "--format", "v", NULL}, "vertical\n"},
		{{"__complete", "--", "ownfmt", "--format", "", NULL}, ""}, /* its own values: unknown */
		{{"__complete", "--", "ownfmt", "--f", NULL}, "--format\n"}, /* listed once */
		{{"__complete", "--", "greet", "-n", "3", "", NULL}, ""},   /* a path: the shell's job */
		{{"__complete", "--", "--format", "csv", "gre", NULL}, "greet\n"},
		{{"__complete", "--", "help", "gr", NULL}, "greet\ngrp\n"},
		{{"__complete", "--", "help", "grp", "al", NULL}, "alpha\n"},
		{{"__complete", "--", "--v", NULL}, "--version\n"},
		{{"__complete", "--", "__c", NULL}, ""}, /* hidden */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		run_result r = run_argv(cases[i].args);
		assert_int_equal(r.code, 0);
		assert_string_equal(r.out, cases[i].out);
		result_free(&r);
	}
	run_result r = RUN("__complete", "--", "");
	assert_non_null(strstr(r.out, "help\n"));
	assert_non_null(strstr(r.out, "greet\n"));
	assert_non_null(strstr(r.out, "completion\n"));
	assert_null(strstr(r.out, "alpha"));
	result_free(&r);

	r = RUN("completion");
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.out, "complete -F _deltalake deltalake\n"));
	result_free(&r);
	r = RUN("completion", "fish");
	assert_int_equal(r.code, 2);
	result_free(&r);
}

/* ---- progress ---- */

static void progress_renders_and_stays_off_without_tty(void **state)
{
	(void)state;
	dl_progress p;
	char *text = NULL;
	size_t len;
	FILE *fp = open_memstream(&text, &len);
	dl_progress_begin(&p, fp, false, "files", 200);
	assert_false(p.active); /* a memory stream is not a terminal */
	dl_progress_update(&p, 50);
	char line[128];
	dl_progress_render(&p, line, sizeof line);
	assert_string_equal(line, "files [#######.......................]  25% 50/200");
	dl_progress_add(&p, 500); /* clamps past the total */
	dl_progress_render(&p, line, sizeof line);
	assert_string_equal(line, "files [##############################] 100% 200/200");
	dl_progress_end(&p);
	p.total = 0;
	p.done = 7;
	dl_progress_render(&p, line, sizeof line);
	assert_string_equal(line, "files 7");
	fclose(fp);
	assert_int_equal(len, 0); /* nothing drawn */
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(help_lists_commands_and_exits_0),
		cmocka_unit_test(no_command_is_usage_error),
		cmocka_unit_test(version_flag),
		cmocka_unit_test(unknown_command_suggests),
		cmocka_unit_test(command_help_everywhere),
		cmocka_unit_test(failing_command_exits_1_with_one_line),
		cmocka_unit_test(groups_dispatch_two_levels),
		cmocka_unit_test(options_in_every_spelling),
		cmocka_unit_test(command_option_shadows_global),
		cmocka_unit_test(option_errors_exit_2),
		cmocka_unit_test(format_names_parse),
		cmocka_unit_test(csv_quotes_per_rfc4180),
		cmocka_unit_test(table_aligns_under_header),
		cmocka_unit_test(json_and_jsonl),
		cmocka_unit_test(vertical_lists_each_record),
		cmocka_unit_test(table_streams_after_window),
		cmocka_unit_test(format_option_reaches_output),
		cmocka_unit_test(output_file_only_on_success),
		cmocka_unit_test(batches_in_every_format),
		cmocka_unit_test(completes_commands_options_and_values),
		cmocka_unit_test(progress_renders_and_stays_off_without_tty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
