/* Delta schema (a dl_type struct) to Parquet schema, as parquet-mr writes
 * it for Spark: logical AND converted types, 3-level lists, MAP key_value
 * groups, decimals sized by precision, field ids from field metadata.
 *
 * Besides the flattened SchemaElement list, each leaf column gets the walk
 * from its top-level Arrow array down to its values (the "steps"), which
 * the column writer follows to compute definition and repetition levels. */
#ifndef DL_PARQUET_SCHEMA_WRITE_H
#define DL_PARQUET_SCHEMA_WRITE_H
#include "columnar/types.h"
#include "parquet/metadata.h"
#include "util/arena.h"

typedef enum pq_step_kind {
	PQ_STEP_LEAF,     /* values of the leaf array */
	PQ_STEP_STRUCT,   /* go to children[child] at the same index */
	PQ_STEP_REPEATED, /* list or map: offsets, then children[0] per element */
} pq_step_kind;

typedef struct pq_step {
	pq_step_kind kind;
	bool optional;  /* this node is OPTIONAL: a null here stops at def */
	int child;      /* PQ_STEP_STRUCT */
	int rep_level;  /* PQ_STEP_REPEATED: repetition level of its elements */
} pq_step;

typedef struct pq_leaf {
	pq_step *steps;
	int nsteps;
	int top;              /* column of the batch the walk starts from */
	int max_def, max_rep;
	pq_type phys;
	int type_length;      /* FIXED_LEN_BYTE_ARRAY */
	const dl_type *type;  /* the Delta type of the leaf */
	char **path;          /* path_in_schema */
	int npath;
	int schema_index;     /* its SchemaElement */
	bool utf8;            /* strings: truncate statistics at characters */
} pq_leaf;

typedef struct pq_wschema {
	pq_schema_element *elems;
	uint32_t nelems;
	pq_leaf *leaves;
	int nleaves;
	dl_arena arena; /* everything above lives here */
} pq_wschema;

/* Builds the Parquet schema of a struct type; `root_name` names the root
 * ("schema" when NULL). DL_EUNSUPPORTED for types Parquet cannot hold. */
int pq_wschema_build(pq_wschema *out, const dl_type *schema, const char *root_name);
void pq_wschema_free(pq_wschema *s);

/* Bytes of a FIXED_LEN_BYTE_ARRAY decimal of this precision (parquet-mr). */
int pq_decimal_bytes(int precision);
/* Field id from Delta field metadata JSON ("delta.columnMapping.id", else
 * "parquet.field.id"); false when absent. */
bool pq_field_id_from_metadata(const char *json, int32_t *out);

#endif
