/* The CLI's own small helpers: errors, checked allocation, a string buffer
 * and an arena. The CLI is a program over the public API (include/), so it
 * does not use the library's internal util/ layer; these are the few
 * pieces it needs, kept here.
 *
 * Errors: a command reports failure by returning a negative dl_error_code.
 * The message printed ("deltalake: error: ...") is the library's
 * dl_error_last() when the library failed, or the CLI's own when the CLI
 * found the problem (dl_cli_fail). Setting a CLI error clears the library's
 * last error, so whichever failed last is the one reported. */
#ifndef DL_CLI_UTIL_H
#define DL_CLI_UTIL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "deltalake/error.h"

#define DL_CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Records the CLI's error message and returns `code`:
 * `return dl_cli_fail(DL_EINVALID, "...")`. */
int dl_cli_fail(int code, const char *fmt, ...) DL_CLI_PRINTF(2, 3);
/* "what path: strerror(errno)", DL_EIO (DL_ENOTFOUND, DL_EEXISTS... by errno). */
int dl_cli_fail_errno(const char *what, const char *path);
/* The message of the last failure (the CLI's or the library's), or NULL;
 * its stable class name (library errors only) or "". */
const char *dl_cli_error_message(void);
const char *dl_cli_error_class(void);
/* Forgets both. */
void dl_cli_error_clear(void);

/* Propagate a failure: `DL_CLI_TRY(call);` returns the negative code. */
#define DL_CLI_TRY(expr)                         \
	do {                                         \
		int dl_cli_try_rc_ = (expr);             \
		if (dl_cli_try_rc_ < 0) return dl_cli_try_rc_; \
	} while (0)

/* Allocation that records DL_ENOMEM on failure (free with free()). */
void *dl_cli_malloc(size_t n);
void *dl_cli_calloc(size_t count, size_t size);
void *dl_cli_realloc(void *p, size_t n);
char *dl_cli_strdup(const char *s);
char *dl_cli_strndup(const char *s, size_t n);

/* A growable NUL-terminated string. */
typedef struct dl_cli_buf {
	char *data; /* NULL until the first append */
	size_t len;
	size_t cap;
} dl_cli_buf;
#define DL_CLI_BUF_INIT {NULL, 0, 0}

int dl_cli_buf_reserve(dl_cli_buf *b, size_t extra);
int dl_cli_buf_append(dl_cli_buf *b, const void *p, size_t n);
int dl_cli_buf_puts(dl_cli_buf *b, const char *s);
int dl_cli_buf_putc(dl_cli_buf *b, char c);
int dl_cli_buf_printf(dl_cli_buf *b, const char *fmt, ...) DL_CLI_PRINTF(2, 3);
/* s[0..n) as a JSON string with quotes (RFC 8259 escapes). */
int dl_cli_buf_put_json_string(dl_cli_buf *b, const char *s, size_t n);
static inline void dl_cli_buf_clear(dl_cli_buf *b)
{
	b->len = 0;
	if (b->data) b->data[0] = 0;
}
void dl_cli_buf_free(dl_cli_buf *b);

/* Bump allocation freed all at once (copies of names, table cells). */
typedef struct dl_cli_arena_chunk dl_cli_arena_chunk;
typedef struct dl_cli_arena {
	dl_cli_arena_chunk *head;
} dl_cli_arena;
#define DL_CLI_ARENA_INIT {NULL}

void *dl_cli_arena_alloc(dl_cli_arena *a, size_t n);
char *dl_cli_arena_strndup(dl_cli_arena *a, const char *s, size_t n);
char *dl_cli_arena_strdup(dl_cli_arena *a, const char *s);
/* Forgets everything allocated but keeps the first chunk for reuse. */
void dl_cli_arena_reset(dl_cli_arena *a);
void dl_cli_arena_free(dl_cli_arena *a);

/* For commands that read whole tables batch by batch (DELETE, UPDATE,
 * MERGE): raises main's 256 KiB mmap threshold to 4 MiB, so
 * that each file's page buffers and each batch's arrays (about 1 MiB)
 * are reused from the heap instead of mapped, faulted in and unmapped
 * again (cli/main.c keeps the write path's tighter setting). */
void dl_cli_malloc_for_reads(void);

#endif
