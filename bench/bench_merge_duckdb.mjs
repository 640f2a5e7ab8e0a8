// DuckDB side of bench_merge.sh: loads the target's and the source's Parquet
// files (lists of paths), runs the MERGE upsert and writes the result back
// to Parquet, as a user of DuckDB would.
//   node bench_merge_duckdb.mjs ORACLE_DIR TARGET_LIST SOURCE_LIST OUT.parquet
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const [, , oracle, tlist, slist, out] = process.argv;
const require = createRequire(oracle + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const files = (l) => '[' + readFileSync(l, 'utf8').split('\n').filter(Boolean).map((f) => `'${f}'`).join(',') + ']';
await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${files(tlist)})`);
await con.run(`CREATE TABLE s AS SELECT * FROM read_parquet(${files(slist)})`);
await con.run(`MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`);
await con.run(`COPY t TO '${out}' (FORMAT parquet)`);
