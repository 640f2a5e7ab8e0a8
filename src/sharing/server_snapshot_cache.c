/* The server's snapshot cache: a replayed snapshot of a table version is
 * kept and lent to later requests instead of replaying the log again.
 *
 * Keyed by table location and version (several shared tables may have one
 * location; their partition filters apply after the snapshot). A snapshot
 * of an explicit version never changes. The latest is re-checked on every
 * request, cheaply: one listing of `_delta_log/` from the cached version's
 * commit, which must still be there with the size and modification time
 * it had when cached (a table deleted and written again starts over) and
 * must have no later commit after it; otherwise the new latest is replayed
 * (and when that commit changed, every entry of the location is dropped). Bounded by the config's deltaTableCacheSize
 * (the reference server's key: entries, default 10) and
 * snapshotCacheBytes (our key: bytes, default 256 MiB; 0 turns the cache
 * off), least recently used first out; the size of an entry is what its
 * replay allocated (arenas and file arrays). Entries are lent with a
 * reference count: one dropped while lent is freed by its last borrower.
 * Snapshots are read-only after replay, so requests on several threads
 * share one. Time travel by timestamp is not cached (the version is only
 * known after the replay). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "log/replay.h"
#include "log/snapshot.h"
#include "sharing/server.h"
#include "storage/backend.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct snap_entry {
	char *location;
	int64_t version;
	dl_snapshot *snap;
	size_t bytes;
	int refs;            /* borrowers */
	bool dropped;        /* out of the cache; freed when refs reaches 0 */
	bool was_latest;     /* cached as the latest: re-checked before each use as such */
	int64_t commit_size, commit_mtime; /* of the version's commit when cached */
	uint64_t used;       /* LRU tick */
} snap_entry;

struct dl_shr_snapshot_cache {
	pthread_mutex_t mu;
	snap_entry **items;  /* cached, and dropped ones still lent */
	size_t n, cap;
	size_t bytes, max_bytes, max_entries;
	uint64_t tick;
	uint64_t hits, misses;
};

int dl_shr_snapshot_cache_new(dl_shr_snapshot_cache **out, size_t max_entries, size_t max_bytes)
{
	*out = NULL;
	if (max_entries == 0 || max_bytes == 0) return 0; /* off */
	dl_shr_snapshot_cache *c = dl_calloc(1, sizeof *c);
	if (!c) return DL_ENOMEM;
	pthread_mutex_init(&c->mu, NULL);
	c->max_entries = max_entries;
	c->max_bytes = max_bytes;
	*out = c;
	return 0;
}

static void entry_free(snap_entry *e)
{
	dl_snapshot_free(e->snap);
	dl_free(e->location);
	dl_free(e);
}

void dl_shr_snapshot_cache_free(dl_shr_snapshot_cache *c)
{
	if (!c) return;
	for (size_t i = 0; i < c->n; i++) entry_free(c->items[i]);
	dl_free(c->items);
	pthread_mutex_destroy(&c->mu);
	dl_free(c);
}

void dl_shr_snapshot_cache_stats(const dl_shr_snapshot_cache *c, uint64_t *hits, uint64_t *misses,
                                 size_t *bytes)
{
	*hits = c ? c->hits : 0;
	*misses = c ? c->misses : 0;
	*bytes = c ? c->bytes : 0;
}

/* What the replay allocated: its arenas and the add chunks. */
static size_t snapshot_bytes(const dl_snapshot *s)
{
	const dl_log_state *st = dl_snapshot_state(s);
	size_t b = sizeof *s + st->arena.total;
	for (size_t i = 0; i < st->nblock_arenas; i++) b += st->block_arenas[i].total;
	b += st->nadd_chunks * (DL_ADD_CHUNK * sizeof(dl_add) + sizeof(dl_add *));
	b += st->removes_cap * sizeof(dl_remove);
	return b;
}

static void remove_at(dl_shr_snapshot_cache *c, size_t i)
{
	c->items[i] = c->items[--c->n];
}

/* Drops an entry from the cache (mu held): freed now or by its last borrower. */
static void drop(dl_shr_snapshot_cache *c, snap_entry *e)
{
	if (e->dropped) return;
	e->dropped = true;
	c->bytes -= e->bytes;
	if (e->refs > 0) return;
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i] == e) {
			remove_at(c, i);
			break;
		}
	entry_free(e);
}

static size_t live_count(const dl_shr_snapshot_cache *c)
{
	size_t k = 0;
	for (size_t i = 0; i < c->n; i++) k += !c->items[i]->dropped;
	return k;
}

/* Least recently used out until `need` more bytes and one more entry fit (mu held). */
static void make_room(dl_shr_snapshot_cache *c, size_t need)
{
	while (live_count(c) > 0 && (c->bytes + need > c->max_bytes || live_count(c) + 1 > c->max_entries)) {
		snap_entry *lru = NULL;
		for (size_t i = 0; i < c->n; i++)
			if (!c->items[i]->dropped && (!lru || c->items[i]->used < lru->used)) lru = c->items[i];
		drop(c, lru);
	}
}

static bool is_commit_name(const char *path, int64_t *v)
{
	const char *p = strrchr(path, '/');
	p = p ? p + 1 : path;
	if (strlen(p) != 25 || strcmp(p + 20, ".json") != 0) return false;
	int64_t x = 0;
	for (int i = 0; i < 20; i++) {
		if (p[i] < '0' || p[i] > '9') return false;
		x = x * 10 + (p[i] - '0');
	}
	*v = x;
	return true;
}

/* The size and mtime of commit `version` and whether a later commit exists:
 * one listing of the log from that commit. *found false when it is not
 * there. */
static int look_at_log(dl_store *st, int64_t version, bool *found, int64_t *size, int64_t *mtime,
                       bool *later)
{
	char name[32];
	snprintf(name, sizeof name, "%020" PRId64 ".json", version);
	dl_object_list l;
	DL_TRY(dl_store_list_from(&l, st, "_delta_log", name));
	*found = *later = false;
	for (size_t i = 0; i < l.count; i++) {
		int64_t v;
		if (!is_commit_name(l.items[i].path, &v)) continue;
		if (v == version) {
			*found = true;
			*size = l.items[i].size;
			*mtime = l.items[i].mtime_ms;
		} else if (v > version) {
			*later = true;
		}
	}
	dl_object_list_free(&l);
	return 0;
}

typedef enum latest_check { STILL_LATEST, MOVED_ON, REWRITTEN } latest_check;

/* Whether a cached latest snapshot is still the table's latest, or a later
 * commit came, or its own commit is gone or another file now (the table
 * was deleted and written again: no entry of it can be trusted). */
static latest_check check_latest(const snap_entry *e)
{
	bool found, later;
	int64_t size = -1, mtime = -1;
	if (look_at_log(dl_snapshot_store(e->snap), e->version, &found, &size, &mtime, &later) < 0) {
		dl_error_clear(); /* the replay that follows reports the problem */
		return REWRITTEN;
	}
	if (!found || size != e->commit_size || mtime != e->commit_mtime) return REWRITTEN;
	return later ? MOVED_ON : STILL_LATEST;
}

static snap_entry *find(dl_shr_snapshot_cache *c, const char *location, int64_t version, bool latest)
{
	snap_entry *best = NULL;
	for (size_t i = 0; i < c->n; i++) {
		snap_entry *e = c->items[i];
		if (e->dropped || strcmp(e->location, location) != 0) continue;
		if (latest ? e->was_latest && (!best || e->version > best->version) : e->version == version)
			best = e;
	}
	return best;
}

static int open_uncached(dl_snapshot **out, const dl_shr_table *t, int64_t version, int64_t timestamp_ms,
                         bool metadata_only)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.as_of_version = version;
	o.as_of_timestamp_ms = timestamp_ms;
	o.metadata_only = metadata_only;
	o.skip_tombstones = true;
	/* The table root is the only root: every file must lie inside it. */
	const char *roots[1] = {t->location};
	o.allowed_roots = roots;
	o.nallowed_roots = 1;
	return dl_snapshot_open(out, t->location, &o);
}

int dl_shr_open_snapshot(dl_snapshot **out, dl_shr_server *srv, const dl_shr_table *t, int64_t version,
                         int64_t timestamp_ms, bool metadata_only)
{
	*out = NULL;
	dl_shr_snapshot_cache *c = srv ? srv->snapshots : NULL;
	if (!c || timestamp_ms != DL_NO_TIMESTAMP) return open_uncached(out, t, version, timestamp_ms, metadata_only);
	bool latest = version < 0;
	pthread_mutex_lock(&c->mu);
	snap_entry *e = find(c, t->location, version, latest);
	if (e) e->refs++;
	pthread_mutex_unlock(&c->mu);
	/* the check lists the log: done without the lock */
	latest_check lc = e && latest ? check_latest(e) : STILL_LATEST;
	if (lc != STILL_LATEST) {
		pthread_mutex_lock(&c->mu);
		e->refs--;
		e->was_latest = false; /* moved on: still right for its version */
		for (size_t i = c->n; lc == REWRITTEN && i-- > 0;)
			if (!c->items[i]->dropped && strcmp(c->items[i]->location, t->location) == 0) drop(c, c->items[i]);
		pthread_mutex_unlock(&c->mu);
		e = NULL;
	}
	if (e) {
		pthread_mutex_lock(&c->mu);
		e->used = ++c->tick;
		c->hits++;
		pthread_mutex_unlock(&c->mu);
		*out = e->snap;
		return 0;
	}
	/* A request for the metadata only does not pay for a full replay. */
	if (metadata_only) return open_uncached(out, t, version, timestamp_ms, true);
	dl_snapshot *snap;
	DL_TRY(open_uncached(&snap, t, version, DL_NO_TIMESTAMP, false));
	pthread_mutex_lock(&c->mu);
	c->misses++;
	pthread_mutex_unlock(&c->mu);
	int64_t v = dl_snapshot_version(snap);
	size_t bytes = snapshot_bytes(snap);
	bool found = false, later = false;
	int64_t size = -1, mtime = -1;
	/* Cached only with the commit it can be re-checked against. */
	if (bytes > c->max_bytes || look_at_log(dl_snapshot_store(snap), v, &found, &size, &mtime, &later) < 0 ||
	    !found) {
		dl_error_clear();
		*out = snap;
		return 0;
	}
	snap_entry *ne = dl_calloc(1, sizeof *ne);
	char *loc = dl_strdup(t->location);
	pthread_mutex_lock(&c->mu);
	snap_entry *same = find(c, t->location, v, false); /* another request cached it meanwhile */
	if (ne && loc && !same && c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		snap_entry **items = dl_reallocarray(c->items, cap, sizeof *items);
		if (items) c->items = items, c->cap = cap;
	}
	if (!ne || !loc || same || c->n == c->cap) {
		pthread_mutex_unlock(&c->mu);
		dl_free(ne);
		dl_free(loc);
		*out = snap;
		return 0;
	}
	make_room(c, bytes);
	*ne = (snap_entry){.location = loc, .version = v, .snap = snap, .bytes = bytes, .refs = 1,
	                   .was_latest = latest && !later, .commit_size = size, .commit_mtime = mtime,
	                   .used = ++c->tick};
	c->items[c->n++] = ne;
	c->bytes += bytes;
	pthread_mutex_unlock(&c->mu);
	*out = snap;
	return 0;
}

void dl_shr_release_snapshot(dl_shr_server *srv, dl_snapshot *snap)
{
	if (!snap) return;
	dl_shr_snapshot_cache *c = srv ? srv->snapshots : NULL;
	if (c) {
		pthread_mutex_lock(&c->mu);
		for (size_t i = 0; i < c->n; i++) {
			snap_entry *e = c->items[i];
			if (e->snap != snap) continue;
			e->refs--;
			if (e->dropped && e->refs == 0) {
				remove_at(c, i);
				entry_free(e);
			}
			pthread_mutex_unlock(&c->mu);
			return;
		}
		pthread_mutex_unlock(&c->mu);
	}
	dl_snapshot_free(snap);
}
