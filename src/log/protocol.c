/* Protocol versions and table features. */
#include "log/protocol.h"
#include <string.h>
#include "util/error.h"

/* Reader features this reader implements (the writer-only features do not
 * matter for reads). The -preview names are the ones Delta 3.x wrote before
 * the features were final; their formats are the same. */
static const char *const readable[] = {
	"columnMapping", "deletionVectors", "timestampNtz", "v2Checkpoint", "vacuumProtocolCheck",
	"typeWidening", "typeWidening-preview", "variantType", "variantType-preview",
	"domainMetadata", "rowTracking", "inCommitTimestamp", "icebergCompatV1", "icebergCompatV2",
	"appendOnly", "invariants", "checkConstraints", "generatedColumns", "changeDataFeed",
	"identityColumns", "allowColumnDefaults", "clustering", "icebergWriterCompatV1",
	"materializePartitionColumns", "geospatial", NULL,
};

/* Writer features whose rules this library follows when it writes. */
static const char *const writable[] = {
	"appendOnly", "invariants", "checkConstraints", "generatedColumns", "changeDataFeed",
	"columnMapping", "identityColumns", "deletionVectors", "timestampNtz", "v2Checkpoint",
	"vacuumProtocolCheck", "domainMetadata", "rowTracking", "inCommitTimestamp",
	"allowColumnDefaults", "clustering", "typeWidening", "typeWidening-preview", "variantType",
	"variantType-preview", "geospatial", NULL,
};

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0) return true;
	return false;
}

static bool listed(const char **a, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (a && a[i] && strcmp(a[i], name) == 0) return true;
	return false;
}

static bool legacy_implies(const dl_protocol *p, const char *f)
{
	int r = p->min_reader_version, w = p->min_writer_version;
	if (r >= 2 && r < 3 && strcmp(f, "columnMapping") == 0) return true;
	if (w >= 7) return false;
	if (w >= 2 && (strcmp(f, "appendOnly") == 0 || strcmp(f, "invariants") == 0)) return true;
	if (w >= 3 && strcmp(f, "checkConstraints") == 0) return true;
	if (w >= 4 && (strcmp(f, "changeDataFeed") == 0 || strcmp(f, "generatedColumns") == 0))
		return true;
	if (w >= 5 && strcmp(f, "columnMapping") == 0) return true;
	if (w >= 6 && strcmp(f, "identityColumns") == 0) return true;
	return false;
}

bool dl_protocol_supports(const dl_protocol *p, const char *feature)
{
	if (p->min_reader_version >= 3 && listed(p->reader_features, p->nreader_features, feature))
		return true;
	if (p->min_writer_version >= 7 && listed(p->writer_features, p->nwriter_features, feature))
		return true;
	return legacy_implies(p, feature);
}

bool dl_feature_readable(const char *feature)
{
	return in_list(readable, feature);
}

bool dl_feature_writable(const char *feature)
{
	return in_list(writable, feature);
}

static int catalog_managed(const char *f)
{
	return strcmp(f, "catalogManaged") == 0 || strcmp(f, "catalogOwned-preview") == 0;
}

int dl_protocol_check_read(const dl_protocol *p)
{
	if (p->min_reader_version < 1 || p->min_reader_version > DL_MAX_READER_VERSION)
		return dl_error_set(DL_EUNSUPPORTED,
		                    "the table needs reader version %d, which is not supported (this "
		                    "reader supports versions 1 to %d); use a newer Delta reader",
		                    p->min_reader_version, DL_MAX_READER_VERSION);
	if (p->min_reader_version < 3) return 0;
	for (uint32_t i = 0; i < p->nreader_features; i++) {
		const char *f = p->reader_features[i];
		if (catalog_managed(f))
			return dl_error_set(DL_EUNSUPPORTED,
			                    "the table uses the reader feature %s: it is managed by a catalog "
			                    "and cannot be read through its path; open it through its catalog",
			                    f);
		if (!dl_feature_readable(f))
			return dl_error_set(DL_EUNSUPPORTED,
			                    "the table needs the reader feature '%s', which is not supported "
			                    "by this reader",
			                    f);
	}
	return 0;
}

int dl_protocol_check_write(const dl_protocol *p)
{
	DL_TRY(dl_protocol_check_read(p));
	if (p->min_writer_version < 1 || p->min_writer_version > DL_MAX_WRITER_VERSION)
		return dl_error_set(DL_EUNSUPPORTED,
		                    "the table needs writer version %d, which is not supported (this "
		                    "writer supports versions 1 to %d)",
		                    p->min_writer_version, DL_MAX_WRITER_VERSION);
	if (p->min_writer_version < 7) return 0;
	for (uint32_t i = 0; i < p->nwriter_features; i++) {
		const char *f = p->writer_features[i];
		if (catalog_managed(f))
			return dl_error_set(DL_EUNSUPPORTED,
			                    "the table uses the writer feature %s: commits must go through "
			                    "its catalog, not through its path",
			                    f);
		if (!dl_feature_writable(f))
			return dl_error_set(DL_EUNSUPPORTED,
			                    "the table needs the writer feature '%s', which this writer does "
			                    "not support; it can be read but not written",
			                    f);
	}
	return 0;
}
