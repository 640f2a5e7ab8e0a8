/* Output sinks of the Parquet writer (see sink.h). */
#include "parquet/sink.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>

static int write_buf(pq_sink *s, const void *p, size_t n)
{
	return dl_buf_append(s->buf, p, n);
}

static int write_fd(pq_sink *s, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(s->fd, c, n);
		if (w < 0) {
			if (errno == EINTR) continue;
			return dl_error_set(DL_EIO, "writing Parquet output (fd %d): %s", s->fd, strerror(errno));
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_file(pq_sink *s, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, s->file) != n)
		return dl_error_set(DL_EIO, "writing Parquet output: %s", strerror(errno));
	return 0;
}

static int write_store(pq_sink *s, const void *p, size_t n)
{
	return dl_store_writer_write(s->ctx, p, n);
}

void pq_sink_init_store(pq_sink *s, dl_store_writer *w)
{
	memset(s, 0, sizeof *s);
	s->write = write_store;
	s->ctx = w;
}

void pq_sink_init_buf(pq_sink *s, dl_buf *buf)
{
	memset(s, 0, sizeof *s);
	s->write = write_buf;
	s->buf = buf;
}

void pq_sink_init_fd(pq_sink *s, int fd)
{
	memset(s, 0, sizeof *s);
	s->write = write_fd;
	s->fd = fd;
}

void pq_sink_init_file(pq_sink *s, FILE *f)
{
	memset(s, 0, sizeof *s);
	s->write = write_file;
	s->file = f;
}

void pq_sink_init_fn(pq_sink *s, int (*write)(pq_sink *s, const void *p, size_t n), void *ctx)
{
	memset(s, 0, sizeof *s);
	s->write = write;
	s->ctx = ctx;
}

int pq_sink_write(pq_sink *s, const void *p, size_t n)
{
	DL_TRY(s->write(s, p, n));
	s->pos += (int64_t)n;
	return 0;
}
