/* Helpers of the rewrite engine's tests: tables of one BIGINT column `id`
 * (optionally partitioned by `p` INT) created and appended through the
 * transaction layer and the file writer (the layers below the engine), and
 * read back as sorted "id:row_id:commit_version" text. */
#ifndef DL_TEST_RW_FIXTURE_H
#define DL_TEST_RW_FIXTURE_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "columnar/builder.h"
#include "deltalake/changes.h"
#include "deltalake/scan.h"
#include "deltalake/snapshot.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "rewrite/file_writer.h"
#include "rewrite/rewrite.h"
#include "table/scan.h"
#include "txn/txn.h"
#include "txn/txn_internal.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "unit/table_fixture.h"

#define RWF_SCHEMA "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}"

static char g_rwf_root[256];

static inline int64_t dl_txn_row_id_hwm_of(dl_snapshot *snap)
{
	return dl_txn_row_id_hwm(dl_snapshot_domain(snap, "delta.rowTracking"));
}

static inline char *rwf_table(const char *name)
{
	return fx_table_path(g_rwf_root, sizeof g_rwf_root, "/tmp/dl_rewrite_test_XXXXXX", name);
}

static inline void rwf_cleanup(void)
{
	fx_remove_root(g_rwf_root);
}

/* Creates the table with row tracking (with or without the materialized
 * column names) and, when asked, DVs and CDF. */
static inline int rwf_create_named(const char *uri, bool dv, bool cdf, bool names)
{
	dl_store *store;
	DL_TRY(dl_store_open(&store, uri, NULL));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "CREATE TABLE";
	to.no_post_commit = true;
	int rc = dl_txn_begin(&t, store, NULL, &to);
	const char *wf[] = {"rowTracking", "domainMetadata", "deletionVectors", "changeDataFeed"};
	const char *rf[] = {"deletionVectors"};
	dl_protocol p = {3, 7, rf, dv ? 1 : 0, wf, 2};
	if (dv) wf[p.nwriter_features++] = "deletionVectors";
	if (cdf) wf[p.nwriter_features++] = "changeDataFeed";
	dl_kv kv[8];
	uint32_t n = 0;
	kv[n++] = (dl_kv){"delta.enableRowTracking", "true"};
	if (names) {
		kv[n++] = (dl_kv){"delta.rowTracking.materializedRowIdColumnName", "_row-id-col-test"};
		kv[n++] = (dl_kv){"delta.rowTracking.materializedRowCommitVersionColumnName",
		                  "_row-commit-version-col-test"};
	}
	if (dv) kv[n++] = (dl_kv){"delta.enableDeletionVectors", "true"};
	if (cdf) kv[n++] = (dl_kv){"delta.enableChangeDataFeed", "true"};
	dl_metadata md;
	memset(&md, 0, sizeof md);
	md.id = "00000000-0000-0000-0000-000000000001";
	md.format_provider = "parquet";
	md.schema_string = RWF_SCHEMA;
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

static inline int rwf_create(const char *uri, bool dv, bool cdf)
{
	return rwf_create_named(uri, dv, cdf, true);
}

static inline dl_batch *rwf_ids(const int64_t *ids, int64_t n)
{
	dl_type *s;
	if (dl_schema_parse(&s, RWF_SCHEMA, strlen(RWF_SCHEMA)) < 0) return NULL;
	dl_builder *b;
	dl_builder_new(&b, s->children[0].type);
	for (int64_t i = 0; i < n; i++) dl_builder_append_int(b, ids[i]);
	dl_batch *out = dl_batch_new(s, n);
	dl_builder_finish(&out->cols[0], b);
	dl_builder_free(b);
	dl_type_unref(s);
	return out;
}

/* Appends one file per group: ids [first + k*per, first + (k+1)*per). */
static inline int rwf_append(const char *uri, int64_t first, int64_t per, int files)
{
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, uri, NULL));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "WRITE";
	to.no_post_commit = true;
	int rc = dl_txn_begin(&t, dl_snapshot_store(snap), snap, &to);
	dl_table_properties props;
	dl_table_properties_defaults(&props);
	int64_t hwm = dl_txn_row_id_hwm_of(snap);
	for (int k = 0; k < files && rc == 0; k++) {
		dl_files_writer_options fo;
		memset(&fo, 0, sizeof fo);
		fo.store = dl_snapshot_store(snap);
		fo.schema = dl_snapshot_schema(snap);
		fo.props = &props;
		fo.data_change = true;
		fo.threads = 1;
		dl_files_writer *fw = NULL;
		int64_t *ids = malloc((size_t)per * sizeof *ids);
		for (int64_t i = 0; i < per; i++) ids[i] = first + k * per + i;
		dl_batch *b = rwf_ids(ids, per);
		free(ids);
		rc = dl_files_writer_open(&fw, &fo);
		if (rc == 0) rc = dl_files_writer_write(fw, b);
		if (rc == 0) rc = dl_files_writer_finish(fw);
		for (size_t i = 0; rc == 0 && i < dl_files_writer_count(fw); i++) {
			dl_add a = *dl_files_writer_add(fw, i);
			a.base_row_id = hwm + 1;
			a.default_row_commit_version = dl_txn_read_version(t) + 1;
			hwm += dl_files_writer_file_rows(fw, i);
			rc = dl_txn_add_file(t, &a);
		}
		dl_batch_free(b);
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

static inline int fx_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}


static inline void rwf_row_text(const dl_batch *b, int64_t r, char *out, size_t cap)
{
	snprintf(out, cap, "%lld:%lld:%lld", (long long)((int64_t *)b->cols[0]->values)[r],
	         (long long)((int64_t *)b->cols[1]->values)[r], (long long)((int64_t *)b->cols[2]->values)[r]);
}

/* "id:row_id:commit_version id:..." of the latest version, sorted by id. */
static inline char *rwf_read(const char *uri)
{
	const char *cols[] = {"id", DL_SCAN_ROW_ID, DL_SCAN_ROW_COMMIT_VERSION};
	return fx_read_rows(uri, cols, 3, rwf_row_text, 64);
}



/* Files (recursively, outside _delta_log) whose name starts with prefix. */
static inline int rwf_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d) return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "_delta_log") == 0) continue;
		dl_buf sub = DL_BUF_INIT;
		dl_buf_printf(&sub, "%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) n += rwf_files(sub.data, prefix);
		else if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
		dl_buf_free(&sub);
	}
	closedir(d);
	return n;
}

/* One rewrite in its own transaction: touch_where(pred) (or the callback's
 * touches when pred is NULL), run, commit. */
typedef int (*rwf_touch_fn)(dl_rewrite *rw, dl_snapshot *snap, void *payload);
static inline int rwf_rewrite(int64_t *version, const char *uri, const char *pred,
                              dl_rewrite_options *ro, rwf_touch_fn touch, void *payload)
{
	dl_snapshot *snap;
	DL_TRY(dl_snapshot_open(&snap, uri, NULL));
	dl_transaction *t = NULL;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = "DELETE";
	to.no_post_commit = true;
	int rc = dl_txn_begin(&t, dl_snapshot_store(snap), snap, &to);
	dl_rewrite *rw = NULL;
	ro->txn = t;
	if (rc == 0) rc = dl_rewrite_new(&rw, ro);
	if (rc == 0) rc = pred ? dl_rewrite_touch_where(rw, pred) : touch(rw, snap, payload);
	if (rc == 0) rc = dl_rewrite_run(rw);
	int64_t hwm = dl_txn_row_id_hwm_of(snap), before = hwm;
	if (rc == 0) rc = dl_rewrite_commit(rw, &hwm);
	char conf[64];
	snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
	if (rc == 0 && hwm != before) rc = dl_txn_set_domain(t, "delta.rowTracking", conf, false);
	if (rc == 0) rc = dl_txn_commit(t, version);
	if (rc < 0 && rw) dl_rewrite_discard(rw);
	dl_rewrite_free(rw);
	dl_txn_free(t);
	dl_snapshot_free(snap);
	return rc;
}

#endif
