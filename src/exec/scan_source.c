/* The Delta table source (exec.h): dl_snapshot_open for time travel, then
 * dl_scan_open with the projection and filter pushed down, so file pruning
 * and the residual filter happen in the scan, which decodes files in
 * parallel on the pool (table/scan_stream.c). The source owns the snapshot
 * and the scan. */
#include "exec/op.h"
#include "table/scan.h"

typedef struct scan_src {
	dl_snapshot *snap;      /* owned; NULL when borrowed */
	dl_scan *scan;
	dl_batch_stream *in;
} scan_src;

static const dl_type *src_schema(dl_batch_stream *s)
{
	scan_src *x = s->private_data;
	return dl_batch_stream_schema(x->in);
}

static int src_next(dl_batch_stream *s, dl_batch **out)
{
	scan_src *x = s->private_data;
	return dl_batch_stream_next(x->in, out);
}

static void src_free(scan_src *x)
{
	dl_batch_stream_free(x->in);
	dl_scan_free(x->scan);
	dl_snapshot_free(x->snap);
	dl_free(x);
}

static void src_release(dl_batch_stream *s)
{
	src_free(s->private_data);
	dl_free(s);
}

int dl_exec_scan(dl_batch_stream **out, const char *uri, const dl_snapshot_options *snap_opts,
                 const dl_scan_options *scan_opts)
{
	*out = NULL;
	scan_src *x = dl_calloc(1, sizeof *x);
	if (!x) return dl_error_set(DL_ENOMEM, "out of memory");
	int rc = dl_snapshot_open(&x->snap, uri, snap_opts);
	if (rc == 0) rc = dl_scan_open(&x->scan, x->snap, scan_opts);
	if (rc == 0) rc = dl_scan_batches(&x->in, x->scan);
	if (rc == 0 && !(*out = dl_exec_stream_new(x, src_schema, src_next, src_release))) rc = dl_exec_failed();
	if (rc < 0) src_free(x);
	return rc;
}

int dl_exec_scan_snapshot(dl_batch_stream **out, dl_snapshot *snap, const dl_scan_options *scan_opts)
{
	*out = NULL;
	scan_src *x = dl_calloc(1, sizeof *x);
	if (!x) return dl_error_set(DL_ENOMEM, "out of memory");
	int rc = dl_scan_open(&x->scan, snap, scan_opts);
	if (rc == 0) rc = dl_scan_batches(&x->in, x->scan);
	if (rc == 0 && !(*out = dl_exec_stream_new(x, src_schema, src_next, src_release))) rc = dl_exec_failed();
	if (rc < 0) src_free(x);
	return rc;
}
