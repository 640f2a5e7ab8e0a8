/* Choosing the protocol of a table from the features it uses (see
 * protocol_choose.h). What each feature is - its legacy versions, whether
 * it is reader-writer, what enables it, what it requires - comes from the
 * feature registry (log/table_features.h). */
#include "ops/protocol_choose.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "log/properties.h"
#include "log/protocol.h"
#include "log/table_features.h"
#include "util/error.h"

#define IGNORE_DEFAULTS_KEY "delta.ignoreProtocolDefaults"

typedef struct feature_set {
	dl_table_feature order[DL_FEATURE_COUNT]; /* in the order they were added */
	int n;
	bool in[DL_FEATURE_COUNT];
	int legacy_reader, legacy_writer; /* versions the legacy features need */
	bool needs_table_features;        /* a feature without a legacy version */
} feature_set;

static int add(feature_set *s, const dl_table_feature_info *fi, const char *asked_as)
{
	if (s->in[fi->id]) return 0;
	if (!fi->writable)
		return dl_error_set(DL_EUNSUPPORTED,
		                    "table feature '%s' is not supported by this writer (tables that "
		                    "use it can be read, not written)%s%s",
		                    fi->name, asked_as ? "; remove " : "", asked_as ? asked_as : "");
	/* What it requires first, as Spark lists an upgrade. The registry has
	 * no cycles (tests/unit/log/test_table_features.c). */
	for (const dl_table_feature *r = fi->requires; *r != DL_FEATURE_NONE; r++)
		DL_TRY(add(s, dl_table_feature_get(*r), asked_as));
	s->in[fi->id] = true;
	s->order[s->n++] = fi->id;
	if (!fi->legacy) s->needs_table_features = true;
	if (fi->legacy && fi->min_reader > s->legacy_reader) s->legacy_reader = fi->min_reader;
	if (fi->legacy && fi->min_writer > s->legacy_writer) s->legacy_writer = fi->min_writer;
	return 0;
}

static int add_name(feature_set *s, const char *name, const char *asked_as)
{
	const dl_table_feature_info *fi = dl_table_feature_lookup(name);
	if (!fi)
		return dl_error_set(DL_EUNSUPPORTED,
		                    "table feature '%s' is not supported by this writer (Delta defines no "
		                    "such feature)%s%s",
		                    name, asked_as ? "; remove " : "", asked_as ? asked_as : "");
	return add(s, fi, asked_as);
}

/* Whether the feature's twin (the -preview or the stable name) is already
 * there: then metadata does not enable this name too (Spark). */
static bool twin_present(const feature_set *s, const dl_table_feature_info *fi,
                         const dl_protocol *existing)
{
	if (fi->twin == DL_FEATURE_NONE) return false;
	return s->in[fi->twin] || (existing && dl_protocol_has(existing, fi->twin));
}

/* The features the schema and the table properties enable: schema uses
 * first, then properties, each in registry order. */
static int from_metadata(feature_set *s, const dl_type *schema, const dl_str_map *c,
                         const dl_protocol *existing)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < DL_FEATURE_COUNT; i++) {
			const dl_table_feature_info *fi = dl_table_feature_at(i);
			if ((fi->trigger == DL_TRIGGER_SCHEMA) != (pass == 0)) continue;
			if (!dl_table_feature_enabled_by(fi, schema, c) || twin_present(s, fi, existing))
				continue;
			DL_TRY(add(s, fi, fi->property));
		}
	}
	return 0;
}

static int version_property(const char *k, const char *v, int *min_r, int *min_w)
{
	char *end;
	bool reader = strcmp(k, "delta.minReaderVersion") == 0;
	int max = reader ? DL_MAX_READER_VERSION : DL_MAX_WRITER_VERSION;
	long x = v ? strtol(v, &end, 10) : 0;
	if (!v || *end || x < 1 || x > max)
		return dl_error_set(DL_EINVALID, "%s must be an integer from 1 to %d, not '%s'", k, max,
		                    v ? v : "null");
	*(reader ? min_r : min_w) = (int)x;
	return 0;
}

/* delta.feature.<name> = enabled|supported, delta.min*Version. */
static int from_protocol_properties(feature_set *s, const dl_str_map *c, int *min_r, int *min_w)
{
	for (uint32_t i = 0; i < c->n; i++) {
		const char *k = c->items[i].key, *v = c->items[i].value;
		if (strncmp(k, "delta.feature.", 14) == 0) {
			if (!v || (strcasecmp(v, "enabled") != 0 && strcasecmp(v, "supported") != 0))
				return dl_error_set(DL_EINVALID,
				                    "%s must be 'enabled' or 'supported', not '%s'", k,
				                    v ? v : "null");
			DL_TRY(add_name(s, k + 14, k));
		}
		if (strcmp(k, "delta.minReaderVersion") == 0 || strcmp(k, "delta.minWriterVersion") == 0)
			DL_TRY(version_property(k, v, min_r, min_w));
	}
	return 0;
}

static int add_existing(feature_set *s, const dl_protocol *p, int *min_r, int *min_w)
{
	if (p->min_reader_version > *min_r) *min_r = p->min_reader_version;
	if (p->min_writer_version > *min_w) *min_w = p->min_writer_version;
	for (uint32_t i = 0; i < p->nreader_features; i++)
		DL_TRY(add_name(s, p->reader_features[i], NULL));
	for (uint32_t i = 0; i < p->nwriter_features; i++)
		DL_TRY(add_name(s, p->writer_features[i], NULL));
	/* Legacy versions imply their features. */
	for (size_t i = 0; i < DL_FEATURE_COUNT; i++) {
		const dl_table_feature_info *fi = dl_table_feature_at(i);
		if (fi->legacy && dl_protocol_has(p, fi->id)) DL_TRY(add(s, fi, NULL));
	}
	return 0;
}

static int build_lists(dl_protocol *out, dl_arena *arena, const feature_set *s, bool defaults,
                       bool reader3)
{
	out->reader_features = dl_arena_calloc(arena, (size_t)s->n + 1, sizeof(char *));
	out->writer_features = dl_arena_calloc(arena, (size_t)s->n + 3, sizeof(char *));
	if (!out->reader_features || !out->writer_features) return DL_ENOMEM;
	out->nreader_features = out->nwriter_features = 0;
	/* Reader version 3 asked for explicitly lists every reader-writer
	 * feature, legacy ones (columnMapping) too. */
	bool any_reader = reader3;
	const dl_table_feature_info *ao = dl_table_feature_get(DL_FEATURE_APPEND_ONLY);
	const dl_table_feature_info *inv = dl_table_feature_get(DL_FEATURE_INVARIANTS);
	/* Features with no legacy version first, then the legacy ones, as Spark
	 * lists an upgrade from its default (1,2). */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < s->n; i++) {
			const dl_table_feature_info *fi = dl_table_feature_get(s->order[i]);
			if (fi->legacy == (pass == 0)) continue;
			if (pass == 1 && defaults && (fi == ao || fi == inv)) continue;
			out->writer_features[out->nwriter_features++] = fi->name;
			if (fi->reader_writer) {
				out->reader_features[out->nreader_features++] = fi->name;
				if (!fi->legacy) any_reader = true;
			}
		}
		if (pass == 0 && defaults) { /* what the default minWriterVersion 2 implies */
			out->writer_features[out->nwriter_features++] = ao->name;
			out->writer_features[out->nwriter_features++] = inv->name;
		}
	}
	out->min_writer_version = DL_TABLE_FEATURES_WRITER_VERSION;
	if (any_reader) {
		out->min_reader_version = DL_TABLE_FEATURES_READER_VERSION;
	} else {
		out->min_reader_version = s->in[DL_FEATURE_COLUMN_MAPPING]
		                              ? dl_table_feature_get(DL_FEATURE_COLUMN_MAPPING)->min_reader
		                              : 1;
		out->reader_features = NULL;
		out->nreader_features = 0;
	}
	return 0;
}

int dl_ops_choose_protocol(dl_protocol *out, dl_arena *arena, const dl_type *schema,
                           const dl_str_map *configuration, const dl_protocol *existing)
{
	static const dl_str_map empty = {NULL, 0};
	const dl_str_map *c = configuration ? configuration : &empty;
	bool ignore_defaults = false;
	const char *ig = dl_str_map_get(c, IGNORE_DEFAULTS_KEY, NULL);
	if (ig && dl_parse_bool_property(ig, &ignore_defaults) < 0)
		return dl_error_set(DL_EINVALID, IGNORE_DEFAULTS_KEY " must be true or false, not '%s'",
		                    ig);
	/* A new table starts from Spark's default protocol (1,2), or from
	 * (1,1) with delta.ignoreProtocolDefaults; an existing table from its
	 * own protocol. */
	bool defaults = !existing && !ignore_defaults;
	feature_set s;
	memset(&s, 0, sizeof s);
	s.legacy_reader = 1;
	s.legacy_writer = defaults ? 2 : 1;
	int min_r = 1, min_w = defaults ? 2 : 1;
	DL_TRY(from_metadata(&s, schema, c, existing));
	DL_TRY(from_protocol_properties(&s, c, &min_r, &min_w));
	if (existing) DL_TRY(add_existing(&s, existing, &min_r, &min_w));
	memset(out, 0, sizeof *out);
	if (s.needs_table_features || min_w >= DL_TABLE_FEATURES_WRITER_VERSION ||
	    min_r >= DL_TABLE_FEATURES_READER_VERSION) {
		DL_TRY(build_lists(out, arena, &s, defaults, min_r >= DL_TABLE_FEATURES_READER_VERSION));
		if (min_r == 2 && out->min_reader_version < 2) out->min_reader_version = 2;
		return 0;
	}
	out->min_reader_version = s.legacy_reader > min_r ? s.legacy_reader : min_r;
	out->min_writer_version = s.legacy_writer > min_w ? s.legacy_writer : min_w;
	return 0;
}

bool dl_ops_is_protocol_property(const char *key)
{
	return strncmp(key, "delta.feature.", 14) == 0 || strcmp(key, "delta.minReaderVersion") == 0 ||
	       strcmp(key, "delta.minWriterVersion") == 0 || strcmp(key, IGNORE_DEFAULTS_KEY) == 0;
}
bool dl_ops_protocol_equal(const dl_protocol *a, const dl_protocol *b)
{
	return dl_protocol_equal(a, b);
}
