/* DeltaConfigs (Spark's DeltaConfigs.scala and the feature configs it
 * gathers): which delta.* table properties exist, their canonical spelling,
 * and the validation Spark's validateConfigurations applies to a property a
 * user sets, at CREATE TABLE and at ALTER TABLE SET TBLPROPERTIES alike.
 * Reading a table never validates: a log written by another engine keeps
 * whatever keys it has. */
#ifndef DL_LOG_DELTA_CONFIGS_H
#define DL_LOG_DELTA_CONFIGS_H
#include <stdbool.h>

/* One key: a known delta.* key (matched case-insensitively) gets its value
 * checked ("requirement failed: delta.<key> <help>"), an internal one is
 * DELTA_CANNOT_MODIFY_TABLE_PROPERTY, an unknown one
 * DELTA_UNKNOWN_CONFIGURATION; delta.constraints.*, delta.feature.*,
 * delta.universalFormat.config.* and
 * keys outside delta. pass (the caller handles them). *config_name gets
 * the canonical name after "delta." of a known key, else NULL. */
int dl_delta_config_validate(const char **config_name, const char *key, const char *value);

/* delta.feature.* and delta.universalFormat.config.* keys: accepted
 * whatever follows and stored lower-cased, as Spark's validateConfigurations
 * and normalizeConfigKeys do. */
bool dl_delta_config_lowercased(const char *key);

/* A delta.* key DeltaConfigs defines (any case). */
bool dl_delta_config_is_known(const char *key);

#endif
