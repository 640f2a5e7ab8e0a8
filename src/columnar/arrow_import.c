/* Import from the Arrow C Data Interface: types from ArrowSchema, arrays
 * from ArrowArray borrowing the producer's buffers where our layout allows
 * and converting (copying) where it does not. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/arrow_c.h"
#include "columnar/bits.h"
#include "util/error.h"
#include "util/mem.h"

#define MAX_DEPTH 64

/* How one Arrow format maps onto our types. */
typedef enum conv {
	CONV_NONE,      /* same layout */
	CONV_LARGE,     /* 64-bit offsets: "U", "Z", "+L" */
	CONV_TS_SEC,    /* timestamps in other units -> micros */
	CONV_TS_MILLI,
	CONV_TS_NANO,
	CONV_DATE64,    /* milliseconds -> days */
	CONV_VIEW,      /* string/binary views: "vu", "vz" */
} conv;

typedef struct fmt_info {
	dl_type_id id;
	conv conv;
	int precision, scale;
	bool variant;
} fmt_info;

/* Reads one key of the binary metadata encoding into a NUL-terminated
 * malloc'd string (NULL when absent or on error). */
static char *metadata_get(const char *md, const char *key)
{
	if (!md) return NULL;
	int32_t n, kl, vl;
	const char *p = md;
	memcpy(&n, p, 4);
	p += 4;
	size_t klen = strlen(key);
	for (int32_t i = 0; i < n && n > 0; i++) {
		memcpy(&kl, p, 4);
		if (kl < 0) return NULL;
		const char *k = p + 4;
		p = k + kl;
		memcpy(&vl, p, 4);
		if (vl < 0) return NULL;
		const char *v = p + 4;
		p = v + vl;
		if ((size_t)kl == klen && memcmp(k, key, klen) == 0) return dl_strndup(v, (size_t)vl);
	}
	return NULL;
}

static bool is_variant(const struct ArrowSchema *s)
{
	char *ext = metadata_get(s->metadata, "ARROW:extension:name");
	bool v = ext && strcmp(ext, DL_ARROW_VARIANT_EXTENSION) == 0;
	dl_free(ext);
	return v;
}

static int unsupported(const struct ArrowSchema *s)
{
	return dl_error_set(DL_EUNSUPPORTED, "Arrow type '%s' of field '%s' has no Delta equivalent; cast it first",
	                    s->format, s->name ? s->name : "");
}

static int parse_decimal(fmt_info *fi, const struct ArrowSchema *s)
{
	int p, sc, bw = 128, used = 0;
	int n = sscanf(s->format, "d:%d,%d%n,%d", &p, &sc, &used, &bw);
	if (n < 2) return dl_error_set(DL_EINVALID, "malformed Arrow decimal format '%s'", s->format);
	if (bw != 128 || p < 1 || p > 38 || sc < 0 || sc > p) return unsupported(s);
	fi->id = DL_TYPE_DECIMAL;
	fi->precision = p;
	fi->scale = sc;
	return 0;
}

static int parse_format(fmt_info *fi, const struct ArrowSchema *s)
{
	static const struct { const char *f; dl_type_id id; conv c; } simple[] = {
		{"n", DL_TYPE_NULL, CONV_NONE},    {"b", DL_TYPE_BOOLEAN, CONV_NONE}, {"c", DL_TYPE_BYTE, CONV_NONE},
		{"s", DL_TYPE_SHORT, CONV_NONE},   {"i", DL_TYPE_INTEGER, CONV_NONE}, {"l", DL_TYPE_LONG, CONV_NONE},
		{"f", DL_TYPE_FLOAT, CONV_NONE},   {"g", DL_TYPE_DOUBLE, CONV_NONE},  {"u", DL_TYPE_STRING, CONV_NONE},
		{"U", DL_TYPE_STRING, CONV_LARGE}, {"z", DL_TYPE_BINARY, CONV_NONE},  {"Z", DL_TYPE_BINARY, CONV_LARGE},
		{"tdD", DL_TYPE_DATE, CONV_NONE},  {"tdm", DL_TYPE_DATE, CONV_DATE64}, {"+s", DL_TYPE_STRUCT, CONV_NONE},
		{"+l", DL_TYPE_ARRAY, CONV_NONE},  {"+L", DL_TYPE_ARRAY, CONV_LARGE}, {"+m", DL_TYPE_MAP, CONV_NONE},
		{"vu", DL_TYPE_STRING, CONV_VIEW}, {"vz", DL_TYPE_BINARY, CONV_VIEW},
	};
	memset(fi, 0, sizeof(*fi));
	if (!s || !s->format) return dl_error_set(DL_EINVALID, "Arrow schema without a format string");
	for (size_t i = 0; i < sizeof simple / sizeof *simple; i++) {
		if (strcmp(s->format, simple[i].f) == 0) {
			fi->id = simple[i].id;
			fi->conv = simple[i].c;
			fi->variant = fi->id == DL_TYPE_STRUCT && is_variant(s);
			if (fi->variant) fi->id = DL_TYPE_VARIANT;
			return 0;
		}
	}
	const char *f = s->format;
	if (f[0] == 'd' && f[1] == ':') return parse_decimal(fi, s);
	if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':') {
		static const conv units[] = {['s'] = CONV_TS_SEC, ['m'] = CONV_TS_MILLI, ['u'] = CONV_NONE, ['n'] = CONV_TS_NANO};
		if (f[2] != 's' && f[2] != 'm' && f[2] != 'u' && f[2] != 'n') return unsupported(s);
		fi->conv = units[(unsigned char)f[2]];
		/* A zone, any zone, means an instant; no zone means wall-clock time. */
		fi->id = f[4] ? DL_TYPE_TIMESTAMP : DL_TYPE_TIMESTAMP_NTZ;
		return 0;
	}
	return unsupported(s);
}

static int import_type_rec(dl_type **out, const struct ArrowSchema *s, int depth);

/* Dictionary indices: any integer format. Returns the width in bytes. */
static int index_width(const char *f, bool *is_signed)
{
	static const char fmts[] = "cCsSiIlL";
	const char *p = f && f[0] && !f[1] ? strchr(fmts, f[0]) : NULL;
	if (!p) return 0;
	*is_signed = (p - fmts) % 2 == 0;
	return 1 << ((p - fmts) / 2);
}

static int check_index_format(const struct ArrowSchema *s)
{
	bool sg;
	if (!index_width(s->format, &sg))
		return dl_error_set(DL_EINVALID, "dictionary indices of Arrow field '%s' have non-integer format '%s'",
		                    s->name ? s->name : "", s->format ? s->format : "");
	return 0;
}

static int import_fields(dl_type **out, const struct ArrowSchema *s, int depth)
{
	int n = (int)s->n_children;
	if (s->n_children < 0 || s->n_children > INT_MAX || (n > 0 && !s->children))
		return dl_error_set(DL_EINVALID, "Arrow struct '%s' has a bad child count", s->name ? s->name : "");
	dl_field *f = dl_calloc((size_t)(n ? n : 1), sizeof(dl_field));
	if (!f) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		const struct ArrowSchema *c = s->children[i];
		rc = import_type_rec(&f[i].type, c, depth + 1);
		f[i].name = (char *)(c->name ? c->name : "");
		f[i].nullable = (c->flags & ARROW_FLAG_NULLABLE) != 0;
		f[i].metadata = metadata_get(c->metadata, DL_ARROW_DELTA_METADATA_KEY);
	}
	if (rc == 0 && !(*out = dl_type_struct(f, n))) rc = DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		dl_type_unref(f[i].type);
		dl_free(f[i].metadata);
	}
	dl_free(f);
	return rc;
}

static int import_type_rec(dl_type **out, const struct ArrowSchema *s, int depth)
{
	*out = NULL;
	if (depth > MAX_DEPTH) return dl_error_set(DL_EUNSUPPORTED, "Arrow schema nested deeper than %d", MAX_DEPTH);
	if (s && s->dictionary) {
		/* Dictionary-encoded: the field holds the dictionary's values. */
		DL_TRY(check_index_format(s));
		return import_type_rec(out, s->dictionary, depth + 1);
	}
	fmt_info fi;
	DL_TRY(parse_format(&fi, s));
	switch (fi.id) {
	case DL_TYPE_DECIMAL:
		*out = dl_type_decimal(fi.precision, fi.scale);
		break;
	case DL_TYPE_VARIANT:
		*out = dl_type_variant();
		break;
	case DL_TYPE_STRUCT:
		return import_fields(out, s, depth);
	case DL_TYPE_ARRAY: {
		if (s->n_children != 1 || !s->children)
			return dl_error_set(DL_EINVALID, "Arrow list '%s' must have one child", s->name ? s->name : "");
		dl_type *el;
		DL_TRY(import_type_rec(&el, s->children[0], depth + 1));
		*out = dl_type_array(el, (s->children[0]->flags & ARROW_FLAG_NULLABLE) != 0);
		dl_type_unref(el);
		break;
	}
	case DL_TYPE_MAP: {
		const struct ArrowSchema *e = s->n_children == 1 && s->children ? s->children[0] : NULL;
		if (!e || e->n_children != 2 || !e->children || !e->format || strcmp(e->format, "+s") != 0)
			return dl_error_set(DL_EINVALID, "Arrow map '%s' must have a struct child of two fields", s->name ? s->name : "");
		dl_type *k, *v;
		DL_TRY(import_type_rec(&k, e->children[0], depth + 2));
		int rc = import_type_rec(&v, e->children[1], depth + 2);
		if (rc == 0) {
			*out = dl_type_map(k, v, (e->children[1]->flags & ARROW_FLAG_NULLABLE) != 0);
			dl_type_unref(v);
		}
		dl_type_unref(k);
		DL_TRY(rc);
		break;
	}
	default:
		*out = dl_type_new(fi.id);
	}
	return *out ? 0 : DL_ENOMEM;
}

int dl_arrow_import_type(dl_type **out, const struct ArrowSchema *schema)
{
	return import_type_rec(out, schema, 0);
}

/* ---- arrays ---- */

/* Owns the producer's ArrowArray; every dl_array borrowing its buffers holds
 * a reference, and the last one calls the producer's release. */
typedef struct import_holder {
	int refcount;
	struct ArrowArray array;
} import_holder;

static void holder_unref(void *owner)
{
	import_holder *h = owner;
	if (__atomic_sub_fetch(&h->refcount, 1, __ATOMIC_ACQ_REL) != 0) return;
	if (h->array.release) h->array.release(&h->array);
	dl_free(h);
}

typedef struct importer {
	import_holder *holder;
	const char *field; /* for messages */
} importer;

static int bad(const importer *im, const char *what)
{
	return dl_error_set(DL_EINVALID, "Arrow array for field '%s': %s", im->field, what);
}

static int expected_buffers(dl_type_id id)
{
	switch (id) {
	case DL_TYPE_NULL: return 0;
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT: return 1;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY: return 3;
	default: return 2;
	}
}

/* Copies validity bits [off, off+len) into a new bitmap (NULL stays NULL). */
static int copy_validity(dl_array *a, const uint8_t *src, int64_t off, int64_t len)
{
	if (!src) return 0;
	a->validity = dl_calloc((size_t)(len + 7) / 8 + 1, 1);
	if (!a->validity) return DL_ENOMEM;
	dl_bits_copy(a->validity, 0, src, off, len);
	return 0;
}

/* The offsets [off, off+len] as int64 (from 32- or 64-bit buffers), checked
 * to be non-negative and non-decreasing. */
static int64_t offset_at(const void *buf, bool large, int64_t i)
{
	return large ? ((const int64_t *)buf)[i] : ((const int32_t *)buf)[i];
}

static int check_offsets(const importer *im, const void *buf, bool large, int64_t off, int64_t len)
{
	if (!buf) return len == 0 ? 0 : bad(im, "missing offsets buffer");
	int64_t prev = offset_at(buf, large, off);
	if (prev < 0) return bad(im, "negative offset");
	for (int64_t i = 1; i <= len; i++) {
		int64_t o = offset_at(buf, large, off + i);
		if (o < prev) return bad(im, "offsets decrease");
		prev = o;
	}
	if (prev - offset_at(buf, large, off) > INT32_MAX)
		return dl_error_set(DL_EUNSUPPORTED, "field '%s': more than 2^31-1 bytes or elements in one array; use smaller batches", im->field);
	return 0;
}

/* Rebased int32 offsets [off, off+len] into a new buffer. */
static int copy_offsets(dl_array *a, const void *buf, bool large, int64_t off, int64_t len)
{
	a->offsets = dl_calloc((size_t)len + 1, sizeof(int32_t));
	if (!a->offsets) return DL_ENOMEM;
	if (!buf) return 0;
	int64_t base = offset_at(buf, large, off);
	for (int64_t i = 0; i <= len; i++) a->offsets[i] = (int32_t)(offset_at(buf, large, off + i) - base);
	return 0;
}

static int convert_time(dl_array *a, const void *src, conv c, int64_t off, int64_t len, const importer *im)
{
	int w = c == CONV_DATE64 ? 4 : 8;
	a->values = dl_calloc(len ? (size_t)len : 1, (size_t)w);
	if (!a->values) return DL_ENOMEM;
	const int64_t *in = (const int64_t *)src + off;
	for (int64_t i = 0; i < len; i++) {
		if (a->validity && !dl_bit_get(a->validity, i)) continue;
		int64_t v = in[i], r = 0;
		bool ovf = false;
		switch (c) {
		case CONV_TS_SEC: ovf = __builtin_mul_overflow(v, (int64_t)1000000, &r); break;
		case CONV_TS_MILLI: ovf = __builtin_mul_overflow(v, (int64_t)1000, &r); break;
		case CONV_TS_NANO: r = v / 1000 - (v % 1000 < 0); break;
		case CONV_DATE64: {
			int64_t d = v / 86400000 - (v % 86400000 < 0);
			ovf = d < INT32_MIN || d > INT32_MAX;
			((int32_t *)a->values)[i] = (int32_t)d;
			continue;
		}
		default: r = v;
		}
		if (ovf) return dl_error_set(DL_EINVALID, "field '%s': timestamp %lld out of the microsecond range", im->field, (long long)v);
		((int64_t *)a->values)[i] = r;
	}
	return 0;
}

static int import_node(dl_array **out, const importer *im, const struct ArrowSchema *s, const struct ArrowArray *arr,
                       dl_type *type, int64_t poff, int64_t len, int depth);

static int import_children(dl_array *a, const importer *im, const struct ArrowSchema *s, const struct ArrowArray *arr,
                           int64_t coff, int64_t clen, int depth)
{
	int n = a->type->id == DL_TYPE_MAP ? 1 : a->type->nchildren;
	if (arr->n_children != n || (n && !arr->children) || s->n_children != n)
		return bad(im, "child count does not match the schema");
	a->children = dl_calloc((size_t)n, sizeof(dl_array *));
	if (!a->children) return DL_ENOMEM;
	a->nchildren = n;
	dl_type *entries = NULL;
	if (a->type->id == DL_TYPE_MAP) {
		DL_TRY(dl_arrow_import_type(&entries, s->children[0]));
	}
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		dl_type *ct = entries ? entries : a->type->children[i].type;
		rc = import_node(&a->children[i], im, s->children[i], arr->children[i], ct, coff, clen, depth + 1);
	}
	dl_type_unref(entries);
	return rc;
}

/* String and binary views ("vu", "vz"): 16-byte views, inline up to 12
 * bytes, else (length, prefix, buffer index, offset) into variadic buffers
 * whose sizes are the last buffer. Copied into offsets + data. */
static int import_view(dl_array **out, const importer *im, const struct ArrowArray *arr, dl_type *type, int64_t off,
                       int64_t len)
{
	if (arr->n_buffers < 3 || !arr->buffers) return bad(im, "string view array needs at least 3 buffers");
	int64_t ndata = arr->n_buffers - 3;
	const uint8_t *valid = arr->buffers[0], *views = arr->buffers[1];
	const int64_t *sizes = arr->buffers[arr->n_buffers - 1];
	if (len && !views) return bad(im, "missing views buffer");
	if (ndata && !sizes) return bad(im, "missing variadic buffer sizes");
	dl_array *a = dl_calloc(1, sizeof(*a));
	if (!a) return DL_ENOMEM;
	*out = a;
	a->type = dl_type_ref(type);
	a->length = len;
	a->null_count = -1;
	DL_TRY(copy_validity(a, valid, off, len));
	if (!(a->offsets = dl_calloc((size_t)len + 1, sizeof(int32_t)))) return DL_ENOMEM;
	/* Pass 1: validate every view and size the data. */
	int64_t total = 0;
	for (int64_t i = 0; i < len; i++) {
		if (valid && !dl_bit_get(valid, off + i)) continue;
		const uint8_t *v = views + (off + i) * 16;
		int32_t n, buf, at;
		memcpy(&n, v, 4);
		memcpy(&buf, v + 8, 4);
		memcpy(&at, v + 12, 4);
		if (n < 0) return bad(im, "negative view length");
		if (n > 12 && (buf < 0 || buf >= ndata || at < 0 || !arr->buffers[2 + buf] || (int64_t)at + n > sizes[buf]))
			return bad(im, "view points outside its data buffer");
		total += n;
		if (total > INT32_MAX)
			return dl_error_set(DL_EUNSUPPORTED, "field '%s': more than 2^31-1 bytes in one array; use smaller batches", im->field);
	}
	if (!(a->data = dl_malloc(total ? (size_t)total : 1))) return DL_ENOMEM;
	a->data_len = total;
	/* Pass 2: copy. */
	int64_t pos = 0;
	for (int64_t i = 0; i < len; i++) {
		if (!valid || dl_bit_get(valid, off + i)) {
			const uint8_t *v = views + (off + i) * 16;
			int32_t n, buf, at;
			memcpy(&n, v, 4);
			memcpy(&buf, v + 8, 4);
			memcpy(&at, v + 12, 4);
			const uint8_t *src = n <= 12 ? v + 4 : (const uint8_t *)arr->buffers[2 + buf] + at;
			if (n) memcpy(a->data + pos, src, (size_t)n);
			pos += n;
		}
		a->offsets[i + 1] = (int32_t)pos;
	}
	return 0;
}

static int64_t read_index(const uint8_t *p, int w, bool sg, int64_t i)
{
	switch (w) {
	case 1: return sg ? (int64_t)((const int8_t *)p)[i] : (int64_t)p[i];
	case 2: return sg ? (int64_t)((const int16_t *)(const void *)p)[i] : (int64_t)((const uint16_t *)(const void *)p)[i];
	case 4: return sg ? (int64_t)((const int32_t *)(const void *)p)[i] : (int64_t)((const uint32_t *)(const void *)p)[i];
	default: return ((const int64_t *)(const void *)p)[i]; /* uint64 beyond 2^63 reads negative: rejected */
	}
}

/* Dictionary-encoded arrays are decoded: the dictionary is imported, then
 * gathered by the indices (our layout has no dictionaries). */
static int import_dictionary(dl_array **out, const importer *im, const struct ArrowSchema *s,
                             const struct ArrowArray *arr, dl_type *type, int64_t poff, int64_t len, int depth)
{
	bool sg = true;
	int w = index_width(s->format, &sg);
	if (!w) return check_index_format(s);
	if (!arr->dictionary || arr->n_buffers != 2 || !arr->buffers)
		return bad(im, "dictionary-encoded array without its dictionary or index buffers");
	int64_t off = arr->offset + poff;
	const uint8_t *valid = arr->buffers[0], *idx = arr->buffers[1];
	if (len && !idx) return bad(im, "missing dictionary indices");
	dl_array *dict = NULL;
	int rc = import_node(&dict, im, s->dictionary, arr->dictionary, type, 0,
	                     arr->dictionary->length >= 0 ? arr->dictionary->length : 0, depth + 1);
	uint32_t *sel = rc == 0 ? dl_malloc(len ? (size_t)len * 4 : 4) : NULL;
	if (rc == 0 && !sel) rc = DL_ENOMEM;
	int64_t nulls = 0;
	for (int64_t i = 0; i < len && rc == 0; i++) {
		sel[i] = 0; /* null rows gather row 0, then are masked */
		if (valid && !dl_bit_get(valid, off + i)) {
			nulls++;
			continue;
		}
		int64_t k = read_index(idx, w, sg, off + i);
		if (k < 0 || k >= dict->length) rc = bad(im, "dictionary index out of range");
		else sel[i] = (uint32_t)k;
	}
	if (rc == 0) {
		*out = dict->length == 0 ? dl_array_new_null(type, len) : dl_array_take(dict, sel, len);
		if (!*out) rc = dl_error_last()->code ? dl_error_last()->code : DL_ENOMEM;
	}
	if (rc == 0 && nulls && dict->length > 0 && type->id != DL_TYPE_NULL) {
		/* Mask the rows whose index is null. */
		dl_array *a = *out;
		if (!a->validity) {
			if (!(a->validity = dl_malloc((size_t)(len + 7) / 8 + 1))) rc = DL_ENOMEM;
			else dl_bits_set_range(a->validity, 0, len);
		}
		for (int64_t i = 0; i < len && rc == 0; i++)
			if (!dl_bit_get(valid, off + i)) dl_bit_clear(a->validity, i);
		a->null_count = -1;
	}
	dl_free(sel);
	dl_array_free(dict);
	return rc;
}

/* The node points at the producer's buffers, keeping the holder alive. */
static void borrow_buffers(dl_array *a, const importer *im, const struct ArrowArray *arr, bool has_offsets,
                           int64_t last)
{
	int64_t nb = arr->n_buffers;
	a->validity = nb ? (uint8_t *)arr->buffers[0] : NULL;
	if (nb > 1) {
		if (has_offsets) a->offsets = (int32_t *)arr->buffers[1];
		else a->values = (void *)arr->buffers[1];
	}
	if (nb > 2) a->data = (uint8_t *)arr->buffers[2];
	a->data_len = last;
	if (arr->null_count >= 0 && a->length == arr->length) a->null_count = arr->null_count;
	if (!a->validity) a->null_count = 0;
	__atomic_fetch_add(&im->holder->refcount, 1, __ATOMIC_RELAXED);
	a->owner = im->holder;
	a->owner_release = holder_unref;
}

/* The node's own buffers copied from logical row `off` on, converted to our
 * layout; [first, last) is the offsets' range for strings and lists. */
static int copy_buffers(dl_array *a, const importer *im, const struct ArrowArray *arr, conv c, int64_t off,
                        int64_t first, int64_t last)
{
	int64_t len = a->length;
	const dl_type *type = a->type;
	bool large = c == CONV_LARGE;
	DL_TRY(copy_validity(a, arr->n_buffers ? arr->buffers[0] : NULL, off, len));
	int w = dl_type_fixed_width(type);
	switch (type->id) {
	case DL_TYPE_NULL:
		a->null_count = len;
		return 0;
	case DL_TYPE_STRUCT:
	case DL_TYPE_VARIANT:
		return 0;
	case DL_TYPE_BOOLEAN:
		if (!(a->values = dl_calloc((size_t)(len + 7) / 8 + 1, 1))) return DL_ENOMEM;
		if (len && !arr->buffers[1]) return bad(im, "missing values buffer");
		if (len) dl_bits_copy(a->values, 0, arr->buffers[1], off, len);
		return 0;
	case DL_TYPE_STRING:
	case DL_TYPE_BINARY:
		DL_TRY(copy_offsets(a, arr->buffers[1], large, off, len));
		a->data_len = last - first;
		if (!(a->data = dl_malloc(a->data_len ? (size_t)a->data_len : 1))) return DL_ENOMEM;
		if (a->data_len && !arr->buffers[2]) return bad(im, "missing data buffer");
		if (a->data_len) memcpy(a->data, (const uint8_t *)arr->buffers[2] + first, (size_t)a->data_len);
		return 0;
	case DL_TYPE_ARRAY:
	case DL_TYPE_MAP:
		return copy_offsets(a, arr->buffers[1], large, off, len);
	default:
		if (len && !arr->buffers[1]) return bad(im, "missing values buffer");
		if (c != CONV_NONE) return convert_time(a, arr->buffers[1], c, off, len, im);
		if (!(a->values = dl_malloc(len ? (size_t)len * (size_t)w : 1))) return DL_ENOMEM;
		if (len) memcpy(a->values, (const uint8_t *)arr->buffers[1] + off * w, (size_t)len * (size_t)w);
		return 0;
	}
}

static int import_node(dl_array **out, const importer *im, const struct ArrowSchema *s, const struct ArrowArray *arr,
                       dl_type *type, int64_t poff, int64_t len, int depth)
{
	if (depth > MAX_DEPTH) return dl_error_set(DL_EUNSUPPORTED, "Arrow array nested deeper than %d", MAX_DEPTH);
	if (!arr || !arr->release) return bad(im, "child array is missing or released");
	if (arr->offset < 0 || arr->length < 0 || poff < 0 || len < 0 || poff > arr->length || len > arr->length - poff)
		return bad(im, "length/offset out of range of the parent");
	if (len > INT32_MAX) return dl_error_set(DL_EUNSUPPORTED, "field '%s': more than 2^31-1 rows in one array", im->field);
	if (s->dictionary) return import_dictionary(out, im, s, arr, type, poff, len, depth);
	fmt_info fi;
	DL_TRY(parse_format(&fi, s));
	if (fi.conv == CONV_VIEW) return import_view(out, im, arr, type, arr->offset + poff, len);
	int nb = expected_buffers(type->id);
	if (arr->n_buffers != nb || (nb && !arr->buffers)) return bad(im, "unexpected number of buffers");
	dl_array *a = dl_calloc(1, sizeof(*a));
	if (!a) return DL_ENOMEM;
	*out = a;
	a->type = dl_type_ref(type);
	a->length = len;
	a->null_count = -1;
	int64_t off = arr->offset + poff;
	bool large = fi.conv == CONV_LARGE;
	int64_t first = 0, last = 0;
	bool has_offsets = type->id == DL_TYPE_STRING || type->id == DL_TYPE_BINARY || type->id == DL_TYPE_ARRAY ||
	                   type->id == DL_TYPE_MAP;
	if (has_offsets) {
		DL_TRY(check_offsets(im, arr->buffers[1], large, off, len));
		if (arr->buffers[1]) {
			first = offset_at(arr->buffers[1], large, off);
			last = offset_at(arr->buffers[1], large, off + len);
		}
	}
	/* Borrow when the producer's layout is ours exactly (offsets, which we
	 * always have, must be there even for zero rows). */
	bool borrow = off == 0 && fi.conv == CONV_NONE && first == 0 && type->id != DL_TYPE_NULL &&
	              (!has_offsets || arr->buffers[1]);
	if (borrow) borrow_buffers(a, im, arr, has_offsets, last);
	else DL_TRY(copy_buffers(a, im, arr, fi.conv, off, first, last));
	if (type->id == DL_TYPE_STRUCT || type->id == DL_TYPE_VARIANT)
		return import_children(a, im, s, arr, off, len, depth);
	if (type->id == DL_TYPE_ARRAY || type->id == DL_TYPE_MAP) {
		if (arr->n_children == 1 && arr->children && arr->children[0] && last > arr->children[0]->length)
			return bad(im, "list offsets point past the child array");
		return import_children(a, im, s, arr, first, last - first, depth);
	}
	return 0;
}

int dl_arrow_import_array(dl_array **out, struct ArrowArray *in, const struct ArrowSchema *schema)
{
	*out = NULL;
	if (!in || !in->release) return dl_error_set(DL_EINVALID, "Arrow array is NULL or already released");
	import_holder *h = dl_calloc(1, sizeof(*h));
	if (!h) {
		in->release(in);
		return DL_ENOMEM;
	}
	h->refcount = 1;
	h->array = *in; /* move: the caller's struct is marked released */
	in->release = NULL;
	dl_type *type = NULL;
	int rc = dl_arrow_import_type(&type, schema);
	importer im = {h, schema && schema->name ? schema->name : ""};
	if (rc == 0) rc = import_node(out, &im, schema, &h->array, type, 0, h->array.length, 0);
	if (rc < 0) {
		dl_array_free(*out);
		*out = NULL;
	}
	dl_type_unref(type);
	holder_unref(h);
	return rc;
}

int dl_arrow_import_batch(dl_batch **out, struct ArrowArray *in, const struct ArrowSchema *schema)
{
	*out = NULL;
	if (!schema || !schema->format || strcmp(schema->format, "+s") != 0 || is_variant(schema)) {
		if (in && in->release) in->release(in);
		return dl_error_set(DL_EINVALID, "a record batch must be an Arrow struct (format \"+s\")");
	}
	dl_array *a;
	DL_TRY(dl_arrow_import_array(&a, in, schema));
	dl_batch *b = dl_calloc(1, sizeof(*b));
	if (!b) {
		dl_array_free(a);
		return DL_ENOMEM;
	}
	b->schema = dl_type_ref(a->type);
	b->num_rows = a->length;
	b->ncols = a->nchildren;
	b->cols = a->children;
	if (!b->cols && !(b->cols = dl_calloc(1, sizeof(dl_array *)))) {
		dl_batch_free(b);
		dl_array_free(a);
		return DL_ENOMEM;
	}
	a->children = NULL;
	a->nchildren = 0;
	dl_array_free(a); /* the struct's own validity goes: batches have none */
	*out = b;
	return 0;
}
