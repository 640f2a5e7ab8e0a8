/* The sharing server's parts without a socket: the config (reference keys,
 * our extensions, the errors with their line), tokens (hash form,
 * constant-time lookup, expiry, grants), signed file URLs (round trip, any
 * edited byte refused, expiry), the route grammar (traversal refused), the
 * capabilities header and jsonPredicateHints to SQL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "deltalake/sharing_server.h"
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"

static int parse(dl_shr_config *c, const char *yaml)
{
	return dl_shr_config_parse(c, yaml, strlen(yaml), "t.yaml");
}

static void test_config_reference_format(void **state)
{
	(void)state;
	dl_shr_config c;
	const char *y = "version: 1\n"
	                "shares:\n"
	                "- name: \"share1\"\n"
	                "  schemas:\n"
	                "  - name: \"schema1\"\n"
	                "    tables:\n"
	                "    - name: \"table1\"\n"
	                "      location: \"s3a://bucket/t\"\n"
	                "      id: \"00000000-0000-0000-0000-000000000000\"\n"
	                "      historyShared: true\n"
	                "authorization:\n"
	                "  bearerToken: \"tok\"\n"
	                "host: \"localhost\"\n"
	                "port: 8080\n"
	                "endpoint: \"/delta-sharing/\"\n"
	                "preSignedUrlTimeoutSeconds: 900\n"
	                "deltaTableCacheSize: 10\n";
	assert_int_equal(parse(&c, y), 0);
	assert_int_equal(c.nshares, 1);
	const dl_shr_share *s = dl_shr_config_share(&c, "SHARE1");
	assert_non_null(s);
	const dl_shr_table *t = dl_shr_schema_table(dl_shr_share_schema(s, "Schema1"), "TABLE1");
	assert_non_null(t);
	assert_string_equal(t->location, "s3a://bucket/t");
	assert_true(t->history_shared);
	assert_string_equal(c.endpoint, "/delta-sharing");
	assert_int_equal(c.port, 8080);
	assert_int_equal(c.presigned_url_timeout_s, 900);
	const char *why;
	const dl_shr_recipient *r = dl_shr_authenticate(&c, "Bearer tok", 0, &why);
	assert_non_null(r);
	assert_true(dl_shr_recipient_may_read(r, "share1"));
	assert_null(dl_shr_authenticate(&c, "Bearer tok2", 0, &why));
	assert_null(dl_shr_authenticate(&c, NULL, 0, &why));
	dl_shr_config_free(&c);
}

static void test_config_recipients(void **state)
{
	(void)state;
	char *tok, *hash;
	assert_int_equal(dl_sharing_token_make(&tok, &hash), 0);
	assert_int_equal(strlen(hash), 71);
	char y[1024];
	snprintf(y, sizeof y,
	         "version: 1\nshares:\n- name: a\n- name: b\nrecipients:\n"
	         "- name: r1\n  tokenHash: \"%s\"\n  shares: [a]\n  expirationTime: \"2030-01-01T00:00:00Z\"\n",
	         hash);
	dl_shr_config c;
	assert_int_equal(parse(&c, y), 0);
	const char *why;
	char auth[128];
	snprintf(auth, sizeof auth, "Bearer %s", tok);
	const dl_shr_recipient *r = dl_shr_authenticate(&c, auth, 0, &why);
	assert_non_null(r);
	assert_true(dl_shr_recipient_may_read(r, "A"));
	assert_false(dl_shr_recipient_may_read(r, "b"));
	/* after the expiry */
	assert_null(dl_shr_authenticate(&c, auth, 1893456000000LL, &why));
	assert_non_null(strstr(why, "expired"));
	dl_shr_config_free(&c);
	dl_free(tok);
	dl_free(hash);
}

static void expect_error(const char *yaml, const char *text)
{
	dl_shr_config c;
	assert_int_equal(parse(&c, yaml), DL_EINVALID);
	if (!strstr(dl_error_last()->message, text)) fail_msg("'%s' lacks '%s'", dl_error_last()->message, text);
}

static void test_config_errors(void **state)
{
	(void)state;
	expect_error("version: 1\n", "must be authenticated");
	expect_error("shares: []\n", "'version' must be provided");
	expect_error("version: 0\n", "greater than 0");
	expect_error("version: 2\nauthorization:\n  bearerToken: x\n", "too new");
	expect_error("version: [1\n", "YAML syntax");
	expect_error("version: 1\nx: &a 1\ny: *a\n", "aliases");
	expect_error("version: 1\nport: 70000\nauthorization:\n  bearerToken: x\n", "line 2");
	expect_error("version: 1\nshares:\n- name: a/b\nauthorization:\n  bearerToken: x\n", "may not contain");
	expect_error("version: 1\nshares:\n- name: ..\nauthorization:\n  bearerToken: x\n", "may not contain");
	expect_error("version: 1\nrecipients:\n- name: r\n  tokenHash: abc\n", "64 hex digits");
	expect_error("version: 1\nendpoint: /files\nauthorization:\n  bearerToken: x\n", "/files");
	expect_error("version: 1\nssl:\n  selfSigned: true\nauthorization:\n  bearerToken: x\n", "selfSigned");
	expect_error("- 1\n- 2\n", "must be a mapping");
}

static void test_signed_urls(void **state)
{
	(void)state;
	dl_shr_signer s;
	assert_int_equal(dl_shr_signer_init(&s), 0);
	dl_buf u = DL_BUF_INIT;
	assert_int_equal(dl_shr_sign_file(&u, &s, "sh", "sc", "t", "a=1/part 0.parquet", 2000), 0);
	assert_true(strncmp(u.data, "/files/", 7) == 0);
	const char *tok = u.data + 7;
	for (const char *p = tok; *p; p++) assert_non_null(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.", *p));
	dl_shr_signed_file f;
	assert_int_equal(dl_shr_verify_file(&f, &s, tok, 1000), 0);
	assert_string_equal(f.share, "sh");
	assert_string_equal(f.schema, "sc");
	assert_string_equal(f.table, "t");
	assert_string_equal(f.location, "a=1/part 0.parquet");
	assert_int_equal(f.expires_ms, 2000);
	dl_shr_signed_file_free(&f);
	assert_int_equal(dl_shr_verify_file(&f, &s, tok, 2000), DL_EPERM); /* expired */
	/* every single-byte edit is refused */
	char *t = dl_strdup(tok);
	for (size_t i = 0; t[i]; i++) {
		char keep = t[i];
		t[i] = keep == 'A' ? 'B' : 'A';
		int rc = dl_shr_verify_file(&f, &s, t, 1000);
		if (rc == 0) fail_msg("an edit at byte %zu was accepted", i);
		t[i] = keep;
	}
	dl_free(t);
	/* another key (another server process) refuses it */
	dl_shr_signer s2;
	assert_int_equal(dl_shr_signer_init(&s2), 0);
	assert_int_equal(dl_shr_verify_file(&f, &s2, tok, 1000), DL_EPERM);
	assert_int_equal(dl_shr_verify_file(&f, &s, "", 1000), DL_EINVALID);
	assert_int_equal(dl_shr_verify_file(&f, &s, "....", 1000), DL_EINVALID);
	dl_buf_free(&u);
}

static void test_paths(void **state)
{
	(void)state;
	dl_shr_path p;
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares"), 0);
	assert_int_equal(p.kind, DL_SHR_R_SHARES);
	dl_shr_path_free(&p);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares/a/schemas/b/tables/c/query"), 0);
	assert_int_equal(p.kind, DL_SHR_R_QUERY);
	assert_string_equal(p.share, "a");
	assert_string_equal(p.schema, "b");
	assert_string_equal(p.table, "c");
	dl_shr_path_free(&p);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares/a/schemas/b/tables/c"), 0);
	assert_int_equal(p.kind, DL_SHR_R_TABLE);
	dl_shr_path_free(&p);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares/a/all-tables/"), 0);
	assert_int_equal(p.kind, DL_SHR_R_ALL_TABLES);
	dl_shr_path_free(&p);
	assert_int_equal(dl_shr_path_parse(&p, "", "/shares/a"), 0);
	assert_int_equal(p.kind, DL_SHR_R_SHARE);
	dl_shr_path_free(&p);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares/../schemas"), DL_EINVALID);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares/a/schemas/./tables"), DL_EINVALID);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares//schemas"), DL_EINVALID);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares/a\\b"), DL_EINVALID);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharingx/shares"), DL_ENOTFOUND);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/other"), DL_ENOTFOUND);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/delta-sharing/shares/a/schemas/b/tables/c/x"), DL_ENOTFOUND);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/files/abc"), 0);
	assert_int_equal(p.kind, DL_SHR_R_FILES);
	assert_string_equal(p.token, "abc");
	dl_shr_path_free(&p);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/files/.."), DL_EINVALID);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/files/../etc"), DL_ENOTFOUND);
	assert_int_equal(dl_shr_path_parse(&p, "/delta-sharing", "/files/a/b"), DL_ENOTFOUND);
}

static void test_confine(void **state)
{
	(void)state;
	char *loc, *rel;
	assert_int_equal(dl_shr_confine(&loc, "/data/t", "a=1/x.parquet"), 0);
	assert_int_equal(dl_shr_confine_rel(&rel, "/data/t", loc), 0);
	assert_string_equal(rel, "a=1/x.parquet");
	dl_free(loc);
	dl_free(rel);
	assert_int_equal(dl_shr_confine(&loc, "/data/t", "../t2/x.parquet"), DL_EPERM);
	assert_int_equal(dl_shr_confine(&loc, "/data/t", "/data/t2/x.parquet"), DL_EPERM);
	assert_int_equal(dl_shr_confine(&loc, "/data/t", "file:///etc/passwd"), DL_EPERM);
	assert_int_equal(dl_shr_confine(&loc, "/data/t", "a/../../t/x"), 0); /* normalized: inside */
	dl_free(loc);
	assert_int_equal(dl_shr_confine(&loc, "/data/t", "file:///data/t/y.parquet"), 0);
	dl_free(loc);
	assert_int_equal(dl_shr_confine_rel(&rel, "/data/t", "/data/t"), DL_EPERM);
}

static void test_caps_and_json_predicates(void **state)
{
	(void)state;
	dl_shr_caps c;
	dl_shr_caps_parse(&c, "responseformat=delta;readerfeatures=deletionvectors,columnmapping;includeendstreamaction=true");
	assert_true(c.delta_format);
	assert_true(c.dv_ok && c.cm_ok && c.end_stream_action);
	dl_shr_caps_parse(&c, "ResponseFormat = parquet , delta");
	assert_false(c.delta_format);
	assert_true(c.want_both_);
	dl_shr_caps_parse(&c, NULL);
	assert_false(c.delta_format || c.end_stream_action);
	char *sql;
	assert_int_equal(dl_shr_json_predicate_sql(&sql,
		"{\"op\":\"and\",\"children\":[{\"op\":\"equal\",\"children\":[{\"op\":\"column\",\"name\":\"hireDate\",\"valueType\":\"date\"},"
		"{\"op\":\"literal\",\"value\":\"2021-04-29\",\"valueType\":\"date\"}]},{\"op\":\"lessThan\",\"children\":["
		"{\"op\":\"column\",\"name\":\"i`d\",\"valueType\":\"int\"},{\"op\":\"literal\",\"value\":\"25\",\"valueType\":\"int\"}]},"
		"{\"op\":\"not\",\"children\":[{\"op\":\"isNull\",\"children\":[{\"op\":\"literal\",\"value\":\"it's\",\"valueType\":\"string\"}]}]}]}"), 0);
	assert_string_equal(sql, "((`hireDate` = DATE'2021-04-29') AND (`i``d` < 25) AND (NOT ('it\\'s' IS NULL)))");
	dl_free(sql);
	assert_int_equal(dl_shr_json_predicate_sql(&sql, "{\"op\":\"literal\",\"value\":\"1 OR 1\",\"valueType\":\"int\"}"), DL_EINVALID);
	assert_int_equal(dl_shr_json_predicate_sql(&sql, "{\"op\":\"and\",\"children\":[]}"), DL_EINVALID);
	assert_int_equal(dl_shr_json_predicate_sql(&sql, "[]"), DL_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_reference_format),
		cmocka_unit_test(test_config_recipients),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_signed_urls),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_confine),
		cmocka_unit_test(test_caps_and_json_predicates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
