#include "util/uuid.h"
#include "util/error.h"
#include "util/random.h"

int dl_uuid_v4_bytes(uint8_t out[16])
{
	DL_TRY(dl_random_bytes(out, 16));
	out[6] = (uint8_t)((out[6] & 0x0f) | 0x40);
	out[8] = (uint8_t)((out[8] & 0x3f) | 0x80);
	return 0;
}

int dl_uuid_v4(char out[DL_UUID_TEXT_LEN + 1])
{
	uint8_t b[16];
	DL_TRY(dl_uuid_v4_bytes(b));
	dl_uuid_format(out, b);
	return 0;
}

/* Dashes come after these byte indexes: 8-4-4-4-12 hex digits. */
static int dash_after(int i)
{
	return i == 3 || i == 5 || i == 7 || i == 9;
}

void dl_uuid_format(char out[DL_UUID_TEXT_LEN + 1], const uint8_t b[16])
{
	static const char hex[] = "0123456789abcdef";
	char *p = out;
	for (int i = 0; i < 16; i++) {
		*p++ = hex[b[i] >> 4];
		*p++ = hex[b[i] & 15];
		if (dash_after(i)) *p++ = '-';
	}
	*p = 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int dl_uuid_parse(uint8_t out[16], const char *s, size_t n)
{
	if (n != DL_UUID_TEXT_LEN) goto bad;
	size_t k = 0;
	for (int i = 0; i < 16; i++) {
		int hi = hexval(s[k]), lo = hexval(s[k + 1]);
		if (hi < 0 || lo < 0) goto bad;
		out[i] = (uint8_t)(hi << 4 | lo);
		k += 2;
		if (dash_after(i) && s[k++] != '-') goto bad;
	}
	return 0;
bad:
	return dl_error_set(DL_EINVALID, "bad UUID \"%.*s\": expected 8-4-4-4-12 hex digits",
	                    (int)(n > 64 ? 64 : n), s);
}
