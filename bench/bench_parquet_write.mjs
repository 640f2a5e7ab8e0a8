// DuckDB side of the Parquet write benchmark: makes the 10M-row input
// (id BIGINT, s VARCHAR with 100k distinct values, d DOUBLE) and times
// DuckDB's COPY of it to zstd Parquet, from a table and from a Parquet file
// (the same work as `deltalake parquet rewrite`). Usage:
// node bench_parquet_write.mjs DIR ROWS THREADS. Prints key=value lines.
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
import {statSync} from 'fs';

const [, , dir, rows = '10000000', threads = '1'] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET threads=${threads}`);
await con.run(`CREATE TABLE t AS SELECT i AS id, 'value_' || (hash(i) % 100000)::VARCHAR AS s,
	random() AS d FROM range(${rows}) r(i)`);
async function timed(sql) {
	const t0 = process.hrtime.bigint();
	await con.run(sql);
	return Number(process.hrtime.bigint() - t0) / 1e9;
}
const t1 = await timed(`COPY t TO '${dir}/input.parquet' (FORMAT parquet, COMPRESSION zstd)`);
const t2 = await timed(`COPY (SELECT * FROM read_parquet('${dir}/input.parquet')) TO '${dir}/duckdb_rewrite.parquet'
	(FORMAT parquet, COMPRESSION zstd)`);
console.log(`duckdb_copy_table_seconds=${t1.toFixed(3)}`);
console.log(`duckdb_rewrite_seconds=${t2.toFixed(3)}`);
console.log(`duckdb_bytes=${statSync(`${dir}/duckdb_rewrite.parquet`).size}`);
