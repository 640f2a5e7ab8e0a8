/* The shared steps of every ALTER TABLE form (see alter_txn.h). */
#include "alter/alter_txn.h"
#include <string.h>
#include <strings.h>
#include "log/schema.h"
#include "ops/create.h"
#include "ops/protocol_choose.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/options.h"

static const size_t alter_options_ends[] = {
	sizeof(dl_alter_options), /* 1 */
};
DL_OPTIONS_ENDS_CHECK(alter_options_ends, DL_ALTER_OPTIONS_VERSION);

int dl_alter_open(dl_alter_txn *a, const char *uri, const dl_alter_options *opts)
{
	memset(a, 0, sizeof *a);
	dl_alter_options defaults = DL_ALTER_OPTIONS_INIT;
	a->opts = defaults;
	DL_TRY(dl_options_load(&a->opts, opts, alter_options_ends, DL_ALTER_OPTIONS_VERSION,
	                       "dl_alter_options", "DL_ALTER_OPTIONS_INIT"));
	if (a->opts.store) {
		a->store = a->opts.store;
	} else {
		if (!uri || !*uri) return dl_error_set(DL_EINVALID, "ALTER TABLE: no table uri and no store");
		DL_TRY(dl_store_open(&a->store, uri, a->opts.store_options));
		a->owns_store = true;
	}
	a->uri = uri && *uri ? uri : dl_store_root(a->store);
	return dl_alter_refresh(a);
}

int dl_alter_refresh(dl_alter_txn *a)
{
	dl_txn_free(a->txn);
	a->txn = NULL;
	dl_snapshot_free(a->snap);
	a->snap = NULL;
	DL_TRY(dl_ops_open_latest(&a->snap, a->store));
	/* Spark's notADeltaTableException for a path without a Delta log */
	if (!a->snap)
		return dl_error_set_class(DL_ENOTFOUND, "DELTA_MISSING_DELTA_TABLE", "%s is not a Delta table.",
		                          a->uri);
	return 0;
}

int dl_alter_start(dl_alter_txn *a, const char *operation)
{
	dl_txn_free(a->txn);
	a->txn = NULL;
	a->operation = operation;
	dl_txn_options to = DL_TXN_OPTIONS_INIT;
	to.operation = operation;
	to.user_metadata = a->opts.user_metadata;
	DL_TRY(dl_txn_begin(&a->txn, a->store, a->snap, &to));
	/* Shallow copies: unchanged strings stay the snapshot's, which outlives
	 * the transaction; the setters put new ones in the arena. */
	a->md = *dl_alter_read_metadata(a);
	a->proto = *dl_alter_read_protocol(a);
	a->md_changed = a->proto_changed = false;
	return 0;
}

int dl_alter_begin(dl_alter_txn *a, const char *operation, const char *uri,
                   const dl_alter_options *opts)
{
	DL_TRY(dl_alter_open(a, uri, opts));
	return dl_alter_start(a, operation);
}

int dl_alter_set_schema(dl_alter_txn *a, const dl_type *schema)
{
	if (schema->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_EINVALID, "%s: the schema must be a struct", a->operation);
	dl_buf b = DL_BUF_INIT;
	int rc = dl_schema_to_json(&b, schema);
	char *s = rc == 0 ? dl_arena_strndup(&a->arena, b.data, b.len) : NULL;
	dl_buf_free(&b);
	if (rc < 0) return rc;
	if (!s) return DL_ENOMEM;
	a->md.schema_string = s;
	a->md_changed = true;
	return 0;
}

const char *dl_alter_config(const dl_alter_txn *a, const char *key)
{
	bool found;
	return dl_str_map_get(&a->md.configuration, key, &found);
}

int dl_alter_set_config(dl_alter_txn *a, const char *key, const char *value)
{
	const dl_str_map *old = &a->md.configuration;
	/* A fresh array per change keeps the snapshot's untouched; the few
	 * keys an ALTER sets make the copies cheap. Order is kept, a new key
	 * goes last. */
	dl_kv *items = dl_arena_calloc(&a->arena, old->n + 1, sizeof *items);
	if (!items) return DL_ENOMEM;
	uint32_t n = 0;
	bool done = false;
	for (uint32_t i = 0; i < old->n; i++) {
		if (strcmp(old->items[i].key, key) == 0) {
			done = true;
			if (!value) continue;
			items[n].key = old->items[i].key;
			items[n].value = dl_arena_strdup(&a->arena, value);
			if (!items[n++].value) return DL_ENOMEM;
			continue;
		}
		items[n++] = old->items[i];
	}
	if (!done && !value) return 0;
	if (!done) {
		items[n].key = dl_arena_strdup(&a->arena, key);
		items[n].value = dl_arena_strdup(&a->arena, value);
		if (!items[n].key || !items[n].value) return DL_ENOMEM;
		n++;
	}
	a->md.configuration.items = items;
	a->md.configuration.n = n;
	a->md_changed = true;
	return 0;
}

static int copy_list(dl_arena *ar, const char ***dst, const char *const *src, uint32_t n)
{
	*dst = NULL;
	if (!src) return 0;
	*dst = dl_arena_calloc(ar, n ? n : 1, sizeof **dst);
	if (!*dst) return DL_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (!((*dst)[i] = dl_arena_strdup(ar, src[i]))) return DL_ENOMEM;
	return 0;
}

int dl_alter_set_protocol(dl_alter_txn *a, const dl_protocol *p)
{
	dl_protocol c = *p;
	DL_TRY(copy_list(&a->arena, &c.reader_features, p->reader_features, p->nreader_features));
	DL_TRY(copy_list(&a->arena, &c.writer_features, p->writer_features, p->nwriter_features));
	a->proto = c;
	a->proto_changed = true;
	return 0;
}

int dl_alter_progress(dl_alter_txn *a, const char *phase, const char *unit, int64_t done,
                      int64_t total, int64_t rows)
{
	if (!a->opts.progress) return 0;
	dl_progress_info p = {"alter", phase, unit, done, total, rows, -1};
	if (a->opts.progress(&p, a->opts.progress_payload) == 0) return 0;
	return dl_error_set(DL_ECANCELLED, "%s cancelled by the progress callback (%s)",
	                    a->operation, phase);
}

/* Spark's updateMetadata: a new metaData that uses a feature the protocol
 * lacks (a TIMESTAMP_NTZ column added, a property that enables a feature)
 * upgrades the protocol in the same commit; never downgrades. */
static int upgrade_for_metadata(dl_alter_txn *a)
{
	dl_type *schema = NULL;
	const char *s = a->md.schema_string;
	DL_TRY(dl_schema_parse(&schema, s, strlen(s)));
	dl_protocol need;
	int rc = dl_ops_choose_protocol(&need, &a->arena, schema, &a->md.configuration, &a->proto);
	dl_type_unref(schema);
	if (rc < 0) return rc;
	if (dl_ops_protocol_equal(&need, &a->proto)) return 0;
	a->proto = need;
	a->proto_changed = true;
	return 0;
}

int dl_alter_commit(dl_alter_txn *a, int64_t *version)
{
	*version = -1;
	if (a->md_changed) DL_TRY(upgrade_for_metadata(a));
	if (a->proto_changed) DL_TRY(dl_txn_set_protocol(a->txn, &a->proto));
	if (a->md_changed) DL_TRY(dl_txn_set_metadata(a->txn, &a->md));
	int rc = dl_txn_commit(a->txn, version);
	if (rc < 0) *version = -1;
	return rc;
}

void dl_alter_end(dl_alter_txn *a)
{
	dl_txn_free(a->txn);
	dl_snapshot_free(a->snap);
	if (a->owns_store) dl_store_free(a->store);
	dl_arena_free(&a->arena);
	memset(a, 0, sizeof *a);
}
