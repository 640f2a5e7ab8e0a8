// Compares a Parquet file we wrote with the same rows given as JSON lines:
// DuckDB reads both (the JSON with an explicit schema) and EXCEPT ALL must
// be empty both ways. Usage: node parquet_duckdb_write_check.mjs FILE.parquet
// FILE.jsonl "{'c0': 'INTEGER', ...}". Exit 0 = identical, 1 = different.
import {createRequire} from 'module';
// The oracle's node_modules (DL_ORACLE_DIR, else the working directory).
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , pq, jsonl, columns] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run("SET TimeZone='UTC'");
const p = `read_parquet('${pq}')`;
const j = `read_json('${jsonl}', format='newline_delimited', columns=${columns})`;
async function one(sql) {
	const r = await con.runAndReadAll(sql);
	return r.getRows()[0][0];
}
const np = await one(`SELECT count(*) FROM ${p}`);
const nj = await one(`SELECT count(*) FROM ${j}`);
const a = await one(`SELECT count(*) FROM (SELECT * FROM ${p} EXCEPT ALL SELECT * FROM ${j})`);
const b = await one(`SELECT count(*) FROM (SELECT * FROM ${j} EXCEPT ALL SELECT * FROM ${p})`);
if (np !== nj || a !== 0n || b !== 0n) {
	console.error(`parquet rows ${np}, json rows ${nj}, only in parquet ${a}, only in json ${b}`);
	const d = await con.runAndReadAll(`SELECT * FROM ${p} EXCEPT ALL SELECT * FROM ${j} LIMIT 3`);
	console.error('only in parquet:', JSON.stringify(d.getRowObjectsJson()));
	const e = await con.runAndReadAll(`SELECT * FROM ${j} EXCEPT ALL SELECT * FROM ${p} LIMIT 3`);
	console.error('only in json:', JSON.stringify(e.getRowObjectsJson()));
	process.exit(1);
}
console.log(`ok: ${np} rows identical`);
