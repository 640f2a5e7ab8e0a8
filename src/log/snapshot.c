/* Opening snapshots: latest, by version, by timestamp; accessors. */
#include "log/snapshot.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "json/json.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "storage/backend.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

/* ---- commit timestamps and time travel ---- */

int dl_log_commit_ict(dl_store *store, int64_t version, int64_t *out)
{
	char path[64];
	uint8_t *data;
	size_t len;
	*out = DL_NONE;
	dl_log_commit_path(path, sizeof path, version);
	DL_TRY(dl_store_get(&data, &len, store, path));
	/* commitInfo is the first action when in-commit timestamps are on, but
	 * accept it anywhere. */
	dl_arena a = DL_ARENA_INIT;
	const char *p = (const char *)data, *end = p + len;
	int rc = 0;
	while (p < end && *out == DL_NONE) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le > p && memmem(p, (size_t)(le - p), "\"commitInfo\"", 12)) {
			dl_json *v;
			rc = dl_json_parse(&a, p, (size_t)(le - p), path, &v);
			if (rc < 0) break;
			const dl_json *ci = dl_json_get(v, "commitInfo");
			const dl_json *t = ci ? dl_json_get(ci, "inCommitTimestamp") : NULL;
			if (t && dl_json_int64(t, out) < 0) *out = DL_NONE;
			if (ci) break;
		}
		p = le + 1;
	}
	dl_arena_free(&a);
	dl_free(data);
	return rc;
}

int dl_log_commit_timestamps(dl_store *store, const dl_table_properties *props,
                             int64_t **versions, int64_t **ts, size_t *n)
{
	dl_log_file *c;
	size_t nc;
	*versions = *ts = NULL;
	*n = 0;
	DL_TRY(dl_log_list_commits(store, &c, &nc));
	int64_t *vs = dl_calloc(nc ? nc : 1, sizeof *vs), *t = dl_calloc(nc ? nc : 1, sizeof *t);
	int rc = (!vs || !t) ? DL_ENOMEM : 0;
	int64_t ict_from = INT64_MAX;
	if (props->enable_in_commit_timestamps)
		ict_from = props->ict_enablement_version >= 0 ? props->ict_enablement_version : 0;
	for (size_t i = 0; rc == 0 && i < nc; i++) {
		vs[i] = c[i].version;
		t[i] = c[i].mtime_ms;
		if (c[i].version >= ict_from) {
			int64_t ict;
			rc = dl_log_commit_ict(store, c[i].version, &ict);
			if (rc == 0 && ict != DL_NONE) {
				t[i] = ict;
				continue;
			}
		}
		/* File times can go backwards (clock skew, copies): Spark makes
		 * them strictly increasing so that time travel is well defined. */
		if (rc == 0 && i > 0 && t[i] <= t[i - 1]) t[i] = t[i - 1] + 1;
	}
	dl_log_files_free(c, nc);
	if (rc < 0) {
		dl_free(vs);
		dl_free(t);
		return rc;
	}
	*versions = vs;
	*ts = t;
	*n = nc;
	return 0;
}

static void fmt_ms(char out[DL_TIME_TEXT_MAX], int64_t ms)
{
	dl_timestamp_format_iso(out, ms * 1000, NULL, 3);
}

int dl_log_version_at_timestamp(const int64_t *versions, const int64_t *ts, size_t n,
                                int64_t ts_ms, bool allow_after_latest, int64_t *out)
{
	char a[DL_TIME_TEXT_MAX], b[DL_TIME_TEXT_MAX];
	if (n == 0) return dl_error_set(DL_ENOTFOUND, "not a Delta table: no _delta_log");
	if (ts_ms < ts[0]) {
		fmt_ms(a, ts_ms);
		fmt_ms(b, ts[0]);
		return dl_error_set(DL_ENOTFOUND,
		                    "the timestamp %s is before the earliest version %" PRId64
		                    " available (committed at %s); use a later timestamp",
		                    a, versions[0], b);
	}
	if (ts_ms > ts[n - 1] && !allow_after_latest) {
		fmt_ms(a, ts_ms);
		fmt_ms(b, ts[n - 1]);
		return dl_error_set(DL_ENOTFOUND,
		                    "the timestamp %s is after the latest version %" PRId64
		                    " (committed at %s); use a timestamp at or before it, or allow "
		                    "the latest version",
		                    a, versions[n - 1], b);
	}
	/* the last commit at or before ts_ms (binary search: ts ascends) */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts[mid] <= ts_ms) lo = mid + 1;
		else hi = mid;
	}
	*out = versions[lo - 1];
	return 0;
}

/* ---- opening ---- */

static int load(dl_snapshot *s, int64_t version, const dl_replay_options *ro)
{
	DL_TRY(dl_log_segment_build(&s->segment, s->store, version));
	DL_TRY(dl_replay(&s->state, s->store, &s->segment, ro));
	DL_TRY(dl_log_state_validate(&s->state));
	DL_TRY(dl_protocol_check_read(s->state.protocol));
	/* Bad property values must not make a table unreadable: keep defaults. */
	dl_table_properties_parse(&s->props, &s->state.metadata->configuration, false);
	return 0;
}

static void unload(dl_snapshot *s)
{
	dl_log_segment_free(&s->segment);
	dl_log_state_free(&s->state);
	dl_type_unref(s->schema);
	s->schema = NULL;
}

static int resolve_timestamp(dl_snapshot *s, const dl_snapshot_options *o, int64_t *version)
{
	/* A store that resolves times itself (a shared table: its server). */
	int by_store = dl_store_version_at_timestamp(version, s->store, o->as_of_timestamp_ms,
	                                             DL_STORE_TS_AS_OF, o->allow_after_latest);
	if (by_store != 0) return by_store < 0 ? by_store : 0;
	/* The latest metadata says whether in-commit timestamps are on. */
	dl_replay_options meta = {.metadata_only = 1};
	DL_TRY(load(s, -1, &meta));
	int64_t *vs, *ts;
	size_t n;
	int rc = dl_log_commit_timestamps(s->store, &s->props, &vs, &ts, &n);
	if (rc == 0)
		rc = dl_log_version_at_timestamp(vs, ts, n, o->as_of_timestamp_ms, o->allow_after_latest,
		                                 version);
	dl_free(vs);
	dl_free(ts);
	unload(s);
	return rc;
}

static void compute_timestamp(dl_snapshot *s)
{
	const dl_commit_info *ci = s->state.commit_info;
	int64_t ict = ci ? ci->in_commit_timestamp : s->state.crc_in_commit_timestamp;
	s->in_commit_timestamp = DL_NONE;
	if (s->props.enable_in_commit_timestamps && ict != DL_NONE &&
	    (s->props.ict_enablement_version < 0 || s->segment.version >= s->props.ict_enablement_version))
		s->in_commit_timestamp = ict;
	if (s->in_commit_timestamp != DL_NONE) s->timestamp_ms = s->in_commit_timestamp;
	else if (s->segment.last_commit) s->timestamp_ms = s->segment.last_commit->mtime_ms;
	else if (s->segment.ncheckpoint) s->timestamp_ms = s->segment.checkpoint[0].mtime_ms;
	else s->timestamp_ms = 0;
}

static int open_impl(dl_snapshot *s, const char *uri, const dl_snapshot_options *o)
{
	if (o->store) {
		s->store = o->store;
	} else {
		if (!uri) return dl_error_set(DL_EINVALID, "dl_snapshot_open needs a table path or a store");
		DL_TRY(dl_store_open(&s->store, uri, o->store_options));
		s->owns_store = true;
	}
	int64_t version = o->as_of_version;
	if (o->as_of_timestamp_ms != DL_NO_TIMESTAMP) {
		if (version >= 0)
			return dl_error_set(DL_EINVALID, "give either a version or a timestamp, not both");
		DL_TRY(resolve_timestamp(s, o, &version));
	}
	dl_replay_options ro = {.skip_tombstones = o->skip_tombstones, .metadata_only = o->metadata_only};
	s->without_tombstones = o->skip_tombstones;
	s->metadata_only = o->metadata_only;
	DL_TRY(load(s, version, &ro));
	const char *schema = s->state.metadata->schema_string;
	if (schema) {
		int rc = dl_schema_parse(&s->schema, schema, strlen(schema));
		if (rc < 0) return dl_error_prefix("version %" PRId64, s->segment.version);
	}
	compute_timestamp(s);
	return 0;
}

int dl_snapshot_open(dl_snapshot **out, const char *uri, const dl_snapshot_options *opts)
{
	/* The size of each version of the options (util/options.h). */
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_snapshot_options, metadata_only), /* 1 */
		sizeof(dl_snapshot_options),                        /* 2: store options, roots */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_SNAPSHOT_OPTIONS_VERSION);
	*out = NULL;
	dl_snapshot_options loaded = DL_SNAPSHOT_OPTIONS_INIT;
	DL_TRY(dl_options_load(&loaded, opts, ends, DL_SNAPSHOT_OPTIONS_VERSION, "dl_snapshot_options",
	                       "DL_SNAPSHOT_OPTIONS_INIT"));
	const dl_snapshot_options *o = &loaded;
	dl_snapshot *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	int rc = dl_path_roots_copy(&s->allowed_roots, o->allowed_roots, o->nallowed_roots,
	                            "dl_snapshot_options");
	if (rc == 0) rc = open_impl(s, uri, o);
	if (rc < 0) {
		if (uri && !o->store) dl_error_prefix("opening table %s", uri);
		dl_snapshot_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void dl_snapshot_free(dl_snapshot *s)
{
	if (!s) return;
	unload(s);
	dl_path_roots_free(&s->allowed_roots);
	if (s->owns_store) dl_store_free(s->store);
	dl_free(s);
}

/* ---- accessors ---- */

int64_t dl_snapshot_version(const dl_snapshot *s) { return s->segment.version; }
int64_t dl_snapshot_timestamp(const dl_snapshot *s) { return s->timestamp_ms; }

int dl_snapshot_in_commit_timestamp(int64_t *out_ms, const dl_snapshot *s)
{
	if (s->in_commit_timestamp == DL_NONE)
		return dl_error_set(DL_ENOTFOUND, "version %" PRId64 " has no in-commit timestamp",
		                    s->segment.version);
	*out_ms = s->in_commit_timestamp;
	return 0;
}

int dl_snapshot_commit_timestamp(int64_t *out_ms, dl_snapshot *s, int64_t version)
{
	if (version == s->segment.version) {
		*out_ms = s->timestamp_ms;
		return 0;
	}
	if (version < 0 || version > s->segment.version)
		return dl_error_set(DL_ENOTFOUND, "version %" PRId64 " is not in this snapshot's history "
		                    "(0 to %" PRId64 ")", version, s->segment.version);
	int64_t *vs, *ts;
	size_t n;
	DL_TRY(dl_log_commit_timestamps(s->store, &s->props, &vs, &ts, &n));
	int rc = dl_error_set(DL_ENOTFOUND, "the commit of version %" PRId64
	                      " is no longer in the log (cleaned up)", version);
	for (size_t i = 0; i < n; i++) {
		if (vs[i] == version) {
			*out_ms = ts[i];
			rc = 0;
			dl_error_clear();
		}
	}
	dl_free(vs);
	dl_free(ts);
	return rc;
}

const char *dl_snapshot_table_root(const dl_snapshot *s) { return dl_store_root(s->store); }
const char *dl_snapshot_schema_json(const dl_snapshot *s) { return s->state.metadata->schema_string; }

size_t dl_snapshot_partition_column_count(const dl_snapshot *s)
{
	return s->state.metadata->npartition_columns;
}

const char *dl_snapshot_partition_column(const dl_snapshot *s, size_t i)
{
	return i < s->state.metadata->npartition_columns ? s->state.metadata->partition_columns[i] : NULL;
}

const char *dl_snapshot_table_id(const dl_snapshot *s) { return s->state.metadata->id; }
const char *dl_snapshot_table_name(const dl_snapshot *s) { return s->state.metadata->name; }
const char *dl_snapshot_table_description(const dl_snapshot *s)
{
	return s->state.metadata->description;
}
int64_t dl_snapshot_created_time(const dl_snapshot *s)
{
	int64_t t = s->state.metadata->created_time;
	return t == DL_NONE ? -1 : t;
}
const char *dl_snapshot_format_provider(const dl_snapshot *s)
{
	return s->state.metadata->format_provider;
}

size_t dl_snapshot_property_count(const dl_snapshot *s)
{
	return s->state.metadata->configuration.n;
}

void dl_snapshot_property_at(const char **key, const char **value, const dl_snapshot *s, size_t i)
{
	const dl_str_map *m = &s->state.metadata->configuration;
	*key = i < m->n ? m->items[i].key : NULL;
	*value = i < m->n ? m->items[i].value : NULL;
}

const char *dl_snapshot_property(const dl_snapshot *s, const char *key)
{
	return dl_str_map_get(&s->state.metadata->configuration, key, NULL);
}

int dl_snapshot_min_reader_version(const dl_snapshot *s) { return s->state.protocol->min_reader_version; }
int dl_snapshot_min_writer_version(const dl_snapshot *s) { return s->state.protocol->min_writer_version; }
size_t dl_snapshot_reader_feature_count(const dl_snapshot *s) { return s->state.protocol->nreader_features; }
size_t dl_snapshot_writer_feature_count(const dl_snapshot *s) { return s->state.protocol->nwriter_features; }

const char *dl_snapshot_reader_feature(const dl_snapshot *s, size_t i)
{
	const dl_protocol *p = s->state.protocol;
	return i < p->nreader_features ? p->reader_features[i] : NULL;
}

const char *dl_snapshot_writer_feature(const dl_snapshot *s, size_t i)
{
	const dl_protocol *p = s->state.protocol;
	return i < p->nwriter_features ? p->writer_features[i] : NULL;
}

bool dl_snapshot_has_feature(const dl_snapshot *s, const char *feature)
{
	return dl_protocol_supports(s->state.protocol, feature);
}

size_t dl_snapshot_file_count(const dl_snapshot *s) { return s->state.nadds; }
int64_t dl_snapshot_total_size(const dl_snapshot *s) { return s->state.total_size; }

int dl_snapshot_file_at(dl_file_info *out, const dl_snapshot *s, size_t i)
{
	if (i >= s->state.nadds)
		return dl_error_set(DL_EINVALID, "file index %zu is out of range (%zu files)", i,
		                    s->state.nadds);
	const dl_add *a = dl_log_state_add(&s->state, i);
	out->path = a->path;
	out->size = a->size;
	out->modification_time = a->modification_time;
	out->data_change = a->data_change;
	out->stats = a->stats;
	out->npartition_values = a->partition_values.n;
	out->has_deletion_vector = a->dv != NULL;
	out->deleted_rows = a->dv ? a->dv->cardinality : 0;
	out->base_row_id = a->base_row_id;
	out->default_row_commit_version = a->default_row_commit_version;
	return 0;
}

int dl_snapshot_file_partition_value(const char **key, const char **value,
                                     const dl_snapshot *s, size_t i, size_t j)
{
	if (i >= s->state.nadds) return dl_error_set(DL_EINVALID, "file index %zu is out of range", i);
	const dl_add *a = dl_log_state_add(&s->state, i);
	if (j >= a->partition_values.n)
		return dl_error_set(DL_EINVALID, "partition value index %zu is out of range", j);
	*key = a->partition_values.items[j].key;
	*value = a->partition_values.items[j].value;
	return 0;
}

size_t dl_snapshot_tombstone_count(const dl_snapshot *s) { return s->state.nremoves; }

int dl_snapshot_tombstone_at(dl_tombstone_info *out, const dl_snapshot *s, size_t i)
{
	if (i >= s->state.nremoves)
		return dl_error_set(DL_EINVALID, "tombstone index %zu is out of range", i);
	const dl_remove *r = &s->state.removes[i];
	out->path = r->path;
	out->deletion_timestamp = r->deletion_timestamp;
	out->size = r->size;
	out->data_change = r->data_change;
	out->has_deletion_vector = r->dv != NULL;
	return 0;
}

size_t dl_snapshot_app_count(const dl_snapshot *s) { return s->state.ntxns; }

void dl_snapshot_app_at(const char **app_id, int64_t *version,
                        int64_t *last_updated, const dl_snapshot *s, size_t i)
{
	const dl_txn *t = i < s->state.ntxns ? &s->state.txns[i] : NULL;
	*app_id = t ? t->app_id : NULL;
	*version = t ? t->version : -1;
	*last_updated = t ? t->last_updated : DL_NONE;
}

int dl_snapshot_app_version(int64_t *version, const dl_snapshot *s, const char *app_id)
{
	/* delta.setTransactionRetentionDuration: as Spark, transactions last
	 * updated before now - retention are expired (no lastUpdated: kept) */
	int64_t cutoff = s->props.set_transaction_retention_ms >= 0
	                     ? dl_now_millis() - s->props.set_transaction_retention_ms : INT64_MIN;
	for (size_t i = 0; i < s->state.ntxns; i++) {
		const dl_txn *t = &s->state.txns[i];
		if (strcmp(t->app_id, app_id) != 0) continue;
		if (t->last_updated != DL_NONE && t->last_updated < cutoff)
			return dl_error_set(DL_ENOTFOUND, "the transaction of application '%s' expired "
			                    "(delta.setTransactionRetentionDuration)", app_id);
		*version = t->version;
		return 0;
	}
	return dl_error_set(DL_ENOTFOUND, "application '%s' has no transaction in the table", app_id);
}

size_t dl_snapshot_domain_count(const dl_snapshot *s) { return s->state.ndomains; }

void dl_snapshot_domain_at(const char **domain, const char **configuration,
                           const dl_snapshot *s, size_t i)
{
	const dl_domain_metadata *d = i < s->state.ndomains ? &s->state.domains[i] : NULL;
	*domain = d ? d->domain : NULL;
	*configuration = d ? d->configuration : NULL;
}

const char *dl_snapshot_domain(const dl_snapshot *s, const char *domain)
{
	for (size_t i = 0; i < s->state.ndomains; i++)
		if (strcmp(s->state.domains[i].domain, domain) == 0) return s->state.domains[i].configuration;
	return NULL;
}

const char *dl_snapshot_commit_info(const dl_snapshot *s)
{
	return s->state.commit_info ? s->state.commit_info->json : NULL;
}
