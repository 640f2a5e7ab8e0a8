/* Editing a Delta schema by column path, for the ALTER TABLE column forms.
 *
 * A path is a list of names from the top-level struct down, as Spark's
 * ALTER TABLE spells it: struct fields by name (case-insensitively), and
 * "element" / "key" / "value" stepping into an array or map
 * ("a.element.v3", "m.value.x"). Text paths are dot-separated with
 * backquotes around names holding dots ("`z.z`.`y.y`").
 *
 * Types are immutable and shared, so an edit rebuilds the containers on
 * the path bottom-up and shares every other subtree. */
#ifndef DL_ALTER_SCHEMA_EDIT_H
#define DL_ALTER_SCHEMA_EDIT_H
#include <stdbool.h>
#include "columnar/types.h"
#include "util/arena.h"
#include "util/buf.h"

typedef struct se_path {
	char **parts;
	int n;
} se_path;

/* Parses "a.b", "`a.b`.c" (`` inside backquotes is one `) into `arena`. */
int se_path_parse(se_path *out, dl_arena *arena, const char *text);

/* The index of step `name` in container `t`: a struct field
 * (case-insensitive), or 0 for "element", 0/1 for "key"/"value"; -1 when
 * there is none. */
int se_child_index(const dl_type *t, const char *name);

/* The type at parts[0..n) of `root`, NULL when a step does not resolve
 * (*depth: how many steps did). */
const dl_type *se_resolve(const dl_type *root, const char *const *parts, int n, int *depth);

/* fn makes the replacement of `container` (the type at the path). */
typedef int (*se_edit_fn)(dl_type **out, const dl_type *container, void *payload);

/* `root` with the type at parts[0..n) replaced by what fn makes of it
 * (new reference). DL_EINVALID when the path does not resolve. */
int se_edit_at(dl_type **out, const dl_type *root, const char *const *parts, int n,
               se_edit_fn fn, void *payload);

/* `t` (struct, array or map) with child i's type replaced by `child`
 * (borrowed) and, when meta is not NULL, struct field i's metadata too. */
int se_with_child(dl_type **out, const dl_type *t, int i, dl_type *child, const char *meta);

/* Field metadata JSON `meta` with `key` set to the encoded JSON `raw`
 * (NULL: removed); malloc'd into *out. Other members keep their order. */
int se_meta_set(char **out, const char *meta, const char *key, const char *raw);
/* The JSON text of a string value (quoted, escaped); malloc'd. */
char *se_json_string(const char *s);

/* `t` without the metadata members `keys` in any field at any depth (new
 * reference): delta.typeChanges when type widening is dropped, the column
 * mapping ids and physical names when column mapping is. */
int se_strip_meta(dl_type **out, const dl_type *t, const char *const *keys, int n);

/* True when any field at any depth has metadata key `key`. */
bool se_any_field_has(const dl_type *t, const char *key);

#endif
