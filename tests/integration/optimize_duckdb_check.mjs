// DuckDB side of optimize_duckdb.sh.
//   make FILE ROWS   writes a Parquet file (id BIGINT, g INTEGER, v INTEGER, name VARCHAR;
//                    some names NULL) for the CLI to ingest
//   files TABLE LIST the rows of the data files listed in LIST (one relative path a line,
//                    hive partition directories) as sorted CSV lines id,g,v,name
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, a, b] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const cols = `id::BIGINT AS id, g::INTEGER AS g, v::INTEGER AS v, name::VARCHAR AS name`;

if (mode === 'make') {
	await con.run(`COPY (SELECT i::BIGINT AS id, (i % 4)::INTEGER AS g, ((i * 7919) % 1000)::INTEGER AS v,
		CASE WHEN i % 13 = 0 THEN NULL ELSE 'n' || (i % 50) END AS name
		FROM range(0, ${Number(b)}) t(i)) TO ${q(a)} (FORMAT parquet)`);
	process.exit(0);
}
if (mode === 'files') {
	const files = readFileSync(b, 'utf8').split('\n').filter((l) => l.trim())
		.map((p) => q(`${a}/${decodeURIComponent(p)}`));
	if (!files.length) process.exit(0);
	const rows = (await con.runAndReadAll(
		`SELECT ${cols} FROM read_parquet([${files.join(',')}], hive_partitioning = true)`)).getRows();
	const lines = rows.map((r) => r.map((c) => (c === null ? '' : String(c))).join(','));
	lines.sort();
	for (const l of lines) console.log(l);
	process.exit(0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
