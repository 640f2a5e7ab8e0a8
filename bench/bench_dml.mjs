// DuckDB side of bench_dml.sh.
//   make DIR ROWS FILES   writes FILES Parquet files of ROWS rows in all (id BIGINT, g INTEGER,
//                         v INTEGER, s VARCHAR) into DIR
//   run DIR STMT OUT      loads DIR/*.parquet into a table (timed apart), runs STMT (a DELETE
//                         or UPDATE of t) and writes t back to OUT as Parquet; prints
//                         load_ms=, stmt_ms=, write_ms=, cpu_ms= (process CPU, user + system,
//                         of the statement and the write; DuckDB's threads run in this process), affected=
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, dir, a, b] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const now = () => performance.now();

if (mode === 'make') {
	const rows = Number(a), files = Number(b), per = rows / files;
	for (let f = 0; f < files; f++) {
		await con.run(`COPY (SELECT i::BIGINT AS id, (i % 10)::INTEGER AS g, ((i * 37) % 1000)::INTEGER AS v,
			'name-' || (i % 100000) AS s FROM range(${f * per}, ${(f + 1) * per}) t(i))
			TO ${q(`${dir}/part-${String(f).padStart(3, '0')}.parquet`)} (FORMAT parquet)`);
	}
	process.exit(0);
}
if (mode === 'run') {
	let t = now();
	await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${q(dir + '/*.parquet')})`);
	const load = now() - t;
	t = now();
	const cpu0 = process.cpuUsage();
	const r = await con.run(a);
	const stmt = now() - t;
	t = now();
	await con.run(`COPY t TO ${q(b)} (FORMAT parquet)`);
	const write = now() - t;
	const cpu = process.cpuUsage(cpu0);
	const cpuMs = (cpu.user + cpu.system) / 1000;
	console.log(`load_ms=${load.toFixed(0)}\nstmt_ms=${stmt.toFixed(0)}\nwrite_ms=${write.toFixed(0)}\ncpu_ms=${cpuMs.toFixed(0)}\naffected=${r.rowsChanged}`);
	process.exit(0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
