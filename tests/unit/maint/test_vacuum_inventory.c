/* dl_vacuum with USING INVENTORY: the caller's (path, length, isDir,
 * modificationTime) rows replace the listing (Spark's
 * getFilesFromInventory): rows outside the table and hidden ones are
 * dropped, files the table references stay, directories without files
 * go; a stream without the four columns is DELTA_INVALID_INVENTORY_SCHEMA.
 * The stream is a hand-built Arrow C stream, as a caller's would be. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "maint_fixture.h"

#define DDL "id BIGINT, p STRING"
#define MAXR 16

/* One batch of up to MAXR rows; the schema's column names can be changed
 * to test the schema check. */
typedef struct inv {
	const char *names[4];
	const char *formats[4];
	int n;
	char paths[MAXR][1024];
	int32_t offsets[MAXR + 1];
	char data[MAXR * 1024];
	int64_t len[MAXR], mtime[MAXR];
	uint8_t dirs[(MAXR + 7) / 8];
	bool sent;
	/* the C Data structs */
	struct ArrowSchema fields[4], *field_ptrs[4];
	struct ArrowArray cols[4], *col_ptrs[4];
	const void *bufs[4][3];
} inv;

static void noop_schema(struct ArrowSchema *s) { s->release = NULL; }
static void noop_array(struct ArrowArray *a) { a->release = NULL; }

static int get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
	inv *v = st->private_data;
	for (int i = 0; i < 4; i++) {
		memset(&v->fields[i], 0, sizeof v->fields[i]);
		v->fields[i].format = v->formats[i];
		v->fields[i].name = v->names[i];
		v->fields[i].flags = 2; /* nullable */
		v->fields[i].release = noop_schema;
		v->field_ptrs[i] = &v->fields[i];
	}
	memset(out, 0, sizeof *out);
	out->format = "+s";
	out->name = "";
	out->n_children = 4;
	out->children = v->field_ptrs;
	out->release = noop_schema;
	return 0;
}

static int get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
	inv *v = st->private_data;
	memset(out, 0, sizeof *out);
	if (v->sent) return 0;
	v->sent = true;
	size_t at = 0;
	for (int i = 0; i < v->n; i++) {
		v->offsets[i] = (int32_t)at;
		size_t l = strlen(v->paths[i]);
		memcpy(v->data + at, v->paths[i], l);
		at += l;
	}
	v->offsets[v->n] = (int32_t)at;
	v->bufs[0][0] = NULL, v->bufs[0][1] = v->offsets, v->bufs[0][2] = v->data;
	v->bufs[1][0] = NULL, v->bufs[1][1] = v->len;
	v->bufs[2][0] = NULL, v->bufs[2][1] = v->dirs;
	v->bufs[3][0] = NULL, v->bufs[3][1] = v->mtime;
	for (int i = 0; i < 4; i++) {
		memset(&v->cols[i], 0, sizeof v->cols[i]);
		v->cols[i].length = v->n;
		v->cols[i].n_buffers = i == 0 ? 3 : 2;
		v->cols[i].buffers = v->bufs[i];
		v->cols[i].release = noop_array;
		v->col_ptrs[i] = &v->cols[i];
	}
	out->length = v->n;
	out->n_buffers = 1;
	static const void *none[1] = {NULL};
	out->buffers = none;
	out->n_children = 4;
	out->children = v->col_ptrs;
	out->release = noop_array;
	return 0;
}

static void release_stream(struct ArrowArrayStream *st) { st->release = NULL; }

static void inv_init(inv *v, struct ArrowArrayStream *st)
{
	memset(v, 0, sizeof *v);
	const char *names[4] = {"path", "length", "isDir", "modificationTime"};
	const char *formats[4] = {"u", "l", "b", "l"};
	for (int i = 0; i < 4; i++) v->names[i] = names[i], v->formats[i] = formats[i];
	memset(st, 0, sizeof *st);
	st->get_schema = get_schema;
	st->get_next = get_next;
	st->release = release_stream;
	st->private_data = v;
}

static void inv_row(inv *v, const char *path, int64_t len, bool dir, int64_t mtime)
{
	size_t l = strlen(path);
	assert_true(l < sizeof v->paths[v->n]);
	memcpy(v->paths[v->n], path, l + 1);
	v->len[v->n] = len;
	v->mtime[v->n] = mtime;
	if (dir) v->dirs[v->n / 8] |= (uint8_t)(1u << (v->n % 8));
	v->n++;
}

static void test_inventory(void **state)
{
	(void)state;
	char *uri = fx_table(g_dir, "inv");
	dx_create(uri, DDL, "p", NULL, 0);
	dx_append(uri, DDL, "1,a");
	char **live = NULL;
	assert_int_equal(mx_live_files(uri, &live), 1);
	mx_file(uri, "orphan.parquet", 10, 2 * DAY_S);
	mx_file(uri, "unlisted.parquet", 10, 2 * DAY_S);
	mx_file(uri, "_hidden/h.parquet", 10, 2 * DAY_S);
	mx_dir(uri, "p=empty");
	mx_age_files(uri, 2 * DAY_S);
	int64_t old = ((int64_t)time(NULL) - 2 * DAY_S) * 1000;
	char abs[4096], p[4200];
	assert_non_null(realpath(uri, abs));
	inv v;
	struct ArrowArrayStream st;
	inv_init(&v, &st);
	snprintf(p, sizeof p, "file://%s/orphan.parquet", abs);
	inv_row(&v, p, 10, false, old);
	snprintf(p, sizeof p, "file://%s/%s", abs, live[0]);
	inv_row(&v, p, 100, false, old);
	snprintf(p, sizeof p, "file://%s/_hidden/h.parquet", abs);
	inv_row(&v, p, 10, false, old);
	snprintf(p, sizeof p, "file://%s/p=empty", abs);
	inv_row(&v, p, 0, true, old);
	snprintf(p, sizeof p, "file://%s-other/x.parquet", abs); /* outside the table */
	inv_row(&v, p, 10, false, old);
	inv_row(&v, "file:///elsewhere/y.parquet", 10, false, old);
	mx_names n = {DL_BUF_INIT, 0, 0};
	dl_vacuum_options o = DL_VACUUM_OPTIONS_INIT;
	o.retain_hours = 0;
	o.no_retention_check = true;
	o.inventory = &st;
	o.on_file = mx_collect;
	o.on_file_payload = &n;
	dl_vacuum_result r;
	assert_int_equal(dl_vacuum(&r, uri, &o), 0);
	assert_null(st.release); /* consumed and released */
	assert_string_equal(mx_names_text(&n), "orphan.parquet;p=empty");
	assert_int_equal(r.numDeletedFiles, 2);
	assert_int_equal(r.numVacuumedDirectories, 2); /* p=empty + the base */
	assert_true(mx_exists(uri, "unlisted.parquet")); /* not in the inventory */
	assert_true(mx_exists(uri, "_hidden/h.parquet"));
	assert_true(mx_exists(uri, live[0]));
	assert_false(mx_exists(uri, "p=empty"));
	dx_rows(uri, "id,p", "1,a");

	/* a column missing, or of another type: Spark's schema error */
	inv_init(&v, &st);
	v.names[2] = "is_dir";
	o.inventory = &st;
	o.on_file = NULL;
	assert_int_equal(dl_vacuum(&r, uri, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_INVALID_INVENTORY_SCHEMA");
	assert_non_null(strstr(dl_error_last()->message, "isDir"));
	assert_null(st.release);
	inv_init(&v, &st);
	v.formats[1] = "i";
	o.inventory = &st;
	assert_int_equal(dl_vacuum(&r, uri, &o), DL_EINVALID);
	assert_string_equal(dl_error_last()->klass, "DELTA_INVALID_INVENTORY_SCHEMA");
	/* LITE takes no inventory; the stream is still released */
	inv_init(&v, &st);
	o.inventory = &st;
	o.lite = true;
	assert_int_equal(dl_vacuum(&r, uri, &o), DL_EINVALID);
	assert_null(st.release);
	dl_buf_free(&n.b);
	mx_strv_free(live);
	dl_free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inventory),
	};
	return cmocka_run_group_tests(tests, fx_setup_tmpdir, fx_teardown_tmpdir);
}
