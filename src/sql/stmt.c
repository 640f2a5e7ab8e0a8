/* Statement dispatch: one function per statement kind, in one table, so a
 * later issue wires its statement by replacing one entry (DELETE, UPDATE
 * and MERGE when the DML layer lands, OPTIMIZE, VACUUM...). Kinds without
 * an operation yet fail with DL_EUNSUPPORTED naming the statement. */
#include "sql/session_internal.h"
#include "util/error.h"
#include "util/mem.h"

typedef int (*stmt_fn)(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st);

static int not_yet(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	(void)out;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED, "%s is not supported yet", dl_sql_stmt_kind_name(st->kind));
}

static const stmt_fn dispatch[] = {
    [ST_QUERY] = sql_run_query,
    [ST_CREATE_TABLE] = sql_run_create_table,
    [ST_CLONE] = sql_run_clone,
    [ST_INSERT] = sql_run_insert,
    [ST_DELETE] = sql_run_delete,
    [ST_UPDATE] = sql_run_update,
    [ST_MERGE] = sql_run_merge,
    [ST_OPTIMIZE] = sql_run_optimize,
    [ST_REORG] = sql_run_reorg,
    [ST_VACUUM] = sql_run_vacuum,
    [ST_RESTORE] = sql_run_restore,
    [ST_CONVERT] = sql_run_convert,
    [ST_GENERATE] = sql_run_generate,
    [ST_FSCK] = sql_run_fsck,
    [ST_ALTER_TABLE] = sql_run_alter,
    [ST_DESCRIBE_TABLE] = sql_run_describe_table,
    [ST_DESCRIBE_HISTORY] = sql_run_describe_history,
    [ST_DESCRIBE_DETAIL] = sql_run_describe_detail,
    [ST_SHOW_TABLES] = sql_run_show_tables,
    [ST_SHOW_SCHEMAS] = sql_run_show_schemas,
    [ST_SHOW_COLUMNS] = sql_run_show_columns,
    [ST_SHOW_TBLPROPERTIES] = sql_run_show_tblproperties,
    [ST_SHOW_CREATE_TABLE] = sql_run_show_create_table,
    [ST_CREATE_SCHEMA] = sql_run_create_schema,
    [ST_DROP_SCHEMA] = sql_run_drop_schema,
    [ST_DROP_TABLE] = sql_run_drop_table,
    [ST_USE] = sql_run_use,
    [ST_EXPLAIN] = sql_run_explain,
    [ST_SET] = sql_run_set,
    [ST_RESET] = sql_run_reset,
};

int sql_stmt_run(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	*out = NULL;
	if ((unsigned)st->kind >= sizeof dispatch / sizeof dispatch[0] || !dispatch[st->kind])
		return not_yet(out, c, st);
	if (atomic_load(&c->interrupt)) return sql_cancelled();
	int rc = dispatch[st->kind](out, c, st);
	if (rc == DL_ECANCELLED && atomic_load(&c->interrupt)) rc = sql_cancelled();
	if (rc < 0) {
		dl_batch_stream_free(*out);
		*out = NULL;
		/* interrupted: however the failure surfaced (an operator's words, a
		 * write's import of its cancelled input), it is the interrupt */
		if (atomic_load(&c->interrupt)) return sql_cancelled();
	}
	return rc;
}

int sql_cancelled(void)
{
	return dl_error_set_class(DL_ECANCELLED, "OPERATION_CANCELED", "[OPERATION_CANCELED] the statement was interrupted");
}

/* ---- the interrupt check every stream of a plan passes through ---- */

typedef struct intr_stream {
	dl_batch_stream *in;
	const _Atomic bool *flag;
} intr_stream;

static const dl_type *intr_schema(dl_batch_stream *s)
{
	intr_stream *x = s->private_data;
	return dl_batch_stream_schema(x->in);
}

static int intr_next(dl_batch_stream *s, dl_batch **out)
{
	intr_stream *x = s->private_data;
	*out = NULL;
	if (atomic_load(x->flag)) return sql_cancelled();
	int rc = dl_batch_stream_next(x->in, out);
	/* an operator that saw the flag itself (a spilling sort, a window)
	 * reports it as Spark does too */
	if (rc == DL_ECANCELLED && atomic_load(x->flag)) return sql_cancelled();
	if (rc == 0 && *out && atomic_load(x->flag)) {
		dl_batch_free(*out);
		*out = NULL;
		return sql_cancelled();
	}
	return rc;
}

static void intr_release(dl_batch_stream *s)
{
	intr_stream *x = s->private_data;
	dl_batch_stream_free(x->in);
	dl_free(x);
	dl_free(s);
}

int sql_interruptible(dl_batch_stream **out, dl_batch_stream *in, const _Atomic bool *flag)
{
	*out = NULL;
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	intr_stream *x = s ? dl_calloc(1, sizeof *x) : NULL;
	if (!x) {
		dl_free(s);
		dl_batch_stream_free(in);
		return dl_error_set(DL_ENOMEM, "out of memory");
	}
	x->in = in;
	x->flag = flag;
	s->private_data = x;
	s->schema = intr_schema;
	s->next = intr_next;
	s->release = intr_release;
	*out = s;
	return 0;
}
