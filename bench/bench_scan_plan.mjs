// DuckDB side of bench_scan_plan: the files of a Delta log that a partition
// filter keeps, from the commit files (read_json; adds net of removes are
// not reconciled, so DuckDB does less work than a snapshot plus planning).
//
// usage: node bench/bench_scan_plan.mjs <table_dir> [runs]
// prints "duckdb threads=<n> best_ms=<ms> files=<n>"
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
const glob = path.join(dir, '_delta_log', '*.json').replaceAll("'", "''");
const sql = `SELECT count(*) FROM read_json('${glob}', format='newline_delimited', maximum_object_size=1073741824)
	WHERE add.partitionValues.partition_col = 'part_14'`;
let best = Infinity, files;
for (let i = 0; i < Number(runsArg); i++) {
	const t = performance.now();
	files = (await con.runAndReadAll(sql)).getRows()[0][0];
	best = Math.min(best, performance.now() - t);
}
console.log(`duckdb threads=${threads} best_ms=${best.toFixed(1)} files=${files}`);
