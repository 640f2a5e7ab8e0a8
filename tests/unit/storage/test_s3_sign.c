/* SigV4 as S3 checks it: the signatures of the worked examples in the S3
 * API reference ("Signature Calculations for the Authorization Header:
 * Transferring Payload in a Single Chunk"), which use the documented
 * example key pair. A signer that differs in one byte of the canonical
 * request gives a different signature, and every request fails with 403. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "storage/store_s3.h"

#define AKID "AKIAIOSFODNN7EXAMPLE"
#define SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define EMPTY_SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static const char *sig_of(const char *auth)
{
	const char *p = strstr(auth, "Signature=");
	return p ? p + 10 : "";
}

static void get_object_with_range(void **state)
{
	(void)state;
	const char *extra[] = {"range:bytes=0-9"};
	dl_s3_sign_input in = {
		.method = "GET", .host = "examplebucket.s3.amazonaws.com", .canonical_uri = "/test.txt",
		.canonical_query = "", .extra = extra, .nextra = 1, .payload_sha256 = EMPTY_SHA,
		.amz_date = "20130524T000000Z", .region = "us-east-1", .service = "s3",
		.access_key_id = AKID, .secret_access_key = SECRET,
	};
	dl_buf a = DL_BUF_INIT;
	assert_int_equal(dl_s3_sign(&a, &in), 0);
	assert_string_equal(sig_of(a.data), "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
	assert_non_null(strstr(a.data, "Credential=" AKID "/20130524/us-east-1/s3/aws4_request"));
	assert_non_null(strstr(a.data, "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"));
	dl_buf_free(&a);
}

static void list_objects(void **state)
{
	(void)state;
	dl_s3_sign_input in = {
		.method = "GET", .host = "examplebucket.s3.amazonaws.com", .canonical_uri = "/",
		.canonical_query = "max-keys=2&prefix=J", .payload_sha256 = EMPTY_SHA,
		.amz_date = "20130524T000000Z", .region = "us-east-1", .service = "s3",
		.access_key_id = AKID, .secret_access_key = SECRET,
	};
	dl_buf a = DL_BUF_INIT;
	assert_int_equal(dl_s3_sign(&a, &in), 0);
	assert_string_equal(sig_of(a.data), "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
	dl_buf_free(&a);
}

static void subresource_without_value(void **state)
{
	(void)state;
	/* "?lifecycle" is canonicalized as "lifecycle=" */
	dl_s3_sign_input in = {
		.method = "GET", .host = "examplebucket.s3.amazonaws.com", .canonical_uri = "/",
		.canonical_query = "lifecycle=", .payload_sha256 = EMPTY_SHA,
		.amz_date = "20130524T000000Z", .region = "us-east-1", .service = "s3",
		.access_key_id = AKID, .secret_access_key = SECRET,
	};
	dl_buf a = DL_BUF_INIT;
	assert_int_equal(dl_s3_sign(&a, &in), 0);
	assert_string_equal(sig_of(a.data), "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
	dl_buf_free(&a);
}

static void session_token_is_signed(void **state)
{
	(void)state;
	dl_s3_sign_input in = {
		.method = "GET", .host = "h", .canonical_uri = "/", .canonical_query = "",
		.payload_sha256 = EMPTY_SHA, .amz_date = "20130524T000000Z", .region = "us-east-1",
		.service = "s3", .access_key_id = AKID, .secret_access_key = SECRET, .session_token = "tok",
	};
	dl_buf a = DL_BUF_INIT, b = DL_BUF_INIT;
	assert_int_equal(dl_s3_sign(&a, &in), 0);
	assert_non_null(strstr(a.data, "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"));
	in.session_token = "other";
	assert_int_equal(dl_s3_sign(&b, &in), 0);
	assert_string_not_equal(sig_of(a.data), sig_of(b.data));
	dl_buf_free(&a);
	dl_buf_free(&b);
}

static void sha256_of_empty(void **state)
{
	(void)state;
	char h[65];
	dl_s3_sha256_hex(h, NULL, 0);
	assert_string_equal(h, EMPTY_SHA);
	dl_s3_sha256_hex(h, "abc", 3);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(get_object_with_range),
		cmocka_unit_test(list_objects),
		cmocka_unit_test(subresource_without_value),
		cmocka_unit_test(session_token_is_signed),
		cmocka_unit_test(sha256_of_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
