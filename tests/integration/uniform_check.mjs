// Independent Iceberg reader for uniform_*.sh, assembled from avsc (Avro),
// the metadata JSON as the Iceberg table spec (format v2) defines it, and
// DuckDB reading the listed Parquet files with column names taken from the
// Iceberg field ids (read_parquet's `schema` map by field_id), identity
// partition values from the manifests.
//   current TABLE          prints the current snapshot id (version-hint.text -> vN.metadata.json)
//   rows TABLE [SNAPSHOT]  the rows of that snapshot (default current) as sorted CSV lines
//   check-avro TABLE       checks every manifest list and manifest of every snapshot against the
//                          spec's Avro schemas (names, field ids), and the metadata's required fields
//   prop TABLE KEY         a property of the current metadata
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const avro = require('avsc');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, table, arg] = process.argv;
const die = (m) => { console.error(`uniform_check: ${m}`); process.exit(1); };

// Snapshot ids are 63-bit: parse long integers as strings (JSON.parse would round them).
const parseBig = (t) => JSON.parse(t.replace(/([:\[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
function metadata() {
	const hint = readFileSync(`${table}/metadata/version-hint.text`, 'utf8').trim();
	if (!/^\d+$/.test(hint)) die(`version-hint.text is not a version: ${hint}`);
	const m = parseBig(readFileSync(`${table}/metadata/v${hint}.metadata.json`, 'utf8'));
	for (const k of ['format-version', 'table-uuid', 'location', 'last-sequence-number', 'last-updated-ms',
		'last-column-id', 'schemas', 'current-schema-id', 'partition-specs', 'default-spec-id',
		'sort-orders', 'default-sort-order-id'])
		if (!(k in m)) die(`metadata v${hint} lacks required field ${k}`);
	if (m['format-version'] !== 2) die('format-version is not 2');
	for (const s of m.snapshots || [])
		for (const k of ['snapshot-id', 'sequence-number', 'timestamp-ms', 'manifest-list', 'summary'])
			if (!(k in s)) die(`snapshot lacks ${k}`);
	return m;
}
const local = (p) => p.replace(/^file:\/\//, '');

// Avro longs as BigInt (snapshot ids exceed 2^53), printed as decimal text.
const bigLong = avro.types.LongType.__with({
	fromBuffer: (b) => b.readBigInt64LE(),
	toBuffer: (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; },
	fromJSON: BigInt,
	toJSON: Number,
	isValid: (n) => typeof n === 'bigint',
	compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
});
function readAvro(path) {
	return new Promise((resolve, reject) => {
		const rows = [];
		let header;
		avro.createFileDecoder(local(path), {parseHook: (schema) => avro.Type.forSchema(schema, {registry: {long: bigLong}})})
			.on('metadata', (type, codec, h) => { header = h; })
			.on('data', (r) => rows.push(r))
			.on('end', () => resolve({rows, meta: header.meta}))
			.on('error', reject);
	});
}

// The spec's field ids (Iceberg table spec, "Manifests" and "Manifest Lists"), by name.
const ENTRY_IDS = {status: 0, snapshot_id: 1, sequence_number: 3, file_sequence_number: 4, data_file: 2};
const FILE_IDS = {content: 134, file_path: 100, file_format: 101, partition: 102, record_count: 103,
	file_size_in_bytes: 104, column_sizes: 108, value_counts: 109, null_value_counts: 110,
	nan_value_counts: 137, lower_bounds: 125, upper_bounds: 128, key_metadata: 131, split_offsets: 132,
	equality_ids: 135, sort_order_id: 140};
const LIST_IDS = {manifest_path: 500, manifest_length: 501, partition_spec_id: 502, content: 517,
	sequence_number: 515, min_sequence_number: 516, added_snapshot_id: 503, added_files_count: 504,
	existing_files_count: 505, deleted_files_count: 506, added_rows_count: 512, existing_rows_count: 513,
	deleted_rows_count: 514, partitions: 507, key_metadata: 519};
const REQUIRED_LIST = ['manifest_path', 'manifest_length', 'partition_spec_id', 'content', 'sequence_number',
	'min_sequence_number', 'added_snapshot_id', 'added_files_count', 'existing_files_count',
	'deleted_files_count', 'added_rows_count', 'existing_rows_count', 'deleted_rows_count'];

function checkIds(fields, ids, where, required = []) {
	const byName = new Map(fields.map((f) => [f.name, f]));
	for (const r of required) if (!byName.has(r)) die(`${where}: required field ${r} missing`);
	for (const f of fields) {
		if (!(f.name in ids)) die(`${where}: field ${f.name} is not in the spec`);
		if (f['field-id'] !== ids[f.name]) die(`${where}: field ${f.name} has field-id ${f['field-id']}, the spec says ${ids[f.name]}`);
	}
}

async function manifestsOf(snap) {
	const list = await readAvro(snap['manifest-list']);
	return list;
}

async function liveFiles(m, snap) {
	const list = await manifestsOf(snap);
	const out = [];
	for (const mf of list.rows) {
		const man = await readAvro(mf.manifest_path);
		let added = 0, existing = 0, deleted = 0;
		for (const e of man.rows) {
			const st = e.status; if (st === 1) added++; else if (e.status === 0) existing++; else if (e.status === 2) deleted++;
			else die(`bad status ${e.status}`);
			if (e.status === 2) continue;
			if (e.data_file.content !== 0) die('delete files are not expected');
			out.push(e.data_file);
		}
		if (added !== mf.added_files_count || existing !== mf.existing_files_count || deleted !== mf.deleted_files_count)
			die(`${mf.manifest_path}: counts in the manifest list (${mf.added_files_count}/${mf.existing_files_count}/${mf.deleted_files_count}) differ from its entries (${added}/${existing}/${deleted})`);
	}
	return out;
}

const m = metadata();
const snapOf = (id) => {
	const s = (m.snapshots || []).find((x) => String(x['snapshot-id']) === String(id));
	if (!s) die(`no snapshot ${id}`);
	return s;
};

if (mode === 'current') {
	console.log(String(m['current-snapshot-id']));
	process.exit(0);
}
if (mode === 'prop') {
	console.log(m.properties?.[arg] ?? '');
	process.exit(0);
}
if (mode === 'check-avro') {
	for (const s of m.snapshots) {
		const list = await readAvro(s['manifest-list']);
		const ls = JSON.parse(list.meta['avro.schema'].toString());
		checkIds(ls.fields, LIST_IDS, `${s['manifest-list']}`, REQUIRED_LIST);
		if (list.meta['format-version'].toString() !== '2') die('manifest list format-version is not 2');
		for (const mf of list.rows) {
			const man = await readAvro(mf.manifest_path);
			const es = JSON.parse(man.meta['avro.schema'].toString());
			checkIds(es.fields, ENTRY_IDS, mf.manifest_path, Object.keys(ENTRY_IDS));
			const df = es.fields.find((f) => f.name === 'data_file').type;
			checkIds(df.fields, FILE_IDS, `${mf.manifest_path} data_file`, ['content', 'file_path', 'file_format', 'partition', 'record_count', 'file_size_in_bytes']);
			const spec = JSON.parse(man.meta['partition-spec'].toString());
			const pf = df.fields.find((f) => f.name === 'partition').type.fields;
			if (pf.length !== spec.length) die(`${mf.manifest_path}: partition struct does not match the spec`);
			pf.forEach((f, i) => { if (f['field-id'] !== spec[i]['field-id']) die(`${mf.manifest_path}: partition field id`); });
			const sch = JSON.parse(man.meta['schema'].toString());
			if (!sch.fields) die('manifest schema metadata lacks fields');
			if (man.meta['format-version'].toString() !== '2' || man.meta['content'].toString() !== 'data')
				die('manifest format-version/content');
		}
	}
	console.log('ok');
	process.exit(0);
}
if (mode === 'rows') {
	const snap = snapOf(arg || m['current-snapshot-id']);
	const schema = m.schemas.find((s) => s['schema-id'] === (snap['schema-id'] ?? m['current-schema-id']));
	const spec = m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id']);
	const files = await liveFiles(m, snap);
	const db = await DuckDBInstance.create(':memory:');
	const con = await db.connect();
	const q = (s) => `'${String(s).replaceAll("'", "''")}'`;
	const duckType = {int: 'INTEGER', long: 'BIGINT', string: 'VARCHAR', boolean: 'BOOLEAN', date: 'DATE',
		double: 'DOUBLE', float: 'FLOAT', timestamp: 'TIMESTAMP', timestamptz: 'TIMESTAMPTZ', binary: 'BLOB'};
	const partBySource = new Map(spec.fields.map((f, i) => [f['source-id'], i]));
	const lines = [];
	for (const f of files) {
		const dataCols = schema.fields.filter((c) => !partBySource.has(c.id));
		const map = dataCols.map((c) => `${c.id}: {name: ${q(c.name)}, type: ${q(duckType[c.type] || 'VARCHAR')}, default_value: NULL}`);
		const sel = schema.fields.map((c) => {
			if (!partBySource.has(c.id)) return `"${c.name}"`;
			const pfield = spec.fields[partBySource.get(c.id)];
			const keys = Object.keys(f.partition);
			let v = f.partition[keys[partBySource.get(c.id)]];
			if (v === null || v === undefined) return `NULL AS "${c.name}"`;
			if (c.type === 'date') return `(DATE '1970-01-01' + INTERVAL (${v}) DAY)::DATE AS "${c.name}"`;
			if (pfield.transform !== 'identity') die('only identity partitions are expected');
			return `${q(v)}::${duckType[c.type]} AS "${c.name}"`;
		});
		const r = await con.runAndReadAll(`SELECT ${sel.join(', ')} FROM read_parquet(${q(local(f.file_path))}, schema = MAP {${map.join(', ')}})`);
		const rows = r.getRows();
		if (rows.length !== Number(f.record_count)) die(`${f.file_path}: record_count ${f.record_count} but ${rows.length} rows`);
		for (const row of rows) lines.push(row.map((c) => (c === null ? '' : String(c))).join(','));
	}
	lines.sort();
	for (const l of lines) console.log(l);
	process.exit(0);
}
die(`unknown mode ${mode}`);
