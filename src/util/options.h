/* Versioned option structs (docs/ARCHITECTURE.md "Structs").
 *
 * Every public option struct starts with `int version` and grows only at
 * its end; each new field bumps the struct's *_OPTIONS_VERSION. A caller
 * compiled against an older header passes an older version and a shorter
 * struct, so the library must accept every version from 1 up to the current
 * one and read only the fields that version had (the newer ones keep their
 * defaults). Version 0 (an uninitialized struct) or one newer than this
 * library knows is DL_EINVALID naming the struct. */
#ifndef DL_UTIL_OPTIONS_H
#define DL_UTIL_OPTIONS_H
#include <stddef.h>

/* The end of `field` in `type`: the size of a version of the struct whose
 * last field is `field` (not offsetof the next field, which may lie past
 * the end of the older, shorter struct when the new field is more aligned). */
#define DL_OPTIONS_END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

/* Fails the build when a table of version sizes does not have one entry
 * per version (a field added without its entry):
 *   static const size_t ends[] = {DL_OPTIONS_END(dl_x_options, last_v1_field),
 *                                 sizeof(dl_x_options)};
 *   DL_OPTIONS_ENDS_CHECK(ends, DL_X_OPTIONS_VERSION); */
#define DL_OPTIONS_ENDS_CHECK(ends, current) \
	_Static_assert(sizeof(ends) / sizeof((ends)[0]) == (current), \
	               #ends ": one size per version of the options struct")

/* 0 when 1 <= version <= current, else DL_EINVALID: "<name>.version is V;
 * this library knows versions 1 to C: initialize it with <init>". */
int dl_options_check(int version, int current, const char *name, const char *init);

/* Loads the caller's options `src` (of any known version) into `dst`, a
 * struct of the current version holding the defaults: the first
 * ends[version - 1] bytes are copied (ends[v - 1] is the size of version v:
 * DL_OPTIONS_END of its last field, ends[current - 1] may be sizeof), the
 * newer fields keep their defaults and dst->version becomes `current`.
 * src NULL leaves the defaults. Errors as dl_options_check. */
int dl_options_load(void *dst, const void *src, const size_t *ends, int current, const char *name,
                    const char *init);

#endif
