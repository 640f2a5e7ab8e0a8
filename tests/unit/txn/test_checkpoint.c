/* Checkpoint writing: classic, multi-part and V2-with-sidecars checkpoints
 * of tables built through transactions read back to exactly the state the
 * JSON log gives (files with stats, partition values and DVs, tombstones
 * not yet expired, app ids, domains, protocol, metadata); _last_checkpoint
 * and its checksum; the post-commit checkpoint every checkpointInterval
 * commits; expired log cleanup keeping what the newest checkpoint needs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/snapshot.h"
#include "json/json.h"
#include "log/log_segment.h"
#include "log/snapshot.h"
#include "storage/store_fault.h"
#include "txn/checkpoint_write.h"
#include "txn/log_cleanup.h"
#include "txn/txn.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

static const char *SCHEMA =
	"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,"
	"\"metadata\":{}},{\"name\":\"d\",\"type\":\"date\",\"nullable\":true,\"metadata\":{}}]}";

static int counter;

static dl_store *new_store(void)
{
	char uri[64];
	snprintf(uri, sizeof uri, "mem://ckpt-test-%d", ++counter);
	dl_store *s = NULL;
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	return s;
}

static dl_snapshot *snap_at(dl_store *s, int64_t v)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	o.as_of_version = v;
	dl_snapshot *snap = NULL;
	int rc = dl_snapshot_open(&snap, NULL, &o);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	return snap;
}

static dl_transaction *begin(dl_store *s, dl_snapshot *snap, bool post_commit)
{
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.no_post_commit = !post_commit;
	assert_int_equal(dl_txn_begin(&t, s, snap, &o), 0);
	return t;
}

static void commit(dl_transaction *t)
{
	int64_t v;
	int rc = dl_txn_commit(t, &v);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	const char *msg;
	if (dl_txn_post_commit_error(t, &msg)) fprintf(stderr, "post-commit: %s\n", msg);
	assert_int_equal(dl_txn_post_commit_error(t, &msg), 0);
	dl_txn_free(t);
}

static void create(dl_store *s, const dl_protocol *p, const char **keys, const char **vals,
                   uint32_t n, bool post_commit)
{
	dl_transaction *t = begin(s, NULL, post_commit);
	dl_kv kv[8];
	for (uint32_t i = 0; i < n; i++) kv[i] = (dl_kv){keys[i], vals[i]};
	const char *parts[] = {"d"};
	dl_metadata m = {.id = "0b9b5d8e-0000-4000-8000-00000000000c", .schema_string = SCHEMA,
	                 .partition_columns = parts, .npartition_columns = 1,
	                 .created_time = 1700000000000, .configuration = {kv, n}};
	assert_int_equal(dl_txn_set_protocol(t, p), 0);
	assert_int_equal(dl_txn_set_metadata(t, &m), 0);
	commit(t);
}

/* Commit i adds files i-a and i-b (one with a DV, some with null
 * partitions), removes the previous commit's i-b (so tombstones exist),
 * records app txns and a domain now and then. */
static void grow_table(dl_store *s, int first, int last, bool post_commit, int64_t del_ts)
{
	for (int i = first; i <= last; i++) {
		dl_snapshot *snap = snap_at(s, -1);
		dl_transaction *t = begin(s, snap, post_commit);
		char pa[64], pb[64], prev[64], stats[96], date[16];
		snprintf(pa, sizeof pa, "d=2024-01-%02d/part-%d-a.parquet", 1 + i % 28, i);
		snprintf(pb, sizeof pb, "part %d-b%%.parquet", i); /* needs URI escaping */
		snprintf(date, sizeof date, "2024-01-%02d", 1 + i % 28);
		snprintf(stats, sizeof stats, "{\"numRecords\":%d,\"minValues\":{\"x\":%d}}", i + 1, i);
		dl_kv pva = {"d", date}, pvb = {"d", i % 3 ? date : NULL};
		dl_dv_descriptor dv = {'u', "ab^-aV,7GI5sk@fNC5&0", 1, 36, 2, -1};
		dl_add a = {.path = pa, .partition_values = {&pva, 1}, .size = 1000 + i,
		            .modification_time = 1700000000000 + i, .data_change = true,
		            .stats = stats, .stats_len = (uint32_t)strlen(stats),
		            .base_row_id = DL_NONE, .default_row_commit_version = DL_NONE};
		assert_int_equal(dl_txn_add_file(t, &a), 0);
		dl_add b = a;
		b.path = pb;
		b.partition_values = (dl_str_map){&pvb, 1};
		b.stats = NULL;
		b.stats_len = 0;
		b.dv = i % 4 == 0 ? &dv : NULL;
		b.base_row_id = i * 10;
		b.default_row_commit_version = i;
		assert_int_equal(dl_txn_add_file(t, &b), 0);
		if (i > first || first > 1) {
			snprintf(prev, sizeof prev, "part %d-b%%.parquet", i - 1);
			dl_remove r = {.path = prev, .deletion_timestamp = del_ts + i, .data_change = true,
			               .extended_file_metadata = true, .size = 1000 + i - 1,
			               .base_row_id = DL_NONE, .default_row_commit_version = DL_NONE};
			bool had_dv = (i - 1) % 4 == 0;
			r.dv = had_dv ? &dv : NULL;
			assert_int_equal(dl_txn_remove_file(t, &r), 0);
		}
		if (i % 5 == 0) assert_int_equal(dl_txn_set_app_txn(t, i % 10 ? "app-1" : "app-2", i), 0);
		if (i % 7 == 0) assert_int_equal(dl_txn_set_domain(t, "user.cfg", date, false), 0);
		commit(t);
		dl_snapshot_free(snap);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A canonical text of everything a snapshot says about its state. */
static char *describe(const dl_snapshot *s, int64_t expire_before)
{
	size_t n = dl_snapshot_file_count(s), nt = dl_snapshot_tombstone_count(s);
	char **lines = calloc(n + nt + 64, sizeof *lines);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		dl_file_info f;
		assert_int_equal(dl_snapshot_file_at(&f, s, i), 0);
		const char *key, *val;
		assert_int_equal(dl_snapshot_file_partition_value(&key, &val, s, i, 0), 0);
		char buf[512];
		snprintf(buf, sizeof buf, "add %s %s=%s size=%lld mt=%lld dc=%d stats=%s dv=%d/%lld "
		         "row=%lld/%lld", f.path, key, val ? val : "NULL", (long long)f.size,
		         (long long)f.modification_time, f.data_change, f.stats ? f.stats : "-",
		         f.has_deletion_vector, (long long)f.deleted_rows, (long long)f.base_row_id,
		         (long long)f.default_row_commit_version);
		lines[k++] = strdup(buf);
	}
	for (size_t i = 0; i < nt; i++) {
		dl_tombstone_info t;
		assert_int_equal(dl_snapshot_tombstone_at(&t, s, i), 0);
		if (t.deletion_timestamp <= expire_before) continue;
		char buf[256];
		snprintf(buf, sizeof buf, "remove %s ts=%lld size=%lld dv=%d", t.path,
		         (long long)t.deletion_timestamp, (long long)t.size, t.has_deletion_vector);
		lines[k++] = strdup(buf);
	}
	for (size_t i = 0; i < dl_snapshot_app_count(s); i++) {
		const char *id;
		int64_t v, lu;
		dl_snapshot_app_at(&id, &v, &lu, s, i);
		char buf[128];
		snprintf(buf, sizeof buf, "txn %s %lld %lld", id, (long long)v, (long long)lu);
		lines[k++] = strdup(buf);
	}
	for (size_t i = 0; i < dl_snapshot_domain_count(s); i++) {
		const char *d, *c;
		dl_snapshot_domain_at(&d, &c, s, i);
		char buf[128];
		snprintf(buf, sizeof buf, "domain %s %s", d, c);
		lines[k++] = strdup(buf);
	}
	char buf[4096];
	snprintf(buf, sizeof buf, "protocol %d %d/%zu/%zu meta %s %s parts=%zu props=%zu",
	         dl_snapshot_min_reader_version(s), dl_snapshot_min_writer_version(s),
	         dl_snapshot_reader_feature_count(s), dl_snapshot_writer_feature_count(s),
	         dl_snapshot_table_id(s), dl_snapshot_schema_json(s),
	         dl_snapshot_partition_column_count(s), dl_snapshot_property_count(s));
	lines[k++] = strdup(buf);
	qsort(lines, k, sizeof *lines, cmp_str);
	size_t total = 1;
	for (size_t i = 0; i < k; i++) total += strlen(lines[i]) + 1;
	char *out = malloc(total);
	out[0] = 0;
	for (size_t i = 0; i < k; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
		free(lines[i]);
	}
	free(lines);
	return out;
}

static void check_roundtrip(dl_store *s, int64_t v, const dl_ckpt_write_options *o,
                            dl_checkpoint_result *res)
{
	dl_snapshot *json = snap_at(s, v);
	assert_true(json->segment.checkpoint_version < v);
	char *want = describe(json, o->now_ms - 7 * 86400000LL);
	int rc = dl_checkpoint_write(res, s, json, o);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	dl_snapshot_free(json);
	dl_snapshot *ck = snap_at(s, v);
	assert_int_equal(ck->segment.checkpoint_version, v);
	assert_int_equal(ck->segment.ncommits, 0);
	char *got = describe(ck, INT64_MIN);
	if (strcmp(want, got) != 0) fprintf(stderr, "want:\n%s\ngot:\n%s\n", want, got);
	assert_string_equal(want, got);
	free(want);
	free(got);
	dl_snapshot_free(ck);
	dl_last_checkpoint lc;
	assert_int_equal(dl_last_checkpoint_read(s, &lc), 0);
	assert_int_equal(lc.version, v);
	assert_int_equal(lc.size, res->actions);
	assert_int_equal(lc.parts, res->parts > 1 ? res->parts : 0);
	assert_int_equal(lc.num_of_add_files, res->add_files);
}

static const dl_protocol P12 = {1, 2, NULL, 0, NULL, 0};

static void test_classic(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, &P12, NULL, NULL, 0, false);
	int64_t now = 1800000000000;
	/* commits 1..8: tombstones of 1..3 expire (older than 7 days), later ones not */
	grow_table(s, 1, 3, false, now - 30 * 86400000LL);
	grow_table(s, 4, 12, false, now - 86400000LL);
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	o.now_ms = now;
	dl_checkpoint_result r;
	check_roundtrip(s, 12, &o, &r);
	assert_int_equal(r.parts, 1);
	assert_int_equal(r.add_files, 13);
	/* protocol + metaData + 2 apps + 1 domain + 13 adds + 9 live tombstones
	 * (those of commits 2 and 3 expired) */
	assert_int_equal(r.actions, 2 + 2 + 1 + 13 + 9);
	uint8_t *data;
	size_t len;
	assert_int_equal(dl_store_get(&data, &len, s, "_delta_log/00000000000000000012.checkpoint.parquet"), 0);
	assert_int_equal((int64_t)len, r.size_bytes);
	assert_true(len > 8 && memcmp(data, "PAR1", 4) == 0);
	dl_free(data);
	/* the table goes on from the checkpoint */
	grow_table(s, 13, 14, false, now);
	dl_snapshot *snap = snap_at(s, -1);
	assert_int_equal(snap->segment.checkpoint_version, 12);
	assert_int_equal(dl_snapshot_file_count(snap), 15);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

/* The commitInfo of a version covered by its checkpoint comes from the
 * commit file, read for it alone: found as its last line after 1.5 MB of
 * other actions (skipped unparsed), and through a line the quick skip
 * leaves to the parser (a null member before it). */
static void test_commit_info_under_checkpoint(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, &P12, NULL, NULL, 0, false);
	dl_buf b = DL_BUF_INIT;
	for (int i = 0; i < 12000; i++)
		assert_int_equal(dl_buf_printf(&b, "{\"add\":{\"path\":\"d=2024-01-01/part-%06d-long-"
		                               "enough-to-cross-the-chunk.parquet\",\"partitionValues\":"
		                               "{\"d\":\"2024-01-01\"},\"size\":%d,\"modificationTime\":1,"
		                               "\"dataChange\":true}}\n", i, i + 1), 0);
	assert_true(b.len > (1u << 20));
	assert_int_equal(dl_buf_printf(&b, "{\"txn\":{\"appId\":\"a\",\"version\":3}}\n"
	                               "{\"add\":null,\"commitInfo\":{\"operation\":\"WRITE\","
	                               "\"userMetadata\":\"the-last-line\"}}\n"), 0);
	assert_int_equal(dl_store_put(s, "_delta_log/00000000000000000001.json", b.data, b.len), 0);
	dl_buf_free(&b);
	dl_snapshot *json = snap_at(s, 1);
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	dl_checkpoint_result r;
	assert_int_equal(dl_checkpoint_write(&r, s, json, &o), 0);
	dl_snapshot_free(json);
	dl_snapshot *ck = snap_at(s, -1);
	assert_int_equal(ck->segment.checkpoint_version, 1);
	assert_int_equal(dl_snapshot_file_count(ck), 12000);
	assert_non_null(dl_snapshot_commit_info(ck));
	assert_non_null(strstr(dl_snapshot_commit_info(ck), "the-last-line"));
	dl_snapshot_free(ck);
	dl_store_free(s);
}

static void test_multi_part(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, &P12, NULL, NULL, 0, false);
	int64_t now = 1800000000000;
	grow_table(s, 1, 20, false, now);
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	o.now_ms = now;
	o.part_actions = 9;
	dl_checkpoint_result r;
	check_roundtrip(s, 20, &o, &r);
	assert_true(r.parts >= 5);
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "_delta_log", "00000000000000000020.checkpoint"), 0);
	int parts = 0;
	for (size_t i = 0; i < l.count; i++)
		if (strstr(l.items[i].path, ".checkpoint.00000000")) parts++;
	assert_int_equal(parts, r.parts);
	dl_object_list_free(&l);
	dl_store_free(s);
}

static void test_v2_sidecars(void **state)
{
	(void)state;
	dl_store *s = new_store();
	const char *rf[] = {"v2Checkpoint"}, *wf[] = {"v2Checkpoint", "domainMetadata"};
	dl_protocol p = {3, 7, rf, 1, wf, 2};
	const char *k[] = {"delta.checkpointPolicy", "delta.checkpoint.writeStatsAsStruct"};
	const char *v[] = {"v2", "true"};
	create(s, &p, k, v, 2, false);
	int64_t now = 1800000000000;
	grow_table(s, 1, 15, false, now);
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	o.now_ms = now;
	o.part_actions = 10;
	dl_checkpoint_result r;
	check_roundtrip(s, 15, &o, &r);
	assert_true(r.v2);
	assert_int_equal(r.sidecars, 3); /* 16 adds + 14 tombstones in sidecars of 10 */
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "_delta_log/_sidecars", NULL), 0);
	assert_int_equal(l.count, 3);
	dl_object_list_free(&l);
	/* a newer V2 checkpoint; log cleanup long after drops the old one, its
	 * sidecars and nothing the new one references */
	grow_table(s, 16, 17, false, now);
	dl_ckpt_write_options o2 = o;
	o2.part_actions = 100;
	check_roundtrip(s, 17, &o2, &r);
	assert_int_equal(r.sidecars, 1);
	dl_snapshot *latest = snap_at(s, -1);
	int64_t later = dl_snapshot_timestamp(latest) + 60 * 86400000LL;
	dl_table_properties props = latest->props;
	dl_snapshot_free(latest);
	dl_log_cleanup_result cr;
	assert_int_equal(dl_log_cleanup_store(&cr, s, &props, later, NULL, NULL), 0);
	assert_int_equal(cr.cutoff_checkpoint, 17);
	assert_int_equal(cr.deleted_checkpoints, 1);
	assert_int_equal(cr.deleted_sidecars, 3);
	assert_int_equal(dl_store_list_from(&l, s, "_delta_log/_sidecars", NULL), 0);
	assert_int_equal(l.count, 1);
	dl_object_list_free(&l);
	dl_snapshot *snap = snap_at(s, -1);
	assert_int_equal(snap->segment.checkpoint_version, 17);
	assert_int_equal(dl_snapshot_file_count(snap), 18);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void test_partition_values_parsed(void **state)
{
	(void)state;
	dl_store *s = new_store();
	const char *k[] = {"delta.checkpoint.writeStatsAsStruct", "delta.checkpoint.writeStatsAsJson"};
	const char *v[] = {"true", "false"};
	create(s, &P12, k, v, 2, false);
	int64_t now = 1800000000000;
	grow_table(s, 1, 4, false, now);
	dl_ckpt_write_options o = DL_CKPT_WRITE_OPTIONS_INIT;
	o.now_ms = now;
	dl_checkpoint_result r;
	dl_snapshot *snap = snap_at(s, 4);
	assert_int_equal(dl_checkpoint_write(&r, s, snap, &o), 0);
	dl_snapshot_free(snap);
	uint8_t *data;
	size_t len;
	assert_int_equal(dl_store_get(&data, &len, s, "_delta_log/00000000000000000004.checkpoint.parquet"), 0);
	/* the footer names the parsed columns */
	bool parsed = false, stats_parsed = false;
	for (size_t i = 0; i + 22 < len; i++) {
		if (memcmp(data + i, "partitionValues_parsed", 22) == 0) parsed = true;
		if (memcmp(data + i, "stats_parsed", 12) == 0) stats_parsed = true;
	}
	assert_true(parsed);
	assert_true(stats_parsed);
	dl_free(data);
	/* without stats JSON in the checkpoint, the reader rebuilds it from
	 * stats_parsed: the values survive with their types */
	snap = snap_at(s, 4);
	assert_int_equal(snap->segment.checkpoint_version, 4);
	assert_int_equal(dl_snapshot_file_count(snap), 5);
	int with_stats = 0;
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info f;
		assert_int_equal(dl_snapshot_file_at(&f, snap, i), 0);
		int n;
		if (sscanf(f.path, "d=2024-01-%*d/part-%d-a.parquet", &n) != 1) continue;
		char want[96];
		snprintf(want, sizeof want, "\"numRecords\":%d", n + 1);
		assert_non_null(f.stats);
		assert_non_null(strstr(f.stats, want));
		snprintf(want, sizeof want, "\"minValues\":{\"x\":%d}", n);
		if (!strstr(f.stats, want)) fprintf(stderr, "stats: %s\n", f.stats);
		assert_non_null(strstr(f.stats, want));
		with_stats++;
	}
	assert_int_equal(with_stats, 4);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void test_post_commit_hook(void **state)
{
	(void)state;
	dl_store *s = new_store();
	const char *k[] = {"delta.checkpointInterval"};
	const char *v[] = {"4"};
	create(s, &P12, k, v, 1, true);
	grow_table(s, 1, 9, true, 1800000000000);
	dl_last_checkpoint lc;
	assert_int_equal(dl_last_checkpoint_read(s, &lc), 0);
	assert_int_equal(lc.version, 8);
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000004.checkpoint.parquet"), 0);
	dl_object_info_free(&info);
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000009.crc"), 0);
	dl_object_info_free(&info);
	dl_store_free(s);
}

static void test_log_cleanup(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, &P12, NULL, NULL, 0, false);
	grow_table(s, 1, 12, false, 1800000000000);
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	dl_snapshot *latest = snap_at(s, -1);
	int64_t later = dl_snapshot_timestamp(latest) + 60 * 86400000LL;
	dl_snapshot_free(latest);
	/* no checkpoint: nothing can go */
	dl_log_cleanup_result r;
	assert_int_equal(dl_log_cleanup_store(&r, s, &props, later, NULL, NULL), 0);
	assert_int_equal(r.cutoff_checkpoint, -1);
	assert_int_equal(r.deleted_commits, 0);
	dl_checkpoint_result cr;
	assert_int_equal(dl_checkpoint_write_version(&cr, s, 5, NULL), 0);
	assert_int_equal(dl_checkpoint_write_version(&cr, s, 10, NULL), 0);
	/* retention not passed yet: nothing */
	assert_int_equal(dl_log_cleanup_store(&r, s, &props, INT64_MIN, NULL, NULL), 0);
	assert_int_equal(r.deleted_commits, 0);
	assert_int_equal(dl_log_cleanup_store(&r, s, &props, later, NULL, NULL), 0);
	assert_int_equal(r.cutoff_checkpoint, 10);
	assert_int_equal(r.deleted_commits, 10);     /* 0..9 */
	assert_int_equal(r.deleted_checkpoints, 1);  /* 5 */
	assert_int_equal(r.deleted_other, 0);        /* no .crc: post-commit was off */
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000010.json"), 0);
	dl_object_info_free(&info);
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000009.json"), DL_ENOTFOUND);
	dl_error_clear();
	dl_snapshot *snap = snap_at(s, -1);
	assert_int_equal(dl_snapshot_version(snap), 12);
	dl_snapshot_free(snap);
	snap = snap_at(s, 10);
	assert_int_equal(dl_snapshot_file_count(snap), 11);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

/* The deletions go in batches (dl_store_delete_many: one DeleteObjects or
 * Blob Batch request each on an object store), one per kind of file, not a
 * delete call per file; a fault:// store counts the batches. */
static void test_log_cleanup_batches(void **state)
{
	(void)state;
	char uri[64];
	snprintf(uri, sizeof uri, "fault://mem://ckpt-batch-%d", ++counter);
	dl_store *s = NULL;
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	create(s, &P12, NULL, NULL, 0, true); /* post-commit on: .crc files too */
	grow_table(s, 1, 12, true, 1800000000000);
	dl_checkpoint_result cr;
	assert_int_equal(dl_checkpoint_write_version(&cr, s, 5, NULL), 0);
	assert_int_equal(dl_checkpoint_write_version(&cr, s, 10, NULL), 0);
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	dl_snapshot *latest = snap_at(s, -1);
	int64_t later = dl_snapshot_timestamp(latest) + 60 * 86400000LL;
	dl_snapshot_free(latest);
	assert_int_equal(dl_store_fault_counts_reset(s), 0);
	dl_log_cleanup_result r;
	assert_int_equal(dl_log_cleanup_store(&r, s, &props, later, NULL, NULL), 0);
	assert_int_equal(r.cutoff_checkpoint, 10);
	assert_int_equal(r.deleted_commits, 10);
	assert_int_equal(r.deleted_checkpoints, 1);
	assert_true(r.deleted_other >= 10); /* the .crc files of 0..9 */
	dl_store_fault_counts c;
	assert_int_equal(dl_store_fault_counts_get(&c, s), 0);
	/* commits, checkpoints, the rest: three batches */
	assert_int_equal(c.calls[DL_FAULT_DELETE_MANY], 3);
	assert_int_equal(c.calls[DL_FAULT_DELETE], r.deleted_commits + r.deleted_checkpoints + r.deleted_other);
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000009.json"), DL_ENOTFOUND);
	dl_error_clear();
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000010.json"), 0);
	dl_object_info_free(&info);
	/* a batch that fails stops the cleanup with its error, nothing of it
	 * deleted, the table readable */
	assert_int_equal(dl_checkpoint_write_version(&cr, s, 12, NULL), 0);
	dl_store_free(s);
	const char *keys[] = {"fault.fail_kind", "fault.fail_nth"}, *vals[] = {"delete_many", "1"};
	dl_store_options so = DL_STORE_OPTIONS_INIT;
	so.keys = keys;
	so.values = vals;
	so.noptions = 2;
	assert_int_equal(dl_store_open(&s, uri, &so), 0);
	assert_int_equal(dl_log_cleanup_store(&r, s, &props, later, NULL, NULL), DL_EIO);
	assert_non_null(strstr(dl_error_last()->message, "delete_many"));
	assert_int_equal(r.deleted_commits, 0);
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000010.json"), 0);
	dl_object_info_free(&info);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	dl_snapshot *snap = NULL;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), 0);
	assert_int_equal(dl_snapshot_version(snap), 12);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static int checksum_of(char out[33], const char *json)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	int rc = dl_json_parse(&a, json, strlen(json), "t", &v);
	if (rc == 0) rc = dl_json_checksum(out, v);
	dl_arena_free(&a);
	return rc;
}

static void test_json_checksum(void **state)
{
	(void)state;
	char sum[33];
	/* the protocol's example */
	assert_int_equal(checksum_of(sum, "{\"k0\":\"'v 0'\", \"checksum\": \"adsaskfljadfkjadfkj\", "
	                             "\"k1\":{\"k2\": 2, \"k3\": [\"v3\", [1, 2], {\"k4\": \"v4\", "
	                             "\"k5\": [\"v5\", \"v6\", \"v7\"]}]}}"), 0);
	assert_string_equal(sum, "6a92d155a59bf2eecbd4b4ec7fd1f875");
	/* a _last_checkpoint written by Spark (with its checkpointSchema) */
	const char *path = DL_SHARED_DIR "/conformance/golden/multi-part-checkpoint/delta/_delta_log/_last_checkpoint";
	FILE *f = fopen(path, "rb");
	if (!f) {
		skip();
		return;
	}
	char *buf = malloc(1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	buf[n] = 0;
	assert_int_equal(checksum_of(sum, buf), 0);
	const char *want = strstr(buf, "\"checksum\":\"");
	assert_non_null(want);
	assert_memory_equal(sum, want + 12, 32);
	free(buf);
}

/* A metadata-only snapshot has no file list: checkpointing it would write
 * an empty table, so it is refused, with or without a .crc. */
static void test_metadata_only_refused(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, &P12, NULL, NULL, 0, false);
	grow_table(s, 1, 2, false, 1800000000000);
	dl_snapshot_options so = DL_SNAPSHOT_OPTIONS_INIT;
	so.store = s;
	so.metadata_only = true;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &so), 0);
	dl_checkpoint_result r;
	assert_int_equal(dl_checkpoint_write(&r, s, snap, NULL), DL_EINVALID);
	assert_non_null(strstr(dl_error_last()->message, "metadata-only"));
	dl_snapshot_free(snap);
	bool exists = true;
	uint8_t *data;
	size_t len;
	if (dl_store_get(&data, &len, s, "_delta_log/00000000000000000002.checkpoint.parquet") == 0)
		dl_free(data);
	else
		exists = false;
	assert_false(exists);
	dl_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_checksum),
		cmocka_unit_test(test_classic),
		cmocka_unit_test(test_multi_part),
		cmocka_unit_test(test_commit_info_under_checkpoint),
		cmocka_unit_test(test_v2_sidecars),
		cmocka_unit_test(test_partition_values_parsed),
		cmocka_unit_test(test_metadata_only_refused),
		cmocka_unit_test(test_post_commit_hook),
		cmocka_unit_test(test_log_cleanup),
		cmocka_unit_test(test_log_cleanup_batches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
