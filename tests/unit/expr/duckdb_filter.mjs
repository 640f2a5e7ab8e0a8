// Oracle for test_duckdb.c: runs a setup SQL file in DuckDB, then each
// predicate (one per line of the predicates file) as
//   SELECT id FROM t WHERE <predicate> ORDER BY id
// and prints one line per predicate: the matching ids separated by commas,
// or "ERR" when DuckDB rejects or fails it.
// usage: node duckdb_filter.mjs <setup.sql> <predicates.txt>
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const oracle = process.env.DL_ORACLE_DIR;
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [setup, preds] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', {threads: '1'});
const con = await inst.connect();
await con.run(fs.readFileSync(setup, 'utf8'));
const out = [];
for (const p of fs.readFileSync(preds, 'utf8').split('\n')) {
	if (!p) continue;
	try {
		const r = await con.runAndReadAll(`SELECT id FROM t WHERE ${p} ORDER BY id`);
		out.push(r.getRows().map((x) => String(x[0])).join(','));
	} catch (e) {
		out.push('ERR');
	}
}
console.log(out.join('\n'));
