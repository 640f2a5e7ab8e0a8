// DuckDB helper of merge_duckdb.sh.
//   merge TARGET.csv SOURCE.csv SQL   loads t and s (id BIGINT, v BIGINT, g VARCHAR; empty
//                                     fields are NULL), runs the MERGE statement SQL and
//                                     prints t's rows as CSV (NULL empty), unsorted
//   files TABLE LIST                  LIST: `deltalake files --format csv` of TABLE; prints
//                                     id,v,g of every row of the live data files as DuckDB
//                                     reads the Parquet files (g from the path when the
//                                     table is partitioned by it)
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, a, b, sql] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const cols = "{'id': 'BIGINT', 'v': 'BIGINT', 'g': 'VARCHAR'}";
const cell = (x) => (x === null || x === undefined ? '' : String(x));
const print = (rows) => { for (const r of rows) console.log(r.map(cell).join(',')); };
if (mode === 'merge') {
	for (const [name, file] of [['t', a], ['s', b]]) {
		await con.run(`CREATE TABLE ${name} AS SELECT * FROM read_csv(${q(file)}, header = true,
			columns = ${cols}, nullstr = '')`);
	}
	await con.run(sql);
	print((await con.runAndReadAll('SELECT id, v, g FROM t')).getRows());
} else if (mode === 'files') {
	for (const line of readFileSync(b, 'utf8').split('\n').slice(1)) {
		if (!line.trim()) continue;
		const path = decodeURIComponent(line.split(',')[0]);
		const m = /(?:^|\/)g=([^/]*)\//.exec(path);
		const g = m ? q(decodeURIComponent(m[1])) : 'g';
		print((await con.runAndReadAll(`SELECT id, v, ${g} FROM read_parquet(${q(`${a}/${path}`)})`)).getRows());
	}
} else {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
