// DuckDB helper of rewrite_row_tracking.sh.
//   rows TABLE LIST IDCOL CVCOL   LIST: the `deltalake files --format csv` output of
//                                 TABLE; prints "id,rowid,cv" for every row of every live
//                                 data file as DuckDB reads the Parquet file (rowid / cv:
//                                 the materialized row-tracking columns, "null" when the
//                                 file lacks them or holds NULL), sorted by id
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, table, list, idcol, cvcol] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const qi = (s) => `"${s.replaceAll('"', '""')}"`;
if (mode !== 'rows') {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
const out = [];
for (const line of readFileSync(list, 'utf8').split('\n').slice(1)) {
	if (!line.trim()) continue;
	const path = line.split(',')[0];
	const file = `${table}/${decodeURIComponent(path)}`;
	const cols = (await con.runAndReadAll(`SELECT name FROM parquet_schema(${q(file)})`))
		.getRows().map((r) => r[0]);
	const pick = (c) => (cols.includes(c) ? qi(c) : 'NULL');
	const rows = (await con.runAndReadAll(`SELECT id, ${pick(idcol)}, ${pick(cvcol)}
		FROM read_parquet(${q(file)})`)).getRows();
	for (const [id, r, v] of rows) out.push([BigInt(id), `${id},${r ?? 'null'},${v ?? 'null'}`]);
}
out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
for (const [, s] of out) console.log(s);
