/* What the S3 backend reads: its URIs, options, environment and ~/.aws
 * files (which place wins), the XML of listings and errors, URL encoding
 * of keys and the two date formats S3 sends. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "storage/store_s3.h"
#include "util/error.h"
#include "util/mem.h"

/* ---- a fake environment ---- */
static const char *const *g_env;
static const char *fake_env(const char *name)
{
	for (const char *const *e = g_env; e && *e; e += 2)
		if (strcmp(e[0], name) == 0) return e[1];
	return NULL;
}

static dl_store_options opts_of(const char **kv, int n)
{
	static const char *keys[16], *vals[16];
	for (int i = 0; i < n; i++) {
		keys[i] = kv[2 * i];
		vals[i] = kv[2 * i + 1];
	}
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	o.keys = keys;
	o.values = vals;
	o.noptions = n;
	return o;
}

static void uri_and_defaults(void **state)
{
	(void)state;
	static const char *const env[] = {"AWS_ACCESS_KEY_ID", "AK", "AWS_SECRET_ACCESS_KEY", "SK", NULL};
	g_env = env;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	dl_s3_config c;
	assert_int_equal(dl_s3_config_load(&c, "s3://bucket//a/b/", &o, fake_env, "/nonexistent"), 0);
	assert_string_equal(c.bucket, "bucket");
	assert_string_equal(c.prefix, "a/b/");
	assert_string_equal(c.region, "us-east-1");
	assert_string_equal(c.endpoint, "https://s3.us-east-1.amazonaws.com");
	assert_true(c.virtual_hosted); /* AWS itself */
	assert_string_equal(c.access_key_id, "AK");
	assert_string_equal(c.secret_access_key, "SK");
	assert_null(c.session_token);
	dl_s3_config_free(&c);
	assert_int_equal(dl_s3_config_load(&c, "s3a://bucket", &o, fake_env, "/nonexistent"), 0);
	assert_string_equal(c.prefix, "");
	dl_s3_config_free(&c);
	assert_int_equal(dl_s3_config_load(&c, "s3:///t", &o, fake_env, "/nonexistent"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "no bucket"));
	assert_int_equal(dl_s3_config_load(&c, "s3://bad bucket/t", &o, fake_env, "/nonexistent"), DL_EINVALID);
}

static void options_win_over_environment(void **state)
{
	(void)state;
	static const char *const env[] = {"AWS_ACCESS_KEY_ID", "envkey", "AWS_SECRET_ACCESS_KEY", "envsecret",
	                                  "AWS_REGION", "eu-west-1", "AWS_ENDPOINT_URL", "https://env.example",
	                                  NULL};
	g_env = env;
	const char *kv[] = {"access_key_id", "optkey", "secret_access_key", "optsecret", "region", "ap-south-1",
	                    "endpoint", "http://127.0.0.1:9000/", "s3.allow_http", "true"};
	dl_store_options o = opts_of(kv, 5);
	dl_s3_config c;
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &o, fake_env, "/nonexistent"), 0);
	assert_string_equal(c.access_key_id, "optkey");
	assert_string_equal(c.secret_access_key, "optsecret");
	assert_string_equal(c.region, "ap-south-1");
	assert_string_equal(c.endpoint, "http://127.0.0.1:9000");
	assert_false(c.virtual_hosted); /* path-style with a custom endpoint */
	dl_s3_config_free(&c);

	/* the environment when the options say nothing */
	dl_store_options none = DL_STORE_OPTIONS_INIT;
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &none, fake_env, "/nonexistent"), 0);
	assert_string_equal(c.access_key_id, "envkey");
	assert_string_equal(c.region, "eu-west-1");
	assert_string_equal(c.endpoint, "https://env.example");
	dl_s3_config_free(&c);
}

static void plain_http_needs_consent(void **state)
{
	(void)state;
	static const char *const env[] = {"AWS_ACCESS_KEY_ID", "k", "AWS_SECRET_ACCESS_KEY", "s",
	                                  "AWS_ENDPOINT_URL", "http://127.0.0.1:1", NULL};
	g_env = env;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	dl_s3_config c;
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &o, fake_env, "/nonexistent"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "s3.allow_http=true"));
	const char *kv[] = {"s3.allow_http", "maybe"};
	o = opts_of(kv, 1);
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &o, fake_env, "/nonexistent"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "true or false"));
	const char *bad[] = {"s3.no_such_option", "1"};
	o = opts_of(bad, 1);
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &o, fake_env, "/nonexistent"), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "s3.no_such_option"));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void profiles_from_aws_files(void **state)
{
	(void)state;
	char home[] = "/tmp/dl-s3-home-XXXXXX";
	assert_non_null(mkdtemp(home));
	char dir[256], cred[300], conf[300];
	snprintf(dir, sizeof dir, "%s/.aws", home);
	mkdir(dir, 0700);
	snprintf(cred, sizeof cred, "%s/credentials", dir);
	snprintf(conf, sizeof conf, "%s/config", dir);
	write_file(cred, "[default]\naws_access_key_id = defkey\naws_secret_access_key = defsecret\n\n"
	                 "# a comment\n[work]\naws_access_key_id=workkey\naws_secret_access_key = worksecret\n"
	                 "aws_session_token = worktoken\n");
	write_file(conf, "[default]\nregion = us-west-2\n[profile work]\nregion = eu-central-1\n"
	                 "endpoint_url = https://work.example\n");
	static const char *const env_default[] = {NULL};
	g_env = env_default;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	dl_s3_config c;
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &o, fake_env, home), 0);
	assert_string_equal(c.access_key_id, "defkey");
	assert_string_equal(c.region, "us-west-2");
	dl_s3_config_free(&c);
	static const char *const env_work[] = {"AWS_PROFILE", "work", "AWS_ACCESS_KEY_ID", "envkey",
	                                       "AWS_SECRET_ACCESS_KEY", "envsecret", NULL};
	g_env = env_work;
	/* a named profile is asked for: it wins over the environment's keys */
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &o, fake_env, home), 0);
	assert_string_equal(c.access_key_id, "workkey");
	assert_string_equal(c.secret_access_key, "worksecret");
	assert_string_equal(c.session_token, "worktoken");
	assert_string_equal(c.region, "eu-central-1");
	assert_string_equal(c.endpoint, "https://work.example");
	dl_s3_config_free(&c);
	static const char *const env_missing[] = {"AWS_PROFILE", "nosuch", NULL};
	g_env = env_missing;
	assert_int_equal(dl_s3_config_load(&c, "s3://b/t", &o, fake_env, home), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "\"nosuch\""));
	unlink(cred);
	unlink(conf);
	rmdir(dir);
	rmdir(home);
}

static void list_xml(void **state)
{
	(void)state;
	const char *x =
		"<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>true</IsTruncated>"
		"<Contents><Key>t/_delta_log/a%20b%26c.json</Key><LastModified>2024-01-31T12:00:00.250Z</LastModified>"
		"<Size>42</Size></Contents>"
		"<Contents><Key>t/x&amp;y</Key><Size>7</Size></Contents>"
		"<NextContinuationToken>tok/+=</NextContinuationToken></ListBucketResult>";
	size_t len = strlen(x), s, e;
	assert_int_equal(dl_s3_xml_element(&s, &e, x, len, 0, "Contents"), 0);
	char *key, *size, *lm, *dec;
	assert_int_equal(dl_s3_xml_text(&key, x + s, e - s, 0, "Key", NULL), 0);
	assert_int_equal(dl_http_decode(&dec, key, strlen(key)), 0);
	assert_string_equal(dec, "t/_delta_log/a b&c.json");
	assert_int_equal(dl_s3_xml_text(&size, x + s, e - s, 0, "Size", NULL), 0);
	assert_string_equal(size, "42");
	assert_int_equal(dl_s3_xml_text(&lm, x + s, e - s, 0, "LastModified", NULL), 0);
	assert_int_equal(dl_http_parse_date(lm), 1706702400250LL);
	dl_free(key);
	dl_free(dec);
	dl_free(size);
	dl_free(lm);
	size_t s2, e2;
	assert_int_equal(dl_s3_xml_element(&s2, &e2, x, len, e, "Contents"), 0);
	assert_int_equal(dl_s3_xml_text(&key, x + s2, e2 - s2, 0, "Key", NULL), 0);
	assert_string_equal(key, "t/x&y");
	dl_free(key);
	assert_int_equal(dl_s3_xml_element(&s, &e, x, len, e2, "Contents"), DL_ENOTFOUND);
	char *tok;
	assert_int_equal(dl_s3_xml_text(&tok, x, len, 0, "NextContinuationToken", NULL), 0);
	assert_string_equal(tok, "tok/+=");
	dl_free(tok);
	/* an empty element and a character reference */
	const char *err = "<Error><Code>NoSuchKey</Code><Message/><Resource>a&#233;&#x42;</Resource></Error>";
	char *m;
	assert_int_equal(dl_s3_xml_text(&m, err, strlen(err), 0, "Message", NULL), 0);
	assert_string_equal(m, "");
	dl_free(m);
	assert_int_equal(dl_s3_xml_text(&m, err, strlen(err), 0, "Resource", NULL), 0);
	assert_string_equal(m, "a\xc3\xa9" "B");
	dl_free(m);
	assert_int_equal(dl_s3_xml_text(&m, "<A>x&bogus;</A>", 15, 0, "A", NULL), DL_ECORRUPT);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_s3_xml_escape(&b, "\"a<b>&'"), 0);
	assert_string_equal(b.data, "&quot;a&lt;b&gt;&amp;&apos;");
	dl_buf_free(&b);
}

static void encoding_and_dates(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	const char *k = "t/part-0 a+b=c%~.parquet";
	assert_int_equal(dl_http_encode(&b, k, strlen(k), true), 0);
	assert_string_equal(b.data, "t/part-0%20a%2Bb%3Dc%25~.parquet");
	dl_buf_clear(&b);
	assert_int_equal(dl_http_encode(&b, "a/b", 3, false), 0);
	assert_string_equal(b.data, "a%2Fb");
	dl_buf_free(&b);
	char *d;
	assert_int_equal(dl_http_decode(&d, "a%2", 3), DL_ECORRUPT);
	assert_int_equal(dl_http_decode(&d, "a%zz", 4), DL_ECORRUPT);
	assert_int_equal(dl_http_parse_date("Wed, 31 Jan 2024 12:00:00 GMT"), 1706702400000LL);
	assert_int_equal(dl_http_parse_date("2024-01-31T12:00:00Z"), 1706702400000LL);
	assert_int_equal(dl_http_parse_date("yesterday"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uri_and_defaults),
		cmocka_unit_test(options_win_over_environment),
		cmocka_unit_test(plain_http_needs_consent),
		cmocka_unit_test(profiles_from_aws_files),
		cmocka_unit_test(list_xml),
		cmocka_unit_test(encoding_and_dates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
