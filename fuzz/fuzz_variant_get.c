/* libFuzzer harness for variant_get (expr/fn_variant.c over
 * columnar/variant_access.c): a row holding any metadata/value bytes, read
 * at any path as several types, must give a value, NULL or an error
 * (DL_ECORRUPT for malformed bytes, DL_EINVALID for paths and casts,
 * DL_EUNSUPPORTED for unknown primitives) -- never a crash, an overread or
 * a leak. Input: byte 0 = metadata length, byte 1 = path length (both
 * capped), then the path text, the metadata and the value. The bytes are
 * copied into exact-size buffers so ASan sees any overread. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/builder.h"
#include "expr/expr.h"
#include "util/buf.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const types[] = {"string", "bigint", "decimal(10,3)", "double", "timestamp", "date", "boolean",
                                    "binary", "variant", "array<string>", "map<string,int>", "struct<a:int,b:string>"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2) return 0;
	size_t mlen = data[0], plen = data[1] % 24;
	if (plen > size - 2) plen = size - 2;
	if (mlen > size - 2 - plen) mlen = size - 2 - plen;
	size_t vlen = size - 2 - plen - mlen;
	char path[32];
	/* keep the path inside a SQL string literal */
	for (size_t i = 0; i < plen; i++) path[i] = data[2 + i] == '\'' || data[2 + i] == '\\' || data[2 + i] < 0x20 ? '_' : (char)data[2 + i];
	path[plen] = 0;
	uint8_t *meta = malloc(mlen ? mlen : 1), *value = malloc(vlen ? vlen : 1);
	if (!meta || !value) abort();
	memcpy(meta, data + 2 + plen, mlen);
	memcpy(value, data + 2 + plen + mlen, vlen);

	dl_type *vt = dl_type_variant();
	dl_field f = {(char *)"v", vt, true, NULL};
	dl_type *schema = dl_type_struct(&f, 1);
	dl_batch *b = dl_batch_new(schema, 1);
	dl_builder *bl;
	if (!b || dl_builder_new(&bl, vt) < 0) abort();
	if (dl_builder_begin_struct(bl) < 0 || dl_builder_append_bytes(dl_builder_child(bl, 0), value, vlen) < 0 ||
	    dl_builder_append_bytes(dl_builder_child(bl, 1), meta, mlen) < 0 || dl_builder_end_struct(bl) < 0)
		abort();
	dl_array_free(b->cols[0]);
	if (dl_builder_finish(&b->cols[0], bl) < 0) abort();
	dl_builder_free(bl);

	char sql[256];
	for (size_t t = 0; t < sizeof types / sizeof types[0] + 1; t++) {
		if (t < sizeof types / sizeof types[0])
			snprintf(sql, sizeof sql, "%svariant_get(v, '$%s', '%s')", data[0] & 1 ? "try_" : "", path, types[t]);
		else
			snprintf(sql, sizeof sql, "is_variant_null(variant_get(v, '$%s'))", path);
		dl_expr *e;
		if (dl_expr_parse(&e, sql) < 0) {
			dl_error_clear();
			continue;
		}
		int rc = dl_expr_bind(e, schema);
		dl_array *out = NULL;
		if (rc == 0) rc = dl_expr_eval(&out, e, b, NULL);
		if (rc < 0 && rc != DL_ECORRUPT && rc != DL_EINVALID && rc != DL_EUNSUPPORTED && rc != DL_ENOMEM) abort();
		if (rc == 0 && (!out || out->length != 1)) abort();
		dl_error_clear();
		dl_array_free(out);
		dl_expr_free(e);
	}
	dl_batch_free(b);
	dl_type_unref(schema);
	dl_type_unref(vt);
	free(meta);
	free(value);
	return 0;
}
