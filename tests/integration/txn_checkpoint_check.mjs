// DuckDB helper of txn_checkpoint.sh: reads checkpoint files we wrote.
//   schema KIND FILE   the Parquet columns must be exactly the protocol's checkpoint schema
//                      (as Spark writes it) for KIND classic | v2 | sidecar; add.clusteringProvider,
//                      add.stats and add.partitionValues_parsed may follow when present
//   adds FILE...       prints the number of add rows and of remove rows across the files
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
				/^(, clusteringProvider VARCHAR)?(, stats VARCHAR)?(, partitionValues_parsed STRUCT\(.*\))?\)$/
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
} else {
	console.error(`unknown mode ${mode}`);
	process.exit(2);
}
