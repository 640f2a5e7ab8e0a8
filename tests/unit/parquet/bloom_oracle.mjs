// Oracle for test_bloom_duckdb.c: DuckDB writes Parquet files with Bloom
// filters and probes filters of any file with parquet_bloom_probe.
// usage: node bloom_oracle.mjs gen <file>       (10000 rows, row groups of 2000:
//                                               i BIGINT = 3 * a shuffled 0..9999, s = 'v' || i, n INT)
//        node bloom_oracle.mjs probe <file> <col> <value>...
//          prints "<value> <row group> <excludes 0/1>" lines
import {createRequire} from 'node:module';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const oracle = process.env.DL_ORACLE_DIR;
const require = createRequire(path.join(oracle, 'package.json'));
const {DuckDBInstance} = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const [cmd, file, col, ...values] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', {threads: '1'});
const con = await inst.connect();
const q = (s) => s.replaceAll("'", "''");
if (cmd === 'gen') {
	// a fixed shuffle (hash order), so min/max of every row group span the whole range
	await con.run(`COPY (SELECT (x * 3)::BIGINT AS i, 'v' || (x * 3) AS s, (x % 7)::INT AS n
	  FROM range(10000) t(x) ORDER BY hash(x)) TO '${q(file)}' (FORMAT parquet, ROW_GROUP_SIZE 2000, DICTIONARY_SIZE_LIMIT 100000)`);
} else if (cmd === 'probe') {
	const out = [];
	for (const v of values) {
		const r = await con.runAndReadAll(
			`SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('${q(file)}', '${q(col)}', '${q(v)}') ORDER BY 1`);
		for (const [rg, ex] of r.getRows()) out.push(`${v} ${rg} ${ex ? 1 : 0}`);
	}
	process.stdout.write(out.join('\n') + '\n');
} else {
	throw new Error('usage: gen <file> | probe <file> <col> <value>...');
}
