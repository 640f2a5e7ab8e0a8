/* Slicing-by-8: eight 256-entry tables let us fold 8 bytes per step. The
 * tables are built once, on first use (dl_util does not link zlib, so the
 * util layer stays dependency-free). */
#include "util/crc32.h"
#include <pthread.h>
#include <string.h>

static uint32_t tables[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		tables[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			tables[t][i] = (tables[t - 1][i] >> 8) ^ tables[0][tables[t - 1][i] & 0xff];
}

uint32_t dl_crc32(uint32_t crc, const void *data, size_t n)
{
	pthread_once(&once, build_tables);
	const uint8_t *p = data;
	uint32_t c = ~crc;
	while (n >= 8) {
		uint32_t lo, hi;
		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		lo = __builtin_bswap32(lo);
		hi = __builtin_bswap32(hi);
#endif
		lo ^= c;
		c = tables[7][lo & 0xff] ^ tables[6][(lo >> 8) & 0xff] ^ tables[5][(lo >> 16) & 0xff] ^
		    tables[4][lo >> 24] ^ tables[3][hi & 0xff] ^ tables[2][(hi >> 8) & 0xff] ^
		    tables[1][(hi >> 16) & 0xff] ^ tables[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--) c = tables[0][(c ^ *p++) & 0xff] ^ (c >> 8);
	return ~c;
}
