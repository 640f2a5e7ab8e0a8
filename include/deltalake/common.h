/* Definitions shared by the public headers. */
#ifndef DELTALAKE_COMMON_H
#define DELTALAKE_COMMON_H

/* Marks a function of the public API. The library is built with
 * -fvisibility=hidden, so only the functions declared with DL_EXTERN are
 * exported from libdeltalake.so; everything else stays internal. */
#if defined(__GNUC__) || defined(__clang__)
#define DL_EXTERN(type) __attribute__((visibility("default"))) type
#else
#define DL_EXTERN(type) type
#endif

#endif
