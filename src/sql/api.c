/* The public SQL API (include/deltalake/sql.h): connections, prepared
 * statements with `?` parameters, the result stream, interrupt. A
 * statement's tree lives in its parsed script; the result stream keeps the
 * script alive (a reference) because a lazily read query may still point
 * into it after dl_sql_stmt_free. */
#include "util/options.h"
#include "columnar/batch_stream.h"
#include "expr/ast.h"
#include "expr/lexer.h"
#include "sql/session_internal.h"
#include "util/error.h"
#include "util/mem.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef struct script_ref {
	int refs;
	dl_sql_script *script;
} script_ref;

static void script_unref(script_ref *r)
{
	if (r && --r->refs == 0) {
		dl_sql_script_free(r->script);
		dl_free(r);
	}
}

struct dl_sql_stmt {
	dl_sql_conn *c;
	script_ref *ref;
	const sql_stmt *st;
	char *text;           /* the statement as written, trimmed */
	int nparams;
	int *param_pos;       /* distinct source offsets of the `?`s, ascending */
	dl_scalar *values;    /* per parameter; strings live in the script's arena */
};

/* Errors whose message starts with "[CLASS]" (the parser's, the planner's)
 * also carry the class in dl_error_last()->klass. */
static int classify(int rc)
{
	const dl_error *e = dl_error_last();
	if (rc >= 0 || !e->message || (e->klass && *e->klass) || e->message[0] != '[') return rc;
	const char *end = strchr(e->message, ']');
	if (!end || end - e->message > 120) return rc;
	char klass[128];
	size_t n = (size_t)(end - e->message - 1);
	memcpy(klass, e->message + 1, n);
	klass[n] = 0;
	for (size_t i = 0; i < n; i++)
		if (!(klass[i] == '_' || klass[i] == '.' || (klass[i] >= 'A' && klass[i] <= 'Z') ||
		      (klass[i] >= '0' && klass[i] <= '9')))
			return rc;
	char *msg = dl_strdup(e->message);
	if (!msg) return rc;
	dl_error_set_class(rc, klass, "%s", msg);
	dl_free(msg);
	return rc;
}

/* ---- connections ---- */

static int64_t half_ram(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psize <= 0) return (int64_t)4 << 30;
	return (int64_t)pages * psize / 2;
}

DL_EXTERN(int) dl_sql_open(dl_sql_conn **out, const dl_sql_options *opts)
{
	if (!out) return dl_error_set(DL_EINVALID, "dl_sql_open: out is NULL");
	*out = NULL;
	/* Callers of every version: only the fields their version has are read. */
	static const size_t ends[] = {DL_OPTIONS_END(dl_sql_options, time_zone), sizeof(dl_sql_options)};
	DL_OPTIONS_ENDS_CHECK(ends, DL_SQL_OPTIONS_VERSION);
	dl_sql_options d = DL_SQL_OPTIONS_INIT;
	DL_TRY(dl_options_load(&d, opts, ends, DL_SQL_OPTIONS_VERSION, "dl_sql_options", "DL_SQL_OPTIONS_INIT"));
	opts = &d;
	if (opts->memory_limit < 0) return dl_error_set(DL_EINVALID, "dl_sql_options.memory_limit is negative");
	dl_sql_conn *c = dl_calloc(1, sizeof *c);
	if (!c) return dl_error_set(DL_ENOMEM, "out of memory opening a SQL connection");
	char *wh = NULL;
	int rc = dl_catalog_warehouse_resolve(&wh, opts->warehouse);
	dl_catalog_options co = DL_CATALOG_OPTIONS_INIT;
	co.store_options = opts->store_options;
	if (rc == 0) rc = dl_catalog_open(&c->cat, wh, &co);
	dl_free(wh);
	c->store_options = opts->store_options;
	if (rc == 0 && opts->nallowed_tables > 0)
		rc = dl_path_roots_copy(&c->allowed_tables, opts->allowed_tables, opts->nallowed_tables,
		                        "dl_sql_options.allowed_tables");
	c->default_memory_limit = opts->memory_limit ? opts->memory_limit : half_ram();
	c->memory_limit = c->default_memory_limit;
	if (rc == 0 && opts->temp_dir && !(c->temp_dir = dl_strdup(opts->temp_dir))) rc = DL_ENOMEM;
	if (rc == 0) {
		const char *tz = opts->time_zone;
		if (!tz || !*tz) {
			/* $TZ when it names a zone we can resolve (":/etc/localtime" and
			 * the like are the C library's business): else UTC */
			const char *env = getenv("TZ");
			tz = env && *env && sql_zone_valid(env) ? env : "UTC";
		} else if (!sql_zone_valid(tz)) {
			rc = dl_error_set_class(DL_EINVALID, "INVALID_CONF_VALUE.TIME_ZONE",
			                        "[INVALID_CONF_VALUE.TIME_ZONE] dl_sql_options.time_zone '%s' is not a time zone",
			                        tz);
		}
		if (rc == 0 && (!(c->default_time_zone = dl_strdup(tz)) || !(c->time_zone = dl_strdup(tz)))) rc = DL_ENOMEM;
	}
	if (rc < 0) {
		dl_sql_close(c);
		return rc;
	}
	sql_session_begin(c);
	*out = c;
	return 0;
}

DL_EXTERN(void) dl_sql_close(dl_sql_conn *c)
{
	if (!c) return;
	dl_catalog_free(c->cat);
	dl_path_roots_free(&c->allowed_tables);
	dl_free(c->temp_dir);
	dl_free(c->time_zone);
	dl_free(c->default_time_zone);
	for (int i = 0; i < c->nsettings; i++) {
		dl_free(c->settings[i].key);
		dl_free(c->settings[i].value);
	}
	dl_free(c->settings);
	dl_free(c);
}

DL_EXTERN(void) dl_sql_interrupt(dl_sql_conn *c)
{
	if (c) atomic_store(&c->interrupt, true);
}

DL_EXTERN(const char *) dl_sql_current_schema(const dl_sql_conn *c)
{
	return c ? dl_catalog_current_schema(c->cat) : NULL;
}

/* ---- statement end detection ---- */

static bool span_blank(const char *text, size_t start, size_t end, bool *bad)
{
	ex_lexer lx = {text, end, start};
	ex_token t;
	*bad = false;
	if (ex_lex_next(&lx, &t) < 0) {
		*bad = true;
		return false;
	}
	return t.kind == TK_EOF;
}

DL_EXTERN(bool) dl_sql_complete(const char *text)
{
	if (!text) return false;
	dl_sql_span *spans = NULL;
	size_t n = 0, len = strlen(text);
	if (dl_sql_split(&spans, &n, text, len) < 0) return false;
	/* the last span a ';' ends, then only blanks and comments (an
	 * unterminated quote or comment swallows the ';' into its span) */
	bool done = false;
	for (size_t i = n; i-- > 0;)
		if (spans[i].end < len && text[spans[i].end] == ';') {
			bool bad;
			done = span_blank(text, spans[i].end + 1, len, &bad) && !bad;
			break;
		}
	dl_free(spans);
	return done;
}

/* ---- prepared statements ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int collect_params(dl_sql_stmt *s)
{
	dl_expr *e = dl_sql_script_expr(s->ref->script);
	size_t lo = s->st->start, hi = s->st->end;
	int n = 0;
	int *pos = dl_calloc(e->nparams ? e->nparams : 1, sizeof *pos);
	if (!pos) return DL_ENOMEM;
	for (size_t i = 0; i < e->nparams; i++) {
		int p = e->params[i]->pos;
		if ((size_t)p < lo || (size_t)p >= hi) continue;
		pos[n++] = p;
	}
	qsort(pos, (size_t)n, sizeof *pos, cmp_int);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (m == 0 || pos[m - 1] != pos[i]) pos[m++] = pos[i];
	s->param_pos = pos;
	s->nparams = m;
	s->values = dl_calloc((size_t)(m ? m : 1), sizeof *s->values);
	if (!s->values) return DL_ENOMEM;
	for (int i = 0; i < m; i++) s->values[i] = (dl_scalar){.type = DL_TYPE_NULL, .is_null = true};
	return 0;
}

DL_EXTERN(int) dl_sql_prepare(dl_sql_stmt **out, const char **tail, dl_sql_conn *c, const char *sql)
{
	if (!out) return dl_error_set(DL_EINVALID, "dl_sql_prepare: out is NULL");
	*out = NULL;
	if (tail) *tail = sql;
	if (!c || !sql) return dl_error_set(DL_EINVALID, "dl_sql_prepare: connection or SQL text is NULL");
	size_t len = strlen(sql);
	dl_sql_span *spans = NULL;
	size_t n = 0;
	DL_TRY(dl_sql_split(&spans, &n, sql, len));
	size_t i = 0;
	for (; i < n; i++) {
		bool bad;
		if (!span_blank(sql, spans[i].start, spans[i].end, &bad) || bad) break;
	}
	if (i == n) {
		dl_free(spans);
		if (tail) *tail = sql + len;
		return 0;
	}
	size_t start = spans[i].start, end = spans[i].end;
	dl_free(spans);
	/* parse the text up to this statement's end: earlier spans are blank,
	 * so positions (and error carets) are those of the caller's text */
	char *upto = dl_strndup(sql, end);
	if (!upto) return DL_ENOMEM;
	dl_sql_script *script = NULL;
	int rc = dl_sql_parse(&script, upto);
	dl_free(upto);
	if (rc < 0) return classify(rc);
	if (dl_sql_script_count(script) != 1) {
		dl_sql_script_free(script);
		return dl_error_set(DL_ERROR, "internal: one statement span parsed as %zu statements",
		                    dl_sql_script_count(script));
	}
	dl_sql_stmt *s = dl_calloc(1, sizeof *s);
	script_ref *ref = s ? dl_calloc(1, sizeof *ref) : NULL;
	if (!ref) {
		dl_free(s);
		dl_sql_script_free(script);
		return dl_error_set(DL_ENOMEM, "out of memory preparing a statement");
	}
	ref->refs = 1;
	ref->script = script;
	s->ref = ref;
	s->c = c;
	s->st = dl_sql_script_stmt(script, 0);
	{
		/* the text starts at the first token (after blanks and comments) */
		ex_lexer lx = {sql, end, start};
		ex_token t;
		if (ex_lex_next(&lx, &t) == 0 && t.kind != TK_EOF) start = (size_t)t.pos;
	}
	size_t e = end;
	while (e > start && (sql[e - 1] == ' ' || sql[e - 1] == '\t' || sql[e - 1] == '\n' || sql[e - 1] == '\r')) e--;
	if (!(s->text = dl_strndup(sql + start, e - start)) || (rc = collect_params(s)) < 0) {
		dl_sql_stmt_free(s);
		return rc < 0 ? rc : DL_ENOMEM;
	}
	if (tail) *tail = sql + end + (sql[end] == ';' ? 1 : 0);
	*out = s;
	return 0;
}

DL_EXTERN(int) dl_sql_stmt_param_count(const dl_sql_stmt *s)
{
	return s ? s->nparams : 0;
}

static int param_slot(dl_sql_stmt *s, int i)
{
	if (!s) return dl_error_set(DL_EINVALID, "dl_sql_bind: statement is NULL");
	if (i < 1 || i > s->nparams)
		return dl_error_set(DL_EINVALID, "parameter %d does not exist: the statement has %d", i, s->nparams);
	return i - 1;
}

DL_EXTERN(int) dl_sql_bind_null(dl_sql_stmt *s, int i)
{
	int k = param_slot(s, i);
	if (k < 0) return k;
	s->values[k] = (dl_scalar){.type = DL_TYPE_NULL, .is_null = true};
	return 0;
}

DL_EXTERN(int) dl_sql_bind_bool(dl_sql_stmt *s, int i, bool v)
{
	int k = param_slot(s, i);
	if (k < 0) return k;
	s->values[k] = (dl_scalar){.type = DL_TYPE_BOOLEAN, .v.b = v};
	return 0;
}

DL_EXTERN(int) dl_sql_bind_int64(dl_sql_stmt *s, int i, int64_t v)
{
	int k = param_slot(s, i);
	if (k < 0) return k;
	s->values[k] = (dl_scalar){.type = DL_TYPE_LONG, .v.i64 = v};
	return 0;
}

DL_EXTERN(int) dl_sql_bind_double(dl_sql_stmt *s, int i, double v)
{
	int k = param_slot(s, i);
	if (k < 0) return k;
	s->values[k] = (dl_scalar){.type = DL_TYPE_DOUBLE, .v.f64 = v};
	return 0;
}

DL_EXTERN(int) dl_sql_bind_text(dl_sql_stmt *s, int i, const char *v, size_t len)
{
	int k = param_slot(s, i);
	if (k < 0) return k;
	if (!v) return dl_sql_bind_null(s, i);
	if (len == SIZE_MAX) len = strlen(v);
	/* in the script's arena: a result stream may still read the literal
	 * after a rebind or dl_sql_stmt_free (it holds the script) */
	dl_expr *e = dl_sql_script_expr(s->ref->script);
	char *copy = dl_arena_strndup(&e->arena, v, len);
	if (!copy) return dl_error_set(DL_ENOMEM, "out of memory binding parameter %d", i);
	s->values[k] = (dl_scalar){.type = DL_TYPE_STRING};
	s->values[k].v.str.ptr = copy;
	s->values[k].v.str.len = len;
	return 0;
}

/* Every `?` of the statement becomes the literal bound now (the nodes of
 * one `?` share its position; see expr/ast.h). */
static void substitute(dl_sql_stmt *s)
{
	dl_expr *e = dl_sql_script_expr(s->ref->script);
	for (size_t i = 0; i < e->nparams; i++) {
		ex_node *n = e->params[i];
		int *hit = bsearch(&n->pos, s->param_pos, (size_t)s->nparams, sizeof *s->param_pos, cmp_int);
		if (!hit) continue;
		n->kind = EX_LIT;
		n->flag = false;
		n->lit = s->values[hit - s->param_pos];
	}
}

/* The result stream: checks the interrupt flag before each batch, gives
 * errors their class, and keeps the statement's tree alive. */
typedef struct result_stream {
	dl_batch_stream *in;
	dl_sql_conn *c;
	script_ref *ref;
} result_stream;

static const dl_type *rs_schema(dl_batch_stream *s)
{
	result_stream *r = s->private_data;
	return dl_batch_stream_schema(r->in);
}

static int rs_next(dl_batch_stream *s, dl_batch **out)
{
	result_stream *r = s->private_data;
	*out = NULL;
	if (atomic_load(&r->c->interrupt)) return sql_cancelled();
	int rc = dl_batch_stream_next(r->in, out);
	/* an operator that saw the flag first says so in its words: one
	 * message and class for an interrupt, wherever it was noticed */
	if (rc == DL_ECANCELLED && atomic_load(&r->c->interrupt)) return sql_cancelled();
	return classify(rc);
}

static void rs_release(dl_batch_stream *s)
{
	result_stream *r = s->private_data;
	dl_batch_stream_free(r->in);
	script_unref(r->ref);
	dl_free(r);
	dl_free(s);
}

static int export_result(struct ArrowArrayStream *out, dl_sql_stmt *st, dl_batch_stream *in)
{
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	result_stream *r = s ? dl_calloc(1, sizeof *r) : NULL;
	if (!r) {
		dl_free(s);
		dl_batch_stream_free(in);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	r->in = in;
	r->c = st->c;
	r->ref = st->ref;
	st->ref->refs++;
	s->private_data = r;
	s->schema = rs_schema;
	s->next = rs_next;
	s->release = rs_release;
	return dl_batch_stream_export(out, s);
}

/* reset: a new statement from the caller (the interrupt flag cleared); a
 * script's later statements keep it, so an interrupt stops the script. */
static int execute(struct ArrowArrayStream *out, dl_sql_stmt *s, bool reset)
{
	if (reset) sql_session_begin(s->c);
	else s->c->mem.limit = s->c->memory_limit;
	substitute(s);
	dl_batch_stream *res = NULL;
	int rc = sql_stmt_run(&res, s->c, s->st);
	if (rc == DL_ECANCELLED && atomic_load(&s->c->interrupt)) return sql_cancelled();
	if (rc < 0) return classify(rc);
	return classify(export_result(out, s, res));
}

DL_EXTERN(int) dl_sql_stmt_execute(struct ArrowArrayStream *out, dl_sql_stmt *s)
{
	if (!out) return dl_error_set(DL_EINVALID, "dl_sql_stmt_execute: out is NULL");
	memset(out, 0, sizeof *out);
	if (!s) return dl_error_set(DL_EINVALID, "dl_sql_stmt_execute: statement is NULL");
	return execute(out, s, true);
}

DL_EXTERN(const char *) dl_sql_stmt_kind(const dl_sql_stmt *s)
{
	if (!s) return NULL;
	if (s->st->kind == ST_QUERY) {
		if (s->st->query && s->st->query->kind == Q_VALUES) return "VALUES";
		return "SELECT";
	}
	return dl_sql_stmt_kind_name(s->st->kind);
}

DL_EXTERN(const char *) dl_sql_stmt_text(const dl_sql_stmt *s)
{
	return s ? s->text : NULL;
}

DL_EXTERN(void) dl_sql_stmt_free(dl_sql_stmt *s)
{
	if (!s) return;
	script_unref(s->ref);
	dl_free(s->values);
	dl_free(s->param_pos);
	dl_free(s->text);
	dl_free(s);
}

DL_EXTERN(int) dl_sql_execute(struct ArrowArrayStream *out, dl_sql_conn *c, const char *sql)
{
	if (!out) return dl_error_set(DL_EINVALID, "dl_sql_execute: out is NULL");
	memset(out, 0, sizeof *out);
	if (!c || !sql) return dl_error_set(DL_EINVALID, "dl_sql_execute: connection or SQL text is NULL");
	struct ArrowArrayStream last;
	memset(&last, 0, sizeof last);
	const char *p = sql;
	int rc = 0;
	bool first = true;
	for (;;) {
		dl_sql_stmt *st = NULL;
		const char *tail = NULL;
		if ((rc = dl_sql_prepare(&st, &tail, c, p)) < 0) break;
		if (!st) break;
		if (last.release) last.release(&last);
		memset(&last, 0, sizeof last);
		rc = execute(&last, st, first);
		first = false;
		dl_sql_stmt_free(st);
		if (rc < 0) break;
		p = tail;
	}
	if (rc < 0) {
		if (last.release) last.release(&last);
		return rc;
	}
	if (!last.release) {
		/* only blanks and comments: an empty result */
		dl_batch_stream *e = NULL;
		if ((rc = sql_empty_result(&e)) < 0) return rc;
		return dl_batch_stream_export(out, e);
	}
	*out = last;
	return 0;
}
