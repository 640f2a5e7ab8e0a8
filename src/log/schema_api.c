/* The public schema walk (deltalake/schema.h) over log/schema.c's parse:
 * the dl_type tree flattened into an array in which every struct's fields
 * form one block, filled breadth first, so a caller walks it with indexes
 * and never sees a dl_type. */
#include <string.h>
#include "deltalake/schema.h"
#include "log/schema.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/mem.h"

struct dl_schema {
	dl_type *type;
	dl_schema_field *fields;
	size_t n, cap;
	size_t ncolumns;
	dl_arena arena; /* type text */
};

/* The struct whose fields are a field's children: its own type, or what
 * its arrays' elements / maps' values finally are. */
static const dl_type *child_struct(const dl_type *t)
{
	while (t && (t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP))
		t = t->id == DL_TYPE_ARRAY ? t->children[0].type : t->children[1].type;
	return t && t->id == DL_TYPE_STRUCT ? t : NULL;
}

static int count_fields(const dl_type *st, size_t *n, int depth)
{
	if (depth > 1000) return dl_error_set(DL_ECORRUPT, "the schema nests deeper than 1000 levels");
	for (int i = 0; i < st->nchildren; i++) {
		(*n)++;
		const dl_type *c = child_struct(st->children[i].type);
		if (c) DL_TRY(count_fields(c, n, depth + 1));
	}
	return 0;
}

/* Places the fields of `st` at s->fields[at..] and their children after
 * everything placed so far. */
static int place(dl_schema *s, const dl_type *st, size_t at, size_t parent, int depth)
{
	/* first the block, then each child's block (breadth first per level) */
	for (int i = 0; i < st->nchildren; i++) {
		const dl_field *f = &st->children[i];
		dl_schema_field *o = &s->fields[at + (size_t)i];
		char type[4096];
		dl_type_sql(f->type, type, sizeof type);
		o->name = f->name;
		o->type_sql = dl_arena_strdup(&s->arena, type);
		if (!o->type_sql) return DL_ENOMEM;
		o->nullable = f->nullable;
		o->metadata = f->metadata ? f->metadata : "{}";
		o->parent = parent;
		o->depth = depth;
		o->first_child = 0;
		o->nchildren = 0;
	}
	for (int i = 0; i < st->nchildren; i++) {
		const dl_type *c = child_struct(st->children[i].type);
		if (!c || c->nchildren == 0) continue;
		size_t first = s->n;
		s->n += (size_t)c->nchildren;
		s->fields[at + (size_t)i].first_child = first;
		s->fields[at + (size_t)i].nchildren = (size_t)c->nchildren;
		DL_TRY(place(s, c, first, at + (size_t)i, depth + 1));
	}
	return 0;
}

int dl_schema_parse_json(dl_schema **out, const char *json)
{
	*out = NULL;
	if (!json) return dl_error_set(DL_EINVALID, "no schema JSON");
	dl_schema *s = dl_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	s->arena = (dl_arena)DL_ARENA_INIT;
	int rc = dl_schema_parse(&s->type, json, strlen(json));
	size_t total = 0;
	if (rc == 0) rc = count_fields(s->type, &total, 0);
	if (rc == 0) {
		s->fields = dl_calloc(total ? total : 1, sizeof *s->fields);
		if (!s->fields) rc = DL_ENOMEM;
	}
	if (rc == 0) {
		s->cap = total;
		s->ncolumns = (size_t)s->type->nchildren;
		s->n = s->ncolumns;
		rc = place(s, s->type, 0, DL_SCHEMA_NO_PARENT, 0);
	}
	if (rc < 0) {
		dl_schema_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void dl_schema_free(dl_schema *s)
{
	if (!s) return;
	dl_type_unref(s->type);
	dl_free(s->fields);
	dl_arena_free(&s->arena);
	dl_free(s);
}

size_t dl_schema_column_count(const dl_schema *s)
{
	return s->ncolumns;
}

size_t dl_schema_field_count(const dl_schema *s)
{
	return s->n;
}

int dl_schema_field_at(dl_schema_field *out, const dl_schema *s, size_t i)
{
	memset(out, 0, sizeof *out);
	if (i >= s->n) return dl_error_set(DL_EINVALID, "schema field %zu of %zu", i, s->n);
	*out = s->fields[i];
	return 0;
}
