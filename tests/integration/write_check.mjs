// DuckDB helper of the write*.sh tests.
//   files TABLE LIST      LIST: "path<TAB>rows" lines of `deltalake files --format csv`-like
//                         data; checks that DuckDB reads every data file of TABLE and counts
//                         the rows its stats claim; prints the total and the sum of column
//                         `id` over all files (DuckDB's view of the table's data)
//   make FILE ROWS        writes a Parquet file (id BIGINT, name VARCHAR, amount DOUBLE,
//                         d DATE) for the CLI to ingest
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, a, b] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run("SET TimeZone='UTC'");
async function rows(sql) {
	return (await con.runAndReadAll(sql)).getRows();
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;

if (mode === 'make') {
	await con.run(`COPY (SELECT i::BIGINT AS id, 'p' || i AS name, (i * 0.5)::DOUBLE AS amount,
		DATE '2024-02-01' + (i % 3)::INTEGER AS d FROM range(1000, 1000 + ${Number(b)}) t(i))
		TO ${q(a)} (FORMAT parquet)`);
	process.exit(0);
}
if (mode === 'files') {
	let total = 0n, sum = 0n, bad = 0;
	for (const line of readFileSync(b, 'utf8').split('\n')) {
		if (!line.trim()) continue;
		const [path, want] = line.split('\t');
		const file = `${a}/${decodeURIComponent(path)}`;
		const [[n, s]] = await rows(`SELECT count(*), coalesce(sum(id), 0)::BIGINT
			FROM read_parquet(${q(file)}, hive_partitioning = false)`);
		if (BigInt(n) !== BigInt(want)) {
			console.error(`${path}: DuckDB counts ${n} rows, the stats say ${want}`);
			bad++;
		}
		total += BigInt(n);
		sum += BigInt(s);
	}
	console.log(`${total} ${sum}`);
	process.exit(bad ? 1 : 0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
