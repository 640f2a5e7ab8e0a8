/* Builders: growable Arrow-layout buffers for one array, nested as the type. */
#include "columnar/builder.h"
#include <limits.h>
#include <string.h>
#include "columnar/bits.h"
#include "util/error.h"
#include "util/mem.h"

typedef enum layout {
	LAYOUT_NULL,
	LAYOUT_BOOL,
	LAYOUT_FIXED,
	LAYOUT_VAR,    /* string, binary */
	LAYOUT_LIST,   /* array, map (child 0 = element or entries) */
	LAYOUT_STRUCT, /* struct, variant, map entries */
} layout;

struct dl_builder {
	dl_type *type;
	layout kind;
	int width; /* bytes per value for LAYOUT_FIXED */
	int64_t length;
	int64_t null_count;
	uint8_t *validity; /* NULL until the first null */
	size_t validity_cap;
	uint8_t *values;
	size_t values_cap;
	int32_t *offsets;
	size_t offsets_cap; /* bytes */
	uint8_t *data;
	int64_t data_len;
	size_t data_cap;
	int nchildren;
	dl_builder **children;
	bool open;        /* between begin_* and end_* */
	int64_t cap_rows; /* rows all own buffers hold now (0: recompute) */
};

static layout layout_of(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_NULL: return LAYOUT_NULL;
	case DL_TYPE_BOOLEAN: return LAYOUT_BOOL;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return LAYOUT_VAR;
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP: return LAYOUT_LIST;
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT: return LAYOUT_STRUCT;
	default: return LAYOUT_FIXED;
	}
}

static int builder_new_with(dl_builder **out, dl_type *type);

int dl_builder_new(dl_builder **out, dl_type *type)
{
	*out = NULL;
	if (!type) return dl_error_set(DL_EINVALID, "dl_builder_new: type is NULL");
	return builder_new_with(out, type);
}

static int builder_new_with(dl_builder **out, dl_type *type)
{
	dl_builder *b = dl_calloc(1, sizeof(*b));
	if (!b) return DL_ENOMEM;
	b->type = dl_type_ref(type);
	b->kind = layout_of(type);
	b->width = dl_type_fixed_width(type);
	if (type->id == DL_TYPE_MAP) {
		b->nchildren = 1;
	} else if (b->kind == LAYOUT_LIST || b->kind == LAYOUT_STRUCT) {
		b->nchildren = type->nchildren;
	}
	if (b->nchildren) {
		b->children = dl_calloc((size_t)b->nchildren, sizeof(dl_builder *));
		if (!b->children) goto fail;
	}
	if (type->id == DL_TYPE_MAP) {
		dl_type *entries = dl_type_map_entries(type);
		if (!entries) goto fail;
		int rc = builder_new_with(&b->children[0], entries);
		dl_type_unref(entries);
		if (rc < 0) goto fail;
	} else {
		for (int i = 0; i < b->nchildren; i++)
			if (builder_new_with(&b->children[i], type->children[i].type) < 0) goto fail;
	}
	*out = b;
	return 0;
fail:
	dl_builder_free(b);
	return DL_ENOMEM;
}

static void builder_release_buffers(dl_builder *b)
{
	dl_free(b->validity);
	dl_free(b->values);
	dl_free(b->offsets);
	dl_free(b->data);
}

void dl_builder_free(dl_builder *b)
{
	if (!b) return;
	builder_release_buffers(b);
	/* children is NULL when its allocation failed in builder_new_with */
	for (int i = 0; b->children && i < b->nchildren; i++) dl_builder_free(b->children[i]);
	dl_free(b->children);
	dl_type_unref(b->type);
	dl_free(b);
}

const dl_type *dl_builder_type(const dl_builder *b)
{
	return b->type;
}

int64_t dl_builder_length(const dl_builder *b)
{
	return b->length;
}

dl_builder *dl_builder_child(dl_builder *b, int i)
{
	if (b->type->id == DL_TYPE_MAP) b = b->children[0];
	if (i < 0 || i >= b->nchildren) return NULL;
	return b->children[i];
}

/* Grows *p to at least `need` bytes, geometrically, zeroing the new part:
 * unwritten slots (nulls, unset bits) are then always zero. */
static int grow(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap) return 0;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2) return dl_error_set(DL_ENOMEM, "builder buffer of %zu bytes is too large", need);
		ncap *= 2;
	}
	uint8_t *q = dl_realloc(*p, ncap);
	if (!q) return DL_ENOMEM;
	memset(q + *cap, 0, ncap - *cap);
	*p = q;
	*cap = ncap;
	return 0;
}

static int check_rows(int64_t rows)
{
	/* Offsets are int32 and selections uint32: keep one array below 2^31 rows. */
	if (rows < 0 || rows > INT32_MAX)
		return dl_error_set(DL_ENOMEM, "array of %lld rows exceeds the 2^31-1 row limit of one array",
		                    (long long)rows);
	return 0;
}

/* Capacity for `rows` rows in every own buffer (not children, not data). */
static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Rows the own buffers hold as allocated. */
static int64_t capacity_rows(const dl_builder *b)
{
	int64_t cap = INT32_MAX;
	if (b->validity) cap = min64(cap, (int64_t)b->validity_cap * 8);
	switch (b->kind) {
	case LAYOUT_BOOL: return min64(cap, (int64_t)b->values_cap * 8);
	case LAYOUT_FIXED: return min64(cap, (int64_t)(b->values_cap / (size_t)b->width));
	case LAYOUT_VAR:
	case LAYOUT_LIST: return min64(cap, (int64_t)(b->offsets_cap / 4) - 1);
	default: return cap;
	}
}

static int grow_rows(dl_builder *b, int64_t rows)
{
	DL_TRY(check_rows(rows));
	size_t bits = (size_t)(rows + 7) / 8;
	if (b->validity) DL_TRY(grow(&b->validity, &b->validity_cap, bits));
	switch (b->kind) {
	case LAYOUT_BOOL:
		DL_TRY(grow(&b->values, &b->values_cap, bits));
		break;
	case LAYOUT_FIXED:
		DL_TRY(grow(&b->values, &b->values_cap, (size_t)rows * (size_t)b->width));
		break;
	case LAYOUT_VAR:
	case LAYOUT_LIST:
		DL_TRY(grow((uint8_t **)&b->offsets, &b->offsets_cap, ((size_t)rows + 1) * 4));
		break;
	default:
		break;
	}
	b->cap_rows = capacity_rows(b);
	return 0;
}

/* The per-value fast path is one comparison. */
static inline int reserve_rows(dl_builder *b, int64_t rows)
{
	if (rows <= b->cap_rows) return 0;
	return grow_rows(b, rows);
}

int dl_builder_reserve(dl_builder *b, int64_t n, int64_t data_bytes)
{
	if (n < 0 || data_bytes < 0) return dl_error_set(DL_EINVALID, "negative reservation");
	DL_TRY(reserve_rows(b, b->length + n));
	if (b->kind == LAYOUT_VAR && data_bytes > 0)
		DL_TRY(grow(&b->data, &b->data_cap, (size_t)(b->data_len + data_bytes)));
	return 0;
}

/* Marks rows [length, length+n) valid in the bitmap, if there is one. */
static void mark_valid(dl_builder *b, int64_t n)
{
	if (b->validity) dl_bits_set_range(b->validity, b->length, n);
}

/* Rows [length, length+n) are null: their validity bits stay zero. The
 * bitmap is created at the first null, with all earlier rows valid. */
static int mark_null(dl_builder *b, int64_t n)
{
	if (!b->validity) {
		DL_TRY(grow(&b->validity, &b->validity_cap, (size_t)(b->length + n + 7) / 8));
		dl_bits_set_range(b->validity, 0, b->length);
		b->cap_rows = 0; /* the new bitmap may hold fewer rows than the values */
	}
	b->null_count += n;
	return 0;
}

static int type_error(const dl_builder *b, const char *what)
{
	char name[64];
	dl_type_name(b->type, name, sizeof(name));
	return dl_error_set(DL_EINVALID, "cannot append %s to a %s builder", what, name);
}

int dl_builder_append_nulls(dl_builder *b, int64_t n)
{
	if (n <= 0) return n == 0 ? 0 : dl_error_set(DL_EINVALID, "negative null count");
	DL_TRY(reserve_rows(b, b->length + n));
	if (b->kind != LAYOUT_NULL) DL_TRY(mark_null(b, n));
	else b->null_count += n;
	if (b->kind == LAYOUT_VAR || b->kind == LAYOUT_LIST) {
		int32_t last = b->offsets[b->length];
		for (int64_t i = 1; i <= n; i++) b->offsets[b->length + i] = last;
	} else if (b->kind == LAYOUT_STRUCT) {
		/* Children stay aligned with the struct's rows. */
		for (int i = 0; i < b->nchildren; i++) DL_TRY(dl_builder_append_nulls(b->children[i], n));
	}
	b->length += n;
	return 0;
}

int dl_builder_append_null(dl_builder *b)
{
	return dl_builder_append_nulls(b, 1);
}

int dl_builder_append_bool(dl_builder *b, bool v)
{
	if (b->kind != LAYOUT_BOOL) return type_error(b, "a boolean");
	DL_TRY(reserve_rows(b, b->length + 1));
	if (v) dl_bit_set(b->values, b->length);
	mark_valid(b, 1);
	b->length++;
	return 0;
}

static int int_fits(dl_type_id id, int64_t v)
{
	switch (id) {
	case DL_TYPE_BYTE: return v >= INT8_MIN && v <= INT8_MAX;
	case DL_TYPE_SHORT: return v >= INT16_MIN && v <= INT16_MAX;
	case DL_TYPE_INTEGER:
	case DL_TYPE_DATE: return v >= INT32_MIN && v <= INT32_MAX;
	default: return 1;
	}
}

int dl_builder_append_int(dl_builder *b, int64_t v)
{
	dl_type_id id = b->type->id;
	if (b->kind != LAYOUT_FIXED || id == DL_TYPE_FLOAT || id == DL_TYPE_DOUBLE || id == DL_TYPE_DECIMAL)
		return type_error(b, "an integer");
	if (!int_fits(id, v))
		return dl_error_set(DL_EINVALID, "value %lld is out of range for %s", (long long)v, dl_type_id_name(id));
	DL_TRY(reserve_rows(b, b->length + 1));
	uint8_t *p = b->values + (size_t)b->length * (size_t)b->width;
	switch (b->width) {
	case 1: *(int8_t *)p = (int8_t)v; break;
	case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
	case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
	mark_valid(b, 1);
	b->length++;
	return 0;
}

int dl_builder_append_double(dl_builder *b, double v)
{
	if (b->type->id != DL_TYPE_FLOAT && b->type->id != DL_TYPE_DOUBLE) return type_error(b, "a floating-point value");
	DL_TRY(reserve_rows(b, b->length + 1));
	uint8_t *p = b->values + (size_t)b->length * (size_t)b->width;
	if (b->width == 4) {
		float f = (float)v;
		memcpy(p, &f, 4);
	} else {
		memcpy(p, &v, 8);
	}
	mark_valid(b, 1);
	b->length++;
	return 0;
}

/* 10^p for p in 0..38. */
static dl_i128 pow10_i128(int p)
{
	dl_i128 r = 1;
	while (p-- > 0) r *= 10;
	return r;
}

int dl_builder_append_decimal(dl_builder *b, dl_i128 v)
{
	if (b->type->id != DL_TYPE_DECIMAL) return type_error(b, "a decimal");
	dl_i128 lim = pow10_i128(b->type->precision);
	if (v >= lim || v <= -lim)
		return dl_error_set(DL_EINVALID, "decimal value does not fit decimal(%d,%d)", b->type->precision,
		                    b->type->scale);
	DL_TRY(reserve_rows(b, b->length + 1));
	memcpy(b->values + (size_t)b->length * 16, &v, 16);
	mark_valid(b, 1);
	b->length++;
	return 0;
}

static int append_data(dl_builder *b, const void *p, size_t n)
{
	if ((uint64_t)b->data_len + n > (uint64_t)INT32_MAX)
		return dl_error_set(DL_ENOMEM, "string data of one array exceeds 2 GiB; use smaller batches");
	DL_TRY(grow(&b->data, &b->data_cap, (size_t)b->data_len + n));
	if (n) memcpy(b->data + b->data_len, p, n);
	b->data_len += (int64_t)n;
	return 0;
}

int dl_builder_append_bytes(dl_builder *b, const void *p, size_t n)
{
	if (b->kind != LAYOUT_VAR) return type_error(b, "bytes");
	DL_TRY(reserve_rows(b, b->length + 1));
	DL_TRY(append_data(b, p, n));
	b->offsets[b->length + 1] = (int32_t)b->data_len;
	mark_valid(b, 1);
	b->length++;
	return 0;
}

/* Copies validity bits [off, off+n) of `bits` (NULL = all valid) to rows
 * [length, length+n). */
static int append_validity(dl_builder *b, const uint8_t *bits, int64_t off, int64_t n)
{
	int64_t nulls = bits ? n - dl_bits_count(bits, off, n) : 0;
	if (nulls == 0) {
		mark_valid(b, n);
		return 0;
	}
	if (!b->validity) DL_TRY(mark_null(b, 0));
	DL_TRY(grow(&b->validity, &b->validity_cap, (size_t)(b->length + n + 7) / 8));
	b->cap_rows = 0;
	dl_bits_copy(b->validity, b->length, bits, off, n);
	b->null_count += nulls;
	return 0;
}

int dl_builder_append_fixed(dl_builder *b, const void *values, int64_t n, const uint8_t *validity,
                            int64_t validity_offset)
{
	if (b->kind != LAYOUT_FIXED && b->kind != LAYOUT_BOOL) return type_error(b, "fixed-width values");
	if (n <= 0) return n == 0 ? 0 : dl_error_set(DL_EINVALID, "negative value count");
	DL_TRY(reserve_rows(b, b->length + n));
	if (b->kind == LAYOUT_FIXED) {
		memcpy(b->values + (size_t)b->length * (size_t)b->width, values, (size_t)n * (size_t)b->width);
	} else {
		const uint8_t *v = values;
		for (int64_t i = 0; i < n; i++)
			if (v[i]) dl_bit_set(b->values, b->length + i);
	}
	DL_TRY(append_validity(b, validity, validity_offset, n));
	b->length += n;
	return 0;
}

int dl_builder_begin_list(dl_builder *b)
{
	if (b->kind != LAYOUT_LIST) return type_error(b, "a list");
	if (b->open) return dl_error_set(DL_EINVALID, "begin_list called twice without end_list");
	b->open = true;
	return 0;
}

int dl_builder_end_list(dl_builder *b)
{
	if (b->kind != LAYOUT_LIST || !b->open) return dl_error_set(DL_EINVALID, "end_list without begin_list");
	dl_builder *child = b->children[0];
	if (b->type->id == DL_TYPE_MAP) {
		/* Keys and values go straight into the entries' children. */
		int64_t nk = child->children[0]->length, nv = child->children[1]->length;
		if (nk != nv)
			return dl_error_set(DL_EINVALID, "map row has %lld keys but %lld values", (long long)nk,
			                    (long long)nv);
		child->length = nk;
	}
	if (child->length > INT32_MAX) return dl_error_set(DL_ENOMEM, "list elements exceed 2^31-1 in one array");
	DL_TRY(reserve_rows(b, b->length + 1));
	b->offsets[b->length + 1] = (int32_t)child->length;
	mark_valid(b, 1);
	b->length++;
	b->open = false;
	return 0;
}

int dl_builder_begin_struct(dl_builder *b)
{
	if (b->kind != LAYOUT_STRUCT) return type_error(b, "a struct");
	if (b->open) return dl_error_set(DL_EINVALID, "begin_struct called twice without end_struct");
	b->open = true;
	return 0;
}

int dl_builder_end_struct(dl_builder *b)
{
	if (b->kind != LAYOUT_STRUCT || !b->open) return dl_error_set(DL_EINVALID, "end_struct without begin_struct");
	for (int i = 0; i < b->nchildren; i++) {
		if (b->children[i]->length != b->length + 1)
			return dl_error_set(DL_EINVALID, "struct field '%s' got %lld values for %lld rows",
			                    b->type->children[i].name, (long long)b->children[i]->length,
			                    (long long)b->length + 1);
	}
	DL_TRY(reserve_rows(b, b->length + 1));
	mark_valid(b, 1);
	b->length++;
	b->open = false;
	return 0;
}

/* Appends offsets src[start..start+n] rebased onto `base` (our current end
 * of data or children). */
static int append_offsets(dl_builder *b, const int32_t *src, int64_t start, int64_t n, int64_t base)
{
	int64_t first = src[start];
	if ((int64_t)src[start + n] - first + base > INT32_MAX)
		return dl_error_set(DL_ENOMEM, "offsets of one array exceed 2^31-1; use smaller batches");
	int32_t *dst = b->offsets + b->length + 1;
	int32_t delta = (int32_t)(base - first);
	for (int64_t i = 1; i <= n; i++) dst[i - 1] = src[start + i] + delta;
	return 0;
}

int dl_builder_append_range(dl_builder *b, const dl_array *src, int64_t start, int64_t n)
{
	if (n == 0) return 0;
	if (src->type->id != b->type->id)
		return dl_error_set(DL_EINVALID, "cannot append %s rows to a %s builder", dl_type_id_name(src->type->id),
		                    dl_type_id_name(b->type->id));
	if (start < 0 || n < 0 || start > src->length || n > src->length - start)
		return dl_error_set(DL_EINVALID, "rows [%lld, +%lld) are out of range of an array of %lld rows",
		                    (long long)start, (long long)n, (long long)src->length);
	DL_TRY(reserve_rows(b, b->length + n));
	if (b->kind == LAYOUT_NULL) {
		b->null_count += n;
		b->length += n;
		return 0;
	}
	switch (b->kind) {
	case LAYOUT_BOOL:
		dl_bits_copy(b->values, b->length, src->values, start, n);
		break;
	case LAYOUT_FIXED:
		memcpy(b->values + (size_t)b->length * (size_t)b->width,
		       (const uint8_t *)src->values + (size_t)start * (size_t)b->width, (size_t)n * (size_t)b->width);
		break;
	case LAYOUT_VAR: {
		int64_t lo = src->offsets[start], hi = src->offsets[start + n];
		DL_TRY(append_offsets(b, src->offsets, start, n, b->data_len));
		if (hi > lo) DL_TRY(append_data(b, src->data + lo, (size_t)(hi - lo)));
		break;
	}
	case LAYOUT_LIST: {
		int64_t lo = src->offsets[start], hi = src->offsets[start + n];
		DL_TRY(append_offsets(b, src->offsets, start, n, b->children[0]->length));
		DL_TRY(dl_builder_append_range(b->children[0], src->children[0], lo, hi - lo));
		break;
	}
	case LAYOUT_STRUCT:
		for (int i = 0; i < b->nchildren; i++)
			DL_TRY(dl_builder_append_range(b->children[i], src->children[i], start, n));
		break;
	default:
		break;
	}
	DL_TRY(append_validity(b, src->validity, start, n));
	b->length += n;
	return 0;
}

/* Gives back the slack of geometric growth when it is large (a batch lives
 * on after its builder). Should shrinking fail, the larger buffer is kept. */
static void shrink(uint8_t **p, size_t cap, size_t used)
{
	if (!*p || cap - used < 4096 || cap - used < cap / 4) return;
	uint8_t *q = dl_realloc(*p, used ? used : 1);
	if (q) *p = q;
}

static void builder_reset(dl_builder *b)
{
	b->validity = b->values = b->data = NULL;
	b->offsets = NULL;
	b->validity_cap = b->values_cap = b->offsets_cap = b->data_cap = 0;
	b->length = b->null_count = b->data_len = b->cap_rows = 0;
	b->open = false;
}

int dl_builder_finish(dl_array **out, dl_builder *b)
{
	*out = NULL;
	if (b->open) return dl_error_set(DL_EINVALID, "finish called inside an unfinished list or struct");
	/* Offsets always hold length+1 entries, even for zero rows. */
	DL_TRY(grow_rows(b, b->length));
	dl_array *a = dl_calloc(1, sizeof(*a));
	if (!a) return DL_ENOMEM;
	if (b->nchildren) {
		a->children = dl_calloc((size_t)b->nchildren, sizeof(dl_array *));
		if (!a->children) {
			dl_free(a);
			return DL_ENOMEM;
		}
		a->nchildren = b->nchildren;
		for (int i = 0; i < b->nchildren; i++) {
			if (dl_builder_finish(&a->children[i], b->children[i]) < 0) {
				dl_array_free(a);
				return DL_ENOMEM;
			}
		}
	}
	size_t bits = (size_t)(b->length + 7) / 8;
	shrink(&b->validity, b->validity_cap, bits);
	if (b->kind == LAYOUT_BOOL) shrink(&b->values, b->values_cap, bits);
	if (b->kind == LAYOUT_FIXED) shrink(&b->values, b->values_cap, (size_t)b->length * (size_t)b->width);
	shrink((uint8_t **)&b->offsets, b->offsets_cap, ((size_t)b->length + 1) * 4);
	shrink(&b->data, b->data_cap, (size_t)b->data_len);
	a->type = dl_type_ref(b->type);
	a->length = b->length;
	a->null_count = b->kind == LAYOUT_NULL ? b->length : b->null_count;
	a->validity = b->validity;
	a->values = b->values;
	a->offsets = b->offsets;
	a->data = b->data;
	a->data_len = b->data_len;
	builder_reset(b);
	*out = a;
	return 0;
}
