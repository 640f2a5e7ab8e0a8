// DuckDB helper of txn_checkpoint.sh: reads checkpoint files we wrote.
//   schema KIND FILE   the Parquet columns must be exactly the protocol's checkpoint schema
//                      (as Spark writes it) for KIND classic | v2 | sidecar; add.clusteringProvider,
//                      add.stats and add.partitionValues_parsed may follow when present
//   adds FILE...       prints the number of add rows and of remove rows across the files
//   parsed FILE        add.stats_parsed and add.partitionValues_parsed hold the values of
//                      add.stats and add.partitionValues, typed (prints the rows checked)
import {createRequire} from 'module';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const MAP = 'MAP(VARCHAR, VARCHAR)';
const DV = 'STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, "offset" INTEGER, sizeInBytes INTEGER, ' +
	'cardinality BIGINT, maxRowIndex BIGINT)';
const ADD = `path VARCHAR, partitionValues ${MAP}, size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, ` +
	`tags ${MAP}, deletionVector ${DV}, baseRowId BIGINT, defaultRowCommitVersion BIGINT`;
const COLS = {
	txn: 'STRUCT(appId VARCHAR, "version" BIGINT, lastUpdated BIGINT)',
	remove: `STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, ` +
		`partitionValues ${MAP}, size BIGINT, deletionVector ${DV}, baseRowId BIGINT, defaultRowCommitVersion BIGINT)`,
	metaData: `STRUCT(id VARCHAR, "name" VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, ` +
		`"options" ${MAP}), schemaString VARCHAR, partitionColumns VARCHAR[], "configuration" ${MAP}, ` +
		`createdTime BIGINT)`,
	protocol: 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER, readerFeatures VARCHAR[], ' +
		'writerFeatures VARCHAR[])',
	domainMetadata: 'STRUCT("domain" VARCHAR, "configuration" VARCHAR, removed BOOLEAN)',
	checkpointMetadata: `STRUCT("version" BIGINT, tags ${MAP})`,
	sidecar: `STRUCT(path VARCHAR, sizeInBytes BIGINT, modificationTime BIGINT, tags ${MAP})`,
};
const ORDER = {
	classic: ['txn', 'add', 'remove', 'metaData', 'protocol', 'domainMetadata'],
	v2: ['txn', 'add', 'remove', 'metaData', 'protocol', 'domainMetadata', 'checkpointMetadata', 'sidecar'],
	sidecar: ['add', 'remove'],
};

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const [, , mode, ...args] = process.argv;
const q = (f) => `'${f.replace(/'/g, "''")}'`;

if (mode === 'schema') {
	const [kind, file] = args;
	const rows = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`)).getRows();
	const want = ORDER[kind];
	let bad = rows.length !== want.length;
	rows.forEach((r, i) => {
		const name = String(r[0]), type = String(r[1]);
		if (name !== want[i]) bad = true;
		if (name === 'add') {
			// the fixed fields, then optional clusteringProvider, stats, partitionValues_parsed
			const ok = type.startsWith(`STRUCT(${ADD}`) &&
				/^(, clusteringProvider VARCHAR)?(, stats VARCHAR)?(, partitionValues_parsed STRUCT\(.*?\))?(, stats_parsed STRUCT\(numRecords BIGINT.*\))?\)$/
					.test(type.slice(`STRUCT(${ADD}`.length));
			if (!ok) { bad = true; console.log(`add differs: ${type}`); }
		} else if (COLS[name] !== type) {
			bad = true;
			console.log(`${name}: got ${type}\n  want ${COLS[name]}`);
		}
	});
	if (bad) { console.log(`columns: ${rows.map((r) => r[0]).join(',')}; want ${want.join(',')}`); process.exit(1); }
} else if (mode === 'adds') {
	const list = '[' + args.map(q).join(',') + ']';
	const r = (await con.runAndReadAll(
		`SELECT count(add), count(remove) FROM read_parquet(${list}, union_by_name = true)`)).getRows()[0];
	console.log(`${r[0]} ${r[1]}`);
} else if (mode === 'parsed') {
	const [file] = args;
	// numRecords and nullCount must equal the JSON's; min/max of id (BIGINT), name (VARCHAR),
	// s.a (INTEGER); ts min (TIMESTAMPTZ) against the JSON text; d against partitionValues
	const bad = (await con.runAndReadAll(`
		WITH a AS (SELECT add FROM read_parquet(${q(file)}) WHERE add IS NOT NULL)
		SELECT count(*) FILTER (WHERE
			add.stats_parsed.numRecords IS DISTINCT FROM (add.stats->>'$.numRecords')::BIGINT
			OR to_json(add.stats_parsed.nullCount)::VARCHAR IS DISTINCT FROM (add.stats->'$.nullCount')::VARCHAR
			OR add.stats_parsed.minValues.id IS DISTINCT FROM (add.stats->>'$.minValues.id')::BIGINT
			OR add.stats_parsed.maxValues."name" IS DISTINCT FROM add.stats->>'$.maxValues.name'
			OR add.stats_parsed.maxValues.s.a IS DISTINCT FROM (add.stats->>'$.maxValues.s.a')::INTEGER
			OR add.stats_parsed.minValues.ts IS DISTINCT FROM (add.stats->>'$.minValues.ts')::TIMESTAMPTZ
			OR add.partitionValues_parsed.d IS DISTINCT FROM add.partitionValues['d']::DATE),
			count(*) FROM a`)).getRows()[0];
	console.log(`${bad[1]}`);
	if (Number(bad[0]) !== 0 || Number(bad[1]) === 0) { console.log(`${bad[0]} rows differ`); process.exit(1); }
} else {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
