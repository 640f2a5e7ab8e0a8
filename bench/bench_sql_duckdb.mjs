// DuckDB side of bench_sql: the same ten queries (read from bench_sql.c, so
// the text cannot drift) over the Parquet files of the same Delta tables,
// fact and dim as views over read_parquet, at the given thread count; best
// of N after one warm-up, wall and CPU (process.cpuUsage: DuckDB's threads
// run in this process).
// usage: node bench/bench_sql_duckdb.mjs <dir> <runs> <threads>
// prints one line per query: "<name> threads=<t> ms=<ms> cpu=<ms> result=<a|b|...>"
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = process.env.DL_ORACLE_DIR || path.resolve(here, '../tools/oracle');
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [dir, runs = '3', threads = '1'] = process.argv.slice(2);
const src = fs.readFileSync(path.join(here, 'bench_sql.c'), 'utf8');
const block = src.slice(src.indexOf('QUERIES[] = {'), src.indexOf('};', src.indexOf('QUERIES[] = {')));
const queries = [...block.matchAll(/\{"([a-z_]+)", "((?:[^"\\]|\\.)*)"\}/g)].map(m => [m[1], m[2].replace(/\\"/g, '"')]);
if (queries.length !== 10) throw new Error(`expected 10 queries in bench_sql.c, found ${queries.length}`);

const inst = await DuckDBInstance.create(':memory:', {threads});
const con = await inst.connect();
// Only the files the Delta log lists (bench_sql writes append-only tables,
// so that is every data file in the directory).
for (const t of ['fact', 'dim']) {
	const files = fs.readdirSync(path.join(dir, t)).filter(f => f.endsWith('.parquet')).map(f => `'${path.join(dir, t, f)}'`);
	await con.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet([${files.join(',')}])`);
}
const cell = v => (typeof v === 'bigint' ? v.toString() : v === null ? 'NULL' : String(v));
for (const [name, sql] of queries) {
	let ms = Infinity, cpu = Infinity, row = '';
	for (let i = 0; i < Number(runs) + 1; i++) {
		const c0 = process.cpuUsage(), t0 = performance.now();
		const r = await con.runAndReadAll(sql);
		const w = performance.now() - t0, c = process.cpuUsage(c0);
		const rows = r.getRows();
		row = rows.length ? rows[0].map(cell).join('|') : '';
		if (i === 0) continue;
		ms = Math.min(ms, w);
		cpu = Math.min(cpu, (c.user + c.system) / 1000);
	}
	console.log(`${name} threads=${threads} ms=${ms.toFixed(2)} cpu=${cpu.toFixed(2)} result=${row}`);
}
