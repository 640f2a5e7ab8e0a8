// DuckDB side of bench_json: times read_json over a directory of
// newline-delimited JSON files (a Delta _delta_log) with a query that makes
// DuckDB convert every field of every action into typed columns.
//
// usage: node bench/json_duckdb.mjs <dir> <threads> [runs]
// prints, for schema=auto and schema=columns:
//   "duckdb threads=<n> schema=<mode> best_ms=<ms> cpu_ms=<ms> rows=<n> adds=<n> size_sum=<n>"
// The package comes from tools/oracle (DL_ORACLE_DIR overrides); ES modules
// resolve from the script's own folder, hence the explicit resolution.
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = process.env.DL_ORACLE_DIR || path.resolve(here, '../tools/oracle');
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [dir, threads = '1', runsArg = '3'] = process.argv.slice(2);
if (!dir) {
	console.error('usage: node json_duckdb.mjs <dir> <threads> [runs]');
	process.exit(2);
}
const inst = await DuckDBInstance.create(':memory:', {threads: String(threads)});
const con = await inst.connect();
const glob = path.join(dir, '*.json').replaceAll("'", "''");
const auto = `read_json('${glob}', format='newline_delimited', maximum_object_size=1073741824)`;
// count(<column>) of every top-level column (protocol, metaData, add, ...)
// and sum(add.size) force DuckDB to parse each line (yyjson) and transform
// every field of the schema into vectors. Two variants: the schema
// auto-detected from a sample first (what a reader of unknown logs must do),
// and the detected schema passed back explicitly with columns= (DuckDB's
// best case: no detection pass).
const described = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${auto}`)).getRows();
const cols = described.map((r) => r[0]);
const sqlString = (x) => "'" + String(x).replaceAll("'", "''") + "'";
const explicit = `read_json('${glob}', format='newline_delimited', maximum_object_size=1073741824, columns={` +
	described.map((r) => `${sqlString(r[0])}: ${sqlString(r[1])}`).join(', ') + '})';
const quote = (c) => '"' + String(c).replaceAll('"', '""') + '"';
const hasAdd = cols.includes('add');
const query = (src) => `SELECT count(*), ${hasAdd ? 'sum(add.size)' : '0'}, ${hasAdd ? 'count(add)' : '0'}
	${cols.map((c) => `, count(${quote(c)})`).join('')} FROM ${src}`;

// Wall time, and CPU time of the whole process (all DuckDB threads), which
// is steadier than wall time on a shared machine.
for (const [mode, src] of [['auto', auto], ['columns', explicit]]) {
	let best = Infinity, bestCpu = Infinity, row;
	for (let i = 0; i < Number(runsArg); i++) {
		const t = performance.now();
		const c = process.cpuUsage();
		const r = await con.runAndReadAll(query(src));
		const cu = process.cpuUsage(c);
		best = Math.min(best, performance.now() - t);
		bestCpu = Math.min(bestCpu, (cu.user + cu.system) / 1000);
		row = r.getRows()[0];
	}
	console.log(`duckdb threads=${threads} schema=${mode} best_ms=${best.toFixed(2)} cpu_ms=${bestCpu.toFixed(2)} rows=${row[0]} adds=${row[2]} size_sum=${row[1]}`);
}
