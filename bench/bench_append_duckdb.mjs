// DuckDB side of bench_append.sh: the rows of INPUT (a Parquet file of
// bench_write's rows) loaded into a table, then DuckDB's COPY of the table
// to zstd Parquet timed, best of REPS runs, with THREADS threads: the same
// work as a Delta append of rows already in memory.
// Usage: node bench_append_duckdb.mjs INPUT OUTPUT THREADS [REPS].
// Prints key=value lines: wall seconds and the process's CPU seconds (user +
// system, all threads) of the best run, and the output's size.
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
import {statSync} from 'fs';

const [, , input, output, threads = '1', reps = '3'] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads=${threads}`);
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${input}')`);
let best = null;
for (let i = 0; i < Number(reps); i++) {
	const c0 = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	await con.run(`COPY t TO '${output}' (FORMAT parquet, COMPRESSION zstd)`);
	const wall = Number(process.hrtime.bigint() - t0) / 1e9;
	const c = process.cpuUsage(c0);
	const cpu = (c.user + c.system) / 1e6;
	if (!best || wall < best.wall) best = {wall, cpu};
}
console.log(`duckdb_copy_seconds=${best.wall.toFixed(3)}`);
console.log(`duckdb_copy_cpu=${best.cpu.toFixed(3)}`);
console.log(`duckdb_bytes=${statSync(output).size}`);
