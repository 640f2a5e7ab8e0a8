/* libFuzzer harness for the util parsers of outside text: timestamps and
 * dates (partition values), durations (table properties), time zone ids,
 * base64, Z85 (deletion vector ids), URL percent-decoding (log paths) and
 * UUIDs. The first byte picks the parser (0xFF: format 8 bytes of int64
 * micros in several zones); the rest is its input. Anything
 * may fail cleanly, nothing may crash, and whatever parses must survive a
 * format-and-parse round trip unchanged. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/base64.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/interval.h"
#include "util/time.h"
#include "util/tz.h"
#include "util/url.h"
#include "util/uuid.h"
#include "util/z85.h"

static void check_timestamp(const char *s, size_t n)
{
	int64_t v, back;
	if (dl_timestamp_parse(&v, s, n, NULL) != 0) return;
	char out[DL_TIME_TEXT_MAX];
	size_t len = dl_timestamp_format_iso(out, v, dl_tz_utc(), 6);
	if (dl_timestamp_parse(&back, out, len, NULL) != 0 || back != v) abort();
	len = dl_timestamp_format_spark(out, v, NULL);
	if (dl_timestamp_parse(&back, out, len, NULL) != 0 || back != v) abort();
}

/* Any int64 micros formats without UB (INT64_MIN once overflowed) and in
 * bounds; away from the int64 edges the text parses back to the value. */
static void check_format(const char *s, size_t n)
{
	if (n < 8) return;
	int64_t v, back;
	memcpy(&v, s, 8);
	static const dl_tz *zones[3];
	if (!zones[0]) {
		zones[0] = dl_tz_utc();
		if (dl_tz_get(&zones[1], "America/Los_Angeles", 19) != 0) zones[1] = zones[0];
		if (dl_tz_get(&zones[2], "+05:30", 6) != 0) zones[2] = zones[0];
	}
	bool inner = v > INT64_MIN / 4 && v < INT64_MAX / 4;
	char out[DL_TIME_TEXT_MAX];
	for (int i = 0; i < 3; i++) {
		size_t len = dl_timestamp_format_iso(out, v, zones[i], 6);
		if (len >= DL_TIME_TEXT_MAX || strlen(out) != len) abort();
		if (inner && (dl_timestamp_parse(&back, out, len, NULL) != 0 || back != v)) abort();
	}
	size_t len = dl_timestamp_format_spark(out, v, NULL);
	if (len >= DL_TIME_TEXT_MAX || strlen(out) != len) abort();
	if (inner && (dl_timestamp_parse(&back, out, len, NULL) != 0 || back != v)) abort();
}

static void check_date(const char *s, size_t n)
{
	int32_t d, back;
	if (dl_date_parse(&d, s, n) != 0) return;
	char out[DL_TIME_TEXT_MAX];
	size_t len = dl_date_format(out, d);
	if (dl_date_parse(&back, out, len) != 0 || back != d) abort();
}

static void check_base64(const char *s, size_t n)
{
	dl_buf dec = DL_BUF_INIT, enc = DL_BUF_INIT, again = DL_BUF_INIT;
	if (dl_base64_decode(&dec, s, n) == 0) {
		if (dl_base64_encode(&enc, dec.data, dec.len) != 0) abort();
		if (dl_base64_decode(&again, enc.data, enc.len) != 0) abort();
		if (again.len != dec.len || memcmp(again.data, dec.data, dec.len) != 0) abort();
	}
	dl_buf_free(&dec);
	dl_buf_free(&enc);
	dl_buf_free(&again);
}

static void check_z85(const char *s, size_t n)
{
	size_t bytes = n / 5 * 4;
	uint8_t *out = malloc(bytes + 1);
	if (!out) return;
	if (dl_z85_decode(out, bytes, s, n) == 0) {
		dl_buf enc = DL_BUF_INIT;
		if (dl_z85_encode(&enc, out, bytes) != 0) abort();
		if (enc.len != n || memcmp(enc.data, s, n) != 0) abort(); /* Z85 is canonical */
		dl_buf_free(&enc);
	}
	free(out);
}

static void check_url(const char *s, size_t n)
{
	dl_buf dec = DL_BUF_INIT, enc = DL_BUF_INIT, again = DL_BUF_INIT;
	if (dl_url_decode(&dec, s, n) == 0) {
		if (dl_url_encode_path(&enc, dec.data, dec.len) != 0) abort();
		if (dl_url_decode(&again, enc.data, enc.len) != 0) abort();
		if (again.len != dec.len || memcmp(again.data, dec.data, dec.len) != 0) abort();
	}
	dl_buf_free(&dec);
	dl_buf_free(&enc);
	dl_buf_free(&again);
}

static void check_uuid(const char *s, size_t n)
{
	uint8_t b[16];
	char text[DL_UUID_TEXT_LEN + 1];
	if (dl_uuid_parse(b, s, n) != 0) return;
	dl_uuid_format(text, b);
	for (size_t i = 0; i < n; i++)
		if ((s[i] | 0x20) != text[i] && s[i] != text[i]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0) return 0;
	const char *s = (const char *)data + 1;
	size_t n = size - 1;
	int64_t micros;
	const dl_tz *tz;
	if (data[0] == 0xFF) {
		check_format(s, n);
		dl_error_clear();
		return 0;
	}
	switch (data[0] % 8) {
	case 0: check_timestamp(s, n); break;
	case 1: check_date(s, n); break;
	case 2: (void)dl_duration_parse(&micros, s, n); break;
	case 3:
		/* Only short ids: every valid zone is cached for the process. */
		if (n <= 40 && dl_tz_get(&tz, s, n) == 0) (void)dl_tz_local_to_utc(tz, 1631099471);
		break;
	case 4: check_base64(s, n); break;
	case 5: check_z85(s, n); break;
	case 6: check_url(s, n); break;
	case 7: check_uuid(s, n); break;
	}
	dl_error_clear();
	return 0;
}
