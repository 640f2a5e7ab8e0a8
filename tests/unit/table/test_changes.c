/* Change data feed, history and detail of a hand-made table:
 *   v0 WRITE   adds part=1/a (DV deletes rows 2, 5) and part=2/b
 *   v1 DELETE  removes part=2/b
 *   v2 DELETE  replaces a's DV {2, 5} by {2, 5, 7} (deletes exactly id 7)
 *   v3 UPDATE  writes cdc file c.parquet (one preimage, one postimage) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "table/scan.h"
#include "table_fixture.h"
#include "util/error.h"

static const char *schema_line =
	"{\"metaData\":{\"id\":\"t1\",\"format\":{\"provider\":\"parquet\",\"options\":{}},\"schemaString\":"
	"\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"id\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,"
	"\\\"metadata\\\":{}},{\\\"name\\\":\\\"name\\\",\\\"type\\\":\\\"string\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}},"
	"{\\\"name\\\":\\\"part\\\",\\\"type\\\":\\\"integer\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
	"\"partitionColumns\":[\"part\"],\"configuration\":{\"delta.enableChangeDataFeed\":\"true\"},\"createdTime\":1}}";

static void make_table(fixture *f)
{
	assert_int_equal(fixture_open(f), 0);
	int64_t a[10], b[10];
	for (int i = 0; i < 10; i++) a[i] = i, b[i] = 10 + i;
	int64_t s1, s2, s3;
	assert_int_equal(fixture_parquet(f, "part=1/a.parquet", fixture_batch("id", a, 10, true, DL_TYPE_LONG), &s1), 0);
	assert_int_equal(fixture_parquet(f, "part=2/b.parquet", fixture_batch("id", b, 10, true, DL_TYPE_LONG), &s2), 0);
	uint64_t d1[] = {2, 5}, d2[] = {2, 5, 7};
	dl_buf dv1 = DL_BUF_INIT, dv2 = DL_BUF_INIT;
	assert_int_equal(fixture_dv(f, d1, 2, &dv1, 1), 0);
	assert_int_equal(fixture_dv(f, d2, 3, &dv2, 2), 0);
	char add1[1024], add2[512], rm2[512], rm1[1024], add1b[1024];
	snprintf(add1, sizeof add1, "{\"add\":{\"path\":\"part=1/a.parquet\",\"partitionValues\":{\"part\":\"1\"},"
	         "\"size\":%lld,\"modificationTime\":1,\"dataChange\":true,\"deletionVector\":%s}}", (long long)s1, dv1.data);
	snprintf(add2, sizeof add2, "{\"add\":{\"path\":\"part=2/b.parquet\",\"partitionValues\":{\"part\":\"2\"},"
	         "\"size\":%lld,\"modificationTime\":1,\"dataChange\":true}}", (long long)s2);
	const char *v0[] = {"{\"commitInfo\":{\"timestamp\":1000,\"operation\":\"WRITE\",\"readVersion\":-1}}",
	                    "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,\"readerFeatures\":"
	                    "[\"deletionVectors\"],\"writerFeatures\":[\"deletionVectors\",\"changeDataFeed\"]}}",
	                    schema_line, add1, add2};
	assert_int_equal(fixture_commit(f, 0, v0, 5), 0);
	snprintf(rm2, sizeof rm2, "{\"remove\":{\"path\":\"part=2/b.parquet\",\"partitionValues\":{\"part\":\"2\"},"
	         "\"size\":%lld,\"deletionTimestamp\":2,\"dataChange\":true}}", (long long)s2);
	const char *v1[] = {"{\"commitInfo\":{\"timestamp\":2000,\"operation\":\"DELETE\",\"readVersion\":0,"
	                    "\"operationMetrics\":{\"numDeletedRows\":\"10\"}}}", rm2};
	assert_int_equal(fixture_commit(f, 1, v1, 2), 0);
	snprintf(rm1, sizeof rm1, "{\"remove\":{\"path\":\"part=1/a.parquet\",\"partitionValues\":{\"part\":\"1\"},"
	         "\"size\":%lld,\"deletionTimestamp\":3,\"dataChange\":true,\"deletionVector\":%s}}", (long long)s1, dv1.data);
	snprintf(add1b, sizeof add1b, "{\"add\":{\"path\":\"part=1/a.parquet\",\"partitionValues\":{\"part\":\"1\"},"
	         "\"size\":%lld,\"modificationTime\":3,\"dataChange\":true,\"deletionVector\":%s}}", (long long)s1, dv2.data);
	const char *v2[] = {"{\"commitInfo\":{\"timestamp\":3000,\"operation\":\"DELETE\"}}", rm1, add1b};
	assert_int_equal(fixture_commit(f, 2, v2, 3), 0);
	/* v3: a cdc file with the change rows (data columns + _change_type) */
	dl_type *lt = dl_type_new(DL_TYPE_LONG), *st = dl_type_new(DL_TYPE_STRING);
	dl_field fs[3] = {{"id", lt, true, "{}"}, {"name", st, true, "{}"}, {"_change_type", st, true, "{}"}};
	dl_type *ct = dl_type_struct(fs, 3);
	dl_batch *cb = dl_batch_new(ct, 2);
	const char *names[] = {"n1", "x1"}, *types[] = {"update_preimage", "update_postimage"};
	for (int c = 0; c < 3; c++) {
		dl_builder *bl;
		dl_builder_new(&bl, c == 0 ? lt : st);
		for (int r = 0; r < 2; r++) {
			if (c == 0) dl_builder_append_int(bl, 1);
			else dl_builder_append_bytes(bl, c == 1 ? names[r] : types[r], strlen(c == 1 ? names[r] : types[r]));
		}
		dl_builder_finish(&cb->cols[c], bl);
		dl_builder_free(bl);
	}
	assert_int_equal(fixture_parquet(f, "_change_data/c.parquet", cb, &s3), 0);
	char cdc[512];
	snprintf(cdc, sizeof cdc, "{\"cdc\":{\"path\":\"_change_data/c.parquet\",\"partitionValues\":{\"part\":\"1\"},"
	         "\"size\":%lld,\"dataChange\":false}}", (long long)s3);
	const char *v3[] = {"{\"commitInfo\":{\"timestamp\":4000,\"operation\":\"UPDATE\"}}", cdc};
	assert_int_equal(fixture_commit(f, 3, v3, 2), 0);
	dl_type_unref(ct);
	dl_type_unref(lt);
	dl_type_unref(st);
	dl_buf_free(&dv1);
	dl_buf_free(&dv2);
}

typedef struct counts {
	int64_t insert, del, pre, post;
	int64_t ids_deleted_v2;
	int64_t max_version;
	int64_t ts[4];
} counts;

static int read_changes(const char *dir, int64_t start, int64_t end, counts *c)
{
	memset(c, 0, sizeof *c);
	dl_changes_options o = DL_CHANGES_OPTIONS_INIT;
	o.start_version = start;
	o.end_version = end;
	dl_batch_stream *bs;
	DL_TRY(dl_changes_batches(&bs, dir, &o));
	const dl_type *s = dl_batch_stream_schema(bs);
	assert_int_equal(s->nchildren, 6);
	assert_string_equal(s->children[3].name, "_change_type");
	assert_string_equal(s->children[4].name, "_commit_version");
	assert_string_equal(s->children[5].name, "_commit_timestamp");
	dl_batch *b;
	int rc;
	while ((rc = dl_batch_stream_next(bs, &b)) == 0 && b) {
		for (int64_t i = 0; i < b->num_rows; i++) {
			const dl_array *t = b->cols[3];
			const char *ty = (const char *)t->data + t->offsets[i];
			int64_t ver = col_i64(b, 4, i);
			if (ver > c->max_version) c->max_version = ver;
			/* file times, made strictly increasing as time travel sees them */
			int64_t ts = col_i64(b, 5, i);
			assert_true(ts > 0 && ts % 1000 == 0);
			if (c->ts[ver] && c->ts[ver] != ts) fail_msg("two timestamps for version %lld", (long long)ver);
			c->ts[ver] = ts;
			if (!strncmp(ty, "insert", 6)) c->insert++;
			else if (!strncmp(ty, "delete", 6)) {
				c->del++;
				if (ver == 2) c->ids_deleted_v2 = col_i64(b, 0, i);
			} else if (!strncmp(ty, "update_pre", 10)) c->pre++;
			else c->post++;
			if (ver == 3) assert_int_equal(col_i64(b, 2, i), 1); /* partition value from the cdc action */
		}
		dl_batch_free(b);
	}
	dl_batch_stream_free(bs);
	return rc;
}

static void change_feed(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	counts c;
	assert_int_equal(read_changes(f.dir, 0, -1, &c), 0);
	assert_int_equal(c.insert, 18);  /* v0: both files minus the DV's rows */
	assert_int_equal(c.del, 10 + 1); /* v1: file b; v2: only row 7 */
	assert_int_equal(c.ids_deleted_v2, 7);
	assert_int_equal(c.pre, 1);
	assert_int_equal(c.post, 1);
	assert_int_equal(c.max_version, 3);
	for (int v = 1; v < 4; v++) assert_true(c.ts[v] > c.ts[v - 1]);
	assert_int_equal(read_changes(f.dir, 1, 1, &c), 0);
	assert_int_equal(c.insert + c.pre + c.post, 0);
	assert_int_equal(c.del, 10);
	/* the errors */
	assert_int_equal(read_changes(f.dir, 2, 1, &c), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "after the end version"));
	assert_int_equal(read_changes(f.dir, 0, 9, &c), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "after the latest version 3"));
	fixture_close(&f);
}

/* A commit turning the feed off fails the whole range up front, before
 * any row; the range before it still reads. */
static void feed_turned_off(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	/* the same metaData with the property set to "false" */
	const char *key = "\"delta.enableChangeDataFeed\":\"true\"";
	const char *at = strstr(schema_line, key);
	assert_non_null(at);
	char off[2048];
	snprintf(off, sizeof off, "%.*s\"delta.enableChangeDataFeed\":\"false\"%s", (int)(at - schema_line), schema_line,
	         at + strlen(key));
	const char *v4[] = {"{\"commitInfo\":{\"timestamp\":5000,\"operation\":\"SET TBLPROPERTIES\"}}", off};
	assert_int_equal(fixture_commit(&f, 4, v4, 2), 0);
	dl_changes_options o = DL_CHANGES_OPTIONS_INIT;
	dl_batch_stream *bs = NULL;
	assert_int_equal(dl_changes_batches(&bs, f.dir, &o), DL_EINVALID);
	assert_null(bs);
	assert_non_null(strstr(dl_error_last()->message, "not enabled at version 4"));
	counts c;
	assert_int_equal(read_changes(f.dir, 0, 3, &c), 0);
	assert_int_equal(c.insert, 18);
	fixture_close(&f);
}

static void history_and_detail(void **state)
{
	(void)state;
	fixture f;
	make_table(&f);
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, f.dir, NULL), 0);
	dl_history *h;
	assert_int_equal(dl_history_open(&h, snap, 3), 0);
	assert_int_equal(dl_history_count(h), 3);
	assert_int_equal(dl_history_at(h, 0)->version, 3);
	assert_string_equal(dl_history_at(h, 0)->operation, "UPDATE");
	assert_int_equal(dl_history_at(h, 2)->version, 1);
	assert_string_equal(dl_history_at(h, 2)->operation_metrics, "{\"numDeletedRows\":\"10\"}");
	assert_int_equal(dl_history_at(h, 2)->read_version, 0);
	dl_history_free(h);
	dl_detail *d;
	const dl_table_detail *td;
	assert_int_equal(dl_detail_open(&d, &td, snap), 0);
	assert_string_equal(td->format, "delta");
	assert_string_equal(td->id, "t1");
	assert_int_equal(td->num_files, 1);
	assert_string_equal(td->partition_columns, "[\"part\"]");
	assert_string_equal(td->properties, "{\"delta.enableChangeDataFeed\":\"true\"}");
	assert_int_equal(td->min_reader_version, 3);
	assert_string_equal(td->table_features, "[\"deletionVectors\",\"changeDataFeed\"]");
	dl_detail_free(d);
	dl_snapshot_free(snap);
	fixture_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(change_feed),
		cmocka_unit_test(feed_turned_off),
		cmocka_unit_test(history_and_detail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
