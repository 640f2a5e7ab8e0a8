// DuckDB oracle for the Parquet reader tests.
//   node parquet_read_oracle.mjs gen <dir>            writes test files, prints their paths
//   node parquet_read_oracle.mjs compare <pq> <jsonl>  our rows (JSON lines) vs DuckDB's
//   node parquet_read_oracle.mjs compare-many <list>   lines "<pq>\t<jsonl>"
//   node parquet_read_oracle.mjs gen-cli <dir>         files for the CLI check
//   node parquet_read_oracle.mjs compare-cli <pq> <jsonl>  `parquet cat --format jsonl` vs DuckDB
//   node parquet_read_oracle.mjs count <pq>...|@list   "<rows>\t<path>" per file
// Values are canonicalized the same way on both sides: every number as the
// string of its value (ints, floats, dates in days, timestamps in micros,
// decimals unscaled); blobs as "hex:..."; maps as [[k, v], ...].
import path from 'node:path';
import fs from 'node:fs';

const oracle = path.resolve(process.env.DL_ORACLE_DIR || path.join(path.dirname(new URL(import.meta.url).pathname), '../../tools/oracle'));
const { DuckDBInstance } = await import('file://' + path.join(oracle, 'node_modules/@duckdb/node-api/lib/index.js'));

function canon(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  const k = v.constructor && v.constructor.name;
  switch (k) {
    case 'DuckDBBlobValue': return 'hex:' + Buffer.from(v.bytes).toString('hex');
    case 'DuckDBDecimalValue': return v.value.toString();
    case 'DuckDBTimestampValue': case 'DuckDBTimestampTZValue': return v.micros.toString();
    case 'DuckDBTimestampMillisecondsValue': return (v.millis * 1000n).toString();
    case 'DuckDBTimestampSecondsValue': return (v.seconds * 1000000n).toString();
    case 'DuckDBTimestampNanosecondsValue': {
      const n = v.nanos, q = n / 1000n;
      return (n < 0n && q * 1000n !== n ? q - 1n : q).toString();
    }
    case 'DuckDBDateValue': return String(v.days);
    case 'DuckDBUUIDValue': return v.toString();
    case 'DuckDBListValue': case 'DuckDBArrayValue': return v.items.map(canon);
    case 'DuckDBStructValue': {
      const o = {};
      for (const [name, x] of Object.entries(v.entries)) o[name] = canon(x);
      return o;
    }
    case 'DuckDBMapValue': return v.entries.map(e => [canon(e.key), canon(e.value)]);
    default: return String(v);
  }
}

async function connect() {
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  return inst.connect();
}

const q = s => "'" + s.replace(/'/g, "''") + "'";

// Every type the reader maps, with nulls sprinkled in, nested lists/maps/structs.
const TABLE = `CREATE TABLE t AS SELECT
  CASE WHEN i % 7 = 3 THEN NULL ELSE i END::INTEGER AS id,
  (i % 100)::TINYINT AS i8, (i * 3)::SMALLINT AS i16, i::BIGINT * 1000000007 AS i64,
  (i % 200)::UTINYINT AS u8, (i * 7 % 65000)::USMALLINT AS u16, (i * 100003)::UINTEGER AS u32,
  (i::UBIGINT * 1000000000007) AS u64,
  CASE WHEN i % 11 = 0 THEN NULL ELSE (i / 3.0)::FLOAT END AS f32, (i / 7.0)::DOUBLE AS f64,
  CASE WHEN i % 5 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
  CASE WHEN i % 9 = 4 THEN NULL ELSE 'str' || (i % 13) END AS s,
  ('long string value number ' || i) AS s_unique,
  ('blob' || i)::BLOB AS bin,
  ((i % 70) * 1.25)::DECIMAL(4,2) AS d4, (i * 12.345)::DECIMAL(9,3) AS d9,
  (i * -123456.789)::DECIMAL(18,3) AS d18, (i * 1234567890123.4567)::DECIMAL(38,4) AS d38,
  (i * -98765.4321)::DECIMAL(20,4) AS d20n, (i * -1234567890123456789.12)::DECIMAL(38,2) AS d38n,
  DATE '2020-01-01' + i::INTEGER AS dt,
  TIMESTAMP '2020-01-01 00:00:00' + i * INTERVAL 1 SECOND + i * INTERVAL 1 MICROSECOND AS ts,
  TIMESTAMPTZ '2020-01-01 00:00:00+00' + i * INTERVAL 1 HOUR AS tstz,
  md5(i::VARCHAR)::UUID AS u,
  CASE WHEN i % 6 = 1 THEN NULL ELSE [i, i + 1, NULL] END AS li,
  CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN [] ELSE ['s' || i] END AS ls,
  CASE WHEN i % 8 = 2 THEN NULL ELSE {'a': i, 'b': 'x' || i, 'c': {'d': i * 2}} END AS st,
  CASE WHEN i % 4 = 3 THEN NULL ELSE MAP {'k' || i: i, 'z': NULL} END AS m,
  [[1, 2], [3], NULL, []] AS lli,
  [{'x': i, 'y': [i, NULL]}, NULL] AS lst
FROM range(2500) r(i)`;

async function gen(dir) {
  const con = await connect();
  await con.run(TABLE);
  fs.mkdirSync(dir, { recursive: true });
  const out = [];
  const codecs = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'lz4_raw', 'brotli'];
  for (const ver of ['V1', 'V2']) {
    for (const codec of codecs) {
      const f = path.join(dir, `types_${ver}_${codec}.parquet`);
      await con.run(`COPY t TO ${q(f)} (FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION ${ver}, ROW_GROUP_SIZE 1000)`);
      out.push(f);
    }
  }
  // Flat all-required columns and a file with a single row group.
  let f = path.join(dir, 'flat.parquet');
  await con.run(`COPY (SELECT i::BIGINT AS id, 'v' || (i % 100) AS s, i * 0.5 AS d FROM range(100000) r(i)) TO ${q(f)} (FORMAT parquet, COMPRESSION zstd)`);
  out.push(f);
  f = path.join(dir, 'empty.parquet');
  await con.run(`COPY (SELECT * FROM t LIMIT 0) TO ${q(f)} (FORMAT parquet)`);
  out.push(f);
  // Field ids, for id-based projection.
  f = path.join(dir, 'field_ids.parquet');
  await con.run(`COPY (SELECT 1 AS a, 'x' AS b) TO ${q(f)} (FORMAT parquet, FIELD_IDS {a: 7, b: 9})`);
  out.push(f);
  console.log(out.join('\n'));
}

async function rows(con, file) {
  const r = await con.runAndReadAll(`SELECT * FROM read_parquet(${q(file)}, hive_partitioning = false)`);
  return r.getRows().map(row => JSON.stringify(row.map(canon)));
}

async function compare(file, ours, con) {
  con = con || await connect();
  const want = await rows(con, file);
  const deep = x => x === null ? null : typeof x === 'number' ? String(x) : Array.isArray(x) ? x.map(deep)
    : typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, deep(y)])) : x;
  const got = fs.readFileSync(ours, 'utf8').split('\n').filter(l => l.length).map(l => JSON.stringify(deep(JSON.parse(l))));
  const n = Math.max(want.length, got.length);
  for (let i = 0; i < n; i++) {
    if (want[i] !== got[i]) {
      console.error(`${file}: row ${i} differs (DuckDB has ${want.length} rows, we have ${got.length})\n duckdb: ${want[i]}\n ours:   ${got[i]}`);
      return false;
    }
  }
  console.log(`${file}: ${n} rows match`);
  return true;
}

// Lines "<parquet>\t<our jsonl>"; reports every mismatching file.
async function compareMany(list) {
  const con = await connect();
  let bad = 0;
  for (const line of fs.readFileSync(list, 'utf8').split('\n').filter(Boolean)) {
    const [file, ours] = line.split('\t');
    if (!await compare(file, ours, con)) bad++;
  }
  if (bad) { console.error(`${bad} files differ`); process.exit(1); }
}

// Files for the CLI check (types whose JSON text is unambiguous).
async function genCli(dir) {
  const con = await connect();
  fs.mkdirSync(dir, { recursive: true });
  const sql = `SELECT i::INTEGER AS id, CASE WHEN i % 5 = 0 THEN NULL ELSE i * 1000003 END::BIGINT AS big,
    i / 8 AS dbl, i % 3 = 0 AS flag, CASE WHEN i % 7 = 1 THEN NULL ELSE 'name ' || (i % 37) END AS s,
    CASE WHEN i % 4 = 0 THEN NULL ELSE [i, NULL, i * 2] END AS li,
    {'a': i % 11, 'b': CASE WHEN i % 2 = 0 THEN NULL ELSE ['x' || i] END} AS st
    FROM range(3000) r(i)`;
  const out = [];
  for (const [ver, codec] of [['V1', 'snappy'], ['V2', 'zstd'], ['V1', 'uncompressed'], ['V2', 'gzip']]) {
    const f = path.join(dir, `cli_${ver}_${codec}.parquet`);
    await con.run(`COPY (${sql}) TO ${q(f)} (FORMAT parquet, PARQUET_VERSION ${ver}, COMPRESSION ${codec}, ROW_GROUP_SIZE 1000)`);
    out.push(f);
  }
  console.log(out.join('\n'));
}

// `deltalake parquet cat --format jsonl` output (one object per row) vs DuckDB.
async function compareCli(file, ours) {
  const con = await connect();
  const want = await rows(con, file);
  const deep = x => x === null ? null : typeof x === 'number' ? String(x) : Array.isArray(x) ? x.map(deep)
    : typeof x === 'object' ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, deep(y)])) : x;
  const got = fs.readFileSync(ours, 'utf8').split('\n').filter(Boolean).map(l => JSON.stringify(Object.values(deep(JSON.parse(l)))));
  for (let i = 0; i < Math.max(want.length, got.length); i++)
    if (want[i] !== got[i]) {
      console.error(`${file}: row ${i} differs (DuckDB ${want.length} rows, CLI ${got.length})\n duckdb: ${want[i]}\n cli:    ${got[i]}`);
      process.exit(1);
    }
  console.log(`${file}: ${want.length} rows match`);
}

async function count(files) {
  // "@list.txt" names a file holding one path per line.
  files = files.flatMap(f => f.startsWith('@') ? fs.readFileSync(f.slice(1), 'utf8').split('\n').filter(Boolean) : [f]);
  const con = await connect();
  for (const f of files) {
    const r = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${q(f)}, hive_partitioning = false)`);
    console.log(`${r.getRows()[0][0]}\t${f}`);
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'gen') await gen(args[0]);
else if (mode === 'compare') { if (!await compare(args[0], args[1])) process.exit(1); }
else if (mode === 'compare-many') await compareMany(args[0]);
else if (mode === 'count') await count(args);
else if (mode === 'gen-cli') await genCli(args[0]);
else if (mode === 'compare-cli') await compareCli(args[0], args[1]);
else { console.error('usage: gen <dir> | compare <pq> <jsonl> | count <pq>...'); process.exit(2); }
