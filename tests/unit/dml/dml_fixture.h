/* Helpers of the DELETE / UPDATE tests: tables created through the public
 * API and filled through the write path (ops_fixture.h), commit JSON, and a
 * fingerprint of a table directory to prove a failed command changed nothing. */
#ifndef DL_TEST_DML_FIXTURE_H
#define DL_TEST_DML_FIXTURE_H
#include "../ops/ops_fixture.h"
#include "deltalake/dml.h"
#include "deltalake/write.h"

static inline void dx_create(const char *uri, const char *ddl, const char *part,
                             const char *const *props, int nprops)
{
	dl_create_options c = DL_CREATE_OPTIONS_INIT;
	c.schema_ddl = ddl;
	const char *parts[1] = {part};
	c.partition_columns = parts;
	c.npartition_columns = part ? 1 : 0;
	const char *keys[8], *vals[8];
	for (int i = 0; i < nprops; i++) {
		keys[i] = props[2 * i];
		vals[i] = props[2 * i + 1];
	}
	c.property_keys = keys;
	c.property_values = vals;
	c.nproperties = nprops;
	int64_t v;
	if (dl_create_table(&v, uri, &c) < 0) fail_msg("create: %s", dl_error_last()->message);
}

static inline void dx_append(const char *uri, const char *ddl, const char *rows)
{
	dl_write_options o = fx_opts(DL_WRITE_APPEND);
	int64_t v;
	if (fx_write(&v, uri, ddl, rows, &o) < 0) fail_msg("append: %s", dl_error_last()->message);
}

static inline void dx_rows(const char *uri, const char *cols, const char *want)
{
	char *got = fx_read(uri, -1, cols);
	if (!got) fail_msg("read failed: %s", dl_error_last()->message);
	if (strcmp(got, want) != 0) fail_msg("rows \"%s\", expected \"%s\"", got, want);
	dl_free(got);
}

/* The commitInfo must contain `s`. */
static inline void dx_commit_has(const char *uri, int64_t version, const char *s)
{
	char *c = fx_commit(uri, version);
	if (!c) fail_msg("no commit %lld", (long long)version);
	if (!strstr(c, s)) fail_msg("commit %lld lacks %s: %.2000s", (long long)version, s, c);
	dl_free(c);
}

static inline void dx_commit_lacks(const char *uri, int64_t version, const char *s)
{
	char *c = fx_commit(uri, version);
	if (!c) fail_msg("no commit %lld", (long long)version);
	if (strstr(c, s)) fail_msg("commit %lld has %s: %.2000s", (long long)version, s, c);
	dl_free(c);
}

/* Every file under dir with its checksum, sorted (malloc'd). */
static inline char *dx_tree(const char *dir)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "cd '%s' && find . -type f -exec md5sum {} + | sort", dir);
	FILE *p = popen(cmd, "r");
	if (!p) return NULL;
	dl_buf b = DL_BUF_INIT;
	dl_buf_puts(&b, "");
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) dl_buf_append(&b, chunk, n);
	pclose(p);
	return b.data;
}

static inline int dx_count_dv_files(const char *dir)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '^deletion_vector_.*\\.bin$'", dir);
	FILE *p = popen(cmd, "r");
	int n = 0;
	if (p && fscanf(p, "%d", &n) != 1) n = 0;
	if (p) pclose(p);
	return n;
}

#endif
