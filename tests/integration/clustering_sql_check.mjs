// DuckDB side of clustering_sql.sh: the rows (id, name) of the data files
// listed in LIST (relative paths, one a line) under TABLE, as CSV lines
// (NULL as empty), sorted.
// usage: node clustering_sql_check.mjs TABLE LIST
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , table, list] = process.argv;
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const files = readFileSync(list, 'utf8').split('\n').filter((l) => l.trim())
	.map((p) => q(`${table}/${decodeURIComponent(p)}`));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = (await con.runAndReadAll(
	`SELECT id::BIGINT, name::VARCHAR FROM read_parquet([${files.join(',')}])`)).getRows();
const lines = rows.map((r) => r.map((c) => (c === null ? '' : String(c))).join(','));
lines.sort();
for (const l of lines) console.log(l);
