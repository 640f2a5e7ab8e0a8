/* A connection's settings: memory_limit, spark.sql.session.timeZone and
 * any other key SET stores (shown by SET, used by nothing else yet, as
 * Spark keeps unknown keys), and the planner's environment built from
 * them for each statement. */
#include "sql/session_internal.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/tz.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/block_cache.h"

#define KEY_MEMORY "memory_limit"
#define KEY_TZ "spark.sql.session.timeZone"

void sql_session_begin(dl_sql_conn *c)
{
	atomic_store(&c->interrupt, false);
	c->mem.limit = c->memory_limit;
	dl_block_cache_under_limit(c->memory_limit);
	atomic_store(&c->mem.used, 0);
	atomic_store(&c->mem.peak, 0);
}

void sql_session_env(sql_env *env, dl_sql_conn *c)
{
	memset(env, 0, sizeof *env);
	env->resolve = sql_resolve;
	env->payload = c;
	env->ctx = (dl_exec_ctx)DL_EXEC_CTX_INIT;
	env->ctx.eval.time_zone = c->time_zone;
	env->ctx.mem = &c->mem;
	env->ctx.temp_dir = c->temp_dir;
	env->ctx.interrupt = &c->interrupt;
}

/* Spark's byte strings (JavaUtils.byteStringAs): a number with an optional
 * unit b, k/kb, m/mb, g/gb, t/tb (powers of 1024, case-insensitive); also
 * KiB/MiB/GiB as DuckDB writes them. */
int sql_parse_bytes(int64_t *out, const char *text)
{
	const char *p = text;
	while (isspace((unsigned char)*p)) p++;
	errno = 0;
	char *end;
	double v = strtod(p, &end);
	if (end == p || errno || v < 0)
		return dl_error_set_class(DL_EINVALID, "INVALID_CONF_VALUE",
		                          "[INVALID_CONF_VALUE] '%s' is not a memory size (e.g. 256MB, 2GB, 1048576)", text);
	while (isspace((unsigned char)*end)) end++;
	char unit[8] = {0};
	size_t n = 0;
	while (end[n] && !isspace((unsigned char)end[n]) && n < sizeof unit - 1) {
		unit[n] = (char)tolower((unsigned char)end[n]);
		n++;
	}
	const char *rest = end + n;
	while (isspace((unsigned char)*rest)) rest++;
	static const struct {
		const char *u;
		double mul;
	} units[] = {{"", 1},           {"b", 1},           {"k", 1024.0},      {"kb", 1024.0},   {"kib", 1024.0},
	             {"m", 1048576.0},  {"mb", 1048576.0},  {"mib", 1048576.0}, {"g", 1073741824.0},
	             {"gb", 1073741824.0}, {"gib", 1073741824.0}, {"t", 1099511627776.0},
	             {"tb", 1099511627776.0}, {"tib", 1099511627776.0}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!*rest && strcmp(unit, units[i].u) == 0) {
			double b = v * units[i].mul;
			if (b > 9.0e18)
				return dl_error_set_class(DL_EINVALID, "INVALID_CONF_VALUE",
				                          "[INVALID_CONF_VALUE] memory size '%s' is too large", text);
			*out = (int64_t)b;
			return 0;
		}
	return dl_error_set_class(DL_EINVALID, "INVALID_CONF_VALUE",
	                          "[INVALID_CONF_VALUE] '%s' is not a memory size: the unit must be B, KB, MB, GB or TB",
	                          text);
}

bool sql_zone_valid(const char *name)
{
	const dl_tz *tz;
	return dl_tz_get(&tz, name, strlen(name)) == 0;
}

static int set_time_zone(dl_sql_conn *c, const char *v)
{
	const dl_tz *tz;
	if (dl_tz_get(&tz, v, strlen(v)) < 0)
		return dl_error_set_class(DL_EINVALID, "INVALID_CONF_VALUE.TIME_ZONE",
		                          "[INVALID_CONF_VALUE.TIME_ZONE] The value '%s' in the config \"" KEY_TZ
		                          "\" is invalid. Cannot resolve the given timezone.",
		                          v);
	char *d = dl_strdup(v);
	if (!d) return DL_ENOMEM;
	dl_free(c->time_zone);
	c->time_zone = d;
	return 0;
}

static sql_setting *find_setting(dl_sql_conn *c, const char *key)
{
	for (int i = 0; i < c->nsettings; i++)
		if (strcmp(c->settings[i].key, key) == 0) return &c->settings[i];
	return NULL;
}

const char *sql_setting_get(const dl_sql_conn *c, const char *key)
{
	for (int i = 0; i < c->nsettings; i++)
		if (strcmp(c->settings[i].key, key) == 0) return c->settings[i].value;
	return NULL;
}

bool sql_setting_true(const dl_sql_conn *c, const char *key)
{
	const char *v = sql_setting_get(c, key);
	return v && strcasecmp(v, "true") == 0;
}

static int parse_auto_widening(dl_auto_widening *out, const char *v)
{
	static const char *const names[] = {"ALWAYS", "SAME_FAMILY_TYPE", "NEVER"};
	for (int i = 0; i < 3; i++)
		if (strcasecmp(v, names[i]) == 0) return *out = (dl_auto_widening)i, 0;
	return dl_error_set_class(DL_EINVALID, "INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS",
	                          "[INVALID_CONF_VALUE.OUT_OF_RANGE_OF_OPTIONS] The value '%s' in the config \""
	                          SQL_KEY_AUTO_WIDENING "\" is invalid. It should be one of NEVER, SAME_FAMILY_TYPE, "
	                          "ALWAYS.",
	                          v);
}

int sql_auto_widening(dl_auto_widening *out, const dl_sql_conn *c)
{
	const char *v = sql_setting_get(c, SQL_KEY_AUTO_WIDENING);
	*out = DL_AUTO_WIDENING_ALWAYS;
	return v ? parse_auto_widening(out, v) : 0;
}

/* The value as SET shows it: memory in bytes, the zone's id, others as set. */
static int value_of(char **out, dl_sql_conn *c, const char *key)
{
	char buf[64];
	*out = NULL;
	if (strcasecmp(key, KEY_MEMORY) == 0) {
		snprintf(buf, sizeof buf, "%" PRId64, c->memory_limit);
		*out = dl_strdup(buf);
	} else if (strcmp(key, KEY_TZ) == 0) {
		*out = dl_strdup(c->time_zone);
	} else {
		sql_setting *s = find_setting(c, key);
		*out = dl_strdup(s ? s->value : "<undefined>");
	}
	return *out ? 0 : DL_ENOMEM;
}

/* A value as written after '=': quotes of a 'quoted' value are not part of it. */
static char *unquote(const char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) return dl_strndup(v + 1, n - 2);
	return dl_strdup(v);
}

static int key_value_rows(dl_batch_stream **out, dl_sql_conn *c, const char *only)
{
	static const char *const names[] = {"key", "value"};
	static const dl_type_id types[] = {DL_TYPE_STRING, DL_TYPE_STRING};
	sql_rows r;
	DL_TRY(sql_rows_init(&r, names, types, 2));
	int rc = 0;
	static const char *const fixed[] = {KEY_MEMORY, KEY_TZ};
	int nfixed = only ? 0 : 2;
	for (int i = 0; i < nfixed + (only ? 1 : 0) && rc == 0; i++) {
		const char *key = only ? only : fixed[i];
		char *v = NULL;
		if ((rc = value_of(&v, c, key)) == 0 && (rc = sql_rows_str(&r, 0, key)) == 0) rc = sql_rows_str(&r, 1, v);
		dl_free(v);
	}
	for (int i = 0; !only && i < c->nsettings && rc == 0; i++)
		if ((rc = sql_rows_str(&r, 0, c->settings[i].key)) == 0) rc = sql_rows_str(&r, 1, c->settings[i].value);
	if (rc == 0) rc = sql_rows_finish(out, &r);
	sql_rows_free(&r);
	return rc;
}

int sql_run_set(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	if (!st->key) return key_value_rows(out, c, NULL);
	if (!st->value) return key_value_rows(out, c, st->key);
	char *v = unquote(st->value);
	if (!v) return DL_ENOMEM;
	int rc = 0;
	if (strcasecmp(st->key, KEY_MEMORY) == 0) {
		int64_t b;
		if ((rc = sql_parse_bytes(&b, v)) == 0) c->memory_limit = b;
	} else if (strcmp(st->key, KEY_TZ) == 0) {
		rc = set_time_zone(c, v);
	} else if (strcmp(st->key, SQL_KEY_AUTO_WIDENING) == 0 && parse_auto_widening(&(dl_auto_widening){0}, v) < 0) {
		rc = dl_error_last()->code; /* checked when set, as Spark's checkValues */
	} else {
		sql_setting *s = find_setting(c, st->key);
		if (s) {
			dl_free(s->value);
			s->value = v;
			v = NULL;
		} else {
			if (c->nsettings == c->capsettings) {
				int nc = c->capsettings ? c->capsettings * 2 : 8;
				sql_setting *g = dl_reallocarray(c->settings, (size_t)nc, sizeof *g);
				if (!g) rc = DL_ENOMEM;
				else c->settings = g, c->capsettings = nc;
			}
			char *k = rc == 0 ? dl_strdup(st->key) : NULL;
			if (!k) rc = DL_ENOMEM;
			else {
				c->settings[c->nsettings++] = (sql_setting){k, v};
				v = NULL;
			}
		}
	}
	dl_free(v);
	if (rc < 0) return rc;
	return sql_empty_result(out);
}

int sql_run_reset(dl_batch_stream **out, dl_sql_conn *c, const sql_stmt *st)
{
	bool all = !st->key;
	if (all || strcasecmp(st->key, KEY_MEMORY) == 0) c->memory_limit = c->default_memory_limit;
	if (all || strcmp(st->key, KEY_TZ) == 0) DL_TRY(set_time_zone(c, c->default_time_zone));
	for (int i = 0; i < c->nsettings; i++) {
		if (!all && strcmp(c->settings[i].key, st->key) != 0) continue;
		dl_free(c->settings[i].key);
		dl_free(c->settings[i].value);
		c->settings[i] = c->settings[--c->nsettings];
		i--;
	}
	return sql_empty_result(out);
}
