/* The transaction builder: options, the write set (actions serialized as
 * they are added, so the caller's memory can go at once) and the read set
 * the conflict checks consult. */
#include "txn/txn_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "deltalake.h"
#include "log/protocol.h"
#include "log/snapshot.h"
#include "uniform/iceberg_nested_ids.h"
#include "util/error.h"
#include "util/mem.h"

#define DEFAULT_MAX_RETRIES 1000

static char *dup_opt(const char *s, bool *failed)
{
	if (!s) return NULL;
	char *d = dl_strdup(s);
	if (!d) *failed = true;
	return d;
}

static char engine_info[64];
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;

static void make_engine_info(void)
{
	snprintf(engine_info, sizeof engine_info, "deltalake-c/%s", dl_version());
}

const char *dl_txn_engine_info(void)
{
	pthread_once(&engine_once, make_engine_info);
	return engine_info;
}

const char *dl_txn_operation(const dl_transaction *t)
{
	return t->operation;
}

int dl_txn_begin(dl_transaction **out, dl_store *store, dl_snapshot *snapshot,
                 const dl_txn_options *opts)
{
	*out = NULL;
	if (!store) return dl_error_set(DL_EINVALID, "dl_txn_begin: no store given");
	dl_txn_options def = DL_TXN_OPTIONS_INIT;
	if (!opts) opts = &def;
	if (opts->version != DL_TXN_OPTIONS_VERSION)
		return dl_error_set(DL_EINVALID, "dl_txn_options.version is %d, expected %d",
		                    opts->version, DL_TXN_OPTIONS_VERSION);
	if (snapshot) DL_TRY(dl_protocol_check_write(snapshot->state.protocol));
	dl_transaction *t = dl_calloc(1, sizeof *t);
	if (!t) return DL_ENOMEM;
	t->store = store;
	t->snap = snapshot;
	t->read_version = snapshot ? dl_snapshot_version(snapshot) : -1;
	t->opts = *opts;
	if (t->opts.max_retries < 0) t->opts.max_retries = DEFAULT_MAX_RETRIES;
	bool failed = false;
	t->operation = dup_opt(opts->operation ? opts->operation : "WRITE", &failed);
	t->engine_info = dup_opt(opts->engine_info ? opts->engine_info : dl_txn_engine_info(), &failed);
	t->user_metadata = dup_opt(opts->user_metadata, &failed);
	t->opts.operation = t->opts.engine_info = t->opts.user_metadata = NULL;
	dl_strmap_init(&t->removed_paths, true);
	dl_strmap_init(&t->read_files, true);
	dl_strmap_init(&t->read_apps, true);
	t->only_data_adds = true;
	t->blind_append = -1;
	dl_table_properties_defaults(&t->default_props);
	t->version = -1;
	t->winners.last_ict = t->winners.last_ts = DL_NONE;
	t->winners.row_id_hwm = -1;
	t->rows.read_hwm = -1;
	t->rows.min_fresh_base = INT64_MAX;
	t->rows.version = t->read_version + 1;
	if (failed || dl_uuid_v4(t->txn_id) < 0) {
		int rc = failed ? DL_ENOMEM : dl_error_last()->code;
		dl_txn_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

static void free_kvs(txn_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dl_free(kv[i].key);
		dl_free(kv[i].json);
	}
	dl_free(kv);
}

void dl_txn_free(dl_transaction *t)
{
	if (!t) return;
	if (t->live_index) dl_strmap_free(t->live_index);
	dl_free(t->live_index);
	dl_snapshot_free(t->owned_snap);
	dl_free(t->operation);
	dl_free(t->engine_info);
	dl_free(t->user_metadata);
	dl_free(t->protocol_json);
	dl_free(t->metadata_json);
	dl_buf_free(&t->file_lines);
	dl_strmap_free(&t->removed_paths);
	for (size_t i = 0; i < t->napps; i++) dl_free(t->apps[i].app_id);
	dl_free(t->apps);
	for (size_t i = 0; i < t->ndomains; i++) {
		dl_free(t->domains[i].domain);
		dl_free(t->domains[i].configuration);
	}
	dl_free(t->domains);
	dl_strmap_free(&t->read_files);
	for (size_t i = 0; i < t->npredicates; i++) {
		dl_free(t->predicates[i]);
		dl_expr_free(t->bound[i]);
	}
	dl_free(t->predicates);
	dl_free(t->bound);
	dl_strmap_free(&t->read_apps);
	free_kvs(t->params, t->nparams);
	free_kvs(t->metrics, t->nmetrics);
	dl_free(t->post_msg);
	dl_free(t);
}

int64_t dl_txn_read_version(const dl_transaction *t) { return t->read_version; }
bool dl_txn_commit_unknown(const dl_transaction *t) { return t->commit_unknown; }
dl_snapshot *dl_txn_snapshot(const dl_transaction *t) { return t->snap; }
int64_t dl_txn_commit_timestamp(const dl_transaction *t) { return t->commit_ts; }
int dl_txn_attempts(const dl_transaction *t) { return t->attempts; }

int dl_txn_post_commit_error(const dl_transaction *t, const char **message)
{
	if (message) *message = t->post_msg ? t->post_msg : "";
	return t->post_rc;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap) return 0;
	size_t nc = *cap ? *cap * 2 : 8;
	void *q = dl_reallocarray(*p, nc, size);
	if (!q) return DL_ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

static int check_open(const dl_transaction *t)
{
	if (t->committed)
		return dl_error_set(DL_EINVALID, "the transaction already committed version %lld; "
		                    "start a new one", (long long)t->version);
	return 0;
}

static int append_line(dl_transaction *t, const dl_action *a)
{
	size_t before = t->file_lines.len;
	int rc = dl_action_to_json(&t->file_lines, a);
	if (rc == 0) rc = dl_buf_putc(&t->file_lines, '\n');
	if (rc < 0) t->file_lines.len = before;
	if (t->file_lines.data) t->file_lines.data[t->file_lines.len] = 0;
	return rc;
}

int dl_txn_add_file(dl_transaction *t, const dl_add *add)
{
	DL_TRY(check_open(t));
	if (!add->path || !add->path[0]) return dl_error_set(DL_EINVALID, "add action without a path");
	dl_action a = {.kind = DL_ACTION_ADD, .u.add = *add};
	DL_TRY(append_line(t, &a));
	t->nadds++;
	t->add_bytes += add->size > 0 ? add->size : 0;
	if (add->base_row_id != DL_NONE && add->default_row_commit_version == t->read_version + 1 &&
	    add->base_row_id < t->rows.min_fresh_base)
		t->rows.min_fresh_base = add->base_row_id;
	if (add->data_change) t->data_change = true;
	else t->only_data_adds = false;
	return 0;
}

int dl_txn_remove_file(dl_transaction *t, const dl_remove *remove)
{
	DL_TRY(check_open(t));
	if (!remove->path || !remove->path[0])
		return dl_error_set(DL_EINVALID, "remove action without a path");
	dl_action a = {.kind = DL_ACTION_REMOVE, .u.remove = *remove};
	DL_TRY(append_line(t, &a));
	DL_TRY(dl_strmap_put(&t->removed_paths, remove->path, strlen(remove->path), NULL, NULL));
	t->nremoves++;
	if (remove->size == DL_NONE) t->remove_size_unknown = true;
	else t->remove_bytes += remove->size;
	if (remove->data_change) t->data_change = true;
	t->only_data_adds = false;
	return 0;
}

int dl_txn_add_cdc(dl_transaction *t, const dl_cdc *cdc)
{
	DL_TRY(check_open(t));
	if (!cdc->path || !cdc->path[0]) return dl_error_set(DL_EINVALID, "cdc action without a path");
	dl_action a = {.kind = DL_ACTION_CDC, .u.cdc = *cdc};
	DL_TRY(append_line(t, &a));
	t->ncdc++;
	t->only_data_adds = false;
	return 0;
}

/* The body of a serialized action: {"kind":BODY} -> BODY. */
static int action_body(char **out, const dl_action *a)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_action_to_json(&b, a);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	size_t klen = strlen(dl_action_kind_name(a->kind));
	size_t start = klen + 4; /* {"kind": */
	*out = dl_strndup(b.data + start, b.len - start - 1);
	dl_buf_free(&b);
	return *out ? 0 : DL_ENOMEM;
}

int dl_txn_set_metadata(dl_transaction *t, const dl_metadata *metadata)
{
	DL_TRY(check_open(t));
	if (t->metadata_json)
		return dl_error_set(DL_EINVALID, "a commit may carry only one metaData action");
	if (!metadata->id || !metadata->schema_string)
		return dl_error_set(DL_EINVALID, "metaData needs an id and a schemaString");
	DL_TRY(dl_txn_check_uniform(metadata));
	/* IcebergCompatV2 gives arrays and maps their nested ids on every
	 * metaData, as Spark's updateMetadata assigns column mapping ids. */
	dl_arena ma = DL_ARENA_INIT;
	dl_metadata md;
	int rc = dl_ice_metadata_with_nested_ids(&md, &ma, metadata);
	dl_action a = {.kind = DL_ACTION_METADATA, .u.metadata = md};
	if (rc == 0) rc = action_body(&t->metadata_json, &a);
	if (rc == 0) dl_table_properties_parse(&t->new_props, &md.configuration, false);
	dl_arena_free(&ma);
	DL_TRY(rc);
	/* The string fields point into the caller's memory: drop them. */
	t->new_props.data_skipping_stats_columns = NULL;
	t->new_props.parquet_compression_codec = NULL;
	t->new_props.parquet_bloom_filter_columns = NULL;
	t->has_new_props = true;
	return 0;
}

int dl_txn_set_protocol(dl_transaction *t, const dl_protocol *protocol)
{
	DL_TRY(check_open(t));
	if (t->protocol_json)
		return dl_error_set(DL_EINVALID, "a commit may carry only one protocol action");
	DL_TRY(dl_protocol_check_write(protocol));
	dl_action a = {.kind = DL_ACTION_PROTOCOL, .u.protocol = *protocol};
	return action_body(&t->protocol_json, &a);
}

int dl_txn_set_app_txn(dl_transaction *t, const char *app_id, int64_t version)
{
	DL_TRY(check_open(t));
	if (!app_id || !app_id[0]) return dl_error_set(DL_EINVALID, "txn action without an appId");
	for (size_t i = 0; i < t->napps; i++) {
		if (strcmp(t->apps[i].app_id, app_id) == 0) {
			t->apps[i].version = version;
			return 0;
		}
	}
	DL_TRY(grow((void **)&t->apps, &t->apps_cap, t->napps, sizeof *t->apps));
	char *id = dl_strdup(app_id);
	if (!id) return DL_ENOMEM;
	t->apps[t->napps++] = (txn_app){id, version};
	return 0;
}

int dl_txn_set_domain(dl_transaction *t, const char *domain, const char *configuration,
                      bool removed)
{
	DL_TRY(check_open(t));
	if (!domain || !domain[0]) return dl_error_set(DL_EINVALID, "domainMetadata without a domain");
	for (size_t i = 0; i < t->ndomains; i++)
		if (strcmp(t->domains[i].domain, domain) == 0)
			return dl_error_set(DL_EINVALID, "domain '%s' appears twice in one commit", domain);
	if (strcmp(domain, "delta.rowTracking") == 0 && !removed) {
		t->rows.tracked = true;
		t->rows.own_hwm = dl_txn_row_id_hwm(configuration);
		const char *read = t->snap ? dl_snapshot_domain(t->snap, domain) : NULL;
		t->rows.read_hwm = read ? dl_txn_row_id_hwm(read) : -1;
		t->rows.read_known = read != NULL;
	}
	DL_TRY(grow((void **)&t->domains, &t->domains_cap, t->ndomains, sizeof *t->domains));
	char *d = dl_strdup(domain);
	char *c = dl_strdup(configuration ? configuration : "");
	if (!d || !c) {
		dl_free(d);
		dl_free(c);
		return DL_ENOMEM;
	}
	t->domains[t->ndomains++] = (txn_domain){d, c, removed};
	return 0;
}

int dl_txn_add_action(dl_transaction *t, const dl_action *a)
{
	switch (a->kind) {
	case DL_ACTION_ADD: return dl_txn_add_file(t, &a->u.add);
	case DL_ACTION_REMOVE: return dl_txn_remove_file(t, &a->u.remove);
	case DL_ACTION_CDC: return dl_txn_add_cdc(t, &a->u.cdc);
	case DL_ACTION_METADATA: return dl_txn_set_metadata(t, &a->u.metadata);
	case DL_ACTION_PROTOCOL: return dl_txn_set_protocol(t, &a->u.protocol);
	case DL_ACTION_TXN: return dl_txn_set_app_txn(t, a->u.txn.app_id, a->u.txn.version);
	case DL_ACTION_DOMAIN_METADATA:
		return dl_txn_set_domain(t, a->u.domain_metadata.domain,
		                         a->u.domain_metadata.configuration, a->u.domain_metadata.removed);
	default:
		return dl_error_set(DL_EINVALID, "a transaction cannot carry a '%s' action "
		                    "(commitInfo is built by the transaction; checkpoint actions "
		                    "belong in checkpoints)", dl_action_kind_name(a->kind));
	}
}

int dl_txn_read_file(dl_transaction *t, const char *path)
{
	DL_TRY(check_open(t));
	return dl_strmap_put(&t->read_files, path, strlen(path), NULL, NULL);
}

int dl_txn_read_predicate(dl_transaction *t, const char *predicate)
{
	DL_TRY(check_open(t));
	dl_expr *e = NULL;
	DL_TRY(dl_expr_parse(&e, predicate));
	dl_expr_free(e); /* parsed to fail early on bad text; bound when checked */
	size_t cap = t->predicates_cap;
	DL_TRY(grow((void **)&t->predicates, &cap, t->npredicates, sizeof *t->predicates));
	cap = t->predicates_cap;
	DL_TRY(grow((void **)&t->bound, &cap, t->npredicates, sizeof *t->bound));
	t->predicates_cap = cap;
	char *p = dl_strdup(predicate);
	if (!p) return DL_ENOMEM;
	t->predicates[t->npredicates] = p;
	t->bound[t->npredicates] = NULL;
	t->npredicates++;
	return 0;
}

void dl_txn_read_whole_table(dl_transaction *t) { t->read_whole_table = true; }

int dl_txn_app_version(dl_transaction *t, const char *app_id, int64_t *version)
{
	DL_TRY(dl_strmap_put(&t->read_apps, app_id, strlen(app_id), NULL, NULL));
	if (!t->snap) return dl_error_set(DL_ENOTFOUND, "app id '%s' never committed (new table)", app_id);
	return dl_snapshot_app_version(version, t->snap, app_id);
}

static int set_kv(txn_kv **kv, size_t *n, size_t *cap, const char *key, char *json)
{
	if (!json) return DL_ENOMEM;
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*kv)[i].key, key) == 0) {
			dl_free((*kv)[i].json);
			(*kv)[i].json = json;
			return 0;
		}
	}
	char *k = dl_strdup(key);
	if (!k || grow((void **)kv, cap, *n, sizeof **kv) < 0) {
		dl_free(k);
		dl_free(json);
		return DL_ENOMEM;
	}
	(*kv)[(*n)++] = (txn_kv){k, json};
	return 0;
}

static char *json_string(const char *s)
{
	dl_buf b = DL_BUF_INIT;
	if (dl_buf_put_json_string(&b, s, strlen(s)) < 0) {
		dl_buf_free(&b);
		return NULL;
	}
	return dl_buf_detach(&b, NULL);
}

int dl_txn_set_parameter(dl_transaction *t, const char *key, const char *value)
{
	return set_kv(&t->params, &t->nparams, &t->params_cap, key, json_string(value ? value : ""));
}

int dl_txn_set_parameter_json(dl_transaction *t, const char *key, const char *json)
{
	return set_kv(&t->params, &t->nparams, &t->params_cap, key, dl_strdup(json));
}

int dl_txn_set_metric(dl_transaction *t, const char *key, int64_t value)
{
	char num[32];
	snprintf(num, sizeof num, "\"%lld\"", (long long)value);
	return set_kv(&t->metrics, &t->nmetrics, &t->metrics_cap, key, dl_strdup(num));
}

int dl_txn_set_user_metadata(dl_transaction *t, const char *user_metadata)
{
	char *u = NULL;
	if (user_metadata && !(u = dl_strdup(user_metadata))) return DL_ENOMEM;
	dl_free(t->user_metadata);
	t->user_metadata = u;
	return 0;
}

void dl_txn_set_blind_append(dl_transaction *t, bool blind_append)
{
	t->blind_append = blind_append ? 1 : 0;
}

const dl_table_properties *dl_txn_props(const dl_transaction *t)
{
	if (t->has_new_props) return &t->new_props;
	if (t->snap) return dl_snapshot_props(t->snap);
	return &t->default_props;
}

dl_isolation_level dl_txn_isolation(const dl_transaction *t)
{
	/* Spark downgrades commits that change no data (OPTIMIZE, stats
	 * backfills) to snapshot isolation. */
	if (!t->data_change && (t->nadds || t->nremoves)) return DL_ISOLATION_SNAPSHOT;
	const dl_table_properties *p = dl_txn_props(t);
	return p->isolation_level == DL_ISOLATION_SERIALIZABLE ? DL_ISOLATION_SERIALIZABLE
	                                                       : DL_ISOLATION_WRITE_SERIALIZABLE;
}

bool dl_txn_is_blind_append(const dl_transaction *t)
{
	if (t->blind_append >= 0) return t->blind_append == 1;
	return t->only_data_adds && t->nadds > 0 && !t->read_whole_table && t->npredicates == 0 &&
	       t->read_files.count == 0 && !t->metadata_json && !t->protocol_json;
}
