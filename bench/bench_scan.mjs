// DuckDB side of bench_scan: the same three cases over the same Parquet
// files, doing the same work as the C side: every value of every output
// column consumed (sum of numbers, sum of strlen of strings, which needs
// every string materialized; `day` comes from the hive partition path, as
// our scan takes it from the log).
//
// usage: node bench/bench_scan.mjs <table_dir> [runs]
// prints per case and thread count (1, 2):
//   case=<a|b|c> threads=<n> best_ms=<ms> cpu_ms=<ms> result=<rows> <sum per column>...
// (CPU of the whole process, best of runs)
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = process.env.DL_ORACLE_DIR || path.resolve(here, '../tools/oracle');
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [dir, runsArg = '3'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const glob = path.join(dir, '*', '*.parquet').replaceAll("'", "''");
const src = `read_parquet('${glob}', hive_partitioning=true, hive_types_autocast=false)`;
// the 20 columns and their kinds, in the table's order (bench_scan.c)
const cols = ['id:l', 'k:l', 'l1:l', 'l2:l', 'l3:l', 'l4:l', 'l5:l', 'i1:i', 'i2:i', 'i3:i', 'd1:d', 'd2:d', 'd3:d',
	'd4:d', 'd5:d', 's1:s', 's2:s', 's3:s', 's4:s', 's5:s', 'day:s'].map((c) => c.split(':'));
const agg = (list) => list.map(([n, k]) => (k === 's' ? `sum(strlen(${n}))` : `sum(${n})`)).join(', ');
const cases = {
	a: `SELECT count(*), ${agg(cols)} FROM ${src}`,
	b: `SELECT count(*), ${agg(cols.filter(([n]) => n === 'l1' || n === 's2'))} FROM ${src}`,
	c: `SELECT count(*), ${agg(cols)} FROM ${src} WHERE k = 7`,
};
const show = (v) => (typeof v === 'number' ? v.toPrecision(17) : v === null ? '0' : String(v));
for (const [name, sql] of Object.entries(cases)) {
	for (const threads of [1, 2]) {
		await con.run(`SET threads = ${threads}`);
		let best = Infinity, bestCpu = Infinity, row;
		for (let i = 0; i < Number(runsArg); i++) {
			const t = performance.now();
			const c = process.cpuUsage();
			row = (await con.runAndReadAll(sql)).getRows()[0];
			const u = process.cpuUsage(c);
			best = Math.min(best, performance.now() - t);
			bestCpu = Math.min(bestCpu, (u.user + u.system) / 1000);
		}
		console.log(`case=${name} threads=${threads} best_ms=${best.toFixed(1)} cpu_ms=${bestCpu.toFixed(1)} ` +
			`result=${row.map(show).join(' ')}`);
	}
}
