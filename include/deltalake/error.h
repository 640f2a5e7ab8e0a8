/* Error model of libdeltalake.
 *
 * Every function that can fail returns an int: DL_OK (0) on success or a
 * negative dl_error_code. The details of the last failure on the calling
 * thread are in dl_error_last(): the code, a message that says what was wrong
 * and what to do, and for some errors a stable class name (for example the
 * conflict classes Spark raises, "DELTA_CONCURRENT_APPEND"). The library never prints,
 * never exits and never aborts on bad input.
 *
 * Thread safety: the last error is thread-local: each thread sees the
 * errors of its own calls only. The struct dl_error_last returns belongs to
 * the calling thread; its contents change with that thread's next error. */
#ifndef DELTALAKE_ERROR_H
#define DELTALAKE_ERROR_H
#include "deltalake/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dl_error_code {
	DL_OK = 0,
	DL_ERROR = -1,        /* generic failure */
	DL_ENOTFOUND = -2,    /* a file, table, version, column... does not exist */
	DL_EINVALID = -3,     /* invalid argument or input from the caller */
	DL_EUNSUPPORTED = -4, /* valid but not supported (feature, type, codec) */
	DL_ECONFLICT = -5,    /* a concurrent transaction conflicts with this one */
	DL_EEXISTS = -6,      /* the object exists (put-if-absent lost, table exists) */
	DL_EIO = -7,          /* the operating system or storage failed */
	DL_ECORRUPT = -8,     /* data read from outside is malformed */
	DL_ENOMEM = -9,       /* out of memory or a size limit */
	DL_ECONSTRAINT = -10, /* a write violates NOT NULL, CHECK, generated... */
	DL_ESCHEMA = -11,     /* schema mismatch on write or evolution */
	DL_ECANCELLED = -12,  /* a callback asked to stop */
	DL_EPERM = -13,       /* refused by policy (a path outside the allowed roots) */
} dl_error_code;

typedef struct dl_error {
	int code;            /* a dl_error_code */
	const char *klass;   /* stable error class name, or "" */
	const char *message; /* what was wrong and what to do */
} dl_error;

/* The last error raised on this thread; never NULL (code DL_OK when none). */
DL_EXTERN(const dl_error *) dl_error_last(void);
/* Forget the last error of this thread. */
DL_EXTERN(void) dl_error_clear(void);
/* A short name for a code, e.g. "DL_ENOTFOUND". */
DL_EXTERN(const char *) dl_error_code_name(int code);

/* Warnings: a call that succeeded but could not do all it meant to, for
 * example a commit whose post-commit work (the checksum file, the
 * checkpoint, _last_checkpoint, log cleanup) failed on a full disk. The
 * commit stands; the table is correct, only slower to read or without its
 * checksum. The warnings raised on this thread since dl_warning_clear, one
 * per line, or NULL when there were none (thread-local, like the error). */
DL_EXTERN(const char *) dl_warning_last(void);
/* Forget this thread's warnings (do it before a call to see its own). */
DL_EXTERN(void) dl_warning_clear(void);

#ifdef __cplusplus
}
#endif
#endif
