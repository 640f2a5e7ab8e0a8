/* Fuzzes deletion vector parsing: the input as a DV file (version byte,
 * size, bitmap, CRC) at offset 1 with and without an expected size, as a
 * bare magic-prefixed RoaringBitmapArray, and Z85-encoded as an inline DV.
 * Row arrays are materialized to walk every bucket. */
#include <stdint.h>
#include <string.h>
#include "log/deletion_vector.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/z85.h"

static void consume(dl_dv_rows *rows)
{
	uint64_t *a;
	size_t n;
	if (rows->cardinality <= 1000000 && dl_dv_rows_to_array(rows, &a, &n) == 0) {
		if (n) dl_dv_rows_contains(rows, a[n - 1]);
		dl_free(a);
	}
	dl_buf b = DL_BUF_INIT;
	dl_dv_rows_serialize(rows, &b);
	dl_buf_free(&b);
	dl_dv_rows_free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_dv_rows rows;
	if (dl_dv_parse_file(&rows, data, size, 1, -1, "fuzz") == 0) consume(&rows);
	if (size >= 5) {
		int32_t want = (int32_t)((uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 |
		                         (uint32_t)data[3] << 8 | data[4]);
		if (dl_dv_parse_file(&rows, data, size, 1, want, "fuzz") == 0) consume(&rows);
	}
	if (dl_dv_rows_deserialize(&rows, data, size, "fuzz") == 0) consume(&rows);
	if (size < 4096) {
		dl_buf z = DL_BUF_INIT;
		if (dl_z85_encode(&z, data, size) == 0 && z.data) {
			dl_dv_descriptor dv = {'i', z.data, -1, (int32_t)size, -1, -1};
			if (dl_dv_load(&rows, NULL, &dv) == 0) consume(&rows);
			/* also as a hostile 'u' id: only the path derivation */
			dl_dv_descriptor u = {'u', z.data, 1, 1, 1, -1};
			dl_buf p = DL_BUF_INIT;
			dl_dv_file_path(&u, &p);
			dl_buf_free(&p);
		}
		dl_buf_free(&z);
	}
	dl_error_clear();
	return 0;
}
