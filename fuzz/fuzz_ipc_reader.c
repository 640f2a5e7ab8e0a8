/* libFuzzer harness for the Arrow IPC reader (columnar/ipc_reader.c): any
 * bytes must read or fail with DL_ECORRUPT/DL_EUNSUPPORTED/DL_ENOMEM -
 * never crash, read out of bounds, hang or leak - and every batch accepted
 * must validate and render cell by cell (variant cells may still be
 * malformed: they are only decoded when rendered). The input is copied to an
 * exact-size buffer so ASan sees any overread. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "columnar/format_value.h"
#include "columnar/ipc_reader.h"
#include "util/buf.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rc(int rc)
{
	if (rc < 0 && rc != DL_ECORRUPT && rc != DL_EUNSUPPORTED && rc != DL_ENOMEM) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy) abort();
	memcpy(copy, data, size);
	dl_ipc_reader *r;
	int rc = dl_ipc_reader_open(&r, copy, size, "fuzz");
	check_rc(rc);
	if (rc == 0) {
		for (int i = 0; i < 64; i++) {
			dl_batch *b;
			rc = dl_ipc_reader_next(r, &b);
			check_rc(rc);
			if (rc < 0 || !b) break;
			if (dl_batch_validate(b) < 0) abort();
			dl_buf out = DL_BUF_INIT;
			for (int c = 0; c < b->ncols; c++)
				for (int64_t k = 0; k < b->num_rows; k++)
					if (dl_format_value(&out, b->cols[c], k) < 0) check_rc(dl_error_last()->code);
			dl_buf_free(&out);
			dl_batch_free(b);
		}
		dl_ipc_reader_free(r);
	}
	free(copy);
	return 0;
}
