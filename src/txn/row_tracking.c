/* Row tracking across retries (PROTOCOL.md "Row Tracking", "Writer
 * Requirements for Row Tracking"): a commit's fresh files get row ids
 * (baseRowId) after the table's rowIdHighWaterMark and carry the version
 * that commits them (defaultRowCommitVersion). Both are fixed when the
 * write set is built, for the version after the read one; when winners
 * commit first, the ids are moved past the newest winner's mark and the
 * version follows the attempt, and the delta.rowTracking domain is
 * rewritten to match. Files re-added with ids of their own (ids at or
 * below the read mark, older commit versions) keep them. */
#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "txn/txn_internal.h"
#include "util/error.h"
#include "util/mem.h"

int64_t dl_txn_row_id_hwm(const char *configuration)
{
	if (!configuration) return -1;
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	int64_t hwm = -1;
	if (dl_json_parse(&a, configuration, strlen(configuration), "delta.rowTracking", &v) == 0) {
		const dl_json *m = dl_json_get(v, "rowIdHighWaterMark");
		if (!m || dl_json_int64(m, &hwm) < 0) hwm = -1;
	} else {
		dl_error_clear();
	}
	dl_arena_free(&a);
	return hwm;
}

static int rebase_line(dl_buf *out, const char *line, size_t len, const txn_rows *r, int64_t delta,
                       int64_t version)
{
	dl_arena a = DL_ARENA_INIT;
	dl_json *v;
	dl_action act;
	int rc = dl_json_parse(&a, line, len, "the commit being retried", &v);
	if (rc == 0) rc = dl_action_from_json(&act, &a, v, "the commit being retried");
	if (rc == 0) {
		dl_add *add = &act.u.add;
		bool fresh = add->base_row_id != DL_NONE && add->base_row_id > r->read_hwm + r->shift;
		if (fresh) add->base_row_id += delta;
		if (add->default_row_commit_version == r->version) add->default_row_commit_version = version;
		rc = dl_action_to_json(out, &act);
	}
	if (rc == 0) rc = dl_buf_putc(out, '\n');
	dl_arena_free(&a);
	return rc;
}

static int set_domain_hwm(dl_transaction *t, int64_t hwm)
{
	for (size_t i = 0; i < t->ndomains; i++) {
		if (strcmp(t->domains[i].domain, "delta.rowTracking") != 0) continue;
		char conf[64];
		snprintf(conf, sizeof conf, "{\"rowIdHighWaterMark\":%lld}", (long long)hwm);
		char *c = dl_strdup(conf);
		if (!c) return DL_ENOMEM;
		dl_free(t->domains[i].configuration);
		t->domains[i].configuration = c;
	}
	return 0;
}

int dl_txn_rebase_rows(dl_transaction *t, int64_t version)
{
	txn_rows *r = &t->rows;
	if (!r->tracked) return 0;
	if (!r->read_known) {
		/* a metadata-only read state: the fresh ids start right after the mark */
		r->read_hwm = r->min_fresh_base != INT64_MAX ? r->min_fresh_base - 1 : r->own_hwm;
		r->read_known = true;
	}
	int64_t delta = 0;
	if (t->winners.row_id_hwm > r->read_hwm + r->shift)
		delta = t->winners.row_id_hwm - (r->read_hwm + r->shift);
	if (delta == 0 && version == r->version) return 0;
	dl_buf out = DL_BUF_INIT;
	const char *p = t->file_lines.data, *end = p + t->file_lines.len;
	int rc = 0;
	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (len > 7 && memcmp(p, "{\"add\":", 7) == 0) {
			rc = rebase_line(&out, p, len, r, delta, version);
		} else {
			rc = dl_buf_append(&out, p, len);
			if (rc == 0) rc = dl_buf_putc(&out, '\n');
		}
		p += len + 1;
	}
	if (rc == 0 && delta) rc = set_domain_hwm(t, r->own_hwm + r->shift + delta);
	if (rc < 0) {
		dl_buf_free(&out);
		return rc;
	}
	dl_buf_free(&t->file_lines);
	t->file_lines = out;
	r->shift += delta;
	r->version = version;
	return 0;
}
