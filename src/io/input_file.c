/* Mapping an input file (input.h): a store on the file's directory and a
 * reader over the file, whose whole image the parsers scan in place and
 * give back behind them. */
#include <string.h>
#include "io/input.h"
#include "util/error.h"
#include "util/mem.h"

int dl_io_input_open(dl_io_input **out, const char *path)
{
	*out = NULL;
	if (!path || !*path) return dl_error_set(DL_EINVALID, "no input file named");
	dl_io_input *in = dl_calloc(1, sizeof *in);
	if (!in) return DL_ENOMEM;
	in->path = dl_strdup(path);
	const char *slash = strrchr(path, '/');
	char *dir = slash ? dl_strndup(path, (size_t)(slash - path)) : dl_strdup(".");
	int rc = in->path && dir ? dl_store_open(&in->store, *dir ? dir : "/", NULL) : DL_ENOMEM;
	dl_free(dir);
	if (rc == 0) rc = dl_store_reader_open(&in->reader, in->store, slash ? slash + 1 : path);
	if (rc == 0) {
		in->data = (const char *)dl_store_reader_data(in->reader);
		in->len = (size_t)dl_store_reader_size(in->reader);
		if (!in->data && in->len) rc = dl_error_set(DL_EIO, "%s: the file cannot be mapped", path);
		if (!in->data) in->data = "";
	}
	if (rc < 0) {
		dl_io_input_free(in);
		return rc == DL_ENOMEM ? rc : dl_error_prefix("input %s", path);
	}
	*out = in;
	return 0;
}

void dl_io_input_release(dl_io_input *in, size_t upto)
{
	if (upto > in->len) upto = in->len;
	/* one call per step, not per batch; going back is a new pass */
	if (upto >= in->released && upto - in->released < DL_IO_RELEASE_STEP && upto < in->len) return;
	dl_store_reader_release(in->reader, (int64_t)upto);
	in->released = upto;
}

void dl_io_input_free(dl_io_input *in)
{
	if (!in) return;
	if (in->reader) dl_store_reader_close(in->reader);
	dl_store_free(in->store);
	dl_free(in->path);
	dl_free(in);
}
