// DuckDB side of bench_expr: the same data in an in-memory table (threads=1)
// and the same two queries, timed best of N.
// usage: node bench/bench_expr_duckdb.mjs <rows> [runs]
// prints: "duckdb filter_ms=<ms> count=<n> projection_ms=<ms> sum=<x>"
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = process.env.DL_ORACLE_DIR || path.resolve(here, '../tools/oracle');
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [rows = '10000000', runs = '5'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', {threads: '1'});
const con = await inst.connect();
// a INT, b DOUBLE (NULL every 16th row): the formulas of bench_expr.c
await con.run(`CREATE TABLE t AS SELECT
	CAST(((i * 2654435761) % 1000003) % 20 AS INTEGER) AS a,
	CASE WHEN i % 16 = 7 THEN NULL ELSE CAST((i * 40503) % 10007 AS DOUBLE) / 500.0 END AS b
	FROM range(${Number(rows)}) r(i)`);
async function best(sql) {
	let ms = Infinity, row;
	for (let i = 0; i < Number(runs); i++) {
		const t = performance.now();
		const r = await con.runAndReadAll(sql);
		ms = Math.min(ms, performance.now() - t);
		row = r.getRows()[0];
	}
	return [ms, row[0]];
}
const [fms, count] = await best('SELECT count(*) FROM t WHERE a > 5 AND b < 10.0');
const [pms, sum] = await best('SELECT sum(a * 2 + b) FROM t');
console.log(`duckdb filter_ms=${fms.toFixed(2)} count=${count} projection_ms=${pms.toFixed(2)} sum=${Number(sum)}`);
