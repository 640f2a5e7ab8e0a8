/* The Parquet schema (a flattened tree of SchemaElements) as a tree of
 * nodes with definition/repetition levels, its conversion to a dl_type, and
 * the "assembly plan" that tells column_read.c how to turn each leaf's
 * levels and values into Arrow arrays, following LogicalTypes.md including
 * its backward-compatibility rules for lists and maps. */
#ifndef DL_PARQUET_SCHEMA_READ_H
#define DL_PARQUET_SCHEMA_READ_H
#include "columnar/types.h"
#include "parquet/metadata.h"

#define PQ_MAX_SCHEMA_DEPTH 64

/* How a leaf's physical values become the output type's values. */
typedef enum pq_conv {
	PQ_CONV_NONE,        /* same layout (int32, int64, float, double, bytes) */
	PQ_CONV_BOOL,        /* 1 byte per value -> bits */
	PQ_CONV_I32_I8,      /* INT32 -> int8 */
	PQ_CONV_I32_I16,     /* INT32 -> int16 (also uint8) */
	PQ_CONV_U32_I64,     /* INT32 holding uint32 -> int64 */
	PQ_CONV_I32_DEC,     /* INT32 decimal -> 128-bit */
	PQ_CONV_I64_DEC,     /* INT64 decimal -> 128-bit */
	PQ_CONV_U64_DEC,     /* INT64 holding uint64 -> decimal(20,0) */
	PQ_CONV_MILLIS,      /* INT64 millis -> micros */
	PQ_CONV_NANOS,       /* INT64 nanos -> micros (floor) */
	PQ_CONV_INT96,       /* INT96 (nanos of day, Julian day) -> micros UTC */
	PQ_CONV_FLBA_DEC,    /* big-endian two's complement -> 128-bit */
	PQ_CONV_BA_DEC,      /* same, variable length */
	PQ_CONV_FLBA_BIN,    /* FIXED_LEN_BYTE_ARRAY -> binary */
	PQ_CONV_UUID,        /* FIXED[16] -> canonical 36-char string */
	PQ_CONV_F16,         /* FIXED[2] half float -> float */
} pq_conv;

typedef struct pq_node pq_node;
struct pq_node {
	const pq_schema_element *el;
	pq_node *parent;
	pq_node *children;
	int nchildren;
	int16_t def; /* max definition level at this node */
	int16_t rep; /* max repetition level at this node */
	int first_leaf; /* leaf range under this node */
	int nleaves;
	int depth;
};

/* One leaf column (a primitive SchemaElement). */
typedef struct pq_rleaf {
	pq_node *node;
	const pq_schema_element *el;
	int16_t max_def, max_rep;
	dl_type *type;   /* output type of its values */
	pq_conv conv;
	int phys_width;  /* bytes of one plain value; 0 for BYTE_ARRAY, 1 for BOOLEAN */
	char *path;      /* dotted path for messages */
} pq_rleaf;

/* Assembly plan: one node per output array. */
typedef enum pq_out_kind {
	PQ_OUT_LEAF, PQ_OUT_STRUCT, PQ_OUT_LIST, PQ_OUT_MAP, PQ_OUT_ABSENT,
	PQ_OUT_VARIANT, /* a shredded variant group: children value, metadata, typed_value */
} pq_out_kind;

typedef struct pq_out pq_out;
struct pq_out {
	pq_out_kind kind;
	dl_type *type;   /* reference */
	bool nullable;   /* validity from def >= def */
	int16_t def;     /* level at which an entry is non-null */
	int16_t rep_ctx; /* an entry starts where rep <= rep_ctx ... */
	int16_t def_ctx; /* ... and def >= def_ctx */
	int leaf;        /* LEAF: its column; others: a leaf giving the levels (-1 for ABSENT) */
	int nchildren;
	pq_out *children;
};

typedef struct pq_schema {
	pq_node *nodes; /* nodes[0] is the root */
	int nnodes;
	pq_rleaf *leaves;
	int nleaves;
	dl_type *type;  /* struct of the top-level fields */
	pq_out root;    /* STRUCT plan of the whole file */
} pq_schema;

/* Builds the schema of a file. `what` names the file in errors. */
int pq_schema_build(pq_schema *out, const pq_file_metadata *md, const char *what);
void pq_schema_free(pq_schema *s);

/* Builds a plan selecting `requested` (a struct type) out of the file: fields
 * are matched by name case-insensitively, or by their "parquet.field.id"
 * metadata when by_field_id; fields missing from the file become ABSENT
 * (all null). Integer/float widening to the requested type is allowed. */
int pq_plan_project(pq_out *out, const pq_schema *s, const dl_type *requested, bool by_field_id,
                    const char *what);
/* A deep copy of part of the file plan. */
int pq_plan_copy(pq_out *out, const pq_out *src);
void pq_plan_free(pq_out *p);
/* Marks in `need` (nleaves bools) the leaves the plan reads, and in
 * `values` those whose values (not just levels) are needed. */
void pq_plan_leaves(const pq_out *p, bool *need, bool *values);

#endif
