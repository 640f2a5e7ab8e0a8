/* What the property, constraint and feature forms of ALTER TABLE share
 * (properties*.c, constraints.c, features*.c, drop_feature*.c): the table
 * opened at its latest version, one transaction on it, and staging a new
 * configuration / schema as the metaData and protocol actions Spark commits
 * for it (the protocol chosen as CREATE chooses it, never below the
 * table's: ops/protocol_choose.h). */
#ifndef DL_ALTER_PROPERTIES_INTERNAL_H
#define DL_ALTER_PROPERTIES_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "alter/alter_txn.h"
#include "deltalake/alter.h"
#include "deltalake/snapshot.h"
#include "log/actions.h"
#include "log/snapshot.h"
#include "txn/txn.h"
#include "util/arena.h"

/* The shared ALTER transaction (alter_txn.h: options, store, latest
 * snapshot, transaction, arena) and what ap_stage adds to it. Open with
 * ap_open, start each commit with dl_alter_start,
 * dl_alter_refresh between the commits of a multi-step command such as DROP
 * FEATURE, close with dl_alter_end. */
typedef struct ap_ctx {
	dl_alter_txn t;
	bool set_description;    /* ap_stage: replace the description by... */
	const char *description; /* ...this (NULL: none) */
} ap_ctx;

/* dl_alter_open with the rest of the context cleared. */
static inline int ap_open(ap_ctx *c, const char *uri, const dl_alter_options *opts)
{
	memset(c, 0, sizeof *c);
	return dl_alter_open(&c->t, uri, opts);
}

static inline const dl_metadata *ap_md(const ap_ctx *c) { return dl_alter_read_metadata(&c->t); }
static inline const dl_protocol *ap_proto(const ap_ctx *c) { return dl_alter_read_protocol(&c->t); }
/* The table's name in messages: its catalog name or the uri. */
static inline const char *ap_table_name(const ap_ctx *c)
{
	const dl_metadata *m = ap_md(c);
	return m && m->name ? m->name : c->t.uri;
}

/* Stages metaData (the current one with `conf` - protocol-only keys such
 * as delta.feature.* dropped - and `schema`, NULL: unchanged) and, when it
 * differs, the protocol: `protocol` if given, else what the schema and
 * configuration need on top of the table's (ops/protocol_choose.h). With
 * row tracking supported the materialized column names are added as CREATE
 * adds them. *out_protocol (may be NULL) gets the protocol committed. */
int ap_stage(ap_ctx *c, const dl_str_map *conf, const dl_type *schema, const dl_protocol *protocol,
             const dl_protocol **out_protocol);

/* Configuration maps in c->arena. */
int ap_conf_copy(dl_str_map *out, ap_ctx *c, const dl_str_map *in, size_t extra);
/* Sets key (replacing an existing one, exact match) in a map from
 * ap_conf_copy with room for it. */
int ap_conf_put(dl_str_map *m, ap_ctx *c, const char *key, const char *value);
/* Removes key (exact match); true when it was there. */
bool ap_conf_remove(dl_str_map *m, const char *key);

/* properties_effects.c: what a new configuration does beyond itself - the
 * column mapping upgrade (none -> name, physical names = logical names),
 * refused mode changes, and the row tracking backfill (every file without
 * a baseRowId re-added with one, dataChange false, in the same commit). */
/* *schema: NULL when the schema stays; conf gets maxColumnId (room for
 * one more key needed). */
int ap_column_mapping_change(dl_type **schema, ap_ctx *c, dl_str_map *conf);
int ap_backfill_row_ids(ap_ctx *c, int64_t *nfiles);

/* drop_feature_mapping.c: Spark's RemoveColumnMappingCommand - every live
 * file rewritten with the logical names, the mode (kept as "none" when
 * keep_mode_none, else removed), maxColumnId, ids and physical names gone,
 * one commit; c->t.snap is the latest version afterwards. */
int ap_remove_column_mapping(ap_ctx *c, bool keep_mode_none);

/* features.c: the protocol with `feature` (and what it requires) added
 * (DL_EUNSUPPORTED for a feature this library cannot write). */
int ap_protocol_with_feature(dl_protocol *out, ap_ctx *c, const dl_protocol *p, const char *feature);
/* The protocol without `feature` and with `add` (-1: none; appended last,
 * as Spark's denormalized.withFeature), in the lowest form that represents
 * exactly what remains (Spark's removeFeature +
 * downgradeProtocolVersionsIfNeeded). */
int ap_protocol_without_feature(dl_protocol *out, ap_ctx *c, const dl_protocol *p, int feature, int add);
/* The protocol as JSON text (messages, operationParameters); malloc'd. */
char *ap_protocol_text(const dl_protocol *p);

#endif
