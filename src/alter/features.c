/* Protocol versions and table features on an existing table:
 * DeltaTable.upgradeTableProtocol(reader, writer) and addFeatureSupport
 * (SET TBLPROPERTIES ('delta.feature.X' = 'supported')), and the protocol
 * arithmetic DROP FEATURE needs (Spark's Protocol.withFeature /
 * removeFeature / downgradeProtocolVersionsIfNeeded; PROTOCOL.md "Table
 * Features", "Reader/Writer Version Requirements").
 *
 * A protocol never goes down through these calls: asking for lower versions
 * than the table has is DELTA_INVALID_PROTOCOL_DOWNGRADE; asking for what
 * it has commits nothing (*version -1). Upgrading to writer 7 (or reader 3)
 * lists the features the legacy versions implied, as Spark does. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "alter/properties_internal.h"
#include "json/json.h"
#include "log/protocol.h"
#include "log/table_features.h"
#include "ops/protocol_choose.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

char *ap_protocol_text(const dl_protocol *p)
{
	dl_buf b = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &b);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "minReaderVersion");
	dl_jw_int(&w, p->min_reader_version);
	dl_jw_key(&w, "minWriterVersion");
	dl_jw_int(&w, p->min_writer_version);
	if (p->reader_features) {
		dl_jw_key(&w, "readerFeatures");
		dl_jw_array_begin(&w);
		for (uint32_t i = 0; i < p->nreader_features; i++) dl_jw_string(&w, p->reader_features[i]);
		dl_jw_array_end(&w);
	}
	if (p->writer_features) {
		dl_jw_key(&w, "writerFeatures");
		dl_jw_array_begin(&w);
		for (uint32_t i = 0; i < p->nwriter_features; i++) dl_jw_string(&w, p->writer_features[i]);
		dl_jw_array_end(&w);
	}
	dl_jw_object_end(&w);
	char *s = dl_jw_finish(&w) == 0 ? dl_strdup(b.data) : NULL;
	dl_buf_free(&b);
	return s;
}

int ap_protocol_with_feature(dl_protocol *out, ap_ctx *c, const dl_protocol *p, const char *feature)
{
	char key[200];
	snprintf(key, sizeof key, "delta.feature.%s", feature);
	dl_kv kv = {key, "supported"};
	dl_str_map m = {&kv, 1};
	return dl_ops_choose_protocol(out, &c->t.arena, dl_snapshot_schema(c->t.snap), &m, p);
}

/* The versions a legacy protocol (r, w) implies features for. */
static const int legacy_versions[][2] = {{1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 5}, {2, 6}};

int ap_protocol_without_feature(dl_protocol *out, ap_ctx *c, const dl_protocol *p, int feature, int add)
{
	bool keep[DL_FEATURE_COUNT];
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++)
		keep[i] = (int)i != feature && ((int)i == add || dl_protocol_has(p, (dl_table_feature)i));
	bool only_legacy = true;
	int min_reader = 1;
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++) {
		const dl_table_feature_info *fi = dl_table_feature_at(i);
		if (!keep[i]) continue;
		if (!fi->legacy) only_legacy = false;
		if (fi->legacy && fi->min_reader > min_reader) min_reader = fi->min_reader;
	}
	memset(out, 0, sizeof *out);
	/* The lowest legacy pair that implies exactly what remains. */
	for (size_t k = 0; only_legacy && k < sizeof legacy_versions / sizeof legacy_versions[0]; k++) {
		dl_protocol cand = {legacy_versions[k][0], legacy_versions[k][1], NULL, 0, NULL, 0};
		bool same = true;
		for (size_t i = 0; i < DL_FEATURE_COUNT && same; i++)
			same = dl_protocol_has(&cand, (dl_table_feature)i) == keep[i];
		if (same) {
			*out = cand;
			return 0;
		}
	}
	/* Otherwise table features: writer 7, reader 3 when a reader-writer
	 * table feature remains, listing every remaining feature in the order
	 * the protocol had them, then the ones its legacy versions implied. */
	out->writer_features = dl_arena_calloc(&c->t.arena, DL_FEATURE_COUNT + 1, sizeof(char *));
	out->reader_features = dl_arena_calloc(&c->t.arena, DL_FEATURE_COUNT + 1, sizeof(char *));
	if (!out->writer_features || !out->reader_features) return DL_ENOMEM;
	bool listed[DL_FEATURE_COUNT] = {false};
	bool any_reader = false;
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++) {
		const dl_table_feature_info *fi = dl_table_feature_at(i);
		if (keep[i] && fi->reader_writer && !fi->legacy) any_reader = true;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t j = 0; pass == 0 && j < p->nwriter_features; j++) {
			const dl_table_feature_info *fi = dl_table_feature_lookup(p->writer_features[j]);
			if (!fi || !keep[fi->id] || listed[fi->id]) continue;
			listed[fi->id] = true;
			out->writer_features[out->nwriter_features++] = fi->name;
		}
		for (size_t i = 0; pass == 1 && i < DL_FEATURE_COUNT; i++) {
			if (!keep[i] || listed[i] || (int)i == add) continue;
			listed[i] = true;
			out->writer_features[out->nwriter_features++] = dl_table_feature_at(i)->name;
		}
	}
	if (add >= 0 && !listed[add]) out->writer_features[out->nwriter_features++] = dl_table_feature_at((size_t)add)->name;
	for (uint32_t j = 0; j < out->nwriter_features; j++) {
		const dl_table_feature_info *fi = dl_table_feature_lookup(out->writer_features[j]);
		if (fi->reader_writer) out->reader_features[out->nreader_features++] = fi->name;
	}
	out->min_writer_version = DL_TABLE_FEATURES_WRITER_VERSION;
	if (any_reader) {
		out->min_reader_version = DL_TABLE_FEATURES_READER_VERSION;
	} else {
		out->min_reader_version = min_reader;
		out->reader_features = NULL;
		out->nreader_features = 0;
	}
	return 0;
}

static int upgrade(ap_ctx *c, int reader, int writer, int64_t *version)
{
	if (reader < 1 || reader > DL_MAX_READER_VERSION || writer < 1 || writer > DL_MAX_WRITER_VERSION)
		return dl_error_set(DL_EINVALID,
		                    "requirement failed: delta.minReaderVersion needs to be one of 1, 2, 3 and "
		                    "delta.minWriterVersion one of 1, 2, 3, 4, 5, 6, 7 (got %d, %d)",
		                    reader, writer);
	const dl_protocol *cur = ap_proto(c);
	if (reader < cur->min_reader_version || writer < cur->min_writer_version)
		return dl_error_set_class(DL_EINVALID, "DELTA_INVALID_PROTOCOL_DOWNGRADE",
		                          "Protocol version cannot be downgraded from (%d,%d) to (%d,%d)",
		                          cur->min_reader_version, cur->min_writer_version, reader, writer);
	char r[8], w[8];
	snprintf(r, sizeof r, "%d", reader);
	snprintf(w, sizeof w, "%d", writer);
	dl_kv kv[2] = {{"delta.minReaderVersion", r}, {"delta.minWriterVersion", w}};
	dl_str_map m = {kv, 2};
	dl_protocol np;
	DL_TRY(dl_ops_choose_protocol(&np, &c->t.arena, dl_snapshot_schema(c->t.snap), &m, cur));
	if (dl_ops_protocol_equal(&np, cur)) return 0;
	DL_TRY(dl_alter_start(&c->t, "UPGRADE PROTOCOL"));
	DL_TRY(dl_txn_set_protocol(c->t.txn, &np));
	char *text = ap_protocol_text(&np);
	if (!text) return DL_ENOMEM;
	int rc = dl_txn_set_parameter(c->t.txn, "newProtocol", text);
	dl_free(text);
	DL_TRY(rc);
	return dl_txn_commit(c->t.txn, version);
}

int dl_upgrade_protocol(int64_t *version, const char *uri, int reader_version, int writer_version,
                        const dl_alter_options *opts)
{
	*version = -1;
	ap_ctx c;
	int rc = ap_open(&c, uri, opts);
	if (rc == 0) rc = upgrade(&c, reader_version, writer_version, version);
	dl_alter_end(&c.t);
	return rc;
}

int dl_add_feature_support(int64_t *version, const char *uri, const char *feature,
                           const dl_alter_options *opts)
{
	*version = -1;
	if (!feature || !feature[0]) return dl_error_set(DL_EINVALID, "dl_add_feature_support: no feature name");
	const dl_table_feature_info *fi = dl_table_feature_lookup(feature);
	if (fi) {
		ap_ctx c;
		int rc = ap_open(&c, uri, opts);
		bool has = rc == 0 && dl_protocol_has(ap_proto(&c), fi->id);
		dl_alter_end(&c.t);
		DL_TRY(rc);
		if (has) return 0;
	}
	/* DeltaTable.addFeatureSupport is this SET TBLPROPERTIES. */
	char key[200];
	snprintf(key, sizeof key, "delta.feature.%s", fi ? fi->name : feature);
	const char *keys[] = {key}, *values[] = {"supported"};
	return dl_alter_set_properties(version, uri, keys, values, 1, opts);
}
