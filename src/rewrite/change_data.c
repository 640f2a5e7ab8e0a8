/* Change data files (see change_data.h). */
#include "rewrite/change_data.h"
#include <string.h>
#include "columnar/builder.h"
#include "rewrite/file_writer.h"
#include "util/error.h"
#include "util/mem.h"

struct dl_change_writer {
	const dl_type *schema;
	dl_type *cdc_schema; /* schema + _change_type */
	dl_files_writer *fw;
};

int dl_change_writer_open(dl_change_writer **out, dl_store *store, const dl_type *schema,
                          const char *const *part_cols, int npart,
                          const dl_table_properties *props)
{
	*out = NULL;
	dl_change_writer *w = dl_calloc(1, sizeof *w);
	int n = schema->nchildren;
	dl_field *fs = dl_calloc((size_t)n + 2, sizeof *fs);
	dl_type *str = dl_type_new(DL_TYPE_STRING);
	int rc = w && fs && str ? 0 : DL_ENOMEM;
	if (rc == 0) {
		w->schema = schema;
		memcpy(fs, schema->children, (size_t)n * sizeof *fs);
		fs[n].name = (char *)"_change_type";
		fs[n].type = str;
		fs[n].nullable = true;
		/* under column mapping every field has a physical name */
		fs[n].metadata = props->column_mapping_mode == DL_CM_NONE
		                     ? (char *)"{}"
		                     : (char *)"{\"delta.columnMapping.physicalName\":\"_change_type\"}";
		w->cdc_schema = dl_type_struct(fs, n + 1);
		if (!w->cdc_schema) rc = DL_ENOMEM;
	}
	dl_free(fs);
	dl_type_unref(str);
	if (rc == 0) {
		dl_files_writer_options fo;
		memset(&fo, 0, sizeof fo);
		fo.store = store;
		fo.schema = w->cdc_schema;
		fo.partition_columns = part_cols;
		fo.npartition_columns = npart;
		fo.props = props;
		fo.data_change = false;
		fo.threads = 1;
		fo.change_data = true;
		rc = dl_files_writer_open(&w->fw, &fo);
	}
	if (rc < 0) {
		dl_change_writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int dl_change_writer_write(dl_change_writer *w, const dl_batch *b, const char *kind)
{
	if (b->num_rows == 0) return 0;
	int n = w->schema->nchildren;
	dl_builder *sb;
	DL_TRY(dl_builder_new(&sb, w->cdc_schema->children[n].type));
	dl_array *one = NULL, *change = NULL;
	int rc = dl_builder_append_str(sb, kind);
	if (rc == 0) rc = dl_builder_finish(&one, sb);
	dl_builder_free(sb);
	if (rc == 0 && !(change = dl_array_repeat(one, 0, b->num_rows))) rc = dl_error_last()->code;
	dl_array_free(one);
	dl_batch *v = rc == 0 ? dl_batch_new(w->cdc_schema, b->num_rows) : NULL;
	if (rc == 0 && !v) rc = dl_error_last()->code;
	if (rc < 0) {
		dl_array_free(change);
		return rc;
	}
	/* the columns are borrowed from b */
	for (int i = 0; i < n; i++) v->cols[i] = b->cols[i];
	v->cols[n] = change;
	rc = dl_files_writer_write(w->fw, v);
	for (int i = 0; i < n; i++) v->cols[i] = NULL;
	dl_batch_free(v);
	return rc;
}

int dl_change_writer_finish(dl_change_writer *w) { return dl_files_writer_finish(w->fw); }

size_t dl_change_writer_count(const dl_change_writer *w) { return dl_files_writer_count(w->fw); }

int dl_change_writer_commit(dl_change_writer *w, dl_transaction *t)
{
	for (size_t i = 0; i < dl_files_writer_count(w->fw); i++) {
		const dl_add *a = dl_files_writer_add(w->fw, i);
		dl_cdc cd;
		memset(&cd, 0, sizeof cd);
		cd.path = a->path;
		cd.partition_values = a->partition_values;
		cd.size = a->size;
		cd.data_change = false;
		DL_TRY(dl_txn_add_cdc(t, &cd));
	}
	return 0;
}

void dl_change_writer_discard(dl_change_writer *w)
{
	if (w) dl_files_writer_discard(w->fw);
}

void dl_change_writer_free(dl_change_writer *w)
{
	if (!w) return;
	dl_files_writer_free(w->fw);
	dl_type_unref(w->cdc_schema);
	dl_free(w);
}
