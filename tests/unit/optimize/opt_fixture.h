/* Tables for OPTIMIZE's tests, built with the layers below it (the
 * transaction layer and the file writer): schema (id BIGINT, x BIGINT,
 * y BIGINT, s STRING, p INT), optionally partitioned by p, with row
 * tracking and deletion vectors; each append writes one file per call of
 * opt_append_file. Rows read back as sorted "id:x:y:s:p:row_id:commit_version" text. */
#ifndef DL_TEST_OPT_FIXTURE_H
#define DL_TEST_OPT_FIXTURE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/builder.h"
#include "deltalake/maintenance.h"
#include "deltalake/scan.h"
#include "deltalake/snapshot.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "rewrite/file_writer.h"
#include "rewrite/rewrite.h"
#include "table/scan.h"
#include "txn/txn.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "unit/table_fixture.h"

#define OF_F(n, t) "{\"name\":\"" n "\",\"type\":\"" t "\",\"nullable\":true,\"metadata\":{}}"
#define OF_SCHEMA                                                                                     \
	"{\"type\":\"struct\",\"fields\":[" OF_F("id", "long") "," OF_F("x", "long") "," OF_F("y", "long") "," \
	OF_F("s", "string") "," OF_F("p", "integer") "]}"

static char g_of_root[256];

static inline char *of_table(const char *name)
{
	return fx_table_path(g_of_root, sizeof g_of_root, "/tmp/dl_optimize_test_XXXXXX", name);
}

static inline void of_cleanup(void)
{
	fx_remove_root(g_of_root);
}

/* extra: more configuration (key, value pairs, NULL-terminated) */
static inline int of_create(const char *uri, bool partitioned, const char *const *extra)
{
	dl_store *store;
	DL_TRY(dl_store_open(&store, uri, NULL));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "CREATE TABLE";
	to.no_post_commit = true;
	int rc = dl_txn_begin(&t, store, NULL, &to);
	const char *wf[] = {"rowTracking", "domainMetadata", "deletionVectors", "clustering"};
	const char *rf[] = {"deletionVectors"};
	dl_protocol p = {3, 7, rf, 1, wf, 4};
	dl_kv kv[16];
	uint32_t n = 0;
	kv[n++] = (dl_kv){"delta.enableRowTracking", "true"};
	kv[n++] = (dl_kv){"delta.rowTracking.materializedRowIdColumnName", "_row-id-col-test"};
	kv[n++] = (dl_kv){"delta.rowTracking.materializedRowCommitVersionColumnName", "_row-commit-version-col-test"};
	kv[n++] = (dl_kv){"delta.enableDeletionVectors", "true"};
	for (int i = 0; extra && extra[i] && n < 16; i += 2) kv[n++] = (dl_kv){extra[i], extra[i + 1]};
	const char *pc[] = {"p"};
	dl_metadata md;
	memset(&md, 0, sizeof md);
	md.id = "00000000-0000-0000-0000-000000000002";
	md.format_provider = "parquet";
	md.schema_string = OF_SCHEMA;
	md.partition_columns = partitioned ? pc : NULL;
	md.npartition_columns = partitioned ? 1 : 0;
	md.created_time = 1;
	md.configuration.items = kv;
	md.configuration.n = n;
	if (rc == 0) rc = dl_txn_set_protocol(t, &p);
	if (rc == 0) rc = dl_txn_set_metadata(t, &md);
	int64_t v;
	if (rc == 0) rc = dl_txn_commit(t, &v);
	dl_txn_free(t);
	dl_store_free(store);
	return rc;
}

/* Sets the delta.clustering domain (a clustered table). */
static inline int of_set_domain(const char *uri, const char *domain, const char *conf)
{
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, uri, NULL));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "CLUSTER BY";
	to.no_post_commit = true;
	int rc = dl_txn_begin(&t, dl_snapshot_store(snap), snap, &to);
	if (rc == 0) rc = dl_txn_set_domain(t, domain, conf, false);
	int64_t v;
	if (rc == 0) rc = dl_txn_commit(t, &v);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	return rc;
}

typedef void (*of_row_fn)(int64_t i, int64_t *x, int64_t *y, int *p);

static inline int64_t of_hwm(dl_snapshot *snap)
{
	return dl_txn_row_id_hwm(dl_snapshot_domain(snap, "delta.rowTracking"));
}

/* Appends `files` files of `per` rows: ids first.., x/y/p from fn. */
static inline int of_append(const char *uri, int64_t first, int64_t per, int files, of_row_fn fn)
{
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, uri, NULL));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "WRITE";
	to.no_post_commit = true;
	int rc = dl_txn_begin(&t, dl_snapshot_store(snap), snap, &to);
	int64_t hwm = of_hwm(snap);
	const dl_metadata *md = dl_snapshot_state(snap)->metadata;
	for (int k = 0; k < files && rc == 0; k++) {
		dl_files_writer_options fo;
		memset(&fo, 0, sizeof fo);
		fo.store = dl_snapshot_store(snap);
		fo.schema = dl_snapshot_schema(snap);
		fo.partition_columns = (const char *const *)md->partition_columns;
		fo.npartition_columns = (int)md->npartition_columns;
		fo.props = dl_snapshot_props(snap);
		fo.data_change = true;
		fo.threads = 1;
		dl_files_writer *fw = NULL;
		const dl_type *s = dl_snapshot_schema(snap);
		dl_builder *b[5];
		for (int c = 0; c < 5; c++) dl_builder_new(&b[c], s->children[c].type);
		for (int64_t i = 0; i < per; i++) {
			int64_t id = first + k * per + i, x = id, y = id;
			int p = 0;
			if (fn) fn(id, &x, &y, &p);
			char str[32];
			snprintf(str, sizeof str, "s%lld", (long long)id);
			dl_builder_append_int(b[0], id);
			dl_builder_append_int(b[1], x);
			dl_builder_append_int(b[2], y);
			dl_builder_append_bytes(b[3], str, strlen(str));
			dl_builder_append_int(b[4], p);
		}
		dl_batch *bt = dl_batch_new((dl_type *)s, per);
		for (int c = 0; c < 5; c++) {
			dl_builder_finish(&bt->cols[c], b[c]);
			dl_builder_free(b[c]);
		}
		rc = dl_files_writer_open(&fw, &fo);
		if (rc == 0) rc = dl_files_writer_write(fw, bt);
		if (rc == 0) rc = dl_files_writer_finish(fw);
		for (size_t i = 0; rc == 0 && i < dl_files_writer_count(fw); i++) {
			dl_add a = *dl_files_writer_add(fw, i);
			a.base_row_id = hwm + 1;
			a.default_row_commit_version = dl_txn_read_version(t) + 1;
			hwm += dl_files_writer_file_rows(fw, i);
			rc = dl_txn_add_file(t, &a);
		}
		dl_batch_free(bt);
		dl_files_writer_free(fw);
	}
	char conf[64];
	snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
	if (rc == 0) rc = dl_txn_set_domain(t, "delta.rowTracking", conf, false);
	int64_t v;
	if (rc == 0) rc = dl_txn_commit(t, &v);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	return rc;
}

/* Deletes rows matching pred through the rewrite engine (DVs). */
static inline int of_delete(const char *uri, const char *pred)
{
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, uri, NULL));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "DELETE";
	to.no_post_commit = true;
	int rc = dl_txn_begin(&t, dl_snapshot_store(snap), snap, &to);
	dl_rewrite *rw = NULL;
	dl_rewrite_options ro = DL_REWRITE_OPTIONS_INIT;
	ro.txn = t;
	if (rc == 0) rc = dl_rewrite_new(&rw, &ro);
	if (rc == 0) rc = dl_rewrite_touch_where(rw, pred);
	if (rc == 0) rc = dl_rewrite_run(rw);
	int64_t hwm = of_hwm(snap), before = hwm;
	if (rc == 0) rc = dl_rewrite_commit(rw, &hwm);
	char conf[64];
	snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
	if (rc == 0 && hwm != before) rc = dl_txn_set_domain(t, "delta.rowTracking", conf, false);
	int64_t v;
	if (rc == 0) rc = dl_txn_commit(t, &v);
	if (rc < 0 && rw) dl_rewrite_discard(rw);
	dl_rewrite_free(rw);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	return rc;
}


static inline void of_row_text(const dl_batch *b, int64_t r, char *out, size_t cap)
{
	const dl_array *sa = b->cols[3];
	int len = sa->offsets[r + 1] - sa->offsets[r];
	snprintf(out, cap, "%lld:%lld:%lld:%.*s:%d:%lld:%lld", (long long)((int64_t *)b->cols[0]->values)[r],
	         (long long)((int64_t *)b->cols[1]->values)[r], (long long)((int64_t *)b->cols[2]->values)[r], len,
	         (const char *)sa->data + sa->offsets[r], ((int32_t *)b->cols[4]->values)[r],
	         (long long)((int64_t *)b->cols[5]->values)[r], (long long)((int64_t *)b->cols[6]->values)[r]);
}

/* Every row of the latest version with its row id and commit version. */
static inline char *of_read(const char *uri)
{
	const char *cols[] = {"id", "x", "y", "s", "p", DL_SCAN_ROW_ID, DL_SCAN_ROW_COMMIT_VERSION};
	return fx_read_rows(uri, cols, 7, of_row_text, 160);
}



/* Live files of the latest version. */
static inline int64_t of_nfiles(const char *uri)
{
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, uri, NULL) < 0) return -1;
	int64_t n = (int64_t)dl_snapshot_state(snap)->nadds;
	dl_snapshot_free(snap);
	return n;
}

/* Files the scan reads for filter (after skipping). */
static inline int64_t of_scan_files(const char *uri, const char *filter)
{
	dl_snapshot *snap;
	if (dl_snapshot_open(&snap, uri, NULL) < 0) return -1;
	dl_scan_options so = DL_SCAN_OPTIONS_INIT;
	so.filter = filter;
	dl_scan *scan;
	int64_t n = -1;
	if (dl_scan_open(&scan, snap, &so) == 0) {
		n = (int64_t)dl_scan_file_count(scan);
		dl_scan_free(scan);
	}
	dl_snapshot_free(snap);
	return n;
}

#endif
