/* DeltaConfigs: the table properties Delta defines, and validating the ones
 * a user sets at CREATE TABLE (ops/create.c) and ALTER TABLE SET
 * TBLPROPERTIES (alter/properties.c), as Spark's
 * DeltaConfigs.validateConfigurations does for both: every delta.* key must be one
 * DeltaConfigs defines (DELTA_UNKNOWN_CONFIGURATION otherwise), its value
 * must pass the key's validation (Spark's IllegalArgumentException
 * "requirement failed: <key> <helpMessage>"), internal keys cannot be set
 * (DELTA_CANNOT_MODIFY_TABLE_PROPERTY); delta.feature.*,
 * delta.universalFormat.config.* (Spark's DELTA_UNIVERSAL_FORMAT_CONFIG_PREFIX:
 * "delta.universalFormat.config.[iceberg/hudi].[config_name]", config_name
 * arbitrary; both stored lower-cased) and delta.constraints.* pass through
 * (the caller handles them); other keys are
 * user keys, kept as given. Known keys are matched case-insensitively and
 * stored under their canonical spelling, as Spark's entries map does. */
#include "log/delta_configs.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "log/properties.h"
#include "util/error.h"

typedef enum kind {
	K_BOOL,        /* _.toBoolean */
	K_INT_POS,     /* > 0 */
	K_INT_GE_M1,   /* >= -1 */
	K_INTERVAL,    /* calendar interval without months, >= 0 */
	K_READER,      /* 1..3 */
	K_WRITER,      /* 1..7 */
	K_ISOLATION,   /* Serializable only */
	K_CKPT_POLICY, /* classic | v2 */
	K_CM_MODE,     /* none | id | name */
	K_STATS_COLS,  /* comma-separated column identifiers */
	K_FORMATS,     /* subset of {iceberg, hudi} */
	K_PROB,        /* a number strictly between 0 and 1 */
	K_ANY,
} kind;

typedef struct config {
	const char *key;    /* after "delta." */
	kind k;
	const char *help;
	bool user;          /* userConfigurable */
} config;

#define BOOL_HELP "needs to be a boolean."
#define INTERVAL_HELP                                                                     \
	"needs to be provided as a calendar interval such as '2 weeks'. Months and years are " \
	"not accepted. You may specify '365 days' for a year instead."

/* DeltaConfigs' entries (DeltaConfig.scala and the feature configs it
 * gathers: ICT, type widening, row tracking, Iceberg compat, coordinated
 * commits, checkpoint protection). */
static const config configs[] = {
	{"minReaderVersion", K_READER, "needs to be one of 1, 2, 3.", true},
	{"minWriterVersion", K_WRITER, "needs to be one of 1, 2, 3, 4, 5, 6, 7.", true},
	{"ignoreProtocolDefaults", K_BOOL, BOOL_HELP, true},
	{"logRetentionDuration", K_INTERVAL, INTERVAL_HELP, true},
	{"sampleRetentionDuration", K_INTERVAL, INTERVAL_HELP, true},
	{"checkpointRetentionDuration", K_INTERVAL, INTERVAL_HELP, true},
	{"checkpointInterval", K_INT_POS, "needs to be a positive integer.", true},
	{"enableExpiredLogCleanup", K_BOOL, BOOL_HELP, true},
	{"enableFullRetentionRollback", K_BOOL, BOOL_HELP, true},
	{"dropFeatureTruncateHistory.retentionDuration", K_INTERVAL, INTERVAL_HELP, true},
	{"deletedFileRetentionDuration", K_INTERVAL, INTERVAL_HELP, true},
	{"randomizeFilePrefixes", K_BOOL, BOOL_HELP, true},
	{"randomPrefixLength", K_INT_POS, "needs to be greater than 0.", true},
	{"appendOnly", K_BOOL, BOOL_HELP, true},
	{"enableDeletionVectors", K_BOOL, BOOL_HELP, true},
	{"autoOptimize", K_BOOL, BOOL_HELP, true},
	{"autoOptimize.optimizeWrite", K_BOOL, BOOL_HELP, true},
	{"autoOptimize.autoCompact", K_ANY, "", true},
	{"dataSkippingNumIndexedCols", K_INT_GE_M1, "needs to be larger than or equal to -1.", true},
	{"dataSkippingStatsColumns", K_STATS_COLS,
	 "The dataSkippingStatsColumns parameter is a comma-separated list of case-insensitive "
	 "column identifiers. Each column identifier can consist of letters, digits, and "
	 "underscores. Multiple column identifiers can be listed, separated by commas.",
	 true},
	{"compatibility.symlinkFormatManifest.enabled", K_BOOL, BOOL_HELP, true},
	{"checkpoint.writeStatsAsJson", K_BOOL, BOOL_HELP, true},
	{"checkpoint.writeStatsAsStruct", K_BOOL, BOOL_HELP, true},
	{"checkpoint.partSize", K_INT_POS, "needs to be a positive integer.", true},
	{"enableChangeDataCapture", K_BOOL, BOOL_HELP, true},
	{"enableChangeDataFeed", K_BOOL, BOOL_HELP, true},
	{"columnMapping.mode", K_CM_MODE, "", true},
	{"columnMapping.maxColumnId", K_ANY, "", false},
	{"setTransactionRetentionDuration", K_INTERVAL, INTERVAL_HELP, true},
	{"isolationLevel", K_ISOLATION, "must be Serializable", true},
	{"checkpointPolicy", K_CKPT_POLICY, "can be one of the following: classic, v2", true},
	{"enableRowTracking", K_BOOL, BOOL_HELP, true},
	{"rowTrackingSuspended", K_BOOL, BOOL_HELP, true},
	{"universalFormat.enabledFormats", K_FORMATS,
	 "Must be a comma-separated list of formats from the list: {iceberg,hudi}.", true},
	{"enableIcebergCompatV1", K_BOOL, BOOL_HELP, true},
	{"enableIcebergCompatV2", K_BOOL, BOOL_HELP, true},
	{"enableIcebergCompatV3", K_BOOL, BOOL_HELP, true},
	{"enableIcebergWriterCompatV1", K_BOOL, BOOL_HELP, true},
	{"enableIcebergWriterCompatV3", K_BOOL, BOOL_HELP, true},
	{"enableInCommitTimestamps", K_BOOL, BOOL_HELP, true},
	{"inCommitTimestampEnablementVersion", K_ANY, "", false},
	{"inCommitTimestampEnablementTimestamp", K_ANY, "", false},
	{"enableTypeWidening", K_BOOL, BOOL_HELP, true},
	{"enableVariantShredding", K_BOOL, BOOL_HELP, true},
	{"requireCheckpointProtectionBeforeVersion", K_ANY, "", false},
	{"coordinatedCommits.commitCoordinator-preview", K_ANY, "", true},
	{"coordinatedCommits.commitCoordinatorConf-preview", K_ANY, "", true},
	{"coordinatedCommits.tableConf-preview", K_ANY, "", true},
	{"redirectReaderWriter-preview", K_ANY, "", true},
	{"redirectWriterOnly-preview", K_ANY, "", true},
	{"parquet.compression.codec", K_ANY, "", true},
	/* this library's own, not DeltaConfigs' (docs/WRITES.md): Parquet Bloom filters */
	{"parquet.bloomFilter.columns", K_STATS_COLS, "needs to be a comma-separated list of column names.", true},
	{"parquet.bloomFilter.fpp", K_PROB, "needs to be a probability between 0 and 1 (e.g. 0.01).", true},
};

static const config *find(const char *name)
{
	for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
		if (strcasecmp(configs[i].key, name) == 0) return &configs[i];
	return NULL;
}

bool dl_delta_config_lowercased(const char *key)
{
	return strncasecmp(key, "delta.feature.", 14) == 0 ||
	       strncasecmp(key, "delta.universalformat.config.", 29) == 0;
}

bool dl_delta_config_is_known(const char *key)
{
	return strncasecmp(key, "delta.", 6) == 0 && find(key + 6) != NULL;
}

static bool parse_int(const char *s, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < INT32_MIN || v > INT32_MAX) return false;
	*out = v;
	return true;
}

/* One identifier of dataSkippingStatsColumns: letters, digits, _ and dots
 * between parts, or a backquoted part. */
static bool stats_columns_ok(const char *s)
{
	const char *p = s;
	for (;;) {
		while (*p == ' ') p++;
		bool any = false;
		for (;;) {
			if (*p == '`') {
				const char *q = p + 1;
				for (; *q; q++) {
					if (*q == '`' && q[1] == '`') q++;
					else if (*q == '`') break;
				}
				if (*q != '`' || q == p + 1) return false;
				p = q + 1;
			} else {
				const char *q = p;
				while (isalnum((unsigned char)*q) || *q == '_') q++;
				if (q == p) return false;
				p = q;
			}
			any = true;
			if (*p != '.') break;
			p++;
		}
		while (*p == ' ') p++;
		if (!any) return false;
		if (!*p) return true;
		if (*p++ != ',') return false;
	}
}

static bool formats_ok(const char *v)
{
	if (!*v) return true;
	bool seen[2] = {false, false};
	const char *p = v;
	while (*p) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		int i = n == 7 && strncmp(p, "iceberg", 7) == 0 ? 0 : n == 4 && strncmp(p, "hudi", 4) == 0 ? 1 : -1;
		if (i < 0 || seen[i]) return false;
		seen[i] = true;
		p += n + (c ? 1 : 0);
		if (c && !*p) return false;
	}
	return true;
}

static bool value_ok(const config *c, const char *v)
{
	long long x;
	bool b;
	int64_t ms;
	switch (c->k) {
	case K_BOOL: return dl_parse_bool_property(v, &b) == 0;
	case K_INT_POS: return parse_int(v, &x) && x > 0;
	case K_INT_GE_M1: return parse_int(v, &x) && x >= -1;
	case K_INTERVAL: return dl_parse_interval_ms(v, &ms) == 0 && ms >= 0;
	case K_READER: return parse_int(v, &x) && x >= 1 && x <= 3;
	case K_WRITER: return parse_int(v, &x) && x >= 1 && x <= 7;
	case K_ISOLATION: return strcmp(v, "Serializable") == 0;
	case K_CKPT_POLICY: return strcmp(v, "classic") == 0 || strcmp(v, "v2") == 0;
	case K_CM_MODE: return true; /* checked by the caller (its own error class) */
	case K_STATS_COLS: return stats_columns_ok(v);
	case K_FORMATS: return formats_ok(v);
	case K_PROB: {
		char *end = NULL;
		double p = strtod(v, &end);
		return end != v && !*end && p > 0 && p < 1;
	}
	case K_ANY: return true;
	}
	return false;
}

int dl_delta_config_validate(const char **config_name, const char *key, const char *value)
{
	*config_name = NULL;
	if (strncasecmp(key, "delta.", 6) != 0) return 0;
	if (strncasecmp(key, "delta.constraints.", 18) == 0 || dl_delta_config_lowercased(key)) return 0;
	const config *c = find(key + 6);
	if (!c)
		return dl_error_set_class(DL_EINVALID, "DELTA_UNKNOWN_CONFIGURATION",
		                          "Unknown configuration was specified: %s. To disable this check, "
		                          "set spark.databricks.delta.allowArbitraryProperties.enabled=true "
		                          "in the Spark session configuration.",
		                          key);
	*config_name = c->key;
	if (!c->user)
		return dl_error_set_class(DL_EINVALID, "DELTA_CANNOT_MODIFY_TABLE_PROPERTY",
		                          "The Delta table configuration delta.%s cannot be specified by the "
		                          "user",
		                          c->key);
	if (c->k == K_CM_MODE && strcasecmp(value, "none") != 0 && strcasecmp(value, "id") != 0 &&
	    strcasecmp(value, "name") != 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_MODE_NOT_SUPPORTED",
		                          "Specified mode '%s' is not supported. Supported modes are: none, "
		                          "id, name (delta.columnMapping.mode)",
		                          value);
	if (!value_ok(c, value))
		return dl_error_set(DL_EINVALID, "requirement failed: delta.%s %s (got '%s')", c->key, c->help,
		                    value);
	return 0;
}
