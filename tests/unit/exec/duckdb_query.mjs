// Oracle for test_duckdb.c: runs a setup SQL file in DuckDB, then each query
// (one per line of the queries file) and writes the rows of query i to
// <outdir>/<i>.txt, one row a line, cells joined by '|', NULL as "NULL",
// values as JavaScript's String() prints DuckDB's (decimals with their
// scale, dates and timestamps as text); "ERR: message" when DuckDB fails.
// usage: node duckdb_query.mjs <setup.sql> <queries.txt> <outdir>
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const oracle = process.env.DL_ORACLE_DIR;
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [setup, queries, outdir] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', {threads: '1'});
const con = await inst.connect();
await con.run(fs.readFileSync(setup, 'utf8'));
let i = 0;
for (const q of fs.readFileSync(queries, 'utf8').split('\n')) {
	if (!q) continue;
	let text;
	try {
		const r = await con.runAndReadAll(q);
		text = r.getRows().map((row) => row.map((v) => (v === null ? 'NULL' : String(v))).join('|')).join('\n');
	} catch (e) {
		text = 'ERR: ' + e.message;
	}
	fs.writeFileSync(path.join(outdir, `${i++}.txt`), text);
}
