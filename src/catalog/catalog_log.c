/* The catalog log. Rule (docs/CATALOG.md "Atomicity"):
 *
 *   The catalog is the replay of _catalog/_log/<20-digit version>.json,
 *   versions 0, 1, 2... with no gap; each object holds one change (one
 *   JSON object). A change is decided against the state at version N and
 *   written as version N+1 with put-if-absent. When N+1 already exists
 *   another process changed the catalog first: re-read, decide again on
 *   the newer state (a CREATE of a name the winner took now fails with
 *   TABLE_OR_VIEW_ALREADY_EXISTS; a DROP of a name the winner dropped with
 *   TABLE_OR_VIEW_NOT_FOUND). So racing changes are serialized by the
 *   store's put-if-absent exactly as Delta commits are: exactly one of
 *   two racing CREATEs of a name wins, a registration once written is
 *   never overwritten (no lost registration), and every reader sees the
 *   state at some version (listings are consistent).
 *
 *   Every written change applies to the state it was decided on, so a
 *   change that does not apply on replay (a table created twice, a drop
 *   of an unknown entry) is a corrupt log, reported with its file.
 *
 * Checkpoints bound what a new handle reads: whoever commits a version
 * that is a multiple of CHECKPOINT_INTERVAL then writes
 * <version>.checkpoint.json, the whole state after it (put-if-absent: the
 * state at a version is the same for every writer, so the first copy is
 * as good as any; a failure to write one is not an error). A handle with
 * no state starts from the newest checkpoint and applies the versions
 * after it; versions are never deleted, so the log stays readable without
 * checkpoints. Other objects (in-flight temp files starting with '.') are
 * skipped. */
#include "catalog/catalog_log.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

/* Attempts before giving up under contention: each lost race means
 * another change was committed, so this bounds only pathological
 * starvation. */
#define MAX_ATTEMPTS 10000
#define CHECKPOINT_INTERVAL 100

static const char *const op_names[] = {
	[DL_CAT_CREATE_SCHEMA] = "createSchema",
	[DL_CAT_DROP_SCHEMA] = "dropSchema",
	[DL_CAT_CREATE_TABLE] = "createTable",
	[DL_CAT_ACTIVATE_TABLE] = "activateTable",
	[DL_CAT_DROP_TABLE] = "dropTable",
	[DL_CAT_RENAME_TABLE] = "renameTable",
	[DL_CAT_SET_LOCATION] = "setTableLocation",
};

void dl_cat_state_init(dl_cat_state *st)
{
	memset(st, 0, sizeof *st);
	st->version = -1;
}

static void table_free(dl_cat_table *t)
{
	dl_free(t->schema);
	dl_free(t->name);
	dl_free(t->entry_id);
	dl_free(t->location);
	dl_free(t->table_id);
}

void dl_cat_state_free(dl_cat_state *st)
{
	for (size_t i = 0; i < st->nschemas; i++) dl_free(st->schemas[i]);
	dl_free(st->schemas);
	for (size_t i = 0; i < st->ntables; i++) table_free(&st->tables[i]);
	dl_free(st->tables);
	dl_cat_state_init(st);
}

bool dl_cat_has_schema(const dl_cat_state *st, const char *schema)
{
	if (strcmp(schema, "default") == 0) return true;
	for (size_t i = 0; i < st->nschemas; i++)
		if (strcmp(st->schemas[i], schema) == 0) return true;
	return false;
}

static dl_cat_table *find_table(const dl_cat_state *st, const char *schema, const char *name)
{
	for (size_t i = 0; i < st->ntables; i++)
		if (strcmp(st->tables[i].schema, schema) == 0 && strcmp(st->tables[i].name, name) == 0)
			return &st->tables[i];
	return NULL;
}

const dl_cat_table *dl_cat_find_table(const dl_cat_state *st, const char *schema,
                                      const char *name)
{
	return find_table(st, schema, name);
}

static int corrupt(const char *path, const char *what, const dl_cat_change *c)
{
	return dl_error_set(DL_ECORRUPT,
	                    "catalog log %s: %s (%s of %s%s%s) does not apply to the catalog before "
	                    "it; the catalog log was modified outside this library",
	                    path, what, op_names[c->op], c->schema ? c->schema : "",
	                    c->table ? "." : "", c->table ? c->table : "");
}

static char *dup_or_null(const char *s, bool *oom)
{
	if (!s) return NULL;
	char *d = dl_strdup(s);
	if (!d) *oom = true;
	return d;
}

/* The state after change `c` (of the object `path`, for errors). */
static int apply(dl_cat_state *st, const dl_cat_change *c, const char *path)
{
	dl_cat_table *t = c->table ? find_table(st, c->schema, c->table) : NULL;
	switch (c->op) {
	case DL_CAT_CREATE_SCHEMA: {
		if (dl_cat_has_schema(st, c->schema)) return corrupt(path, "schema exists", c);
		if (st->nschemas == st->schemas_cap) {
			size_t cap = st->schemas_cap ? st->schemas_cap * 2 : 8;
			char **n = dl_reallocarray(st->schemas, cap, sizeof *n);
			if (!n) return DL_ENOMEM;
			st->schemas = n;
			st->schemas_cap = cap;
		}
		char *s = dl_strdup(c->schema);
		if (!s) return DL_ENOMEM;
		st->schemas[st->nschemas++] = s;
		return 0;
	}
	case DL_CAT_DROP_SCHEMA: {
		size_t i = 0;
		while (i < st->nschemas && strcmp(st->schemas[i], c->schema) != 0) i++;
		if (i == st->nschemas) return corrupt(path, "no such schema", c);
		dl_free(st->schemas[i]);
		st->schemas[i] = st->schemas[--st->nschemas];
		size_t k = 0;
		for (size_t j = 0; j < st->ntables; j++) {
			if (strcmp(st->tables[j].schema, c->schema) == 0) table_free(&st->tables[j]);
			else st->tables[k++] = st->tables[j];
		}
		st->ntables = k;
		return 0;
	}
	case DL_CAT_CREATE_TABLE: {
		if (!dl_cat_has_schema(st, c->schema)) return corrupt(path, "no such schema", c);
		if (t) return corrupt(path, "table exists", c);
		if (!c->entry_id || !c->location) return corrupt(path, "entry id or location missing", c);
		if (st->ntables == st->tables_cap) {
			size_t cap = st->tables_cap ? st->tables_cap * 2 : 16;
			dl_cat_table *n = dl_reallocarray(st->tables, cap, sizeof *n);
			if (!n) return DL_ENOMEM;
			st->tables = n;
			st->tables_cap = cap;
		}
		bool oom = false;
		dl_cat_table nt = {
			.schema = dup_or_null(c->schema, &oom),
			.name = dup_or_null(c->table, &oom),
			.entry_id = dup_or_null(c->entry_id, &oom),
			.location = dup_or_null(c->location, &oom),
			.external = c->external,
		};
		if (oom) {
			table_free(&nt);
			return DL_ENOMEM;
		}
		st->tables[st->ntables++] = nt;
		return 0;
	}
	case DL_CAT_ACTIVATE_TABLE: {
		if (!t || !c->entry_id || strcmp(t->entry_id, c->entry_id) != 0 || t->active || !c->table_id)
			return corrupt(path, "no such entry being created", c);
		t->table_id = dl_strdup(c->table_id);
		if (!t->table_id) return DL_ENOMEM;
		t->active = true;
		return 0;
	}
	case DL_CAT_DROP_TABLE: {
		if (!t || !c->entry_id || strcmp(t->entry_id, c->entry_id) != 0)
			return corrupt(path, "no such entry", c);
		table_free(t);
		*t = st->tables[--st->ntables];
		return 0;
	}
	case DL_CAT_RENAME_TABLE: {
		if (!t || !c->entry_id || strcmp(t->entry_id, c->entry_id) != 0 || !t->active)
			return corrupt(path, "no such active entry", c);
		if (!c->to_table || find_table(st, c->schema, c->to_table))
			return corrupt(path, "the new name is missing or taken", c);
		char *n = dl_strdup(c->to_table);
		if (!n) return DL_ENOMEM;
		dl_free(t->name);
		t->name = n;
		return 0;
	}
	case DL_CAT_SET_LOCATION: {
		if (!t || !c->entry_id || strcmp(t->entry_id, c->entry_id) != 0 || !t->active)
			return corrupt(path, "no such active entry", c);
		if (!c->location || !c->table_id) return corrupt(path, "location or table id missing", c);
		char *l = dl_strdup(c->location), *id = dl_strdup(c->table_id);
		if (!l || !id) {
			dl_free(l);
			dl_free(id);
			return DL_ENOMEM;
		}
		dl_free(t->location);
		dl_free(t->table_id);
		t->location = l;
		t->table_id = id;
		return 0;
	}
	}
	return corrupt(path, "unknown change", c);
}

static int parse_change(dl_cat_change *c, dl_arena *arena, const uint8_t *data, size_t len,
                        const char *path)
{
	dl_json *v;
	DL_TRY(dl_json_parse(arena, (const char *)data, len, path, &v));
	memset(c, 0, sizeof *c);
	const char *op = v->kind == DL_JSON_OBJECT ? dl_json_get_str(v, "op") : NULL;
	size_t i = 0;
	while (op && i < sizeof op_names / sizeof op_names[0] && strcmp(op_names[i], op) != 0) i++;
	if (!op || i == sizeof op_names / sizeof op_names[0])
		return dl_error_set(DL_ECORRUPT, "catalog log %s: not a catalog change (op \"%s\")",
		                    path, op ? op : "missing");
	c->op = (dl_cat_op)i;
	c->schema = dl_json_get_str(v, "schema");
	c->table = dl_json_get_str(v, "table");
	c->entry_id = dl_json_get_str(v, "entryId");
	c->location = dl_json_get_str(v, "location");
	c->table_id = dl_json_get_str(v, "tableId");
	c->to_table = dl_json_get_str(v, "toTable");
	const char *type = dl_json_get_str(v, "type");
	c->external = type && strcmp(type, "EXTERNAL") == 0;
	bool needs_table = c->op >= DL_CAT_CREATE_TABLE;
	if (!c->schema || (needs_table && !c->table))
		return dl_error_set(DL_ECORRUPT, "catalog log %s: %s without %s", path, op,
		                    c->schema ? "table" : "schema");
	return 0;
}

static int serialize(dl_buf *out, const dl_cat_change *c)
{
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "op");
	dl_jw_string(&w, op_names[c->op]);
	dl_jw_key(&w, "schema");
	dl_jw_string(&w, c->schema);
	if (c->table) {
		dl_jw_key(&w, "table");
		dl_jw_string(&w, c->table);
	}
	if (c->entry_id) {
		dl_jw_key(&w, "entryId");
		dl_jw_string(&w, c->entry_id);
	}
	if (c->op == DL_CAT_CREATE_TABLE) {
		dl_jw_key(&w, "type");
		dl_jw_string(&w, c->external ? "EXTERNAL" : "MANAGED");
	}
	if (c->location) {
		dl_jw_key(&w, "location");
		dl_jw_string(&w, c->location);
	}
	if (c->table_id) {
		dl_jw_key(&w, "tableId");
		dl_jw_string(&w, c->table_id);
	}
	if (c->to_table) {
		dl_jw_key(&w, "toTable");
		dl_jw_string(&w, c->to_table);
	}
	dl_jw_key(&w, "timestamp");
	dl_jw_int(&w, dl_now_millis());
	dl_jw_object_end(&w);
	DL_TRY(dl_jw_finish(&w));
	return dl_buf_putc(out, '\n');
}

static void version_path(char out[64], int64_t v)
{
	snprintf(out, 64, DL_CAT_LOG_DIR "/%020lld.json", (long long)v);
}

/* The version a log object name stands for, or -1 when it is not one. */
static int64_t version_of(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	int64_t v = 0;
	for (int i = 0; i < 20; i++) {
		if (!isdigit((unsigned char)name[i])) return -1;
		v = v * 10 + (name[i] - '0');
	}
	return strcmp(name + 20, ".json") == 0 ? v : -1;
}

/* The version of a checkpoint object name, or -1. */
static int64_t checkpoint_of(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	int64_t v = 0;
	for (int i = 0; i < 20; i++) {
		if (!isdigit((unsigned char)name[i])) return -1;
		v = v * 10 + (name[i] - '0');
	}
	return strcmp(name + 20, ".checkpoint.json") == 0 ? v : -1;
}

static void checkpoint_path(char out[80], int64_t v)
{
	snprintf(out, 80, DL_CAT_LOG_DIR "/%020lld.checkpoint.json", (long long)v);
}

/* The state as a checkpoint: {"version":N,"schemas":[...],"tables":[...]}. */
static int serialize_state(dl_buf *out, const dl_cat_state *st)
{
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "version");
	dl_jw_int(&w, st->version);
	dl_jw_key(&w, "schemas");
	dl_jw_array_begin(&w);
	for (size_t i = 0; i < st->nschemas; i++) dl_jw_string(&w, st->schemas[i]);
	dl_jw_array_end(&w);
	dl_jw_key(&w, "tables");
	dl_jw_array_begin(&w);
	for (size_t i = 0; i < st->ntables; i++) {
		const dl_cat_table *t = &st->tables[i];
		dl_jw_object_begin(&w);
		dl_jw_key(&w, "schema");
		dl_jw_string(&w, t->schema);
		dl_jw_key(&w, "table");
		dl_jw_string(&w, t->name);
		dl_jw_key(&w, "entryId");
		dl_jw_string(&w, t->entry_id);
		dl_jw_key(&w, "type");
		dl_jw_string(&w, t->external ? "EXTERNAL" : "MANAGED");
		dl_jw_key(&w, "location");
		dl_jw_string(&w, t->location);
		if (t->table_id) {
			dl_jw_key(&w, "tableId");
			dl_jw_string(&w, t->table_id);
		}
		dl_jw_object_end(&w);
	}
	dl_jw_array_end(&w);
	dl_jw_object_end(&w);
	DL_TRY(dl_jw_finish(&w));
	return dl_buf_putc(out, '\n');
}

/* st (empty) becomes the state of the checkpoint at `path`. */
static int load_checkpoint(dl_cat_state *st, dl_store *s, const char *path, int64_t version)
{
	uint8_t *data;
	size_t len;
	DL_TRY(dl_store_get(&data, &len, s, path));
	dl_arena arena = DL_ARENA_INIT;
	dl_json *v;
	int rc = dl_json_parse(&arena, (const char *)data, len, path, &v);
	dl_free(data);
	const dl_json *schemas = rc == 0 ? dl_json_get(v, "schemas") : NULL;
	const dl_json *tables = rc == 0 ? dl_json_get(v, "tables") : NULL;
	int64_t cv = -1;
	if (rc == 0 && (!schemas || schemas->kind != DL_JSON_ARRAY || !tables ||
	                tables->kind != DL_JSON_ARRAY || !dl_json_get(v, "version") ||
	                dl_json_int64(dl_json_get(v, "version"), &cv) < 0 || cv != version))
		rc = dl_error_set(DL_ECORRUPT, "catalog checkpoint %s: not a checkpoint of version %lld",
		                  path, (long long)version);
	for (size_t i = 0; rc == 0 && i < schemas->u.arr.n; i++) {
		const dl_json *e = &schemas->u.arr.items[i];
		dl_cat_change c = {.op = DL_CAT_CREATE_SCHEMA,
		                   .schema = e->kind == DL_JSON_STRING ? e->u.str.ptr : NULL};
		rc = c.schema ? apply(st, &c, path)
		              : dl_error_set(DL_ECORRUPT, "catalog checkpoint %s: a schema is not a string",
		                             path);
	}
	for (size_t i = 0; rc == 0 && i < tables->u.arr.n; i++) {
		const dl_json *e = &tables->u.arr.items[i];
		const char *type = dl_json_get_str(e, "type");
		dl_cat_change c = {.op = DL_CAT_CREATE_TABLE,
		                   .schema = dl_json_get_str(e, "schema"),
		                   .table = dl_json_get_str(e, "table"),
		                   .entry_id = dl_json_get_str(e, "entryId"),
		                   .location = dl_json_get_str(e, "location"),
		                   .external = type && strcmp(type, "EXTERNAL") == 0};
		if (!c.schema || !c.table) {
			rc = dl_error_set(DL_ECORRUPT, "catalog checkpoint %s: a table without a name", path);
			break;
		}
		rc = apply(st, &c, path);
		c.op = DL_CAT_ACTIVATE_TABLE;
		c.table_id = dl_json_get_str(e, "tableId");
		if (rc == 0 && c.table_id) rc = apply(st, &c, path);
	}
	dl_arena_free(&arena);
	if (rc == 0) st->version = version;
	else dl_cat_state_free(st);
	return rc;
}

/* After committing version st->version: its checkpoint when due (best
 * effort: a reader without it reads more versions, nothing else). */
static void maybe_checkpoint(const dl_cat_state *st, dl_store *s)
{
	if (st->version <= 0 || st->version % CHECKPOINT_INTERVAL != 0) return;
	dl_buf b = DL_BUF_INIT;
	char path[80];
	checkpoint_path(path, st->version);
	if (serialize_state(&b, st) < 0 || dl_store_put_if_absent(s, path, b.data, b.len) < 0)
		dl_error_clear();
	dl_buf_free(&b);
}

int dl_cat_refresh(dl_cat_state *st, dl_store *s)
{
	char start[64];
	version_path(start, st->version + 1);
	dl_object_list l = {NULL, 0};
	/* A new handle lists the whole log to find the newest checkpoint. */
	DL_TRY(dl_store_list_from(&l, s, DL_CAT_LOG_DIR,
	                          st->version < 0 ? NULL : start + sizeof DL_CAT_LOG_DIR));
	int rc = 0;
	if (st->version < 0) {
		int64_t best = -1;
		size_t at = 0;
		for (size_t i = 0; i < l.count; i++) {
			int64_t v = checkpoint_of(l.items[i].path);
			if (v > best) {
				best = v;
				at = i;
			}
		}
		if (best >= 0) rc = load_checkpoint(st, s, l.items[at].path, best);
	}
	dl_arena arena;
	memset(&arena, 0, sizeof arena);
	for (size_t i = 0; i < l.count && rc == 0; i++) {
		int64_t v = version_of(l.items[i].path);
		if (v < 0 || v <= st->version) continue;
		if (v != st->version + 1) {
			rc = dl_error_set(DL_ECORRUPT,
			                  "catalog log of %s: version %lld follows %lld (a version is "
			                  "missing)",
			                  dl_store_root(s), (long long)v, (long long)st->version);
			break;
		}
		uint8_t *data;
		size_t len;
		rc = dl_store_get(&data, &len, s, l.items[i].path);
		dl_cat_change c;
		if (rc == 0) {
			rc = parse_change(&c, &arena, data, len, l.items[i].path);
			dl_free(data);
		}
		if (rc == 0) rc = apply(st, &c, l.items[i].path);
		if (rc == 0) st->version = v;
		dl_arena_reset(&arena);
	}
	dl_arena_free(&arena);
	dl_object_list_free(&l);
	if (rc < 0) dl_error_prefix("reading the catalog of %s", dl_store_root(s));
	return rc;
}

int dl_cat_commit(dl_cat_state *st, dl_store *s, dl_cat_change_fn fn, void *payload)
{
	dl_buf entry = DL_BUF_INIT;
	int rc = 0;
	for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		rc = dl_cat_refresh(st, s);
		dl_cat_change c;
		if (rc == 0) rc = fn(&c, st, payload);
		if (rc != 0) break;
		dl_buf_clear(&entry);
		rc = serialize(&entry, &c);
		char path[64];
		version_path(path, st->version + 1);
		if (rc == 0) rc = dl_store_put_if_absent(s, path, entry.data, entry.len);
		if (rc == DL_EEXISTS) {
			dl_error_clear();
			rc = 0;
			continue; /* lost the race: decide again on the newer state */
		}
		if (rc == 0) rc = apply(st, &c, path);
		if (rc == 0) {
			st->version++;
			maybe_checkpoint(st, s);
		}
		dl_buf_free(&entry);
		return rc;
	}
	dl_buf_free(&entry);
	if (rc == 0)
		rc = dl_error_set(DL_ECONFLICT, "catalog of %s: gave up after %d attempts lost to "
		                                "concurrent catalog changes",
		                  dl_store_root(s), MAX_ATTEMPTS);
	return rc;
}
