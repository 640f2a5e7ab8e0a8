// DuckDB side of bench_scan: reads every Parquet file of the benchmark
// table (the same files the scan reads) and aggregates every column, so
// each value is decoded.
//
// usage: node bench/bench_scan.mjs <table_dir> [runs]
// prints "duckdb threads=<n> best_ms=<ms> cpu_ms=<ms> rows=<n>" (CPU of the whole process)
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
const threads = (await con.runAndReadAll("SELECT current_setting('threads')")).getRows()[0][0];
const glob = path.join(dir, '*', '*.parquet').replaceAll("'", "''");
const sql = `SELECT count(*), sum(id), sum(value), count(tag) FROM read_parquet('${glob}', hive_partitioning=false)`;
let best = Infinity, bestCpu = Infinity, rows;
for (let i = 0; i < Number(runsArg); i++) {
	const t = performance.now();
	const c = process.cpuUsage();
	rows = (await con.runAndReadAll(sql)).getRows()[0][0];
	const u = process.cpuUsage(c);
	best = Math.min(best, performance.now() - t);
	bestCpu = Math.min(bestCpu, (u.user + u.system) / 1000);
}
console.log(`duckdb threads=${threads} best_ms=${best.toFixed(1)} cpu_ms=${bestCpu.toFixed(1)} rows=${rows}`);
