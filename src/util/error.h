/* Internal side of the error model: raising errors. */
#ifndef DL_UTIL_ERROR_H
#define DL_UTIL_ERROR_H
#include <stdarg.h>
#include "deltalake/error.h"

#if defined(__GNUC__)
#define DL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define DL_NODISCARD __attribute__((warn_unused_result))
#else
#define DL_PRINTF(a, b)
#define DL_NODISCARD
#endif

/* Records an error for this thread and returns `code`, so callers can write
 * `return dl_error_set(DL_EINVALID, "...")`. The message is formatted. */
int dl_error_set(int code, const char *fmt, ...) DL_PRINTF(2, 3);
/* Adds a line to this thread's warnings (dl_warning_last); warnings past
 * the buffer's room are dropped, the first ones matter most. */
void dl_warning_add(const char *fmt, ...) DL_PRINTF(1, 2);
int dl_error_setv(int code, const char *fmt, va_list ap);
/* The same with a stable class name (e.g. Spark's "DELTA_CONCURRENT_APPEND"). */
int dl_error_set_class(int code, const char *klass, const char *fmt, ...) DL_PRINTF(3, 4);
/* Prefixes the current message with context ("reading _delta_log/3.json: ...")
 * and returns the current code. Use when propagating an error upward. */
int dl_error_prefix(const char *fmt, ...) DL_PRINTF(1, 2);
/* Sets DL_EIO from errno with the path and the OS message. */
int dl_error_errno(const char *what, const char *path);

/* Propagate a failure: `DL_TRY(call);` returns the negative code. */
#define DL_TRY(expr)                         \
	do {                                     \
		int dl_try_rc_ = (expr);             \
		if (dl_try_rc_ < 0) return dl_try_rc_; \
	} while (0)

#endif
