/* Transactions on in-memory tables: the commit file's lines and commitInfo,
 * retries past concurrent blind appends, every conflict class, app ids,
 * appendOnly, in-commit timestamps and the .crc files. */
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
#include "log/crc.h"
#include "log/log_segment.h"
#include "log/snapshot.h"
#include "txn/txn.h"
#include "util/error.h"
#include "util/mem.h"

static const char *SCHEMA =
	"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,"
	"\"metadata\":{}},{\"name\":\"d\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}";

static int counter;

static dl_store *new_store(void)
{
	char uri[64];
	snprintf(uri, sizeof uri, "mem://txn-test-%d", ++counter);
	dl_store *s = NULL;
	assert_int_equal(dl_store_open(&s, uri, NULL), 0);
	return s;
}

static dl_snapshot *open_snap(dl_store *s)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	dl_snapshot *snap = NULL;
	int rc = dl_snapshot_open(&snap, NULL, &o);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	return snap;
}

/* Creates the table with properties k[i]=v[i]. */
static void create(dl_store *s, const char **keys, const char **vals, uint32_t n)
{
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.operation = "CREATE TABLE";
	assert_int_equal(dl_txn_begin(&t, s, NULL, &o), 0);
	dl_protocol p = {1, 2, NULL, 0, NULL, 0};
	dl_kv kv[8];
	for (uint32_t i = 0; i < n; i++) kv[i] = (dl_kv){keys[i], vals[i]};
	const char *parts[] = {"d"};
	dl_metadata m = {.id = "6a3c1f0e-0000-4000-8000-000000000001",
	                 .schema_string = SCHEMA,
	                 .partition_columns = parts,
	                 .npartition_columns = 1,
	                 .created_time = 1700000000000,
	                 .configuration = {kv, n}};
	assert_int_equal(dl_txn_set_protocol(t, &p), 0);
	assert_int_equal(dl_txn_set_metadata(t, &m), 0);
	int64_t v = -1;
	assert_int_equal(dl_txn_commit(t, &v), 0);
	assert_int_equal(v, 0);
	dl_txn_free(t);
}

static dl_add make_add(const char *path, const char *d, dl_kv *pv)
{
	*pv = (dl_kv){"d", d};
	dl_add a;
	memset(&a, 0, sizeof a);
	a.path = path;
	a.partition_values = (dl_str_map){pv, 1};
	a.size = 100;
	a.modification_time = 1700000000000;
	a.data_change = true;
	a.stats = "{\"numRecords\":3}";
	a.stats_len = (uint32_t)strlen(a.stats);
	a.base_row_id = DL_NONE;
	a.default_row_commit_version = DL_NONE;
	return a;
}

static dl_remove make_remove(const char *path, const char *d, dl_kv *pv)
{
	*pv = (dl_kv){"d", d};
	dl_remove r;
	memset(&r, 0, sizeof r);
	r.path = path;
	r.deletion_timestamp = 1700000000001;
	r.data_change = true;
	r.extended_file_metadata = true;
	r.partition_values = (dl_str_map){pv, 1};
	r.size = 100;
	r.base_row_id = DL_NONE;
	r.default_row_commit_version = DL_NONE;
	return r;
}

static dl_transaction *begin(dl_store *s, dl_snapshot *snap, const char *op)
{
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.operation = op;
	assert_int_equal(dl_txn_begin(&t, s, snap, &o), 0);
	return t;
}

static int64_t append_file(dl_store *s, dl_snapshot *snap, const char *path, const char *d)
{
	dl_transaction *t = begin(s, snap, "WRITE");
	dl_kv pv;
	dl_add a = make_add(path, d, &pv);
	assert_int_equal(dl_txn_add_file(t, &a), 0);
	dl_txn_set_parameter(t, "mode", "Append");
	dl_txn_set_metric(t, "numFiles", 1);
	int64_t v = -1;
	int rc = dl_txn_commit(t, &v);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	dl_txn_free(t);
	return v;
}

static char *read_commit(dl_store *s, int64_t v)
{
	char path[96];
	dl_log_commit_path(path, sizeof path, v);
	uint8_t *data = NULL;
	size_t len;
	int rc = dl_store_get(&data, &len, s, path);
	assert_int_equal(rc, 0);
	char *text = dl_strndup((const char *)data, len);
	dl_free(data);
	assert_non_null(text);
	return text;
}

static void test_create_and_commit_info(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	char *c0 = read_commit(s, 0);
	/* commitInfo first, then protocol, then metaData; one action per line */
	assert_true(strncmp(c0, "{\"commitInfo\":{\"timestamp\":", 27) == 0);
	char *l2 = strchr(c0, '\n') + 1;
	assert_true(strncmp(l2, "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n", 57) == 0);
	assert_non_null(strstr(c0, "\"operation\":\"CREATE TABLE\""));
	assert_null(strstr(c0, "readVersion"));
	assert_non_null(strstr(c0, "\"engineInfo\":\"deltalake-c/"));
	assert_non_null(strstr(c0, "\"txnId\":\""));
	dl_free(c0);

	dl_snapshot *snap = open_snap(s);
	assert_int_equal(append_file(s, snap, "d=a/f1.parquet", "a"), 1);
	char *c1 = read_commit(s, 1);
	assert_non_null(strstr(c1, "\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"},"
	                           "\"readVersion\":0,\"isolationLevel\":\"WriteSerializable\","
	                           "\"isBlindAppend\":true,\"operationMetrics\":{\"numFiles\":\"1\"}"));
	assert_non_null(strstr(c1, "{\"add\":{\"path\":\"d=a/f1.parquet\",\"partitionValues\":{\"d\":\"a\"}"));
	dl_free(c1);
	dl_snapshot_free(snap);
	snap = open_snap(s);
	assert_int_equal(dl_snapshot_version(snap), 1);
	assert_int_equal(dl_snapshot_file_count(snap), 1);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void test_blind_appends_retry(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	dl_snapshot *snap = open_snap(s);
	/* three writers on the same read version: all land, in order */
	assert_int_equal(append_file(s, snap, "f1.parquet", "a"), 1);
	assert_int_equal(append_file(s, snap, "f2.parquet", "a"), 2);
	dl_transaction *t = begin(s, snap, "WRITE");
	dl_kv pv;
	dl_add a = make_add("f3.parquet", "a", &pv);
	assert_int_equal(dl_txn_add_file(t, &a), 0);
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(dl_txn_attempts(t), 3);
	assert_int_equal(dl_txn_commit(t, &v), DL_EINVALID); /* only once */
	dl_txn_free(t);
	dl_snapshot_free(snap);
	snap = open_snap(s);
	assert_int_equal(dl_snapshot_file_count(snap), 3);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void expect_class(dl_transaction *t, const char *klass)
{
	int64_t v = 99;
	int rc = dl_txn_commit(t, &v);
	if (rc != DL_ECONFLICT) fprintf(stderr, "rc %d: %s\n", rc, dl_error_last()->message);
	assert_int_equal(rc, DL_ECONFLICT);
	assert_int_equal(v, -1);
	assert_string_equal(dl_error_last()->klass, klass);
}

/* A DELETE-like commit (reads a predicate, removes files) vs an append into
 * the partition it read: DELTA_CONCURRENT_APPEND; into another partition:
 * retried. */
static void test_concurrent_append(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	dl_snapshot *s0 = open_snap(s);
	append_file(s, s0, "d=a/f0.parquet", "a");
	dl_snapshot_free(s0);
	dl_snapshot *snap = open_snap(s); /* v1 */
	dl_transaction *del = begin(s, snap, "DELETE");
	assert_int_equal(dl_txn_read_predicate(del, "d = 'a'"), 0);
	assert_int_equal(dl_txn_read_file(del, "d=a/f0.parquet"), 0);
	dl_kv pv;
	dl_remove r = make_remove("d=a/f0.parquet", "a", &pv);
	assert_int_equal(dl_txn_remove_file(del, &r), 0);
	/* A non-blind winner (it read something) adding into d=b does not matter */
	dl_transaction *w = begin(s, snap, "WRITE");
	dl_txn_read_predicate(w, "d = 'b'");
	dl_kv pv2;
	dl_add a = make_add("d=b/f1.parquet", "b", &pv2);
	dl_txn_add_file(w, &a);
	int64_t v;
	assert_int_equal(dl_txn_commit(w, &v), 0);
	dl_txn_free(w);
	/* ... but one adding into d=a does */
	w = begin(s, snap, "MERGE");
	dl_txn_read_predicate(w, "d = 'a'");
	a = make_add("d=a/f2.parquet", "a", &pv2);
	dl_txn_add_file(w, &a);
	assert_int_equal(dl_txn_commit(w, &v), 0);
	assert_int_equal(v, 3);
	dl_txn_free(w);
	expect_class(del, "DELTA_CONCURRENT_APPEND");
	dl_txn_free(del);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

/* Blind appends do not conflict under WriteSerializable but do under
 * Serializable. */
static void test_isolation_levels(void **state)
{
	(void)state;
	for (int serializable = 0; serializable < 2; serializable++) {
		dl_store *s = new_store();
		const char *k[] = {"delta.isolationLevel"};
		const char *val[] = {"Serializable"};
		create(s, k, val, serializable ? 1 : 0);
		dl_snapshot *snap = open_snap(s);
		dl_transaction *upd = begin(s, snap, "UPDATE");
		dl_txn_read_predicate(upd, "d = 'a'");
		dl_kv pv;
		dl_add a = make_add("d=a/u.parquet", "a", &pv);
		dl_txn_add_file(upd, &a);
		append_file(s, snap, "d=a/blind.parquet", "a");
		if (serializable) {
			expect_class(upd, "DELTA_CONCURRENT_APPEND");
			char *c = read_commit(s, 1);
			assert_non_null(strstr(c, "\"isolationLevel\":\"Serializable\""));
			dl_free(c);
		} else {
			int64_t v;
			assert_int_equal(dl_txn_commit(upd, &v), 0);
			assert_int_equal(v, 2);
		}
		dl_txn_free(upd);
		dl_snapshot_free(snap);
		dl_store_free(s);
	}
}

static void test_delete_conflicts(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	dl_snapshot *s0 = open_snap(s);
	append_file(s, s0, "d=a/f0.parquet", "a");
	append_file(s, s0, "d=b/f1.parquet", "b");
	dl_snapshot_free(s0);
	dl_snapshot *snap = open_snap(s); /* v2 */
	dl_kv pv;
	dl_remove r0 = make_remove("d=a/f0.parquet", "a", &pv);
	/* reader of f0 vs a delete of f0 */
	dl_transaction *reader = begin(s, snap, "UPDATE");
	dl_txn_read_file(reader, "d=a/f0.parquet");
	dl_kv pva;
	dl_add a = make_add("d=a/g.parquet", "a", &pva);
	dl_txn_add_file(reader, &a);
	/* deleter of f0 twice */
	dl_transaction *d2 = begin(s, snap, "DELETE");
	dl_txn_remove_file(d2, &r0);
	/* whole-table reader */
	dl_transaction *whole = begin(s, snap, "OVERWRITE");
	dl_txn_read_whole_table(whole);
	dl_txn_add_file(whole, &a);

	dl_transaction *d1 = begin(s, snap, "DELETE");
	dl_txn_remove_file(d1, &r0);
	int64_t v;
	assert_int_equal(dl_txn_commit(d1, &v), 0);
	assert_int_equal(v, 3);
	dl_txn_free(d1);
	expect_class(reader, "DELTA_CONCURRENT_DELETE_READ");
	expect_class(d2, "DELTA_CONCURRENT_DELETE_DELETE");
	expect_class(whole, "DELTA_CONCURRENT_DELETE_READ");
	dl_txn_free(reader);
	dl_txn_free(d2);
	dl_txn_free(whole);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void test_metadata_protocol_conflicts(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	dl_snapshot *snap = open_snap(s);
	dl_transaction *w = begin(s, snap, "WRITE");
	dl_kv pv;
	dl_add a = make_add("x.parquet", "a", &pv);
	dl_txn_add_file(w, &a);
	dl_transaction *p2 = begin(s, snap, "UPGRADE PROTOCOL");
	dl_protocol p = {1, 3, NULL, 0, NULL, 0};
	dl_txn_set_protocol(p2, &p);
	dl_transaction *alter = begin(s, snap, "SET TBLPROPERTIES");
	dl_kv kv = {"delta.appendOnly", "false"};
	dl_metadata m = {.id = "6a3c1f0e-0000-4000-8000-000000000001", .schema_string = SCHEMA,
	                 .created_time = DL_NONE, .configuration = {&kv, 1}};
	assert_int_equal(dl_txn_set_metadata(alter, &m), 0);
	assert_int_equal(dl_txn_set_metadata(alter, &m), DL_EINVALID);
	int64_t v;
	assert_int_equal(dl_txn_commit(alter, &v), 0);
	dl_txn_free(alter);
	expect_class(w, "DELTA_METADATA_CHANGED");
	dl_txn_free(w);
	/* protocol change vs protocol change */
	dl_snapshot_free(snap);
	snap = open_snap(s);
	dl_transaction *p1 = begin(s, snap, "UPGRADE PROTOCOL");
	dl_txn_set_protocol(p1, &p);
	dl_txn_free(p2);
	p2 = begin(s, snap, "UPGRADE PROTOCOL");
	dl_txn_set_protocol(p2, &p);
	assert_int_equal(dl_txn_commit(p1, &v), 0);
	expect_class(p2, "DELTA_PROTOCOL_CHANGED");
	dl_txn_free(p1);
	dl_txn_free(p2);
	dl_snapshot_free(snap);
	/* two creators of one table */
	dl_store *e = new_store();
	create(e, NULL, NULL, 0);
	dl_transaction *c = begin(e, NULL, "CREATE TABLE");
	dl_txn_set_protocol(c, &p);
	dl_txn_set_metadata(c, &m);
	expect_class(c, "DELTA_PROTOCOL_CHANGED");
	dl_txn_free(c);
	dl_store_free(e);
	dl_store_free(s);
}

static void test_app_ids(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	dl_snapshot *snap = open_snap(s);
	dl_transaction *a1 = begin(s, snap, "STREAMING UPDATE");
	dl_transaction *a2 = begin(s, snap, "STREAMING UPDATE");
	int64_t ver;
	assert_int_equal(dl_txn_app_version(a1, "app", &ver), DL_ENOTFOUND);
	dl_txn_set_app_txn(a1, "app", 7);
	dl_txn_set_app_txn(a2, "app", 7);
	dl_transaction *other = begin(s, snap, "STREAMING UPDATE");
	dl_txn_set_app_txn(other, "other-app", 1);
	int64_t v;
	assert_int_equal(dl_txn_commit(a1, &v), 0);
	assert_int_equal(dl_txn_commit(other, &v), 0); /* different app: retried */
	assert_int_equal(v, 2);
	expect_class(a2, "DELTA_CONCURRENT_TRANSACTION");
	dl_txn_free(a1);
	dl_txn_free(a2);
	dl_txn_free(other);
	/* the same metadata domain changed twice at once */
	dl_snapshot_free(snap);
	snap = open_snap(s);
	dl_transaction *d1 = begin(s, snap, "SET DOMAIN"), *d2 = begin(s, snap, "SET DOMAIN");
	dl_transaction *d3 = begin(s, snap, "SET DOMAIN");
	dl_txn_set_domain(d1, "user.cfg", "{\"a\":1}", false);
	dl_txn_set_domain(d2, "user.cfg", "{\"a\":2}", false);
	dl_txn_set_domain(d3, "user.other", "{}", false);
	assert_int_equal(dl_txn_commit(d1, &v), 0);
	assert_int_equal(dl_txn_commit(d3, &v), 0); /* another domain: retried */
	expect_class(d2, "DELTA_CONCURRENT_TRANSACTION");
	dl_txn_free(d1);
	dl_txn_free(d2);
	dl_txn_free(d3);
	dl_snapshot_free(snap);
	snap = open_snap(s);
	assert_int_equal(dl_snapshot_app_version(&ver, snap, "app"), 0);
	assert_int_equal(ver, 7);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void test_append_only(void **state)
{
	(void)state;
	dl_store *s = new_store();
	const char *k[] = {"delta.appendOnly"};
	const char *val[] = {"true"};
	create(s, k, val, 1);
	dl_snapshot *snap = open_snap(s);
	append_file(s, snap, "f.parquet", "a");
	dl_snapshot_free(snap);
	snap = open_snap(s);
	dl_transaction *t = begin(s, snap, "DELETE");
	dl_kv pv;
	dl_remove r = make_remove("f.parquet", "a", &pv);
	dl_txn_remove_file(t, &r);
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), DL_ECONSTRAINT);
	assert_non_null(strstr(dl_error_last()->message, "delta.appendOnly"));
	dl_txn_free(t);
	/* dataChange=false removes (compaction) are allowed */
	t = begin(s, snap, "OPTIMIZE");
	r.data_change = false;
	dl_txn_remove_file(t, &r);
	dl_kv pva;
	dl_add a = make_add("g.parquet", "a", &pva);
	a.data_change = false;
	dl_txn_add_file(t, &a);
	assert_int_equal(dl_txn_commit(t, &v), 0);
	char *c = read_commit(s, v);
	assert_non_null(strstr(c, "\"isolationLevel\":\"SnapshotIsolation\",\"isBlindAppend\":false"));
	dl_free(c);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void test_in_commit_timestamps(void **state)
{
	(void)state;
	dl_store *s = new_store();
	const char *k[] = {"delta.enableInCommitTimestamps"};
	const char *val[] = {"true"};
	create(s, k, val, 1);
	dl_snapshot *snap = open_snap(s);
	int64_t prev = snap->in_commit_timestamp;
	assert_true(prev != DL_NONE);
	/* a clock pinned in the past still gives strictly increasing ICTs,
	 * also across retries */
	for (int i = 0; i < 3; i++) {
		dl_transaction *t;
		dl_txn_options o = DL_TXN_OPTIONS_INIT;
		o.now_ms = 1000;
		assert_int_equal(dl_txn_begin(&t, s, snap, &o), 0);
		dl_kv pv;
		char path[32];
		snprintf(path, sizeof path, "f%d.parquet", i);
		dl_add a = make_add(path, "a", &pv);
		dl_txn_add_file(t, &a);
		int64_t v;
		assert_int_equal(dl_txn_commit(t, &v), 0);
		assert_true(dl_txn_commit_timestamp(t) > prev);
		prev = dl_txn_commit_timestamp(t);
		int64_t ict;
		assert_int_equal(dl_log_commit_ict(s, v, &ict), 0);
		assert_int_equal(ict, prev);
		char *c = read_commit(s, v);
		assert_true(strncmp(c, "{\"commitInfo\":{\"inCommitTimestamp\":", 35) == 0);
		dl_free(c);
		dl_txn_free(t);
	}
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void check_crc(dl_store *s, int64_t v)
{
	char path[96];
	dl_log_commit_path(path, sizeof path, v);
	strcpy(path + strlen(path) - 4, "crc");
	dl_arena a = DL_ARENA_INIT;
	dl_version_checksum c;
	int rc = dl_version_checksum_read(&c, &a, s, path);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.store = s;
	o.as_of_version = v;
	dl_snapshot *snap;
	assert_int_equal(dl_snapshot_open(&snap, NULL, &o), 0);
	assert_int_equal(c.num_files, (int64_t)dl_snapshot_file_count(snap));
	assert_int_equal(c.table_size_bytes, dl_snapshot_total_size(snap));
	assert_string_equal(c.metadata->id, dl_snapshot_table_id(snap));
	assert_int_equal(c.protocol->min_writer_version, dl_snapshot_min_writer_version(snap));
	if (c.has_txns) assert_int_equal(c.ntxns, dl_snapshot_app_count(snap));
	dl_snapshot_free(snap);
	dl_arena_free(&a);
}

static void test_crc_files(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	check_crc(s, 0);
	dl_snapshot *snap = open_snap(s); /* metadata from v0: no files loaded */
	append_file(s, snap, "a.parquet", "a");
	append_file(s, snap, "b.parquet", "a"); /* after a retry */
	check_crc(s, 1);
	check_crc(s, 2);
	dl_snapshot_free(snap);
	snap = open_snap(s);
	dl_transaction *t = begin(s, snap, "DELETE");
	dl_kv pv;
	dl_remove r = make_remove("a.parquet", "a", &pv);
	dl_txn_remove_file(t, &r);
	dl_txn_set_app_txn(t, "app", 3);
	dl_txn_set_domain(t, "user.domain", "{\"k\":1}", false);
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), 0);
	dl_txn_free(t);
	check_crc(s, 3);
	/* a winner's protocol upgrade: the retried append lands, and no .crc
	 * claims the old protocol for its version */
	dl_snapshot_free(snap);
	snap = open_snap(s);
	dl_transaction *app = begin(s, snap, "WRITE");
	dl_kv pva;
	dl_add a = make_add("c.parquet", "a", &pva);
	dl_txn_add_file(app, &a);
	dl_transaction *up = begin(s, snap, "UPGRADE PROTOCOL");
	dl_protocol p3 = {1, 3, NULL, 0, NULL, 0};
	dl_txn_set_protocol(up, &p3);
	assert_int_equal(dl_txn_commit(up, &v), 0);
	dl_txn_free(up);
	assert_int_equal(dl_txn_commit(app, &v), 0);
	assert_int_equal(v, 5);
	dl_txn_free(app);
	dl_object_info info;
	assert_int_equal(dl_store_stat(&info, s, "_delta_log/00000000000000000005.crc"), DL_ENOTFOUND);
	dl_error_clear();
	dl_snapshot_free(snap);
	dl_store_free(s);
}


/* Two writers of a row-tracking table assign row ids from the same mark;
 * the one that commits second gets its ids moved past the winner's and its
 * defaultRowCommitVersion set to where it landed (no conflict). */
static void test_row_tracking_retry(void **state)
{
	(void)state;
	dl_store *s = new_store();
	dl_transaction *t = begin(s, NULL, "CREATE TABLE");
	const char *wf[] = {"rowTracking", "domainMetadata"};
	dl_protocol p = {1, 7, NULL, 0, wf, 2};
	dl_kv kv = {"delta.enableRowTracking", "true"};
	dl_metadata m = {.id = "6a3c1f0e-0000-4000-8000-0000000000aa", .schema_string = SCHEMA,
	                 .created_time = DL_NONE, .configuration = {&kv, 1}};
	assert_int_equal(dl_txn_set_protocol(t, &p), 0);
	assert_int_equal(dl_txn_set_metadata(t, &m), 0);
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), 0);
	dl_txn_free(t);
	dl_snapshot *snap = open_snap(s);
	dl_transaction *w[2];
	for (int i = 0; i < 2; i++) {
		w[i] = begin(s, snap, "WRITE");
		for (int f = 0; f < 2; f++) {
			char path[32];
			snprintf(path, sizeof path, "w%d-%d.parquet", i, f);
			dl_kv pv;
			dl_add a = make_add(path, "a", &pv);
			a.base_row_id = f * 3;          /* 3 rows per file, after mark -1 */
			a.default_row_commit_version = 1;
			assert_int_equal(dl_txn_add_file(w[i], &a), 0);
		}
		assert_int_equal(dl_txn_set_domain(w[i], "delta.rowTracking", "{\"rowIdHighWaterMark\":5}", false), 0);
	}
	assert_int_equal(dl_txn_commit(w[0], &v), 0);
	assert_int_equal(v, 1);
	int rc = dl_txn_commit(w[1], &v);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	assert_int_equal(v, 2);
	dl_txn_free(w[0]);
	dl_txn_free(w[1]);
	dl_snapshot_free(snap);
	snap = open_snap(s);
	assert_string_equal(dl_snapshot_domain(snap, "delta.rowTracking"), "{\"rowIdHighWaterMark\":11}");
	for (size_t i = 0; i < dl_snapshot_file_count(snap); i++) {
		dl_file_info f;
		assert_int_equal(dl_snapshot_file_at(&f, snap, i), 0);
		int wr, k;
		assert_int_equal(sscanf(f.path, "w%d-%d", &wr, &k), 2);
		assert_int_equal(f.base_row_id, wr * 6 + k * 3);
		assert_int_equal(f.default_row_commit_version, wr + 1);
	}
	dl_snapshot_free(snap);
	dl_store_free(s);
}

/* Enabling in-commit timestamps on a table with history records the
 * enablement version and timestamp in the metaData, for the version the
 * commit lands at (after a retry too). */
static void test_ict_enablement(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	dl_snapshot *snap = open_snap(s);
	dl_transaction *alter = begin(s, snap, "SET TBLPROPERTIES");
	const char *wf[] = {"inCommitTimestamp", "appendOnly", "invariants"};
	dl_protocol p = {1, 7, NULL, 0, wf, 3};
	dl_kv kv = {"delta.enableInCommitTimestamps", "true"};
	const char *parts[] = {"d"};
	dl_metadata m = {.id = "6a3c1f0e-0000-4000-8000-000000000001", .schema_string = SCHEMA,
	                 .partition_columns = parts, .npartition_columns = 1,
	                 .created_time = DL_NONE, .configuration = {&kv, 1}};
	assert_int_equal(dl_txn_set_protocol(alter, &p), 0);
	assert_int_equal(dl_txn_set_metadata(alter, &m), 0);
	append_file(s, snap, "before.parquet", "a"); /* a blind append wins version 1 */
	int64_t v;
	int rc = dl_txn_commit(alter, &v);
	if (rc < 0) fprintf(stderr, "%s\n", dl_error_last()->message);
	assert_int_equal(rc, 0);
	assert_int_equal(v, 2);
	int64_t ict = dl_txn_commit_timestamp(alter);
	dl_txn_free(alter);
	dl_snapshot_free(snap);
	snap = open_snap(s);
	assert_string_equal(dl_snapshot_property(snap, "delta.inCommitTimestampEnablementVersion"), "2");
	char ts[32];
	snprintf(ts, sizeof ts, "%lld", (long long)ict);
	assert_string_equal(dl_snapshot_property(snap, "delta.inCommitTimestampEnablementTimestamp"), ts);
	assert_int_equal(dl_snapshot_timestamp(snap), ict);
	/* later commits keep increasing from it */
	int64_t v3 = append_file(s, snap, "after.parquet", "a");
	int64_t ict3;
	assert_int_equal(dl_log_commit_ict(s, v3, &ict3), 0);
	assert_true(ict3 > ict);
	dl_snapshot_free(snap);
	dl_store_free(s);
}

/* Retries are bounded, and a winner that cannot be read is an error, not a
 * conflict and not a crash. */
static void test_retry_limit_and_bad_winner(void **state)
{
	(void)state;
	dl_store *s = new_store();
	create(s, NULL, NULL, 0);
	dl_snapshot *snap = open_snap(s);
	dl_transaction *t;
	dl_txn_options o = DL_TXN_OPTIONS_INIT;
	o.max_retries = 0;
	assert_int_equal(dl_txn_begin(&t, s, snap, &o), 0);
	dl_kv pv;
	dl_add a = make_add("late.parquet", "a", &pv);
	dl_txn_add_file(t, &a);
	append_file(s, snap, "first.parquet", "a");
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), DL_ECONFLICT);
	assert_non_null(strstr(dl_error_last()->message, "gave up"));
	dl_txn_free(t);
	/* version 2 is garbage: the next writer reports it */
	static const char *bad[] = {"{\"add\":{\"path\":", "not json\n", "{\"remove\":{\"path\":5}}\n"};
	for (int i = 0; i < 3; i++) {
		dl_store *b = new_store();
		create(b, NULL, NULL, 0);
		dl_snapshot *bs = open_snap(b);
		assert_int_equal(dl_store_put_if_absent(b, "_delta_log/00000000000000000001.json", bad[i],
		                                        strlen(bad[i])), 0);
		t = begin(b, bs, "WRITE");
		a = make_add("x.parquet", "a", &pv);
		dl_txn_add_file(t, &a);
		int rc = dl_txn_commit(t, &v);
		assert_int_equal(rc, DL_ECORRUPT);
		assert_non_null(strstr(dl_error_last()->message, "00000000000000000001.json"));
		dl_txn_free(t);
		dl_snapshot_free(bs);
		dl_store_free(b);
	}
	dl_snapshot_free(snap);
	dl_store_free(s);
}

static void test_invalid_use(void **state)
{
	(void)state;
	dl_store *s = new_store();
	dl_transaction *t = begin(s, NULL, "CREATE TABLE");
	int64_t v;
	assert_int_equal(dl_txn_commit(t, &v), DL_EINVALID); /* no protocol/metaData */
	dl_action ci = {.kind = DL_ACTION_COMMIT_INFO};
	assert_int_equal(dl_txn_add_action(t, &ci), DL_EINVALID);
	assert_int_equal(dl_txn_read_predicate(t, "d = = 1"), DL_EINVALID);
	dl_txn_free(t);
	dl_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_and_commit_info),
		cmocka_unit_test(test_blind_appends_retry),
		cmocka_unit_test(test_concurrent_append),
		cmocka_unit_test(test_isolation_levels),
		cmocka_unit_test(test_delete_conflicts),
		cmocka_unit_test(test_metadata_protocol_conflicts),
		cmocka_unit_test(test_app_ids),
		cmocka_unit_test(test_append_only),
		cmocka_unit_test(test_in_commit_timestamps),
		cmocka_unit_test(test_crc_files),
		cmocka_unit_test(test_row_tracking_retry),
		cmocka_unit_test(test_ict_enablement),
		cmocka_unit_test(test_retry_limit_and_bad_winner),
		cmocka_unit_test(test_invalid_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
