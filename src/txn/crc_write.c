/* Version checksum files (PROTOCOL.md "Version Checksum File"): after a
 * commit, N.crc summarizes the new state. It is derived incrementally -
 * the read state (a loaded snapshot, else the read version's own .crc)
 * plus the winners' and this commit's file actions - and written only when
 * every number is known exactly; a missing .crc is fine, a wrong one is
 * not. Never overwrites an existing file. */
#include "txn/crc_write.h"

#include <string.h>

#include "log/crc.h"
#include "log/snapshot.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct crc_base {
	int64_t files, bytes;
	const dl_protocol *protocol;
	const dl_metadata *metadata;
	bool has_lists;               /* txns/domains known (else not written) */
	const dl_txn *txns;
	size_t ntxns;
	const dl_domain_metadata *domains;
	size_t ndomains;
} crc_base;

static bool snapshot_loaded(const dl_snapshot *s)
{
	return s && !s->state.metadata_only;
}

static int find_base(crc_base *b, dl_arena *arena, const dl_transaction *t)
{
	memset(b, 0, sizeof *b);
	if (t->read_version < 0) return 0;
	if (snapshot_loaded(t->snap)) {
		const dl_log_state *st = &t->snap->state;
		b->files = (int64_t)st->nadds;
		b->bytes = st->total_size;
		b->protocol = st->protocol;
		b->metadata = st->metadata;
		b->has_lists = true;
		b->txns = st->txns;
		b->ntxns = st->ntxns;
		b->domains = st->domains;
		b->ndomains = st->ndomains;
		return 0;
	}
	char path[96];
	dl_log_commit_path(path, sizeof path, t->read_version);
	strcpy(path + strlen(path) - 4, "crc");
	dl_version_checksum c;
	if (dl_version_checksum_read(&c, arena, t->store, path) < 0) {
		dl_error_clear();
		return DL_ENOTFOUND;
	}
	/* The read version's .crc is a base only when it describes the state
	 * the transaction read from the log. */
	const dl_log_state *st = t->snap ? &t->snap->state : NULL;
	if (!st || !dl_version_checksum_matches(&c, st->protocol, st->metadata,
	                                        st->commit_info ? st->commit_info->in_commit_timestamp
	                                                        : DL_NONE))
		return DL_ENOTFOUND;
	b->files = c.num_files;
	b->bytes = c.table_size_bytes;
	b->protocol = c.protocol;
	b->metadata = c.metadata;
	/* a metadata-only snapshot still holds the exact txns and domains */
	b->has_lists = true;
	b->txns = st->txns;
	b->ntxns = st->ntxns;
	b->domains = st->domains;
	b->ndomains = st->ndomains;
	return 0;
}

static void write_body(dl_json_writer *w, const char *key, const char *body_json)
{
	dl_jw_key(w, key);
	dl_jw_raw(w, body_json);
}

static int action_body(dl_buf *out, dl_action_kind kind, const void *p)
{
	dl_action a = {.kind = kind};
	if (kind == DL_ACTION_PROTOCOL) a.u.protocol = *(const dl_protocol *)p;
	else a.u.metadata = *(const dl_metadata *)p;
	dl_buf tmp = DL_BUF_INIT;
	int rc = dl_action_to_json(&tmp, &a);
	size_t start = strlen(dl_action_kind_name(kind)) + 4;
	if (rc == 0) rc = dl_buf_append(out, tmp.data + start, tmp.len - start - 1);
	dl_buf_free(&tmp);
	return rc;
}

static void txn_body(dl_json_writer *w, const char *app_id, int64_t version, int64_t last)
{
	dl_jw_object_begin(w);
	dl_jw_key(w, "appId");
	dl_jw_string(w, app_id);
	dl_jw_key(w, "version");
	dl_jw_int(w, version);
	if (last != DL_NONE) {
		dl_jw_key(w, "lastUpdated");
		dl_jw_int(w, last);
	}
	dl_jw_object_end(w);
}

static void domain_body(dl_json_writer *w, const char *domain, const char *configuration)
{
	dl_jw_object_begin(w);
	dl_jw_key(w, "domain");
	dl_jw_string(w, domain);
	dl_jw_key(w, "configuration");
	dl_jw_string(w, configuration ? configuration : "");
	dl_jw_key(w, "removed");
	dl_jw_bool(w, false);
	dl_jw_object_end(w);
}

/* The live app ids after the commit: the base's, with ours replacing. */
static void write_txns(dl_json_writer *w, const dl_transaction *t, const crc_base *b)
{
	dl_jw_key(w, "setTransactions");
	dl_jw_array_begin(w);
	for (size_t i = 0; i < b->ntxns; i++) {
		bool replaced = false;
		for (size_t j = 0; j < t->napps && !replaced; j++)
			replaced = strcmp(t->apps[j].app_id, b->txns[i].app_id) == 0;
		if (!replaced)
			txn_body(w, b->txns[i].app_id, b->txns[i].version, b->txns[i].last_updated);
	}
	for (size_t j = 0; j < t->napps; j++)
		txn_body(w, t->apps[j].app_id, t->apps[j].version, t->commit_ts);
	dl_jw_array_end(w);
}

/* Live domains (tombstones excluded), ours replacing the base's. */
static void write_domains(dl_json_writer *w, const dl_transaction *t, const crc_base *b)
{
	dl_jw_key(w, "domainMetadata");
	dl_jw_array_begin(w);
	for (size_t i = 0; i < b->ndomains; i++) {
		bool replaced = false;
		for (size_t j = 0; j < t->ndomains && !replaced; j++)
			replaced = strcmp(t->domains[j].domain, b->domains[i].domain) == 0;
		if (!replaced && !b->domains[i].removed)
			domain_body(w, b->domains[i].domain, b->domains[i].configuration);
	}
	for (size_t j = 0; j < t->ndomains; j++)
		if (!t->domains[j].removed)
			domain_body(w, t->domains[j].domain, t->domains[j].configuration);
	dl_jw_array_end(w);
}

int dl_txn_write_crc(dl_transaction *t)
{
	if (t->remove_size_unknown || t->winners.sizes_unknown) return 0;
	/* the protocol in force is a winner's, which the base does not know */
	if (t->winners.protocol_changed && !t->protocol_json) return 0;
	dl_arena arena = DL_ARENA_INIT;
	crc_base b;
	if (find_base(&b, &arena, t) < 0) {
		dl_arena_free(&arena);
		return 0; /* nothing exact to build on */
	}
	if (t->winners.txns_changed || t->winners.domains_changed) b.has_lists = false;
	dl_buf out = DL_BUF_INIT, body = DL_BUF_INIT;
	dl_json_writer w;
	dl_jw_init(&w, &out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "txnId");
	dl_jw_string(&w, t->txn_id);
	dl_jw_key(&w, "tableSizeBytes");
	dl_jw_int(&w, b.bytes + t->add_bytes - t->remove_bytes + t->winners.add_bytes -
	                  t->winners.remove_bytes);
	dl_jw_key(&w, "numFiles");
	dl_jw_int(&w, b.files + t->nadds - t->nremoves + t->winners.nadds - t->winners.nremoves);
	dl_jw_key(&w, "numMetadata");
	dl_jw_int(&w, 1);
	dl_jw_key(&w, "numProtocol");
	dl_jw_int(&w, 1);
	if (dl_txn_props(t)->enable_in_commit_timestamps) {
		dl_jw_key(&w, "inCommitTimestampOpt");
		dl_jw_int(&w, t->commit_ts);
	}
	if (b.has_lists || t->read_version < 0) {
		write_txns(&w, t, &b);
		write_domains(&w, t, &b);
	}
	int rc = 0;
	if (t->metadata_json) write_body(&w, "metadata", t->metadata_json);
	else if (b.metadata && (rc = action_body(&body, DL_ACTION_METADATA, b.metadata)) == 0)
		write_body(&w, "metadata", body.data);
	dl_buf_clear(&body);
	if (t->protocol_json) write_body(&w, "protocol", t->protocol_json);
	else if (rc == 0 && b.protocol && (rc = action_body(&body, DL_ACTION_PROTOCOL, b.protocol)) == 0)
		write_body(&w, "protocol", body.data);
	dl_jw_object_end(&w);
	if (rc == 0) rc = dl_jw_finish(&w);
	if (rc == 0) {
		char path[96];
		dl_log_commit_path(path, sizeof path, t->version);
		strcpy(path + strlen(path) - 4, "crc");
		rc = dl_store_put_if_absent(t->store, path, out.data, out.len);
		if (rc == DL_EEXISTS) {
			dl_error_clear();
			rc = 0;
		}
	}
	dl_buf_free(&out);
	dl_buf_free(&body);
	dl_arena_free(&arena);
	return rc;
}
