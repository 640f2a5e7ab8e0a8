/* Presigned S3 URLs (store_s3_presign.c) against AWS's published example
 * of query-string authentication ("Authenticating Requests: Using Query
 * Parameters", examplebucket/test.txt, 2013-05-24, 86400 s), path-style
 * and session-token forms, and the refusals. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "storage/store_s3.h"
#include "util/error.h"

static dl_s3_config example(void)
{
	dl_s3_config c;
	memset(&c, 0, sizeof c);
	c.bucket = "examplebucket";
	c.region = "us-east-1";
	c.endpoint = "https://s3.amazonaws.com";
	c.virtual_hosted = true;
	c.access_key_id = "AKIAIOSFODNN7EXAMPLE";
	c.secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
	return c;
}

static void test_aws_example(void **state)
{
	(void)state;
	dl_s3_config c = example();
	dl_buf u = DL_BUF_INIT;
	assert_int_equal(dl_s3_presign_get(&u, &c, "test.txt", 86400, "20130524T000000Z"), 0);
	assert_string_equal(u.data,
	                    "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
	                    "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
	                    "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
	                    "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
	dl_buf_free(&u);
}

static void test_path_style_and_token(void **state)
{
	(void)state;
	dl_s3_config c = example();
	c.virtual_hosted = false;
	c.endpoint = "http://127.0.0.1:7480";
	c.session_token = "tok/en+=";
	dl_buf u = DL_BUF_INIT;
	assert_int_equal(dl_s3_presign_get(&u, &c, "t/a=1 b/part-0.parquet", 60, "20240101T000000Z"), 0);
	assert_true(strncmp(u.data, "http://127.0.0.1:7480/examplebucket/t/a%3D1%20b/part-0.parquet?", 63) == 0);
	assert_non_null(strstr(u.data, "&X-Amz-Security-Token=tok%2Fen%2B%3D&X-Amz-SignedHeaders=host&X-Amz-Signature="));
	dl_buf_free(&u);
	assert_int_equal(dl_s3_presign_get(&u, &c, "k", 0, "20240101T000000Z"), DL_EINVALID);
	assert_int_equal(dl_s3_presign_get(&u, &c, "k", 604801, "20240101T000000Z"), DL_EINVALID);
	c.access_key_id = NULL;
	assert_int_equal(dl_s3_presign_get(&u, &c, "k", 60, "20240101T000000Z"), DL_EINVALID);
	dl_buf_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aws_example),
		cmocka_unit_test(test_path_style_and_token),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
