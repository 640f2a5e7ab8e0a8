// DuckDB side of the Parquet read benchmark: writes the input (N rows of
// id BIGINT, s VARCHAR with 100k distinct values, d DOUBLE; zstd) unless it
// exists, then times DuckDB reading it and summing all 3 columns (best of 3).
// Usage: node bench_parquet_read.mjs FILE ROWS THREADS. Prints key=value lines.
import {createRequire} from 'module';
import {existsSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , file, rows = '10000000', threads = '1'] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads=${threads}`);
if (!existsSync(file)) {
	await con.run(`COPY (SELECT i AS id, 'value_' || (hash(i) % 100000)::VARCHAR AS s, random() AS d
		FROM range(${rows}) r(i)) TO '${file}' (FORMAT parquet, COMPRESSION zstd)`);
}
// Wall time and CPU time (all of the process's threads): on a loaded
// machine CPU time is the steadier measure.
let best = Infinity, bestCpu = Infinity, result;
for (let k = 0; k < 3; k++) {
	const c0 = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	const r = await con.runAndReadAll(`SELECT sum(id), sum(length(s)), sum(d) FROM read_parquet('${file}')`);
	const t = Number(process.hrtime.bigint() - t0) / 1e9;
	const c = process.cpuUsage(c0);
	result = r.getRows()[0];
	if (t < best) best = t;
	bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6);
}
console.log(`duckdb_read_seconds=${best.toFixed(4)}`);
console.log(`duckdb_cpu_seconds=${bestCpu.toFixed(4)}`);
console.log(`duckdb_sum_id=${result[0]}`);
console.log(`duckdb_sum_len=${result[1]}`);
