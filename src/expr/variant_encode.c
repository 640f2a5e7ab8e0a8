/* JSON text -> variant binary (see variant_encode.h). A container's
 * children are encoded first, straight into the value buffer; the header,
 * whose size depends on the children's count and total size, is then
 * slid in front of them. */
#include "expr/variant_encode.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "expr/eval.h"
#include "json/json.h"
#include "util/arena.h"
#include "util/mem.h"

#define MAX_DEPTH 500

typedef struct venc {
	dl_buf *val;
	/* the metadata dictionary, first-seen order, with an open hash */
	const char **keys;
	size_t *klens;
	size_t nkeys, capkeys;
	int64_t *slots; /* index + 1, 0 empty */
	size_t nslots;
} venc;

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
	return h;
}

static int key_id(venc *e, const char *k, size_t n, uint64_t *id)
{
	if (e->nkeys * 2 >= e->nslots) {
		size_t ns = e->nslots ? e->nslots * 2 : 64;
		int64_t *s = dl_calloc(ns, sizeof *s);
		if (!s) return DL_ENOMEM;
		for (size_t i = 0; i < e->nkeys; i++) {
			size_t j = fnv(e->keys[i], e->klens[i]) & (ns - 1);
			while (s[j]) j = (j + 1) & (ns - 1);
			s[j] = (int64_t)i + 1;
		}
		dl_free(e->slots);
		e->slots = s;
		e->nslots = ns;
	}
	size_t j = fnv(k, n) & (e->nslots - 1);
	for (; e->slots[j]; j = (j + 1) & (e->nslots - 1)) {
		size_t i = (size_t)e->slots[j] - 1;
		if (e->klens[i] == n && memcmp(e->keys[i], k, n) == 0) return *id = i, 0;
	}
	if (e->nkeys == e->capkeys) {
		size_t nc = e->capkeys ? e->capkeys * 2 : 16;
		const char **nk = dl_reallocarray(e->keys, nc, sizeof *nk);
		if (!nk) return DL_ENOMEM;
		e->keys = nk;
		size_t *nl = dl_reallocarray(e->klens, nc, sizeof *nl);
		if (!nl) return DL_ENOMEM;
		e->klens = nl;
		e->capkeys = nc;
	}
	e->keys[e->nkeys] = k;
	e->klens[e->nkeys] = n;
	e->slots[j] = (int64_t)++e->nkeys;
	return *id = e->nkeys - 1, 0;
}

static int width(uint64_t max)
{
	return max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFFFF ? 3 : 4;
}

static int put_le(dl_buf *b, uint64_t v, int n)
{
	uint8_t t[8];
	for (int i = 0; i < n; i++) t[i] = (uint8_t)(v >> (8 * i));
	return dl_buf_append(b, t, (size_t)n);
}

static int put_int(dl_buf *b, int64_t v)
{
	int type = v >= INT8_MIN && v <= INT8_MAX ? 3 : v >= INT16_MIN && v <= INT16_MAX ? 4 : v >= INT32_MIN && v <= INT32_MAX ? 5 : 6;
	DL_TRY(dl_buf_putc(b, (char)(type << 2)));
	return put_le(b, (uint64_t)v, type == 3 ? 1 : type == 4 ? 2 : type == 5 ? 4 : 8);
}

/* A number without exponent as a decimal of at most 38 digits (Spark's
 * tryParseDecimal); false when it is not one. */
static bool put_decimal(dl_buf *b, const char *s, size_t n, int *rc)
{
	bool neg = false, point = false;
	__extension__ unsigned __int128 u = 0;
	int digits = 0, scale = 0;
	size_t i = 0;
	if (i < n && s[i] == '-') neg = true, i++;
	for (; i < n; i++) {
		char c = s[i];
		if (c == '.') {
			if (point) return false;
			point = true;
			continue;
		}
		if (c < '0' || c > '9') return false;
		if (point) scale++;
		if (u == 0 && c == '0') continue; /* leading zeros are not precision */
		if (++digits > 38) return false;
		u = u * 10 + (unsigned)(c - '0');
	}
	if (digits == 0) digits = 1;
	if (scale > 38 || digits > 38) return false;
	dl_i128 v = neg ? -(dl_i128)u : (dl_i128)u;
	int w, type;
	if (scale <= 9 && digits <= 9) w = 4, type = 8;
	else if (scale <= 18 && digits <= 18) w = 8, type = 9;
	else w = 16, type = 10;
	uint8_t t[16];
	ex_u128 uv = (ex_u128)v;
	for (int k = 0; k < w; k++) t[k] = (uint8_t)(uv >> (8 * k));
	*rc = dl_buf_putc(b, (char)(type << 2));
	if (!*rc) *rc = dl_buf_putc(b, (char)scale);
	if (!*rc) *rc = dl_buf_append(b, t, (size_t)w);
	return true;
}

static int put_number(dl_buf *b, const dl_json *j)
{
	const char *s = j->u.num.ptr;
	size_t n = j->u.num.len;
	int64_t i;
	if (dl_json_int64(j, &i) == 0) return put_int(b, i);
	dl_error_clear();
	int rc = 0;
	if (put_decimal(b, s, n, &rc)) return rc;
	double d;
	if (dl_json_double(j, &d) < 0) return DL_EINVALID;
	uint64_t bits;
	memcpy(&bits, &d, 8);
	DL_TRY(dl_buf_putc(b, 7 << 2));
	return put_le(b, bits, 8);
}

static int put_string(dl_buf *b, const char *s, size_t n)
{
	if (n < 64) {
		DL_TRY(dl_buf_putc(b, (char)((n << 2) | 1)));
	} else {
		if (n > UINT32_MAX) return dl_error_set(DL_EINVALID, "[VARIANT_SIZE_LIMIT] a string of the variant is too long");
		DL_TRY(dl_buf_putc(b, 16 << 2));
		DL_TRY(put_le(b, n, 4));
	}
	return dl_buf_append(b, s, n);
}

/* Moves the bytes from `start` right by the header's size and writes it. */
static int insert_header(dl_buf *b, size_t start, const uint8_t *hdr, size_t hlen)
{
	DL_TRY(dl_buf_reserve(b, hlen));
	memmove(b->data + start + hlen, b->data + start, b->len - start);
	memcpy(b->data + start, hdr, hlen);
	b->len += hlen;
	b->data[b->len] = 0;
	return 0;
}

typedef struct fentry {
	const char *key;
	size_t klen;
	uint64_t id, off;
} fentry;

static int fcmp(const void *x, const void *y)
{
	const fentry *a = x, *b = y;
	size_t n = a->klen < b->klen ? a->klen : b->klen;
	int c = memcmp(a->key, b->key, n);
	if (c) return c;
	return a->klen < b->klen ? -1 : a->klen > b->klen;
}

static int encode(venc *e, const dl_json *j, int depth);

static int put_container(venc *e, const dl_json *j, int depth)
{
	dl_buf *b = e->val;
	bool object = j->kind == DL_JSON_OBJECT;
	size_t n = object ? j->u.obj.n : j->u.arr.n;
	size_t start = b->len;
	fentry *f = dl_calloc(n ? n : 1, sizeof *f);
	if (!f) return DL_ENOMEM;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		f[i].off = b->len - start;
		if (object) {
			f[i].key = j->u.obj.items[i].key;
			f[i].klen = j->u.obj.items[i].key_len;
			rc = key_id(e, f[i].key, f[i].klen, &f[i].id);
			if (rc == 0) rc = encode(e, &j->u.obj.items[i].value, depth + 1);
		} else {
			rc = encode(e, &j->u.arr.items[i], depth + 1);
		}
	}
	if (rc == 0 && object && n > 1) {
		qsort(f, n, sizeof *f, fcmp);
		for (size_t i = 1; rc == 0 && i < n; i++)
			if (fcmp(&f[i - 1], &f[i]) == 0)
				rc = dl_error_set_class(DL_EINVALID, "VARIANT_DUPLICATE_KEY",
				                        "[VARIANT_DUPLICATE_KEY] Failed to build variant because of a duplicate object "
				                        "key `%.*s`.",
				                        (int)f[i].klen, f[i].key);
	}
	uint64_t total = b->len - start, maxid = 0;
	for (size_t i = 0; object && i < n; i++)
		if (f[i].id > maxid) maxid = f[i].id;
	int ow = width(total), iw = width(maxid);
	bool large = n > 0xFF;
	size_t hlen = 1 + (large ? 4 : 1) + (object ? n * (size_t)iw : 0) + (n + 1) * (size_t)ow;
	uint8_t *h = rc == 0 ? dl_malloc(hlen) : NULL;
	if (rc == 0 && !h) rc = DL_ENOMEM;
	if (rc == 0) {
		size_t p = 0;
		h[p++] = object ? (uint8_t)((((large ? 1 : 0) << 4 | (iw - 1) << 2 | (ow - 1)) << 2) | 2)
		                : (uint8_t)((((large ? 1 : 0) << 2 | (ow - 1)) << 2) | 3);
		int cw = large ? 4 : 1;
		for (int k = 0; k < cw; k++) h[p++] = (uint8_t)(n >> (8 * k));
		for (size_t i = 0; object && i < n; i++)
			for (int k = 0; k < iw; k++) h[p++] = (uint8_t)(f[i].id >> (8 * k));
		for (size_t i = 0; i <= n; i++) {
			uint64_t o = i < n ? f[i].off : total;
			for (int k = 0; k < ow; k++) h[p++] = (uint8_t)(o >> (8 * k));
		}
		rc = insert_header(b, start, h, hlen);
	}
	dl_free(h);
	dl_free(f);
	return rc;
}

static int encode(venc *e, const dl_json *j, int depth)
{
	if (depth > MAX_DEPTH) return dl_error_set(DL_EINVALID, "[MALFORMED_RECORD_IN_PARSING] JSON nested too deeply");
	dl_buf *b = e->val;
	switch (j->kind) {
	case DL_JSON_NULL: return dl_buf_putc(b, 0);
	case DL_JSON_TRUE: return dl_buf_putc(b, 1 << 2);
	case DL_JSON_FALSE: return dl_buf_putc(b, 2 << 2);
	case DL_JSON_NUMBER: return put_number(b, j);
	case DL_JSON_STRING: return put_string(b, j->u.str.ptr, j->u.str.len);
	default: return put_container(e, j, depth);
	}
}

int ex_variant_from_json(dl_buf *value, dl_buf *metadata, const char *json, size_t len)
{
	dl_arena arena = {0};
	dl_json *root;
	int rc = dl_json_parse(&arena, json, len, "variant", &root);
	if (rc < 0) {
		dl_arena_free(&arena);
		return dl_error_set_class(DL_EINVALID, "MALFORMED_RECORD_IN_PARSING",
		                          "[MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records are detected in "
		                          "record parsing: %.*s.",
		                          (int)(len > 100 ? 100 : len), json);
	}
	venc e = {.val = value};
	rc = encode(&e, root, 0);
	if (rc == 0) {
		uint64_t total = 0;
		for (size_t i = 0; i < e.nkeys; i++) total += e.klens[i];
		uint64_t m = total > e.nkeys ? total : e.nkeys;
		int ow = width(m);
		bool sorted = true;
		for (size_t i = 1; i < e.nkeys && sorted; i++) {
			fentry a = {e.keys[i - 1], e.klens[i - 1], 0, 0}, c = {e.keys[i], e.klens[i], 0, 0};
			sorted = fcmp(&a, &c) < 0;
		}
		rc = dl_buf_putc(metadata, (char)(((ow - 1) << 6) | (sorted ? 0x10 : 0) | 1));
		if (rc == 0) rc = put_le(metadata, e.nkeys, ow);
		uint64_t off = 0;
		for (size_t i = 0; rc == 0 && i <= e.nkeys; i++) {
			rc = put_le(metadata, off, ow);
			if (i < e.nkeys) off += e.klens[i];
		}
		for (size_t i = 0; rc == 0 && i < e.nkeys; i++) rc = dl_buf_append(metadata, e.keys[i], e.klens[i]);
	}
	dl_free(e.keys);
	dl_free(e.klens);
	dl_free(e.slots);
	dl_arena_free(&arena);
	return rc;
}
