/* What the Azure backend reads: the URI forms Delta, Hadoop and delta-rs
 * users write, the store options, the environment, connection strings and
 * the emulator's defaults, which place wins, and the errors for what is
 * missing or unsafe (none of which may show a key). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "storage/store_azure.h"
#include "util/error.h"
#include "util/mem.h"

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

#define KEY_B64 "c2VjcmV0LWtleS1mb3ItdGVzdHM=" /* "secret-key-for-tests" */

static void abfss_and_wasbs(void **state)
{
	(void)state;
	static const char *const env[] = {"AZURE_STORAGE_ACCOUNT_KEY", KEY_B64, NULL};
	g_env = env;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	dl_az_config c;
	assert_int_equal(dl_az_config_load(&c, "abfss://data@myacct.dfs.core.windows.net/tables//events/", &o,
	                                   fake_env), 0);
	assert_string_equal(c.container, "data");
	assert_string_equal(c.account, "myacct");
	assert_string_equal(c.prefix, "tables/events/");
	/* ADLS Gen2 is served through its Blob endpoint */
	assert_string_equal(c.endpoint, "https://myacct.blob.core.windows.net");
	assert_int_equal(c.key_len, 20);
	assert_memory_equal(c.key, "secret-key-for-tests", 20);
	assert_null(c.sas);
	assert_string_equal(c.cred_source, "environment (AZURE_STORAGE_ACCOUNT_KEY)");
	dl_az_config_free(&c);
	/* another cloud's suffix stays */
	assert_int_equal(dl_az_config_load(&c, "wasbs://logs@acct2.blob.core.chinacloudapi.cn/x", &o, fake_env), 0);
	assert_string_equal(c.endpoint, "https://acct2.blob.core.chinacloudapi.cn");
	assert_string_equal(c.prefix, "x/");
	dl_az_config_free(&c);
	assert_int_equal(dl_az_config_load(&c, "abfs://data@acct3.dfs.core.windows.net", &o, fake_env), 0);
	assert_string_equal(c.prefix, "");
	assert_string_equal(c.endpoint, "https://acct3.blob.core.windows.net");
	dl_az_config_free(&c);
}

static void az_takes_the_account_from_settings(void **state)
{
	(void)state;
	static const char *const env[] = {"AZURE_STORAGE_ACCOUNT_NAME", "envacct", "AZURE_STORAGE_SAS_TOKEN",
	                                  "?sv=2021&sig=abc%3D", NULL};
	g_env = env;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	dl_az_config c;
	assert_int_equal(dl_az_config_load(&c, "az://box/t", &o, fake_env), 0);
	assert_string_equal(c.account, "envacct");
	assert_string_equal(c.container, "box");
	assert_string_equal(c.prefix, "t/");
	assert_string_equal(c.endpoint, "https://envacct.blob.core.windows.net");
	assert_null(c.key);
	assert_string_equal(c.sas, "sv=2021&sig=abc%3D"); /* the '?' dropped */
	dl_az_config_free(&c);
	/* the options win over the environment, credentials as a whole */
	const char *kv[] = {"azure.account_name", "optacct", "azure.account_key", KEY_B64};
	o = opts_of(kv, 2);
	assert_int_equal(dl_az_config_load(&c, "azure://box", &o, fake_env), 0);
	assert_string_equal(c.account, "optacct");
	assert_non_null(c.key);
	assert_null(c.sas);
	assert_string_equal(c.cred_source, "store options");
	dl_az_config_free(&c);
	/* the URI's account wins over the settings' */
	assert_int_equal(dl_az_config_load(&c, "abfss://box@uriacct.dfs.core.windows.net/t", &o, fake_env), 0);
	assert_string_equal(c.account, "uriacct");
	dl_az_config_free(&c);
}

static void emulator_and_endpoints(void **state)
{
	(void)state;
	g_env = NULL;
	const char *kv[] = {"azure.use_emulator", "true"};
	dl_store_options o = opts_of(kv, 1);
	dl_az_config c;
	assert_int_equal(dl_az_config_load(&c, "az://box/t", &o, fake_env), 0);
	assert_string_equal(c.account, DL_AZ_EMULATOR_ACCOUNT);
	assert_string_equal(c.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
	assert_true(c.allow_http);
	assert_int_equal(c.key_len, 64);
	dl_az_config_free(&c);
	/* an explicit endpoint (as delta-rs's azure_storage_endpoint) names the
	 * account in its path; plain http needs consent */
	static const char *const env[] = {"AZURE_STORAGE_ACCOUNT_KEY", KEY_B64, NULL};
	g_env = env;
	const char *kv2[] = {"endpoint", "http://127.0.0.1:10000/devstoreaccount1/"};
	o = opts_of(kv2, 1);
	assert_int_equal(dl_az_config_load(&c, "az://box/t", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "azure_allow_http=true"));
	const char *kv3[] = {"endpoint", "http://127.0.0.1:10000/devstoreaccount1/", "azure.allow_http", "true"};
	o = opts_of(kv3, 2);
	assert_int_equal(dl_az_config_load(&c, "az://box/t", &o, fake_env), 0);
	assert_string_equal(c.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
	assert_string_equal(c.account, "devstoreaccount1");
	dl_az_config_free(&c);
	const char *kv4[] = {"endpoint", "ftp://x"};
	o = opts_of(kv4, 1);
	assert_int_equal(dl_az_config_load(&c, "az://box/t", &o, fake_env), DL_EINVALID);
}

static void connection_strings(void **state)
{
	(void)state;
	static const char *const env[] = {
		"AZURE_STORAGE_CONNECTION_STRING",
		"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" KEY_B64
		";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/x;",
		NULL};
	g_env = env;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	dl_az_config c;
	assert_int_equal(dl_az_config_load(&c, "az://box", &o, fake_env), 0);
	assert_string_equal(c.account, "devstoreaccount1");
	assert_string_equal(c.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
	assert_true(c.allow_http);
	assert_int_equal(c.key_len, 20);
	assert_string_equal(c.cred_source, "environment (AZURE_STORAGE_CONNECTION_STRING)");
	dl_az_config_free(&c);
	const char *kv[] = {"azure.connection_string",
	                    "AccountName=prod1;SharedAccessSignature=sv=1&sig=x;EndpointSuffix=core.usgovcloudapi.net"};
	o = opts_of(kv, 1);
	assert_int_equal(dl_az_config_load(&c, "az://box", &o, fake_env), 0);
	assert_string_equal(c.endpoint, "https://prod1.blob.core.usgovcloudapi.net");
	assert_string_equal(c.sas, "sv=1&sig=x");
	dl_az_config_free(&c);
	const char *kv2[] = {"azure.connection_string", "AccountName=prod1;AccountKey"};
	o = opts_of(kv2, 1);
	assert_int_equal(dl_az_config_load(&c, "az://box", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "without '='"));
}

static void errors_name_the_problem(void **state)
{
	(void)state;
	g_env = NULL;
	dl_store_options o = DL_STORE_OPTIONS_INIT;
	dl_az_config c;
	assert_int_equal(dl_az_config_load(&c, "az://box/t", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "no Azure storage account"));
	assert_int_equal(dl_az_config_load(&c, "abfss://box@acct.dfs.core.windows.net/t", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "no Azure credentials found"));
	assert_int_equal(dl_az_config_load(&c, "az:///t", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "has no container"));
	assert_int_equal(dl_az_config_load(&c, "az://Box_1/t", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "container name \"Box_1\""));
	assert_int_equal(dl_az_config_load(&c, "abfss://box@My.Acct.dfs.core.windows.net/", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "account name \"My\""));
	/* a bad key: named by where it came from, never shown */
	const char *kv[] = {"azure.account_name", "acct", "azure.account_key", "s3cr3t!!x"};
	o = opts_of(kv, 2);
	assert_int_equal(dl_az_config_load(&c, "az://box", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "not base64"));
	assert_null(strstr(dl_error_last()->message, "s3cr3t"));
	const char *kv2[] = {"azure.bogus", "1"};
	o = opts_of(kv2, 1);
	assert_int_equal(dl_az_config_load(&c, "az://box", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "azure.bogus"));
	const char *kv3[] = {"azure.account_name", "acct", "azure.skip_signature", "true", "azure.block_size", "10"};
	o = opts_of(kv3, 3);
	assert_int_equal(dl_az_config_load(&c, "az://box", &o, fake_env), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "azure.block_size"));
	/* anonymous: no credentials needed */
	const char *kv4[] = {"azure.account_name", "acct", "azure.skip_signature", "true"};
	o = opts_of(kv4, 2);
	assert_int_equal(dl_az_config_load(&c, "az://box", &o, fake_env), 0);
	assert_null(c.key);
	assert_null(c.sas);
	assert_int_equal(c.block_size, 8u << 20);
	dl_az_config_free(&c);
}

/* Blob Batch answers as the REST reference shows them: parts by Content-ID
 * in any order, a subrequest's error code, the whole batch refused, and
 * bodies that are not such an answer. */
static void batch_answers(void **state)
{
	(void)state;
	const char *ok =
		"--batchresponse_66925647-d0cb-4109-b6d3-28efe3e1e5ed\r\n"
		"Content-Type: application/http\r\nContent-ID: 1\r\n\r\n"
		"HTTP/1.1 404 The specified blob does not exist.\r\nx-ms-error-code: BlobNotFound\r\n"
		"x-ms-request-id: 778fdc83-801e-0000-62ff-0334671e2852\r\nx-ms-version: 2018-11-09\r\n"
		"Content-Length: 216\r\nContent-Type: application/xml\r\n\r\n"
		"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Error><Code>BlobNotFound</Code></Error>\r\n"
		"--batchresponse_66925647-d0cb-4109-b6d3-28efe3e1e5ed\r\n"
		"Content-Type: application/http\r\nContent-ID: 0\r\n\r\n"
		"HTTP/1.1 202 Accepted\r\nx-ms-delete-type-permanent: true\r\nx-ms-version: 2018-11-09\r\n\r\n"
		"--batchresponse_66925647-d0cb-4109-b6d3-28efe3e1e5ed\r\n"
		"Content-Type: application/http\r\nContent-ID: 2\r\n\r\n"
		"HTTP/1.1 412 There is currently a lease on the blob and no lease ID was specified in the request.\r\n"
		"x-ms-error-code: LeaseIdMissing\r\n\r\n"
		"--batchresponse_66925647-d0cb-4109-b6d3-28efe3e1e5ed--\r\n";
	dl_az_batch_result r[3];
	assert_int_equal(dl_az_batch_parse(r, 3, ok, strlen(ok), "az://c/t"), 0);
	assert_int_equal(r[0].status, 202);
	assert_string_equal(r[0].error_code, "");
	assert_int_equal(r[1].status, 404);
	assert_string_equal(r[1].error_code, "BlobNotFound");
	assert_int_equal(r[2].status, 412);
	assert_string_equal(r[2].error_code, "LeaseIdMissing");
	/* an answer missing for a subrequest that was sent */
	dl_az_batch_result r4[4];
	assert_int_equal(dl_az_batch_parse(r4, 4, ok, strlen(ok), "az://c/t"), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "subrequest 3 of 4"));
	/* more answers than subrequests */
	assert_int_equal(dl_az_batch_parse(r, 2, ok, strlen(ok), "az://c/t"), DL_ECORRUPT);
	/* the whole batch refused: one part without a Content-ID */
	const char *refused = "--batchresponse_x\r\nContent-Type: application/http\r\n\r\n"
	                      "HTTP/1.1 400 One of the request inputs is not valid.\r\n"
	                      "x-ms-error-code: InvalidInput\r\n\r\n--batchresponse_x--\r\n";
	assert_int_equal(dl_az_batch_parse(r, 3, refused, strlen(refused), "az://c/t"), DL_EIO);
	assert_non_null(strstr(dl_error_last()->message, "InvalidInput"));
	assert_non_null(strstr(dl_error_last()->message, "az://c/t"));
	/* not multipart; cut off inside a part */
	const char *xml = "<?xml version=\"1.0\"?><Error/>";
	assert_int_equal(dl_az_batch_parse(r, 1, xml, strlen(xml), "az://c/t"), DL_ECORRUPT);
	const char *cut = "--b\r\nContent-ID: 0\r\n\r\nHTTP/1.1 202 Accepted\r\n";
	assert_int_equal(dl_az_batch_parse(r, 1, cut, strlen(cut), "az://c/t"), DL_ECORRUPT);
	assert_int_equal(dl_az_batch_parse(r, 1, "", 0, "az://c/t"), DL_ECORRUPT);
	dl_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(abfss_and_wasbs),
		cmocka_unit_test(az_takes_the_account_from_settings),
		cmocka_unit_test(emulator_and_endpoints),
		cmocka_unit_test(connection_strings),
		cmocka_unit_test(errors_name_the_problem),
		cmocka_unit_test(batch_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
