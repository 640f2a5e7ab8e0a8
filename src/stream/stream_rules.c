/* Whether a commit may be read by the stream.
 *
 * Spark's DeltaSource.validateCommitAndDecideSkipping: a commit with a
 * data-changing remove is an update when it also adds data, a delete when
 * it does not. Updates need ignoreChanges (their added files are read
 * again, so unchanged rows repeat) or skipChangeCommits (the commit is
 * skipped whole); deletes need one of those or ignoreDeletes. A metaData
 * action is checked against the stream's schema
 * (checkReadIncompatibleSchemaChanges). With readChangeFeed the removal
 * rules do not apply: the feed says what changed (deltalake/changes.h). */
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include "log/schema.h"
#include "stream/stream_internal.h"
#include "util/error.h"

int dl_stream_check_commit(bool *skip, dl_stream *s, const st_commit *c, int64_t version)
{
	*skip = false;
	bool seen_add = false;
	const char *removed = NULL, *operation = NULL;
	for (size_t i = 0; i < c->n; i++) {
		const dl_action *a = &c->items[i];
		if (a->kind == DL_ACTION_ADD && a->u.add.data_change) seen_add = true;
		else if (a->kind == DL_ACTION_REMOVE && a->u.remove.data_change && !removed) removed = a->u.remove.path;
		else if (a->kind == DL_ACTION_COMMIT_INFO) operation = a->u.commit_info.operation;
		else if (a->kind == DL_ACTION_METADATA) DL_TRY(dl_stream_check_schema(s, &a->u.metadata, version));
	}
	if (s->o.read_change_feed || !removed) return 0;
	const dl_stream_options *o = &s->o;
	*skip = o->skip_change_commits;
	bool allow_changes = o->ignore_changes || o->skip_change_commits;
	bool allow_deletes = allow_changes || o->ignore_deletes;
	if (seen_add && !allow_changes)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_SOURCE_TABLE_IGNORE_CHANGES",
		                          "[DELTA_SOURCE_TABLE_IGNORE_CHANGES] Detected a data update (for example %s) "
		                          "in the source table at version %" PRId64 " (operation %s). This is currently "
		                          "not supported. If you'd like to ignore updates, set the option "
		                          "'skipChangeCommits' to 'true'. If you would like the data update to be "
		                          "reflected, please restart this query with a fresh checkpoint directory. The "
		                          "source table can be found at path %s.",
		                          removed, version, operation ? operation : "unknown", s->table);
	if (!seen_add && !allow_deletes)
		return dl_error_set_class(DL_EUNSUPPORTED, "DELTA_SOURCE_IGNORE_DELETE",
		                          "[DELTA_SOURCE_IGNORE_DELETE] Detected deleted data (for example %s) from "
		                          "streaming source at version %"
		                          PRId64 ". This is currently not supported. If you'd like to ignore deletes, "
		                          "set the option 'ignoreDeletes' to 'true'. The source table can be found at "
		                          "path %s.", removed, version, s->table);
	return 0;
}

/* The stream's schema must still be readable from the new one: every
 * column there, with its type, and not newly nullable. */
int dl_stream_check_schema(dl_stream *s, const dl_metadata *m, int64_t version)
{
	const dl_type *old = dl_snapshot_schema(s->read_snap);
	if (!old || !m->schema_string) return 0;
	dl_type *nw;
	int rc = dl_schema_parse(&nw, m->schema_string, strlen(m->schema_string));
	if (rc < 0) return dl_error_prefix("the schema of version %" PRId64, version);
	bool ok = true;
	for (int i = 0; ok && i < old->nchildren; i++) {
		const dl_field *f = &old->children[i], *g = NULL;
		for (int j = 0; j < nw->nchildren && !g; j++)
			if (strcasecmp(nw->children[j].name, f->name) == 0) g = &nw->children[j];
		ok = g && dl_type_equals(f->type, g->type) && (f->nullable || !g->nullable);
	}
	dl_type_unref(nw);
	if (ok) return 0;
	return dl_error_set_class(DL_ESCHEMA, "DELTA_SCHEMA_CHANGED_WITH_VERSION",
	                          "Detected schema change in version %" PRId64 " of %s: the streaming source "
	                          "schema (of version %" PRId64 ") is not readable from the data file schema %s. "
	                          "Please try restarting the query; if this repeats without making progress, "
	                          "you made an incompatible schema change and need to start from scratch using "
	                          "a new checkpoint directory",
	                          version, s->table, dl_snapshot_version(s->read_snap), m->schema_string);
}
