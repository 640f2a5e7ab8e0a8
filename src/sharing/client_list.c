/* Listing shares, schemas and tables (PROTOCOL.md "List Shares" to "List
 * all Tables in a Share"), following nextPageToken until it is missing or
 * empty (both mean the end). A server that hands back the same token again
 * would loop for ever: that is refused. */
#include <curl/curl.h>
#include <string.h>
#include "json/json.h"
#include "sharing/client.h"
#include "util/error.h"
#include "util/mem.h"

/* More pages than any real listing has; a guard against a server that
 * never stops handing out new tokens. */
#define MAX_PAGES 100000

static int emit_items(const dl_json *items, const char *what, dl_sharing_item_fn fn, void *payload)
{
	if (!items || items->kind == DL_JSON_NULL) return 0; /* "may be missing" */
	if (items->kind != DL_JSON_ARRAY)
		return dl_error_set(DL_ECORRUPT, "%s: \"items\" is not an array", what);
	for (size_t i = 0; i < items->u.arr.n; i++) {
		const dl_json *it = &items->u.arr.items[i];
		dl_sharing_item item = {
			.name = dl_json_get_str(it, "name"),
			.share = dl_json_get_str(it, "share"),
			.schema = dl_json_get_str(it, "schema"),
			.id = dl_json_get_str(it, "id"),
			.share_id = dl_json_get_str(it, "shareId"),
		};
		if (it->kind != DL_JSON_OBJECT || !item.name)
			return dl_error_set(DL_ECORRUPT, "%s: item %zu has no \"name\"", what, i);
		int rc = fn(&item, payload);
		if (rc) return rc;
	}
	return 0;
}

static int list_pages(dl_sharing_client *c, const char *base, dl_sharing_item_fn fn, void *payload)
{
	char *token = NULL;
	int rc = 0;
	for (int page = 0; rc == 0; page++) {
		if (page == MAX_PAGES) {
			rc = dl_error_set(DL_ECORRUPT, "GET %s: more than %d pages; the server keeps returning "
			                  "nextPageToken", base, MAX_PAGES);
			break;
		}
		dl_buf url = DL_BUF_INIT;
		rc = dl_buf_puts(&url, base);
		if (rc == 0 && token) {
			char *e = curl_easy_escape(NULL, token, 0);
			rc = e ? dl_buf_printf(&url, "?pageToken=%s", e) : DL_ENOMEM;
			curl_free(e);
		}
		sh_request req = {.method = "GET", .url = url.data, .display = base, .auth = true};
		sh_response resp;
		if (rc == 0) rc = sh_http_send(&resp, c, &req);
		if (rc < 0) {
			dl_buf_free(&url);
			break;
		}
		if (resp.status != 200) {
			rc = sh_http_error(&resp, &req);
			sh_response_free(&resp);
			dl_buf_free(&url);
			break;
		}
		dl_arena a = DL_ARENA_INIT;
		dl_json *v;
		rc = dl_json_parse(&a, resp.body.data ? resp.body.data : "", resp.body.len, base, &v);
		if (rc == 0 && v->kind != DL_JSON_OBJECT)
			rc = dl_error_set(DL_ECORRUPT, "GET %s: the answer is not a JSON object", base);
		if (rc == 0) rc = emit_items(dl_json_get(v, "items"), base, fn, payload);
		const char *next = rc == 0 ? dl_json_get_str(v, "nextPageToken") : NULL;
		if (rc == 0 && next && next[0]) {
			if (token && strcmp(token, next) == 0)
				rc = dl_error_set(DL_ECORRUPT, "GET %s: the server returned the same nextPageToken "
				                  "twice", base);
			dl_free(token);
			token = dl_strdup(next);
			if (rc == 0 && !token) rc = DL_ENOMEM;
		} else {
			dl_free(token);
			token = NULL;
		}
		dl_arena_free(&a);
		sh_response_free(&resp);
		dl_buf_free(&url);
		if (!token) break;
	}
	dl_free(token);
	return rc;
}

static int list_at(dl_sharing_client *c, const char *share, const char *schema, const char *suffix,
                   dl_sharing_item_fn fn, void *payload)
{
	dl_buf base = DL_BUF_INIT;
	int rc = sh_url(&base, c, share, schema, NULL, suffix);
	if (rc == 0) rc = list_pages(c, base.data, fn, payload);
	dl_buf_free(&base);
	return rc;
}

int dl_sharing_list_shares(dl_sharing_client *c, dl_sharing_item_fn fn, void *payload)
{
	return list_at(c, NULL, NULL, NULL, fn, payload);
}

int dl_sharing_list_schemas(dl_sharing_client *c, const char *share, dl_sharing_item_fn fn,
                            void *payload)
{
	return list_at(c, share, NULL, "/schemas", fn, payload);
}

int dl_sharing_list_tables(dl_sharing_client *c, const char *share, const char *schema,
                           dl_sharing_item_fn fn, void *payload)
{
	return list_at(c, share, schema, "/tables", fn, payload);
}

int dl_sharing_list_all_tables(dl_sharing_client *c, const char *share, dl_sharing_item_fn fn,
                               void *payload)
{
	return list_at(c, share, NULL, "/all-tables", fn, payload);
}

int dl_sharing_get_share(dl_sharing_client *c, const char *share, dl_sharing_item_fn fn,
                         void *payload)
{
	dl_buf url = DL_BUF_INIT;
	int rc = sh_url(&url, c, share, NULL, NULL, NULL);
	sh_request req = {.method = "GET", .url = url.data, .display = url.data, .auth = true};
	sh_response resp;
	if (rc == 0) rc = sh_http_send(&resp, c, &req);
	if (rc == 0) {
		if (resp.status != 200) rc = sh_http_error(&resp, &req);
		dl_arena a = DL_ARENA_INIT;
		dl_json *v;
		if (rc == 0) rc = dl_json_parse(&a, resp.body.data ? resp.body.data : "", resp.body.len,
		                                url.data, &v);
		const dl_json *s = rc == 0 ? dl_json_get(v, "share") : NULL;
		if (rc == 0 && (!s || !dl_json_get_str(s, "name")))
			rc = dl_error_set(DL_ECORRUPT, "GET %s: no share.name in the answer", url.data);
		if (rc == 0) {
			dl_sharing_item it = {.name = dl_json_get_str(s, "name"), .id = dl_json_get_str(s, "id")};
			rc = fn(&it, payload);
		}
		dl_arena_free(&a);
		sh_response_free(&resp);
	}
	dl_buf_free(&url);
	return rc;
}

int dl_sharing_table_version(int64_t *out, dl_sharing_client *c, const char *share,
                             const char *schema, const char *table, const char *starting_timestamp)
{
	*out = -1;
	dl_buf url = DL_BUF_INIT;
	int rc = sh_url(&url, c, share, schema, table, "/version");
	if (rc == 0 && starting_timestamp) {
		char *e = curl_easy_escape(NULL, starting_timestamp, 0);
		rc = e ? dl_buf_printf(&url, "?startingTimestamp=%s", e) : DL_ENOMEM;
		curl_free(e);
	}
	sh_request req = {.method = "GET", .url = url.data, .display = url.data, .auth = true};
	sh_response resp;
	if (rc == 0) rc = sh_http_send(&resp, c, &req);
	if (rc == 0) {
		if (resp.status != 200) rc = sh_http_error(&resp, &req);
		else if (resp.table_version < 0)
			rc = dl_error_set(DL_ECORRUPT, "GET %s: no Delta-Table-Version header in the answer",
			                  url.data);
		else *out = resp.table_version;
		sh_response_free(&resp);
	}
	dl_buf_free(&url);
	return rc;
}
