/* The public transaction API (include/deltalake/txn.h) over the internal
 * one: the transaction owns the snapshot it read (and through it the
 * store), and file actions are built from plain arguments. */
#include <string.h>

#include "deltalake/txn.h"
#include "log/snapshot.h"
#include "txn/transaction_api.h"
#include "txn/txn_internal.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

int dl_transaction_begin(dl_transaction **out, const char *uri, const dl_transaction_options *opts)
{
	*out = NULL;
	/* The size of each version of the options (util/options.h). */
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_transaction_options, max_retries), /* 1 */
		sizeof(dl_transaction_options),                      /* 2: store, store options */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_TRANSACTION_OPTIONS_VERSION);
	dl_transaction_options loaded = DL_TRANSACTION_OPTIONS_INIT;
	DL_TRY(dl_options_load(&loaded, opts, ends, DL_TRANSACTION_OPTIONS_VERSION,
	                       "dl_transaction_options", "DL_TRANSACTION_OPTIONS_INIT"));
	opts = &loaded;
	/* With its files: removals look them up. */
	dl_snapshot *snap;
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = opts->store;
	so.store_options = opts->store_options;
	DL_TRY(dl_snapshot_open(&snap, uri, &so));
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.operation = opts->operation;
	o.user_metadata = opts->user_metadata;
	o.engine_info = opts->engine_info;
	o.max_retries = opts->max_retries;
	int rc = dl_txn_begin(out, dl_snapshot_store(snap), snap, &o);
	if (rc < 0) {
		dl_snapshot_free(snap);
		return rc;
	}
	(*out)->owned_snap = snap;
	return 0;
}

int dl_transaction_attach(dl_transaction *t, const dl_transaction_hook *hook)
{
	if (t->has_hook) return dl_error_set(DL_EINVALID, "the transaction already has a hook attached");
	t->hook = *hook;
	t->has_hook = true;
	return 0;
}

void *dl_transaction_attached(const dl_transaction *t)
{
	return t->has_hook ? t->hook.payload : NULL;
}

void dl_transaction_free(dl_transaction *t)
{
	if (!t) return;
	/* files of a commit that may have landed are kept like committed ones */
	if (t->has_hook && t->hook.release) t->hook.release(t->hook.payload, t->committed || t->commit_unknown);
	dl_txn_free(t);
}

int64_t dl_transaction_read_version(const dl_transaction *t) { return dl_txn_read_version(t); }

int dl_transaction_add_file(dl_transaction *t, const dl_transaction_file *f)
{
	if (!f->path || f->size < 0 || f->npartitions < 0)
		return dl_error_set(DL_EINVALID, "dl_transaction_add_file: a path and a size >= 0 are needed");
	dl_kv *kv = NULL;
	if (f->npartitions) {
		kv = dl_calloc((size_t)f->npartitions, sizeof *kv);
		if (!kv) return DL_ENOMEM;
		for (int i = 0; i < f->npartitions; i++)
			kv[i] = (dl_kv){f->partition_keys[i], f->partition_values[i]};
	}
	dl_add a;
	memset(&a, 0, sizeof a);
	a.path = f->path;
	a.partition_values = (dl_str_map){kv, (uint32_t)f->npartitions};
	a.size = f->size;
	a.modification_time = f->modification_time_ms ? f->modification_time_ms : dl_now_millis();
	a.data_change = f->data_change;
	a.stats = f->stats_json;
	a.stats_len = f->stats_json ? (uint32_t)strlen(f->stats_json) : 0;
	a.base_row_id = a.default_row_commit_version = DL_NONE;
	int rc = dl_txn_add_file(t, &a);
	dl_free(kv);
	return rc;
}

/* The live add of `path` in the read state (an index built on first use,
 * so many removals stay linear). */
static int find_live(dl_transaction *t, const char *path, const dl_add **out)
{
	*out = NULL;
	const dl_log_state *st = &t->snap->state;
	if (!t->live_index) {
		t->live_index = dl_calloc(1, sizeof *t->live_index);
		if (!t->live_index) return DL_ENOMEM;
		dl_strmap_init(t->live_index, false);
		DL_TRY(dl_strmap_reserve(t->live_index, st->nadds));
		for (size_t i = 0; i < st->nadds; i++) {
			dl_add *a = dl_log_state_add(st, i);
			DL_TRY(dl_strmap_put(t->live_index, a->path, strlen(a->path), a, NULL));
		}
	}
	*out = dl_strmap_get(t->live_index, path, strlen(path));
	return 0;
}

int dl_transaction_remove_file(dl_transaction *t, const char *path, bool data_change)
{
	const dl_add *a;
	DL_TRY(find_live(t, path, &a));
	if (!a)
		return dl_error_set(DL_ENOTFOUND, "'%s' is not a live file of version %lld of the table",
		                    path, (long long)t->read_version);
	dl_remove r;
	memset(&r, 0, sizeof r);
	r.path = a->path;
	r.deletion_timestamp = dl_now_millis();
	r.data_change = data_change;
	r.extended_file_metadata = true;
	r.partition_values = a->partition_values;
	r.size = a->size;
	r.stats = a->stats;
	r.stats_len = a->stats_len;
	r.tags = a->tags;
	r.dv = a->dv;
	r.base_row_id = a->base_row_id;
	r.default_row_commit_version = a->default_row_commit_version;
	DL_TRY(dl_txn_read_file(t, path));
	return dl_txn_remove_file(t, &r);
}

int dl_transaction_read_predicate(dl_transaction *t, const char *predicate_sql)
{
	return dl_txn_read_predicate(t, predicate_sql);
}

void dl_transaction_read_whole_table(dl_transaction *t) { dl_txn_read_whole_table(t); }

int dl_transaction_app_version(int64_t *version, dl_transaction *t, const char *app_id)
{
	return dl_txn_app_version(t, app_id, version);
}

int dl_transaction_set_app_version(dl_transaction *t, const char *app_id, int64_t version)
{
	return dl_txn_set_app_txn(t, app_id, version);
}

int dl_transaction_set_parameter(dl_transaction *t, const char *key, const char *value)
{
	return dl_txn_set_parameter(t, key, value);
}

int dl_transaction_set_metric(dl_transaction *t, const char *key, int64_t value)
{
	return dl_txn_set_metric(t, key, value);
}

int dl_transaction_commit(int64_t *version, dl_transaction *t)
{
	if (t->has_hook && t->hook.before_commit && !t->committed) DL_TRY(t->hook.before_commit(t->hook.payload, t));
	return dl_txn_commit(t, version);
}
