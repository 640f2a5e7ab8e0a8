// DuckDB side of bench_commit: the latency of committing one small INSERT
// into a persistent DuckDB database (its commit writes and syncs the WAL),
// over N commits. prints "duckdb p50_ms=<ms> p99_ms=<ms> max_ms=<ms>"
//
// usage: node bench/bench_commit_duckdb.mjs <db_file> [n]
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const oracle = process.env.DL_ORACLE_DIR || path.resolve(here, '../tools/oracle');
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [file, nArg = '100'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(file, {threads: '1'});
const con = await inst.connect();
await con.run('CREATE TABLE t (x BIGINT, s VARCHAR)');
const ms = [];
for (let i = 0; i < Number(nArg); i++) {
	const t0 = performance.now();
	await con.run(`INSERT INTO t VALUES (${i}, 'row ${i}')`);
	ms.push(performance.now() - t0);
}
ms.sort((a, b) => a - b);
const pct = (p) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))];
console.log(`duckdb p50_ms=${pct(0.5).toFixed(3)} p99_ms=${pct(0.99).toFixed(3)} max_ms=${ms[ms.length - 1].toFixed(3)}`);
