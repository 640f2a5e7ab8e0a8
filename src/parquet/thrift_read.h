/* Decoder of the Thrift compact protocol, the encoding of Parquet's footer
 * and page headers. Input is hostile: every length is checked against the
 * bytes left, list sizes are capped, and skipping unknown fields has a
 * depth limit, so no input can crash, hang or allocate without bound. */
#ifndef DL_PARQUET_THRIFT_READ_H
#define DL_PARQUET_THRIFT_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compact protocol element types. */
enum {
	TC_STOP = 0, TC_TRUE = 1, TC_FALSE = 2, TC_BYTE = 3, TC_I16 = 4, TC_I32 = 5,
	TC_I64 = 6, TC_DOUBLE = 7, TC_BINARY = 8, TC_LIST = 9, TC_SET = 10, TC_MAP = 11,
	TC_STRUCT = 12,
};

#define PQ_THRIFT_MAX_DEPTH 64
#define PQ_THRIFT_MAX_LIST (1 << 24)

typedef struct pq_thrift {
	const uint8_t *p;
	const uint8_t *end;
	const uint8_t *start;
	const char *what;  /* names the source in error messages */
	int depth;         /* struct nesting depth */
	int16_t last_id[PQ_THRIFT_MAX_DEPTH + 1]; /* previous field id per depth */
	int bool_value;    /* value of a bool field carried in its header */
} pq_thrift;

void pq_thrift_init(pq_thrift *t, const uint8_t *p, size_t len, const char *what);
/* Bytes consumed so far. */
size_t pq_thrift_pos(const pq_thrift *t);

/* Struct framing: begin before reading fields, end after TC_STOP. */
int pq_thrift_struct_begin(pq_thrift *t);
void pq_thrift_struct_end(pq_thrift *t);
/* Next field header: *type TC_STOP at the end of the struct. */
int pq_thrift_field(pq_thrift *t, int *type, int16_t *id);

int pq_thrift_i32(pq_thrift *t, int32_t *out);
int pq_thrift_i64(pq_thrift *t, int64_t *out);
int pq_thrift_byte(pq_thrift *t, int8_t *out);
int pq_thrift_double(pq_thrift *t, double *out);
/* A bool field: its value travels in the field header (type TC_TRUE/FALSE). */
int pq_thrift_bool_field(pq_thrift *t, int type, bool *out);
/* A bool list element: one byte. */
int pq_thrift_bool_elem(pq_thrift *t, bool *out);
/* Binary/string: points into the input (not NUL-terminated). */
int pq_thrift_binary(pq_thrift *t, const uint8_t **p, uint32_t *len);
/* List or set header; *count is capped at PQ_THRIFT_MAX_LIST and at the
 * bytes left (every element takes at least one byte, except bools... which
 * also take one in lists). */
int pq_thrift_list(pq_thrift *t, int *elem_type, uint32_t *count);
/* Skips a value of the given type (recursion depth-limited). */
int pq_thrift_skip(pq_thrift *t, int type);
/* Checks that a field has the expected wire type (ints accept any width). */
int pq_thrift_expect(pq_thrift *t, int type, int want, const char *field);
/* Raises DL_ECORRUPT "<what>: <msg> at byte N". */
int pq_thrift_corrupt(pq_thrift *t, const char *msg);

#endif
