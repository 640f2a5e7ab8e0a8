/* Table properties with the reference implementation's defaults. */
#include "log/properties.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/error.h"

#define MS_PER_DAY (24LL * 3600 * 1000)

void dl_table_properties_defaults(dl_table_properties *p)
{
	memset(p, 0, sizeof *p);
	p->checkpoint_interval = 10;
	p->log_retention_ms = 30 * MS_PER_DAY;
	p->deleted_file_retention_ms = 7 * MS_PER_DAY;
	p->checkpoint_retention_ms = 2 * MS_PER_DAY;
	p->data_skipping_num_indexed_cols = 32;
	p->ict_enablement_version = -1;
	p->ict_enablement_timestamp = -1;
	p->checkpoint_write_stats_as_json = true;
	p->enable_expired_log_cleanup = true;
	p->random_prefix_length = 2;
	p->parquet_bloom_filter_fpp = 0.01;
	p->set_transaction_retention_ms = -1;
	p->truncate_history_retention_ms = 24 * 3600 * 1000LL;
}

int dl_parse_bool_property(const char *s, bool *out)
{
	while (isspace((unsigned char)*s)) s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1])) n--;
	if (n == 4 && strncasecmp(s, "true", 4) == 0) *out = true;
	else if (n == 5 && strncasecmp(s, "false", 5) == 0) *out = false;
	else return DL_EINVALID;
	return 0;
}

static int parse_long(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	while (isspace((unsigned char)*s)) s++;
	long long v = strtoll(s, &end, 10);
	if (end == s || errno) return DL_EINVALID;
	while (isspace((unsigned char)*end)) end++;
	if (*end) return DL_EINVALID;
	*out = v;
	return 0;
}

static int64_t unit_ms(const char *u, size_t n)
{
	static const struct { const char *name; int64_t ms; } units[] = {
		{"week", 7 * MS_PER_DAY}, {"day", MS_PER_DAY}, {"hour", 3600000}, {"minute", 60000},
		{"second", 1000}, {"millisecond", 1}, {"microsecond", 0},
	};
	if (n > 1 && (u[n - 1] == 's' || u[n - 1] == 'S')) n--;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strlen(units[i].name) == n && strncasecmp(u, units[i].name, n) == 0)
			return units[i].ms;
	return -1;
}

int dl_parse_interval_ms(const char *s, int64_t *out_ms)
{
	const char *p = s;
	while (isspace((unsigned char)*p)) p++;
	if (strncasecmp(p, "interval", 8) == 0 && (isspace((unsigned char)p[8]) || !p[8])) p += 8;
	int64_t total = 0;
	int terms = 0;
	for (;;) {
		while (isspace((unsigned char)*p)) p++;
		if (!*p) break;
		char *end;
		errno = 0;
		long long n = strtoll(p, &end, 10);
		if (end == p || errno) return DL_EINVALID;
		p = end;
		while (isspace((unsigned char)*p)) p++;
		const char *u = p;
		while (isalpha((unsigned char)*p)) p++;
		int64_t ms = unit_ms(u, (size_t)(p - u));
		if (ms < 0) return DL_EINVALID;
		if (ms == 0) n /= 1000, ms = 1; /* microseconds: whole milliseconds */
		if (n > INT64_MAX / ms || n < INT64_MIN / ms) return DL_EINVALID;
		total += n * ms;
		terms++;
	}
	if (!terms) return DL_EINVALID;
	*out_ms = total;
	return 0;
}

typedef struct prop_ctx {
	dl_table_properties *p;
	bool strict;
	int rc;
} prop_ctx;

static void invalid(prop_ctx *c, const char *key, const char *value, const char *expected)
{
	if (c->strict && c->rc == 0)
		c->rc = dl_error_set(DL_EINVALID, "table property %s = '%s' is invalid: expected %s", key,
		                     value ? value : "null", expected);
}

static void set_bool(prop_ctx *c, const char *k, const char *v, bool *dst)
{
	if (!v || dl_parse_bool_property(v, dst) < 0) invalid(c, k, v, "true or false");
}

static void set_long(prop_ctx *c, const char *k, const char *v, int64_t *dst, int64_t min)
{
	int64_t x;
	if (!v || parse_long(v, &x) < 0 || x < min) invalid(c, k, v, "an integer in range");
	else *dst = x;
}

static void set_interval(prop_ctx *c, const char *k, const char *v, int64_t *dst)
{
	int64_t x;
	if (!v || dl_parse_interval_ms(v, &x) < 0 || x < 0)
		invalid(c, k, v, "an interval such as 'interval 7 days'");
	else *dst = x;
}

static void set_enum(prop_ctx *c, const char *k, const char *v, const char *const *names,
                     int *dst)
{
	for (int i = 0; v && names[i]; i++) {
		if (strcasecmp(v, names[i]) == 0) {
			*dst = i;
			return;
		}
	}
	invalid(c, k, v, "one of the documented values");
}

static void apply(prop_ctx *c, const char *k, const char *v)
{
	static const char *const cm[] = {"none", "id", "name", NULL};
	static const char *const iso[] = {"WriteSerializable", "Serializable", "SnapshotIsolation", NULL};
	static const char *const cpp[] = {"classic", "v2", NULL};
	dl_table_properties *p = c->p;
	int e;
	if (strncmp(k, "delta.", 6) != 0) return;
	const char *n = k + 6;
	if (!strcmp(n, "checkpointInterval")) set_long(c, k, v, &p->checkpoint_interval, 1);
	else if (!strcmp(n, "logRetentionDuration")) set_interval(c, k, v, &p->log_retention_ms);
	else if (!strcmp(n, "deletedFileRetentionDuration"))
		set_interval(c, k, v, &p->deleted_file_retention_ms);
	else if (!strcmp(n, "setTransactionRetentionDuration"))
		set_interval(c, k, v, &p->set_transaction_retention_ms);
	else if (!strcmp(n, "requireCheckpointProtectionBeforeVersion"))
		set_long(c, k, v, &p->checkpoint_protection_version, 0);
	else if (!strcmp(n, "dropFeatureTruncateHistory.retentionDuration"))
		set_interval(c, k, v, &p->truncate_history_retention_ms);
	else if (!strcmp(n, "checkpointRetentionDuration"))
		set_interval(c, k, v, &p->checkpoint_retention_ms);
	else if (!strcmp(n, "dataSkippingNumIndexedCols")) {
		int64_t x = p->data_skipping_num_indexed_cols;
		set_long(c, k, v, &x, -1);
		p->data_skipping_num_indexed_cols = x > INT32_MAX ? INT32_MAX : (int32_t)x;
	} else if (!strcmp(n, "dataSkippingStatsColumns")) p->data_skipping_stats_columns = v;
	else if (!strcmp(n, "enableChangeDataFeed")) set_bool(c, k, v, &p->enable_change_data_feed);
	else if (!strcmp(n, "columnMapping.mode")) {
		e = (int)p->column_mapping_mode;
		set_enum(c, k, v, cm, &e);
		p->column_mapping_mode = (dl_column_mapping_mode)e;
	} else if (!strcmp(n, "columnMapping.maxColumnId"))
		set_long(c, k, v, &p->column_mapping_max_id, 0);
	else if (!strcmp(n, "enableDeletionVectors")) set_bool(c, k, v, &p->enable_deletion_vectors);
	else if (!strcmp(n, "appendOnly")) set_bool(c, k, v, &p->append_only);
	else if (!strcmp(n, "isolationLevel")) {
		e = (int)p->isolation_level;
		set_enum(c, k, v, iso, &e);
		p->isolation_level = (dl_isolation_level)e;
	} else if (!strcmp(n, "checkpointPolicy")) {
		e = (int)p->checkpoint_policy;
		set_enum(c, k, v, cpp, &e);
		p->checkpoint_policy = (dl_checkpoint_policy)e;
	} else if (!strcmp(n, "enableInCommitTimestamps") ||
	           !strcmp(n, "enableInCommitTimestamps-preview"))
		set_bool(c, k, v, &p->enable_in_commit_timestamps);
	else if (!strcmp(n, "inCommitTimestampEnablementVersion") ||
	         !strcmp(n, "inCommitTimestampEnablementVersion-preview"))
		set_long(c, k, v, &p->ict_enablement_version, 0);
	else if (!strcmp(n, "inCommitTimestampEnablementTimestamp") ||
	         !strcmp(n, "inCommitTimestampEnablementTimestamp-preview"))
		set_long(c, k, v, &p->ict_enablement_timestamp, INT64_MIN + 1);
	else if (!strcmp(n, "enableRowTracking")) set_bool(c, k, v, &p->enable_row_tracking);
	else if (!strcmp(n, "checkpoint.writeStatsAsJson"))
		set_bool(c, k, v, &p->checkpoint_write_stats_as_json);
	else if (!strcmp(n, "checkpoint.writeStatsAsStruct"))
		set_bool(c, k, v, &p->checkpoint_write_stats_as_struct);
	else if (!strcmp(n, "enableExpiredLogCleanup"))
		set_bool(c, k, v, &p->enable_expired_log_cleanup);
	else if (!strcmp(n, "enableTypeWidening")) set_bool(c, k, v, &p->enable_type_widening);
	else if (!strcmp(n, "randomizeFilePrefixes")) {
		bool b = false;
		set_bool(c, k, v, &b);
		p->randomize_file_prefixes = b;
	} else if (!strcmp(n, "randomPrefixLength")) {
		int64_t x = p->random_prefix_length;
		set_long(c, k, v, &x, 1);
		p->random_prefix_length = x > 64 ? 64 : (int32_t)x;
	} else if (!strcmp(n, "parquet.compression.codec")) p->parquet_compression_codec = v;
	else if (!strcmp(n, "parquet.bloomFilter.columns")) p->parquet_bloom_filter_columns = v;
	else if (!strcmp(n, "parquet.bloomFilter.fpp")) {
		char *end = NULL;
		double x = v ? strtod(v, &end) : 0;
		if (!v || end == v || *end || !(x > 0 && x < 1)) invalid(c, k, v, "a probability between 0 and 1");
		else p->parquet_bloom_filter_fpp = x;
	}
}

int dl_table_properties_parse(dl_table_properties *out, const dl_str_map *configuration,
                              bool strict)
{
	dl_table_properties_defaults(out);
	prop_ctx c = {out, strict, 0};
	for (uint32_t i = 0; configuration && i < configuration->n; i++)
		apply(&c, configuration->items[i].key, configuration->items[i].value);
	return c.rc;
}

int dl_table_constraints_each(const dl_str_map *configuration, dl_constraint_fn fn, void *payload)
{
	static const char prefix[] = "delta.constraints.";
	for (uint32_t i = 0; i < configuration->n; i++) {
		const dl_kv *kv = &configuration->items[i];
		if (strncasecmp(kv->key, prefix, sizeof prefix - 1) != 0 || !kv->value) continue;
		DL_TRY(fn(kv->key + sizeof prefix - 1, kv->value, payload));
	}
	return 0;
}
