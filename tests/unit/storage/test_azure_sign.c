/* Shared Key signing of Azure Storage requests. The expected strings are
 * written out by hand from the rules of "Authorize with Shared Key" (the
 * Azure Storage REST reference), and the expected signatures were computed
 * apart from this code, with openssl:
 *   printf '<string-to-sign>' | openssl dgst -sha256 -mac HMAC \
 *     -macopt hexkey:<the decoded key in hex> -binary | openssl base64 -A
 * (tests/integration/lib/azure_env.sh signs the tests' own requests the
 * same way, and Azurite checks both). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "storage/store_azure.h"
#include "util/error.h"
#include "util/mem.h"

static void decode_key(uint8_t **key, size_t *len, const char *b64)
{
	assert_int_equal(dl_az_base64_decode(key, len, b64), 0);
}

/* A listing of a container on Azurite's path-style endpoint: no body
 * headers, the account twice in the resource, query parameters sorted. */
static void list_on_emulator(void **state)
{
	(void)state;
	const char *hs[] = {"x-ms-version: 2021-12-02", "x-ms-date: Wed, 02 Dec 2026 01:00:00 GMT"};
	dl_az_query q[] = {{"restype", "container"}, {"comp", "list"}, {"prefix", "a/b/"}, {"include", "metadata"}};
	uint8_t *key;
	size_t klen;
	decode_key(&key, &klen, DL_AZ_EMULATOR_KEY);
	assert_int_equal(klen, 64);
	dl_az_sign_input in = {.method = "GET", .account = "devstoreaccount1", .path = "/devstoreaccount1/mycontainer",
	                       .query = q, .nquery = 4, .headers = hs, .nheaders = 2, .content_length = 0,
	                       .key = key, .key_len = klen};
	dl_buf sts = DL_BUF_INIT, auth = DL_BUF_INIT;
	assert_int_equal(dl_az_string_to_sign(&sts, &in), 0);
	assert_string_equal(sts.data, "GET\n\n\n\n\n\n\n\n\n\n\n\n"
	                              "x-ms-date:Wed, 02 Dec 2026 01:00:00 GMT\nx-ms-version:2021-12-02\n"
	                              "/devstoreaccount1/devstoreaccount1/mycontainer\n"
	                              "comp:list\ninclude:metadata\nprefix:a/b/\nrestype:container");
	assert_int_equal(dl_az_sign(&auth, &in), 0);
	assert_string_equal(auth.data, "SharedKey devstoreaccount1:mrC/2ZrQTAp0v78RsizCssItOidgXvTIexoKgwt6cyY=");
	dl_buf_free(&sts);
	dl_buf_free(&auth);
	dl_free(key);
}

/* A conditional Put Blob: Content-Length, Content-Type and If-None-Match
 * take their places among the standard fields; x-ms-* names are lowered,
 * sorted and their values trimmed and folded; other headers are not
 * signed; the resource keeps the path's encoding. */
static void conditional_put(void **state)
{
	(void)state;
	const char *hs[] = {
		"x-ms-version: 2021-12-02", "If-None-Match: *", "X-Ms-Meta-Note:   two   words  ",
		"Content-Type: application/octet-stream", "x-ms-date: Wed, 02 Dec 2026 01:00:00 GMT",
		"x-ms-blob-type: BlockBlob", "User-Agent: not signed",
	};
	uint8_t *key;
	size_t klen;
	decode_key(&key, &klen, "c2VjcmV0LWtleS1mb3ItdGVzdHM="); /* "secret-key-for-tests" */
	assert_int_equal(klen, 20);
	assert_memory_equal(key, "secret-key-for-tests", 20);
	dl_az_sign_input in = {.method = "PUT", .account = "myaccount", .path = "/c/dir/a%20b.json",
	                       .headers = hs, .nheaders = 7, .content_length = 11, .key = key, .key_len = klen};
	dl_buf sts = DL_BUF_INIT, auth = DL_BUF_INIT;
	assert_int_equal(dl_az_string_to_sign(&sts, &in), 0);
	assert_string_equal(sts.data, "PUT\n\n\n11\n\napplication/octet-stream\n\n\n\n*\n\n\n"
	                              "x-ms-blob-type:BlockBlob\nx-ms-date:Wed, 02 Dec 2026 01:00:00 GMT\n"
	                              "x-ms-meta-note:two words\nx-ms-version:2021-12-02\n"
	                              "/myaccount/c/dir/a%20b.json");
	assert_int_equal(dl_az_sign(&auth, &in), 0);
	assert_string_equal(auth.data, "SharedKey myaccount:PldhMHs9XuZrhLGl8/E/LHdzd715clpQlOJmkD3YxtA=");
	dl_buf_free(&sts);
	dl_buf_free(&auth);
	dl_free(key);
}

/* An empty body signs an empty Content-Length (versions 2015-02-21 on). */
static void empty_body(void **state)
{
	(void)state;
	const char *hs[] = {"x-ms-date: d", "x-ms-version: v"};
	uint8_t k[1] = {1};
	dl_az_sign_input in = {.method = "PUT", .account = "a", .path = "/c/b", .headers = hs, .nheaders = 2,
	                       .content_length = 0, .key = k, .key_len = 1};
	dl_buf sts = DL_BUF_INIT;
	assert_int_equal(dl_az_string_to_sign(&sts, &in), 0);
	assert_string_equal(sts.data, "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:d\nx-ms-version:v\n/a/c/b");
	dl_buf_free(&sts);
}

static void base64_and_dates(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_az_base64(&b, "ab", 2), 0);
	assert_string_equal(b.data, "YWI=");
	dl_buf_free(&b);
	uint8_t *d;
	size_t n;
	assert_int_equal(dl_az_base64_decode(&d, &n, "YWI="), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(d, "ab", 2);
	dl_free(d);
	assert_int_equal(dl_az_base64_decode(&d, &n, "YWJj"), 0);
	assert_int_equal(n, 3);
	dl_free(d);
	assert_int_equal(dl_az_base64_decode(&d, &n, "not base64!"), DL_EINVALID);
	assert_int_equal(dl_az_base64_decode(&d, &n, "****"), DL_EINVALID);
	char date[40];
	dl_az_date(date);
	/* "Wed, 02 Dec 2026 01:00:00 GMT": English names whatever the locale */
	assert_int_equal(strlen(date), 29);
	assert_string_equal(date + 25, " GMT");
	assert_true(date[3] == ',' && date[4] == ' ');
	assert_true(dl_http_parse_date(date) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(list_on_emulator),
		cmocka_unit_test(conditional_put),
		cmocka_unit_test(empty_body),
		cmocka_unit_test(base64_and_dates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
