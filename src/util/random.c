#include "util/random.h"
#include "util/error.h"
#include <errno.h>
#include <string.h>
#include <sys/random.h>

int dl_random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);
		if (got < 0) {
			if (errno == EINTR) continue;
			return dl_error_set(DL_EIO, "getrandom failed: %s (is the kernel too old?)",
			                    strerror(errno));
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}
