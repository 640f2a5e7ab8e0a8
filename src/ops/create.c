/* CREATE TABLE [IF NOT EXISTS] / CREATE OR REPLACE TABLE (see create.h and
 * include/deltalake/write.h). */
#include "ops/create.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "deltalake/snapshot.h"
#include "log/delta_configs.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "ops/ddl.h"
#include "ops/protocol_choose.h"
#include "ops/table_def.h"
#include "util/error.h"
#include "optimize/clustering.h" /* DL_CLUSTERING_NO_COLUMNS */
#include "util/mem.h"
#include "util/options.h"
#include "util/time.h"

/* A commit or checkpoint file name: 20 digits then ".json" or
 * ".checkpoint...". */
static bool is_log_file(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	for (int i = 0; i < 20; i++)
		if (!isdigit((unsigned char)name[i])) return false;
	return name[20] == '.' && (strcmp(name + 20, ".json") == 0 ||
	                           strncmp(name + 20, ".checkpoint", 11) == 0);
}

int dl_ops_open_latest(dl_snapshot **out, dl_store *store)
{
	*out = NULL;
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = store;
	/* Only "nothing committed yet" means no table; a log with commits that
	 * cannot be opened must not be overwritten by a new version 0. The
	 * second listing can also see a commit that a concurrent writer made
	 * after the snapshot's listing found none: then the table now exists,
	 * so open it again rather than call it unreadable. */
	for (int attempt = 0;; attempt++) {
		int rc = dl_snapshot_open(out, dl_store_root(store), &o);
		if (rc != DL_ENOTFOUND) return rc;
		dl_object_list l = {NULL, 0};
		DL_TRY(dl_store_list_from(&l, store, "_delta_log", NULL));
		bool any = false;
		for (size_t i = 0; i < l.count && !any; i++) any = is_log_file(l.items[i].path);
		dl_object_list_free(&l);
		if (!any) {
			dl_error_clear();
			*out = NULL;
			return 0;
		}
		if (attempt == 2) return rc;
		dl_error_clear();
	}
}

int dl_ops_remove_file(dl_transaction *t, const dl_add *add, int64_t now_ms, bool data_change)
{
	dl_remove r;
	memset(&r, 0, sizeof r);
	r.path = add->path;
	r.deletion_timestamp = now_ms;
	r.data_change = data_change;
	r.extended_file_metadata = true;
	r.partition_values = add->partition_values;
	r.size = add->size;
	r.stats = add->stats;
	r.stats_len = add->stats_len;
	r.tags = add->tags;
	r.dv = add->dv;
	r.base_row_id = add->base_row_id;
	r.default_row_commit_version = add->default_row_commit_version;
	return dl_txn_remove_file(t, &r);
}

int dl_ops_remove_all(dl_transaction *t, int64_t now_ms, bool data_change, int64_t *nfiles,
                      int64_t *bytes)
{
	dl_snapshot *s = dl_txn_snapshot(t);
	int64_t n = 0, b = 0;
	if (s) {
		const dl_log_state *st = dl_snapshot_state(s);
		for (size_t i = 0; i < st->nadds; i++) {
			const dl_add *a = dl_log_state_add(st, i);
			DL_TRY(dl_ops_remove_file(t, a, now_ms, data_change));
			n++;
			b += a->size;
		}
	}
	if (nfiles) *nfiles = n;
	if (bytes) *bytes = b;
	return 0;
}

int dl_ops_build_configuration(dl_str_map *out, dl_arena *arena, const char *const *keys,
                               const char *const *values, int n, const char *const *cnames,
                               const char *const *cexprs, int nc)
{
	if (n < 0 || nc < 0) return dl_error_set(DL_EINVALID, "negative property count");
	dl_kv *items = dl_arena_calloc(arena, (size_t)n + (size_t)nc + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	uint32_t k = 0;
	for (int i = 0; i < n; i++) {
		if (!keys[i] || !values[i] || !keys[i][0])
			return dl_error_set(DL_EINVALID, "table property %d has no key or value", i);
		/* Spark's DeltaConfigs.validateConfigurations, as ALTER TABLE SET
		 * TBLPROPERTIES: unknown delta.* keys and bad values refused, a
		 * known key stored under its canonical spelling, delta.feature.* and
		 * delta.universalFormat.config.* lower-cased */
		const char *canonical, *key = keys[i];
		DL_TRY(dl_delta_config_validate(&canonical, key, values[i]));
		if (canonical) {
			size_t len = strlen(canonical) + 7;
			char *ck = dl_arena_alloc(arena, len);
			if (!ck) return DL_ENOMEM;
			snprintf(ck, len, "delta.%s", canonical);
			key = ck;
		} else if (dl_delta_config_lowercased(key)) {
			char *lk = dl_arena_strdup(arena, key);
			if (!lk) return DL_ENOMEM;
			for (char *p = lk; *p; p++) *p = (char)tolower((unsigned char)*p);
			key = lk;
		}
		uint32_t j = 0; /* a later value for the same key wins */
		while (j < k && strcmp(items[j].key, key) != 0) j++;
		items[j].key = key;
		items[j].value = values[i];
		if (j == k) k++;
	}
	for (int i = 0; i < nc; i++) {
		if (!cnames[i] || !cexprs[i] || !cnames[i][0])
			return dl_error_set(DL_EINVALID, "CHECK constraint %d has no name or expression", i);
		size_t len = strlen(cnames[i]) + 19;
		char *key = dl_arena_alloc(arena, len);
		if (!key) return DL_ENOMEM;
		snprintf(key, len, "delta.constraints.%s", cnames[i]);
		for (char *c = key + 18; *c; c++) *c = (char)tolower((unsigned char)*c);
		for (uint32_t j = 0; j < k; j++)
			if (strcmp(items[j].key, key) == 0)
				return dl_error_set(DL_EINVALID, "constraint '%s' is given twice", cnames[i]);
		items[k].key = key;
		items[k++].value = cexprs[i];
	}
	out->items = items;
	out->n = k;
	return 0;
}

int dl_ops_partition_by_json(dl_buf *out, const char *const *cols, uint32_t n)
{
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_array_begin(&w);
	for (uint32_t i = 0; i < n; i++) dl_jw_string(&w, cols[i]);
	dl_jw_array_end(&w);
	return dl_jw_finish(&w);
}

static int parse_schema(dl_type **out, const dl_create_options *o)
{
	if ((o->schema_ddl != NULL) == (o->schema_json != NULL))
		return dl_error_set(DL_EINVALID,
		                    "dl_create_table: give exactly one of schema_ddl and schema_json");
	if (o->schema_ddl) return dl_ddl_parse_schema(out, o->schema_ddl);
	int rc = dl_schema_parse(out, o->schema_json, strlen(o->schema_json));
	if (rc < 0) return dl_error_set(DL_EINVALID, "%s", dl_error_last()->message);
	return 0;
}

static int set_create_parameters(dl_transaction *t, const dl_metadata *md, const char *cluster_by_json,
                                 bool is_managed)
{
	dl_buf b = DL_BUF_INIT;
	int rc = dl_txn_set_parameter(t, "isManaged", is_managed ? "true" : "false");
	if (rc == 0) {
		if (md->description) rc = dl_txn_set_parameter(t, "description", md->description);
		else rc = dl_txn_set_parameter_json(t, "description", "null");
	}
	if (rc == 0) rc = dl_ops_partition_by_json(&b, md->partition_columns, md->npartition_columns);
	if (rc == 0) rc = dl_txn_set_parameter(t, "partitionBy", b.data);
	/* DeltaOperations.CreateTable / ReplaceTable: clusterBy always, "[]"
	 * for a table without clustering */
	if (rc == 0) rc = dl_txn_set_parameter(t, "clusterBy", cluster_by_json ? cluster_by_json : "[]");
	dl_buf_clear(&b);
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_str_map_write(&w, &md->configuration);
		rc = dl_jw_finish(&w);
	}
	if (rc == 0) rc = dl_txn_set_parameter(t, "properties", b.data);
	dl_buf_free(&b);
	return rc;
}

typedef struct create_ctx {
	dl_store *store;
	dl_snapshot *snap;
	dl_type *schema;
	dl_arena arena;
	dl_table_plan plan;
	dl_transaction *txn;
} create_ctx;

static int commit_create(create_ctx *c, const dl_create_options *o, int64_t *version)
{
	const dl_metadata *old = c->snap ? dl_snapshot_state(c->snap)->metadata : NULL;
	dl_table_def def;
	memset(&def, 0, sizeof def);
	def.schema = c->schema;
	def.partition_columns = o->partition_columns;
	def.npartition_columns = o->npartition_columns;
	DL_TRY(dl_ops_build_configuration(&def.configuration, &c->arena, o->property_keys,
	                                  o->property_values, o->nproperties, o->constraint_names,
	                                  o->constraint_exprs, o->nconstraints));
	def.name = o->name;
	def.description = o->description;
	def.table_id = old ? old->id : NULL; /* a replaced table keeps its identity */
	def.existing_protocol = c->snap ? dl_snapshot_state(c->snap)->protocol : NULL;
	def.created_time = DL_NONE;
	def.cluster_by = o->cluster_by;
	def.ncluster_by = o->ncluster_by;
	DL_TRY(dl_table_plan_build(&c->plan, &c->arena, &def));
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = c->snap ? "CREATE OR REPLACE TABLE" : "CREATE TABLE";
	to.user_metadata = o->user_metadata;
	DL_TRY(dl_txn_begin(&c->txn, c->store, c->snap, &to));
	const dl_protocol *oldp = def.existing_protocol;
	if (!oldp || !dl_ops_protocol_equal(oldp, &c->plan.protocol))
		DL_TRY(dl_txn_set_protocol(c->txn, &c->plan.protocol));
	DL_TRY(dl_txn_set_metadata(c->txn, &c->plan.metadata));
	DL_TRY(dl_ops_set_clustering_domain(c->txn, c->snap, &c->plan));
	DL_TRY(set_create_parameters(c->txn, &c->plan.metadata, c->plan.cluster_by_json, o->is_managed));
	if (c->snap) {
		int64_t n, b;
		DL_TRY(dl_ops_remove_all(c->txn, dl_now_millis(), true, &n, &b));
		DL_TRY(dl_txn_set_metric(c->txn, "numRemovedFiles", n));
		DL_TRY(dl_txn_set_metric(c->txn, "numRemovedBytes", b));
		dl_txn_read_whole_table(c->txn);
	}
	return dl_txn_commit(c->txn, version);
}

int dl_ops_set_clustering_domain(dl_transaction *t, dl_snapshot *old, const dl_table_plan *plan)
{
	if (plan->clustering_domain) return dl_txn_set_domain(t, "delta.clustering", plan->clustering_domain, false);
	/* A replace without CLUSTER BY of a clustered table: Spark's
	 * ClusteredTableUtils.getDomainMetadataFromTransaction gives the domain
	 * with no columns (getMatchingMetadataDomain), which
	 * DomainMetadataUtils.handleDomainMetadataForReplaceTable then commits
	 * in place of the old one (it removes only domains the new table does
	 * not define): the table stays clustered, by nothing. */
	const char *was = old ? dl_snapshot_domain(old, "delta.clustering") : NULL;
	return was ? dl_txn_set_domain(t, "delta.clustering", DL_CLUSTERING_NO_COLUMNS, false) : 0;
}

int dl_create_table(int64_t *version, const char *uri, const dl_create_options *o)
{
	/* The size of each version of the options (util/options.h). */
	static const size_t ends[] = {
		DL_OPTIONS_END(dl_create_options, user_metadata), /* 1 */
		DL_OPTIONS_END(dl_create_options, store_options), /* 2: store, store options */
		sizeof(dl_create_options),                        /* 3: cluster_by, is_managed */
	};
	DL_OPTIONS_ENDS_CHECK(ends, DL_CREATE_OPTIONS_VERSION);
	*version = -1;
	if (!o)
		return dl_error_set(DL_EINVALID, "dl_create_table: options missing (a schema is needed); "
		                                  "use DL_CREATE_OPTIONS_INIT");
	dl_create_options loaded = DL_CREATE_OPTIONS_INIT;
	DL_TRY(dl_options_load(&loaded, o, ends, DL_CREATE_OPTIONS_VERSION, "dl_create_options",
	                       "DL_CREATE_OPTIONS_INIT"));
	o = &loaded;
	create_ctx c;
	memset(&c, 0, sizeof c);
	int rc = parse_schema(&c.schema, o);
	if (rc == 0 && o->store) c.store = o->store;
	else if (rc == 0) rc = dl_store_open(&c.store, uri, o->store_options);
	if (!uri && c.store) uri = dl_store_root(c.store);
	if (rc == 0) rc = dl_ops_open_latest(&c.snap, c.store);
	if (rc == 0 && c.snap && o->mode == DL_CREATE_ERROR_IF_EXISTS)
		rc = dl_error_set(DL_EEXISTS,
		                  "a Delta table already exists at %s (version %lld); use "
		                  "if-not-exists to keep it or replace to replace it",
		                  uri, (long long)dl_snapshot_version(c.snap));
	if (rc == 0 && !(c.snap && o->mode == DL_CREATE_IF_NOT_EXISTS))
		rc = commit_create(&c, o, version);
	dl_txn_free(c.txn);
	dl_table_plan_free(&c.plan);
	dl_arena_free(&c.arena);
	dl_snapshot_free(c.snap);
	if (!o->store) dl_store_free(c.store);
	dl_type_unref(c.schema);
	return rc;
}
