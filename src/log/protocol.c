/* Protocol versions and table features: the checks ask the feature
 * registry (log/table_features.c) what each listed name is and whether this
 * library implements it. */
#include "log/protocol.h"
#include <string.h>
#include "log/table_features.h"
#include "util/error.h"

bool dl_protocol_supports(const dl_protocol *p, const char *feature)
{
	const dl_table_feature_info *f = dl_table_feature_lookup(feature);
	if (f) return dl_protocol_has(p, f->id);
	/* A name Delta does not define can still be listed explicitly. */
	for (uint32_t i = 0; p->min_reader_version >= 3 && i < p->nreader_features; i++)
		if (p->reader_features[i] && strcmp(p->reader_features[i], feature) == 0) return true;
	for (uint32_t i = 0; p->min_writer_version >= 7 && i < p->nwriter_features; i++)
		if (p->writer_features[i] && strcmp(p->writer_features[i], feature) == 0) return true;
	return false;
}

bool dl_feature_readable(const char *feature)
{
	const dl_table_feature_info *f = dl_table_feature_lookup(feature);
	return f && f->readable;
}

bool dl_feature_writable(const char *feature)
{
	const dl_table_feature_info *f = dl_table_feature_lookup(feature);
	return f && f->writable;
}

static bool catalog_managed(const char *name)
{
	const dl_table_feature_info *f = dl_table_feature_lookup(name);
	return f && f->catalog_managed;
}

int dl_protocol_check_read(const dl_protocol *p)
{
	if (p->min_reader_version < 1 || p->min_reader_version > DL_MAX_READER_VERSION)
		return dl_error_set(DL_EUNSUPPORTED,
		                    "the table needs reader version %d, which is not supported (this "
		                    "reader supports versions 1 to %d); use a newer Delta reader",
		                    p->min_reader_version, DL_MAX_READER_VERSION);
	if (p->min_reader_version < DL_TABLE_FEATURES_READER_VERSION) return 0;
	/* PROTOCOL.md "Table Features": reader version 3 lists its features;
	 * without the list nothing says what a reader must support */
	if (!p->reader_features)
		return dl_error_set(DL_ECORRUPT, "the protocol has minReaderVersion %d but no readerFeatures list (table "
		                    "features protocol): the log is malformed",
		                    p->min_reader_version);
	for (uint32_t i = 0; i < p->nreader_features; i++) {
		const char *f = p->reader_features[i];
		if (!f) return dl_error_set(DL_ECORRUPT, "the protocol's readerFeatures holds a null");
		const dl_table_feature_info *fi = dl_table_feature_lookup(f);
		if (fi && fi->reader_writer && fi->catalog_managed)
			return dl_error_set(DL_EUNSUPPORTED,
			                    "the table uses the reader feature %s: it is managed by a catalog "
			                    "and cannot be read through its path; open it through its catalog",
			                    f);
		if (!fi || !fi->readable)
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
	if (p->min_writer_version < DL_TABLE_FEATURES_WRITER_VERSION) return 0;
	for (uint32_t i = 0; i < p->nwriter_features; i++) {
		const char *f = p->writer_features[i];
		if (!f) return dl_error_set(DL_ECORRUPT, "the protocol's writerFeatures holds a null");
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

bool dl_protocol_equal(const dl_protocol *a, const dl_protocol *b)
{
	return a->min_reader_version == b->min_reader_version &&
	       a->min_writer_version == b->min_writer_version &&
	       same_set(a->reader_features, a->nreader_features, b->reader_features,
	                b->nreader_features) &&
	       same_set(a->writer_features, a->nwriter_features, b->writer_features,
	                b->nwriter_features);
}
