/* The DOM-free add scanner agrees with the DOM path, and declines what it
 * does not handle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "unit/log/add_scan_check.h"

static void agrees_or_declines(void **state)
{
	(void)state;
	static const struct { const char *line; int handled; } cases[] = {
		{"{\"add\":{\"path\":\"part_0/file_0.parquet\",\"partitionValues\":{\"partition_col\":\"part_0\"},"
		 "\"size\":1024,\"modificationTime\":1234567890,\"dataChange\":true}}", 1},
		{"{\"add\": { \"path\" : \"a%20b/c\" , \"partitionValues\" : { } , \"size\" : -0 ,"
		 " \"modificationTime\" : 0 , \"dataChange\" : false } } \r", 1},
		/* unusual spacing before the action name: declined, same result */
		{" {\"add\" : {\"path\":\"p\",\"size\":1}}", 0},
		{"{\"add\":{\"path\":\"file:///x/y\",\"partitionValues\":{\"a\":null,\"b\":\"\\u0041\\n\\\"\"},"
		 "\"size\":9223372036854775807,\"modificationTime\":-9223372036854775808,\"dataChange\":true,"
		 "\"stats\":\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"s\\\":\\\"a\\\\\\\\b\\\"}}\","
		 "\"tags\":{\"INSERTION_TIME\":\"1\"},\"deletionVector\":null,\"baseRowId\":4071,"
		 "\"defaultRowCommitVersion\":null,\"clusteringProvider\":\"liquid\"}}", 1},
		{"{\"add\":{\"size\":1,\"path\":\"p\",\"stats\":null,\"tags\":null}}", 1},
		/* declined: the DOM path decides */
		{"{\"add\":{\"path\":\"p\",\"size\":1,\"deletionVector\":{\"storageType\":\"i\","
		 "\"pathOrInlineDv\":\"x\",\"sizeInBytes\":1,\"cardinality\":1}}}", 0},
		{"{\"add\":{\"path\":\"caf\xc3\xa9\",\"size\":1}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1.0}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":01}}", 0},
		{"{\"add\":{\"path\":\"p\"}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1,\"size\":2}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1,\"futureField\":1}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1},\"remove\":{}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1,\"partitionValues\":{\"a\":1}}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1,\"partitionValues\":{\"a\":\"x\",\"a\":\"y\"}}}", 0},
		{"{\"add\":{\"path\":\"p\\u0000\",\"size\":1}}", 0},
		{"{\"add\":{\"path\":\"bad%zz\",\"size\":1}}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1}} x", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":1}", 0},
		{"{\"add\":{\"path\":\"p\",\"size\":99999999999999999999}}", 0},
		{"{\"remove\":{\"path\":\"p\"}}", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int handled;
		assert_int_equal(add_scan_check(cases[i].line, strlen(cases[i].line), &handled), 0);
		if (handled != cases[i].handled) fprintf(stderr, "case %zu: handled=%d\n", i, handled);
		assert_int_equal(handled, cases[i].handled);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(agrees_or_declines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
