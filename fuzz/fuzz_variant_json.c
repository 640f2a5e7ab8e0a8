/* libFuzzer harness for the variant decoder (columnar/variant_json.c): any
 * metadata/value pair must decode or fail with DL_ECORRUPT/DL_EUNSUPPORTED
 * (never crash, read out of bounds or leak), and decoded text must be valid
 * JSON. Input: byte 0 = metadata length (capped), then metadata, then value.
 * Both parts are copied into exact-size buffers so ASan sees any overread. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/variant_json.h"
#include "json/json.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	size_t mlen = data[0];
	if (mlen > size - 1) mlen = size - 1;
	size_t vlen = size - 1 - mlen;
	uint8_t *meta = malloc(mlen ? mlen : 1), *value = malloc(vlen ? vlen : 1);
	if (!meta || !value) abort();
	memcpy(meta, data + 1, mlen);
	memcpy(value, data + 1 + mlen, vlen);
	dl_buf out = DL_BUF_INIT;
	int rc = dl_variant_to_json(&out, value, vlen, meta, mlen);
	if (rc == 0) {
		dl_arena arena = DL_ARENA_INIT;
		dl_json *j;
		/* String bytes are copied as they are (the spec requires UTF-8 but
		 * the decoder does not validate it): check the JSON when the text is
		 * plain ASCII, where only the decoder's own syntax is at stake. */
		bool ascii = true;
		for (size_t i = 0; i < out.len && ascii; i++) ascii = (unsigned char)out.data[i] < 0x80;
		if (ascii && dl_json_parse(&arena, out.data ? out.data : "", out.len, "variant", &j) < 0) abort();
		dl_arena_free(&arena);
	} else if (rc != DL_ECORRUPT && rc != DL_EUNSUPPORTED && rc != DL_ENOMEM) {
		abort();
	}
	dl_buf_free(&out);
	free(meta);
	free(value);
	return 0;
}
