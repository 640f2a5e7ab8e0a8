/* Tab completion of the SQL shell (sql_complete.h). The context is the
 * word before the one being typed: after FROM, JOIN, INTO, TABLE, UPDATE,
 * DESCRIBE... a table is expected, after USE, SCHEMA or TABLES IN a
 * schema; anywhere else a keyword or a column of a table the statement
 * names. Keeping to those few rules gives short, useful lists without a
 * parser of half-typed statements. */
#include "sql_complete.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

const char *const sql_keywords[] = {
	"ADD", "ALL", "ALTER", "ANALYZE", "AND", "ANTI", "AS", "ASC", "BETWEEN", "BIGINT", "BINARY", "BOOLEAN", "BY",
	"CASE", "CAST", "CHANGE", "CHECK", "CLONE", "CLUSTER", "COLUMN", "COLUMNS", "COMMENT", "CONSTRAINT", "CONVERT",
	"CREATE", "CROSS", "CURRENT", "DATE", "DECIMAL", "DEFAULT", "DELETE", "DELTA", "DESC", "DESCRIBE", "DETAIL",
	"DISTINCT", "DOUBLE", "DROP", "ELSE", "END", "EXCEPT", "EXISTS", "EXPLAIN", "EXTENDED", "FALSE", "FIRST", "FLOAT",
	"FOLLOWING", "FOR", "FROM", "FSCK", "FULL", "GENERATE", "GENERATED", "GROUP", "HAVING", "HISTORY", "IDENTITY", "IF",
	"IN", "INNER", "INSERT", "INT", "INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "LAST", "LEFT", "LIKE", "LIMIT",
	"LOCATION", "MATCHED", "MERGE", "NOT", "NULL", "NULLS", "OF", "OFFSET", "ON", "OPTIMIZE", "OR", "ORDER", "OUTER",
	"OVER", "OVERWRITE", "PARTITION", "PARTITIONED", "PRECEDING", "PROPERTIES", "RANGE", "RECURSIVE", "RENAME",
	"REORG", "REPAIR", "REPLACE", "RESTORE", "RETAIN", "RIGHT", "ROWS", "SCHEMA", "SCHEMAS", "SELECT", "SEMI", "SET",
	"SHALLOW", "SHOW", "SMALLINT", "SOURCE", "STRING", "TABLE", "TABLES", "TABLESAMPLE", "TBLPROPERTIES", "THEN",
	"TIMESTAMP", "TIMESTAMP_NTZ", "TINYINT", "TO", "TRUE", "TRUNCATE", "UNBOUNDED", "UNION", "UPDATE", "USE", "USING",
	"VACUUM", "VALUES", "VERSION", "VIEW", "WHEN", "WHERE", "WINDOW", "WITH", "ZORDER", NULL,
};

/* Words after which a table name comes. */
static const char *const table_context[] = {"FROM", "JOIN", "INTO", "TABLE", "UPDATE", "DESCRIBE", "DESC",
                                            "EXTENDED", "HISTORY", "DETAIL", "OPTIMIZE", "VACUUM", "USING",
                                            "MERGE", "REORG", "COLUMNS", "TBLPROPERTIES", NULL};
/* Keywords that may come where a table does: DESCRIBE HISTORY t... */
static const char *const after_describe[] = {"DETAIL", "EXTENDED", "HISTORY", "TABLE", NULL};

/* Words after which a schema name comes. */
static const char *const schema_context[] = {"USE", "SCHEMA", "DATABASE", "NAMESPACE", NULL};

static bool in_list(const char *const *list, const char *w, size_t n)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncasecmp(*list, w, n)) return true;
	return false;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* True when the end of text is inside a string, back quotes or a comment
 * (the same rules as the library's statement splitter). */
static bool in_literal(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len) {
		char c = text[i];
		if (c == '\'' || c == '"' || c == '`') {
			i++;
			for (;;) {
				if (i >= len) return true;
				if (c != '`' && text[i] == '\\') {
					i += 2;
					continue;
				}
				if (text[i] == c) {
					if (c == '`' && i + 1 < len && text[i + 1] == '`') {
						i += 2;
						continue;
					}
					break;
				}
				i++;
			}
			i++;
		} else if (c == '-' && i + 1 < len && text[i + 1] == '-') {
			while (i < len && text[i] != '\n') i++;
			if (i >= len) return true;
		} else if (c == '/' && i + 1 < len && text[i + 1] == '*') {
			i += 2;
			while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/')) i++;
			if (i + 1 >= len) return true;
			i += 2;
		} else {
			i++;
		}
	}
	return false;
}

/* Adds name when it starts with prefix (ignoring case) and is not there. */
static int offer(sql_names *out, const char *name, const char *prefix, size_t plen)
{
	if (strncasecmp(name, prefix, plen) || sql_names_has(out, name)) return 0;
	return sql_names_add(out, name, strlen(name));
}

/* A keyword in the case of what is typed: "sel" gives "select". */
static int offer_keyword(sql_names *out, const char *kw, const char *prefix, size_t plen)
{
	if (strncasecmp(kw, prefix, plen)) return 0;
	char buf[64];
	size_t n = strlen(kw);
	if (n >= sizeof buf) return 0;
	bool lower = plen && islower((unsigned char)prefix[0]);
	for (size_t i = 0; i <= n; i++) buf[i] = lower ? (char)tolower((unsigned char)kw[i]) : kw[i];
	return sql_names_has(out, buf) ? 0 : sql_names_add(out, buf, n);
}

/* The identifiers of text (qualified ones as one word "a.b"), to find the
 * tables a statement names; quoted and commented text is skipped. */
static int identifiers(sql_names *out, const char *text)
{
	size_t len = strlen(text), i = 0;
	while (i < len) {
		char c = text[i];
		if (c == '\'' || c == '"') { /* a string: to its closing quote */
			for (i++; i < len && text[i] != c; i++)
				if (text[i] == '\\') i++;
			i++;
		} else if (c == '-' && text[i + 1] == '-') {
			while (i < len && text[i] != '\n') i++;
		} else if (c == '/' && text[i + 1] == '*') {
			const char *e = strstr(text + i + 2, "*/");
			i = e ? (size_t)(e - text) + 2 : len;
		} else if (word_char(c) && !isdigit((unsigned char)c)) {
			size_t j = i;
			while (j < len && (word_char(text[j]) || (text[j] == '.' && word_char(text[j + 1])))) j++;
			char w[256];
			size_t n = j - i < sizeof w - 1 ? j - i : sizeof w - 1;
			memcpy(w, text + i, n);
			w[n] = 0;
			if (!sql_names_has(out, w)) DL_CLI_TRY(sql_names_add(out, w, n));
			i = j;
		} else {
			i++;
		}
	}
	return 0;
}

static int candidate_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int offer_tables(sql_names *out, const sql_catalog *cat, const char *word, size_t wlen)
{
	sql_names t = {0};
	const char *dot = memchr(word, '.', wlen);
	int rc = 0;
	if (dot) { /* schema.<table> */
		char schema[256];
		size_t sl = (size_t)(dot - word);
		if (sl >= sizeof schema) return 0;
		memcpy(schema, word, sl);
		schema[sl] = 0;
		if (cat->tables) cat->tables(&t, schema, cat->payload);
		for (size_t i = 0; rc == 0 && i < t.n; i++) {
			char q[600];
			snprintf(q, sizeof q, "%s.%s", schema, t.v[i]);
			rc = offer(out, q, word, wlen);
		}
	} else {
		if (cat->tables) cat->tables(&t, NULL, cat->payload);
		for (size_t i = 0; rc == 0 && i < t.n; i++) rc = offer(out, t.v[i], word, wlen);
		sql_names_clear(&t);
		if (cat->schemas) cat->schemas(&t, cat->payload);
		for (size_t i = 0; rc == 0 && i < t.n; i++) {
			char q[300];
			snprintf(q, sizeof q, "%s.", t.v[i]);
			rc = offer(out, q, word, wlen);
		}
	}
	sql_names_free(&t);
	return rc;
}

/* The columns of every table the statement names. */
static int offer_columns(sql_names *out, const sql_catalog *cat, const char *text, const char *word, size_t wlen)
{
	if (!cat->columns || !cat->tables) return 0;
	sql_names ids = {0}, tables = {0}, cols = {0};
	int rc = identifiers(&ids, text);
	if (rc == 0) cat->tables(&tables, NULL, cat->payload);
	for (size_t i = 0; rc == 0 && i < ids.n; i++) {
		bool known = false;
		const char *dot = strchr(ids.v[i], '.');
		if (!dot) {
			for (size_t k = 0; k < tables.n && !known; k++) known = !strcasecmp(tables.v[k], ids.v[i]);
		} else {
			sql_names st = {0};
			char schema[256];
			size_t sl = (size_t)(dot - ids.v[i]);
			if (sl < sizeof schema) {
				memcpy(schema, ids.v[i], sl);
				schema[sl] = 0;
				cat->tables(&st, schema, cat->payload);
				for (size_t k = 0; k < st.n && !known; k++) known = !strcasecmp(st.v[k], dot + 1);
			}
			sql_names_free(&st);
		}
		if (!known) continue;
		sql_names_clear(&cols);
		cat->columns(&cols, ids.v[i], cat->payload);
		for (size_t k = 0; rc == 0 && k < cols.n; k++) rc = offer(out, cols.v[k], word, wlen);
	}
	sql_names_free(&ids);
	sql_names_free(&tables);
	sql_names_free(&cols);
	return rc;
}

/* The word before position `end` of text (skipping blanks), or "". */
static size_t previous_word(const char *text, size_t end, size_t *start)
{
	size_t e = end;
	while (e > 0 && isspace((unsigned char)text[e - 1])) e--;
	size_t s = e;
	while (s > 0 && word_char(text[s - 1])) s--;
	*start = s;
	return e - s;
}

int sql_complete(sql_names *out, size_t *word_start, const char *before, const char *line, size_t cursor,
                 const sql_catalog *cat)
{
	size_t ws = cursor;
	while (ws > 0 && (word_char(line[ws - 1]) || line[ws - 1] == '.')) ws--;
	*word_start = ws;
	const char *word = line + ws;
	size_t wlen = cursor - ws;
	/* The statement so far, for quotes and context. */
	dl_cli_buf text = DL_CLI_BUF_INIT;
	int rc = dl_cli_buf_puts(&text, before ? before : "");
	if (rc == 0) rc = dl_cli_buf_append(&text, line, cursor);
	if (rc < 0 || !text.data) {
		dl_cli_buf_free(&text);
		return rc;
	}
	size_t head = text.len - wlen; /* where the word starts in text */
	bool start_of_line = true;
	for (size_t i = 0; i < ws; i++) start_of_line &= line[i] == ' ' || line[i] == '\t';
	if (in_literal(text.data, head)) goto done;
	if (start_of_line && !*sql_skip_blank(before ? before : "") && wlen && word[0] == '.') {
		for (const sql_dot_command *d = sql_dot_commands; rc == 0 && d->name; d++)
			rc = offer(out, d->name, word, wlen);
		goto done;
	}
	size_t ps, pl = previous_word(text.data, head, &ps);
	const char *prev = text.data + ps;
	/* SHOW TABLES IN <schema>, SHOW TABLES FROM <schema> */
	size_t pps = 0, ppl = ps ? previous_word(text.data, ps, &pps) : 0;
	bool after_tables = ppl == 6 && !strncasecmp(text.data + pps, "TABLES", 6);
	if (in_list(schema_context, prev, pl) || (after_tables && pl && (in_list((const char *const[]){"IN", "FROM", NULL}, prev, pl)))) {
		sql_names sc = {0};
		if (cat->schemas) cat->schemas(&sc, cat->payload);
		for (size_t i = 0; rc == 0 && i < sc.n; i++) rc = offer(out, sc.v[i], word, wlen);
		sql_names_free(&sc);
	} else if (in_list(table_context, prev, pl)) {
		rc = offer_tables(out, cat, word, wlen);
		if (in_list((const char *const[]){"DESCRIBE", "DESC", NULL}, prev, pl))
			for (size_t i = 0; rc == 0 && after_describe[i]; i++) rc = offer_keyword(out, after_describe[i], word, wlen);
	} else {
		/* tables named after the cursor count too: SELECT na|me FROM t */
		dl_cli_buf all = DL_CLI_BUF_INIT;
		rc = dl_cli_buf_puts(&all, text.data);
		if (rc == 0) rc = dl_cli_buf_puts(&all, line + cursor);
		if (rc == 0) rc = offer_columns(out, cat, all.data, word, wlen);
		dl_cli_buf_free(&all);
		if (rc == 0 && !memchr(word, '.', wlen))
			for (size_t i = 0; rc == 0 && sql_keywords[i]; i++) rc = offer_keyword(out, sql_keywords[i], word, wlen);
		if (rc == 0) rc = offer_tables(out, cat, word, wlen);
	}
done:
	dl_cli_buf_free(&text);
	if (rc == 0 && out->n > 1) qsort(out->v, out->n, sizeof *out->v, candidate_cmp);
	return rc;
}

size_t sql_common_prefix(const sql_names *c)
{
	if (!c->n) return 0;
	size_t n = strlen(c->v[0]);
	for (size_t i = 1; i < c->n; i++) {
		size_t k = 0;
		while (k < n && c->v[i][k] == c->v[0][k]) k++;
		n = k;
	}
	return n;
}
