// DuckDB side of bench_checkpoint: the nearest equivalent DuckDB can do -
// read every action of the commit files and write them to one Parquet file
// (no reconciliation, so it does less than a checkpoint).
//
// usage: node bench/bench_checkpoint_duckdb.mjs <delta_log_dir> <out.parquet> <threads> [runs]
// prints "duckdb threads=<n> best_ms=<ms> rows=<n>"
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = process.env.DL_ORACLE_DIR || path.resolve(here, '../tools/oracle');
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [dir, out, threads = '1', runsArg = '3'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', {threads: String(threads)});
const con = await inst.connect();
const glob = path.join(dir, '*.json').replaceAll("'", "''");
const sql = `COPY (SELECT * FROM read_json('${glob}', format='newline_delimited', ` +
	`maximum_object_size=1073741824)) TO '${out.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION snappy)`;
let best = Infinity, rows = 0;
for (let r = 0; r < Number(runsArg); r++) {
	const t0 = performance.now();
	const res = await con.runAndReadAll(sql);
	const ms = performance.now() - t0;
	rows = Number(res.getRows()[0]?.[0] ?? 0);
	if (ms < best) best = ms;
}
console.log(`duckdb threads=${threads} best_ms=${best.toFixed(2)} rows=${rows}`);
