/* `deltalake merge`: MERGE INTO a table from a source (a Delta table, a
 * Parquet, CSV or JSON-lines file, or `-`: Arrow IPC or CSV on stdin), with
 * WHEN clauses written as in SQL. Prints Spark's result columns. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "deltalake/input.h"
#include "deltalake/merge.h"
#include "deltalake/parquet.h"
#include "table_cli.h"

typedef struct merge_args {
	const char *table;
	const char *source;
	const char *format;
	const char *alias;
	const char *on;
	dl_cli_list when;
	bool schema_evolution;
	const char *user_metadata;
	int64_t source_version;
} merge_args;

static const dl_cli_opt merge_opts[] = {
	DL_CLI_ARG(merge_args, table, "TABLE", "path of the target table"),
	DL_CLI_STRING(merge_args, source, 's', "source", "SRC", NULL,
	              "a Delta table, a .parquet / .csv / .jsonl file, or - (Arrow IPC or CSV on stdin)"),
	DL_CLI_STRING(merge_args, format, 0, "source-format", "FMT", NULL,
	              "delta, parquet, csv or jsonl (default: from SRC)"),
	DL_CLI_INT(merge_args, source_version, 0, "source-version", "N", "-1",
	           "a Delta source read at version N"),
	DL_CLI_STRING(merge_args, alias, 'a', "alias", "T,S", NULL, "aliases of the target and the source"),
	DL_CLI_STRING(merge_args, on, 0, "on", "COND", NULL, "the merge condition"),
	DL_CLI_LIST(merge_args, when, 'w', "when", "CLAUSE",
	            "\"MATCHED [AND c] THEN UPDATE SET a = s.a, ... | UPDATE SET * | DELETE\", "
	            "\"NOT MATCHED [BY TARGET] [AND c] THEN INSERT * | INSERT (a, b) VALUES (s.a, s.b)\" "
	            "or \"NOT MATCHED BY SOURCE [AND c] THEN UPDATE SET ... | DELETE\"; repeatable, in order"),
	DL_CLI_FLAG(merge_args, schema_evolution, 0, "schema-evolution",
	            "add the source's new columns to the table (WITH SCHEMA EVOLUTION)"),
	DL_CLI_STRING(merge_args, user_metadata, 0, "user-metadata", "TEXT", NULL, "commitInfo.userMetadata"),
	DL_CLI_END,
};

/* ---- clause text ---- */

/* Skips a quoted string or returns i unchanged. */
static size_t skip_quoted(const char *s, size_t i)
{
	char q = s[i];
	if (q != '\'' && q != '"' && q != '`') return i;
	for (i++; s[i]; i++) {
		if (s[i] == '\\' && q != '`' && s[i + 1]) i++;
		else if (s[i] == q) return i + 1;
	}
	return i;
}

static bool word_at(const char *s, size_t i, const char *w)
{
	size_t n = strlen(w);
	if (strncasecmp(s + i, w, n) != 0) return false;
	if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '.')) return false;
	return !isalnum((unsigned char)s[i + n]) && s[i + n] != '_';
}

/* The first top-level (outside quotes, parentheses and CASE ... END)
 * occurrence of word w, or -1. */
static long find_word(const char *s, const char *w)
{
	int depth = 0, cases = 0;
	for (size_t i = 0; s[i];) {
		size_t j = skip_quoted(s, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (s[i] == '(') depth++;
		else if (s[i] == ')') depth--;
		else if (depth == 0 && word_at(s, i, "CASE")) cases++;
		else if (depth == 0 && cases && word_at(s, i, "END")) cases--;
		else if (depth == 0 && !cases && word_at(s, i, w)) return (long)i;
		i++;
	}
	return -1;
}

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) s++, n--;
	while (n && isspace((unsigned char)s[n - 1])) n--;
	char *o = malloc(n + 1);
	if (o) {
		memcpy(o, s, n);
		o[n] = 0;
	}
	return o;
}

/* Splits s at top-level commas into *items (malloc'd strings). */
static int split_commas(const char *s, char ***items, int *n)
{
	*items = NULL;
	*n = 0;
	int depth = 0, cap = 0;
	size_t start = 0;
	for (size_t i = 0;; i++) {
		size_t j = skip_quoted(s, i);
		if (j != i) {
			i = j - 1;
			continue;
		}
		if (s[i] == '(') depth++;
		else if (s[i] == ')') depth--;
		if (s[i] == 0 || (s[i] == ',' && depth == 0)) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 8;
				char **ni = realloc(*items, (size_t)cap * sizeof *ni);
				if (!ni) return DL_ENOMEM;
				*items = ni;
			}
			if (!((*items)[(*n)++] = trimmed(s + start, i - start))) return DL_ENOMEM;
			start = i + 1;
		}
		if (s[i] == 0) break;
	}
	return 0;
}

static void free_items(char **items, int n)
{
	for (int i = 0; i < n; i++) free(items[i]);
	free(items);
}

/* "a = s.a, b = s.b + 1" into columns and values. */
static int assignments(dl_cli *cli, const char *s, char ***cols, char ***vals, int *n)
{
	char **items;
	DL_CLI_TRY(split_commas(s, &items, n));
	*cols = calloc((size_t)*n + 1, sizeof **cols);
	*vals = calloc((size_t)*n + 1, sizeof **vals);
	if (!*cols || !*vals) {
		free_items(items, *n);
		return DL_ENOMEM;
	}
	int rc = 0;
	for (int i = 0; i < *n && rc == 0; i++) {
		char *eq = NULL;
		for (char *p = items[i]; *p && !eq; p++) {
			size_t j = skip_quoted(items[i], (size_t)(p - items[i]));
			if (j != (size_t)(p - items[i])) {
				p = items[i] + j - 1;
				continue;
			}
			if (*p == '=' && p > items[i] && !strchr("<>!=", p[-1]) && p[1] != '=') eq = p;
		}
		if (!eq) {
			rc = dl_cli_usage_error(cli, "assignment '%s' must be COLUMN = VALUE", items[i]);
			break;
		}
		(*cols)[i] = trimmed(items[i], (size_t)(eq - items[i]));
		(*vals)[i] = trimmed(eq + 1, strlen(eq + 1));
	}
	free_items(items, *n);
	return rc;
}

/* "(a, b) VALUES (x, y)" */
static int insert_lists(dl_cli *cli, const char *s, char ***cols, char ***vals, int *n)
{
	while (isspace((unsigned char)*s)) s++;
	long v = find_word(s, "VALUES");
	const char *close = v > 0 ? s + v : NULL;
	while (close && close > s && close[-1] != ')') close--;
	if (*s != '(' || v < 0 || !close || close == s)
		return dl_cli_usage_error(cli, "INSERT needs (columns) VALUES (values) or *");
	char *cl = trimmed(s + 1, (size_t)(close - s - 2));
	const char *vs = s + v + 6;
	while (isspace((unsigned char)*vs)) vs++;
	size_t vl = strlen(vs);
	while (vl && isspace((unsigned char)vs[vl - 1])) vl--;
	if (!cl || *vs != '(' || vl < 2 || vs[vl - 1] != ')') {
		free(cl);
		return dl_cli_usage_error(cli, "INSERT needs (columns) VALUES (values)");
	}
	char *vl_s = trimmed(vs + 1, vl - 2);
	int nc = 0, nv = 0;
	int rc = vl_s ? split_commas(cl, cols, &nc) : DL_ENOMEM;
	if (rc == 0) rc = split_commas(vl_s, vals, &nv);
	free(cl);
	free(vl_s);
	if (rc == 0 && nc != nv)
		rc = dl_cli_usage_error(cli, "INSERT lists %d columns but %d values", nc, nv);
	*n = nc;
	return rc;
}

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s)) s++;
	return s;
}

static bool eat(const char **s, const char *w)
{
	const char *p = skip_ws(*s);
	if (!word_at(p, 0, w)) return false;
	*s = p + strlen(w);
	return true;
}

static int add_clause(dl_cli *cli, dl_merge *m, const char *text)
{
	const char *s = text;
	int kind; /* 0 matched, 1 not matched, 2 by source */
	if (eat(&s, "MATCHED")) {
		kind = 0;
	} else if (eat(&s, "NOT") && eat(&s, "MATCHED")) {
		kind = 1;
		const char *save = s;
		if (eat(&s, "BY")) {
			if (eat(&s, "SOURCE")) kind = 2;
			else if (!eat(&s, "TARGET")) s = save;
		}
	} else {
		return dl_cli_usage_error(cli, "--when '%s' must start with MATCHED, NOT MATCHED [BY TARGET] "
		                               "or NOT MATCHED BY SOURCE", text);
	}
	long then = find_word(s, "THEN");
	if (then < 0) return dl_cli_usage_error(cli, "--when '%s' lacks THEN", text);
	char *cond = NULL;
	const char *pre = skip_ws(s);
	if (word_at(pre, 0, "AND")) {
		cond = trimmed(pre + 3, (size_t)(s + then - pre - 3));
		if (!cond) return DL_ENOMEM;
	} else if (pre != s + then) {
		return dl_cli_usage_error(cli, "--when '%s': expected AND <condition> or THEN", text);
	}
	const char *act = s + then + 4;
	char **cols = NULL, **vals = NULL;
	int n = 0, rc;
	if (eat(&act, "DELETE") && !*skip_ws(act)) {
		rc = kind == 1 ? dl_cli_usage_error(cli, "NOT MATCHED clauses insert; DELETE is for MATCHED "
		                                          "and NOT MATCHED BY SOURCE")
		     : kind == 0 ? dl_merge_when_matched_delete(m, cond)
		                 : dl_merge_when_not_matched_by_source_delete(m, cond);
	} else if (kind != 1 && eat(&act, "UPDATE") && eat(&act, "SET")) {
		const char *rest = skip_ws(act);
		if (*rest == '*' && !*skip_ws(rest + 1)) {
			rc = kind == 0 ? dl_merge_when_matched_update_all(m, cond)
			               : dl_cli_usage_error(cli, "UPDATE SET * needs a source row: not in NOT "
			                                          "MATCHED BY SOURCE");
		} else {
			rc = assignments(cli, rest, &cols, &vals, &n);
			if (rc == 0 && kind == 0)
				rc = dl_merge_when_matched_update(m, cond, (const char *const *)cols,
				                                  (const char *const *)vals, n);
			else if (rc == 0)
				rc = dl_merge_when_not_matched_by_source_update(m, cond, (const char *const *)cols,
				                                                (const char *const *)vals, n);
		}
	} else if (kind == 1 && eat(&act, "INSERT")) {
		const char *rest = skip_ws(act);
		if (*rest == '*' && !*skip_ws(rest + 1)) {
			rc = dl_merge_when_not_matched_insert_all(m, cond);
		} else {
			rc = insert_lists(cli, rest, &cols, &vals, &n);
			if (rc == 0)
				rc = dl_merge_when_not_matched_insert(m, cond, (const char *const *)cols,
				                                      (const char *const *)vals, n);
		}
	} else {
		rc = dl_cli_usage_error(cli, "--when '%s': the action must be %s", text,
		                        kind == 1 ? "INSERT * or INSERT (cols) VALUES (vals)"
		                                  : "UPDATE SET ... or DELETE");
	}
	free_items(cols, n);
	free_items(vals, n);
	free(cond);
	return rc;
}

/* ---- source ---- */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static bool is_delta_table(const char *path)
{
	char buf[4096];
	struct stat st;
	snprintf(buf, sizeof buf, "%s/_delta_log", path);
	return stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
}

/* stdin copied to a temporary file (CSV is read from a path), then opened
 * as Arrow IPC when it starts like an IPC stream, else as CSV. */
static int stdin_source(dl_cli *cli, struct ArrowArrayStream *st, FILE **ipc, char *tmp, size_t cap)
{
	const char *dir = getenv("TMPDIR");
	snprintf(tmp, cap, "%s/deltalake-merge-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0) return dl_cli_fail(DL_EIO, "cannot create a temporary file for stdin");
	FILE *f = fdopen(fd, "w+b");
	if (!f) {
		close(fd);
		return dl_cli_fail(DL_EIO, "cannot create a temporary file for stdin");
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
		if (fwrite(buf, 1, n, f) != n) {
			fclose(f);
			return dl_cli_fail(DL_EIO, "cannot write the temporary copy of stdin");
		}
	rewind(f);
	unsigned char magic[4] = {0};
	size_t got = fread(magic, 1, 4, f);
	rewind(f);
	if (got == 4 && magic[0] == 0xff && magic[1] == 0xff && magic[2] == 0xff && magic[3] == 0xff) {
		*ipc = f;
		return dl_arrow_ipc_read_stream(st, f);
	}
	fclose(f);
	(void)cli;
	dl_csv_options o = DL_CSV_OPTIONS_INIT;
	return dl_read_csv(st, tmp, &o);
}

static int set_source(dl_cli *cli, const merge_args *a, dl_merge *m, struct ArrowArrayStream *st,
                      dl_parquet_file **pq, FILE **ipc, char *tmp, size_t cap)
{
	const char *fmt = a->format;
	if (strcmp(a->source, "-") == 0) {
		DL_CLI_TRY(stdin_source(cli, st, ipc, tmp, cap));
		return dl_merge_source_stream(m, st);
	}
	if (!fmt)
		fmt = is_delta_table(a->source)                  ? "delta"
		      : ends_with(a->source, ".parquet")          ? "parquet"
		      : ends_with(a->source, ".csv")              ? "csv"
		      : ends_with(a->source, ".jsonl") || ends_with(a->source, ".json") ||
		                ends_with(a->source, ".ndjson") ? "jsonl"
		                                                  : NULL;
	if (!fmt)
		return dl_cli_usage_error(cli, "cannot tell the format of '%s'; give --source-format delta, "
		                               "parquet, csv or jsonl", a->source);
	if (strcasecmp(fmt, "delta") == 0) return dl_merge_source_table(m, a->source, a->source_version);
	int rc;
	if (strcasecmp(fmt, "parquet") == 0) {
		rc = dl_parquet_open(pq, a->source);
		if (rc == 0) rc = dl_parquet_read(st, *pq, NULL);
	} else if (strcasecmp(fmt, "csv") == 0) {
		dl_csv_options o = DL_CSV_OPTIONS_INIT;
		rc = dl_read_csv(st, a->source, &o);
	} else if (strcasecmp(fmt, "jsonl") == 0) {
		dl_jsonl_options o = DL_JSONL_OPTIONS_INIT;
		rc = dl_read_jsonl(st, a->source, &o);
	} else {
		return dl_cli_usage_error(cli, "--source-format must be delta, parquet, csv or jsonl");
	}
	if (rc < 0) return rc;
	return dl_merge_source_stream(m, st);
}

static int merge_run(dl_cli *cli, const void *args)
{
	const merge_args *a = args;
	dl_cli_malloc_for_reads();
	if (!a->source) return dl_cli_usage_error(cli, "--source is required");
	if (!a->on) return dl_cli_usage_error(cli, "--on is required");
	if (a->when.n == 0) return dl_cli_usage_error(cli, "give at least one --when clause");
	dl_merge_options o = DL_MERGE_OPTIONS_INIT;
	o.user_metadata = a->user_metadata;
	dl_merge *m = NULL;
	int rc = dl_merge_new(&m, a->table, &o);
	char *aliases = NULL;
	if (rc == 0 && a->alias) {
		aliases = strdup(a->alias);
		char *comma = aliases ? strchr(aliases, ',') : NULL;
		if (!aliases) rc = DL_ENOMEM;
		else if (!comma) rc = dl_cli_usage_error(cli, "--alias must be TARGET,SOURCE");
		else {
			*comma = 0;
			char *t = trimmed(aliases, strlen(aliases)), *s = trimmed(comma + 1, strlen(comma + 1));
			rc = t && s ? dl_merge_alias(m, t, s) : DL_ENOMEM;
			free(t);
			free(s);
		}
	}
	if (rc == 0) rc = dl_merge_on(m, a->on);
	for (int i = 0; rc == 0 && i < a->when.n; i++) rc = add_clause(cli, m, a->when.items[i]);
	if (rc == 0 && a->schema_evolution) rc = dl_merge_with_schema_evolution(m);
	struct ArrowArrayStream st = {0};
	dl_parquet_file *pq = NULL;
	FILE *ipc = NULL;
	char tmp[4096] = "";
	if (rc == 0) rc = set_source(cli, a, m, &st, &pq, &ipc, tmp, sizeof tmp);
	dl_merge_metrics r;
	if (rc == 0) rc = dl_merge_execute(&r, m);
	if (rc == 0) {
		static const dl_out_column cols[] = {{"num_affected_rows", DL_OUT_NUMBER},
		                                     {"num_updated_rows", DL_OUT_NUMBER},
		                                     {"num_deleted_rows", DL_OUT_NUMBER},
		                                     {"num_inserted_rows", DL_OUT_NUMBER}};
		char v[4][32];
		snprintf(v[0], 32, "%" PRId64,
		         r.num_target_rows_updated + r.num_target_rows_deleted + r.num_target_rows_inserted);
		snprintf(v[1], 32, "%" PRId64, r.num_target_rows_updated);
		snprintf(v[2], 32, "%" PRId64, r.num_target_rows_deleted);
		snprintf(v[3], 32, "%" PRId64, r.num_target_rows_inserted);
		const char *row[4] = {v[0], v[1], v[2], v[3]};
		dl_out *out;
		rc = dl_cli_out_begin(&out, cli, cols, 4);
		if (rc == 0) rc = dl_out_row(out, row);
		if (rc == 0) rc = dl_out_end(out);
		else dl_out_free(out);
	}
	dl_merge_free(m);
	dl_arrow_stream_release(&st);
	dl_parquet_free(pq);
	if (ipc) fclose(ipc);
	if (*tmp) unlink(tmp);
	free(aliases);
	return rc;
}

DL_CLI_COMMAND(merge, .name = "merge", .summary = "MERGE INTO a table from a source (upsert)",
               .description =
                   "Spark's MERGE INTO: target rows matching the --on condition are updated\n"
                   "or deleted by the first MATCHED clause whose condition holds, source rows\n"
                   "without a match inserted by the first NOT MATCHED clause, target rows\n"
                   "without a match updated or deleted by NOT MATCHED BY SOURCE clauses. Two\n"
                   "source rows matching one target row fail (unless the only MATCHED clause\n"
                   "is an unconditional DELETE) and change nothing. Deletion vectors, change\n"
                   "data and row tracking follow the table's properties. Prints\n"
                   "num_affected_rows, num_updated_rows, num_deleted_rows, num_inserted_rows.",
               .examples =
                   "  deltalake merge /data/events --source new.parquet --alias t,s --on \"t.id = s.id\" \\\n"
                   "    --when \"MATCHED THEN UPDATE SET *\" --when \"NOT MATCHED THEN INSERT *\"\n"
                   "  deltalake merge /data/events --source /data/fixes --alias t,s --on \"t.id = s.id\" \\\n"
                   "    --when \"MATCHED AND s.deleted THEN DELETE\" \\\n"
                   "    --when \"MATCHED THEN UPDATE SET v = s.v\" \\\n"
                   "    --when \"NOT MATCHED BY SOURCE AND t.d < '2024-01-01' THEN DELETE\"",
               .opts = merge_opts, .args_size = sizeof(merge_args), .run = merge_run);
