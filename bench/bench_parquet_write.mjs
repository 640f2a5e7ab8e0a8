// DuckDB side of the Parquet write benchmark: makes the 10M-row input
// (id BIGINT, s VARCHAR with 100k distinct values, d DOUBLE) and times
// DuckDB's COPY of it to zstd Parquet, from a table and from a Parquet file
// (the same work as `deltalake parquet rewrite`), best of REPS runs each.
// Usage: node bench_parquet_write.mjs DIR ROWS THREADS [REPS] [INPUT].
// With INPUT (an existing Parquet file) only its rewrite is timed.
// Prints key=value lines: wall seconds and the process's CPU seconds (user +
// system, all threads) of the best run.
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
import {statSync} from 'fs';

const [, , dir, rows = '10000000', threads = '1', reps = '1', input = ''] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads=${threads}`);
const src = input || `${dir}/input.parquet`;
if (!input) await con.run(`CREATE TABLE t AS SELECT i AS id, 'value_' || (hash(i) % 100000)::VARCHAR AS s,
	random() AS d FROM range(${rows}) r(i)`);
async function timed(sql) {
	let best = null;
	for (let i = 0; i < Number(reps); i++) {
		const c0 = process.cpuUsage();
		const t0 = process.hrtime.bigint();
		await con.run(sql);
		const wall = Number(process.hrtime.bigint() - t0) / 1e9;
		const c = process.cpuUsage(c0);
		const cpu = (c.user + c.system) / 1e6;
		if (!best || wall < best.wall) best = {wall, cpu};
	}
	return best;
}
const t1 = input ? null : await timed(`COPY t TO '${src}' (FORMAT parquet, COMPRESSION zstd)`);
const t2 = await timed(`COPY (SELECT * FROM read_parquet('${src}')) TO '${dir}/duckdb_rewrite.parquet'
	(FORMAT parquet, COMPRESSION zstd)`);
if (t1) console.log(`duckdb_copy_table_seconds=${t1.wall.toFixed(3)}`);
if (t1) console.log(`duckdb_copy_table_cpu=${t1.cpu.toFixed(3)}`);
console.log(`duckdb_rewrite_seconds=${t2.wall.toFixed(3)}`);
console.log(`duckdb_rewrite_cpu=${t2.cpu.toFixed(3)}`);
console.log(`duckdb_bytes=${statSync(`${dir}/duckdb_rewrite.parquet`).size}`);
