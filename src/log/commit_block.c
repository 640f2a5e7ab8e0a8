/* Parsing one byte range of a newline-delimited commit file. */
#include "log/commit_block.h"
#include <inttypes.h>
#include <string.h>
#include "json/json.h"
#include "log/add_scan.h"
#include "log/replay.h"
#include "util/error.h"
#include "util/mem.h"

#define READ_STEP (256u << 10)

static bool kind_wanted(const dl_commit_block *b, dl_action_kind k)
{
	switch (k) {
	case DL_ACTION_ADD:
	case DL_ACTION_REMOVE:
	case DL_ACTION_TXN:
	case DL_ACTION_DOMAIN_METADATA: return !b->metadata_only;
	case DL_ACTION_PROTOCOL:
	case DL_ACTION_METADATA: return true;
	case DL_ACTION_COMMIT_INFO: return b->want_commit_info;
	default: return false;
	}
}

static int push(dl_commit_block *b, const dl_action *a)
{
	if (b->nactions == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 8192; /* ~1 MB of JSON */
		dl_action *n = dl_reallocarray(b->actions, nc, sizeof *n);
		if (!n) return DL_ENOMEM;
		b->actions = n;
		uint64_t *h = dl_reallocarray(b->hashes, nc, sizeof *h);
		if (!h) return DL_ENOMEM;
		b->hashes = h;
		b->cap = nc;
	}
	uint64_t h = 0;
	if (a->kind == DL_ACTION_ADD) h = dl_file_key_hash(a->u.add.path, a->u.add.dv);
	else if (a->kind == DL_ACTION_REMOVE) h = dl_file_key_hash(a->u.remove.path, a->u.remove.dv);
	b->hashes[b->nactions] = h;
	b->actions[b->nactions++] = *a;
	return 0;
}

static int parse_line(dl_commit_block *b, dl_arena *tmp, const char *line, size_t len, int64_t at)
{
	dl_json *v;
	if (!b->metadata_only && len > 7 && memcmp(line, "{\"add\":", 7) == 0) {
		void *head = b->arena.head;
		char *cur = b->arena.cur;
		dl_action a;
		int rc = dl_add_scan(&a.u.add, &b->arena, line, len);
		if (rc < 0) return rc;
		if (rc == 1) {
			a.kind = DL_ACTION_ADD;
			return push(b, &a);
		}
		if (b->arena.head == head && cur) b->arena.cur = cur; /* declined */
	}
	if (dl_json_parse(tmp, line, len, b->path, &v) < 0)
		return dl_error_prefix("line at byte %" PRId64, at);
	if (v->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_ECORRUPT, "%s: the line at byte %" PRId64 " is not a JSON object",
		                    b->path, at);
	for (size_t i = 0; i < v->u.obj.n; i++) {
		const dl_json_member *m = &v->u.obj.items[i];
		dl_action_kind k = dl_action_kind_of(m->key);
		if (k == DL_ACTION_UNKNOWN || m->value.kind == DL_JSON_NULL) continue;
		if (!kind_wanted(b, k)) return 0;
		dl_action a;
		int rc = dl_action_body_from_json(&a, k, &b->arena, &m->value, b->path);
		if (rc < 0) return rc == DL_ENOMEM ? rc : dl_error_prefix("line at byte %" PRId64, at);
		return push(b, &a);
	}
	return 0;
}

/* Reads [from, from+n) appending to buf; *got short at end of file. */
static int read_more(dl_commit_block *b, char **buf, size_t *len, size_t *cap, int64_t from,
                     size_t n, size_t *got)
{
	if (*cap - *len < n + 1) {
		size_t nc = (*len + n + 1) * 2;
		char *nb = dl_realloc(*buf, nc);
		if (!nb) return DL_ENOMEM;
		*buf = nb;
		*cap = nc;
	}
	int rc = dl_store_get_range((uint8_t *)*buf + *len, got, b->store, b->path, from, n);
	if (rc < 0) return dl_error_prefix("reading %s", b->path);
	*len += *got;
	(*buf)[*len] = 0;
	return 0;
}

int dl_commit_block_parse(void *arg)
{
	dl_commit_block *b = arg;
	/* Start one byte early: a line starts at `off` if the byte before is a
	 * newline; otherwise the first line is the previous block's. */
	int64_t start = b->off > 0 ? b->off - 1 : 0;
	size_t len = 0, cap = 0, got;
	char *buf = NULL;
	int rc = read_more(b, &buf, &len, &cap, start, (size_t)(b->end - start), &got);
	dl_arena tmp = DL_ARENA_INIT;
	size_t pos = 0;
	if (rc == 0 && b->off > 0) {
		const char *nl = memchr(buf, '\n', len);
		pos = nl ? (size_t)(nl - buf) + 1 : len;
		/* no newline in the whole block: its bytes belong to a line that
		 * started before it */
		if (!nl) pos = SIZE_MAX;
	}
	while (rc == 0 && pos != SIZE_MAX && start + (int64_t)pos < b->end) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		while (!nl && start + (int64_t)len < b->file_size && rc == 0) {
			size_t before = len;
			rc = read_more(b, &buf, &len, &cap, start + (int64_t)len, READ_STEP, &got);
			if (rc == 0 && got == 0) break;
			nl = memchr(buf + before, '\n', len - before);
		}
		if (rc < 0) break;
		size_t le = nl ? (size_t)(nl - buf) : len;
		size_t q = pos;
		while (q < le && (buf[q] == ' ' || buf[q] == '\t' || buf[q] == '\r')) q++;
		if (q < le) {
			rc = parse_line(b, &tmp, buf + q, le - q, start + (int64_t)pos);
			dl_arena_reset(&tmp);
		}
		if (!nl) break;
		pos = le + 1;
	}
	dl_arena_free(&tmp);
	dl_free(buf);
	return rc;
}

void dl_commit_block_free(dl_commit_block *b)
{
	dl_free(b->actions);
	dl_free(b->hashes);
	b->actions = NULL;
	b->hashes = NULL;
	b->nactions = b->cap = 0;
	dl_arena_free(&b->arena);
}
