/* Helpers of the RESTORE / CLONE / CONVERT tests over the DML fixture
 * (tables made through the public create and write paths). */
#ifndef DL_TEST_RESTORE_FIXTURE_H
#define DL_TEST_RESTORE_FIXTURE_H
#include <stdlib.h>
#include "../dml/dml_fixture.h"
#include "deltalake/maintenance.h"

/* Asserts the failure's code and Spark class (NULL: none checked). */
static inline void mx_fails(int rc, int code, const char *klass)
{
	if (rc != code) fail_msg("rc %d, expected %d (%s)", rc, code, dl_error_last()->message);
	if (klass && strcmp(dl_error_last()->klass, klass) != 0)
		fail_msg("class '%s', expected '%s' (%s)", dl_error_last()->klass, klass, dl_error_last()->message);
}

static inline void mx_sh(const char *fmt, const char *a, const char *b)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	if (system(cmd) != 0) fail_msg("command failed: %s", cmd);
}

static inline void mx_overwrite(const char *uri, const char *ddl, const char *rows, bool schema)
{
	dl_write_options o = fx_opts(DL_WRITE_OVERWRITE);
	o.overwrite_schema = schema;
	int64_t v;
	if (fx_write(&v, uri, ddl, rows, &o) < 0) fail_msg("overwrite: %s", dl_error_last()->message);
}
#endif
