/* The files of a scan for engines that read them themselves
 * (include/deltalake/scan.h "the files of a scan"): what delta-kernel-rs
 * calls scan metadata. Everything comes from the add actions the scan
 * planned and the read schema the planner built, so an engine reading the
 * files with these facts gets the rows dl_scan_to_arrow decodes; nothing is
 * computed twice in a different way.
 *
 * The accessors take a const scan yet hand out borrowed strings that do
 * not exist in the log (locations joined with the table root): they are
 * built on first request and kept in a per-scan cache under a mutex, so
 * the accessors stay safe from several threads and the strings live as
 * long as the scan. */
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include "columnar/arrow_c.h"
#include "log/deletion_vector.h"
#include "log/path.h"
#include "log/schema.h"
#include "log/stats.h"
#include "table/scan.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

struct dl_scan_file_cache {
	pthread_mutex_t mu;
	char **locations;     /* per scan file, built on demand */
	char **dv_locations;  /* per scan file with a 'u' or 'p' DV, built on demand */
	const char **part_keys; /* partition columns' keys in partitionValues (physical) */
	dl_arena arena;
};

static int partition_keys(struct dl_scan_file_cache *c, const dl_scan *s)
{
	const dl_type *schema = dl_snapshot_schema(s->snap);
	c->part_keys = dl_arena_alloc(&c->arena, (size_t)(s->npart ? s->npart : 1) * sizeof *c->part_keys);
	if (!c->part_keys) return DL_ENOMEM;
	for (int i = 0; i < s->npart; i++) {
		c->part_keys[i] = s->part_names[i];
		for (int k = 0; schema && k < schema->nchildren; k++) {
			const dl_field *f = &schema->children[k];
			if (strcasecmp(f->name, s->part_names[i]) != 0) continue;
			DL_TRY(dl_field_physical_name(f, s->mode, &c->arena, &c->part_keys[i]));
			break;
		}
	}
	return 0;
}

int dl_scan_files_init(dl_scan *s)
{
	struct dl_scan_file_cache *c = dl_calloc(1, sizeof *c);
	if (!c) return DL_ENOMEM;
	pthread_mutex_init(&c->mu, NULL);
	c->arena = (dl_arena)DL_ARENA_INIT;
	s->file_cache = c;
	size_t n = s->nfiles ? s->nfiles : 1;
	c->locations = dl_calloc(n, sizeof *c->locations);
	c->dv_locations = dl_calloc(n, sizeof *c->dv_locations);
	if (!c->locations || !c->dv_locations) return DL_ENOMEM;
	return partition_keys(c, s);
}

void dl_scan_files_free(dl_scan *s)
{
	struct dl_scan_file_cache *c = s->file_cache;
	if (!c) return;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (c->locations) dl_free(c->locations[i]);
		if (c->dv_locations) dl_free(c->dv_locations[i]);
	}
	dl_free(c->locations);
	dl_free(c->dv_locations);
	dl_arena_free(&c->arena);
	pthread_mutex_destroy(&c->mu);
	dl_free(c);
	s->file_cache = NULL;
}

static const dl_add *scan_add(const dl_scan *s, size_t i)
{
	return dl_log_state_add(dl_snapshot_state(s->snap), s->files[i]);
}

/* `path` (decoded) made absolute against the table root. */
static int join_root(char **out, const dl_scan *s, const char *path)
{
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	if (dl_log_path_is_absolute(path)) {
		rc = dl_buf_puts(&b, path);
	} else {
		const char *root = dl_store_root(dl_snapshot_store(s->snap));
		size_t n = strlen(root);
		rc = dl_buf_puts(&b, root);
		if (rc == 0 && (n == 0 || root[n - 1] != '/')) rc = dl_buf_putc(&b, '/');
		if (rc == 0) rc = dl_buf_puts(&b, path);
	}
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return *out ? 0 : DL_ENOMEM;
}

/* The cached location of file i (or of its DV), built on first use. */
static int cached_location(const char **out, const dl_scan *s, size_t i, bool dv)
{
	struct dl_scan_file_cache *c = s->file_cache;
	const dl_add *a = scan_add(s, i);
	pthread_mutex_lock(&c->mu);
	char **slot = dv ? &c->dv_locations[i] : &c->locations[i];
	int rc = 0;
	if (!*slot) {
		if (dv) {
			dl_buf rel = DL_BUF_INIT;
			rc = dl_dv_file_path(a->dv, &rel);
			if (rc == 0) rc = join_root(slot, s, rel.data);
			dl_buf_free(&rel);
		} else {
			rc = join_root(slot, s, a->path);
		}
	}
	*out = *slot;
	pthread_mutex_unlock(&c->mu);
	return rc;
}

static int check_index(const dl_scan *s, size_t i)
{
	if (i < s->nfiles) return 0;
	return dl_error_set(DL_EINVALID, "scan file index %zu is out of range (the scan reads %zu files)", i,
	                    s->nfiles);
}

int dl_scan_file_get(dl_scan_file *out, const dl_scan *s, size_t i)
{
	memset(out, 0, sizeof *out);
	DL_TRY(check_index(s, i));
	const dl_add *a = scan_add(s, i);
	out->path = a->path;
	out->log_path = a->log_path ? a->log_path : a->path;
	DL_TRY(cached_location(&out->location, s, i, false));
	out->size = a->size;
	out->modification_time = a->modification_time;
	out->stats = a->stats;
	out->num_records = -1;
	if (a->stats) {
		dl_arena arena = DL_ARENA_INIT;
		dl_file_stats st;
		if (dl_file_stats_parse(&st, &arena, a->stats, strlen(a->stats)) == 0) out->num_records = st.num_records;
		else dl_error_clear(); /* unreadable stats are no stats (as for pruning) */
		dl_arena_free(&arena);
	}
	out->npartition_values = (size_t)s->npart;
	out->base_row_id = a->base_row_id;
	out->default_row_commit_version = a->default_row_commit_version;
	out->snapshot_index = s->files[i];
	if (a->dv) {
		dl_deletion_vector_info *d = &out->deletion_vector;
		out->has_deletion_vector = true;
		d->storage_type = a->dv->storage_type;
		d->path_or_inline_dv = a->dv->path_or_inline;
		d->offset = a->dv->offset;
		d->size_in_bytes = a->dv->size_in_bytes;
		d->cardinality = a->dv->cardinality;
		if (a->dv->storage_type != 'i') DL_TRY(cached_location(&d->location, s, i, true));
	}
	return 0;
}

int dl_scan_file_partition_value(const char **column, const char **value, const dl_scan *s, size_t i,
                                 size_t j)
{
	*column = *value = NULL;
	DL_TRY(check_index(s, i));
	if (j >= (size_t)s->npart)
		return dl_error_set(DL_EINVALID, "partition value index %zu is out of range (the table has %d "
		                    "partition columns)", j, s->npart);
	bool found;
	*column = s->part_names[j];
	*value = dl_str_map_get(&scan_add(s, i)->partition_values, s->file_cache->part_keys[j], &found);
	return 0;
}

int dl_scan_file_deleted_rows(uint64_t **rows, size_t *n, dl_scan *s, size_t i)
{
	*rows = NULL;
	*n = 0;
	DL_TRY(check_index(s, i));
	const dl_add *a = scan_add(s, i);
	if (!a->dv) return 0;
	dl_dv_rows set;
	/* through the scan's DV files: opened once per scan, under its path policy */
	int rc = dl_dv_load_from(&set, s->dvs, a->dv);
	if (rc < 0) return dl_error_prefix("the deletion vector of %s", a->path);
	rc = dl_dv_rows_to_array(&set, rows, n);
	dl_dv_rows_free(&set);
	return rc;
}

/* ---- the columns and their physical names ---- */

size_t dl_scan_column_count(const dl_scan *s)
{
	return s->read_schema ? (size_t)s->read_schema->nchildren : 0;
}

int dl_scan_column_at(dl_scan_column *out, const dl_scan *s, size_t i)
{
	memset(out, 0, sizeof *out);
	out->field_id = -1;
	if (i >= dl_scan_column_count(s))
		return dl_error_set(DL_EINVALID, "scan column index %zu is out of range (%zu columns)", i,
		                    dl_scan_column_count(s));
	const dl_field *f = &s->read_schema->children[i];
	const dl_scan_col *c = &s->cols[i];
	out->name = f->name;
	switch (c->kind) {
	case DL_SCOL_DATA:
		out->kind = DL_SCAN_COLUMN_DATA;
		out->physical_name = s->phys_request->children[c->data_index].name;
		if (s->mode == DL_CM_ID && dl_field_column_id(f, &out->field_id) < 0) {
			out->field_id = -1;
			dl_error_clear();
		}
		break;
	case DL_SCOL_PARTITION:
		out->kind = DL_SCAN_COLUMN_PARTITION;
		out->physical_name = c->part_key;
		break;
	case DL_SCOL_ROW_ID:
		out->kind = DL_SCAN_COLUMN_ROW_ID;
		if (s->mat_row_id >= 0) out->physical_name = s->phys_request->children[s->mat_row_id].name;
		break;
	case DL_SCOL_ROW_COMMIT_VERSION:
		out->kind = DL_SCAN_COLUMN_ROW_COMMIT_VERSION;
		if (s->mat_row_cv >= 0) out->physical_name = s->phys_request->children[s->mat_row_cv].name;
		break;
	}
	return 0;
}

int dl_scan_physical_schema(struct ArrowSchema *out, const dl_scan *s)
{
	return dl_arrow_export_schema(out, s->phys_request);
}
