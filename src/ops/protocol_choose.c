/* Choosing the protocol of a table from the features it uses (see
 * protocol_choose.h). */
#include "ops/protocol_choose.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "log/properties.h"
#include "log/protocol.h"
#include "log/schema.h"
#include "util/error.h"

/* At most this many features can be named (every known one fits). */
#define MAX_FEATURES 48

typedef struct feature_set {
	const char *names[MAX_FEATURES];
	int n;
	int legacy_reader, legacy_writer; /* versions the legacy features need */
	bool needs_table_features;        /* a feature without a legacy version */
} feature_set;

typedef struct feature_info {
	const char *name;
	int reader, writer; /* legacy versions implying it; writer 7: none */
	bool reader_writer;
} feature_info;

static const feature_info known[] = {
	{"appendOnly", 1, 2, false},      {"invariants", 1, 2, false},
	{"checkConstraints", 1, 3, false}, {"changeDataFeed", 1, 4, false},
	{"generatedColumns", 1, 4, false}, {"columnMapping", 2, 5, true},
	{"identityColumns", 1, 6, false}, {"deletionVectors", 3, 7, true},
	{"timestampNtz", 3, 7, true},     {"v2Checkpoint", 3, 7, true},
	{"vacuumProtocolCheck", 3, 7, true}, {"typeWidening", 3, 7, true},
	{"typeWidening-preview", 3, 7, true}, {"variantType", 3, 7, true},
	{"variantType-preview", 3, 7, true}, {"domainMetadata", 1, 7, false},
	{"rowTracking", 1, 7, false},     {"inCommitTimestamp", 1, 7, false},
	{"allowColumnDefaults", 1, 7, false}, {"clustering", 1, 7, false},
	{"geospatial", 3, 7, true},
};

static const feature_info *info_of(const char *name)
{
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i].name, name) == 0) return &known[i];
	return NULL;
}

static bool has(const feature_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0) return true;
	return false;
}

static int add(feature_set *s, const char *name)
{
	if (has(s, name)) return 0;
	const feature_info *fi = info_of(name);
	if (!fi)
		return dl_error_set(DL_EUNSUPPORTED,
		                    "table feature '%s' is not supported by this writer; remove "
		                    "delta.feature.%s",
		                    name, name);
	if (s->n == MAX_FEATURES) return dl_error_set(DL_EINVALID, "too many table features");
	s->names[s->n++] = fi->name;
	if (fi->writer == 7) s->needs_table_features = true;
	if (fi->reader > s->legacy_reader && fi->reader < 3) s->legacy_reader = fi->reader;
	if (fi->writer > s->legacy_writer && fi->writer < 7) s->legacy_writer = fi->writer;
	return 0;
}

typedef struct schema_uses {
	bool ntz, variant, generated, identity, defaults, invariants, geo;
} schema_uses;

static void scan_type(const dl_type *t, schema_uses *u, bool top)
{
	if (t->id == DL_TYPE_TIMESTAMP_NTZ) u->ntz = true;
	if (t->id == DL_TYPE_VARIANT) u->variant = true;
	if (t->geo) u->geo = true;
	for (int i = 0; i < t->nchildren; i++) {
		const dl_field *f = &t->children[i];
		const char *m = f->metadata;
		if (m && t->id == DL_TYPE_STRUCT) {
			if (strstr(m, DL_GENERATION_EXPRESSION_KEY)) u->generated = true;
			if (strstr(m, DL_IDENTITY_START_KEY)) u->identity = true;
			if (strstr(m, "\"" DL_DEFAULT_KEY "\"")) u->defaults = true;
			if (strstr(m, DL_INVARIANTS_KEY)) u->invariants = true;
		}
		if (t->id != DL_TYPE_VARIANT) scan_type(f->type, u, false);
	}
	(void)top;
}

static bool prop_true(const dl_str_map *c, const char *key)
{
	bool found, v = false;
	const char *s = dl_str_map_get(c, key, &found);
	return s && dl_parse_bool_property(s, &v) == 0 && v;
}

static int from_configuration(feature_set *s, const dl_str_map *c, int *min_r, int *min_w)
{
	bool found;
	const char *cm = dl_str_map_get(c, "delta.columnMapping.mode", &found);
	if (prop_true(c, "delta.appendOnly")) DL_TRY(add(s, "appendOnly"));
	if (prop_true(c, "delta.enableChangeDataFeed")) DL_TRY(add(s, "changeDataFeed"));
	if (cm && strcasecmp(cm, "none") != 0) DL_TRY(add(s, "columnMapping"));
	if (prop_true(c, "delta.enableDeletionVectors")) DL_TRY(add(s, "deletionVectors"));
	if (prop_true(c, "delta.enableRowTracking")) {
		DL_TRY(add(s, "domainMetadata"));
		DL_TRY(add(s, "rowTracking"));
	}
	if (prop_true(c, "delta.enableInCommitTimestamps")) DL_TRY(add(s, "inCommitTimestamp"));
	if (prop_true(c, "delta.enableTypeWidening")) DL_TRY(add(s, "typeWidening"));
	const char *cp = dl_str_map_get(c, "delta.checkpointPolicy", &found);
	if (cp && strcasecmp(cp, "v2") == 0) DL_TRY(add(s, "v2Checkpoint"));
	for (uint32_t i = 0; i < c->n; i++) {
		const char *k = c->items[i].key, *v = c->items[i].value;
		if (strncmp(k, "delta.constraints.", 18) == 0) DL_TRY(add(s, "checkConstraints"));
		if (strncmp(k, "delta.feature.", 14) == 0) {
			if (!v || (strcasecmp(v, "enabled") != 0 && strcasecmp(v, "supported") != 0))
				return dl_error_set(DL_EINVALID,
				                    "%s must be 'enabled' or 'supported', not '%s'", k,
				                    v ? v : "null");
			DL_TRY(add(s, k + 14));
		}
		if (strcmp(k, "delta.minReaderVersion") == 0 || strcmp(k, "delta.minWriterVersion") == 0) {
			char *end;
			long x = v ? strtol(v, &end, 10) : 0;
			bool reader = k[9] == 'R';
			if (!v || *end || x < 1 || x > (reader ? 3 : 7))
				return dl_error_set(DL_EINVALID, "%s must be an integer from 1 to %d, not '%s'",
				                    k, reader ? 3 : 7, v ? v : "null");
			*(reader ? min_r : min_w) = (int)x;
		}
	}
	return 0;
}

static int add_existing(feature_set *s, const dl_protocol *p, int *min_r, int *min_w)
{
	if (p->min_reader_version > *min_r) *min_r = p->min_reader_version;
	if (p->min_writer_version > *min_w) *min_w = p->min_writer_version;
	for (uint32_t i = 0; i < p->nreader_features; i++) DL_TRY(add(s, p->reader_features[i]));
	for (uint32_t i = 0; i < p->nwriter_features; i++) DL_TRY(add(s, p->writer_features[i]));
	/* Legacy versions imply their features. */
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (known[i].writer < 7 && dl_protocol_supports(p, known[i].name))
			DL_TRY(add(s, known[i].name));
	}
	return 0;
}

static int build_lists(dl_protocol *out, dl_arena *arena, const feature_set *s)
{
	out->reader_features = dl_arena_calloc(arena, (size_t)s->n + 1, sizeof(char *));
	out->writer_features = dl_arena_calloc(arena, (size_t)s->n + 3, sizeof(char *));
	if (!out->reader_features || !out->writer_features) return DL_ENOMEM;
	out->nreader_features = out->nwriter_features = 0;
	bool any_reader = false;
	/* Features with no legacy version first, then the legacy ones, as Spark
	 * lists an upgrade from its default (1,2). */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < s->n; i++) {
			const feature_info *fi = info_of(s->names[i]);
			if ((fi->writer == 7) != (pass == 0)) continue;
			if (pass == 1 && fi->writer == 2) continue;
			out->writer_features[out->nwriter_features++] = fi->name;
			if (fi->reader_writer) {
				out->reader_features[out->nreader_features++] = fi->name;
				if (fi->reader == 3) any_reader = true;
			}
		}
		if (pass == 0) { /* what the default minWriterVersion 2 implies */
			out->writer_features[out->nwriter_features++] = "appendOnly";
			out->writer_features[out->nwriter_features++] = "invariants";
		}
	}
	out->min_writer_version = 7;
	if (any_reader) {
		out->min_reader_version = 3;
	} else {
		out->min_reader_version = has(s, "columnMapping") ? 2 : 1;
		out->reader_features = NULL;
		out->nreader_features = 0;
	}
	return 0;
}

int dl_ops_choose_protocol(dl_protocol *out, dl_arena *arena, const dl_type *schema,
                           const dl_str_map *configuration, const dl_protocol *existing)
{
	feature_set s;
	memset(&s, 0, sizeof s);
	s.legacy_reader = 1;
	s.legacy_writer = 2; /* Spark's default minWriterVersion */
	int min_r = 1, min_w = 2;
	schema_uses u;
	memset(&u, 0, sizeof u);
	if (schema) scan_type(schema, &u, true);
	if (u.invariants) DL_TRY(add(&s, "invariants"));
	if (u.generated) DL_TRY(add(&s, "generatedColumns"));
	if (u.identity) DL_TRY(add(&s, "identityColumns"));
	if (u.ntz) DL_TRY(add(&s, "timestampNtz"));
	if (u.variant) DL_TRY(add(&s, "variantType"));
	if (u.geo) DL_TRY(add(&s, "geospatial"));
	if (u.defaults) DL_TRY(add(&s, "allowColumnDefaults"));
	DL_TRY(from_configuration(&s, configuration, &min_r, &min_w));
	if (existing) DL_TRY(add_existing(&s, existing, &min_r, &min_w));
	memset(out, 0, sizeof *out);
	if (s.needs_table_features || min_w >= 7 || min_r >= 3) {
		DL_TRY(build_lists(out, arena, &s));
		if (min_r >= 3 && out->min_reader_version < 3) {
			/* Asked for reader 3 explicitly: an empty readerFeatures list. */
			out->min_reader_version = 3;
			out->reader_features = dl_arena_calloc(arena, 1, sizeof(char *));
			if (!out->reader_features) return DL_ENOMEM;
		}
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
	       strcmp(key, "delta.minWriterVersion") == 0;
}

static bool same_set(const char **a, uint32_t na, const char **b, uint32_t nb)
{
	if (na != nb || (!a) != (!b)) return false;
	for (uint32_t i = 0; i < na; i++) {
		bool found = false;
		for (uint32_t j = 0; j < nb && !found; j++) found = strcmp(a[i], b[j]) == 0;
		if (!found) return false;
	}
	return true;
}

bool dl_ops_protocol_equal(const dl_protocol *a, const dl_protocol *b)
{
	return a->min_reader_version == b->min_reader_version &&
	       a->min_writer_version == b->min_writer_version &&
	       same_set(a->reader_features, a->nreader_features, b->reader_features,
	                b->nreader_features) &&
	       same_set(a->writer_features, a->nwriter_features, b->writer_features,
	                b->nwriter_features);
}
