// DuckDB / Apache Arrow reader of sql_cli.sh: what another engine sees in
// the files `deltalake sql --format parquet|arrow -o FILE` wrote.
//   parquet FILE   prints "name TYPE" per column (DuckDB's DESCRIBE), then
//                  every row as JSON, in file order
//   arrow FILE     the same from an Arrow IPC stream (apache-arrow), with
//                  Arrow's type names
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');

const [, , mode, file] = process.argv;
const show = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? Number(x) : x));
if (mode === 'arrow') {
	const {tableFromIPC} = require('apache-arrow');
	const t = tableFromIPC(readFileSync(file));
	for (const f of t.schema.fields) console.log(`${f.name} ${f.type}`);
	for (const row of t) console.log(show(row.toJSON()));
	process.exit(0);
}
if (mode !== 'parquet') {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
const {DuckDBInstance} = require('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = file.replace(/'/g, "''");
for (const [name, type] of (await con.runAndReadAll(`DESCRIBE SELECT * FROM '${q}'`)).getRows())
	console.log(`${name} ${type}`);
const r = await con.runAndReadAll(`SELECT * FROM '${q}'`);
const cols = r.columnNames();
for (const row of r.getRowsJson()) console.log(show(Object.fromEntries(cols.map((c, i) => [c, row[i]]))));
