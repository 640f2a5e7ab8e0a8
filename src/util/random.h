/* Random bytes from the kernel (getrandom), for UUIDs and unique temp names. */
#ifndef DL_UTIL_RANDOM_H
#define DL_UTIL_RANDOM_H
#include <stddef.h>

/* Fills buf with n cryptographically random bytes. 0 or DL_EIO. */
int dl_random_bytes(void *buf, size_t n);

#endif
