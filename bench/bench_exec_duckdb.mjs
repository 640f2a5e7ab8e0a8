// DuckDB side of bench_exec: the same data in in-memory tables (threads=1)
// and the same queries, timed best of N.
// usage: node bench/bench_exec_duckdb.mjs <rows> [runs]
// prints one line per query: "<name> ms=<ms> result=<first cell>"
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = process.env.DL_ORACLE_DIR || path.resolve(here, '../tools/oracle');
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [rows = '2000000', runs = '3'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', {threads: '1'});
const con = await inst.connect();
// the formulas of bench_exec.c
await con.run(`CREATE TABLE t AS SELECT CAST(i AS INTEGER) AS id,
	CAST(((i * 2654435761) % 1000003) % 1000 AS INTEGER) AS g,
	CAST(((i * 40503) % 1000003) % 200003 AS INTEGER) AS h,
	CAST((i * 40503) % 10007 AS DOUBLE) / 8.0 AS x
	FROM range(${Number(rows)}) r(i)`);
await con.run(`CREATE TABLE d AS SELECT CAST(i AS INTEGER) AS k, CAST(i % 97 AS BIGINT) AS v FROM range(100000) r(i)`);
const queries = [
	['group_low', 'SELECT sum(n) FROM (SELECT g, count(*) n, sum(x) s FROM t GROUP BY g)'],
	['group_high', 'SELECT count(*) FROM (SELECT h, count(*) n, sum(id) s FROM t GROUP BY h)'],
	['join_agg', 'SELECT count(*) FROM t JOIN d ON t.h = d.k'],
	['top_n', 'SELECT sum(id) FROM (SELECT id FROM t ORDER BY x DESC, id LIMIT 100)'],
	['count_distinct', 'SELECT count(DISTINCT h) FROM t'],
	['sort', 'SELECT count(*) FROM (SELECT id FROM t ORDER BY h, id)'],
];
for (const [name, sql] of queries) {
	let ms = Infinity, v;
	for (let i = 0; i < Number(runs); i++) {
		const t0 = performance.now();
		const r = await con.runAndReadAll(sql);
		ms = Math.min(ms, performance.now() - t0);
		v = r.getRows()[0][0];
	}
	console.log(`${name} ms=${ms.toFixed(2)} result=${String(v)}`);
}
