// DuckDB side of dml_duckdb.sh.
//   make FILE ROWS        writes a Parquet file (id BIGINT, g INTEGER, v INTEGER, name VARCHAR;
//                         some names NULL) for the CLI to ingest
//   apply FILE STMTS      loads FILE into a table t, runs each line of STMTS (a DELETE or
//                         UPDATE statement of t) printing "affected N" per statement, then the
//                         final rows as sorted CSV lines id,g,v,name (NULL as empty)
//   files TABLE LIST      the rows of the data files listed in LIST (one relative path a
//                         line, hive partition directories) as the same sorted CSV
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, a, b] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
async function print(sql) {
	const rows = (await con.runAndReadAll(sql)).getRows();
	const lines = rows.map((r) => r.map((c) => (c === null ? '' : String(c))).join(','));
	lines.sort();
	for (const l of lines) console.log(l);
}
const cols = `id::BIGINT AS id, g::INTEGER AS g, v::INTEGER AS v, name::VARCHAR AS name`;

if (mode === 'make') {
	await con.run(`COPY (SELECT i::BIGINT AS id, (i % 5)::INTEGER AS g, ((i * 37) % 1000)::INTEGER AS v,
		CASE WHEN i % 13 = 0 THEN NULL ELSE 'n' || (i % 50) END AS name
		FROM range(0, ${Number(b)}) t(i)) TO ${q(a)} (FORMAT parquet)`);
	process.exit(0);
}
if (mode === 'apply') {
	await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${q(a)})`);
	for (const stmt of readFileSync(b, 'utf8').split('\n')) {
		if (!stmt.trim()) continue;
		const r = await con.run(stmt);
		console.log(`affected ${r.rowsChanged}`);
	}
	await print(`SELECT ${cols} FROM t`);
	process.exit(0);
}
if (mode === 'files') {
	const files = readFileSync(b, 'utf8').split('\n').filter((l) => l.trim())
		.map((p) => q(`${a}/${decodeURIComponent(p)}`));
	if (!files.length) process.exit(0);
	await print(`SELECT ${cols} FROM read_parquet([${files.join(',')}], hive_partitioning = true)`);
	process.exit(0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
