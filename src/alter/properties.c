/* ALTER TABLE SET TBLPROPERTIES / UNSET TBLPROPERTIES (Spark's
 * AlterTableSetPropertiesDeltaCommand / AlterTableUnsetPropertiesDeltaCommand).
 *
 * SET: reserved keys refused as Spark refuses them (delta.constraints.*:
 * ADD CONSTRAINT; location; provider; the clustering feature and columns),
 * `comment` becomes the description, every other key validated
 * (log/delta_configs.c) and merged into the configuration. The commit then
 * carries what the new configuration needs: the protocol with the features
 * it enables (delta.feature.X = supported too), the column mapping upgrade,
 * the row tracking backfill. UNSET: every key must exist unless IF EXISTS
 * (DELTA_UNSET_NON_EXISTENT_PROPERTY); the protocol is never lowered (that
 * is DROP FEATURE). Operation "SET TBLPROPERTIES" {properties} /
 * "UNSET TBLPROPERTIES" {properties, ifExists}. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/properties_internal.h"
#include "log/delta_configs.h"
#include "json/json.h"
#include "log/properties.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "uniform/uniform.h"

/* Spark's refusals before validation (the filterKeys of the command). */
static int reserved(const char *key)
{
	if (strncasecmp(key, "delta.constraints.", 18) == 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_ADD_CONSTRAINTS",
		                          "Please use ALTER TABLE ADD CONSTRAINT to add CHECK constraints "
		                          "(%s).",
		                          key);
	if (strcmp(key, "location") == 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_CANNOT_CHANGE_LOCATION",
		                          "Cannot change the 'location' of the Delta table using SET "
		                          "TBLPROPERTIES. Please use ALTER TABLE SET LOCATION instead.");
	if (strcmp(key, "provider") == 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_CANNOT_CHANGE_PROVIDER",
		                          "'provider' is a reserved table property, and cannot be altered.");
	if (strcasecmp(key, "delta.feature.clustering") == 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_ALTER_TABLE_SET_CLUSTERING_TABLE_FEATURE_NOT_ALLOWED",
		                          "Cannot enable clustering table feature using ALTER TABLE SET "
		                          "TBLPROPERTIES. Please use CREATE OR REPLACE TABLE CLUSTER BY to "
		                          "create a Delta table with clustering.");
	if (strcmp(key, "clusteringColumns") == 0 || strcasecmp(key, "delta.clusteringColumns") == 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_CANNOT_MODIFY_TABLE_PROPERTY",
		                          "The Delta table configuration %s cannot be specified by the user",
		                          key);
	return 0;
}

/* The key as stored: known delta.* keys in DeltaConfigs' spelling,
 * delta.feature.* and delta.universalFormat.config.* lower-cased (Spark),
 * others as given. */
static int normalized_key(const char **out, ap_ctx *c, const char *key, const char *value)
{
	const char *name;
	DL_TRY(dl_delta_config_validate(&name, key, value));
	if (name) {
		size_t n = strlen(name) + 7;
		char *k = dl_arena_alloc(&c->t.arena, n);
		if (!k) return DL_ENOMEM;
		snprintf(k, n, "delta.%s", name);
		*out = k;
	} else if (dl_delta_config_lowercased(key)) {
		char *k = dl_arena_strdup(&c->t.arena, key);
		if (!k) return DL_ENOMEM;
		for (char *p = k; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		*out = k;
	} else {
		*out = key;
	}
	return 0;
}

static int json_map(char **out, const char *const *keys, const char *const *values, size_t n)
{
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	if (values) dl_jw_object_begin(&w);
	else dl_jw_array_begin(&w);
	for (size_t i = 0; i < n; i++) {
		if (values) dl_jw_key(&w, keys[i]);
		dl_jw_string(&w, values ? values[i] : keys[i]);
	}
	if (values) dl_jw_object_end(&w);
	else dl_jw_array_end(&w);
	int rc = dl_jw_finish(&w);
	*out = rc == 0 ? dl_strdup(b.data) : NULL;
	dl_buf_free(&b);
	if (rc < 0) return rc;
	return *out ? 0 : DL_ENOMEM;
}

static bool enabled_in(const dl_str_map *m, const char *key)
{
	const char *v = dl_str_map_get(m, key, NULL);
	bool b = false;
	return v && dl_parse_bool_property(v, &b) == 0 && b;
}

static int set_properties(ap_ctx *c, const char *const *keys, const char *const *values, size_t n,
                          const char *operation, int64_t *version)
{
	if (n == 0) return dl_error_set(DL_EINVALID, "SET TBLPROPERTIES needs at least one property");
	const char **nk = dl_arena_calloc(&c->t.arena, n + 1, sizeof *nk);
	const char **nv = dl_arena_calloc(&c->t.arena, n + 1, sizeof *nv);
	if (!nk || !nv) return DL_ENOMEM;
	const char *description = NULL;
	bool set_description = false;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!keys[i] || !keys[i][0] || !values[i])
			return dl_error_set(DL_EINVALID, "table property %zu has no key or value", i);
		DL_TRY(reserved(keys[i]));
		if (strcmp(keys[i], "comment") == 0) {
			description = values[i];
			set_description = true;
			continue;
		}
		const char *k;
		DL_TRY(normalized_key(&k, c, keys[i], values[i]));
		size_t j = 0; /* a later value for the same key wins */
		while (j < m && strcmp(nk[j], k) != 0) j++;
		nk[j] = k;
		nv[j] = values[i];
		if (j == m) m++;
	}
	/* Spark's AlterTableSetPropertiesDeltaCommand: a mapped table's mode
	 * set to none first runs RemoveColumnMappingCommand (its own commit);
	 * when that was the only property, nothing else is committed. */
	for (size_t i = 0; i < m; i++) {
		const char *mode = dl_str_map_get(&ap_md(c)->configuration, "delta.columnMapping.mode", NULL);
		if (strcmp(nk[i], "delta.columnMapping.mode") != 0 || strcasecmp(nv[i], "none") != 0 || !mode ||
		    strcasecmp(mode, "none") == 0)
			continue;
		DL_TRY(ap_remove_column_mapping(c, true));
		if (m == 1 && !set_description) {
			*version = dl_snapshot_version(c->t.snap);
			return 0;
		}
	}
	DL_TRY(dl_alter_start(&c->t, operation));
	const dl_metadata *old = ap_md(c);
	dl_str_map conf;
	DL_TRY(ap_conf_copy(&conf, c, &old->configuration, m + 3));
	for (size_t i = 0; i < m; i++) DL_TRY(ap_conf_put(&conf, c, nk[i], nv[i]));
	/* Enabling IcebergCompat turns column mapping on (name mode). */
	bool cm_added;
	dl_str_map with_cm;
	DL_TRY(dl_uniform_required_properties(&with_cm, &c->t.arena, &conf, &cm_added));
	if (cm_added) DL_TRY(ap_conf_put(&conf, c, "delta.columnMapping.mode", "name"));
	dl_table_properties props;
	DL_TRY(dl_table_properties_parse(&props, &conf, true));
	dl_type *schema = NULL;
	DL_TRY(ap_column_mapping_change(&schema, c, &conf));
	c->set_description = set_description;
	c->description = description;
	int rc = ap_stage(c, &conf, schema, NULL, NULL);
	dl_type_unref(schema);
	DL_TRY(rc);
	/* Row tracking turned on: every file gets its row ids in this commit. */
	if (enabled_in(&conf, "delta.enableRowTracking") &&
	    !enabled_in(&old->configuration, "delta.enableRowTracking")) {
		int64_t nfiles = 0;
		DL_TRY(ap_backfill_row_ids(c, &nfiles));
	}
	char *params;
	DL_TRY(json_map(&params, nk, nv, m));
	rc = dl_txn_set_parameter(c->t.txn, "properties", params);
	dl_free(params);
	DL_TRY(rc);
	return dl_txn_commit(c->t.txn, version);
}

int dl_alter_set_properties(int64_t *version, const char *uri, const char *const *keys,
                            const char *const *values, size_t n, const dl_alter_options *opts)
{
	*version = -1;
	ap_ctx c;
	int rc = ap_open(&c, uri, opts);
	if (rc == 0) rc = set_properties(&c, keys, values, n, "SET TBLPROPERTIES", version);
	dl_alter_end(&c.t);
	return rc;
}

/* Spark's DeltaOperations.UpgradeUniformProperties: the one commit of
 * ReorgTableForUpgradeUniformHelper.enableIcebergCompat, a SET TBLPROPERTIES
 * recorded under its own operation name with the same parameter. */
int dl_alter_upgrade_uniform_properties(int64_t *version, const char *uri, const char *const *keys,
                                        const char *const *values, size_t n, const dl_alter_options *opts)
{
	*version = -1;
	ap_ctx c;
	int rc = ap_open(&c, uri, opts);
	if (rc == 0) rc = set_properties(&c, keys, values, n, "REORG TABLE UPGRADE UNIFORM", version);
	dl_alter_end(&c.t);
	return rc;
}

static int unset_properties(ap_ctx *c, const char *const *keys, size_t n, bool if_exists,
                            int64_t *version)
{
	if (n == 0) return dl_error_set(DL_EINVALID, "UNSET TBLPROPERTIES needs at least one key");
	/* Spark's AlterTableUnsetPropertiesDeltaCommand: unsetting the mode of
	 * a mapped table first runs RemoveColumnMappingCommand (the key
	 * removed); when that was the only key, nothing else is committed. */
	const char *mode = dl_str_map_get(&ap_md(c)->configuration, "delta.columnMapping.mode", NULL);
	for (size_t i = 0; i < n && mode && strcasecmp(mode, "none") != 0; i++) {
		if (!keys[i] || strcmp(keys[i], "delta.columnMapping.mode") != 0) continue;
		DL_TRY(ap_remove_column_mapping(c, false));
		if (n == 1) {
			*version = dl_snapshot_version(c->t.snap);
			return 0;
		}
		break;
	}
	DL_TRY(dl_alter_start(&c->t, "UNSET TBLPROPERTIES"));
	const dl_metadata *old = ap_md(c);
	const char **nk = dl_arena_calloc(&c->t.arena, n + 1, sizeof *nk);
	if (!nk) return DL_ENOMEM;
	dl_str_map conf;
	DL_TRY(ap_conf_copy(&conf, c, &old->configuration, 1));
	bool drop_description = false;
	for (size_t i = 0; i < n; i++) {
		if (!keys[i] || !keys[i][0]) return dl_error_set(DL_EINVALID, "UNSET key %zu is empty", i);
		/* DeltaConfigs.normalizeConfigKeys: known keys take their canonical
		 * spelling, delta.feature.* and delta.universalFormat.config.* lower
		 * case, others stay. */
		const char *k = keys[i];
		if (dl_delta_config_is_known(k) || dl_delta_config_lowercased(k)) {
			const char *name;
			if (dl_delta_config_validate(&name, k, "") < 0) dl_error_clear();
			if (name) {
				char *s = dl_arena_alloc(&c->t.arena, strlen(name) + 7);
				if (!s) return DL_ENOMEM;
				sprintf(s, "delta.%s", name);
				k = s;
			} else {
				char *s = dl_arena_strdup(&c->t.arena, k);
				if (!s) return DL_ENOMEM;
				for (char *p = s; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
				k = s;
			}
		}
		nk[i] = k;
		if (strcmp(k, "comment") == 0) {
			drop_description = true;
			continue;
		}
		bool had = ap_conf_remove(&conf, k);
		if (!had && !if_exists)
			return dl_error_set_class(DL_ENOTFOUND, "DELTA_UNSET_NON_EXISTENT_PROPERTY",
			                          "Attempted to unset non-existent property '%s' in table %s", k,
			                          ap_table_name(c));
	}
	dl_type *schema = NULL; /* unsetting the mapping mode would remove it */
	DL_TRY(ap_column_mapping_change(&schema, c, &conf));
	dl_type_unref(schema);
	c->set_description = drop_description;
	c->description = NULL;
	/* The schema and protocol stay: what is unset disables, never removes. */
	int rc = ap_stage(c, &conf, NULL, ap_proto(c), NULL);
	DL_TRY(rc);
	char *params;
	DL_TRY(json_map(&params, nk, NULL, n));
	rc = dl_txn_set_parameter(c->t.txn, "properties", params);
	dl_free(params);
	DL_TRY(rc);
	DL_TRY(dl_txn_set_parameter(c->t.txn, "ifExists", if_exists ? "true" : "false"));
	return dl_txn_commit(c->t.txn, version);
}

int dl_alter_unset_properties(int64_t *version, const char *uri, const char *const *keys, size_t n,
                              bool if_exists, const dl_alter_options *opts)
{
	*version = -1;
	ap_ctx c;
	int rc = ap_open(&c, uri, opts);
	if (rc == 0) rc = unset_properties(&c, keys, n, if_exists, version);
	dl_alter_end(&c.t);
	return rc;
}
