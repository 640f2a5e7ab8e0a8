/* The public readers (deltalake/input.h): options checked, the schema JSON
 * parsed, the file mapped, and the batch stream exported to Arrow. */
#include <string.h>
#include "deltalake/input.h"
#include "io/input.h"
#include "log/schema.h"
#include "util/error.h"

static int check_version(int v, int max, const char *what)
{
	if (v >= 1 && v <= max) return 0;
	return dl_error_set(DL_EINVALID, "%s version %d is not 1..%d", what, v, max);
}

static int parse_schema(dl_type **out, const char *json)
{
	*out = NULL;
	if (!json) return 0;
	int rc = dl_schema_parse(out, json, strlen(json));
	return rc < 0 ? dl_error_prefix("the schema to read by") : 0;
}

int dl_read_csv(struct ArrowArrayStream *out, const char *path_or_uri, const dl_csv_options *opts)
{
	memset(out, 0, sizeof *out);
	dl_csv_options defaults = DL_CSV_OPTIONS_INIT;
	if (!opts) opts = &defaults;
	DL_TRY(check_version(opts->version, DL_CSV_OPTIONS_VERSION, "dl_csv_options"));
	dl_io_csv_format fmt = {opts->delimiter, opts->quote, opts->null_string, opts->header};
	dl_type *schema;
	DL_TRY(parse_schema(&schema, opts->schema_json));
	dl_io_input *in;
	int rc = dl_io_input_open(&in, path_or_uri);
	dl_batch_stream *s = NULL;
	if (rc == 0) rc = dl_io_csv_stream(&s, in, schema, &fmt, opts->batch_rows,
		                                 opts->version >= 2 && opts->widen_types);
	dl_type_unref(schema);
	return rc < 0 ? rc : dl_batch_stream_export(out, s);
}

int dl_read_jsonl(struct ArrowArrayStream *out, const char *path_or_uri, const dl_jsonl_options *opts)
{
	memset(out, 0, sizeof *out);
	dl_jsonl_options defaults = DL_JSONL_OPTIONS_INIT;
	if (!opts) opts = &defaults;
	DL_TRY(check_version(opts->version, DL_JSONL_OPTIONS_VERSION, "dl_jsonl_options"));
	dl_type *schema;
	DL_TRY(parse_schema(&schema, opts->schema_json));
	dl_io_input *in;
	int rc = dl_io_input_open(&in, path_or_uri);
	dl_batch_stream *s = NULL;
	if (rc == 0) rc = dl_io_jsonl_stream(&s, in, schema, opts->batch_rows,
		                                   opts->version >= 2 && opts->widen_types);
	dl_type_unref(schema);
	return rc < 0 ? rc : dl_batch_stream_export(out, s);
}
