/* Text and checksum codecs: base64, Z85 (with the Delta protocol's own
 * deletion vector examples), CRC-32, URL percent-coding, UUIDs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "util/base64.h"
#include "util/crc32.h"
#include "util/error.h"
#include "util/url.h"
#include "util/uuid.h"
#include "util/z85.h"

static void base64_vectors(void **state)
{
	(void)state;
	const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	const char *coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	for (int i = 0; i < 7; i++) {
		dl_buf b = DL_BUF_INIT;
		assert_int_equal(dl_base64_encode(&b, plain[i], strlen(plain[i])), 0);
		assert_string_equal(b.data, coded[i]);
		dl_buf_clear(&b);
		assert_int_equal(dl_base64_decode(&b, coded[i], strlen(coded[i])), 0);
		assert_int_equal(b.len, strlen(plain[i]));
		assert_memory_equal(b.data, plain[i], b.len);
		dl_buf_free(&b);
	}
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_base64_decode(&b, "Zm9vYg", 6), 0); /* padding optional */
	assert_string_equal(b.data, "foob");
	assert_int_equal(dl_base64_decode(&b, "Zm9v!A==", 8), DL_ECORRUPT);
	assert_int_equal(dl_base64_decode(&b, "Z", 1), DL_ECORRUPT);
	assert_int_equal(dl_base64_decode(&b, "Zh==", 4), DL_ECORRUPT); /* stray bits */
	uint8_t all[256];
	for (int i = 0; i < 256; i++) all[i] = (uint8_t)i;
	dl_buf_clear(&b);
	assert_int_equal(dl_base64_encode(&b, all, 256), 0);
	dl_buf d = DL_BUF_INIT;
	assert_int_equal(dl_base64_decode(&d, b.data, b.len), 0);
	assert_int_equal(d.len, 256);
	assert_memory_equal(d.data, all, 256);
	dl_buf_free(&b);
	dl_buf_free(&d);
}

static void z85_protocol_examples(void **state)
{
	(void)state;
	/* ZeroMQ RFC 32 test vector. */
	const uint8_t hello[8] = {0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B};
	dl_buf b = DL_BUF_INIT;
	assert_int_equal(dl_z85_encode(&b, hello, 8), 0);
	assert_string_equal(b.data, "HelloWorld");
	uint8_t out[16];
	assert_int_equal(dl_z85_decode(out, 8, "HelloWorld", 10), 0);
	assert_memory_equal(out, hello, 8);

	/* PROTOCOL.md: "ab^-aqEH.-t@S}K{vb[*k^" is prefix "ab" and the UUID
	 * d2c639aa-8816-431a-aaf6-d3fe2512ff61. */
	const char *dv = "ab^-aqEH.-t@S}K{vb[*k^";
	assert_int_equal(dl_z85_decode(out, 16, dv + 2, 20), 0);
	char text[DL_UUID_TEXT_LEN + 1];
	dl_uuid_format(text, out);
	assert_string_equal(text, "d2c639aa-8816-431a-aaf6-d3fe2512ff61");
	dl_buf_clear(&b);
	assert_int_equal(dl_z85_encode(&b, out, 16), 0);
	assert_string_equal(b.data, dv + 2);

	/* Inline DV example: 50 characters are the 40-byte bitmap. */
	const char *inl = "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L";
	uint8_t bitmap[40];
	assert_int_equal(dl_z85_decode(bitmap, 40, inl, strlen(inl)), 0);
	dl_buf_clear(&b);
	assert_int_equal(dl_z85_encode(&b, bitmap, 40), 0);
	assert_string_equal(b.data, inl);

	/* Lengths that are not a multiple of 4 pad with zeros, like Delta. */
	dl_buf_clear(&b);
	assert_int_equal(dl_z85_encode(&b, "abcde", 5), 0);
	assert_int_equal(b.len, 10);
	assert_int_equal(dl_z85_encoded_len(5), 10);
	char five[5];
	assert_int_equal(dl_z85_decode((uint8_t *)five, 5, b.data, b.len), 0);
	assert_memory_equal(five, "abcde", 5);

	assert_int_equal(dl_z85_decode(out, 8, "HelloWorl", 9), DL_ECORRUPT);
	assert_int_equal(dl_z85_decode(out, 8, "Hello\"orld", 10), DL_ECORRUPT);
	assert_int_equal(dl_z85_decode(out, 4, "#####", 5), DL_ECORRUPT); /* > 2^32-1 */
	assert_int_equal(dl_z85_decode(out, 16, "HelloWorld", 10), DL_ECORRUPT);
	assert_int_equal(dl_z85_decode(out, 2, "HelloWorld", 10), DL_ECORRUPT);
	dl_buf_free(&b);
}

static void crc32_vectors(void **state)
{
	(void)state;
	assert_int_equal(dl_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(dl_crc32(0, "", 0), 0);
	assert_int_equal(dl_crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
	/* Incremental at odd split points equals one pass. */
	uint8_t data[1000];
	for (int i = 0; i < 1000; i++) data[i] = (uint8_t)(i * 31 + 7);
	uint32_t whole = dl_crc32(0, data, 1000);
	for (size_t cut = 0; cut <= 1000; cut += 37)
		assert_int_equal(dl_crc32(dl_crc32(0, data, cut), data + cut, 1000 - cut), whole);
}

static void url_coding(void **state)
{
	(void)state;
	dl_buf b = DL_BUF_INIT;
	const char *p = "a=x y/b=100%/c=caf\xc3\xa9#?/part-0.parquet";
	assert_int_equal(dl_url_encode_path(&b, p, strlen(p)), 0);
	assert_string_equal(b.data, "a=x%20y/b=100%25/c=caf\xc3\xa9%23%3F/part-0.parquet");
	dl_buf d = DL_BUF_INIT;
	assert_int_equal(dl_url_decode(&d, b.data, b.len), 0);
	assert_string_equal(d.data, p);
	dl_buf_clear(&d);
	assert_int_equal(dl_url_decode(&d, "a+b%2fc%2F", 10), 0);
	assert_string_equal(d.data, "a+b/c/");
	dl_buf_clear(&d);
	assert_int_equal(dl_url_decode(&d, "caf%C3%A9", 9), 0);
	assert_string_equal(d.data, "caf\xc3\xa9");
	assert_int_equal(dl_url_decode(&d, "bad%2", 5), DL_EINVALID);
	assert_int_equal(dl_url_decode(&d, "bad%zz", 6), DL_EINVALID);
	assert_int_equal(dl_url_decode(&d, "nul%00", 6), DL_EINVALID);
	char *s;
	assert_int_equal(dl_url_decode_str(&s, "x%20y"), 0);
	assert_string_equal(s, "x y");
	free(s);
	dl_buf_free(&b);
	dl_buf_free(&d);
}

static void uuids(void **state)
{
	(void)state;
	char a[DL_UUID_TEXT_LEN + 1], b[DL_UUID_TEXT_LEN + 1];
	assert_int_equal(dl_uuid_v4(a), 0);
	assert_int_equal(dl_uuid_v4(b), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(strlen(a), 36);
	for (int i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) assert_int_equal(a[i], '-');
		else assert_non_null(strchr("0123456789abcdef", a[i]));
	}
	assert_int_equal(a[14], '4');
	assert_non_null(strchr("89ab", a[19]));
	uint8_t bytes[16];
	assert_int_equal(dl_uuid_parse(bytes, a, 36), 0);
	dl_uuid_format(b, bytes);
	assert_string_equal(a, b);
	assert_int_equal(dl_uuid_parse(bytes, "D2C639AA-8816-431A-AAF6-D3FE2512FF61", 36), 0);
	assert_int_equal(bytes[0], 0xd2);
	assert_int_equal(bytes[15], 0x61);
	assert_int_equal(dl_uuid_parse(bytes, "d2c639aa-8816-431a-aaf6-d3fe2512ff6", 35), DL_EINVALID);
	assert_int_equal(dl_uuid_parse(bytes, "d2c639aa+8816-431a-aaf6-d3fe2512ff61", 36), DL_EINVALID);
	assert_int_equal(dl_uuid_parse(bytes, "g2c639aa-8816-431a-aaf6-d3fe2512ff61", 36), DL_EINVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(base64_vectors),
		cmocka_unit_test(z85_protocol_examples),
		cmocka_unit_test(crc32_vectors),
		cmocka_unit_test(url_coding),
		cmocka_unit_test(uuids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
