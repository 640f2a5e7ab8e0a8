/* The checkpoint schema (PROTOCOL.md "Checkpoint Schema"), field for field
 * as the reference implementation writes it: top-level columns txn, add,
 * remove, metaData, protocol, domainMetadata, and for V2 checkpoints
 * checkpointMetadata and sidecar. The add column gains clusteringProvider, stats
 * (JSON text), partitionValues_parsed and stats_parsed as the table requires. */
#include "txn/checkpoint_schema.h"

#include <string.h>

#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

#define F(name, type) "{\"name\":\"" name "\",\"type\":" type ",\"nullable\":true,\"metadata\":{}}"
#define STRUCT(fields) "{\"type\":\"struct\",\"fields\":[" fields "]}"
#define MAP_SS "{\"type\":\"map\",\"keyType\":\"string\",\"valueType\":\"string\",\"valueContainsNull\":true}"
#define ARRAY_S "{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true}"
#define DV STRUCT(F("storageType", "\"string\"") "," F("pathOrInlineDv", "\"string\"") "," \
                  F("offset", "\"integer\"") "," F("sizeInBytes", "\"integer\"") ","      \
                  F("cardinality", "\"long\"") "," F("maxRowIndex", "\"long\""))

static const char *TXN = F("txn", STRUCT(F("appId", "\"string\"") "," F("version", "\"long\"") ","
                                         F("lastUpdated", "\"long\"")));
static const char *ADD_HEAD =
	"{\"name\":\"add\",\"type\":{\"type\":\"struct\",\"fields\":["
	F("path", "\"string\"") "," F("partitionValues", MAP_SS) "," F("size", "\"long\"") ","
	F("modificationTime", "\"long\"") "," F("dataChange", "\"boolean\"") "," F("tags", MAP_SS) ","
	F("deletionVector", DV) "," F("baseRowId", "\"long\"") ","
	F("defaultRowCommitVersion", "\"long\"");
static const char *REMOVE = F("remove", STRUCT(
	F("path", "\"string\"") "," F("deletionTimestamp", "\"long\"") "," F("dataChange", "\"boolean\"") ","
	F("extendedFileMetadata", "\"boolean\"") "," F("partitionValues", MAP_SS) "," F("size", "\"long\"") ","
	F("deletionVector", DV) "," F("baseRowId", "\"long\"") "," F("defaultRowCommitVersion", "\"long\"")));
static const char *METADATA = F("metaData", STRUCT(
	F("id", "\"string\"") "," F("name", "\"string\"") "," F("description", "\"string\"") ","
	F("format", STRUCT(F("provider", "\"string\"") "," F("options", MAP_SS))) ","
	F("schemaString", "\"string\"") "," F("partitionColumns", ARRAY_S) ","
	F("configuration", MAP_SS) "," F("createdTime", "\"long\"")));
static const char *PROTOCOL = F("protocol", STRUCT(
	F("minReaderVersion", "\"integer\"") "," F("minWriterVersion", "\"integer\"") ","
	F("readerFeatures", ARRAY_S) "," F("writerFeatures", ARRAY_S)));
static const char *DOMAIN = F("domainMetadata", STRUCT(
	F("domain", "\"string\"") "," F("configuration", "\"string\"") "," F("removed", "\"boolean\"")));
static const char *CKPT_META = F("checkpointMetadata", STRUCT(
	F("version", "\"long\"") "," F("tags", MAP_SS)));
static const char *SIDECAR = F("sidecar", STRUCT(
	F("path", "\"string\"") "," F("sizeInBytes", "\"long\"") "," F("modificationTime", "\"long\"") ","
	F("tags", MAP_SS)));

static int put_add(dl_buf *b, const dl_ckpt_schema_options *o)
{
	DL_TRY(dl_buf_puts(b, ADD_HEAD));
	/* Spark's order: clusteringProvider, then stats. */
	if (o->clustering_provider) DL_TRY(dl_buf_puts(b, "," F("clusteringProvider", "\"string\"")));
	if (o->stats_json) DL_TRY(dl_buf_puts(b, "," F("stats", "\"string\"")));
	if (o->partition_parsed_json) {
		DL_TRY(dl_buf_puts(b, ",{\"name\":\"partitionValues_parsed\",\"type\":"));
		DL_TRY(dl_buf_puts(b, o->partition_parsed_json));
		DL_TRY(dl_buf_puts(b, ",\"nullable\":true,\"metadata\":{}}"));
	}
	if (o->stats_parsed_json) {
		DL_TRY(dl_buf_puts(b, ",{\"name\":\"stats_parsed\",\"type\":"));
		DL_TRY(dl_buf_puts(b, o->stats_parsed_json));
		DL_TRY(dl_buf_puts(b, ",\"nullable\":true,\"metadata\":{}}"));
	}
	return dl_buf_puts(b, "]},\"nullable\":true,\"metadata\":{}}");
}

int dl_ckpt_schema(dl_type **out, const dl_ckpt_schema_options *o)
{
	*out = NULL;
	dl_buf b = DL_BUF_INIT;
	int rc = dl_buf_puts(&b, "{\"type\":\"struct\",\"fields\":[");
	if (o->sidecar_file) {
		if (rc == 0) rc = put_add(&b, o);
		if (rc == 0) rc = dl_buf_printf(&b, ",%s", REMOVE);
	} else {
		if (rc == 0) rc = dl_buf_printf(&b, "%s,", TXN);
		if (rc == 0) rc = put_add(&b, o);
		if (rc == 0) rc = dl_buf_printf(&b, ",%s,%s,%s,%s", REMOVE, METADATA, PROTOCOL, DOMAIN);
		if (rc == 0 && o->v2) rc = dl_buf_printf(&b, ",%s,%s", CKPT_META, SIDECAR);
	}
	if (rc == 0) rc = dl_buf_puts(&b, "]}");
	if (rc == 0) rc = dl_schema_parse(out, b.data, b.len);
	dl_buf_free(&b);
	return rc;
}
