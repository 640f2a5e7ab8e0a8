/* GET /files/<token>: the data files behind the signed URLs of query and
 * changes (signed_url.c), streamed from the table's store.
 *
 * The token is the credential: its signature and expiry are checked first
 * (403 for an edited, forged or expired URL). The table it names must still
 * be in the config, and the file's location is confined again to that
 * table's root, lexically after normalization (storage/resolve.c's path
 * canonical form), before anything is opened. A single byte range
 * ("Range: bytes=A-B", "A-", "-N") is honored with 206, since readers such
 * as DuckDB's httpfs fetch Parquet footers that way. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "log/path.h"
#include "sharing/server.h"
#include "storage/path.h"
#include "storage/resolve.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

/* The location of a log path of the table at `root` (joined when relative),
 * DL_EPERM when it lies outside the root. */
int dl_shr_confine(char **location, const char *root, const char *path)
{
	*location = NULL;
	char *loc;
	if (dl_log_path_is_absolute(path)) loc = dl_strdup(path);
	else DL_TRY(dl_path_join(&loc, root, path));
	if (!loc) return DL_ENOMEM;
	char *rel;
	int rc = dl_shr_confine_rel(&rel, root, loc);
	if (rc < 0) {
		dl_free(loc);
		return rc;
	}
	dl_free(rel);
	*location = loc;
	return 0;
}

/* The path of `location` relative to `root`, both canonical, or DL_EPERM. */
int dl_shr_confine_rel(char **rel, const char *root, const char *location)
{
	*rel = NULL;
	char *cr = NULL, *cl = NULL;
	int rc = dl_path_canonical(&cr, root);
	if (rc == 0) rc = dl_path_canonical(&cl, location);
	if (rc == 0) {
		size_t n = strlen(cr);
		while (n > 0 && cr[n - 1] == '/') n--;
		if (strncmp(cl, cr, n) || cl[n] != '/' || !cl[n + 1]) rc = DL_EPERM;
		else {
			*rel = dl_strdup(cl + n + 1);
			if (!*rel) rc = DL_ENOMEM;
		}
	}
	dl_free(cr);
	dl_free(cl);
	if (rc == DL_EPERM || (rc < 0 && rc != DL_ENOMEM))
		return dl_error_set(DL_EPERM, "a file outside the table's location");
	return rc;
}

/* Parses one "bytes=" range against size; false when absent or unusable
 * (then the whole file is sent, as RFC 9110 allows for a bad range). */
static bool parse_range(const char *h, int64_t size, int64_t *from, int64_t *to, bool *unsatisfiable)
{
	*unsatisfiable = false;
	if (!h || strncmp(h, "bytes=", 6) || strchr(h, ',')) return false;
	const char *p = h + 6;
	char *e;
	errno = 0;
	if (*p == '-') {
		long long n = strtoll(p + 1, &e, 10);
		if (*e || errno || n <= 0 || p[1] < '0' || p[1] > '9') return false;
		*from = n >= size ? 0 : size - n;
		*to = size - 1;
	} else {
		if (*p < '0' || *p > '9') return false;
		long long a = strtoll(p, &e, 10);
		if (errno || *e != '-') return false;
		const char *q = e + 1;
		long long b = size - 1;
		if (*q) {
			if (*q < '0' || *q > '9') return false;
			b = strtoll(q, &e, 10);
			if (*e || errno || b < a) return false;
		}
		if (a >= size) {
			*unsatisfiable = true;
			return false;
		}
		*from = a;
		*to = b >= size ? size - 1 : b;
	}
	return size > 0;
}

void dl_shr_serve_file(dl_shr_request *req, dl_shr_response *resp, const char *token)
{
	dl_shr_server *srv = req->srv;
	dl_shr_signed_file sf;
	int rc = dl_shr_verify_file(&sf, &srv->signer, token, dl_now_millis());
	if (rc < 0) {
		dl_shr_error(resp, 403, "PERMISSION_DENIED", "%s",
		             rc == DL_EPERM ? dl_error_last()->message : "the file URL is not valid");
		return;
	}
	const dl_shr_share *share = dl_shr_config_share(&srv->config, sf.share);
	const dl_shr_schema *schema = share ? dl_shr_share_schema(share, sf.schema) : NULL;
	const dl_shr_table *table = schema ? dl_shr_schema_table(schema, sf.table) : NULL;
	char *rel = NULL, *loc = NULL;
	if (table && dl_path_join(&loc, table->location, sf.location) < 0) loc = NULL;
	if (!table || !loc || dl_shr_confine_rel(&rel, table->location, loc) < 0) {
		dl_free(loc);
		dl_shr_signed_file_free(&sf);
		dl_shr_error(resp, 403, "PERMISSION_DENIED", "the file is not shared");
		return;
	}
	dl_free(loc);
	dl_shr_signed_file_free(&sf);
	dl_store *store = NULL;
	dl_store_reader *reader = NULL;
	rc = dl_store_open(&store, table->location, NULL);
	if (rc == 0) rc = dl_store_reader_open(&reader, store, rel);
	dl_free(rel);
	if (rc < 0) {
		if (reader) dl_store_reader_close(reader);
		dl_store_free(store);
		if (rc == DL_ENOTFOUND)
			dl_shr_error(resp, 404, "RESOURCE_DOES_NOT_EXIST", "the file no longer exists");
		else dl_shr_error(resp, 500, "INTERNAL_ERROR", "the file could not be read");
		return;
	}
	int64_t size = dl_store_reader_size(reader);
	int64_t from = 0, to = size - 1;
	bool bad;
	bool ranged = parse_range(dl_shr_header(req, "Range"), size, &from, &to, &bad);
	if (bad) {
		dl_store_reader_close(reader);
		dl_store_free(store);
		char cr[48];
		snprintf(cr, sizeof cr, "bytes */%" PRId64, size);
		dl_shr_error(resp, 416, "INVALID_PARAMETER_VALUE", "the range is past the end of the file");
		dl_shr_response_header(resp, "Content-Range", cr);
		return;
	}
	resp->content_type = "application/octet-stream";
	dl_shr_response_header(resp, "Accept-Ranges", "bytes");
	if (ranged) {
		char cr[80];
		snprintf(cr, sizeof cr, "bytes %" PRId64 "-%" PRId64 "/%" PRId64, from, to, size);
		dl_shr_response_header(resp, "Content-Range", cr);
		resp->status = 206;
	}
	if (dl_shr_response_stream(resp, store, reader, from, to - from + 1) < 0) {
		dl_store_reader_close(reader);
		dl_store_free(store);
		dl_shr_error(resp, 500, "INTERNAL_ERROR", "out of memory");
	}
}
