/* dl_type / dl_array / dl_batch <-> Arrow C Data Interface.
 *
 * Export moves: the dl_array (or batch) is owned by the exported ArrowArray
 * from then on and freed when the consumer releases it (children exported
 * with it may be moved out and released in any order: a shared reference
 * count keeps the buffers alive until the last one goes). Buffers are handed
 * over without copies.
 *
 * Import moves too: the ArrowArray is taken over (its release set to NULL in
 * the caller's struct) and the buffers are borrowed through owner_release;
 * the producer's release callback runs once, when the last dl_array using it
 * is freed. What our layout cannot borrow is converted by copying: non-zero
 * offsets, 64-bit offsets ("U", "Z", "+L"), string/binary views ("vu",
 * "vz"), timestamps in other units, date64, and dictionary-encoded arrays
 * (decoded by gathering the dictionary). */
#ifndef DL_COLUMNAR_ARROW_C_H
#define DL_COLUMNAR_ARROW_C_H
#include "columnar/array.h"
#include "deltalake/arrow.h"

/* The Arrow format string of a type ("l", "d:10,2", "tsu:UTC", "+m"...). */
int dl_arrow_format(const dl_type *t, char *out, size_t cap);

/* A field's schema: name, nullability flag and Delta metadata JSON
 * (metadata may be NULL or "{}" for none). */
int dl_arrow_export_field(struct ArrowSchema *out, const dl_type *t, const char *name, bool nullable,
                          const char *metadata);
/* A batch schema: "+s" named "" whose children are the struct's fields. */
int dl_arrow_export_schema(struct ArrowSchema *out, const dl_type *schema);
/* Moves `a` into *out (on failure `a` is freed). */
int dl_arrow_export_array(struct ArrowArray *out, dl_array *a);
/* Moves the batch into *out as a struct array without nulls. */
int dl_arrow_export_batch(struct ArrowArray *out, dl_batch *b);

/* The type described by a schema (borrowed; not released). Struct children
 * become fields with their names, nullability and Delta metadata. */
int dl_arrow_import_type(dl_type **out, const struct ArrowSchema *schema);
/* Takes over `in` (released on failure too) as an array of `type`, which
 * must be the type imported from the array's schema. */
int dl_arrow_import_array(dl_array **out, struct ArrowArray *in, const struct ArrowSchema *schema);
/* A struct array (a record batch) as a dl_batch whose schema is `schema`'s
 * type: the struct's own validity is ignored, as record batches have none. */
int dl_arrow_import_batch(dl_batch **out, struct ArrowArray *in, const struct ArrowSchema *schema);

#endif
