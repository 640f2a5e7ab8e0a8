// DuckDB's answer for a variant_get filter on a table our writer wrote:
//   node variant_get_check.mjs <table dir>
// prints the ids (one per line, ascending) of the rows where the value at
// `a` cast to INT is above 10, computed by DuckDB's own VARIANT reader
// (variant_extract over the Parquet files) -- the oracle for
// try_variant_get(v, '$.a', 'int') > 10.
import path from 'node:path';

const oracle = path.resolve(process.env.DL_ORACLE_DIR || path.join(path.dirname(new URL(import.meta.url).pathname), '../../tools/oracle'));
const { DuckDBInstance } = await import('file://' + path.join(oracle, 'node_modules/@duckdb/node-api/lib/index.js'));
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const files = path.join(process.argv[2], '*.parquet').replaceAll("'", "''");
const r = await c.runAndReadAll(
  `SELECT id FROM read_parquet('${files}') WHERE TRY_CAST(variant_extract(v, 'a') AS INTEGER) > 10 ORDER BY id`);
for (const row of r.getRowObjectsJson()) console.log(row.id);
