/* Constants of the Arrow IPC metadata (format/Schema.fbs and
 * format/Message.fbs of apache/arrow): union tags, enum values and the field
 * ids of the tables, shared by the IPC writer and reader. */
#ifndef DL_COLUMNAR_IPC_FORMAT_H
#define DL_COLUMNAR_IPC_FORMAT_H

/* union Type */
enum {
	TYPE_NULL = 1, TYPE_INT = 2, TYPE_FLOAT = 3, TYPE_BINARY = 4, TYPE_UTF8 = 5, TYPE_BOOL = 6,
	TYPE_DECIMAL = 7, TYPE_DATE = 8, TYPE_TIMESTAMP = 10, TYPE_LIST = 12, TYPE_STRUCT = 13, TYPE_MAP = 17,
};
/* union MessageHeader */
enum { HEADER_SCHEMA = 1, HEADER_DICTIONARY_BATCH = 2, HEADER_RECORD_BATCH = 3 };
/* enum MetadataVersion */
enum { METADATA_V4 = 3, METADATA_V5 = 4 };
/* enum Precision, DateUnit, TimeUnit */
enum { PRECISION_HALF = 0, PRECISION_SINGLE = 1, PRECISION_DOUBLE = 2 };
enum { DATE_DAY = 0, DATE_MILLISECOND = 1 };
enum { UNIT_SECOND = 0, UNIT_MILLISECOND = 1, UNIT_MICROSECOND = 2, UNIT_NANOSECOND = 3 };
/* table Field (a union takes two ids: its tag, then its value) */
enum { FIELD_NAME = 0, FIELD_NULLABLE = 1, FIELD_TYPE_TYPE = 2, FIELD_TYPE = 3, FIELD_DICTIONARY = 4,
       FIELD_CHILDREN = 5, FIELD_METADATA = 6 };
/* table Message */
enum { MSG_VERSION = 0, MSG_HEADER_TYPE = 1, MSG_HEADER = 2, MSG_BODY_LENGTH = 3 };
/* table RecordBatch */
enum { RB_LENGTH = 0, RB_NODES = 1, RB_BUFFERS = 2, RB_COMPRESSION = 3 };
/* table Schema */
enum { SCHEMA_ENDIANNESS = 0, SCHEMA_FIELDS = 1 };

#endif
