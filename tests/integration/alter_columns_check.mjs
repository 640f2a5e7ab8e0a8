// DuckDB oracle of alter_columns.sh.
//   make FILE N              N rows (id BIGINT, g INT, v INT, name VARCHAR) as Parquet
//   files TABLE LIST COLS    the rows of the data files listed in LIST (one relative path a
//                            line, hive partition directories), as sorted CSV of COLS
//                            ("name:TYPE,..."): a column no file has reads as NULL, the
//                            others are cast to TYPE (old files of a widened column)
//   query SQL                the rows of a query (src.parquet as a path inside it) as sorted CSV
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, a, b, c] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
async function print(sql) {
	const rows = (await con.runAndReadAll(sql)).getRows();
	const lines = rows.map((r) => r.map((x) => (x === null ? '' : String(x))).join(','));
	lines.sort();
	for (const l of lines) console.log(l);
}

if (mode === 'make') {
	await con.run(`COPY (SELECT i::BIGINT AS id, (i % 3)::INTEGER AS g, ((i * 37) % 1000)::INTEGER AS v,
		CASE WHEN i % 13 = 0 THEN NULL ELSE 'n' || (i % 50) END AS name
		FROM range(0, ${Number(b)}) t(i)) TO ${q(a)} (FORMAT parquet)`);
	process.exit(0);
}
if (mode === 'files') {
	const files = readFileSync(b, 'utf8').split('\n').filter((l) => l.trim())
		.map((p) => q(`${a}/${decodeURIComponent(p)}`));
	if (!files.length) process.exit(0);
	const src = `read_parquet([${files.join(',')}], hive_partitioning = true, union_by_name = true)`;
	const have = new Set((await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRows().map((r) => r[0]));
	const cols = c.split(',').map((spec) => {
		const [n, t] = spec.split(':');
		return have.has(n) ? `"${n}"::${t}` : `NULL::${t}`;
	});
	await print(`SELECT ${cols.join(', ')} FROM ${src}`);
	process.exit(0);
}
if (mode === 'query') {
	await print(a);
	process.exit(0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
