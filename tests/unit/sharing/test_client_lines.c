/* The NDJSON lines of query/metadata/changes answers in both response
 * formats (PROTOCOL.md's examples), and the refusals of malformed ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "deltalake/error.h"
#include "deltalake/sharing.h"

typedef struct got {
	dl_sharing_line l;
	char url[512], id[64], pv[128], stats[256], action[1024], meta[1024], proto[256];
	int n;
} got;

static void cp(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

static int keep(const dl_sharing_line *l, void *p)
{
	got *g = p;
	g->l = *l;
	cp(g->url, sizeof g->url, l->url);
	cp(g->id, sizeof g->id, l->id);
	cp(g->pv, sizeof g->pv, l->partition_values);
	cp(g->stats, sizeof g->stats, l->stats);
	cp(g->action, sizeof g->action, l->delta_action);
	cp(g->meta, sizeof g->meta, l->metadata);
	cp(g->proto, sizeof g->proto, l->delta_protocol);
	g->n++;
	return 0;
}

static got parse(const char *s, int want_rc)
{
	got g;
	memset(&g, 0, sizeof g);
	int rc = dl_sharing_parse_line(s, strlen(s), 7, "answer", keep, &g);
	if (rc != want_rc) fail_msg("rc %d: %s", rc, rc ? dl_error_last()->message : "");
	return g;
}

static void parquet_format(void **state)
{
	(void)state;
	got g = parse("{\"protocol\":{\"minReaderVersion\":1}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_PROTOCOL);
	assert_int_equal(g.l.delta_format, 0);
	g = parse("{\"metaData\":{\"id\":\"f8d5\",\"format\":{\"provider\":\"parquet\"},\"schemaString\":"
	          "\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[\"date\"],"
	          "\"version\":20,\"size\":123456,\"numFiles\":5}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_METADATA);
	assert_int_equal(g.l.version, 20);
	assert_int_equal(g.l.num_files, 5);
	assert_non_null(strstr(g.meta, "\"partitionColumns\":[\"date\"]"));
	g = parse("{\"file\":{\"url\":\"https://b.s3/x.parquet?X-Amz-Signature=97\",\"id\":\"8b00\","
	          "\"partitionValues\":{\"date\":\"2021-04-28\"},\"size\":573,\"stats\":\"{\\\"numRecords\\\":1}\","
	          "\"expirationTimestamp\":1652140800000}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_FILE);
	assert_string_equal(g.url, "https://b.s3/x.parquet?X-Amz-Signature=97");
	assert_string_equal(g.id, "8b00");
	assert_string_equal(g.pv, "{\"date\":\"2021-04-28\"}");
	assert_string_equal(g.stats, "{\"numRecords\":1}");
	assert_int_equal(g.l.size, 573);
	assert_int_equal(g.l.expiration_ms, INT64_C(1652140800000));
	assert_int_equal(g.l.version, -1);
	g = parse("{\"cdf\":{\"url\":\"https://u\",\"id\":\"5917\",\"partitionValues\":{},\"size\":689,"
	          "\"timestamp\":1652141000000,\"version\":1}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_CDF);
	assert_int_equal(g.l.version, 1);
	assert_int_equal(g.l.timestamp, INT64_C(1652141000000));
	g = parse("{\"remove\":{\"url\":\"https://u\",\"id\":\"8b\",\"partitionValues\":{},\"size\":1,"
	          "\"timestamp\":1,\"version\":2}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_REMOVE);
}

static void delta_format(void **state)
{
	(void)state;
	got g = parse("{\"protocol\":{\"deltaProtocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7}}}", 0);
	assert_int_equal(g.l.delta_format, 1);
	assert_int_equal(g.l.min_reader_version, 3);
	assert_string_equal(g.proto, "{\"minReaderVersion\":3,\"minWriterVersion\":7}");
	g = parse("{\"metaData\":{\"version\":20,\"deltaMetadata\":{\"id\":\"x\",\"format\":{\"provider\":"
	          "\"parquet\"},\"schemaString\":\"{}\",\"partitionColumns\":[]}}}", 0);
	assert_int_equal(g.l.delta_format, 1);
	assert_int_equal(g.l.version, 20);
	assert_non_null(strstr(g.meta, "\"id\":\"x\""));
	g = parse("{\"file\":{\"id\":\"5917\",\"deletionVectorFileId\":\"dv1\",\"expirationTimestamp\":"
	          "1652140800000,\"deltaSingleAction\":{\"add\":{\"path\":\"https://b/p.parquet?sig\","
	          "\"partitionValues\":{\"date\":\"2021-04-28\"},\"size\":573,\"deletionVector\":"
	          "{\"storageType\":\"p\",\"pathOrInlineDv\":\"https://b/dv.bin?sig\",\"offset\":1,"
	          "\"sizeInBytes\":34,\"cardinality\":1}}}}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_FILE);
	assert_int_equal(g.l.delta_format, 1);
	assert_string_equal(g.url, "https://b/p.parquet?sig");
	assert_string_equal(g.id, "5917");
	assert_int_equal(g.l.size, 573);
	assert_non_null(strstr(g.action, "\"deletionVector\""));
	g = parse("{\"file\":{\"id\":\"c\",\"deltaSingleAction\":{\"cdc\":{\"path\":\"https://c\","
	          "\"partitionValues\":{},\"size\":2,\"dataChange\":false}}}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_CDF);
	g = parse("{\"endStreamAction\":{\"refreshToken\":\"r\",\"minUrlExpirationTimestamp\":5}}", 0);
	assert_int_equal(g.l.kind, DL_SHARING_END_STREAM);
	assert_int_equal(g.l.expiration_ms, 5);
}

static void refusals(void **state)
{
	(void)state;
	parse("[]", DL_ECORRUPT);
	parse("{}", DL_ECORRUPT);
	parse("{\"protocol\":{\"minReaderVersion\":1},\"file\":{}}", DL_ECORRUPT);
	parse("{\"protocol\":{\"minReaderVersion\":2}}", DL_EUNSUPPORTED);
	parse("{\"protocol\":{}}", DL_ECORRUPT);
	parse("{\"metaData\":{\"id\":\"x\"}}", DL_ECORRUPT);
	parse("{\"file\":{\"id\":\"x\",\"size\":1}}", DL_ECORRUPT);                       /* no url */
	parse("{\"file\":{\"url\":\"u\",\"id\":\"x\"}}", DL_ECORRUPT);                    /* no size */
	parse("{\"file\":{\"url\":\"u\",\"id\":\"x\",\"size\":\"1\"}}", DL_ECORRUPT);
	parse("{\"file\":{\"url\":\"u\",\"id\":\"x\",\"size\":1,\"partitionValues\":[]}}", DL_ECORRUPT);
	parse("{\"file\":{\"id\":\"x\",\"deltaSingleAction\":{\"metaData\":{}}}}", DL_ECORRUPT);
	parse("{\"file\":{\"id\":\"x\",\"deltaSingleAction\":{\"add\":{\"size\":1}}}}", DL_ECORRUPT);
	parse("{\"file\":", DL_ECORRUPT);
	const char *m = dl_error_last()->message;
	assert_non_null(strstr(m, "answer"));
	parse("{\"file\":{\"url\":\"u\",\"id\":\"x\"}}", DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "line 7"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parquet_format),
		cmocka_unit_test(delta_format),
		cmocka_unit_test(refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
