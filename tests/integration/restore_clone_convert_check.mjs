// DuckDB side of restore_clone_convert.sh.
//   make FILE ROWS       a Parquet file (id BIGINT, g INTEGER, v INTEGER, name VARCHAR; some
//                        names NULL) for the CLI to ingest
//   makedir DIR ROWS     a hive-partitioned Parquet directory (partition g; some g NULL, which
//                        DuckDB writes as g=NULL) of several files, for CONVERT
//   dir DIR              the rows of every Parquet file under DIR (hive partitions) as sorted
//                        CSV lines id,g,v,name (NULL as empty)
//   files TABLE LIST     the rows of the data files in LIST (`deltalake files` paths: relative
//                        to TABLE, or absolute URIs of a clone), hive partitions, same CSV
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
const gen = (n) => `SELECT i::BIGINT AS id, (i % 5)::INTEGER AS g, ((i * 37) % 1000)::INTEGER AS v,
	CASE WHEN i % 13 = 0 THEN NULL ELSE 'n' || (i % 50) END AS name FROM range(0, ${Number(n)}) t(i)`;

if (mode === 'make') {
	await con.run(`COPY (${gen(b)}) TO ${q(a)} (FORMAT parquet)`);
	process.exit(0);
}
if (mode === 'makedir') {
	// four chunks, each its own file per partition
	for (let k = 0; k < 4; k++) {
		await con.run(`COPY (SELECT id, CASE WHEN id % 17 = 0 THEN NULL ELSE g END AS g, v, name FROM (${gen(b)})
			WHERE id % 4 = ${k}) TO ${q(a)} (FORMAT parquet, PARTITION_BY (g), ROW_GROUP_SIZE 500,
			FILENAME_PATTERN 'part_${k}_{i}', OVERWRITE_OR_IGNORE true)`);
	}
	process.exit(0);
}
if (mode === 'dir') {
	await print(`SELECT ${cols} FROM read_parquet(${q(a + '/**/*.parquet')}, hive_partitioning = true)`);
	process.exit(0);
}
if (mode === 'files') {
	const files = readFileSync(b, 'utf8').split('\n').filter((l) => l.trim()).map((p) => {
		const d = decodeURIComponent(p);
		if (d.startsWith('file://')) return q(d.slice(7));
		if (d.startsWith('/')) return q(d);
		return q(`${a}/${d}`);
	});
	if (!files.length) process.exit(0);
	await print(`SELECT ${cols} FROM read_parquet([${files.join(',')}], hive_partitioning = true)`);
	process.exit(0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
