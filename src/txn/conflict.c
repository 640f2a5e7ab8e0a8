/* Conflict detection (Spark's ConflictChecker, PROTOCOL.md "Domain
 * Metadata"): when the version a transaction wanted is taken, the winning
 * commit is read and checked in this order:
 *   protocol    a winner's protocol change conflicts with ours;
 *   metadata    any winner metaData conflicts;
 *   appends     data-changing adds the transaction should have read (they
 *               match its read predicates or it read the whole table) -
 *               under WriteSerializable blind appends are exempt unless
 *               this commit changes metadata; SnapshotIsolation skips it;
 *   delete/read a removed file this transaction read (or any removal when
 *               it read the whole table);
 *   delete/delete a file both removed;
 *   app ids     a txn action for an app id this transaction read or writes;
 *   domains     a domainMetadata for a domain this transaction writes
 *               (except delta.rowTracking: fresh row ids are moved past the
 *               winner's high-water mark instead, as Spark does).
 * No conflict: the caller retries at the next version. */
#include "txn/txn_internal.h"

#include <string.h>
#include <strings.h>

#include "log/log_segment.h"
#include "log/partition_values.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "log/protocol.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct winner {
	dl_transaction *t;
	int64_t version;
	dl_arena *arena;
	const char *what;
	bool blind_append;
	bool protocol, metadata;
	const dl_protocol *new_protocol;
	dl_add **adds;          /* dataChange adds, checked once isBlindAppend is known */
	size_t nadds, adds_cap;
	const char *delete_read;    /* first offending paths */
	const char *delete_delete;
	bool any_remove;
	const char *app_id;
	const char *domain;
} winner;

static int keep_add(winner *w, dl_add *a)
{
	if (w->nadds == w->adds_cap) {
		size_t nc = w->adds_cap ? w->adds_cap * 2 : 64;
		dl_add **p = dl_reallocarray(w->adds, nc, sizeof *p);
		if (!p) return DL_ENOMEM;
		w->adds = p;
		w->adds_cap = nc;
	}
	w->adds[w->nadds++] = a;
	return 0;
}

static void note_commit_info(winner *w, const dl_json *body)
{
	const dl_json *b = dl_json_get(body, "isBlindAppend");
	w->blind_append = b && b->kind == DL_JSON_TRUE;
	int64_t v;
	const dl_json *ict = dl_json_get(body, "inCommitTimestamp");
	if (ict && dl_json_int64(ict, &v) == 0) w->t->winners.last_ict = v;
	const dl_json *ts = dl_json_get(body, "timestamp");
	if (ts && dl_json_int64(ts, &v) == 0) w->t->winners.last_ts = v;
}

static bool writes_app(const dl_transaction *t, const char *app_id)
{
	for (size_t i = 0; i < t->napps; i++)
		if (strcmp(t->apps[i].app_id, app_id) == 0) return true;
	return dl_strmap_find(&t->read_apps, app_id, strlen(app_id), NULL);
}

static bool writes_domain(const dl_transaction *t, const char *domain)
{
	for (size_t i = 0; i < t->ndomains; i++)
		if (strcmp(t->domains[i].domain, domain) == 0) return true;
	return false;
}

static void note_remove(winner *w, const dl_remove *r)
{
	dl_transaction *t = w->t;
	size_t n = strlen(r->path);
	w->any_remove = true;
	t->winners.nremoves++;
	if (r->size == DL_NONE) t->winners.sizes_unknown = true;
	else t->winners.remove_bytes += r->size;
	if (!w->delete_read && dl_strmap_find(&t->read_files, r->path, n, NULL)) w->delete_read = r->path;
	if (!w->delete_delete && dl_strmap_find(&t->removed_paths, r->path, n, NULL))
		w->delete_delete = r->path;
}

static int on_line(const dl_json *line, int64_t lineno, void *payload)
{
	(void)lineno;
	winner *w = payload;
	dl_transaction *t = w->t;
	if (line->kind == DL_JSON_OBJECT && line->u.obj.n == 1 &&
	    strcmp(line->u.obj.items[0].key, "commitInfo") == 0) {
		note_commit_info(w, &line->u.obj.items[0].value);
		return 0;
	}
	dl_action a;
	DL_TRY(dl_action_from_json(&a, w->arena, line, w->what));
	switch (a.kind) {
	case DL_ACTION_PROTOCOL: {
		dl_protocol *p = dl_arena_alloc(w->arena, sizeof *p);
		if (!p) return DL_ENOMEM;
		*p = a.u.protocol;
		w->protocol = true;
		w->new_protocol = p;
		t->winners.protocol_changed = true;
		break;
	}
	case DL_ACTION_METADATA: w->metadata = true; break;
	case DL_ACTION_ADD: {
		t->winners.nadds++;
		t->winners.add_bytes += a.u.add.size;
		if (!a.u.add.data_change) break;
		dl_add *p = dl_arena_alloc(w->arena, sizeof *p);
		if (!p) return DL_ENOMEM;
		*p = a.u.add;
		DL_TRY(keep_add(w, p));
		break;
	}
	case DL_ACTION_REMOVE: note_remove(w, &a.u.remove); break;
	case DL_ACTION_TXN:
		t->winners.txns_changed = true;
		if (!w->app_id && writes_app(t, a.u.txn.app_id)) w->app_id = a.u.txn.app_id;
		break;
	case DL_ACTION_DOMAIN_METADATA: {
		const dl_domain_metadata *d = &a.u.domain_metadata;
		t->winners.domains_changed = true;
		if (strcmp(d->domain, "delta.rowTracking") == 0 && t->rows.tracked) {
			/* not a conflict: this commit's row ids move past the winner's */
			int64_t hwm = dl_txn_row_id_hwm(d->configuration);
			if (hwm > t->winners.row_id_hwm) t->winners.row_id_hwm = hwm;
			break;
		}
		if (!w->domain && writes_domain(t, d->domain)) w->domain = d->domain;
		break;
	}
	default: break;
	}
	return 0;
}

/* ---- read predicates over the partition values of a winner's add ---- */

typedef struct part_provider {
	const dl_transaction *t;
	const dl_add *add;
} part_provider;

static bool is_partition_column(const dl_metadata *m, const char *name)
{
	for (uint32_t i = 0; i < m->npartition_columns; i++)
		if (strcasecmp(m->partition_columns[i], name) == 0) return true;
	return false;
}

static int part_column(void *payload, const char *const *path, int depth, dl_col_stats *out)
{
	part_provider *pp = payload;
	const dl_snapshot *s = pp->t->snap;
	memset(out, 0, sizeof *out);
	if (depth != 1 || !is_partition_column(s->state.metadata, path[0])) return 0;
	int i = dl_schema_find(s->schema, path[0]);
	if (i < 0) return 0;
	const dl_field *f = &s->schema->children[i];
	const char *key = f->name;
	dl_arena tmp = DL_ARENA_INIT;
	int rc = 0;
	if (s->props.column_mapping_mode != DL_CM_NONE)
		rc = dl_field_physical_name(f, s->props.column_mapping_mode, &tmp, &key);
	bool found = false;
	const char *v = rc == 0 ? dl_str_map_get(&pp->add->partition_values, key, &found) : NULL;
	dl_scalar sc;
	if (rc < 0 || !found || dl_partition_value_parse(&sc, f->type, v) < 0) {
		dl_error_clear(); /* unknown: the add may match */
		dl_arena_free(&tmp);
		return 0;
	}
	if (sc.is_null) {
		out->all_null = true;
	} else {
		out->has_min = out->has_max = out->has_null_count = true;
		out->min = out->max = sc;
	}
	dl_arena_free(&tmp);
	return 0;
}

/* Binds the read predicates against the read schema once. A predicate
 * that cannot be bound matches everything (conservative). */
static void bind_predicates(dl_transaction *t)
{
	for (size_t i = 0; i < t->npredicates; i++) {
		if (t->bound[i] || !t->snap || !t->snap->schema) continue;
		dl_expr *e = NULL;
		if (dl_expr_parse(&e, t->predicates[i]) < 0 || dl_expr_bind(e, t->snap->schema) < 0) {
			dl_error_clear();
			dl_expr_free(e);
			continue;
		}
		t->bound[i] = e;
	}
}

static bool add_matches_reads(dl_transaction *t, const dl_add *add, const char **which)
{
	if (t->read_whole_table) {
		*which = "the whole table";
		return true;
	}
	for (size_t i = 0; i < t->npredicates; i++) {
		*which = t->predicates[i];
		if (!t->bound[i]) return true;
		part_provider pp = {t, add};
		dl_stats_provider p = {-1, part_column, &pp, NULL, NULL};
		bool may = true;
		if (dl_expr_may_match(&may, t->bound[i], &p) < 0) {
			dl_error_clear();
			may = true;
		}
		if (may) return true;
	}
	return false;
}

static int check_appends(winner *w)
{
	dl_transaction *t = w->t;
	dl_isolation_level level = dl_txn_isolation(t);
	if (level == DL_ISOLATION_SNAPSHOT) return 0;
	if (!t->read_whole_table && t->npredicates == 0) return 0;
	if (w->blind_append && level == DL_ISOLATION_WRITE_SERIALIZABLE && !t->metadata_json) return 0;
	bind_predicates(t);
	for (size_t i = 0; i < w->nadds; i++) {
		const char *which = NULL;
		if (add_matches_reads(t, w->adds[i], &which))
			return dl_error_set_class(DL_ECONFLICT, "DELTA_CONCURRENT_APPEND",
			        "ConcurrentAppendException: Files were added by a concurrent update (version %lld added '%s') that "
			        "this transaction should have read (it read %s%s%s). Retry the operation "
			        "on the new version of the table.",
			        (long long)w->version, w->adds[i]->path,
			        strcmp(which, "the whole table") == 0 ? "" : "where ",
			        which, "");
	}
	return 0;
}

static int check(winner *w)
{
	dl_transaction *t = w->t;
	long long v = (long long)w->version;
	if (w->protocol) {
		if (dl_protocol_check_write(w->new_protocol) < 0)
			return dl_error_set_class(DL_ECONFLICT, "DELTA_PROTOCOL_CHANGED",
			        "ProtocolChangedException: The protocol of the Delta table was changed by a concurrent update "
			        "(version %lld) to one this library cannot write: %s",
			        v, dl_error_last()->message);
		if (t->protocol_json || t->read_version < 0)
			return dl_error_set_class(DL_ECONFLICT, "DELTA_PROTOCOL_CHANGED",
			        "ProtocolChangedException: The protocol version of the Delta table has been changed by a concurrent "
			        "update (version %lld). This happens when multiple writers are writing to "
			        "an empty directory: creating the table ahead of time avoids it.", v);
	}
	if (w->metadata)
		return dl_error_set_class(DL_ECONFLICT, "DELTA_METADATA_CHANGED",
		        "MetadataChangedException: The metadata of the Delta table has been changed by a concurrent update "
		        "(version %lld). Re-read the table and try the operation again.", v);
	DL_TRY(check_appends(w));
	if (w->delete_read || (w->any_remove && t->read_whole_table))
		return dl_error_set_class(DL_ECONFLICT, "DELTA_CONCURRENT_DELETE_READ",
		        "ConcurrentDeleteReadException: This transaction read %s%s%s, which a concurrent update (version %lld) "
		        "deleted. Retry the operation on the new version of the table.",
		        w->delete_read ? "the file '" : "the whole table",
		        w->delete_read ? w->delete_read : "", w->delete_read ? "'" : "", v);
	if (w->delete_delete)
		return dl_error_set_class(DL_ECONFLICT, "DELTA_CONCURRENT_DELETE_DELETE",
		        "ConcurrentDeleteDeleteException: This transaction deletes the file '%s', which a concurrent update "
		        "(version %lld) also deleted. Retry the operation on the new version.",
		        w->delete_delete, v);
	if (w->app_id)
		return dl_error_set_class(DL_ECONFLICT, "DELTA_CONCURRENT_TRANSACTION",
		        "ConcurrentTransactionException: A concurrent update (version %lld) committed application transaction '%s', "
		        "which this transaction also reads or writes: the same application wrote "
		        "twice at once. Re-check the application's version before retrying.",
		        v, w->app_id);
	if (w->domain)
		return dl_error_set_class(DL_ECONFLICT, "DELTA_CONCURRENT_TRANSACTION",
		        "ConcurrentTransactionException: A concurrent update (version %lld) changed metadata domain '%s', which "
		        "this transaction also changes. Retry the operation.", v, w->domain);
	return 0;
}

int dl_txn_check_winner(dl_transaction *t, int64_t version)
{
	char path[96];
	dl_log_commit_path(path, sizeof path, version);
	uint8_t *data = NULL;
	size_t len = 0;
	int rc = dl_store_get(&data, &len, t->store, path);
	/* The commit that refused ours is gone: a Delta commit is deleted only
	 * with its table (log cleanup removes versions far behind the latest),
	 * so the table was deleted under this transaction. A conflict, not a
	 * corrupt table: the caller decides whether to start again. */
	if (rc == DL_ENOTFOUND)
		return dl_error_set_class(DL_ECONFLICT, "DELTA_CONCURRENT_WRITE",
		        "ConcurrentWriteException: A concurrent transaction wrote version %lld and the table was deleted "
		        "before that commit (%s) could be read: the table is being deleted or "
		        "replaced. Check the table and retry the operation.",
		        (long long)version, path);
	if (rc < 0) return dl_error_prefix("reading the winning commit %s", path);
	dl_arena arena = DL_ARENA_INIT;
	winner w = {.t = t, .version = version, .arena = &arena, .what = path};
	rc = dl_json_parse_lines(&arena, (const char *)data, len, path, on_line, &w);
	dl_free(data);
	if (rc == 0) rc = check(&w);
	dl_free(w.adds);
	dl_arena_free(&arena);
	return rc;
}
