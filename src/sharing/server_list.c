/* The listing endpoints of PROTOCOL.md: shares, get share, schemas,
 * tables of a schema and all tables of a share, each with maxResults and
 * pageToken. The config is fixed while the server runs, so a page token is
 * the offset of the next item (opaque to clients: they only echo it);
 * a token that is not one we made is 400. Pages hold at most 1000 items
 * whatever maxResults asks, which PROTOCOL.md allows ("may return fewer"). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "sharing/server.h"
#include "util/error.h"

#define PAGE_MAX 1000

typedef struct page {
	size_t start, limit;
} page;

static int parse_page(page *out, dl_shr_request *req, dl_shr_response *resp, size_t total)
{
	out->start = 0;
	out->limit = PAGE_MAX;
	const char *mr = dl_shr_arg(req, "maxResults");
	if (mr) {
		char *e;
		errno = 0;
		long long v = strtoll(mr, &e, 10);
		if (!*mr || *e || errno || v < 0 || v > INT32_MAX) {
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE",
			             "maxResults must be a non-negative Int32, not '%s'", mr);
			return -1;
		}
		if (v < PAGE_MAX) out->limit = (size_t)v;
	}
	const char *pt = dl_shr_arg(req, "pageToken");
	if (pt && *pt) {
		char *e;
		errno = 0;
		unsigned long long v = strtoull(pt, &e, 10);
		if (*e || errno || pt[0] < '0' || pt[0] > '9' || v > total) {
			dl_shr_error(resp, 400, "INVALID_PARAMETER_VALUE", "pageToken is not valid");
			return -1;
		}
		out->start = (size_t)v;
	}
	return 0;
}

static void finish(dl_shr_response *resp, dl_json_writer *w, size_t next, size_t total)
{
	dl_jw_array_end(w);
	if (next < total) {
		char tok[32];
		snprintf(tok, sizeof tok, "%zu", next);
		dl_jw_key(w, "nextPageToken");
		dl_jw_string(w, tok);
	}
	dl_jw_object_end(w);
	if (dl_jw_finish(w) < 0) {
		dl_shr_error(resp, 500, "INTERNAL_ERROR", "could not write the response");
		return;
	}
	resp->content_type = "application/json; charset=utf-8";
}

void dl_shr_list_shares(dl_shr_request *req, dl_shr_response *resp)
{
	const dl_shr_config *c = &req->srv->config;
	size_t total = 0;
	for (size_t i = 0; i < c->nshares; i++)
		if (dl_shr_recipient_may_read(req->recipient, c->shares[i].name)) total++;
	page pg;
	if (parse_page(&pg, req, resp, total) < 0) return;
	dl_json_writer w;
	dl_jw_init(&w, &resp->body);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "items");
	dl_jw_array_begin(&w);
	size_t k = 0, next = pg.start;
	for (size_t i = 0; i < c->nshares; i++) {
		const dl_shr_share *s = &c->shares[i];
		if (!dl_shr_recipient_may_read(req->recipient, s->name)) continue;
		size_t idx = k++;
		if (idx < pg.start || idx >= pg.start + pg.limit) continue;
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "name");
		dl_jw_string(&w, s->name);
		if (s->id) {
			dl_jw_key(&w, "id");
			dl_jw_string(&w, s->id);
		}
		dl_jw_object_end(&w);
		next = idx + 1;
	}
	if (pg.limit == 0) next = pg.start;
	finish(resp, &w, next, total);
}

void dl_shr_get_share(dl_shr_request *req, dl_shr_response *resp, const dl_shr_share *s)
{
	(void)req;
	dl_json_writer w;
	dl_jw_init(&w, &resp->body);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "share");
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "name");
	dl_jw_string(&w, s->name);
	if (s->id) {
		dl_jw_key(&w, "id");
		dl_jw_string(&w, s->id);
	}
	dl_jw_object_end(&w);
	dl_jw_object_end(&w);
	if (dl_jw_finish(&w) < 0) {
		dl_shr_error(resp, 500, "INTERNAL_ERROR", "could not write the response");
		return;
	}
	resp->content_type = "application/json; charset=utf-8";
}

void dl_shr_list_schemas(dl_shr_request *req, dl_shr_response *resp, const dl_shr_share *s)
{
	page pg;
	if (parse_page(&pg, req, resp, s->nschemas) < 0) return;
	dl_json_writer w;
	dl_jw_init(&w, &resp->body);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "items");
	dl_jw_array_begin(&w);
	size_t next = pg.start;
	for (size_t i = pg.start; i < s->nschemas && i < pg.start + pg.limit; i++) {
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "name");
		dl_jw_string(&w, s->schemas[i].name);
		dl_jw_key(&w, "share");
		dl_jw_string(&w, s->name);
		dl_jw_object_end(&w);
		next = i + 1;
	}
	finish(resp, &w, next, s->nschemas);
}

/* One schema's tables, or (schema NULL) all the share's in config order. */
void dl_shr_list_tables(dl_shr_request *req, dl_shr_response *resp, const dl_shr_share *s,
                        const dl_shr_schema *schema)
{
	size_t total = 0;
	for (size_t i = 0; i < s->nschemas; i++)
		if (!schema || &s->schemas[i] == schema) total += s->schemas[i].ntables;
	page pg;
	if (parse_page(&pg, req, resp, total) < 0) return;
	dl_json_writer w;
	dl_jw_init(&w, &resp->body);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "items");
	dl_jw_array_begin(&w);
	size_t k = 0, next = pg.start;
	for (size_t i = 0; i < s->nschemas; i++) {
		const dl_shr_schema *sc = &s->schemas[i];
		if (schema && sc != schema) continue;
		for (size_t j = 0; j < sc->ntables; j++) {
			size_t idx = k++;
			if (idx < pg.start || idx >= pg.start + pg.limit) continue;
			const dl_shr_table *t = &sc->tables[j];
			dl_jw_object_begin(&w);
			dl_jw_key(&w, "name");
			dl_jw_string(&w, t->name);
			dl_jw_key(&w, "schema");
			dl_jw_string(&w, sc->name);
			dl_jw_key(&w, "share");
			dl_jw_string(&w, s->name);
			if (s->id) {
				dl_jw_key(&w, "shareId");
				dl_jw_string(&w, s->id);
			}
			if (t->id) {
				dl_jw_key(&w, "id");
				dl_jw_string(&w, t->id);
			}
			dl_jw_object_end(&w);
			next = idx + 1;
		}
	}
	finish(resp, &w, next, total);
}
