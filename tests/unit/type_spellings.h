/* Every SQL type spelling with the type it means, shared by the tests that
 * check CAST, DDL schemas and the SQL layer read them identically (one
 * type grammar: expr/type_parse.c). want is dl_type_sql's text. */
#ifndef DL_TEST_TYPE_SPELLINGS_H
#define DL_TEST_TYPE_SPELLINGS_H

static const char *const type_spellings[][2] = {
    {"BOOLEAN", "BOOLEAN"},
    {"BOOL", "BOOLEAN"},
    {"bool", "BOOLEAN"},
    {"TINYINT", "TINYINT"},
    {"BYTE", "TINYINT"},
    {"SMALLINT", "SMALLINT"},
    {"SHORT", "SMALLINT"},
    {"INT", "INT"},
    {"INTEGER", "INT"},
    {"BIGINT", "BIGINT"},
    {"LONG", "BIGINT"},
    {"FLOAT", "FLOAT"},
    {"REAL", "FLOAT"},
    {"DOUBLE", "DOUBLE"},
    {"DOUBLE PRECISION", "DOUBLE"},
    {"STRING", "STRING"},
    {"VARCHAR(10)", "STRING"},
    {"CHAR(3)", "STRING"},
    {"CHARACTER(3)", "STRING"},
    {"BINARY", "BINARY"},
    {"DATE", "DATE"},
    {"TIMESTAMP", "TIMESTAMP"},
    {"TIMESTAMP_LTZ", "TIMESTAMP"},
    {"TIMESTAMP_NTZ", "TIMESTAMP_NTZ"},
    {"DECIMAL", "DECIMAL(10,0)"},
    {"DECIMAL(5)", "DECIMAL(5,0)"},
    {"DECIMAL(10, 2)", "DECIMAL(10,2)"},
    {"DEC(38,38)", "DECIMAL(38,38)"},
    {"NUMERIC(4,1)", "DECIMAL(4,1)"},
    {"ARRAY<INT>", "ARRAY<INT>"},
    {"ARRAY<ARRAY<BOOL>>", "ARRAY<ARRAY<BOOLEAN>>"},
    {"MAP<STRING, DOUBLE PRECISION>", "MAP<STRING, DOUBLE>"},
    {"STRUCT<a: INT, b STRING>", "STRUCT<a: INT, b: STRING>"},
    {"STRUCT<a: INT NOT NULL COMMENT 'x', `b c`: ARRAY<LONG>>", "STRUCT<a: INT, `b c`: ARRAY<BIGINT>>"},
    {"STRUCT<>", "STRUCT<>"},
    {"VOID", "VOID"},
};

/* Spellings every reader refuses. */
static const char *const bad_type_spellings[] = {
    "INTEGR", "DECIMAL(39,0)", "DECIMAL(5,6)", "ARRAY<INT", "MAP<INT>", "VARCHAR", "STRUCT<a INT",
};

#endif
