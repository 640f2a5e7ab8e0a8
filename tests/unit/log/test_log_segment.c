/* Log segments and time travel over small logs written by the test:
 * file names, checkpoint choice (incomplete multi-part sets ignored),
 * compaction files, missing versions, stale _last_checkpoint, snapshots by
 * version and by timestamp (file times and in-commit timestamps). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include "deltalake/snapshot.h"
#include "log/log_segment.h"
#include "log/replay.h"
#include "log/snapshot.h"
#include "util/buf.h"
#include "util/error.h"

static const char *P0 = "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n";
static const char *M0 =
	"{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
	"\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"x\\\","
	"\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
	"\"partitionColumns\":[],\"configuration\":{}}}\n";

static void put(dl_store *s, const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "_delta_log/%s", name);
	assert_int_equal(dl_store_put(s, path, text, strlen(text)), 0);
}

static void put_commit(dl_store *s, int64_t v, const char *text)
{
	char name[64];
	snprintf(name, sizeof name, "%020" PRId64 ".json", v);
	put(s, name, text);
}

static char *add_line(const char *path, int64_t size)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "{\"add\":{\"path\":\"%s\",\"partitionValues\":{},\"size\":%" PRId64
	         ",\"modificationTime\":1,\"dataChange\":true}}\n", path, size);
	return buf;
}

static void file_names(void **state)
{
	(void)state;
	int64_t v, e;
	int32_t p, k;
	assert_int_equal(dl_log_file_classify("00000000000000000007.json", &v, &e, &p, &k), DL_LOGF_COMMIT);
	assert_int_equal(v, 7);
	assert_int_equal(dl_log_file_classify("00000000000000000007.crc", &v, &e, &p, &k), DL_LOGF_CRC);
	assert_int_equal(dl_log_file_classify("00000000000000000010.checkpoint.parquet", &v, &e, &p, &k),
	                 DL_LOGF_CHECKPOINT);
	assert_int_equal(dl_log_file_classify("00000000000000000010.checkpoint.0000000002.0000000003.parquet",
	                                      &v, &e, &p, &k), DL_LOGF_CHECKPOINT_PART);
	assert_int_equal(p, 2);
	assert_int_equal(k, 3);
	assert_int_equal(dl_log_file_classify("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
	                                      &v, &e, &p, &k), DL_LOGF_CHECKPOINT_V2_JSON);
	assert_int_equal(dl_log_file_classify("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.parquet",
	                                      &v, &e, &p, &k), DL_LOGF_CHECKPOINT_V2_PARQUET);
	assert_int_equal(dl_log_file_classify("00000000000000000004.00000000000000000006.compacted.json",
	                                      &v, &e, &p, &k), DL_LOGF_COMPACTION);
	assert_int_equal(v, 4);
	assert_int_equal(e, 6);
	assert_int_equal(dl_log_file_classify("00000000000000000006.00000000000000000004.compacted.json",
	                                      &v, &e, &p, &k), DL_LOGF_OTHER);
	assert_int_equal(dl_log_file_classify("_last_checkpoint", &v, &e, &p, &k), DL_LOGF_OTHER);
	assert_int_equal(dl_log_file_classify("0000000000000000007.json", &v, &e, &p, &k), DL_LOGF_OTHER);
	assert_int_equal(dl_log_file_classify("00000000000000000007.json.tmp", &v, &e, &p, &k), DL_LOGF_OTHER);
	assert_int_equal(dl_log_file_classify("00000000000000000010.checkpoint.0000000004.0000000003.parquet",
	                                      &v, &e, &p, &k), DL_LOGF_OTHER);
}

static void segments_and_compaction(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-segments", NULL), 0);
	dl_log_segment seg;
	assert_int_equal(dl_log_segment_build(&seg, s, -1), DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "not a Delta table: no _delta_log"));
	char c0[1024];
	snprintf(c0, sizeof c0, "%s%s%s", P0, M0, add_line("a", 1));
	put_commit(s, 0, c0);
	put_commit(s, 1, add_line("b", 2));
	put_commit(s, 2, "{\"remove\":{\"path\":\"a\",\"deletionTimestamp\":5,\"dataChange\":true}}\n");
	put_commit(s, 3, add_line("c", 4));
	/* a compaction of 1..2 that replaces those commits; contents differ on
	 * purpose so the test sees which one was read */
	put(s, "00000000000000000001.00000000000000000002.compacted.json",
	    "{\"add\":{\"path\":\"b-from-compaction\",\"partitionValues\":{},\"size\":2,"
	    "\"modificationTime\":1,\"dataChange\":true}}\n"
	    "{\"remove\":{\"path\":\"a\",\"deletionTimestamp\":5,\"dataChange\":true}}\n");
	/* an incomplete multi-part checkpoint must be ignored */
	put(s, "00000000000000000002.checkpoint.0000000001.0000000002.parquet", "junk");
	put(s, "_last_checkpoint", "{\"version\":2,\"size\":3,\"parts\":2}");
	assert_int_equal(dl_log_segment_build(&seg, s, -1), 0);
	assert_int_equal(seg.version, 3);
	assert_int_equal(seg.checkpoint_version, -1);
	assert_int_equal(seg.ncommits, 4);
	assert_int_equal(seg.ncompactions, 1);
	assert_int_equal(seg.compactions[0].version, 1);
	dl_log_state st;
	assert_int_equal(dl_replay(&st, s, &seg, NULL), 0);
	assert_int_equal(dl_log_state_validate(&st), 0);
	assert_int_equal(st.nadds, 2);
	int seen_compaction = 0;
	for (size_t i = 0; i < st.nadds; i++)
		if (strcmp(dl_log_state_add(&st, i)->path, "b-from-compaction") == 0) seen_compaction = 1;
	assert_true(seen_compaction);
	assert_int_equal(st.nremoves, 1);
	dl_log_state_free(&st);
	dl_log_segment_free(&seg);

	/* as of version 1 the compaction (ending at 2) cannot be used */
	assert_int_equal(dl_log_segment_build(&seg, s, 1), 0);
	assert_int_equal(seg.ncompactions, 0);
	assert_int_equal(dl_replay(&st, s, &seg, NULL), 0);
	assert_int_equal(st.nadds, 2); /* a and b */
	dl_log_state_free(&st);
	dl_log_segment_free(&seg);

	assert_int_equal(dl_log_segment_build(&seg, s, 9), DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "latest version is 3"));

	/* cleaned-up history: commits 0..1 gone, a checkpoint-less log */
	dl_store *c;
	assert_int_equal(dl_store_open(&c, "mem://log-cleaned", NULL), 0);
	put_commit(c, 2, c0);
	put_commit(c, 3, add_line("z", 1));
	assert_int_equal(dl_log_segment_build(&seg, c, 2), DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "the log starts at version 2"));
	assert_int_equal(dl_log_segment_build(&seg, c, -1), DL_ECORRUPT);
	dl_store_free(c);

	/* a gap in the versions */
	put_commit(s, 5, add_line("e", 1));
	assert_int_equal(dl_log_segment_build(&seg, s, -1), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "version 4 is missing from the log"));
	dl_store_free(s);
}

static void no_protocol_or_metadata(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-no-meta", NULL), 0);
	put_commit(s, 0, P0);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), DL_ECORRUPT);
	assert_non_null(strstr(dl_error_last()->message, "no metaData action"));
	put_commit(s, 1, "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
	                 "\"readerFeatures\":[\"futureThing\"],\"writerFeatures\":[\"futureThing\"]}}\n");
	put_commit(s, 2, M0);
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), DL_EUNSUPPORTED);
	assert_non_null(strstr(dl_error_last()->message, "futureThing"));
	/* version 0 has neither problem but no metaData; version 2 has both */
	o.as_of_version = 0;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), DL_ECORRUPT);
	dl_store_free(s);
}

static char tmpdir[256];

static void set_mtime(const char *name, int64_t ms)
{
	char path[512];
	snprintf(path, sizeof path, "%s/_delta_log/%s", tmpdir, name);
	struct timeval tv[2] = {{(time_t)(ms / 1000), (suseconds_t)(ms % 1000 * 1000)},
	                        {(time_t)(ms / 1000), (suseconds_t)(ms % 1000 * 1000)}};
	assert_int_equal(utimes(path, tv), 0);
}

static int64_t open_at(dl_store *s, int64_t ts, bool allow_after, int *rc)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	o.as_of_timestamp_ms = ts;
	o.allow_after_latest = allow_after;
	dl_snapshot *snap;
	*rc = dl_snapshot_open(&snap, NULL, &o);
	if (*rc < 0) return -1;
	int64_t v = dl_snapshot_version(snap);
	dl_snapshot_free(snap);
	return v;
}

static void time_travel_by_file_time(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/dl_log_tt_XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	dl_store *s;
	assert_int_equal(dl_store_open(&s, tmpdir, NULL), 0);
	char c0[1024];
	snprintf(c0, sizeof c0, "%s%s%s", P0, M0, add_line("a", 1));
	put_commit(s, 0, c0);
	put_commit(s, 1, add_line("b", 1));
	put_commit(s, 2, add_line("c", 1));
	set_mtime("00000000000000000000.json", 1000000);
	set_mtime("00000000000000000001.json", 2000000);
	/* clock skew: version 2 is older on disk than version 1; Spark makes the
	 * times increasing (2 gets 2000001) */
	set_mtime("00000000000000000002.json", 1500000);
	int rc;
	assert_int_equal(open_at(s, 999999, false, &rc), -1);
	assert_int_equal(rc, DL_ENOTFOUND);
	assert_non_null(strstr(dl_error_last()->message, "before the earliest version"));
	assert_int_equal(open_at(s, 1000000, false, &rc), 0);
	assert_int_equal(open_at(s, 1999999, false, &rc), 0);
	assert_int_equal(open_at(s, 2000000, false, &rc), 1);
	assert_int_equal(open_at(s, 2000001, false, &rc), 2);
	assert_int_equal(open_at(s, 3000000, false, &rc), -1);
	assert_non_null(strstr(dl_error_last()->message, "after the latest version"));
	assert_int_equal(open_at(s, 3000000, true, &rc), 2);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	o.as_of_version = 1;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), 0);
	assert_int_equal(dl_snapshot_file_count(snap), 2);
	assert_int_equal(dl_snapshot_timestamp(snap), 2000000);
	int64_t t;
	assert_int_equal(dl_snapshot_commit_timestamp(&t, snap, 0), 0);
	assert_int_equal(t, 1000000);
	assert_int_equal(dl_snapshot_in_commit_timestamp(&t, snap), DL_ENOTFOUND);
	dl_snapshot_free(snap);
	dl_store_free(s);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static void time_travel_by_in_commit_timestamps(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-ict", NULL), 0);
	/* ICT enabled from version 1 on: version 0 uses its file time */
	char c[2048];
	snprintf(c, sizeof c, "%s%s%s", P0, M0, add_line("a", 1));
	put_commit(s, 0, c);
	snprintf(c, sizeof c,
	         "{\"commitInfo\":{\"timestamp\":5,\"inCommitTimestamp\":4102444800000}}\n"
	         "{\"metaData\":{\"id\":\"t\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
	         "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[]}\",\"partitionColumns\":[],"
	         "\"configuration\":{\"delta.enableInCommitTimestamps\":\"true\","
	         "\"delta.inCommitTimestampEnablementVersion\":\"1\","
	         "\"delta.inCommitTimestampEnablementTimestamp\":\"4102444800000\"}}}\n%s",
	         add_line("b", 1));
	put_commit(s, 1, c);
	snprintf(c, sizeof c, "{\"commitInfo\":{\"timestamp\":5,\"inCommitTimestamp\":4102444900000}}\n%s",
	         add_line("c", 1));
	put_commit(s, 2, c);
	int rc;
	/* year 2100: after version 0's file time, at version 1's ICT */
	assert_int_equal(open_at(s, 4102444800000LL, false, &rc), 1);
	assert_int_equal(open_at(s, 4102444899999LL, false, &rc), 1);
	assert_int_equal(open_at(s, 4102444900000LL, false, &rc), 2);
	assert_int_equal(open_at(s, 4102444000000LL, false, &rc), 0);
	dl_snapshot *snap;
	dl_snapshot_options latest = DL_SNAPSHOT_OPTIONS_INIT;
	latest.store = s;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &latest), 0);
	int64_t t;
	assert_int_equal(dl_snapshot_in_commit_timestamp(&t, snap), 0);
	assert_int_equal(t, 4102444900000LL);
	assert_int_equal(dl_snapshot_timestamp(snap), 4102444900000LL);
	assert_non_null(strstr(dl_snapshot_commit_info(snap), "inCommitTimestamp"));
	dl_snapshot_free(snap);
	dl_store_free(s);
}

/* A commit bigger than the replay's read chunk (1 MB): lines cross chunk
 * boundaries and the last line has no newline. */
static void big_commit_in_chunks(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-big", NULL), 0);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_buf_printf(&b, "%s%s", P0, M0), 0);
	const int n = 30000;
	for (int i = 0; i < n; i++)
		assert_int_equal(dl_buf_printf(&b, "%s{\"add\":{\"path\":\"part-%06d-with-a-long-name-to-"
		                               "cross-chunk-boundaries.parquet\",\"partitionValues\":{},"
		                               "\"size\":%d,\"modificationTime\":1,\"dataChange\":true}}",
		                               i ? "\n" : "", i, i), 0);
	assert_true(b.len > (3u << 20) / 2);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000000.json", b.data, b.len), 0);
	dl_buf_clear(&b);
	assert_int_equal(dl_buf_printf(&b, "{\"remove\":{\"path\":\"part-000007-with-a-long-name-to-"
	                               "cross-chunk-boundaries.parquet\",\"dataChange\":true}}\n"
	                               "{\"txn\":{\"appId\":\"last-line\",\"version\":7}}"), 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000001.json", b.data, b.len), 0);
	dl_buf_free(&b);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), 0);
	assert_int_equal(dl_snapshot_file_count(snap), n - 1);
	int64_t sum = 0;
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info fi;
		assert_int_equal(dl_snapshot_file_at(&fi, snap, i), 0);
		sum += fi.size;
	}
	assert_int_equal(sum, (int64_t)n * (n - 1) / 2 - 7);
	assert_int_equal(dl_snapshot_total_size(snap), sum);
	int64_t v;
	assert_int_equal(dl_snapshot_app_version(&v, snap, "last-line"), 0);
	assert_int_equal(v, 7);
	assert_int_equal(dl_snapshot_tombstone_count(snap), 1);
	dl_snapshot_free(snap);

	/* the same log parsed in 2 MB blocks on several threads */
	dl_log_segment seg;
	assert_int_equal(dl_log_segment_build(&seg, s, -1), 0);
	dl_replay_options par = {0};
	par.parallel_min_bytes = 1;
	dl_log_state st;
	assert_int_equal(dl_replay(&st, s, &seg, &par), 0);
	assert_int_equal(st.nadds, n - 1);
	assert_int_equal(st.total_size, sum);
	assert_int_equal(st.ntxns, 1);
	assert_int_equal(st.nremoves, 1);
	/* every file exactly once: no line lost or doubled at block edges */
	char *seen = calloc((size_t)n, 1);
	for (size_t i = 0; i < st.nadds; i++) {
		int id = atoi(dl_log_state_add(&st, i)->path + 5);
		assert_true(id >= 0 && id < n && !seen[id]);
		seen[id] = 1;
	}
	free(seen);
	dl_log_state_free(&st);
	/* small blocks: many lines cross a block edge */
	const int64_t sizes[] = {4096, 65537};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		par.block_bytes = sizes[k];
		assert_int_equal(dl_replay(&st, s, &seg, &par), 0);
		assert_int_equal(st.nadds, n - 1);
		assert_int_equal(st.total_size, sum);
		assert_int_equal(st.ntxns, 1);
		assert_int_equal(st.nremoves, 1);
		dl_log_state_free(&st);
	}
	dl_log_segment_free(&seg);
	dl_store_free(s);
}

/* The log is the truth: a .crc only supplies what a metadata-only replay
 * skips (txns, domains), and only when its protocol and metaData are the
 * log's; a malformed or disagreeing one is ignored, and the replay then
 * reads txns and domains from the log itself. */
#define CRC_HEAD "{\"tableSizeBytes\":1,\"numFiles\":1,\"numMetadata\":1,\"numProtocol\":1,"
#define CRC_LISTS \
	"\"setTransactions\":[{\"appId\":\"x\",\"version\":4}]," \
	"\"domainMetadata\":[{\"domain\":\"d\",\"configuration\":\"crc\",\"removed\":false}],"
#define CRC_PROTOCOL "\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2},"
#define CRC_METADATA(id, col) \
	"\"metadata\":{\"id\":\"" id "\",\"format\":{\"provider\":\"parquet\",\"options\":{}}," \
	"\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"" col \
	"\\\",\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\"," \
	"\"partitionColumns\":[],\"configuration\":{}}"

static void open_meta(dl_store *s, bool metadata_only, dl_snapshot **snap)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	o.metadata_only = metadata_only;
	assert_int_equal(dl_snapshot_open(snap, NULL, &o), 0);
}

static void checksum_files(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-crc", NULL), 0);
	char c0[2048];
	snprintf(c0, sizeof c0, "%s%s%s%s", P0, M0, add_line("a", 1),
	         "{\"txn\":{\"appId\":\"x\",\"version\":1}}\n"
	         "{\"domainMetadata\":{\"domain\":\"d\",\"configuration\":\"log\",\"removed\":false}}\n");
	put_commit(s, 0, c0);
	dl_snapshot *snap;
	int64_t v;
	/* no .crc: txns and domains from the log */
	open_meta(s, true, &snap);
	assert_int_equal(dl_snapshot_file_count(snap), 0);
	assert_int_equal(dl_snapshot_app_version(&v, snap, "x"), 0);
	assert_int_equal(v, 1);
	assert_string_equal(dl_snapshot_domain(snap, "d"), "log");
	dl_snapshot_free(snap);
	/* malformed: ignored */
	put(s, "00000000000000000000.crc", "malformed");
	open_meta(s, true, &snap);
	assert_string_equal(dl_snapshot_table_id(snap), "t");
	assert_string_equal(dl_snapshot_domain(snap, "d"), "log");
	dl_snapshot_free(snap);
	/* a renamed column, another id, a reader feature, an in-commit
	 * timestamp: none of it is seen, and its lists are not used either */
	put(s, "00000000000000000000.crc",
	    CRC_HEAD "\"inCommitTimestampOpt\":1234," CRC_LISTS
	    "\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
	    "\"readerFeatures\":[\"noSuchFeature\"],\"writerFeatures\":[\"noSuchFeature\"]},"
	    CRC_METADATA("t", "renamed") "}");
	for (int meta = 1; meta >= 0; meta--) {
		open_meta(s, meta, &snap);
		assert_string_equal(dl_snapshot_table_id(snap), "t");
		assert_non_null(strstr(dl_snapshot_schema_json(snap), "\"name\":\"x\""));
		assert_null(strstr(dl_snapshot_schema_json(snap), "renamed"));
		assert_int_equal(dl_snapshot_min_reader_version(snap), 1);
		assert_int_equal(dl_snapshot_reader_feature_count(snap), 0);
		assert_int_equal(dl_snapshot_app_version(&v, snap, "x"), 0);
		assert_int_equal(v, 1);
		assert_string_equal(dl_snapshot_domain(snap, "d"), "log");
		assert_int_equal(dl_snapshot_in_commit_timestamp(&v, snap), DL_ENOTFOUND);
		assert_int_equal(dl_snapshot_file_count(snap), meta ? 0 : 1);
		dl_snapshot_free(snap);
	}
	/* the same protocol, metadata that differ only in the schema */
	put(s, "00000000000000000000.crc",
	    CRC_HEAD CRC_LISTS CRC_PROTOCOL CRC_METADATA("t", "renamed") "}");
	open_meta(s, true, &snap);
	assert_null(strstr(dl_snapshot_schema_json(snap), "renamed"));
	assert_string_equal(dl_snapshot_domain(snap, "d"), "log");
	dl_snapshot_free(snap);
	/* a .crc that agrees with the log: its lists are used (a real one
	 * would list the log's; these differ to show where they came from) */
	put(s, "00000000000000000000.crc",
	    CRC_HEAD CRC_LISTS CRC_PROTOCOL CRC_METADATA("t", "x") "}");
	open_meta(s, true, &snap);
	assert_string_equal(dl_snapshot_table_id(snap), "t");
	assert_int_equal(dl_snapshot_app_version(&v, snap, "x"), 0);
	assert_int_equal(v, 4);
	assert_string_equal(dl_snapshot_domain(snap, "d"), "crc");
	dl_snapshot_free(snap);
	/* a full snapshot never uses it */
	open_meta(s, false, &snap);
	assert_string_equal(dl_snapshot_domain(snap, "d"), "log");
	assert_int_equal(dl_snapshot_file_count(snap), 1);
	dl_snapshot_free(snap);
	dl_store_free(s);

	/* a .crc cannot lift a feature check: the log's reader feature is
	 * refused even when the .crc shows a plain (1,2) protocol */
	assert_int_equal(dl_store_open(&s, "mem://log-crc-feature", NULL), 0);
	snprintf(c0, sizeof c0, "%s%s",
	         "{\"protocol\":{\"minReaderVersion\":3,\"minWriterVersion\":7,"
	         "\"readerFeatures\":[\"noSuchFeature\"],\"writerFeatures\":[\"noSuchFeature\"]}}\n",
	         M0);
	put_commit(s, 0, c0);
	put(s, "00000000000000000000.crc",
	    CRC_HEAD CRC_LISTS CRC_PROTOCOL CRC_METADATA("t", "x") "}");
	for (int meta = 1; meta >= 0; meta--) {
		dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
		o.store = s;
		o.metadata_only = meta;
		assert_int_equal(dl_snapshot_open(&snap, NULL, &o), DL_EUNSUPPORTED);
		assert_non_null(strstr(dl_error_last()->message, "noSuchFeature"));
	}
	dl_store_free(s);
}

/* Many app ids and domains: newest per key wins, removed domains are
 * dropped, and older ones stay shadowed (linear with hash maps). */
static void many_txns_and_domains(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-txns", NULL), 0);
	dl_buf b = DL_BUF_INIT;
	const int n = 20000;
	assert_int_equal(dl_buf_printf(&b, "%s%s", P0, M0), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(dl_buf_printf(&b, "{\"txn\":{\"appId\":\"app-%d\",\"version\":1}}\n"
		                               "{\"domainMetadata\":{\"domain\":\"dom-%d\",\"configuration\":"
		                               "\"old\",\"removed\":false}}\n", i, i), 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000000.json", b.data, b.len), 0);
	dl_buf_clear(&b);
	for (int i = 0; i < n; i += 2)
		assert_int_equal(dl_buf_printf(&b, "{\"txn\":{\"appId\":\"app-%d\",\"version\":2}}\n"
		                               "{\"domainMetadata\":{\"domain\":\"dom-%d\",\"configuration\":"
		                               "\"new\",\"removed\":%s}}\n", i, i, i % 4 ? "true" : "false"), 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000001.json", b.data, b.len), 0);
	dl_buf_free(&b);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), 0);
	assert_int_equal(dl_snapshot_app_count(snap), n);
	int64_t v;
	assert_int_equal(dl_snapshot_app_version(&v, snap, "app-2"), 0);
	assert_int_equal(v, 2);
	assert_int_equal(dl_snapshot_app_version(&v, snap, "app-3"), 0);
	assert_int_equal(v, 1);
	assert_int_equal(dl_snapshot_domain_count(snap), n - n / 4);
	assert_string_equal(dl_snapshot_domain(snap, "dom-4"), "new");
	assert_null(dl_snapshot_domain(snap, "dom-2"));
	assert_string_equal(dl_snapshot_domain(snap, "dom-3"), "old");
	dl_snapshot_free(snap);
	dl_store_free(s);
}

/* Blocks far smaller than a line, and at every offset around line ends,
 * on a small log: each line is parsed by exactly one block. */
static void tiny_blocks(void **state)
{
	(void)state;
	dl_store *s;
	assert_int_equal(dl_store_open(&s, "mem://log-tiny-blocks", NULL), 0);
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_buf_printf(&b, "%s%s", P0, M0), 0);
	for (int i = 0; i < 60; i++)
		assert_int_equal(dl_buf_printf(&b, "%s{\"add\":{\"path\":\"f%d\",\"partitionValues\":{},"
		                               "\"size\":%d,\"modificationTime\":1,\"dataChange\":true}}",
		                               i ? "\n\n" : "", i, i + 1), 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000000.json", b.data, b.len), 0);
	dl_buf_free(&b);
	dl_log_segment seg;
	assert_int_equal(dl_log_segment_build(&seg, s, -1), 0);
	dl_replay_options par = {0};
	par.parallel_min_bytes = 1;
	for (int64_t bb = 1; bb <= 160; bb += (bb < 8 ? 1 : 13)) {
		par.block_bytes = bb;
		dl_log_state st;
		assert_int_equal(dl_replay(&st, s, &seg, &par), 0);
		assert_int_equal(dl_log_state_validate(&st), 0);
		assert_int_equal(st.nadds, 60);
		assert_int_equal(st.total_size, 60 * 61 / 2);
		dl_log_state_free(&st);
	}
	dl_log_segment_free(&seg);
	dl_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_names),
		cmocka_unit_test(segments_and_compaction),
		cmocka_unit_test(no_protocol_or_metadata),
		cmocka_unit_test(time_travel_by_file_time),
		cmocka_unit_test(time_travel_by_in_commit_timestamps),
		cmocka_unit_test(big_commit_in_chunks),
		cmocka_unit_test(checksum_files),
		cmocka_unit_test(many_txns_and_domains),
		cmocka_unit_test(tiny_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
