/* The JSON checksum of _last_checkpoint (PROTOCOL.md "JSON checksum"):
 * every leaf becomes `path=value` with keys and strings quoted and
 * percent-encoded (all but A-Z a-z 0-9 - . _ ~, uppercase hex), array
 * positions as bare numbers, segments joined by '+'; the pairs are sorted
 * bytewise by path, joined by ',' and hashed with MD5. */
#include "txn/checkpoint_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/hash.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct pair {
	size_t path_off, path_len; /* into the paths buffer */
	size_t value_off, value_len;
} pair;

typedef struct canon {
	dl_buf paths;   /* path texts */
	dl_buf values;  /* value texts */
	pair *pairs;
	size_t n, cap;
	dl_buf cur;     /* the path being built */
} canon;

static int url_encode(dl_buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	DL_TRY(dl_buf_putc(out, '"'));
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		             c == '-' || c == '.' || c == '_' || c == '~';
		if (plain) {
			DL_TRY(dl_buf_putc(out, (char)c));
		} else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			DL_TRY(dl_buf_append(out, e, 3));
		}
	}
	return dl_buf_putc(out, '"');
}

static int add_pair(canon *c, const dl_json *v)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 32;
		pair *p = dl_reallocarray(c->pairs, nc, sizeof *p);
		if (!p) return DL_ENOMEM;
		c->pairs = p;
		c->cap = nc;
	}
	pair *p = &c->pairs[c->n++];
	p->path_off = c->paths.len;
	p->path_len = c->cur.len;
	DL_TRY(dl_buf_append(&c->paths, c->cur.data ? c->cur.data : "", c->cur.len));
	p->value_off = c->values.len;
	switch (v->kind) {
	case DL_JSON_NULL: DL_TRY(dl_buf_puts(&c->values, "null")); break;
	case DL_JSON_TRUE: DL_TRY(dl_buf_puts(&c->values, "true")); break;
	case DL_JSON_FALSE: DL_TRY(dl_buf_puts(&c->values, "false")); break;
	case DL_JSON_NUMBER: DL_TRY(dl_buf_append(&c->values, v->u.num.ptr, v->u.num.len)); break;
	default: DL_TRY(url_encode(&c->values, v->u.str.ptr, v->u.str.len)); break;
	}
	p->value_len = c->values.len - p->value_off;
	return 0;
}

static int walk(canon *c, const dl_json *v, bool top)
{
	size_t mark = c->cur.len;
	if (v->kind == DL_JSON_OBJECT) {
		for (size_t i = 0; i < v->u.obj.n; i++) {
			const dl_json_member *m = &v->u.obj.items[i];
			if (top && strcmp(m->key, "checksum") == 0) continue;
			if (c->cur.len) DL_TRY(dl_buf_putc(&c->cur, '+'));
			DL_TRY(url_encode(&c->cur, m->key, m->key_len));
			DL_TRY(walk(c, &m->value, false));
			c->cur.len = mark;
		}
		return 0;
	}
	if (v->kind == DL_JSON_ARRAY) {
		for (size_t i = 0; i < v->u.arr.n; i++) {
			if (c->cur.len) DL_TRY(dl_buf_putc(&c->cur, '+'));
			DL_TRY(dl_buf_printf(&c->cur, "%zu", i));
			DL_TRY(walk(c, &v->u.arr.items[i], false));
			c->cur.len = mark;
		}
		return 0;
	}
	return add_pair(c, v);
}


/* A stable merge sort by path bytes (qsort takes no context in C17). */
static void merge_sort(pair *p, pair *tmp, size_t n, const char *base)
{
	if (n < 2) return;
	size_t h = n / 2;
	merge_sort(p, tmp, h, base);
	merge_sort(p + h, tmp, n - h, base);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		const pair *x = &p[i], *y = &p[j];
		size_t m = x->path_len < y->path_len ? x->path_len : y->path_len;
		int r = memcmp(base + x->path_off, base + y->path_off, m);
		bool take_left = r < 0 || (r == 0 && x->path_len <= y->path_len);
		tmp[k++] = take_left ? p[i++] : p[j++];
	}
	while (i < h) tmp[k++] = p[i++];
	while (j < n) tmp[k++] = p[j++];
	memcpy(p, tmp, n * sizeof *p);
}

int dl_json_checksum(char out[33], const dl_json *v)
{
	canon c;
	memset(&c, 0, sizeof c);
	dl_buf text = DL_BUF_INIT;
	int rc = walk(&c, v, true);
	pair *tmp = NULL;
	if (rc == 0 && c.n) {
		tmp = dl_calloc(c.n, sizeof *tmp);
		if (!tmp) rc = DL_ENOMEM;
		else merge_sort(c.pairs, tmp, c.n, c.paths.data);
	}
	for (size_t i = 0; i < c.n && rc == 0; i++) {
		if (i) rc = dl_buf_putc(&text, ',');
		if (rc == 0) rc = dl_buf_append(&text, c.paths.data + c.pairs[i].path_off, c.pairs[i].path_len);
		if (rc == 0) rc = dl_buf_putc(&text, '=');
		if (rc == 0)
			rc = dl_buf_append(&text, c.values.data + c.pairs[i].value_off, c.pairs[i].value_len);
	}
	if (rc == 0) {
		uint8_t d[16];
		ex_md5(text.data ? text.data : "", text.len, d);
		for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
	}
	dl_free(tmp);
	dl_free(c.pairs);
	dl_buf_free(&c.paths);
	dl_buf_free(&c.values);
	dl_buf_free(&c.cur);
	dl_buf_free(&text);
	return rc;
}
