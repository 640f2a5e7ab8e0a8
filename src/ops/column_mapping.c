/* Assigning column mapping ids and physical names (see column_mapping.h).
 * Types are immutable, so the schema is rebuilt bottom-up. */
#include "ops/column_mapping.h"
#include <stdio.h>
#include <string.h>
#include "json/json.h"
#include "log/schema.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/uuid.h"

char *dl_meta_prepend(const char *meta, const char *members)
{
	const char *body = meta ? strchr(meta, '{') : NULL;
	body = body ? body + 1 : "}";
	while (*body == ' ' || *body == '\n' || *body == '\t') body++;
	size_t n = strlen(members) + strlen(body) + 4;
	char *out = dl_malloc(n);
	if (!out) return NULL;
	snprintf(out, n, "{%s%s%s", members, *body == '}' ? "" : ",", body);
	return out;
}

static int copy_type(dl_type **out, const dl_type *t, int64_t *max_id, bool logical);

static int map_field(dl_field *dst, const dl_field *src, bool is_struct_field, int64_t *max_id,
                     bool logical)
{
	memset(dst, 0, sizeof *dst);
	dst->nullable = src->nullable;
	dst->name = dl_strdup(src->name);
	if (!dst->name) return DL_ENOMEM;
	/* Parents are numbered before their children, as Spark does. */
	int32_t id;
	bool needs = is_struct_field && (dl_field_column_id(src, &id) < 0 ||
	                                 !strstr(src->metadata ? src->metadata : "",
	                                         DL_CM_PHYSICAL_NAME_KEY));
	if (!needs) {
		dst->metadata = dl_strdup(src->metadata ? src->metadata : "{}");
	} else {
		char uuid[DL_UUID_TEXT_LEN + 5];
		if (logical) {
			/* The name as JSON string text (the physical name of an upgrade). */
			dl_buf nb = DL_BUF_INIT;
			dl_json_writer w;
			dl_jw_init(&w, &nb);
			dl_jw_string(&w, src->name);
			int rc = dl_jw_finish(&w);
			char *members = rc == 0 ? dl_malloc(nb.len + 80) : NULL;
			if (members)
				snprintf(members, nb.len + 80, "\"%s\":%lld,\"%s\":%s", DL_CM_ID_KEY,
				         (long long)++*max_id, DL_CM_PHYSICAL_NAME_KEY, nb.data);
			dst->metadata = members ? dl_meta_prepend(src->metadata, members) : NULL;
			dl_free(members);
			dl_buf_free(&nb);
			if (rc < 0) return rc;
		} else {
			memcpy(uuid, "col-", 4);
			DL_TRY(dl_uuid_v4(uuid + 4));
			char members[160];
			snprintf(members, sizeof members, "\"%s\":%lld,\"%s\":\"%s\"", DL_CM_ID_KEY,
			         (long long)++*max_id, DL_CM_PHYSICAL_NAME_KEY, uuid);
			dst->metadata = dl_meta_prepend(src->metadata, members);
		}
	}
	if (!dst->metadata) return DL_ENOMEM;
	return copy_type(&dst->type, src->type, max_id, logical);
}

static int copy_type(dl_type **out, const dl_type *t, int64_t *max_id, bool logical)
{
	if (t->nchildren == 0 || t->id == DL_TYPE_VARIANT) {
		*out = dl_type_ref((dl_type *)t);
		return 0;
	}
	dl_field *fs = dl_calloc((size_t)t->nchildren, sizeof *fs);
	if (!fs) return DL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < t->nchildren && rc == 0; i++)
		rc = map_field(&fs[i], &t->children[i], t->id == DL_TYPE_STRUCT, max_id, logical);
	if (rc == 0) {
		if (t->id == DL_TYPE_STRUCT) *out = dl_type_struct(fs, t->nchildren);
		else if (t->id == DL_TYPE_ARRAY) *out = dl_type_array(fs[0].type, fs[0].nullable);
		else *out = dl_type_map(fs[0].type, fs[1].type, fs[1].nullable);
		if (!*out) rc = DL_ENOMEM;
	}
	for (int i = 0; i < t->nchildren; i++) {
		dl_free(fs[i].name);
		dl_free(fs[i].metadata);
		dl_type_unref(fs[i].type);
	}
	dl_free(fs);
	return rc;
}

int dl_cm_assign(dl_type **out, const dl_type *schema, int64_t *max_id)
{
	int64_t have = dl_cm_max_id(schema);
	if (have > *max_id) *max_id = have;
	return copy_type(out, schema, max_id, false);
}

int dl_cm_assign_logical(dl_type **out, const dl_type *schema, int64_t *max_id)
{
	int64_t have = dl_cm_max_id(schema);
	if (have > *max_id) *max_id = have;
	return copy_type(out, schema, max_id, true);
}

int64_t dl_cm_max_id(const dl_type *t)
{
	int64_t m = 0;
	if (t->id == DL_TYPE_VARIANT) return 0;
	for (int i = 0; i < t->nchildren; i++) {
		int32_t id;
		if (t->id == DL_TYPE_STRUCT && dl_field_column_id(&t->children[i], &id) == 0 && id > m)
			m = id;
		int64_t c = dl_cm_max_id(t->children[i].type);
		if (c > m) m = c;
	}
	return m;
}
