/* Helpers of RESTORE, SHALLOW CLONE and CONVERT TO DELTA (restore_clone.h). */
#include "maint/restore_clone.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "json/json.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "log/stats.h"
#include "log/table_features.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

int dl_maint_store(dl_store **out, bool *owned, dl_store *store, const dl_store_options *options,
                   const char *uri, const char *what)
{
	*out = NULL;
	*owned = false;
	if (store) {
		*out = store;
		return 0;
	}
	if (!uri || !*uri) return dl_error_set(DL_EINVALID, "%s: no table given", what);
	DL_TRY(dl_store_open(out, uri, options));
	*owned = true;
	return 0;
}

int dl_maint_progress(dl_progress_fn fn, void *payload, const char *operation, const char *phase,
                      const char *unit, int64_t done, int64_t total)
{
	if (!fn) return 0;
	dl_progress_info p = {operation, phase, unit, done, total, -1, -1};
	if (fn(&p, payload) == 0) return 0;
	return dl_error_set(DL_ECANCELLED, "%s cancelled by the progress callback (%s)", operation, phase);
}

int dl_maint_file_key(dl_buf *out, const dl_add *add)
{
	dl_buf_clear(out);
	DL_TRY(dl_buf_puts(out, add->path));
	DL_TRY(dl_buf_putc(out, 0));
	if (add->dv) DL_TRY(dl_dv_unique_id(add->dv, out));
	return 0;
}

/* ---- Protocol.merge ---- */

static bool uses_features(const dl_protocol *p)
{
	return p->min_writer_version >= DL_TABLE_FEATURES_WRITER_VERSION ||
	       p->min_reader_version >= DL_TABLE_FEATURES_READER_VERSION;
}

/* Whether the feature set `has` is exactly what legacy (r, w) implies. */
static bool legacy_says(const bool *has, int r, int w)
{
	dl_protocol p = {r, w, NULL, 0, NULL, 0};
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++)
		if (has[i] != dl_protocol_has(&p, (dl_table_feature)i)) return false;
	return true;
}

int dl_maint_protocol_merge(dl_protocol *out, dl_arena *arena, const dl_protocol *a,
                            const dl_protocol *b)
{
	memset(out, 0, sizeof *out);
	int r = a->min_reader_version > b->min_reader_version ? a->min_reader_version : b->min_reader_version;
	int w = a->min_writer_version > b->min_writer_version ? a->min_writer_version : b->min_writer_version;
	if (!uses_features(a) && !uses_features(b)) {
		out->min_reader_version = r;
		out->min_writer_version = w;
		return 0;
	}
	bool has[DL_FEATURE_COUNT];
	bool reader_table_feature = false;
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++) {
		has[i] = dl_protocol_has(a, (dl_table_feature)i) || dl_protocol_has(b, (dl_table_feature)i);
		const dl_table_feature_info *f = dl_table_feature_at(i);
		if (has[i] && f->reader_writer && !f->legacy) reader_table_feature = true;
	}
	/* Spark normalizes: a table-features protocol that says no more than a
	 * legacy pair is written as that pair */
	if (!reader_table_feature && r < DL_TABLE_FEATURES_READER_VERSION) {
		for (int lr = 1; lr <= 2; lr++)
			for (int lw = 1; lw <= 6; lw++)
				if (legacy_says(has, lr, lw)) {
					out->min_reader_version = lr;
					out->min_writer_version = lw;
					return 0;
				}
	}
	/* Unknown features (names the registry lacks) of either side are kept
	 * too: collect the names, registry features first. */
	const char **wf = dl_arena_calloc(arena, DL_FEATURE_COUNT + a->nwriter_features + b->nwriter_features + 1,
	                                  sizeof *wf);
	const char **rf = dl_arena_calloc(arena, DL_FEATURE_COUNT + a->nreader_features + b->nreader_features + 1,
	                                  sizeof *rf);
	if (!wf || !rf) return DL_ENOMEM;
	uint32_t nw = 0, nr = 0;
	if (reader_table_feature && r < DL_TABLE_FEATURES_READER_VERSION) r = DL_TABLE_FEATURES_READER_VERSION;
	w = DL_TABLE_FEATURES_WRITER_VERSION;
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++) {
		if (!has[i]) continue;
		const dl_table_feature_info *f = dl_table_feature_at(i);
		wf[nw++] = f->name;
		if (f->reader_writer && r >= DL_TABLE_FEATURES_READER_VERSION) rf[nr++] = f->name;
	}
	const dl_protocol *sides[2] = {a, b};
	for (int s = 0; s < 2; s++) {
		for (uint32_t i = 0; i < sides[s]->nwriter_features; i++) {
			const char *n = sides[s]->writer_features[i];
			if (dl_table_feature_lookup(n)) continue;
			bool dup = false;
			for (uint32_t j = 0; j < nw && !dup; j++) dup = strcmp(wf[j], n) == 0;
			if (!dup) wf[nw++] = n;
		}
		for (uint32_t i = 0; i < sides[s]->nreader_features && r >= DL_TABLE_FEATURES_READER_VERSION; i++) {
			const char *n = sides[s]->reader_features[i];
			if (dl_table_feature_lookup(n)) continue;
			bool dup = false;
			for (uint32_t j = 0; j < nr && !dup; j++) dup = strcmp(rf[j], n) == 0;
			if (!dup) rf[nr++] = n;
		}
	}
	out->min_reader_version = r;
	out->min_writer_version = w;
	out->writer_features = wf;
	out->nwriter_features = nw;
	if (r >= DL_TABLE_FEATURES_READER_VERSION) {
		out->reader_features = rf;
		out->nreader_features = nr;
	}
	return 0;
}

/* ---- timestamps ---- */

int dl_maint_version_at(int64_t *version, const char **ts_text, dl_arena *arena,
                        struct dl_snapshot *latest, const char *ts, const char *what)
{
	*version = -1;
	int64_t us;
	if (dl_timestamp_parse(&us, ts, strlen(ts), NULL) < 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_TIMESTAMP_INVALID",
		                          "[DELTA_TIMESTAMP_INVALID] The provided timestamp ('%s') cannot be "
		                          "converted to a valid timestamp.", ts);
	/* java.sql.Timestamp.toString: at least one fraction digit */
	char text[DL_TIME_TEXT_MAX + 4];
	size_t n = dl_timestamp_format_spark(text, us, NULL);
	if (!strchr(text, '.') && n + 2 < sizeof text) memcpy(text + n, ".0", 3);
	if (!(*ts_text = dl_arena_strdup(arena, text))) return DL_ENOMEM;
	int64_t ms = dl_floor_div(us, 1000);
	int64_t *vs = NULL, *tss = NULL;
	size_t nc = 0;
	int rc = dl_log_commit_timestamps(dl_snapshot_store(latest), dl_snapshot_props(latest), &vs, &tss, &nc);
	if (rc == 0 && nc > 0 && ms < tss[0]) {
		char a[DL_TIME_TEXT_MAX], b[DL_TIME_TEXT_MAX];
		dl_timestamp_format_spark(a, us, NULL);
		dl_timestamp_format_spark(b, tss[0] * 1000, NULL);
		rc = dl_error_set_class(DL_ENOTFOUND, "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION",
		                        "[DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION] %s: the provided "
		                        "timestamp (%s) is before the earliest version available to this "
		                        "table (%s). Please use a timestamp after %s.",
		                        what, a, b, b);
	} else if (rc == 0) {
		rc = dl_log_version_at_timestamp(vs, tss, nc, ms, true, version);
	}
	dl_free(vs);
	dl_free(tss);
	return rc;
}

/* ---- identity high-water marks ---- */

/* Field metadata JSON with delta.identity.highWaterMark set to hwm. */
static int meta_with_hwm(const char *meta, int64_t hwm, char **out)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	int rc = dl_json_parse(&a, meta, strlen(meta), "field metadata", &root);
	dl_buf b = DL_BUF_INIT;
	if (rc == 0) {
		dl_json_writer w;
		dl_jw_init(&w, &b);
		dl_jw_object_begin(&w);
		for (size_t i = 0; root->kind == DL_JSON_OBJECT && i < root->u.obj.n && rc == 0; i++) {
			const dl_json_member *m = &root->u.obj.items[i];
			if (strcmp(m->key, DL_IDENTITY_HWM_KEY) == 0) continue;
			dl_buf v = DL_BUF_INIT;
			rc = dl_json_write(&v, &m->value);
			if (rc == 0 && dl_buf_putc(&v, 0) == 0) {
				dl_jw_key(&w, m->key);
				dl_jw_raw(&w, (const char *)v.data);
			}
			dl_buf_free(&v);
		}
		dl_jw_key(&w, DL_IDENTITY_HWM_KEY);
		dl_jw_int(&w, hwm);
		dl_jw_object_end(&w);
		if (rc == 0) rc = dl_jw_finish(&w);
	}
	dl_arena_free(&a);
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return 0;
}

int dl_maint_merge_identity_hwm(const char **schema_json, dl_arena *arena, const dl_type *to_copy,
                                const dl_type *merge_from, dl_column_mapping_mode mode)
{
	*schema_json = NULL;
	if (!to_copy || !merge_from) return 0;
	int n = to_copy->nchildren;
	dl_field *fs = dl_calloc((size_t)n + 1, sizeof *fs);
	char **metas = dl_calloc((size_t)n + 1, sizeof *metas);
	int rc = fs && metas ? 0 : DL_ENOMEM;
	bool changed = false;
	for (int i = 0; i < n && rc == 0; i++) {
		fs[i] = to_copy->children[i];
		dl_identity_info mine, theirs;
		if (dl_field_identity(&fs[i], &mine) < 0 || !mine.is_identity) {
			dl_error_clear();
			continue;
		}
		/* the latest schema's column of the same physical name */
		const char *pn = NULL, *qn = NULL;
		if ((rc = dl_field_physical_name(&fs[i], mode, arena, &pn)) < 0) break;
		const dl_field *other = NULL;
		for (int j = 0; j < merge_from->nchildren && !other && rc == 0; j++) {
			rc = dl_field_physical_name(&merge_from->children[j], mode, arena, &qn);
			if (rc == 0 && strcmp(pn, qn) == 0) other = &merge_from->children[j];
		}
		if (rc < 0) break;
		if (!other || dl_field_identity(other, &theirs) < 0 || !theirs.has_high_water_mark) {
			dl_error_clear();
			continue;
		}
		/* the mark furthest along the step's direction */
		int64_t hwm = theirs.high_water_mark;
		if (mine.has_high_water_mark)
			hwm = mine.step > 0 ? (hwm > mine.high_water_mark ? hwm : mine.high_water_mark)
			                    : (hwm < mine.high_water_mark ? hwm : mine.high_water_mark);
		if (mine.has_high_water_mark && hwm == mine.high_water_mark) continue;
		rc = meta_with_hwm(fs[i].metadata ? fs[i].metadata : "{}", hwm, &metas[i]);
		fs[i].metadata = metas[i];
		changed = true;
	}
	dl_type *t = NULL;
	if (rc == 0 && changed && !(t = dl_type_struct(fs, n))) rc = DL_ENOMEM;
	dl_buf b = DL_BUF_INIT;
	if (rc == 0 && t) rc = dl_schema_to_json(&b, t);
	if (rc == 0 && t) {
		*schema_json = dl_arena_strndup(arena, b.data ? (const char *)b.data : "", b.len);
		if (!*schema_json) rc = DL_ENOMEM;
	}
	dl_buf_free(&b);
	if (t) dl_type_unref(t);
	for (int i = 0; metas && i < n; i++) dl_free(metas[i]);
	dl_free(metas);
	dl_free(fs);
	return rc;
}

/* ---- row tracking ---- */

int64_t dl_maint_row_id_hwm(const struct dl_snapshot *s)
{
	const char *conf = dl_snapshot_domain(s, "delta.rowTracking");
	if (!conf) return -1;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	int64_t hwm = -1;
	if (dl_json_parse(&a, conf, strlen(conf), "delta.rowTracking domain", &v) == 0) {
		const dl_json *m = dl_json_get(v, "rowIdHighWaterMark");
		if (m && dl_json_int64(m, &hwm) < 0) hwm = -1;
	} else {
		dl_error_clear();
	}
	dl_arena_free(&a);
	return hwm;
}

int dl_maint_fresh_row_ids(dl_add *add, int64_t *hwm, int64_t version, dl_arena *arena)
{
	if (add->base_row_id == DL_NONE) {
		dl_file_stats fst;
		fst.num_records = -1;
		if (add->stats) DL_TRY(dl_file_stats_parse(&fst, arena, add->stats, add->stats_len));
		if (fst.num_records < 0)
			return dl_error_set(DL_EINVALID, "%s has no numRecords in its stats: row tracking cannot "
			                    "give its rows ids", add->path);
		add->base_row_id = *hwm + 1;
		*hwm += fst.num_records;
	}
	if (add->default_row_commit_version == DL_NONE) add->default_row_commit_version = version;
	return 0;
}
