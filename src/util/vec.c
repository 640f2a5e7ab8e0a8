#include "util/vec.h"
#include "util/error.h"
#include <string.h>

int dl_vec_grow_(void *data_ptr, size_t *cap, size_t len, size_t extra, size_t elem_size)
{
	size_t need;
	if (!dl_size_add(len, extra, &need)) return DL_ENOMEM;
	size_t c = *cap ? *cap : 8;
	while (c < need) {
		if (c > SIZE_MAX / 2) {
			c = need;
			break;
		}
		c *= 2;
	}
	/* data_ptr is a T**; go through memcpy so we never access it as void**. */
	void *old;
	memcpy(&old, data_ptr, sizeof old);
	void *p = dl_reallocarray(old, c, elem_size);
	if (!p) return DL_ENOMEM;
	memcpy(data_ptr, &p, sizeof p);
	*cap = c;
	return 0;
}
