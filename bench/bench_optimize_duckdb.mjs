// DuckDB side of bench_optimize.sh.
//   node bench_optimize_duckdb.mjs ORACLE_DIR make OUT.parquet ROWS   the benchmark's rows
//   node bench_optimize_duckdb.mjs ORACLE_DIR copy LIST OUT.parquet   COPY (FROM read_parquet(files)) TO OUT,
//                                                                      what compacting the files costs DuckDB
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const [, , oracle, mode, a, b] = process.argv;
const require = createRequire(oracle + '/');
const {DuckDBInstance} = require('@duckdb/node-api');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
if (mode === 'make') {
	await con.run(`COPY (SELECT i::BIGINT AS id, (hash(i) % 1000000)::BIGINT AS a, (hash(i + 1) % 1000000)::BIGINT AS b,
		(hash(i + 2) % 1000000)::BIGINT AS c, (hash(i + 3) % 1000000)::BIGINT AS d, 'name-' || (i % 1000) AS s
		FROM range(0, ${Number(b)}) t(i)) TO '${a}' (FORMAT parquet)`);
} else if (mode === 'copy') {
	const files = '[' + readFileSync(a, 'utf8').split('\n').filter(Boolean).map((f) => `'${f}'`).join(',') + ']';
	await con.run(`COPY (FROM read_parquet(${files})) TO '${b}' (FORMAT parquet)`);
} else {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
