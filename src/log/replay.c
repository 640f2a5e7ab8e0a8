/* Newest-first log replay with a seen-set of file keys (file_key_set.c). */
#include "log/replay.h"
#include "log/file_key_set.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "json/json.h"
#include "log/add_scan.h"
#include "log/checkpoint_read.h"
#include "log/commit_block.h"
#include "log/crc.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/pool.h"
#include "util/mem.h"

struct dl_replayer {
	dl_log_state *st;
	const dl_replay_options *opts;
	dl_file_key_set seen; /* the newest action of every file key met so far */
	/* arena mark for rolling back a shadowed action */
	void *mark_head;
	char *mark_cur;
	bool in_checkpoint;
	bool version_commit; /* the file being read is the snapshot version's commit */
	bool commit_info_only; /* re-reading that commit only for its commitInfo */
	/* metadata-only, but txns and domains wanted too: no early stop */
	bool lists;
	dl_sidecar *sidecars;
	size_t nsidecars, sidecars_cap;
	/* app ids and domains already decided (keys borrowed from the state's
	 * arena), so hostile logs with 10^6 of them stay linear */
	dl_strmap txn_ids, domain_ids;
	/* The commit file being read and where its adds and removes start in
	 * the state: a key met twice inside one commit is a corrupt commit, not
	 * a newer action shadowing an older one (compactions and checkpoints
	 * are reconciled already and not checked). */
	const char *commit_path;
	size_t commit_adds, commit_removes;
	bool commit_check;
	int64_t log_version; /* dl_add.log_version of the adds being read */
};

/* ---- arena marks ---- */

dl_arena *dl_replay_arena(dl_replayer *r)
{
	return &r->st->arena;
}

bool dl_replay_metadata_only(const dl_replayer *r)
{
	return r->opts->metadata_only != 0;
}

bool dl_replay_wants_txns_domains(const dl_replayer *r)
{
	return !r->opts->metadata_only || r->lists;
}

void dl_replay_begin_action(dl_replayer *r)
{
	r->mark_head = r->st->arena.head;
	r->mark_cur = r->st->arena.cur;
}

static void rollback(dl_replayer *r)
{
	/* Only when no block was started since the mark; otherwise the few
	 * bytes stay allocated until the state is freed. */
	if (r->st->arena.head == r->mark_head && r->mark_cur) r->st->arena.cur = r->mark_cur;
}

/* ---- accepting actions ---- */

static int push_add(dl_replayer *r, const dl_add *a, uint32_t *ref)
{
	dl_log_state *st = r->st;
	if ((st->nadds >> DL_ADD_CHUNK_SHIFT) >= st->nadd_chunks) {
		/* chunk pointers array grows; the chunks never move */
		dl_add **nc = dl_reallocarray(st->add_chunks, st->nadd_chunks + 1, sizeof *nc);
		if (!nc) return DL_ENOMEM;
		st->add_chunks = nc;
		nc[st->nadd_chunks] = dl_malloc(DL_ADD_CHUNK * sizeof(dl_add));
		if (!nc[st->nadd_chunks]) return DL_ENOMEM;
		st->nadd_chunks++;
	}
	if (st->nadds >= (size_t)UINT32_MAX / 2 - 1)
		return dl_error_set(DL_ENOMEM, "the table has too many files for one snapshot");
	dl_add *dst = dl_log_state_add(st, st->nadds);
	*dst = *a;
	dst->log_version = r->log_version;
	*ref = (uint32_t)((st->nadds << 1) + 1);
	st->nadds++;
	st->total_size += a->size;
	return 0;
}

static int push_remove(dl_replayer *r, const dl_remove *rm, uint32_t *ref)
{
	dl_log_state *st = r->st;
	if (st->nremoves == st->removes_cap)
		DL_TRY(dl_vec_grow_(&st->removes, &st->removes_cap, st->nremoves, 1, sizeof *st->removes));
	st->removes[st->nremoves] = *rm;
	*ref = (uint32_t)((st->nremoves << 1) + 2);
	st->nremoves++;
	return 0;
}

static int offer_file_hashed(dl_replayer *r, const dl_action *a, uint64_t h);

static int offer_file(dl_replayer *r, const dl_action *a)
{
	bool is_add = a->kind == DL_ACTION_ADD;
	return offer_file_hashed(r, a, dl_file_key_hash(is_add ? a->u.add.path : a->u.remove.path,
	                                                is_add ? a->u.add.dv : a->u.remove.dv));
}

static int offer_file_hashed(dl_replayer *r, const dl_action *a, uint64_t h)
{
	bool is_add = a->kind == DL_ACTION_ADD;
	const char *path = is_add ? a->u.add.path : a->u.remove.path;
	const dl_dv_descriptor *dv = is_add ? a->u.add.dv : a->u.remove.dv;
	/* Checkpoint rows are already reconciled among themselves, so they are
	 * only checked against newer commits, not inserted. */
	size_t slot = 0;
	int seen = dl_fks_find(&r->seen, r->st, h, path, dv, &slot);
	if (seen < 0) return seen;
	if (seen && r->commit_check) {
		/* PROTOCOL.md "Add File and Remove File": a valid version has at
		 * most one add and one remove per (path, DV id); actions of a commit
		 * are unordered, so two of them for one key have no meaning */
		uint32_t ref = r->seen.slots[slot].ref;
		size_t idx = (ref - 1) >> 1;
		bool was_remove = (ref - 1) & 1;
		if (was_remove ? idx >= r->commit_removes : idx >= r->commit_adds)
			return dl_error_set(DL_ECORRUPT,
			                    "%s holds %s and %s of the same file %s%s%s: a commit may hold at most one add "
			                    "and one remove per file and deletion vector (PROTOCOL.md \"Add File and Remove "
			                    "File\")",
			                    r->commit_path, was_remove ? "a remove" : "an add", is_add ? "an add" : "a remove",
			                    path, dv ? " with deletion vector " : "", dv ? dv->path_or_inline : "");
	}
	/* Tombstones from commits are kept even when not wanted: they must
	 * shadow older adds. Checkpoint tombstones shadow nothing. */
	if (seen || (!is_add && r->in_checkpoint && r->opts->skip_tombstones)) {
		rollback(r);
		return 0;
	}
	uint32_t ref = 0;
	if (is_add) DL_TRY(push_add(r, &a->u.add, &ref));
	else DL_TRY(push_remove(r, &a->u.remove, &ref));
	if (!r->in_checkpoint) {
		dl_fks_set(&r->seen, slot, h, ref);
	}
	return 0;
}

/* Starts checking a file's actions as one commit's (is_commit) or not. */
static void begin_file(dl_replayer *r, const char *path, bool is_commit, int64_t version)
{
	if (r->commit_path == path) return; /* the next block of the same file */
	r->commit_path = path;
	r->log_version = version;
	r->commit_adds = r->st->nadds;
	r->commit_removes = r->st->nremoves;
	r->commit_check = is_commit;
}

static int offer_txn(dl_replayer *r, const dl_txn *t)
{
	dl_log_state *st = r->st;
	if (dl_strmap_find(&r->txn_ids, t->app_id, strlen(t->app_id), NULL)) {
		rollback(r);
		return 0;
	}
	DL_TRY(dl_strmap_put(&r->txn_ids, t->app_id, strlen(t->app_id), NULL, NULL));
	if (st->ntxns == st->txns_cap)
		DL_TRY(dl_vec_grow_(&st->txns, &st->txns_cap, st->ntxns, 1, sizeof *st->txns));
	st->txns[st->ntxns++] = *t;
	return 0;
}

static int offer_domain(dl_replayer *r, const dl_domain_metadata *d)
{
	dl_log_state *st = r->st;
	if (dl_strmap_find(&r->domain_ids, d->domain, strlen(d->domain), NULL)) {
		rollback(r);
		return 0;
	}
	DL_TRY(dl_strmap_put(&r->domain_ids, d->domain, strlen(d->domain), NULL, NULL));
	if (st->ndomains == st->domains_cap)
		DL_TRY(dl_vec_grow_(&st->domains, &st->domains_cap, st->ndomains, 1, sizeof *st->domains));
	/* removed ones are kept while replaying (they shadow older ones) */
	st->domains[st->ndomains++] = *d;
	return 0;
}

static int keep_copy(dl_replayer *r, const void *src, size_t n, const void **dst)
{
	void *p = dl_arena_alloc(&r->st->arena, n);
	if (!p) return DL_ENOMEM;
	memcpy(p, src, n);
	*dst = p;
	return 0;
}

static int offer_sidecar(dl_replayer *r, const dl_sidecar *s)
{
	if (r->nsidecars == r->sidecars_cap)
		DL_TRY(dl_vec_grow_(&r->sidecars, &r->sidecars_cap, r->nsidecars, 1, sizeof *r->sidecars));
	r->sidecars[r->nsidecars++] = *s;
	return 0;
}

int dl_replay_offer(dl_replayer *r, const dl_action *a)
{
	dl_log_state *st = r->st;
	switch (a->kind) {
	case DL_ACTION_ADD:
	case DL_ACTION_REMOVE: return offer_file(r, a);
	case DL_ACTION_PROTOCOL:
		if (st->protocol) break;
		return keep_copy(r, &a->u.protocol, sizeof a->u.protocol, (const void **)&st->protocol);
	case DL_ACTION_METADATA:
		if (st->metadata) break;
		return keep_copy(r, &a->u.metadata, sizeof a->u.metadata, (const void **)&st->metadata);
	case DL_ACTION_TXN: return offer_txn(r, &a->u.txn);
	case DL_ACTION_DOMAIN_METADATA: return offer_domain(r, &a->u.domain_metadata);
	case DL_ACTION_COMMIT_INFO:
		if (!r->version_commit || st->commit_info) break;
		return keep_copy(r, &a->u.commit_info, sizeof a->u.commit_info,
		                 (const void **)&st->commit_info);
	case DL_ACTION_SIDECAR:
		/* v2 checkpoint spec actions only count inside checkpoints */
		if (r->in_checkpoint) return offer_sidecar(r, &a->u.sidecar);
		break;
	default: break;
	}
	rollback(r);
	return 0;
}

/* ---- JSON files: commits, compactions and v2 JSON checkpoints ---- */

/* Whether a line's action needs parsing at all, judged from its kind. */
static bool wanted(const dl_replayer *r, dl_action_kind k)
{
	if (r->commit_info_only) return k == DL_ACTION_COMMIT_INFO && !r->st->commit_info;
	switch (k) {
	case DL_ACTION_ADD:
	case DL_ACTION_REMOVE: return !r->opts->metadata_only;
	case DL_ACTION_TXN:
	case DL_ACTION_DOMAIN_METADATA: return dl_replay_wants_txns_domains(r);
	case DL_ACTION_PROTOCOL: return !r->st->protocol;
	case DL_ACTION_METADATA: return !r->st->metadata;
	case DL_ACTION_COMMIT_INFO: return r->version_commit && !r->st->commit_info;
	/* sidecars hold only file actions */
	case DL_ACTION_SIDECAR: return r->in_checkpoint && !r->opts->metadata_only;
	default: return false;
	}
}

/* Whether a line is plainly an action other than commitInfo: its first
 * member is a known action key with an object value (that member decides
 * what the line is, see replay_line), so a commitInfo-only read can skip
 * it without parsing. Keys with escapes are left to the parser. */
static bool other_action_line(const char *line, size_t len)
{
	if (len < 6 || line[0] != '{' || line[1] != '"') return false;
	char key[32];
	size_t i = 2, k = 0;
	while (i < len && k + 1 < sizeof key && ((line[i] >= 'a' && line[i] <= 'z') ||
	                                         (line[i] >= 'A' && line[i] <= 'Z')))
		key[k++] = line[i++];
	if (i + 1 >= len || line[i] != '"' || line[i + 1] != ':') return false;
	key[k] = 0;
	for (i += 2; i < len && (line[i] == ' ' || line[i] == '\t'); i++) {}
	if (i >= len || line[i] != '{') return false;
	dl_action_kind kind = dl_action_kind_of(key);
	return kind != DL_ACTION_UNKNOWN && kind != DL_ACTION_COMMIT_INFO;
}

static int replay_line(dl_replayer *r, dl_arena *tmp, const char *line, size_t len,
                       const char *path, int64_t lineno)
{
	dl_json *v;
	int rc;
	if (r->commit_info_only && other_action_line(line, len)) return 0;
	if (len > 7 && memcmp(line, "{\"add\":", 7) == 0 && wanted(r, DL_ACTION_ADD)) {
		dl_action a;
		dl_replay_begin_action(r);
		rc = dl_add_scan(&a.u.add, &r->st->arena, line, len);
		if (rc < 0) return rc;
		if (rc == 1) {
			a.kind = DL_ACTION_ADD;
			return dl_replay_offer(r, &a);
		}
		rollback(r); /* declined: the DOM path below decides */
	}
	rc = dl_json_parse(tmp, line, len, path, &v);
	if (rc < 0) return dl_error_prefix("line %" PRId64, lineno);
	if (v->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s line %" PRId64 ": an action must be a JSON object",
		                    path, lineno);
	for (size_t i = 0; i < v->u.obj.n; i++) {
		const dl_json_member *m = &v->u.obj.items[i];
		dl_action_kind k = dl_action_kind_of(m->key);
		if (k == DL_ACTION_UNKNOWN || m->value.kind == DL_JSON_NULL) continue;
		if (!wanted(r, k)) return 0;
		dl_action a;
		dl_replay_begin_action(r);
		rc = dl_action_body_from_json(&a, k, &r->st->arena, &m->value, path);
		if (rc < 0) return rc == DL_ENOMEM ? rc : dl_error_prefix("line %" PRId64, lineno);
		return dl_replay_offer(r, &a);
	}
	return 0;
}

/* Reads a newline-delimited JSON file in chunks (a whole commit of 15 MB
 * is never held at once) and replays each line. `size` < 0: unknown. */
#define CHUNK (1u << 20)

static int replay_lines(dl_replayer *r, dl_arena *tmp, const char *p, const char *end,
                        bool at_eof, const char *path, int64_t *lineno, const char **rest)
{
	while (p < end) {
		/* the commitInfo found: the rest of the commit is not needed */
		if (r->commit_info_only && r->st->commit_info) break;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && !at_eof) break; /* an unfinished line: wait for more */
		const char *le = nl ? nl : end;
		(*lineno)++;
		const char *q = p;
		while (q < le && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
		if (q < le) {
			DL_TRY(replay_line(r, tmp, q, (size_t)(le - q), path, *lineno));
			dl_arena_reset(tmp); /* each line's DOM is dropped after it */
		}
		p = le + (nl ? 1 : 0);
	}
	*rest = p;
	return 0;
}

static int replay_json_file(dl_replayer *r, dl_store *store, const char *path, int64_t size)
{
	dl_arena tmp = DL_ARENA_INIT;
	int64_t lineno = 0;
	const char *rest;
	int rc;
	if (size < 0 || size <= (int64_t)CHUNK) {
		uint8_t *data;
		size_t len;
		rc = dl_store_get(&data, &len, store, path);
		if (rc < 0) return dl_error_prefix("reading %s", path);
		const char *p = (const char *)data;
		rc = replay_lines(r, &tmp, p, p + len, true, path, &lineno, &rest);
		dl_free(data);
		dl_arena_free(&tmp);
		return rc;
	}
	/* buf holds the unfinished line from the previous chunk + a new chunk */
	size_t cap = 2 * (size_t)CHUNK + 1, have = 0;
	char *buf = dl_malloc(cap);
	if (!buf) return DL_ENOMEM;
	int64_t off = 0;
	rc = 0;
	while (rc == 0 && off < size) {
		if (cap - have < CHUNK + 1) {
			char *nb = dl_realloc(buf, cap * 2);
			if (!nb) {
				rc = DL_ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = 0;
		rc = dl_store_get_range((uint8_t *)buf + have, &got, store, path, off, CHUNK);
		if (rc < 0) {
			dl_error_prefix("reading %s", path);
			break;
		}
		if (got == 0) break; /* the file shrank: read what is there */
		off += (int64_t)got;
		have += got;
		rc = replay_lines(r, &tmp, buf, buf + have, off >= size, path, &lineno, &rest);
		if (r->commit_info_only && r->st->commit_info) break;
		size_t keep = rest < buf + have ? (size_t)(buf + have - rest) : 0;
		memmove(buf, rest, keep);
		have = keep;
	}
	dl_free(buf);
	dl_arena_free(&tmp);
	return rc;
}

/* ---- driving the segment ---- */

static int replay_checkpoint(dl_replayer *r, dl_store *store, const dl_log_segment *seg)
{
	r->in_checkpoint = true;
	r->commit_check = false;
	r->log_version = -(seg->checkpoint_version + 2);
	/* A v2 checkpoint in JSON is one file; Parquet parts decode ahead */
	const char **paths = dl_malloc((seg->ncheckpoint ? seg->ncheckpoint : 1) * sizeof *paths);
	if (!paths) return dl_error_set(DL_ENOMEM, "out of memory reading the checkpoint");
	size_t np = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < seg->ncheckpoint; i++) {
		const dl_log_file *f = &seg->checkpoint[i];
		if (f->kind == DL_LOGF_CHECKPOINT_V2_JSON) rc = replay_json_file(r, store, f->path, f->size);
		else paths[np++] = f->path;
	}
	if (rc == 0) rc = dl_checkpoint_read_files(r, store, paths, np);
	dl_free(paths);
	DL_TRY(rc);
	/* Sidecars listed by the checkpoint hold its file actions. */
	if (r->nsidecars == 0) {
		r->in_checkpoint = false;
		return 0;
	}
	char **sp = dl_calloc(r->nsidecars, sizeof *sp);
	if (!sp) return dl_error_set(DL_ENOMEM, "out of memory reading the checkpoint's sidecars");
	for (size_t i = 0; rc == 0 && i < r->nsidecars; i++) {
		const char *p = r->sidecars[i].path;
		const char *slash = strrchr(p, '/');
		sp[i] = dl_malloc(strlen(DL_LOG_DIR "/_sidecars/") + strlen(slash ? slash + 1 : p) + 1);
		if (!sp[i]) rc = dl_error_set(DL_ENOMEM, "out of memory reading the checkpoint's sidecars");
		else sprintf(sp[i], DL_LOG_DIR "/_sidecars/%s", slash ? slash + 1 : p);
	}
	if (rc == 0) rc = dl_checkpoint_read_files(r, store, (const char *const *)sp, r->nsidecars);
	for (size_t i = 0; i < r->nsidecars; i++) dl_free(sp[i]);
	dl_free(sp);
	DL_TRY(rc);
	r->in_checkpoint = false;
	return 0;
}

/* The commitInfo of the snapshot version when its commit file was not read
 * (covered by a checkpoint or a compaction). */
static int read_version_commit_info(dl_replayer *r, dl_store *store, const dl_log_segment *seg)
{
	if (r->st->commit_info || !seg->last_commit) return 0;
	r->version_commit = true;
	r->commit_info_only = true;
	int rc = replay_json_file(r, store, seg->last_commit->path, seg->last_commit->size);
	r->version_commit = false;
	r->commit_info_only = false;
	return rc;
}

/* ---- parallel parsing of the commits ---- */

/* The files to read newest first: commits, or the compactions that cover
 * runs of them. */
typedef struct unit {
	const dl_log_file *f;
	bool version_commit;
} unit;

static size_t plan_units(const dl_log_segment *seg, unit *u)
{
	size_t n = 0, ci = seg->ncompactions;
	for (size_t i = seg->ncommits; i-- > 0;) {
		const dl_log_file *c = &seg->commits[i];
		if (ci > 0 && c->version <= seg->compactions[ci - 1].end_version &&
		    c->version >= seg->compactions[ci - 1].version) {
			const dl_log_file *cf = &seg->compactions[ci - 1];
			ci--;
			u[n++] = (unit){cf, false};
			while (i > 0 && seg->commits[i - 1].version >= cf->version) i--;
			continue;
		}
		u[n++] = (unit){c, c->version == seg->version};
	}
	return n;
}

#define BLOCK_BYTES ((int64_t)1 << 20)
#define PARALLEL_MIN_BYTES ((int64_t)8 << 20)

static int keep_block_arena(dl_log_state *st, dl_arena *a)
{
	if (st->nblock_arenas == st->block_arenas_cap)
		DL_TRY(dl_vec_grow_(&st->block_arenas, &st->block_arenas_cap, st->nblock_arenas, 1, sizeof *st->block_arenas));
	st->block_arenas[st->nblock_arenas++] = *a;
	memset(a, 0, sizeof *a);
	return 0;
}

/* Offers a parsed block's actions in order; survivors keep pointing into
 * the block's arena, which the state takes over. */
static int consume_block(dl_replayer *r, dl_commit_block *b)
{
	r->mark_head = NULL;
	r->mark_cur = NULL; /* nothing to roll back: the memory is the block's */
	r->version_commit = b->want_commit_info;
	begin_file(r, b->path, !strstr(b->path, ".compacted.json"), b->version);
	/* The keys were hashed by the parsing thread: prefetch the seen-set
	 * slots a few actions ahead, the probes are mostly cache misses. */
	const size_t ahead = 8;
	for (size_t i = 0; i < b->nactions && i < ahead; i++)
		if (b->hashes[i]) dl_fks_prefetch(&r->seen, b->hashes[i]);
	for (size_t i = 0; i < b->nactions; i++) {
		size_t j = i + ahead;
		if (j < b->nactions && b->hashes[j]) dl_fks_prefetch(&r->seen, b->hashes[j]);
		const dl_action *a = &b->actions[i];
		if (a->kind == DL_ACTION_ADD || a->kind == DL_ACTION_REMOVE) DL_TRY(offer_file_hashed(r, a, b->hashes[i]));
		else DL_TRY(dl_replay_offer(r, a));
	}
	r->version_commit = false;
	return keep_block_arena(r->st, &b->arena);
}

static int run_parallel(dl_replayer *r, dl_store *store, const dl_log_segment *seg, dl_pool *pool,
                        bool *done)
{
	*done = false;
	unit *units = dl_calloc(seg->ncommits ? seg->ncommits : 1, sizeof *units);
	if (!units) return DL_ENOMEM;
	size_t nu = plan_units(seg, units), nb = 0;
	int64_t bb = r->opts->block_bytes > 0 ? r->opts->block_bytes : BLOCK_BYTES;
	for (size_t i = 0; i < nu; i++) {
		int64_t size = units[i].f->size;
		/* sizes come from the listing: a bogus one must not overflow */
		if (size < 0 || size / bb > ((int64_t)1 << 24)) {
			dl_free(units);
			return 0; /* not done: the one-thread replay streams it */
		}
		nb += (size_t)(size / bb) + 2;
	}
	dl_commit_block *blocks = dl_calloc(nb, sizeof *blocks);
	dl_waitgroup *wgs = dl_calloc(nb, sizeof *wgs);
	int rc = (!blocks || !wgs) ? DL_ENOMEM : 0;
	size_t k = 0;
	for (size_t i = 0; rc == 0 && i < nu; i++) {
		int64_t size = units[i].f->size;
		for (int64_t off = 0; k < nb && (off < size || (size == 0 && off == 0)); off += bb) {
			dl_commit_block *b = &blocks[k++];
			b->store = store;
			b->path = units[i].f->path;
			b->file_size = size;
			b->off = off;
			b->end = off + bb < size ? off + bb : size;
			b->want_commit_info = units[i].version_commit;
			/* a compaction's adds are named by its last version */
			b->version = units[i].f->kind == DL_LOGF_COMMIT ? units[i].f->version : units[i].f->end_version;
			b->arena.block_size = 256u << 10;
			if (size == 0) break;
		}
	}
	nb = k;
	size_t ahead = (size_t)dl_pool_size(pool), submitted = 0;
	for (size_t i = 0; i < nb; i++) dl_waitgroup_init(&wgs[i]);
	for (; rc == 0 && submitted < nb && submitted < ahead; submitted++)
		rc = dl_pool_submit(pool, &wgs[submitted], dl_commit_block_parse, &blocks[submitted]);
	for (size_t i = 0; i < submitted; i++) {
		/* after a failure, still wait for every submitted block */
		int brc = dl_waitgroup_wait(&wgs[i]);
		if (rc == 0) rc = brc;
		if (rc == 0) rc = consume_block(r, &blocks[i]);
		dl_commit_block_free(&blocks[i]);
		if (rc == 0 && submitted < nb) {
			rc = dl_pool_submit(pool, &wgs[submitted], dl_commit_block_parse, &blocks[submitted]);
			if (rc == 0) submitted++;
		}
	}
	for (size_t i = 0; i < nb; i++) {
		if (i >= submitted) dl_commit_block_free(&blocks[i]);
		dl_waitgroup_destroy(&wgs[i]);
	}
	dl_free(blocks);
	dl_free(wgs);
	dl_free(units);
	if (rc == 0) *done = true;
	return rc;
}

static int run(dl_replayer *r, dl_store *store, const dl_log_segment *seg)
{
	int64_t bytes = 0;
	for (size_t i = 0; i < seg->ncommits; i++) bytes += seg->commits[i].size > 0 ? seg->commits[i].size : 0;
	dl_pool *pool = NULL;
	int64_t min_bytes = r->opts->parallel_min_bytes > 0 ? r->opts->parallel_min_bytes : PARALLEL_MIN_BYTES;
	if (!r->opts->metadata_only && !r->opts->sequential && bytes >= min_bytes &&
	    dl_pool_shared(&pool) == 0) {
		bool done;
		DL_TRY(run_parallel(r, store, seg, pool, &done));
		if (done) {
			if (seg->ncheckpoint) DL_TRY(replay_checkpoint(r, store, seg));
			return read_version_commit_info(r, store, seg);
		}
	}
	dl_error_clear();
	/* newest first: commits (or the compactions covering them) descending */
	size_t ci = seg->ncompactions;
	for (size_t i = seg->ncommits; i-- > 0;) {
		const dl_log_file *c = &seg->commits[i];
		if (ci > 0 && c->version <= seg->compactions[ci - 1].end_version &&
		    c->version >= seg->compactions[ci - 1].version) {
			const dl_log_file *cf = &seg->compactions[ci - 1];
			ci--;
			r->version_commit = false;
			begin_file(r, cf->path, false, cf->end_version);
			DL_TRY(replay_json_file(r, store, cf->path, cf->size));
			while (i > 0 && seg->commits[i - 1].version >= cf->version) i--;
			continue;
		}
		r->version_commit = c->version == seg->version;
		begin_file(r, c->path, true, c->version);
		DL_TRY(replay_json_file(r, store, c->path, c->size));
		if (r->opts->metadata_only && !r->lists && r->st->protocol && r->st->metadata) {
			r->version_commit = false;
			return read_version_commit_info(r, store, seg);
		}
	}
	r->version_commit = false;
	if (seg->ncheckpoint) DL_TRY(replay_checkpoint(r, store, seg));
	return read_version_commit_info(r, store, seg);
}

static void drop_removed_domains(dl_log_state *st)
{
	size_t k = 0;
	for (size_t i = 0; i < st->ndomains; i++)
		if (!st->domains[i].removed) st->domains[k++] = st->domains[i];
	st->ndomains = k;
}

/* The version's .crc (PROTOCOL.md "Version Checksum File") is a summary a
 * writer left beside the commit; nothing makes it agree with the log, and a
 * stale, buggy or tampered one must not change what a reader sees. So the
 * rule: protocol and metaData always come from the log, and the .crc is
 * used only for what replay cannot give cheaply - the txns and domains a
 * metadata-only replay does not collect, and the in-commit timestamp of a
 * version whose commit is gone - and only after its protocol and metaData
 * (and its in-commit timestamp, when the commit has one) were checked to be
 * those of the replay. A .crc that is malformed, lacks the lists, or
 * disagrees is ignored entirely, and replay collects the lists itself. */

/* Parses the version's .crc into `arena`: 1 when there is a valid one that
 * lists txns and domains, 0 when it cannot help. */
static int read_crc(dl_version_checksum *c, dl_arena *arena, dl_store *store,
                    const dl_log_segment *seg)
{
	if (!seg->crc) return 0;
	if (dl_version_checksum_read(c, arena, store, seg->crc->path) < 0) {
		if (dl_error_last()->code == DL_ENOMEM) return DL_ENOMEM;
		dl_error_clear();
		return 0;
	}
	return c->has_txns && c->has_domains;
}

/* Takes the lists of a verified .crc into the state. */
static int use_crc(dl_log_state *out, const dl_version_checksum *c)
{
	out->crc_in_commit_timestamp = c->in_commit_timestamp;
	out->from_crc = true;
	if (c->ntxns) {
		out->txns = dl_reallocarray(NULL, c->ntxns, sizeof *out->txns);
		if (!out->txns) return DL_ENOMEM;
		memcpy(out->txns, c->txns, c->ntxns * sizeof *out->txns);
		out->ntxns = out->txns_cap = c->ntxns;
	}
	if (c->ndomains) {
		out->domains = dl_reallocarray(NULL, c->ndomains, sizeof *out->domains);
		if (!out->domains) return DL_ENOMEM;
		memcpy(out->domains, c->domains, c->ndomains * sizeof *out->domains);
		out->ndomains = out->domains_cap = c->ndomains;
	}
	return 0;
}

static int replay_once(dl_log_state *out, dl_store *store, const dl_log_segment *seg,
                       const dl_replay_options *opts, bool lists)
{
	memset(out, 0, sizeof *out);
	out->arena.block_size = 1u << 20;
	out->version = seg->version;
	out->crc_in_commit_timestamp = DL_NONE;
	out->metadata_only = opts->metadata_only != 0;
	dl_replayer r = {0};
	dl_strmap_init(&r.txn_ids, false);
	dl_strmap_init(&r.domain_ids, false);
	r.st = out;
	r.opts = opts;
	r.lists = lists;
	/* about one file action per 150 bytes of commit JSON */
	int64_t bytes = 0;
	for (size_t i = 0; i < seg->ncommits; i++) bytes += seg->commits[i].size > 0 ? seg->commits[i].size : 0;
	/* capped: file sizes come from outside (growth handles bigger logs) */
	int64_t expect = bytes / 150 < ((int64_t)1 << 22) ? bytes / 150 : ((int64_t)1 << 22);
	int rc = r.opts->metadata_only ? 0 : dl_fks_reserve(&r.seen, (size_t)expect);
	if (rc == 0) rc = run(&r, store, seg);
	dl_fks_free(&r.seen);
	dl_free(r.sidecars);
	dl_strmap_free(&r.txn_ids);
	dl_strmap_free(&r.domain_ids);
	if (rc < 0) {
		dl_log_state_free(out);
		return rc;
	}
	drop_removed_domains(out);
	if (r.opts->skip_tombstones) out->nremoves = 0;
	return 0;
}

int dl_replay(dl_log_state *out, dl_store *store, const dl_log_segment *seg,
              const dl_replay_options *opts)
{
	static const dl_replay_options defaults = {0};
	if (!opts) opts = &defaults;
	if (!opts->metadata_only) return replay_once(out, store, seg, opts, false);
	/* Metadata only: protocol and metaData from the log, stopping as soon
	 * as both are found; the txns and domains from a .crc that agrees,
	 * else from a replay that collects them. */
	dl_arena crc_arena = DL_ARENA_INIT;
	dl_version_checksum c;
	int rc = read_crc(&c, &crc_arena, store, seg);
	if (rc == 1) {
		rc = replay_once(out, store, seg, opts, false);
		if (rc == 0 && out->protocol && out->metadata &&
		    dl_version_checksum_matches(&c, out->protocol, out->metadata,
		                                out->commit_info ? out->commit_info->in_commit_timestamp
		                                                 : DL_NONE)) {
			/* the lists live in crc_arena: the state keeps it */
			rc = keep_block_arena(out, &crc_arena);
			if (rc == 0) rc = use_crc(out, &c);
			if (rc == 0) drop_removed_domains(out);
			if (rc < 0) dl_log_state_free(out);
			dl_arena_free(&crc_arena);
			return rc;
		}
		if (rc == 0) dl_log_state_free(out);
	}
	dl_arena_free(&crc_arena);
	if (rc < 0) return rc;
	return replay_once(out, store, seg, opts, true);
}

int dl_log_state_validate(const dl_log_state *s)
{
	if (!s->protocol)
		return dl_error_set(DL_ECORRUPT,
		                    "the log of version %" PRId64 " has no protocol action: the table "
		                    "is corrupt (a table's first commit must contain one)",
		                    s->version);
	if (!s->metadata)
		return dl_error_set(DL_ECORRUPT,
		                    "the log of version %" PRId64 " has no metaData action: the table "
		                    "is corrupt (a table's first commit must contain one)",
		                    s->version);
	return 0;
}

void dl_log_state_free(dl_log_state *s)
{
	for (size_t i = 0; i < s->nblock_arenas; i++) dl_arena_free(&s->block_arenas[i]);
	dl_free(s->block_arenas);
	for (size_t i = 0; i < s->nadd_chunks; i++) dl_free(s->add_chunks[i]);
	dl_free(s->add_chunks);
	dl_free(s->removes);
	dl_free(s->txns);
	dl_free(s->domains);
	dl_arena_free(&s->arena);
	memset(s, 0, sizeof *s);
}
