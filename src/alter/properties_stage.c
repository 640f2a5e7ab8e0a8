/* Staging a whole new configuration / schema as the metaData and protocol
 * actions of the property, constraint and feature forms (see
 * properties_internal.h). Opening the table and the transaction is the
 * shared alter_txn.c. */
#include "alter/properties_internal.h"
#include <string.h>
#include "log/protocol.h"
#include "log/schema.h"
#include "log/table_features.h"
#include "ops/create.h"
#include "ops/protocol_choose.h"
#include "rewrite/rewrite.h"
#include "util/error.h"
#include "util/mem.h"

int ap_conf_copy(dl_str_map *out, ap_ctx *c, const dl_str_map *in, size_t extra)
{
	size_t n = in ? in->n : 0;
	dl_kv *kv = dl_arena_calloc(&c->t.arena, n + extra + 1, sizeof *kv);
	if (!kv) return DL_ENOMEM;
	if (n) memcpy(kv, in->items, n * sizeof *kv);
	out->items = kv;
	out->n = (uint32_t)n;
	return 0;
}

int ap_conf_put(dl_str_map *m, ap_ctx *c, const char *key, const char *value)
{
	char *k = dl_arena_strdup(&c->t.arena, key), *v = dl_arena_strdup(&c->t.arena, value);
	if (!k || !v) return DL_ENOMEM;
	for (uint32_t i = 0; i < m->n; i++) {
		if (strcmp(m->items[i].key, key) == 0) {
			m->items[i].value = v;
			return 0;
		}
	}
	m->items[m->n].key = k;
	m->items[m->n++].value = v;
	return 0;
}

bool ap_conf_remove(dl_str_map *m, const char *key)
{
	for (uint32_t i = 0; i < m->n; i++) {
		if (strcmp(m->items[i].key, key) == 0) {
			memmove(&m->items[i], &m->items[i + 1], (m->n - i - 1) * sizeof *m->items);
			m->n--;
			return true;
		}
	}
	return false;
}

int ap_stage(ap_ctx *c, const dl_str_map *conf, const dl_type *schema, const dl_protocol *protocol,
             const dl_protocol **out_protocol)
{
	const dl_metadata *old = ap_md(c);
	const dl_protocol *oldp = ap_proto(c);
	if (!schema) schema = dl_snapshot_schema(c->t.snap);
	dl_protocol *p = dl_arena_calloc(&c->t.arena, 1, sizeof *p);
	if (!p) return DL_ENOMEM;
	if (protocol) *p = *protocol;
	else DL_TRY(dl_ops_choose_protocol(p, &c->t.arena, schema, conf, oldp));
	/* metaData.configuration keeps no protocol-only keys */
	dl_str_map stored;
	DL_TRY(ap_conf_copy(&stored, c, NULL, conf->n));
	for (uint32_t i = 0; i < conf->n; i++)
		if (!dl_ops_is_protocol_property(conf->items[i].key)) stored.items[stored.n++] = conf->items[i];
	bool named;
	DL_TRY(dl_rewrite_row_tracking_names(&stored, &named, &c->t.arena, &stored,
	                                     dl_protocol_has(p, DL_FEATURE_ROW_TRACKING)));
	dl_metadata m = *old;
	m.configuration = stored;
	if (c->set_description) m.description = c->description;
	if (schema != dl_snapshot_schema(c->t.snap)) {
		dl_buf sj = DL_BUF_INIT;
		int rc = dl_schema_to_json(&sj, schema);
		m.schema_string = rc == 0 ? dl_arena_strdup(&c->t.arena, sj.data) : NULL;
		dl_buf_free(&sj);
		DL_TRY(rc);
		if (!m.schema_string) return DL_ENOMEM;
	}
	if (!dl_ops_protocol_equal(oldp, p)) DL_TRY(dl_txn_set_protocol(c->t.txn, p));
	if (out_protocol) *out_protocol = p;
	return dl_txn_set_metadata(c->t.txn, &m);
}
