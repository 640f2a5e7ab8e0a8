/* dl_array and dl_batch: creation, release, null counts, slice/take/concat.
 * Copies go through the builder's bulk range append, so every type, nested
 * arbitrarily, shares one implementation. */
#include "columnar/array.h"
#include <string.h>
#include "columnar/bits.h"
#include "columnar/builder.h"
#include "util/error.h"
#include "util/mem.h"

static int children_new(dl_array *a, dl_type *type, int64_t length, bool all_null)
{
	int n;
	if (type->id == DL_TYPE_STRUCT || type->id == DL_TYPE_VARIANT || type->id == DL_TYPE_ARRAY) n = type->nchildren;
	else if (type->id == DL_TYPE_MAP) n = 1;
	else return 0;
	a->children = dl_calloc((size_t)n, sizeof(dl_array *));
	if (!a->children) return DL_ENOMEM;
	a->nchildren = n;
	if (type->id == DL_TYPE_MAP) {
		dl_field f[2] = {type->children[0], type->children[1]};
		f[0].nullable = false;
		dl_type *entries = dl_type_struct(f, 2);
		if (!entries) return DL_ENOMEM;
		a->children[0] = dl_array_new(entries, 0);
		dl_type_unref(entries);
		return a->children[0] ? 0 : DL_ENOMEM;
	}
	/* Struct fields have the struct's rows; list elements start empty. */
	int64_t clen = type->id == DL_TYPE_ARRAY ? 0 : length;
	for (int i = 0; i < n; i++) {
		dl_type *ct = type->children[i].type;
		a->children[i] = all_null ? dl_array_new_null(ct, clen) : dl_array_new(ct, clen);
		if (!a->children[i]) return DL_ENOMEM;
	}
	return 0;
}

static dl_array *array_alloc(dl_type *type, int64_t length, bool all_null)
{
	if (!type || length < 0 || length > INT32_MAX) {
		dl_error_set(DL_EINVALID, "invalid array length %lld (0..2^31-1)", (long long)length);
		return NULL;
	}
	dl_array *a = dl_calloc(1, sizeof(*a));
	if (!a) return NULL;
	a->type = dl_type_ref(type);
	a->length = length;
	size_t bits = (size_t)(length + 7) / 8;
	int w = dl_type_fixed_width(type);
	bool ok = true;
	switch (type->id) {
	case DL_TYPE_NULL:
		break;
	case DL_TYPE_BOOLEAN:
		ok = (a->values = dl_calloc(bits ? bits : 1, 1)) != NULL;
		break;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		ok = (a->offsets = dl_calloc((size_t)length + 1, sizeof(int32_t))) != NULL;
		break;
	default:
		if (w) ok = (a->values = dl_calloc(length ? (size_t)length : 1, (size_t)w)) != NULL;
	}
	if (ok && all_null && type->id != DL_TYPE_NULL) ok = (a->validity = dl_calloc(bits ? bits : 1, 1)) != NULL;
	if (ok) ok = children_new(a, type, length, all_null) == 0;
	if (!ok) {
		dl_array_free(a);
		return NULL;
	}
	a->null_count = all_null || type->id == DL_TYPE_NULL ? length : -1;
	return a;
}

dl_array *dl_array_new(dl_type *type, int64_t length)
{
	return array_alloc(type, length, false);
}

dl_array *dl_array_new_null(dl_type *type, int64_t length)
{
	return array_alloc(type, length, true);
}

void dl_array_free(dl_array *a)
{
	if (!a) return;
	for (int i = 0; i < a->nchildren; i++) dl_array_free(a->children[i]);
	dl_free(a->children);
	if (a->owner_release) {
		a->owner_release(a->owner);
	} else {
		dl_free(a->validity);
		dl_free(a->values);
		dl_free(a->offsets);
		dl_free(a->data);
	}
	dl_type_unref(a->type);
	dl_free(a);
}

int64_t dl_array_null_count(dl_array *a)
{
	/* Shared arrays are read by several threads: the cache is written
	 * atomically (all writers store the same value). */
	int64_t n = __atomic_load_n(&a->null_count, __ATOMIC_RELAXED);
	if (n >= 0) return n;
	if (a->type->id == DL_TYPE_NULL) n = a->length;
	else if (!a->validity) n = 0;
	else n = a->length - dl_bits_count(a->validity, 0, a->length);
	__atomic_store_n(&a->null_count, n, __ATOMIC_RELAXED);
	return n;
}

static dl_array *finish_or_null(dl_builder *b, int rc)
{
	dl_array *out = NULL;
	if (rc == 0) dl_builder_finish(&out, b);
	dl_builder_free(b);
	return out;
}

dl_array *dl_array_slice(const dl_array *a, int64_t start, int64_t n)
{
	dl_builder *b;
	if (dl_builder_new(&b, a->type) < 0) return NULL;
	return finish_or_null(b, dl_builder_append_range(b, a, start, n));
}

static int take_validity(dl_array *out, const dl_array *a, const uint32_t *sel, int64_t n);

/* Gather of a fixed-width or boolean array: the hot path of applying a
 * selection (deletion vectors, filters) to flat columns. */
static dl_array *take_flat(const dl_array *a, const uint32_t *sel, int64_t n)
{
	dl_array *out = dl_array_new(a->type, n);
	if (!out) return NULL;
	int w = dl_type_fixed_width(a->type);
	const uint8_t *src = a->values;
	uint8_t *dst = out->values;
	switch (w) {
	case 0: /* boolean */
		for (int64_t i = 0; i < n; i++)
			if (dl_bit_get(src, sel[i])) dl_bit_set(dst, i);
		break;
	case 4:
		for (int64_t i = 0; i < n; i++) ((uint32_t *)(void *)dst)[i] = ((const uint32_t *)(const void *)src)[sel[i]];
		break;
	case 8:
		for (int64_t i = 0; i < n; i++) ((uint64_t *)(void *)dst)[i] = ((const uint64_t *)(const void *)src)[sel[i]];
		break;
	default:
		for (int64_t i = 0; i < n; i++) memcpy(dst + i * w, src + (size_t)sel[i] * (size_t)w, (size_t)w);
	}
	if (take_validity(out, a, sel, n) < 0) {
		dl_array_free(out);
		return NULL;
	}
	return out;
}

/* Gathers the validity of rows sel[0..n) into out (none when no nulls). */
static int take_validity(dl_array *out, const dl_array *a, const uint32_t *sel, int64_t n)
{
	out->null_count = 0;
	if (!a->validity || dl_array_null_count((dl_array *)a) == 0) return 0;
	out->validity = dl_calloc((size_t)(n + 7) / 8 + 1, 1);
	if (!out->validity) return DL_ENOMEM;
	int64_t nulls = 0;
	for (int64_t i = 0; i < n; i++) {
		if (dl_bit_get(a->validity, sel[i])) dl_bit_set(out->validity, i);
		else nulls++;
	}
	out->null_count = nulls;
	return 0;
}

/* Gather of a string or binary array: sizes first, then one copy each. */
static dl_array *take_var(const dl_array *a, const uint32_t *sel, int64_t n)
{
	int64_t total = 0;
	for (int64_t i = 0; i < n; i++) total += a->offsets[sel[i] + 1] - a->offsets[sel[i]];
	if (total > INT32_MAX) {
		dl_error_set(DL_ENOMEM, "taking %lld bytes of strings exceeds 2 GiB in one array; use smaller batches",
		             (long long)total);
		return NULL;
	}
	dl_array *out = dl_array_new(a->type, n);
	if (!out) return NULL;
	if (!(out->data = dl_malloc(total ? (size_t)total : 1)) || take_validity(out, a, sel, n) < 0) {
		dl_array_free(out);
		return NULL;
	}
	int32_t pos = 0;
	for (int64_t i = 0; i < n; i++) {
		int32_t lo = a->offsets[sel[i]], len = a->offsets[sel[i] + 1] - lo;
		if (len) memcpy(out->data + pos, a->data + lo, (size_t)len);
		pos += len;
		out->offsets[i + 1] = pos;
	}
	out->data_len = total;
	return out;
}

dl_array *dl_array_take(const dl_array *a, const uint32_t *sel, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		if (sel[i] >= (uint64_t)a->length) {
			dl_error_set(DL_EINVALID, "take index %u is out of range of an array of %lld rows", sel[i],
			             (long long)a->length);
			return NULL;
		}
	}
	dl_type_id id = a->type->id;
	if (id != DL_TYPE_NULL && (dl_type_fixed_width(a->type) || id == DL_TYPE_BOOLEAN)) return take_flat(a, sel, n);
	if (id == DL_TYPE_STRING || id == DL_TYPE_BINARY) return take_var(a, sel, n);
	dl_builder *b;
	if (dl_builder_new(&b, a->type) < 0) return NULL;
	int rc = 0;
	/* Runs of consecutive indexes become one bulk copy each. */
	for (int64_t i = 0; i < n && rc == 0;) {
		int64_t j = i + 1;
		while (j < n && sel[j] == sel[j - 1] + 1) j++;
		rc = dl_builder_append_range(b, a, sel[i], j - i);
		i = j;
	}
	return finish_or_null(b, rc);
}

dl_array *dl_array_concat(dl_array *const *arrays, int n)
{
	if (n <= 0) {
		dl_error_set(DL_EINVALID, "concat of no arrays: the type is unknown");
		return NULL;
	}
	dl_builder *b;
	if (dl_builder_new(&b, arrays[0]->type) < 0) return NULL;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		if (!dl_type_equals(arrays[i]->type, arrays[0]->type)) {
			rc = dl_error_set(DL_EINVALID, "concat of arrays of different types (array %d)", i);
			break;
		}
		rc = dl_builder_append_range(b, arrays[i], 0, arrays[i]->length);
	}
	return finish_or_null(b, rc);
}

dl_batch *dl_batch_new(dl_type *schema, int64_t num_rows)
{
	if (!schema || schema->id != DL_TYPE_STRUCT) {
		dl_error_set(DL_EINVALID, "a batch schema must be a struct type");
		return NULL;
	}
	dl_batch *b = dl_calloc(1, sizeof(*b));
	if (!b) return NULL;
	b->cols = dl_calloc((size_t)(schema->nchildren ? schema->nchildren : 1), sizeof(dl_array *));
	if (!b->cols) {
		dl_free(b);
		return NULL;
	}
	b->schema = dl_type_ref(schema);
	b->num_rows = num_rows;
	b->ncols = schema->nchildren;
	return b;
}

void dl_batch_free(dl_batch *b)
{
	if (!b) return;
	for (int i = 0; i < b->ncols; i++) dl_array_free(b->cols[i]);
	dl_free(b->cols);
	dl_type_unref(b->schema);
	dl_free(b);
}

dl_batch *dl_batch_take(const dl_batch *b, const uint32_t *sel, int64_t n)
{
	dl_batch *out = dl_batch_new(b->schema, n);
	if (!out) return NULL;
	for (int i = 0; i < b->ncols; i++) {
		if (!b->cols[i] || !(out->cols[i] = dl_array_take(b->cols[i], sel, n))) {
			if (!b->cols[i]) dl_error_set(DL_EINVALID, "batch column %d is not set", i);
			dl_batch_free(out);
			return NULL;
		}
	}
	return out;
}

int dl_batch_validate(const dl_batch *b)
{
	if (!b->schema || b->schema->id != DL_TYPE_STRUCT || b->ncols != b->schema->nchildren)
		return dl_error_set(DL_EINVALID, "batch columns do not match its schema");
	for (int i = 0; i < b->ncols; i++) {
		const dl_array *c = b->cols[i];
		if (!c) return dl_error_set(DL_EINVALID, "batch column '%s' is not set", b->schema->children[i].name);
		if (c->length != b->num_rows)
			return dl_error_set(DL_EINVALID, "batch column '%s' has %lld rows, the batch %lld",
			                    b->schema->children[i].name, (long long)c->length, (long long)b->num_rows);
		if (!dl_type_equals(c->type, b->schema->children[i].type))
			return dl_error_set(DL_EINVALID, "batch column '%s' does not have the schema's type",
			                    b->schema->children[i].name);
	}
	return 0;
}

int dl_selection_reserve(dl_selection *s, int64_t n)
{
	if (n <= s->cap) return 0;
	if (n > (int64_t)UINT32_MAX + 1) return dl_error_set(DL_EINVALID, "selection of %lld rows is too large", (long long)n);
	int64_t cap = s->cap ? s->cap : 1024;
	while (cap < n) cap *= 2;
	uint32_t *p = dl_reallocarray(s->idx, (size_t)cap, sizeof(uint32_t));
	if (!p) return DL_ENOMEM;
	s->idx = p;
	s->cap = cap;
	return 0;
}

void dl_selection_free(dl_selection *s)
{
	dl_free(s->idx);
	s->idx = NULL;
	s->count = s->cap = 0;
}

static bool var_equals(const dl_array *a, int64_t i, const dl_array *b, int64_t j)
{
	int64_t la = a->offsets[i + 1] - a->offsets[i], lb = b->offsets[j + 1] - b->offsets[j];
	return la == lb && (la == 0 || memcmp(a->data + a->offsets[i], b->data + b->offsets[j], (size_t)la) == 0);
}

static bool list_equals(const dl_array *a, int64_t i, const dl_array *b, int64_t j)
{
	int64_t la = a->offsets[i + 1] - a->offsets[i], lb = b->offsets[j + 1] - b->offsets[j];
	if (la != lb) return false;
	for (int64_t k = 0; k < la; k++)
		if (!dl_array_row_equals(a->children[0], a->offsets[i] + k, b->children[0], b->offsets[j] + k)) return false;
	return true;
}

int64_t dl_array_bytes(const dl_array *a)
{
	if (!a) return 0;
	int64_t n = a->length, b = (int64_t)sizeof *a;
	if (a->validity) b += (n + 7) / 8;
	int w = dl_type_fixed_width(a->type);
	if (w > 0) b += n * w;
	else if (a->type->id == DL_TYPE_BOOLEAN) b += (n + 7) / 8;
	if (a->offsets) b += (n + 1) * 4;
	b += a->data_len;
	for (int i = 0; i < a->nchildren; i++) b += dl_array_bytes(a->children[i]);
	return b;
}

int64_t dl_batch_bytes(const dl_batch *b)
{
	int64_t n = (int64_t)sizeof *b;
	for (int i = 0; b && i < b->ncols; i++) n += dl_array_bytes(b->cols[i]);
	return n;
}

bool dl_array_row_equals(const dl_array *a, int64_t i, const dl_array *b, int64_t j)
{
	if (a->type->id != b->type->id) return false;
	bool va = dl_array_is_valid(a, i), vb = dl_array_is_valid(b, j);
	if (!va || !vb) return va == vb;
	int w = dl_type_fixed_width(a->type);
	switch (a->type->id) {
	case DL_TYPE_BOOLEAN:
		return dl_bit_get(a->values, i) == dl_bit_get(b->values, j);
	case DL_TYPE_FLOAT: {
		float x = ((const float *)a->values)[i], y = ((const float *)b->values)[j];
		return x == y || (x != x && y != y);
	}
	case DL_TYPE_DOUBLE: {
		double x = ((const double *)a->values)[i], y = ((const double *)b->values)[j];
		return x == y || (x != x && y != y);
	}
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		return var_equals(a, i, b, j);
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		return list_equals(a, i, b, j);
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT:
		if (a->nchildren != b->nchildren) return false;
		for (int k = 0; k < a->nchildren; k++)
			if (!dl_array_row_equals(a->children[k], i, b->children[k], j)) return false;
		return true;
	default:
		return memcmp((const uint8_t *)a->values + i * w, (const uint8_t *)b->values + j * w, (size_t)w) == 0;
	}
}

/* Doubles a filled prefix of `unit` bytes until `total` bytes are set. */
static void fill_doubling(uint8_t *dst, size_t unit, size_t total)
{
	size_t done = unit;
	while (done < total) {
		size_t n = done < total - done ? done : total - done;
		memcpy(dst + done, dst, n);
		done += n;
	}
}

dl_array *dl_array_repeat(const dl_array *a, int64_t row, int64_t n)
{
	if (row < 0 || row >= a->length || n < 0) {
		dl_error_set(DL_EINVALID, "repeat of row %lld of an array of %lld rows", (long long)row, (long long)a->length);
		return NULL;
	}
	if (!dl_array_is_valid(a, row)) return dl_array_new_null(a->type, n);
	int w = dl_type_fixed_width(a->type);
	if (w) {
		dl_array *out = dl_array_new(a->type, n);
		if (!out) return NULL;
		if (n) {
			memcpy(out->values, (const uint8_t *)a->values + row * w, (size_t)w);
			fill_doubling(out->values, (size_t)w, (size_t)n * (size_t)w);
		}
		out->null_count = 0;
		return out;
	}
	if (a->type->id == DL_TYPE_BOOLEAN) {
		dl_array *out = dl_array_new(a->type, n);
		if (!out) return NULL;
		if (dl_bit_get(a->values, row)) dl_bits_set_range(out->values, 0, n);
		out->null_count = 0;
		return out;
	}
	if (a->type->id == DL_TYPE_STRING || a->type->id == DL_TYPE_BINARY) {
		int64_t len = a->offsets[row + 1] - a->offsets[row];
		if (len && n > INT32_MAX / len) {
			dl_error_set(DL_ENOMEM, "repeating a %lld-byte value %lld times exceeds 2 GiB", (long long)len, (long long)n);
			return NULL;
		}
		dl_array *out = dl_array_new(a->type, n);
		if (!out) return NULL;
		out->data = dl_malloc(len > 0 && n > 0 ? (size_t)(len * n) : 1);
		if (!out->data) {
			dl_array_free(out);
			return NULL;
		}
		for (int64_t i = 1; i <= n; i++) out->offsets[i] = (int32_t)(i * len);
		if (len && n) {
			memcpy(out->data, a->data + a->offsets[row], (size_t)len);
			fill_doubling(out->data, (size_t)len, (size_t)(len * n));
		}
		out->data_len = len * n;
		out->null_count = 0;
		return out;
	}
	/* Nested: one bulk copy per row. */
	dl_builder *b;
	if (dl_builder_new(&b, a->type) < 0) return NULL;
	int rc = 0;
	for (int64_t i = 0; i < n && rc == 0; i++) rc = dl_builder_append_range(b, a, row, 1);
	return finish_or_null(b, rc);
}

dl_batch *dl_batch_slice(const dl_batch *b, int64_t start, int64_t n)
{
	dl_batch *out = dl_batch_new(b->schema, n);
	if (!out) return NULL;
	for (int i = 0; i < b->ncols; i++) {
		if (!b->cols[i] || !(out->cols[i] = dl_array_slice(b->cols[i], start, n))) {
			if (!b->cols[i]) dl_error_set(DL_EINVALID, "batch column %d is not set", i);
			dl_batch_free(out);
			return NULL;
		}
	}
	return out;
}

dl_batch *dl_batch_concat(dl_batch *const *batches, int n)
{
	if (n <= 0) {
		dl_error_set(DL_EINVALID, "concat of no batches: the schema is unknown");
		return NULL;
	}
	int64_t rows = 0;
	for (int i = 0; i < n; i++) {
		if (!dl_type_equals(batches[i]->schema, batches[0]->schema)) {
			dl_error_set(DL_ESCHEMA, "concat of batches of different schemas (batch %d)", i);
			return NULL;
		}
		rows += batches[i]->num_rows;
	}
	dl_batch *out = dl_batch_new(batches[0]->schema, rows);
	dl_array **cols = out ? dl_calloc((size_t)n, sizeof(dl_array *)) : NULL;
	if (!cols) {
		dl_batch_free(out);
		return NULL;
	}
	for (int c = 0; c < out->ncols; c++) {
		for (int i = 0; i < n; i++) cols[i] = batches[i]->cols[c];
		if (!(out->cols[c] = dl_array_concat(cols, n))) {
			dl_free(cols);
			dl_batch_free(out);
			return NULL;
		}
	}
	dl_free(cols);
	return out;
}
