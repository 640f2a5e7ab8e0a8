#include "util/z85.h"
#include "util/error.h"
#include <pthread.h>
#include <string.h>

static const char alphabet[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

size_t dl_z85_encoded_len(size_t n)
{
	return (n + 3) / 4 * 5;
}

int dl_z85_encode(dl_buf *out, const void *data, size_t n)
{
	const uint8_t *p = data;
	DL_TRY(dl_buf_reserve(out, dl_z85_encoded_len(n)));
	char *o = out->data + out->len;
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v = 0;
		for (size_t k = 0; k < 4; k++) v = v << 8 | (i + k < n ? p[i + k] : 0);
		for (int k = 4; k >= 0; k--) {
			o[k] = alphabet[v % 85];
			v /= 85;
		}
		o += 5;
	}
	out->len = (size_t)(o - out->data);
	out->data[out->len] = 0;
	return 0;
}

/* Character -> digit, 0xff outside the alphabet. */
static uint8_t digits[256];
static pthread_once_t digits_once = PTHREAD_ONCE_INIT;

static void build_digits(void)
{
	memset(digits, 0xff, sizeof digits);
	for (int i = 0; i < 85; i++) digits[(unsigned char)alphabet[i]] = (uint8_t)i;
}

int dl_z85_decode(uint8_t *out, size_t out_len, const char *s, size_t n)
{
	if (n % 5 != 0)
		return dl_error_set(DL_ECORRUPT, "bad Z85 text of %zu characters: not a multiple of 5", n);
	size_t bytes = n / 5 * 4;
	if (bytes < out_len || bytes - out_len > 3)
		return dl_error_set(DL_ECORRUPT, "Z85 text of %zu characters cannot hold exactly %zu bytes",
		                    n, out_len);
	pthread_once(&digits_once, build_digits);
	for (size_t g = 0; g < n / 5; g++) {
		uint64_t v = 0;
		for (size_t k = 0; k < 5; k++) {
			uint8_t d = digits[(unsigned char)s[g * 5 + k]];
			if (d == 0xff)
				return dl_error_set(DL_ECORRUPT, "bad Z85 character 0x%02x at offset %zu",
				                    (unsigned char)s[g * 5 + k], g * 5 + k);
			v = v * 85 + d;
		}
		if (v > UINT32_MAX)
			return dl_error_set(DL_ECORRUPT, "bad Z85 group at offset %zu: value above 2^32-1", g * 5);
		for (size_t k = 0; k < 4; k++) {
			size_t at = g * 4 + k;
			if (at < out_len) out[at] = (uint8_t)(v >> (24 - 8 * k));
		}
	}
	return 0;
}
