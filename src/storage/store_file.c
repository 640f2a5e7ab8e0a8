/* The local file system backend (file:// URIs and plain paths).
 *
 * Writes never expose partial objects: data goes to a hidden temp file in
 * the target directory, is fsync'd, and then appears under its final name in
 * one step - rename() for put, link() for put_if_absent. link() fails with
 * EEXIST when the name exists, which makes put_if_absent atomic across
 * processes on POSIX file systems (it is what Delta's HDFS log store does);
 * file systems without hard links fall back to renameat2(RENAME_NOREPLACE).
 * The directory is fsync'd afterwards so a commit survives a crash.
 *
 * Only regular files are objects. Reads open with O_NONBLOCK (opening a
 * FIFO would otherwise wait for a writer forever) and refuse anything that
 * fstat does not call a regular file, and files of the kernel's pseudo file
 * systems (/proc, /sys), which claim to be regular but have no size and may
 * block or never end: a table whose add.path names /dev/zero, a FIFO or
 * /proc/self/status fails with "not a regular file" instead of hanging. */
#include "storage/backend.h"
#include "storage/path.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/random.h"
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* linux/magic.h, spelled out so the build needs no kernel headers. */
#define DL_PROC_SUPER_MAGIC 0x9fa0
#define DL_SYSFS_MAGIC 0x62656572
#define DL_DEBUGFS_MAGIC 0x64626720
#define DL_TRACEFS_MAGIC 0x74726163

typedef struct file_store {
	char *root;
} file_store;

static int fs_open(void **impl, const char *uri, const dl_store_options *opts, void *payload)
{
	(void)payload;
	static const char *const known[] = {NULL};
	DL_TRY(dl_store_options_check_namespace(opts, "file", known));
	dl_store_uri u;
	DL_TRY(dl_store_uri_parse(&u, uri));
	file_store *fs = dl_calloc(1, sizeof *fs);
	if (!fs) {
		dl_store_uri_free(&u);
		return DL_ENOMEM;
	}
	fs->root = u.location; /* taken */
	*impl = fs;
	return 0;
}

static void fs_free(void *impl)
{
	file_store *fs = impl;
	dl_free(fs->root);
	dl_free(fs);
}

static int full_path(file_store *fs, const char *path, char **out)
{
	return dl_path_join(out, fs->root, path);
}

static int64_t mtime_ms(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

static int not_found(const char *what, const char *full)
{
	return dl_error_set(DL_ENOTFOUND, "%s %s: no such object", what, full);
}

/* ---- reads ---- */

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m)) return "a FIFO";
	if (S_ISCHR(m)) return "a character device";
	if (S_ISBLK(m)) return "a block device";
	if (S_ISSOCK(m)) return "a socket";
	return "a special file";
}

/* DL_EINVALID unless the open fd is a regular file of a real file system
 * (directories stay DL_ENOTFOUND: object stores have none). */
static int check_regular(int fd, const struct stat *st, const char *what, const char *full)
{
	if (S_ISDIR(st->st_mode))
		return dl_error_set(DL_ENOTFOUND, "%s %s: is a directory, not an object", what, full);
	if (!S_ISREG(st->st_mode))
		return dl_error_set(DL_EINVALID, "%s %s: not a regular file (%s); only regular files are "
		                    "objects of a store", what, full, file_kind(st->st_mode));
	struct statfs sf;
	if (fstatfs(fd, &sf) == 0) {
		unsigned long t = (unsigned long)sf.f_type;
		if (t == DL_PROC_SUPER_MAGIC || t == DL_SYSFS_MAGIC || t == DL_DEBUGFS_MAGIC ||
		    t == DL_TRACEFS_MAGIC)
			return dl_error_set(DL_EINVALID, "%s %s: not a regular file (a file of the kernel's "
			                    "pseudo file system); only regular files are objects of a store",
			                    what, full);
	}
	return 0;
}

/* Opens an object for reading without blocking on FIFOs, and only when it
 * is a regular file. O_NONBLOCK stays set: it has no effect on regular
 * files (reads of them never block in that sense), and clearing it would
 * cost two more system calls on the hot path of ranged reads. */
static int open_object(const char *full, const char *what, int *fd_out, struct stat *st)
{
	int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) return dl_error_errno(what, full);
	int rc = fstat(fd, st) < 0 ? dl_error_errno(what, full) : check_regular(fd, st, what, full);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

/* Reads to end of file; the object may have changed size since fstat. */
static int read_all(int fd, const char *full, size_t hint, uint8_t **data, size_t *len)
{
	size_t cap = hint + 1, n = 0;
	uint8_t *buf = dl_malloc(cap);
	if (!buf) return DL_ENOMEM;
	for (;;) {
		if (n + 1 == cap) {
			size_t nc;
			uint8_t *nb = NULL;
			if (dl_size_mul(cap, 2, &nc)) nb = dl_realloc(buf, nc);
			if (!nb) {
				dl_free(buf);
				return DL_ENOMEM;
			}
			buf = nb;
			cap = nc;
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR) continue;
			dl_free(buf);
			return dl_error_errno("reading", full);
		}
		if (r == 0) break;
		n += (size_t)r;
	}
	buf[n] = 0;
	*data = buf;
	*len = n;
	return 0;
}

static int fs_get(uint8_t **data, size_t *len, void *impl, const char *path)
{
	char *full;
	DL_TRY(full_path(impl, path, &full));
	int fd = -1;
	struct stat st;
	int rc = open_object(full, "reading", &fd, &st);
	if (rc == 0) {
		if ((uint64_t)st.st_size >= SIZE_MAX) rc = dl_error_set(DL_ENOMEM, "%s is too large", full);
		else rc = read_all(fd, full, (size_t)st.st_size, data, len);
		close(fd);
	}
	dl_free(full);
	return rc;
}

static int fs_get_range(uint8_t *buf, size_t *got, void *impl, const char *path, int64_t offset,
                        size_t len)
{
	char *full;
	DL_TRY(full_path(impl, path, &full));
	int fd = -1;
	struct stat st;
	int rc = open_object(full, "reading", &fd, &st);
	size_t n = 0;
	while (rc == 0 && n < len) {
		ssize_t r = pread(fd, buf + n, len - n, (off_t)offset + (off_t)n);
		if (r < 0 && errno == EINTR) continue;
		if (r < 0 && errno == EISDIR) rc = not_found("reading", full);
		else if (r < 0) rc = dl_error_errno("reading", full);
		else if (r == 0) break;
		else n += (size_t)r;
	}
	if (fd >= 0) close(fd);
	dl_free(full);
	*got = n;
	return rc;
}

/* ---- writes ---- */

/* Creates every missing directory of `dir` (like mkdir -p); concurrent
 * creators are fine because EEXIST is success. */
static int make_dirs(const char *dir)
{
	char *p = dl_strdup(dir);
	if (!p) return DL_ENOMEM;
	int rc = 0;
	for (char *s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != 0) continue;
		char saved = *s;
		*s = 0;
		if (mkdir(p, 0777) < 0 && errno != EEXIST) rc = dl_error_errno("creating directory", p);
		*s = saved;
		if (saved == 0) break;
	}
	dl_free(p);
	return rc;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) return dl_error_errno("opening directory", dir);
	int rc = 0;
	if (fsync(fd) < 0 && errno != EINVAL) rc = dl_error_errno("syncing directory", dir);
	close(fd);
	return rc;
}

static int write_fully(int fd, const char *tmp, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR) continue;
		if (w < 0) return dl_error_errno("writing", tmp);
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The split of an object's full path into its directory and a fresh temp
 * name next to it (hidden, so listings from a version number skip it). */
typedef struct staged {
	char *full;
	char *dir;
	char *tmp;
} staged;

static void staged_free(staged *st)
{
	dl_free(st->full);
	dl_free(st->dir);
	dl_free(st->tmp);
}

static int staged_init(staged *st, file_store *fs, const char *path)
{
	*st = (staged){0};
	unsigned char rnd[8];
	DL_TRY(dl_random_bytes(rnd, sizeof rnd));
	DL_TRY(full_path(fs, path, &st->full));
	size_t dl = dl_path_dirname_len(st->full);
	st->dir = dl_strndup(st->full, dl ? dl : 1); /* "/x" lives in "/" */
	size_t n = strlen(st->full) + 32;
	st->tmp = dl_malloc(n);
	if (!st->dir || !st->tmp) {
		staged_free(st);
		return DL_ENOMEM;
	}
	snprintf(st->tmp, n, "%.*s/.%s.%02x%02x%02x%02x%02x%02x%02x%02x.tmp", (int)dl, st->full,
	         dl_path_basename(st->full), rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6],
	         rnd[7]);
	return 0;
}

/* Creates the temp file, and the parent directories if needed. */
static int open_temp(staged *st, int *fd_out)
{
	int fd = open(st->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == ENOENT) {
		DL_TRY(make_dirs(st->dir));
		fd = open(st->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	}
	if (fd < 0) return dl_error_errno("creating", st->tmp);
	*fd_out = fd;
	return 0;
}

/* fsync and close; on failure the temp file is removed. */
static int finish_temp(staged *st, int fd, int rc)
{
	if (rc == 0 && fsync(fd) < 0) rc = dl_error_errno("syncing", st->tmp);
	if (close(fd) < 0 && rc == 0) rc = dl_error_errno("closing", st->tmp);
	if (rc < 0) unlink(st->tmp);
	return rc;
}

/* Writes and fsyncs the whole temp file. */
static int write_temp(staged *st, const void *data, size_t len)
{
	int fd;
	DL_TRY(open_temp(st, &fd));
	return finish_temp(st, fd, write_fully(fd, st->tmp, data, len));
}

static int exists_error(const char *full)
{
	return dl_error_set(DL_EEXISTS, "%s already exists (another writer created it first)", full);
}

/* Publishes tmp as full unless full exists. */
static int publish_no_replace(const char *tmp, const char *full)
{
	if (link(tmp, full) == 0) {
		unlink(tmp);
		return 0;
	}
	int e = errno;
	if (e == EEXIST) {
		unlink(tmp);
		return exists_error(full);
	}
	if (e == EPERM || e == ENOTSUP || e == EMLINK || e == ENOSYS) {
		/* No hard links here (some FUSE and SMB mounts): the kernel's
		 * no-replace rename gives the same guarantee. */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, full, RENAME_NOREPLACE) == 0) return 0;
		e = errno;
	}
	unlink(tmp);
	errno = e;
	if (e == EEXIST) return exists_error(full);
	return dl_error_errno("publishing", full);
}

/* Makes a complete temp file visible under its final name. */
static int publish(staged *st, bool if_absent)
{
	int rc = 0;
	if (if_absent) {
		rc = publish_no_replace(st->tmp, st->full);
	} else if (rename(st->tmp, st->full) < 0) {
		rc = dl_error_errno("renaming into place", st->full);
		unlink(st->tmp);
	}
	return rc == 0 ? fsync_dir(st->dir) : rc;
}

static int fs_put(void *impl, const char *path, const void *data, size_t len)
{
	staged st;
	DL_TRY(staged_init(&st, impl, path));
	int rc = write_temp(&st, data, len);
	if (rc == 0) rc = publish(&st, false);
	staged_free(&st);
	return rc;
}

static int fs_put_if_absent(void *impl, const char *path, const void *data, size_t len)
{
	staged st;
	DL_TRY(staged_init(&st, impl, path));
	int rc;
	/* Cheap early exit for a writer that already lost; link() decides. */
	if (access(st.full, F_OK) == 0) rc = exists_error(st.full);
	else rc = write_temp(&st, data, len);
	if (rc == 0) rc = publish(&st, true);
	staged_free(&st);
	return rc;
}

/* ---- streaming writer ---- */

#define WRITER_BUF (256 * 1024)

/* Small writes are gathered so a Parquet writer's many little pieces
 * (page headers, levels) do not each cost a system call. */
typedef struct file_writer {
	staged st;
	int fd;
	size_t used;
	int64_t written;   /* bytes handed to write() so far */
	int64_t unstarted; /* from here on, no write-back has been started */
	char buf[WRITER_BUF];
} file_writer;

/* Write-back of a big file is started every WRITEBACK_STEP bytes, in the
 * background (sync_file_range without waiting), so the fsync at commit
 * finds little left to write: that fsync of a 240 MB OPTIMIZE output
 * otherwise waited ~0.5 s with both cores idle. */
#define WRITEBACK_STEP (INT64_C(8) << 20)

static int fw_write_out(file_writer *w, const void *data, size_t len)
{
	DL_TRY(write_fully(w->fd, w->st.tmp, data, len));
	w->written += (int64_t)len;
#ifdef SYNC_FILE_RANGE_WRITE
	if (w->written - w->unstarted >= WRITEBACK_STEP) {
		/* advisory: a failure here resurfaces at the fsync */
		(void)sync_file_range(w->fd, w->unstarted, w->written - w->unstarted, SYNC_FILE_RANGE_WRITE);
		w->unstarted = w->written;
	}
#endif
	return 0;
}

static int fw_open(void **state, void *impl, const char *path)
{
	file_writer *w = dl_malloc(sizeof *w);
	if (!w) return DL_ENOMEM;
	int rc = staged_init(&w->st, impl, path);
	if (rc == 0) {
		rc = open_temp(&w->st, &w->fd);
		if (rc < 0) staged_free(&w->st);
	}
	if (rc < 0) {
		dl_free(w);
		return rc;
	}
	w->used = 0;
	w->written = w->unstarted = 0;
	*state = w;
	return 0;
}

static int fw_flush(file_writer *w)
{
	int rc = fw_write_out(w, w->buf, w->used);
	w->used = 0;
	return rc;
}

static int fw_write(void *state, const void *data, size_t len)
{
	file_writer *w = state;
	/* Callers may pass (NULL, 0) for an empty piece; memcpy from NULL is
	 * undefined even for zero bytes. */
	if (len == 0) return 0;
	if (w->used + len <= WRITER_BUF) {
		memcpy(w->buf + w->used, data, len);
		w->used += len;
		return 0;
	}
	DL_TRY(fw_flush(w));
	if (len >= WRITER_BUF) return fw_write_out(w, data, len);
	memcpy(w->buf, data, len);
	w->used = len;
	return 0;
}

static int fw_commit(void *state, int if_absent)
{
	file_writer *w = state;
	int rc = finish_temp(&w->st, w->fd, fw_flush(w));
	if (rc == 0) rc = publish(&w->st, if_absent != 0);
	staged_free(&w->st);
	dl_free(w);
	return rc;
}

static void fw_abort(void *state)
{
	file_writer *w = state;
	close(w->fd);
	unlink(w->st.tmp);
	staged_free(&w->st);
	dl_free(w);
}

/* ---- listing, delete, stat ---- */

/* Our in-flight (or abandoned) temp files, ".<name>.<16 hex>.tmp", are not
 * objects: an object store would not show them either. */
static bool is_temp_name(const char *name)
{
	size_t n = strlen(name);
	if (n < 1 + 1 + 1 + 16 + 4 || name[0] != '.' || strcmp(name + n - 4, ".tmp") != 0) return false;
	const char *hex = name + n - 4 - 16;
	if (hex[-1] != '.') return false;
	for (int i = 0; i < 16; i++)
		if (!strchr("0123456789abcdef", hex[i]) || !hex[i]) return false;
	return true;
}

static int list_dir(file_store *fs, const char *dir, bool recursive, dl_store_list_fn emit,
                    void *payload)
{
	char *full;
	DL_TRY(full_path(fs, dir, &full));
	DIR *d = opendir(full);
	if (!d) {
		int rc = (errno == ENOENT || errno == ENOTDIR) ? 0 : dl_error_errno("listing", full);
		dl_free(full);
		return rc;
	}
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (errno = 0, e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
		if (is_temp_name(e->d_name)) continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue; /* deleted meanwhile */
		/* Symlinked files are objects; symlinked directories are not walked,
		 * so a link to an ancestor cannot make the listing endless. */
		bool link = S_ISLNK(st.st_mode);
		if (link && fstatat(dirfd(d), e->d_name, &st, 0) < 0) continue; /* dangling */
		char *rel;
		rc = dl_path_join(&rel, dir, e->d_name);
		if (rc < 0) break;
		if (S_ISREG(st.st_mode))
			rc = emit(rel, (int64_t)st.st_size, mtime_ms(&st), payload);
		else if (S_ISDIR(st.st_mode) && recursive && !link)
			rc = list_dir(fs, rel, true, emit, payload);
		else if (!recursive) /* not an object (size -1: the backend contract) */
			rc = emit(rel, -1, mtime_ms(&st), payload);
		dl_free(rel);
	}
	if (rc == 0 && !e && errno != 0) rc = dl_error_errno("listing", full);
	closedir(d);
	dl_free(full);
	return rc;
}

static int fs_list(void *impl, const char *dir, int recursive, dl_store_list_fn emit, void *payload)
{
	return list_dir(impl, dir, recursive != 0, emit, payload);
}

static int fs_del(void *impl, const char *path)
{
	char *full;
	DL_TRY(full_path(impl, path, &full));
	int rc = 0;
	if (unlink(full) < 0) {
		if (errno == ENOENT) rc = not_found("deleting", full);
		else rc = dl_error_errno("deleting", full);
	}
	dl_free(full);
	return rc;
}

static int fs_stat(int64_t *size, int64_t *mtime, void *impl, const char *path)
{
	char *full;
	DL_TRY(full_path(impl, path, &full));
	struct stat st;
	int rc = 0;
	if (stat(full, &st) < 0) rc = dl_error_errno("stat of", full);
	else if (S_ISDIR(st.st_mode)) rc = dl_error_set(DL_ENOTFOUND, "%s is a directory, not an object", full);
	else if (!S_ISREG(st.st_mode))
		rc = dl_error_set(DL_EINVALID, "stat of %s: not a regular file (%s); only regular files are "
		                  "objects of a store", full, file_kind(st.st_mode));
	dl_free(full);
	if (rc < 0) return rc;
	*size = (int64_t)st.st_size;
	*mtime = mtime_ms(&st);
	return 0;
}

/* ---- random-access reader ---- */

typedef struct file_reader {
	int fd;
	char *full;
	void *map;
	size_t map_len;
	size_t released; /* pages of [0, released) given back last */
} file_reader;

static int fr_open(void **state, int64_t *size, const uint8_t **data, void *impl, const char *path)
{
	file_reader *r = dl_calloc(1, sizeof *r);
	if (!r) return DL_ENOMEM;
	int rc = full_path(impl, path, &r->full);
	struct stat st;
	if (rc == 0) rc = open_object(r->full, "opening", &r->fd, &st);
	if (rc < 0) {
		dl_free(r->full);
		dl_free(r);
		return rc;
	}
	*size = (int64_t)st.st_size;
	*data = NULL;
	/* Map the file so callers can decode in place; if mapping fails
	 * (unusual file systems) reads fall back to pread. */
	if (st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
		if (m != MAP_FAILED) {
			r->map = m;
			r->map_len = (size_t)st.st_size;
			*data = m;
		}
	}
	*state = r;
	return 0;
}

static int fr_read(uint8_t *buf, size_t *got, void *state, int64_t offset, size_t len)
{
	file_reader *r = state;
	size_t n = 0;
	while (n < len) {
		ssize_t k = pread(r->fd, buf + n, len - n, (off_t)offset + (off_t)n);
		if (k < 0 && errno == EINTR) continue;
		if (k < 0) return dl_error_errno("reading", r->full);
		if (k == 0) break;
		n += (size_t)k;
	}
	*got = n;
	return 0;
}

/* MADV_DONTNEED on a private mapping that was never written drops the
 * pages from the process without changing what it reads: a later access
 * faults them in again from the file (from the page cache, usually). */
static void fr_release(void *state, int64_t upto)
{
	file_reader *r = state;
	if (!r->map || upto <= 0) return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t to = (size_t)upto / page * page;
	/* a caller that went back (a second pass) faulted in pages below the
	 * last mark again: release from the start */
	size_t from = to > r->released ? r->released : 0;
	if (to > from) madvise((char *)r->map + from, to - from, MADV_DONTNEED);
	r->released = to;
}

static void fr_close(void *state)
{
	file_reader *r = state;
	if (r->map) munmap(r->map, r->map_len);
	close(r->fd);
	dl_free(r->full);
	dl_free(r);
}

const dl_store_backend dl_store_backend_file = {
	.version = DL_STORE_BACKEND_VERSION,
	.scheme = "file",
	.open = fs_open,
	.free = fs_free,
	.get = fs_get,
	.get_range = fs_get_range,
	.put = fs_put,
	.put_if_absent = fs_put_if_absent,
	.list = fs_list,
	.del = fs_del,
	.stat = fs_stat,
	.writer_open = fw_open,
	.writer_write = fw_write,
	.writer_commit = fw_commit,
	.writer_abort = fw_abort,
	.reader_open = fr_open,
	.reader_read = fr_read,
	.reader_close = fr_close,
	.reader_release = fr_release,
};
