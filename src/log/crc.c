/* Version checksum (.crc) files. */
#include "log/crc.h"
#include <string.h>
#include "json/json.h"
#include "log/protocol.h"
#include "util/error.h"
#include "util/mem.h"

static int required_long(const dl_json *root, const char *key, const char *what, int64_t *out)
{
	const dl_json *v = dl_json_get(root, key);
	if (!v || dl_json_int64(v, out) < 0)
		return dl_error_set(DL_ECORRUPT, "%s: %s is missing or not an integer", what, key);
	return 0;
}

static int parse_list(const dl_json *arr, dl_action_kind kind, dl_arena *arena, const char *what,
                      void **items, size_t *n, size_t elem)
{
	*items = NULL;
	*n = 0;
	if (!arr || arr->kind == DL_JSON_NULL) return 0;
	if (arr->kind != DL_JSON_ARRAY)
		return dl_error_set(DL_ECORRUPT, "%s: %s list must be an array", what,
		                    dl_action_kind_name(kind));
	if (!arr->u.arr.n) return 0;
	char *out = dl_arena_alloc(arena, arr->u.arr.n * elem);
	if (!out) return DL_ENOMEM;
	for (size_t i = 0; i < arr->u.arr.n; i++) {
		dl_action a;
		DL_TRY(dl_action_body_from_json(&a, kind, arena, &arr->u.arr.items[i], what));
		memcpy(out + i * elem, kind == DL_ACTION_TXN ? (void *)&a.u.txn : (void *)&a.u.domain_metadata,
		       elem);
	}
	*items = out;
	*n = arr->u.arr.n;
	return 0;
}

int dl_version_checksum_parse(dl_version_checksum *out, dl_arena *arena, const char *json,
                              size_t len, const char *what)
{
	memset(out, 0, sizeof *out);
	out->in_commit_timestamp = DL_NONE;
	dl_json *root;
	DL_TRY(dl_json_parse(arena, json, len, what, &root));
	if (root->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s: a version checksum must be a JSON object", what);
	DL_TRY(required_long(root, "tableSizeBytes", what, &out->table_size_bytes));
	DL_TRY(required_long(root, "numFiles", what, &out->num_files));
	int64_t nm, np;
	DL_TRY(required_long(root, "numMetadata", what, &nm));
	DL_TRY(required_long(root, "numProtocol", what, &np));
	if (nm != 1 || np != 1)
		return dl_error_set(DL_ECORRUPT, "%s: numMetadata and numProtocol must be 1", what);
	const dl_json *v = dl_json_get(root, "inCommitTimestampOpt");
	if (v && v->kind != DL_JSON_NULL && dl_json_int64(v, &out->in_commit_timestamp) < 0)
		return dl_error_set(DL_ECORRUPT, "%s: inCommitTimestampOpt is not an integer", what);
	dl_action a;
	DL_TRY(dl_action_body_from_json(&a, DL_ACTION_PROTOCOL, arena, dl_json_get(root, "protocol"), what));
	dl_protocol *p = dl_arena_alloc(arena, sizeof *p);
	if (!p) return DL_ENOMEM;
	*p = a.u.protocol;
	out->protocol = p;
	DL_TRY(dl_action_body_from_json(&a, DL_ACTION_METADATA, arena, dl_json_get(root, "metadata"), what));
	dl_metadata *m = dl_arena_alloc(arena, sizeof *m);
	if (!m) return DL_ENOMEM;
	*m = a.u.metadata;
	out->metadata = m;
	const dl_json *txns = dl_json_get(root, "setTransactions");
	const dl_json *doms = dl_json_get(root, "domainMetadata");
	out->has_txns = txns && txns->kind == DL_JSON_ARRAY;
	out->has_domains = doms && doms->kind == DL_JSON_ARRAY;
	DL_TRY(parse_list(txns, DL_ACTION_TXN, arena, what, (void **)&out->txns, &out->ntxns,
	                  sizeof(dl_txn)));
	return parse_list(doms, DL_ACTION_DOMAIN_METADATA, arena, what, (void **)&out->domains,
	                  &out->ndomains, sizeof(dl_domain_metadata));
}

int dl_version_checksum_read(dl_version_checksum *out, dl_arena *arena, dl_store *store,
                             const char *path)
{
	uint8_t *data;
	size_t len;
	memset(out, 0, sizeof *out);
	DL_TRY(dl_store_get(&data, &len, store, path));
	int rc = dl_version_checksum_parse(out, arena, (const char *)data, len, path);
	dl_free(data);
	return rc;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Maps compare as sets of pairs (writers may order keys differently). */
static bool same_map(const dl_str_map *a, const dl_str_map *b)
{
	if (a->n != b->n) return false;
	for (uint32_t i = 0; i < a->n; i++) {
		bool found;
		const char *v = dl_str_map_get(b, a->items[i].key, &found);
		if (!found || !same_str(v, a->items[i].value)) return false;
	}
	return true;
}

static bool same_metadata(const dl_metadata *a, const dl_metadata *b)
{
	if (!same_str(a->id, b->id) || !same_str(a->name, b->name) ||
	    !same_str(a->description, b->description) ||
	    !same_str(a->format_provider, b->format_provider) ||
	    !same_map(&a->format_options, &b->format_options) ||
	    !same_str(a->schema_string, b->schema_string) || a->created_time != b->created_time ||
	    a->npartition_columns != b->npartition_columns ||
	    !same_map(&a->configuration, &b->configuration))
		return false;
	for (uint32_t i = 0; i < a->npartition_columns; i++)
		if (!same_str(a->partition_columns[i], b->partition_columns[i])) return false;
	return true;
}

bool dl_version_checksum_matches(const dl_version_checksum *c, const dl_protocol *protocol,
                                 const dl_metadata *metadata, int64_t commit_ict)
{
	if (!c->protocol || !c->metadata || !protocol || !metadata) return false;
	if (commit_ict != DL_NONE && c->in_commit_timestamp != DL_NONE &&
	    c->in_commit_timestamp != commit_ict)
		return false;
	return dl_protocol_equal(c->protocol, protocol) && same_metadata(c->metadata, metadata);
}
