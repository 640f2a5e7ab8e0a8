// DuckDB helper of cli_read.sh.
//   same OURS.parquet EXPECTED_DIR [WHERE]   exit 0 when our `deltalake cat --format parquet`
//        output holds the same rows as the expected Parquet files of a golden table
//        (EXCEPT ALL both ways, columns by name; with WHERE, the expected rows filtered)
//   count FILE.parquet                      prints the row count
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, a, b, where] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run("SET TimeZone='UTC'");
async function one(sql) {
	return (await con.runAndReadAll(sql)).getRows()[0][0];
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
if (mode === 'count') {
	console.log(String(await one(`SELECT count(*) FROM read_parquet(${q(a)})`)));
	process.exit(0);
}
if (mode === 'same') {
	await con.run(`CREATE VIEW ours AS SELECT * FROM read_parquet(${q(a)})`);
	await con.run(`CREATE VIEW want AS SELECT * FROM read_parquet(${q(b + '/*.parquet')}, hive_partitioning=false)` +
		(where ? ` WHERE ${where}` : ''));
	const cols = (await con.runAndReadAll('DESCRIBE want')).getRows().map((r) => `"${r[0]}"`).join(', ');
	const extra = await one(`SELECT count(*) FROM (SELECT ${cols} FROM ours EXCEPT ALL SELECT ${cols} FROM want)`);
	const missing = await one(`SELECT count(*) FROM (SELECT ${cols} FROM want EXCEPT ALL SELECT ${cols} FROM ours)`);
	const n = await one('SELECT count(*) FROM want');
	if (extra !== 0n || missing !== 0n) {
		console.log(`differ: ${extra} extra rows, ${missing} missing rows (of ${n})`);
		process.exit(1);
	}
	console.log(`same ${n}`);
	process.exit(0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
