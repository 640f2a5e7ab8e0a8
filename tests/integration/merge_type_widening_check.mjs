// Runs one DuckDB query (argv[2]) and prints its rows as CSV, for
// merge_type_widening.sh to compare the widened tables' live Parquet files
// (read together with union_by_name) with our reads.
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const r = await c.runAndReadAll(process.argv[2]);
for (const row of r.getRows()) console.log(row.map((v) => (v === null ? 'NULL' : String(v))).join(','));
