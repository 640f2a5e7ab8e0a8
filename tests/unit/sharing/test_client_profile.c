/* Profile files (PROTOCOL.md "Profile File Format", and version 2's types)
 * and shared table paths: what parses, and the one-line error for each
 * thing that is wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "deltalake/error.h"
#include "deltalake/sharing.h"
#include "sharing/client.h"
#include "util/mem.h"

static dl_sharing_profile *parse_ok(const char *json)
{
	dl_sharing_profile *p = NULL;
	int rc = dl_sharing_profile_parse(&p, json, strlen(json), "t.share");
	if (rc != 0) fail_msg("%s", dl_error_last()->message);
	return p;
}

static void expect_error(const char *json, int code, const char *needle)
{
	dl_sharing_profile *p = (dl_sharing_profile *)1;
	assert_int_equal(dl_sharing_profile_parse(&p, json, strlen(json), "t.share"), code);
	assert_null(p);
	const char *m = dl_error_last()->message;
	if (!strstr(m, needle)) fail_msg("\"%s\" lacks \"%s\"", m, needle);
	assert_non_null(strstr(m, "t.share"));
}

static void v1_example(void **state)
{
	(void)state;
	/* PROTOCOL.md's example */
	dl_sharing_profile *p = parse_ok("{\"shareCredentialsVersion\": 1, \"endpoint\": "
	                                 "\"https://sharing.delta.io/delta-sharing/\", \"bearerToken\": "
	                                 "\"<token>\", \"expirationTime\": \"2021-11-12T00:12:29.0Z\"}");
	assert_int_equal(dl_sharing_profile_version(p), 1);
	assert_int_equal(dl_sharing_profile_auth(p), DL_SHARING_AUTH_BEARER);
	assert_string_equal(dl_sharing_profile_endpoint(p), "https://sharing.delta.io/delta-sharing");
	assert_int_equal(dl_sharing_profile_expiration(p), INT64_C(1636675949000));
	dl_sharing_profile_free(p);
	p = parse_ok("{\"shareCredentialsVersion\":1,\"endpoint\":\"http://h:1/p\",\"bearerToken\":\"t\"}");
	assert_int_equal(dl_sharing_profile_expiration(p), -1);
	dl_sharing_profile_free(p);
	p = parse_ok("{\"shareCredentialsVersion\":1,\"endpoint\":\"http://h\",\"bearerToken\":\"t\","
	             "\"expirationTime\":\"1969-12-31T23:59:59.999Z\"}");
	assert_int_equal(dl_sharing_profile_expiration(p), 0); /* expired, not "never" */
	dl_sharing_profile_free(p);
}

static void v2_types(void **state)
{
	(void)state;
	dl_sharing_profile *p = parse_ok("{\"shareCredentialsVersion\":2,\"type\":\"oauth_client_credentials\","
	                                 "\"endpoint\":\"https://h/ds\",\"tokenEndpoint\":\"https://h/t\","
	                                 "\"clientId\":\"id\",\"clientSecret\":\"s\",\"scope\":\"a b\"}");
	assert_int_equal(dl_sharing_profile_auth(p), DL_SHARING_AUTH_OAUTH);
	assert_string_equal(p->scope, "a b");
	dl_sharing_profile_free(p);
	p = parse_ok("{\"shareCredentialsVersion\":2,\"type\":\"bearer_token\",\"endpoint\":\"https://h\","
	             "\"bearerToken\":\"t\"}");
	assert_int_equal(dl_sharing_profile_auth(p), DL_SHARING_AUTH_BEARER);
	dl_sharing_profile_free(p);
}

static void errors(void **state)
{
	(void)state;
	expect_error("{\"endpoint\":\"https://h\",\"bearerToken\":\"t\"}", DL_EINVALID,
	             "\"shareCredentialsVersion\" is missing");
	expect_error("{\"shareCredentialsVersion\":1,\"bearerToken\":\"t\"}", DL_EINVALID,
	             "\"endpoint\" is missing");
	expect_error("{\"shareCredentialsVersion\":1,\"endpoint\":\"https://h\"}", DL_EINVALID,
	             "\"bearerToken\" is missing");
	expect_error("{\"shareCredentialsVersion\":1,\"endpoint\":\"https://h\",\"bearerToken\":\"\"}",
	             DL_EINVALID, "non-empty string");
	expect_error("{\"shareCredentialsVersion\":3,\"endpoint\":\"https://h\",\"bearerToken\":\"t\"}",
	             DL_EUNSUPPORTED, "upgrade deltalake");
	expect_error("{\"shareCredentialsVersion\":\"1\",\"endpoint\":\"https://h\",\"bearerToken\":\"t\"}",
	             DL_EINVALID, "positive integer");
	expect_error("{\"shareCredentialsVersion\":1,\"endpoint\":\"file:///etc\",\"bearerToken\":\"t\"}",
	             DL_EINVALID, "http(s) URL");
	expect_error("{\"shareCredentialsVersion\":1,\"endpoint\":\"https://h\",\"bearerToken\":\"t\","
	             "\"expirationTime\":\"soon\"}", DL_EINVALID, "ISO 8601");
	expect_error("{\"shareCredentialsVersion\":2,\"endpoint\":\"https://h\",\"bearerToken\":\"t\"}",
	             DL_EINVALID, "needs \"type\"");
	expect_error("{\"shareCredentialsVersion\":2,\"type\":\"basic\",\"endpoint\":\"https://h\"}",
	             DL_EUNSUPPORTED, "not supported");
	expect_error("{\"shareCredentialsVersion\":2,\"type\":\"oauth_client_credentials\",\"endpoint\":"
	             "\"https://h\",\"tokenEndpoint\":\"https://t\",\"clientId\":\"i\"}", DL_EINVALID,
	             "\"clientSecret\" is missing");
	expect_error("[1]", DL_EINVALID, "JSON object");
	dl_sharing_profile *p;
	assert_int_equal(dl_sharing_profile_parse(&p, "{", 1, "t.share"), DL_ECORRUPT);
	assert_int_equal(dl_sharing_profile_load(&p, "/nonexistent/x.share"), DL_ENOTFOUND);
}

static void table_paths(void **state)
{
	(void)state;
	char *pr, *sh, *sc, *t;
	assert_int_equal(dl_sharing_parse_path(&pr, &sh, &sc, &t, "/a#b/c.share#s.sc.t"), 0);
	assert_string_equal(pr, "/a#b/c.share");
	assert_string_equal(sh, "s");
	assert_string_equal(sc, "sc");
	assert_string_equal(t, "t");
	dl_free(pr);
	dl_free(sh);
	dl_free(sc);
	dl_free(t);
	static const char *const bad[] = {"p.share", "#s.sc.t", "p#s.sc", "p#s.sc.t.u", "p#.sc.t",
	                                  "p#s..t", "p#s.sc."};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(dl_sharing_parse_path(&pr, &sh, &sc, &t, bad[i]), DL_EINVALID);
		assert_null(pr);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v1_example),
		cmocka_unit_test(v2_types),
		cmocka_unit_test(errors),
		cmocka_unit_test(table_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
