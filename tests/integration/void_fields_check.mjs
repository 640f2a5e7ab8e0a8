// Prints, for each Parquet file given, its column names (parquet_schema's
// leaves and groups, the root left out) as DuckDB reads them, one file a
// line: void_fields.sh checks the nested void fields are not in the files.
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
for (const f of process.argv.slice(2)) {
	const r = await c.runAndReadAll(`SELECT name FROM parquet_schema('${f.replace(/'/g, "''")}')`);
	console.log(r.getRowObjectsJson().slice(1).map((x) => x.name).join(','));
}
