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

#ifdef __cplusplus
extern "C" {
#endif

/* Frees a buffer the library allocated and handed to the caller: the data
 * of dl_store_get, the row indexes of dl_scan_file_deleted_rows, and every
 * other out-parameter documented as "free with dl_free". Use it rather than
 * free(): the library and the program may not share an allocator (static
 * runtimes, allocation hooks). Safe on NULL. */
DL_EXTERN(void) dl_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
