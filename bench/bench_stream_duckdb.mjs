// DuckDB side of bench_stream.sh: appends each batch file (CSV) as one
// Parquet file of a directory, what a plain "ingest to Parquet" costs
// DuckDB, and prints the wall time in seconds.
//   node bench_stream_duckdb.mjs ORACLE_DIR OUT_DIR BATCH.csv...
import {createRequire} from 'module';
const [, , oracle, out, ...batches] = process.argv;
const require = createRequire(oracle + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const t0 = process.hrtime.bigint();
let i = 0;
for (const b of batches) {
	await con.run(`COPY (FROM read_csv('${b}', header = true)) TO '${out}/part-${String(i++).padStart(5, '0')}.parquet' (FORMAT parquet)`);
}
console.log((Number(process.hrtime.bigint() - t0) / 1e9).toFixed(3));
