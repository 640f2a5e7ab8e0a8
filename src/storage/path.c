#include "storage/path.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/url.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Length of a URI scheme ("file" in "file:/x"), or 0 when s has none. One
 * letter is not a scheme, so "c:/x" stays a plain path. */
size_t dl_uri_scheme_len(const char *s)
{
	if (!isalpha((unsigned char)s[0])) return 0;
	size_t i = 1;
	while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.') i++;
	return s[i] == ':' && i >= 2 ? i : 0;
}

static void strip_trailing_slashes(char *p)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/') p[--n] = 0;
}

static int parse_file_uri(dl_store_uri *out, const char *uri, const char *rest)
{
	/* file:///x and file://localhost/x have an (empty) authority; file:/x
	 * has none. Another host would be a network share we cannot reach. */
	if (strncmp(rest, "//", 2) == 0) {
		const char *host = rest + 2;
		const char *slash = strchr(host, '/');
		size_t hl = slash ? (size_t)(slash - host) : strlen(host);
		if (hl != 0 && !(hl == 9 && strncmp(host, "localhost", 9) == 0))
			return dl_error_set(DL_EUNSUPPORTED,
			                    "file URI %s names host \"%.*s\"; only local files are supported "
			                    "(write file:///path)", uri, (int)hl, host);
		rest = slash ? slash : host + hl;
	}
	if (rest[0] != '/')
		return dl_error_set(DL_EINVALID, "file URI %s has no absolute path; write file:///path", uri);
	DL_TRY(dl_url_decode_str(&out->location, rest));
	out->scheme = "file";
	return 0;
}

static int parse_mem_uri(dl_store_uri *out, const char *uri, const char *rest)
{
	if (strncmp(rest, "//", 2) != 0 || rest[2] == 0 || rest[2] == '/')
		return dl_error_set(DL_EINVALID, "memory store URI %s needs a name: write mem://name", uri);
	out->location = dl_strdup(rest + 2);
	if (!out->location) return DL_ENOMEM;
	out->scheme = "mem";
	return 0;
}

int dl_store_uri_parse(dl_store_uri *out, const char *uri)
{
	out->scheme = NULL;
	out->location = NULL;
	if (!uri || !uri[0])
		return dl_error_set(DL_EINVALID, "empty table location; pass a path or a file:// URI");
	size_t sl = dl_uri_scheme_len(uri);
	int rc;
	if (sl == 0) {
		out->location = dl_strdup(uri);
		out->scheme = "file";
		rc = out->location ? 0 : DL_ENOMEM;
	} else if (sl == 4 && strncasecmp(uri, "file", 4) == 0) {
		rc = parse_file_uri(out, uri, uri + 5);
	} else if (sl == 3 && strncasecmp(uri, "mem", 3) == 0) {
		rc = parse_mem_uri(out, uri, uri + 4);
	} else {
		rc = dl_error_set(DL_EINVALID,
		                  "storage scheme \"%.*s\" of %s is not a local one (a path, file:///path "
		                  "or mem://name)", (int)sl, uri, uri);
	}
	if (rc < 0) {
		dl_store_uri_free(out);
		return rc;
	}
	strip_trailing_slashes(out->location);
	return 0;
}

void dl_store_uri_free(dl_store_uri *u)
{
	dl_free(u->location);
	u->location = NULL;
}

int dl_path_join(char **out, const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);
	while (al > 0 && a[al - 1] == '/') al--;
	while (bl > 0 && b[0] == '/') b++, bl--;
	/* Keep a lone "/" root: "/" + "x" is "/x", not "x". */
	size_t keep_root = (al == 0 && a[0] == '/') ? 1 : 0;
	size_t n = keep_root + al + 1 + bl + 1;
	char *p = dl_malloc(n);
	if (!p) return DL_ENOMEM;
	size_t o = 0;
	if (keep_root) p[o++] = '/';
	memcpy(p + o, a, al);
	o += al;
	if (al > 0 && bl > 0) p[o++] = '/';
	memcpy(p + o, b, bl);
	o += bl;
	p[o] = 0;
	*out = p;
	return 0;
}

bool dl_path_is_valid_relative(const char *p, bool allow_empty)
{
	if (!p) return false;
	if (!p[0]) return allow_empty;
	const char *seg = p;
	for (;;) {
		const char *end = strchr(seg, '/');
		size_t n = end ? (size_t)(end - seg) : strlen(seg);
		if (n == 0) return false; /* leading, trailing or double '/' */
		if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) return false;
		if (!end) return true;
		seg = end + 1;
	}
}

size_t dl_path_dirname_len(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? (size_t)(s - p) : 0;
}

const char *dl_path_basename(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int dl_path_key_prefix(char **out, const char *path)
{
	*out = NULL;
	dl_buf pre = DL_BUF_INIT;
	int rc = dl_buf_reserve(&pre, strlen(path) + 1);
	while (rc == 0 && *path) {
		const char *e = strchr(path, '/');
		size_t n = e ? (size_t)(e - path) : strlen(path);
		if (n) {
			rc = dl_buf_append(&pre, path, n);
			if (rc == 0) rc = dl_buf_putc(&pre, '/');
		}
		path += n + (e ? 1 : 0);
	}
	if (rc < 0) {
		dl_buf_free(&pre);
		return rc;
	}
	pre.data[pre.len] = 0;
	*out = dl_buf_detach(&pre, NULL);
	return *out ? 0 : DL_ENOMEM;
}
