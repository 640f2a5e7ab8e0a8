/* Resolving the log's file paths to stores, under the path policy
 * (resolve.h).
 *
 * Rule for the policy: a path is inside a root when its canonical form
 * equals the root's or continues it with a '/' (segment by segment, so
 * /data/t2 is not inside /data/t). Canonical forms are lexical: ".", ".."
 * and duplicate '/' are resolved on the text, symbolic links are not
 * (resolving them would need the file system of every scheme); the header
 * of snapshot options says so to callers. */
#include "storage/resolve.h"
#include "storage/backend.h"
#include "storage/path.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct dl_resolved_store {
	char *dir;       /* "" for the local root "/", else the URI's directory */
	dl_store *store;
};

/* ---- canonical forms ---- */

/* Appends the segments of `p` to b (which holds "scheme://authority"),
 * resolving "." and "..": each kept segment as "/seg". 1 when ".." climbs
 * above the start. */
static int append_segments(dl_buf *b, const char *p)
{
	size_t base = b->len;
	while (*p) {
		while (*p == '/') p++;
		if (!*p) break;
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 1 && p[0] == '.') {
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (b->len == base) return 1;
			while (b->len > base && b->data[b->len - 1] != '/') b->len--;
			b->len--; /* the '/' */
			b->data[b->len] = 0;
		} else {
			DL_TRY(dl_buf_putc(b, '/'));
			DL_TRY(dl_buf_append(b, p, n));
		}
		p += n;
	}
	if (b->len == base) DL_TRY(dl_buf_putc(b, '/'));
	return 0;
}

int dl_path_canonical(char **out, const char *uri)
{
	*out = NULL;
	while (strncasecmp(uri, "fault://", 8) == 0) uri += 8; /* the wrapper names its inner store */
	size_t sl = dl_uri_scheme_len(uri);
	dl_buf b = DL_BUF_INIT;
	char *local = NULL;
	int rc = 0;
	const char *path;
	if (sl == 0 || (sl == 4 && strncasecmp(uri, "file", 4) == 0)) {
		if (sl) {
			dl_store_uri u;
			DL_TRY(dl_store_uri_parse(&u, uri));
			local = u.location;
		} else if (uri[0] != '/') {
			char cwd[4096];
			if (!getcwd(cwd, sizeof cwd)) return dl_error_errno("resolving the working directory for", uri);
			DL_TRY(dl_path_join(&local, cwd, uri));
		}
		path = local ? local : uri;
		rc = dl_buf_puts(&b, "file://");
	} else {
		for (size_t i = 0; i < sl && rc == 0; i++) rc = dl_buf_putc(&b, (char)tolower((unsigned char)uri[i]));
		const char *rest = uri + sl + 1;
		if (rc == 0) rc = dl_buf_putc(&b, ':');
		if (rc == 0 && strncmp(rest, "//", 2) == 0) {
			const char *slash = strchr(rest + 2, '/');
			size_t n = slash ? (size_t)(slash - rest) : strlen(rest);
			rc = dl_buf_append(&b, rest, n);
			rest += n;
		}
		path = rest;
	}
	if (rc == 0) rc = append_segments(&b, path);
	dl_free(local);
	if (rc == 1) {
		dl_buf_free(&b);
		return dl_error_set(DL_EPERM, "path %s climbs above its root with \"..\"", uri);
	}
	if (rc < 0) {
		dl_buf_free(&b);
		return rc;
	}
	*out = dl_buf_detach(&b, NULL);
	return *out ? 0 : DL_ENOMEM;
}

static bool inside(const char *canon, const char *root)
{
	size_t n = strlen(root);
	if (strncmp(canon, root, n) != 0) return false;
	return canon[n] == 0 || canon[n] == '/' || (n > 0 && root[n - 1] == '/');
}

/* ---- roots ---- */

int dl_path_roots_copy(dl_path_roots *out, const char *const *roots, int n, const char *what)
{
	*out = (dl_path_roots){NULL, 0};
	if (n <= 0) return 0;
	if (!roots) return dl_error_set(DL_EINVALID, "%s.nallowed_roots is %d but allowed_roots is NULL", what, n);
	out->items = dl_calloc((size_t)n, sizeof *out->items);
	if (!out->items) return DL_ENOMEM;
	for (int i = 0; i < n; i++) {
		int rc;
		if (!roots[i] || !roots[i][0])
			rc = dl_error_set(DL_EINVALID, "%s.allowed_roots[%d] is empty; name a directory or URI", what, i);
		else
			rc = dl_path_canonical(&out->items[i], roots[i]);
		if (rc == DL_EPERM) rc = dl_error_set(DL_EINVALID, "%s.allowed_roots[%d] (%s) climbs above \"/\"", what,
		                                      i, roots[i]);
		if (rc < 0) {
			out->n = i;
			dl_path_roots_free(out);
			return rc;
		}
	}
	out->n = n;
	return 0;
}

void dl_path_roots_free(dl_path_roots *r)
{
	for (int i = 0; i < r->n; i++) dl_free(r->items[i]);
	dl_free(r->items);
	*r = (dl_path_roots){NULL, 0};
}

/* ---- the resolver ---- */

int dl_store_resolver_init(dl_store_resolver *r, dl_store *table_store, const dl_path_roots *roots)
{
	memset(r, 0, sizeof *r);
	r->table_store = table_store;
	pthread_mutex_init(&r->mu, NULL);
	if (!roots || roots->n == 0) return 0;
	r->roots.items = dl_calloc((size_t)roots->n, sizeof *r->roots.items);
	int rc = r->roots.items ? 0 : DL_ENOMEM;
	for (int i = 0; rc == 0 && i < roots->n; i++) {
		r->roots.items[i] = dl_strdup(roots->items[i]);
		if (!r->roots.items[i]) rc = DL_ENOMEM;
		else r->roots.n = i + 1;
	}
	if (rc == 0) rc = dl_path_canonical(&r->table_canon, dl_store_root(table_store));
	if (rc < 0) dl_store_resolver_free(r);
	return rc;
}

void dl_store_resolver_free(dl_store_resolver *r)
{
	for (size_t i = 0; i < r->nopened; i++) {
		dl_store_free(r->opened[i].store);
		dl_free(r->opened[i].dir);
	}
	dl_free(r->opened);
	dl_path_roots_free(&r->roots);
	dl_free(r->table_canon);
	pthread_mutex_destroy(&r->mu);
	memset(r, 0, sizeof *r);
}

static bool is_absolute(const char *p)
{
	return p[0] == '/' || dl_uri_scheme_len(p) > 0;
}

/* Whether ".." segments take a relative path above its start. */
static bool climbs_out(const char *p)
{
	long depth = 0;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0) return true;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
		if (*p == '/') p++;
	}
	return false;
}

static int refuse(dl_store_resolver *r, const char *path, const char *what)
{
	dl_buf b = DL_BUF_INIT;
	for (int i = 0; i < r->roots.n; i++) dl_buf_printf(&b, "%s%s", i ? ", " : "", r->roots.items[i]);
	int rc = dl_error_set(DL_EPERM,
	                      "%s %s is outside the table %s and its allowed roots (%s): refused by the "
	                      "path policy", what, path, dl_store_root(r->table_store), b.data ? b.data : "");
	dl_buf_free(&b);
	return rc;
}

int dl_store_resolver_check(dl_store_resolver *r, const char *path, const char *what)
{
	if (r->roots.n == 0) return 0;
	/* relative: inside the table root unless ".." climbs out of it (log
	 * paths are decoded already: a '%' in them is a character) */
	if (!is_absolute(path)) return climbs_out(path) ? refuse(r, path, what) : 0;
	char *canon = NULL;
	int rc = dl_path_canonical(&canon, path);
	if (rc == DL_EPERM) return refuse(r, path, what);
	DL_TRY(rc);
	bool ok = inside(canon, r->table_canon);
	for (int i = 0; !ok && i < r->roots.n; i++) ok = inside(canon, r->roots.items[i]);
	dl_free(canon);
	return ok ? 0 : refuse(r, path, what);
}

/* The store opened on `dir` (kept for the resolver's life). Called with
 * r->mu held. */
static int opened_store(dl_store **out, dl_store_resolver *r, const char *dir, size_t dirlen)
{
	for (size_t i = 0; i < r->nopened; i++)
		if (strlen(r->opened[i].dir) == dirlen && strncmp(r->opened[i].dir, dir, dirlen) == 0) {
			*out = r->opened[i].store;
			return 0;
		}
	if (r->nopened == r->capopened) {
		size_t nc = r->capopened ? r->capopened * 2 : 4;
		dl_resolved_store *p = dl_reallocarray(r->opened, nc, sizeof *p);
		if (!p) return DL_ENOMEM;
		r->opened = p;
		r->capopened = nc;
	}
	char *key = dl_strndup(dir, dirlen);
	if (!key) return DL_ENOMEM;
	dl_store *st;
	const dl_store_options *o = r->table_store ? dl_store_options_of(r->table_store) : NULL;
	int rc = dl_store_open(&st, dirlen ? key : "/", o);
	if (rc < 0) {
		dl_free(key);
		return rc;
	}
	r->opened[r->nopened++] = (dl_resolved_store){key, st};
	*out = st;
	return 0;
}

int dl_store_resolve(dl_store **store, const char **rel, dl_store_resolver *r, const char *path,
                     const char *what)
{
	*store = NULL;
	*rel = NULL;
	DL_TRY(dl_store_resolver_check(r, path, what));
	if (!is_absolute(path)) {
		*store = r->table_store;
		*rel = path;
		return 0;
	}
	const char *dir;
	size_t dirlen;
	if (path[0] == '/') {
		/* local: one store on "/" serves every absolute local path */
		dir = "";
		dirlen = 0;
		*rel = path + 1;
	} else {
		const char *slash = strrchr(path, '/');
		if (!slash || !slash[1] || slash < path + dl_uri_scheme_len(path) + 3)
			return dl_error_set(DL_ECORRUPT, "%s path %s names no file", what, path);
		dir = path;
		dirlen = (size_t)(slash - path);
		*rel = slash + 1;
	}
	pthread_mutex_lock(&r->mu);
	int rc = opened_store(store, r, dir, dirlen);
	pthread_mutex_unlock(&r->mu);
	if (rc < 0) return dl_error_prefix("opening the store of %s %s", what, path);
	return 0;
}
