/* The optimistic commit (PROTOCOL.md "Creation of New Log Entries",
 * "In-Commit Timestamps"): the next N.json is published with
 * put_if_absent, which is atomic, so a version is either whole or absent
 * and exactly one writer wins it. A loser reads the winner, checks for
 * conflicts (conflict.c) and, when there is none, tries N+1 - bounded, with
 * a little random backoff once contention persists. */
#include "txn/txn_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log/log_segment.h"
#include "log/snapshot.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/random.h"
#include "util/time.h"

static int validate(const dl_transaction *t)
{
	if (t->committed)
		return dl_error_set(DL_EINVALID, "the transaction already committed version %lld",
		                    (long long)t->version);
	if (t->read_version < 0 && (!t->protocol_json || !t->metadata_json))
		return dl_error_set(DL_EINVALID, "the first commit of a table must carry a protocol "
		                    "and a metaData action");
	if (t->nremoves && t->data_change && t->snap && t->snap->props.append_only)
		return dl_error_set_class(DL_ECONSTRAINT, "DeltaUnsupportedOperationException",
		        "This table is configured to only allow appends (delta.appendOnly = true): "
		        "the commit removes %lld file(s) with dataChange. Set delta.appendOnly to "
		        "false to allow updates and deletes.", (long long)t->nremoves);
	return 0;
}

static bool ict_enabled(const dl_transaction *t)
{
	return dl_txn_props(t)->enable_in_commit_timestamps;
}

/* The in-commit timestamp: the clock, but strictly after the previous
 * commit's timestamp so time travel stays monotonic. */
static int64_t next_ict(const dl_transaction *t, int64_t now)
{
	int64_t prev = t->winners.last_ict;
	if (prev == DL_NONE) prev = t->winners.last_ts;
	if (prev == DL_NONE && t->snap)
		prev = t->snap->in_commit_timestamp != DL_NONE ? t->snap->in_commit_timestamp
		                                                : t->snap->timestamp_ms;
	return prev != DL_NONE && prev >= now ? prev + 1 : now;
}

static int put_action_body(dl_buf *b, const char *kind, const char *body)
{
	DL_TRY(dl_buf_printf(b, "{\"%s\":", kind));
	DL_TRY(dl_buf_puts(b, body));
	return dl_buf_puts(b, "}\n");
}

/* PROTOCOL.md "In-Commit Timestamps", writer requirement 4: a commit that
 * enables them on a table with earlier commits records where they start,
 * delta.inCommitTimestampEnablementVersion/-Timestamp, in its metaData -
 * for the version and timestamp this attempt commits with. */
static bool enables_ict(const dl_transaction *t)
{
	return t->metadata_json && t->read_version >= 0 && t->new_props.enable_in_commit_timestamps &&
	       !(t->snap && t->snap->props.enable_in_commit_timestamps);
}

static int metadata_with_enablement(dl_buf *out, const dl_transaction *t, int64_t version, int64_t ict)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	dl_action act;
	int rc = dl_json_parse(&a, t->metadata_json, strlen(t->metadata_json), "metaData", &v);
	if (rc == 0) rc = dl_action_body_from_json(&act, DL_ACTION_METADATA, &a, v, "metaData");
	dl_metadata *m = &act.u.metadata;
	dl_kv *kv = rc == 0 ? dl_arena_calloc(&a, m->configuration.n + 2, sizeof *kv) : NULL;
	if (rc == 0 && !kv) rc = DL_ENOMEM;
	if (rc == 0) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < m->configuration.n; i++) {
			const char *k = m->configuration.items[i].key;
			if (strcmp(k, "delta.inCommitTimestampEnablementVersion") != 0 &&
			    strcmp(k, "delta.inCommitTimestampEnablementTimestamp") != 0)
				kv[n++] = m->configuration.items[i];
		}
		char ver[32], ts[32];
		snprintf(ver, sizeof ver, "%lld", (long long)version);
		snprintf(ts, sizeof ts, "%lld", (long long)ict);
		kv[n++] = (dl_kv){"delta.inCommitTimestampEnablementVersion", ver};
		kv[n++] = (dl_kv){"delta.inCommitTimestampEnablementTimestamp", ts};
		m->configuration = (dl_str_map){kv, n};
		act.kind = DL_ACTION_METADATA;
		rc = dl_action_to_json(out, &act);
	}
	if (rc == 0) rc = dl_buf_putc(out, '\n');
	dl_arena_free(&a);
	return rc;
}

static int build(dl_buf *b, const dl_transaction *t, int64_t version, int64_t ts, int64_t ict)
{
	DL_TRY(dl_txn_commit_info(b, t, ts, ict));
	if (t->protocol_json) DL_TRY(put_action_body(b, "protocol", t->protocol_json));
	if (t->metadata_json && ict != DL_NONE && enables_ict(t))
		DL_TRY(metadata_with_enablement(b, t, version, ict));
	else if (t->metadata_json)
		DL_TRY(put_action_body(b, "metaData", t->metadata_json));
	for (size_t i = 0; i < t->napps; i++) {
		dl_action a = {.kind = DL_ACTION_TXN};
		a.u.txn = (dl_txn){t->apps[i].app_id, t->apps[i].version, ts};
		DL_TRY(dl_action_to_json(b, &a));
		DL_TRY(dl_buf_putc(b, '\n'));
	}
	for (size_t i = 0; i < t->ndomains; i++) {
		dl_action a = {.kind = DL_ACTION_DOMAIN_METADATA};
		a.u.domain_metadata = (dl_domain_metadata){t->domains[i].domain,
		                                           t->domains[i].configuration,
		                                           t->domains[i].removed};
		DL_TRY(dl_action_to_json(b, &a));
		DL_TRY(dl_buf_putc(b, '\n'));
	}
	return dl_buf_append(b, t->file_lines.data, t->file_lines.len);
}

static void backoff(int losses)
{
	if (losses < 3) return;
	int shift = losses < 8 ? losses : 8;
	uint32_t r = 0;
	if (dl_random_bytes(&r, sizeof r) < 0) {
		dl_error_clear();
		r = (uint32_t)losses * 2654435761u;
	}
	long us = (long)(r % (1u << shift)) * 100; /* up to ~25 ms */
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	nanosleep(&ts, NULL);
}

/* After put_if_absent of a commit failed with anything but DL_EEXISTS: the
 * store contract allows the object to be visible anyway (the directory
 * sync after the link failed, a network store's reply was lost). Reading it
 * back tells: our exact bytes mean the commit landed, and reporting a
 * failure then would make the caller retry a write that is already in the
 * table; other bytes mean another writer won the version. 1: ours landed,
 * 2: another's is there, 0: nothing is, < 0: unknown. */
static int commit_landed(dl_transaction *t, const char *path, const dl_buf *b)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int rc = dl_store_get(&data, &len, t->store, path);
	if (rc == DL_ENOTFOUND) return 0;
	if (rc < 0) return rc;
	bool ours = len == b->len && memcmp(data, b->data, len) == 0;
	dl_free(data);
	return ours ? 1 : 2;
}

int dl_txn_commit(dl_transaction *t, int64_t *version)
{
	if (version) *version = -1;
	DL_TRY(validate(t));
	int64_t v = t->read_version + 1;
	dl_buf b = DL_BUF_INIT;
	int rc = 0;
	for (int losses = 0;; losses++) {
		int64_t now = t->opts.now_ms != DL_NONE ? t->opts.now_ms : dl_now_millis();
		int64_t ict = ict_enabled(t) ? next_ict(t, now) : DL_NONE;
		int64_t ts = ict != DL_NONE ? ict : now;
		dl_buf_clear(&b);
		rc = dl_txn_rebase_rows(t, v);
		if (rc == 0) rc = build(&b, t, v, ts, ict);
		if (rc < 0) break;
		char path[96];
		dl_log_commit_path(path, sizeof path, v);
		t->attempts++;
		rc = dl_store_put_if_absent(t->store, path, b.data, b.len);
		if (rc < 0 && rc != DL_EEXISTS) {
			dl_error saved = *dl_error_last();
			char msg[1024];
			snprintf(msg, sizeof msg, "%s", saved.message);
			int landed = commit_landed(t, path, &b);
			if (landed == 1) {
				dl_error_clear();
				rc = 0;
			} else if (landed < 0) {
				t->commit_unknown = true;
				rc = dl_error_set(saved.code, "%s; reading %s back failed as well, so version %lld "
				                  "may have been committed: check the table before writing again",
				                  msg, path, (long long)v);
			} else if (landed == 2) {
				rc = dl_error_set(DL_EEXISTS, "%s (another writer committed version %lld)", msg,
				                  (long long)v);
			} else {
				dl_error_set(saved.code, "%s", msg);
			}
		}
		if (rc == 0) {
			t->committed = true;
			t->version = v;
			t->commit_ts = ts;
			break;
		}
		if (rc != DL_EEXISTS) {
			dl_error_prefix("committing version %lld", (long long)v);
			break;
		}
		if (losses >= t->opts.max_retries) {
			rc = dl_error_set(DL_ECONFLICT, "gave up committing after %d attempts: other "
			                  "writers kept winning versions up to %lld. Retry later.",
			                  t->attempts, (long long)v);
			break;
		}
		rc = dl_txn_check_winner(t, v);
		if (rc < 0) break;
		v++;
		backoff(losses);
	}
	dl_buf_free(&b);
	if (rc < 0) return rc;
	if (version) *version = t->version;
	if (!t->opts.no_post_commit) dl_txn_post_commit(t);
	return 0;
}
