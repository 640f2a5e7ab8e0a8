// DuckDB helper of cli_parquet.sh.
//   make FILE ROWS        writes a Parquet file with every Delta type, nested, with nulls
//   same A B              exit 0 when A and B hold the same rows (EXCEPT ALL both ways)
//                         and DuckDB sees the same column types
//   filters A B           filtered counts agree (DuckDB prunes row groups with our
//                         min/max statistics, so wrong statistics lose rows)
//   same-list FILE        the same for every "A<TAB>B" line of FILE, with Hive
//                         partition columns off and INT96 timestamps (which DuckDB
//                         types TIMESTAMP, Delta as UTC instants) equal to TIMESTAMPTZ;
//                         prints the pairs that differ, exit 1 if any
//   arrow FILE            prints the row count of an Arrow IPC stream (apache-arrow)
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, a, b] = process.argv;
if (mode === 'arrow') {
	const {tableFromIPC} = require('apache-arrow');
	const t = tableFromIPC(readFileSync(a));
	console.log(`${t.numRows} ${t.schema.fields.map((f) => f.name).join(',')}`);
	process.exit(0);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run("SET TimeZone='UTC'");
async function one(sql) {
	return (await con.runAndReadAll(sql)).getRows()[0][0];
}
if (mode === 'make-empty') {
	await con.run(`COPY (SELECT 1::INTEGER AS x, 'a' AS s WHERE false) TO '${a}' (FORMAT parquet)`);
	process.exit(0);
}
if (mode === 'make') {
	await con.run(`COPY (SELECT
		i::BIGINT AS id,
		CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS flag,
		(i % 100 - 50)::TINYINT AS tiny, (i * 3 % 30000)::SMALLINT AS small, (i * 7919)::INTEGER AS int,
		(i / 3.0)::FLOAT AS f, CASE WHEN i % 5 = 0 THEN NULL ELSE i * 1.5 END::DOUBLE AS d,
		(i * 1.25)::DECIMAL(9,2) AS dec9, (i * -7.125)::DECIMAL(18,3) AS dec18,
		(i * 123456789.12345)::DECIMAL(30,5) AS dec30,
		CASE WHEN i % 4 = 0 THEN NULL ELSE 'name_' || (i % 50) END AS name,
		('bin' || i)::BLOB AS bin,
		DATE '2020-01-01' + (i % 1000)::INTEGER AS day,
		TIMESTAMPTZ '2021-06-01 00:00:00+00' + to_microseconds(i * 1000003) AS ts,
		TIMESTAMP '1999-12-31 23:59:59' + to_microseconds(i * 17) AS ts_ntz,
		CASE WHEN i % 6 = 0 THEN NULL ELSE [i, NULL, i + 1][1:(i % 4)] END AS ints,
		{'a': i % 3, 'b': CASE WHEN i % 2 = 0 THEN NULL ELSE 'x' || i END, 'c': [{'z': i}]} AS st,
		CASE WHEN i % 9 = 0 THEN NULL ELSE MAP {'k' || (i % 3): i, 'j': NULL} END AS m
		FROM range(${b}) r(i)) TO '${a}' (FORMAT parquet, ROW_GROUP_SIZE 3000)`);
	process.exit(0);
}
async function same(a, b, lenient) {
	const opt = lenient ? ', hive_partitioning=false' : '';
	const pa = `read_parquet('${a}'${opt})`, pb = `read_parquet('${b}'${opt})`;
	const types = async (p) => {
		const t = JSON.stringify((await con.runAndReadAll(`DESCRIBE SELECT * FROM ${p}`)).getRows().map((r) => r.slice(0, 2)));
		return lenient ? t.replaceAll('TIMESTAMP WITH TIME ZONE', 'TIMESTAMP') : t;
	};
	const ta = await types(pa), tb = await types(pb);
	const na = await one(`SELECT count(*) FROM ${pa}`), nb = await one(`SELECT count(*) FROM ${pb}`);
	const x = await one(`SELECT count(*) FROM (SELECT * FROM ${pa} EXCEPT ALL SELECT * FROM ${pb})`);
	const y = await one(`SELECT count(*) FROM (SELECT * FROM ${pb} EXCEPT ALL SELECT * FROM ${pa})`);
	if (ta !== tb || na !== nb || x !== 0n || y !== 0n)
		return `types ${ta === tb ? 'same' : `differ:\n${ta}\n${tb}`}; rows ${na} vs ${nb}; only in A ${x}, only in B ${y}`;
	return null;
}
if (mode === 'same') {
	const err = await same(a, b, false);
	if (err) {
		console.error(err);
		process.exit(1);
	}
	console.log('same');
	process.exit(0);
}
if (mode === 'same-list') {
	let bad = 0, n = 0;
	for (const line of readFileSync(a, 'utf8').split('\n')) {
		if (!line) continue;
		const [x, y] = line.split('\t');
		n++;
		let err;
		try {
			err = await same(x, y, true);
		} catch (e) {
			err = String(e);
		}
		if (err) {
			bad++;
			console.error(`${x}: ${err}`);
		}
	}
	console.log(`${n - bad} of ${n} files identical after the rewrite`);
	process.exit(bad ? 1 : 0);
}
if (mode === 'filters') {
	const preds = ['id BETWEEN 1000 AND 1999', 'id > 9990', 'tiny = -50', 'small < 100', 'int >= 70000000',
		'f > 3000.5', 'd < 10', "name = 'name_7'", "name > 'name_48'", "bin = 'bin77'::BLOB",
		"dec9 > 12000.00", 'dec18 < -70000', 'dec30 > 1200000000000.5', "day = DATE '2020-03-01'",
		"ts < TIMESTAMPTZ '2021-06-01 00:10:00+00'", "ts_ntz > TIMESTAMP '1999-12-31 23:59:59.1'",
		'st.a = 2', 'flag'];
	let bad = 0;
	for (const w of preds) {
		const x = await one(`SELECT count(*) FROM read_parquet('${a}') WHERE ${w}`);
		const y = await one(`SELECT count(*) FROM read_parquet('${b}') WHERE ${w}`);
		if (x !== y || x === 0n) {
			console.error(`WHERE ${w}: ${x} rows in A, ${y} in B`);
			bad++;
		}
	}
	process.exit(bad ? 1 : 0);
}
console.error(`unknown mode ${mode}`);
process.exit(2);
