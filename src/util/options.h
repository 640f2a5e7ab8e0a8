/* Versioned option structs (the C API conventions): a caller compiled
 * against an older header passes an older, shorter struct. Every version
 * from 1 to the current one is accepted; fields added by later versions are
 * read only when the caller's version has them:
 *
 *   dl_write_options o = DL_WRITE_OPTIONS_INIT;       // defaults for new fields
 *   DL_TRY(DL_OPTIONS_COPY(&o, user, "dl_write_options", 2, store,
 *                          "DL_WRITE_OPTIONS_INIT"));
 *
 * copies the whole struct from a version-2 caller and only the fields
 * before `store` (the first field of version 2) from a version-1 one. */
#ifndef DL_UTIL_OPTIONS_H
#define DL_UTIL_OPTIONS_H
#include <stddef.h>
#include <string.h>
#include "util/error.h"

/* DL_EINVALID naming the struct unless 1 <= version <= current. */
static inline int dl_options_check_version(const char *name, int version, int current, const char *init)
{
	if (version >= 1 && version <= current) return 0;
	return dl_error_set(DL_EINVALID,
	                    "%s.version is %d; this library knows versions 1 to %d: initialize "
	                    "options with %s", name, version, current, init);
}

/* Copies *src (of src->version) over *dst (holding the defaults); `v2_first`
 * is the first field added in version 2. */
#define DL_OPTIONS_COPY(dst, src, name, current, v2_first, init)                                    \
	(dl_options_check_version(name, (src)->version, current, init) < 0                              \
	     ? DL_EINVALID                                                                            \
	     : (memcpy((dst), (src), (src)->version >= 2 ? sizeof *(dst)                              \
	                                                  : offsetof(__typeof__(*(dst)), v2_first)), 0))

#endif
