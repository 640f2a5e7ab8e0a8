// DuckDB as an independent writer of shredded variants (it shreds VARIANT
// columns on COPY ... TO parquet since 1.5):
//   node variant_shred_oracle.mjs <dir>
//   node variant_shred_oracle.mjs --read <file>...
// writes one file per case below into <dir> and prints, per case, its file
// name and DuckDB's own JSON of each row (tab-separated), for the reader
// test (tests/unit/table/test_variant_shredding_duckdb.c) to compare with.
import path from 'node:path';

const oracle = path.resolve(process.env.DL_ORACLE_DIR || path.join(path.dirname(new URL(import.meta.url).pathname), '../../tools/oracle'));
const { DuckDBInstance } = await import('file://' + path.join(oracle, 'node_modules/@duckdb/node-api/lib/index.js'));

// Each case: rows of one VARIANT column (DuckDB infers one shredding schema
// per file from them; the odd rows out land in `value`).
const V = (s) => `'${s}'::JSON::VARIANT`;
const cases = {
  int8: ['42::TINYINT::VARIANT', '(-7)::TINYINT::VARIANT', "'x'::VARIANT"],
  int16: ['(-300)::SMALLINT::VARIANT', '300::SMALLINT::VARIANT'],
  int32: ['70000::INT::VARIANT', 'NULL::VARIANT', '(-1)::INT::VARIANT'],
  int64: ['(-5000000000)::BIGINT::VARIANT', '1::BIGINT::VARIANT', V('null')],
  float: ['1.5::FLOAT::VARIANT', '(-0.25)::FLOAT::VARIANT'],
  double: ['2.25::DOUBLE::VARIANT', '(-1e300)::DOUBLE::VARIANT'],
  decimal4: ['1.5::DECIMAL(9,2)::VARIANT', '(-1234567.89)::DECIMAL(9,2)::VARIANT'],
  decimal8: ['12345678901.25::DECIMAL(18,2)::VARIANT', '(-0.01)::DECIMAL(18,2)::VARIANT'],
  decimal16: ['1.5::DECIMAL(38,10)::VARIANT', '(-9876543210987654321.0123456789)::DECIMAL(38,10)::VARIANT'],
  date: ["DATE '2024-10-24'::VARIANT", "DATE '1969-12-31'::VARIANT"],
  timestamp: ["TIMESTAMPTZ '2024-10-24 01:02:03.456789+00'::VARIANT", "TIMESTAMPTZ '1970-01-01 00:00:00+00'::VARIANT"],
  timestamp_ntz: ["TIMESTAMP '2024-10-24 01:02:03.456789'::VARIANT", "TIMESTAMP '1900-01-01 00:00:00'::VARIANT"],
  timestamp_nanos: ["TIMESTAMP_NS '2024-10-24 01:02:03.123456789'::VARIANT", "TIMESTAMP_NS '2024-10-24 01:02:03.000001'::VARIANT"],
  time: ["TIME '01:02:03.5'::VARIANT", "TIME '23:59:59.999999'::VARIANT"],
  uuid: ["'6ba7b810-9dad-11d1-80b4-00c04fd430c8'::UUID::VARIANT", "'00000000-0000-0000-0000-000000000001'::UUID::VARIANT"],
  binary: ["'\\xAA\\xBB'::BLOB::VARIANT", "''::BLOB::VARIANT"],
  string: ["'short'::VARIANT", "repeat('long', 20)::VARIANT", "'h\u00e9'::VARIANT"],
  boolean: ['true::VARIANT', 'false::VARIANT'],
  object: [V('{"a":1,"b":"x"}'), V('{"a":"str","c":true}'), V('5'), V('null'), 'NULL::VARIANT',
           V('{"a":2,"b":null}'), V('{}'), V('[1,2]'), V('{"a":3,"b":"y","d":{"e":[1]}}')],
  array: [V('[1,2,3]'), V('[]'), V('[1,"two",null,[3]]'), V('{"k":1}'), V('[4]')],
  nested: [V('{"loc":{"lat":1.5,"lon":-2.25},"tags":["a","b"]}'), V('{"loc":{"lat":0.5,"alt":"high"},"tags":[]}'),
           V('{"loc":null,"tags":"none"}'), V('{"loc":{"lat":1.0,"lon":2.0},"tags":["c"]}')],
};

const db = await DuckDBInstance.create();
const c = await db.connect();
if (process.argv[2] === '--read') {
  // files our writer wrote: per file, its name, the type DuckDB gives
  // column v, and DuckDB's JSON of each row (tab-separated)
  for (const file of process.argv.slice(3)) {
    const t = await c.runAndReadAll(`SELECT column_type FROM (DESCRIBE SELECT v FROM '${file}')`);
    const r = await c.runAndReadAll(`SELECT v::JSON::VARCHAR AS j FROM '${file}'`);
    const js = r.getRowObjectsJson().map((o) => (o.j === null ? 'NULL' : o.j));
    console.log([path.basename(file), t.getRowObjectsJson()[0].column_type, ...js].join('\t'));
  }
  process.exit(0);
}
const dir = process.argv[2];
for (const [name, rows] of Object.entries(cases)) {
  const values = rows.map((e, i) => `(${i}, ${e})`).join(', ');
  const file = path.join(dir, `${name}.parquet`);
  await c.run(`COPY (SELECT v FROM (VALUES ${values}) t(i, v) ORDER BY i) TO '${file}'`);
  const r = await c.runAndReadAll(`SELECT v::JSON::VARCHAR AS j FROM '${file}'`);
  const js = r.getRowObjectsJson().map((o) => (o.j === null ? 'NULL' : o.j));
  console.log([`${name}.parquet`, ...js].join('\t'));
}
