/* Parquet input of `deltalake write`: the file's batches as they are. */
#include <string.h>
#include "input.h"
#include "parquet/reader.h"
#include "util/error.h"
#include "util/mem.h"

static const dl_type *pq_schema(dl_batch_stream *s)
{
	return pq_reader_output_schema(s->private_data);
}

static int pq_next(dl_batch_stream *s, dl_batch **out)
{
	int64_t first;
	return pq_reader_next(s->private_data, out, &first);
}

static void pq_release(dl_batch_stream *s)
{
	pq_reader_free(s->private_data);
	dl_free(s);
}

int dl_cli_parquet_stream(dl_batch_stream **out, dl_cli_input *in)
{
	const char *slash = strrchr(in->path, '/');
	pq_reader *r;
	DL_TRY(pq_reader_open_store(&r, in->store, slash ? slash + 1 : in->path, -1));
	dl_batch_stream *s = dl_calloc(1, sizeof *s);
	if (!s) {
		pq_reader_free(r);
		return DL_ENOMEM;
	}
	s->private_data = r;
	s->schema = pq_schema;
	s->next = pq_next;
	s->release = pq_release;
	*out = s;
	return 0;
}
