/* Helpers of the ALTER TABLE property / constraint / feature tests: the
 * DML fixtures plus the latest protocol and configuration as the log
 * states them, and error-class checks. */
#ifndef DL_TEST_ALTER_FIXTURE_H
#define DL_TEST_ALTER_FIXTURE_H
#include "../dml/dml_fixture.h"
#include "deltalake/alter.h"
#include "log/snapshot.h"

/* The latest protocol as PROTOCOL.md JSON (malloc'd). */
static inline char *ax_protocol(const char *uri)
{
	dl_snapshot *s;
	if (dl_snapshot_open(&s, uri, NULL) < 0) fail_msg("open: %s", dl_error_last()->message);
	const dl_protocol *p = dl_snapshot_state(s)->protocol;
	dl_buf b = DL_BUF_INIT;
	dl_buf_printf(&b, "(%d,%d)", p->min_reader_version, p->min_writer_version);
	if (p->reader_features) {
		dl_buf_puts(&b, " r[");
		for (uint32_t i = 0; i < p->nreader_features; i++)
			dl_buf_printf(&b, "%s%s", i ? "," : "", p->reader_features[i]);
		dl_buf_puts(&b, "]");
	}
	if (p->writer_features) {
		dl_buf_puts(&b, " w[");
		for (uint32_t i = 0; i < p->nwriter_features; i++)
			dl_buf_printf(&b, "%s%s", i ? "," : "", p->writer_features[i]);
		dl_buf_puts(&b, "]");
	}
	dl_snapshot_free(s);
	return b.data;
}

static inline void ax_protocol_is(const char *uri, const char *want)
{
	char *got = ax_protocol(uri);
	if (strcmp(got, want) != 0) fail_msg("protocol %s, expected %s", got, want);
	dl_free(got);
}

/* The latest configuration value of key, or NULL (malloc'd). */
static inline char *ax_conf(const char *uri, const char *key)
{
	dl_snapshot *s;
	if (dl_snapshot_open(&s, uri, NULL) < 0) fail_msg("open: %s", dl_error_last()->message);
	const char *v = dl_str_map_get(&dl_snapshot_state(s)->metadata->configuration, key, NULL);
	char *r = v ? dl_strdup(v) : NULL;
	dl_snapshot_free(s);
	return r;
}

static inline void ax_conf_is(const char *uri, const char *key, const char *want)
{
	char *got = ax_conf(uri, key);
	if (!want && got) fail_msg("%s = '%s', expected it absent", key, got);
	if (want && (!got || strcmp(got, want) != 0))
		fail_msg("%s = '%s', expected '%s'", key, got ? got : "(absent)", want);
	dl_free(got);
}

/* rc must be the failure `code` with error class `klass`, the message
 * containing `part` (NULL: anything). */
static inline void ax_fails(int rc, int code, const char *klass, const char *part)
{
	if (rc != code)
		fail_msg("rc %d, expected %d (%s)", rc, code, rc < 0 ? dl_error_last()->message : "success");
	if (klass && strcmp(dl_error_last()->klass, klass) != 0)
		fail_msg("class '%s', expected '%s': %s", dl_error_last()->klass, klass, dl_error_last()->message);
	if (part && !strstr(dl_error_last()->message, part))
		fail_msg("message lacks '%s': %s", part, dl_error_last()->message);
}

static inline void ax_ok(int rc)
{
	if (rc < 0) fail_msg("failed: %s [%s]", dl_error_last()->message, dl_error_last()->klass);
}

static inline int ax_set1(const char *uri, const char *k, const char *v)
{
	int64_t ver;
	const char *keys[] = {k}, *vals[] = {v};
	return dl_alter_set_properties(&ver, uri, keys, vals, 1, NULL);
}

#endif
