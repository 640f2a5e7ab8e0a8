/* The CLI's helpers (util.h). */
#include "util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* The CLI's last error. Commands run on the main thread, but the slot is
 * per-thread like the library's, so a helper thread cannot garble it. */
static _Thread_local int cli_code;
static _Thread_local char cli_message[1024];

int dl_cli_fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cli_message, sizeof cli_message, fmt, ap);
	va_end(ap);
	cli_code = code;
	dl_error_clear(); /* this failure is the newer one */
	return code;
}

int dl_cli_fail_errno(const char *what, const char *path)
{
	int e = errno;
	int code = e == ENOENT || e == ENOTDIR ? DL_ENOTFOUND : e == EEXIST ? DL_EEXISTS : e == ENOMEM ? DL_ENOMEM : DL_EIO;
	return dl_cli_fail(code, "%s %s: %s", what, path ? path : "", strerror(e));
}

const char *dl_cli_error_message(void)
{
	const dl_error *e = dl_error_last();
	if (e->code != DL_OK && e->message[0]) return e->message;
	return cli_code != DL_OK && cli_message[0] ? cli_message : NULL;
}

const char *dl_cli_error_class(void)
{
	const dl_error *e = dl_error_last();
	return e->code != DL_OK && e->message[0] ? e->klass : "";
}

void dl_cli_error_clear(void)
{
	cli_code = DL_OK;
	cli_message[0] = 0;
	dl_error_clear();
}

/* ---- allocation ---- */

static void *oom(void)
{
	dl_cli_fail(DL_ENOMEM, "out of memory");
	return NULL;
}

void *dl_cli_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom();
}

void *dl_cli_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	return p ? p : oom();
}

void *dl_cli_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom();
}

char *dl_cli_strndup(const char *s, size_t n)
{
	char *p = dl_cli_malloc(n + 1);
	if (!p) return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *dl_cli_strdup(const char *s)
{
	return dl_cli_strndup(s, strlen(s));
}

/* ---- string buffer ---- */

int dl_cli_buf_reserve(dl_cli_buf *b, size_t extra)
{
	if (extra > SIZE_MAX / 2 - b->len) return dl_cli_fail(DL_ENOMEM, "out of memory");
	size_t need = b->len + extra + 1;
	if (need <= b->cap) return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need) cap *= 2;
	char *p = dl_cli_realloc(b->data, cap);
	if (!p) return DL_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int dl_cli_buf_append(dl_cli_buf *b, const void *p, size_t n)
{
	DL_CLI_TRY(dl_cli_buf_reserve(b, n));
	if (n) memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int dl_cli_buf_puts(dl_cli_buf *b, const char *s)
{
	return dl_cli_buf_append(b, s, strlen(s));
}

int dl_cli_buf_putc(dl_cli_buf *b, char c)
{
	if (b->len + 1 >= b->cap) DL_CLI_TRY(dl_cli_buf_reserve(b, 1));
	b->data[b->len++] = c;
	b->data[b->len] = 0;
	return 0;
}

int dl_cli_buf_printf(dl_cli_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) return dl_cli_fail(DL_EINVALID, "bad format string");
	DL_CLI_TRY(dl_cli_buf_reserve(b, (size_t)n));
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int dl_cli_buf_put_json_string(dl_cli_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	DL_CLI_TRY(dl_cli_buf_reserve(b, n + 2));
	b->data[b->len++] = '"';
	size_t run = 0; /* bytes copied as they are, appended in one go */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != '"' && c != '\\') {
			run++;
			continue;
		}
		DL_CLI_TRY(dl_cli_buf_append(b, s + i - run, run));
		run = 0;
		char esc[7] = {'\\', 0};
		size_t k = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			k = 6;
		}
		DL_CLI_TRY(dl_cli_buf_append(b, esc, k));
	}
	DL_CLI_TRY(dl_cli_buf_append(b, s + n - run, run));
	return dl_cli_buf_putc(b, '"');
}

void dl_cli_buf_free(dl_cli_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* ---- arena ---- */

struct dl_cli_arena_chunk {
	dl_cli_arena_chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

#define ARENA_CHUNK 16384

void *dl_cli_arena_alloc(dl_cli_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	dl_cli_arena_chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		c = dl_cli_malloc(sizeof *c + cap);
		if (!c) return NULL;
		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

char *dl_cli_arena_strndup(dl_cli_arena *a, const char *s, size_t n)
{
	char *p = dl_cli_arena_alloc(a, n + 1);
	if (!p) return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *dl_cli_arena_strdup(dl_cli_arena *a, const char *s)
{
	return dl_cli_arena_strndup(a, s, strlen(s));
}

void dl_cli_arena_reset(dl_cli_arena *a)
{
	dl_cli_arena_chunk *c = a->head;
	if (!c) return;
	/* Keep the newest chunk (the biggest in steady state) for reuse. */
	dl_cli_arena_chunk *rest = c->next;
	while (rest) {
		dl_cli_arena_chunk *n = rest->next;
		free(rest);
		rest = n;
	}
	c->next = NULL;
	c->used = 0;
}

void dl_cli_arena_free(dl_cli_arena *a)
{
	dl_cli_arena_reset(a);
	free(a->head);
	a->head = NULL;
}

void dl_cli_malloc_for_reads(void)
{
#ifdef __GLIBC__
	/* bench_dml.sh's 10M-row UPDATE with DVs: 45k page faults -> 17.5k
	 * (peak RSS 56 -> 78 MB); its copy-on-write UPDATE: 124k -> 50k
	 * (98 -> 124 MB); bench_merge.sh's copy-on-write MERGE: 240k -> 80k,
	 * system CPU 0.68 -> 0.21 s, wall 1.97 -> 1.61 s (peak RSS 205 ->
	 * 214 MB). Bounded: buffers of a batch or a page, per thread. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}
