/* Growable typed arrays as a macro:
 *
 *   DL_VEC(int64_t) v = DL_VEC_INIT;
 *   DL_TRY(dl_vec_push(&v, 42));
 *   for (size_t i = 0; i < v.len; i++) use(v.data[i]);
 *   dl_vec_free(&v);
 *
 * Capacity doubles, so n pushes cost O(n). Push and reserve return 0 or
 * DL_ENOMEM (the vector is unchanged on failure). */
#ifndef DL_UTIL_VEC_H
#define DL_UTIL_VEC_H
#include <stddef.h>
#include <stdint.h>
#include "util/mem.h"

#define DL_VEC(T) struct { T *data; size_t len; size_t cap; }
#define DL_VEC_INIT {NULL, 0, 0}

/* Grows *data_ptr (a T**) to hold len + extra elements of elem_size bytes. */
int dl_vec_grow_(void *data_ptr, size_t *cap, size_t len, size_t extra, size_t elem_size);

#define dl_vec_reserve(v, extra)                                      \
	((extra) <= (v)->cap - (v)->len ? 0                                \
	 : dl_vec_grow_(&(v)->data, &(v)->cap, (v)->len, (extra), sizeof *(v)->data))
#define dl_vec_push(v, x) \
	(dl_vec_reserve((v), 1) < 0 ? DL_ENOMEM : ((v)->data[(v)->len++] = (x), 0))
#define dl_vec_pop(v) ((v)->data[--(v)->len])
#define dl_vec_last(v) ((v)->data[(v)->len - 1])
#define dl_vec_clear(v) ((void)((v)->len = 0))
#define dl_vec_free(v) \
	((void)(dl_free((v)->data), (v)->data = NULL, (v)->len = 0, (v)->cap = 0))

typedef DL_VEC(void *) dl_vec_ptr;
typedef DL_VEC(int64_t) dl_vec_i64;
typedef DL_VEC(int32_t) dl_vec_i32;
typedef DL_VEC(char *) dl_vec_str;

#endif
