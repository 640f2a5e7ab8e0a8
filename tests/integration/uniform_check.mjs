// Independent Iceberg reader for uniform_*.sh, assembled from avsc (Avro),
// the metadata JSON as the Iceberg table spec (format v2) defines it, and
// DuckDB reading the listed Parquet files with column names taken from the
// Iceberg field ids (read_parquet's `schema` map by field_id), identity
// partition values from the manifests.
//   current TABLE          prints the current snapshot id (version-hint.text -> vN.metadata.json)
//   rows TABLE [SNAPSHOT]  the rows of that snapshot (default current) as sorted CSV lines
//   rows-json TABLE [SNAPSHOT]  the same as JSON objects, nested columns (list, map, struct)
//                          resolved by field id (element-id, key-id, value-id) in each file
//   check-avro TABLE       checks every manifest list and manifest of every snapshot against the
//                          spec's Avro schemas (names, field ids), and the metadata's required fields
//   prop TABLE KEY         a property of the current metadata
//   props TABLE            the current metadata's properties but schema.name-mapping.default,
//                          sorted "key=value" lines
//   name-mapping TABLE     checks schema.name-mapping.default against the Iceberg spec's name
//                          mapping (a JSON list of {names: [string...], field-id?: int,
//                          fields?: nested list}) and against the current schema: every field,
//                          list element and map key/value of it, by id and name, nothing else
//   unset-prop TABLE KEY   a new metadata version v<N+1> without KEY, as an Iceberg engine's
//                          UpdateProperties.remove commits it (metadata-log extended)
//   backdate TABLE DAYS    makes every snapshot but the current one DAYS days old (metadata edited)
//   snapshots TABLE        the snapshot ids, then the snapshot-log's ids (two lines)
//   referenced TABLE       the manifest lists and manifests the snapshots name, sorted
//   fixture DIR KIND       writes a hand-made Iceberg v2 table following the spec: Parquet data files
//                          by DuckDB with field ids (the identity partition column only in the
//                          manifests), manifests and a manifest list by avsc, v1.metadata.json and
//                          version-hint.text; prints its rows as sorted CSV. KIND: plain (with
//                          three table properties), deletes
//                          (a merge-on-read delete manifest too), evolved (two partition specs),
//                          decbin (decimal and binary identity partitions; binaries printed X'HEX'
//                          as deltalake cat does), decbin_bad (a binary value that is not UTF-8),
//                          nested (unpartitioned, lists and maps with element/key/value ids, the
//                          Parquet names unlike the Iceberg ones so only ids resolve them; prints
//                          nothing: read it with rows-json)
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

if (mode === 'fixture') await fixture(table, arg);
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
if (mode === 'props') {
	for (const [k, v] of Object.entries(m.properties || {}).sort())
		if (k !== 'schema.name-mapping.default') console.log(`${k}=${v}`);
	process.exit(0);
}
if (mode === 'name-mapping') {
	const text = m.properties?.['schema.name-mapping.default'];
	if (typeof text !== 'string') die('no schema.name-mapping.default');
	const nm = JSON.parse(text);
	const valid = (list, at) => {
		if (!Array.isArray(list)) die(`${at}: a mapping is not a list`);
		for (const f of list) {
			const keys = Object.keys(f).sort().join(',');
			if (!['field-id,names', 'field-id,fields,names', 'names', 'fields,names'].includes(keys))
				die(`${at}: unexpected members ${keys}`);
			if (!Array.isArray(f.names) || !f.names.length || f.names.some((n) => typeof n !== 'string'))
				die(`${at}: names is not a non-empty list of strings`);
			if ('field-id' in f && !Number.isInteger(f['field-id'])) die(`${at}: field-id is not an integer`);
			if (f.fields) valid(f.fields, `${at}.${f.names[0]}`);
		}
	};
	valid(nm, '$');
	// the mapping Iceberg's MappingUtil derives from the schema, by the spec's type JSON
	const derive = (t) => {
		if (typeof t !== 'object') return undefined;
		if (t.type === 'struct') return t.fields.map((f) => ({id: f.id, name: f.name, type: f.type}));
		if (t.type === 'list') return [{id: t['element-id'], name: 'element', type: t.element}];
		if (t.type === 'map') return [{id: t['key-id'], name: 'key', type: t.key}, {id: t['value-id'], name: 'value', type: t.value}];
		die(`unknown type ${JSON.stringify(t)}`);
	};
	const same = (list, t, at) => {
		const want = derive(t);
		if (!want) { if (list !== undefined) die(`${at}: nested mapping on a primitive`); return; }
		if (!list || list.length !== want.length) die(`${at}: ${list?.length} mapped fields, the schema has ${want.length}`);
		want.forEach((w, i) => {
			if (list[i]['field-id'] !== w.id || list[i].names.join() !== w.name)
				die(`${at}: mapped ${JSON.stringify(list[i].names)}=${list[i]['field-id']}, the schema has ${w.name}=${w.id}`);
			same(list[i].fields, w.type, `${at}.${w.name}`);
		});
	};
	const cur = m.schemas.find((x) => x['schema-id'] === m['current-schema-id']);
	same(nm, cur, '$');
	const ids = [];
	const collect = (l) => l.forEach((f) => { ids.push(f['field-id']); if (f.fields) collect(f.fields); });
	collect(nm);
	console.log(ids.sort((a, b) => a - b).join(' '));
	process.exit(0);
}
if (mode === 'unset-prop') {
	const {writeFileSync} = await import('fs');
	const hint = Number(readFileSync(`${table}/metadata/version-hint.text`, 'utf8').trim());
	const file = `${table}/metadata/v${hint}.metadata.json`;
	delete m.properties[arg];
	m['metadata-log'] = [...(m['metadata-log'] || []), {'timestamp-ms': m['last-updated-ms'], 'metadata-file': file}];
	m['last-updated-ms'] = Date.now();
	writeFileSync(`${table}/metadata/v${hint + 1}.metadata.json`, JSON.stringify(m).replace(/:"(-?\d{16,})"/g, ':$1'));
	writeFileSync(`${table}/metadata/version-hint.text`, String(hint + 1));
	process.exit(0);
}
if (mode === 'backdate') {
	// backdate TABLE DAYS: every snapshot but the current one (and its snapshot-log entries) made
	// DAYS days old in the current metadata file, as if written then (for the expiry tests).
	const {writeFileSync} = await import('fs');
	const hint = readFileSync(`${table}/metadata/version-hint.text`, 'utf8').trim();
	const old = Date.now() - Number(arg) * 86400000;
	const cur = String(m['current-snapshot-id']);
	for (const x of [...m.snapshots, ...(m['snapshot-log'] || [])])
		if (String(x['snapshot-id']) !== cur) x['timestamp-ms'] = old;
	writeFileSync(`${table}/metadata/v${hint}.metadata.json`, JSON.stringify(m).replace(/:"(-?\d{16,})"/g, ':$1'));
	process.exit(0);
}
if (mode === 'snapshots') {
	// snapshots TABLE: the snapshot ids, then "log" and the snapshot-log's ids, one line each
	console.log(m.snapshots.map((x) => String(x['snapshot-id'])).join(' '));
	console.log((m['snapshot-log'] || []).map((x) => String(x['snapshot-id'])).join(' '));
	process.exit(0);
}
if (mode === 'referenced') {
	// referenced TABLE: every manifest list and manifest the current metadata's snapshots name
	const out = new Set();
	for (const x of m.snapshots) {
		out.add(local(x['manifest-list']));
		for (const mf of (await readAvro(x['manifest-list'])).rows) out.add(local(mf.manifest_path));
	}
	for (const p of [...out].sort()) console.log(p);
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
			// the list's partition summaries (spec: field_summary) against the manifest's entries
			if (spec.length && (!Array.isArray(mf.partitions) || mf.partitions.length !== spec.length))
				die(`${mf.manifest_path}: the manifest list has no partition summary per partition field`);
			pf.forEach((f, i) => {
				const vals = man.rows.map((r) => r.data_file.partition[f.name]);
				const sum = mf.partitions[i];
				if (sum.contains_null !== vals.some((v) => v === null))
					die(`${mf.manifest_path}: contains_null of ${f.name} is ${sum.contains_null}`);
				const t = Array.isArray(f.type) ? f.type.find((x) => x !== 'null') : f.type;
				const enc = t === 'int' ? (v) => { const b = Buffer.alloc(4); b.writeInt32LE(v); return b; }
					: t === 'string' ? (v) => Buffer.from(v) : null;
				if (!enc) return;
				const nn = vals.filter((v) => v !== null).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
				const want = nn.length ? [enc(nn[0]), enc(nn[nn.length - 1])] : [null, null];
				const got = [sum.lower_bound, sum.upper_bound];
				for (let k = 0; k < 2; k++)
					if ((want[k] === null) !== (got[k] === null) || (want[k] && !want[k].equals(got[k])))
						die(`${mf.manifest_path}: ${k ? 'upper' : 'lower'} bound of ${f.name} is ${got[k]?.toString('hex')}, entries give ${want[k]?.toString('hex')}`);
			});
			const sch = JSON.parse(man.meta['schema'].toString());
			if (!sch.fields) die('manifest schema metadata lacks fields');
			if (man.meta['format-version'].toString() !== '2' || man.meta['content'].toString() !== 'data')
				die('manifest format-version/content');
		}
	}
	console.log('ok');
	process.exit(0);
}
// Nested columns (lists, maps, structs) are resolved by field id through
// the file's own Parquet schema (parquet_schema: names, field ids, number of
// children, depth first): a struct's fields by their ids, and a list
// element / map key / value must carry the element-id / key-id / value-id
// of the Iceberg schema. The expression renames the file's physical names
// to the Iceberg names.
async function parquetTree(con, path) {
	const r = await con.runAndReadAll(`SELECT name, field_id, num_children FROM parquet_schema('${path.replaceAll("'", "''")}')`);
	const rows = r.getRows();
	let i = 0;
	const node = () => {
		const [name, fid, n] = rows[i++];
		const kids = [];
		for (let k = 0; k < Number(n ?? 0); k++) kids.push(node());
		return {name, id: fid === null ? null : Number(fid), kids};
	};
	return node();
}
const qi = (n) => `"${String(n).replaceAll('"', '""')}"`;
let lambdaN = 0;
function nestedExpr(t, node, ref, file) {
	const slot = (n, want, what) => {
		if (n.id !== want) die(`${file}: the Parquet ${what} node has field id ${n.id}, the Iceberg schema says ${want}`);
		return n;
	};
	if (typeof t === 'string') return ref;
	if (t.type === 'struct') {
		const parts = t.fields.map((f) => {
			const c = node.kids.find((k) => k.id === f.id);
			return `${qi(f.name)} := ${c ? nestedExpr(f.type, c, `(${ref}).${qi(c.name)}`, file) : 'NULL'}`;
		});
		return `CASE WHEN ${ref} IS NULL THEN NULL ELSE struct_pack(${parts.join(', ')}) END`;
	}
	const v = `x${lambdaN++}`;
	if (t.type === 'list') {
		const el = slot(node.kids[0].kids[0], t['element-id'], 'list element');
		return `list_transform(${ref}, lambda ${v}: ${nestedExpr(t.element, el, v, file)})`;
	}
	if (t.type === 'map') {
		const kv = node.kids[0];
		const k = slot(kv.kids.find((n) => n.name === 'key'), t['key-id'], 'map key');
		const val = slot(kv.kids.find((n) => n.name === 'value'), t['value-id'], 'map value');
		return `map_from_entries(list_transform(map_entries(${ref}), lambda ${v}: {'key': ${nestedExpr(t.key, k, `${v}.key`, file)}, 'value': ${nestedExpr(t.value, val, `${v}.value`, file)}}))`;
	}
	die(`unexpected Iceberg type ${JSON.stringify(t)}`);
}
// rows-json: every row as one JSON object (DuckDB's to_json), for tables
// with nested columns, compared with `deltalake cat --format jsonl`.
async function jsonRowsOf(snap, con) {
	const schema = m.schemas.find((s) => s['schema-id'] === (snap['schema-id'] ?? m['current-schema-id']));
	const spec = m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id']);
	if (spec.fields.length) die('rows-json: partitioned tables are not expected');
	const lines = [];
	for (const f of await liveFiles(m, snap)) {
		const path = local(f.file_path);
		const tree = await parquetTree(con, path);
		const parts = schema.fields.map((c) => {
			const n = tree.kids.find((k) => k.id === c.id);
			return `${qi(c.name)} := ${n ? nestedExpr(c.type, n, qi(n.name), path) : 'NULL'}`;
		});
		const r = await con.runAndReadAll(`SELECT to_json(struct_pack(${parts.join(', ')}))::VARCHAR FROM read_parquet('${path.replaceAll("'", "''")}')`);
		const rows = r.getRows();
		if (rows.length !== Number(f.record_count)) die(`${f.file_path}: record_count ${f.record_count} but ${rows.length} rows`);
		for (const row of rows) lines.push(row[0]);
	}
	lines.sort();
	return lines;
}
async function rowsOf(snap, con) {
	const schema = m.schemas.find((s) => s['schema-id'] === (snap['schema-id'] ?? m['current-schema-id']));
	const spec = m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id']);
	const files = await liveFiles(m, snap);
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
			if (pfield.transform !== 'identity') die('only identity partitions are expected');
			const keys = Object.keys(f.partition);
			const v = f.partition[keys[partBySource.get(c.id)]];
			if (v === null || v === undefined) return `NULL AS "${c.name}"`;
			if (c.type === 'date') return `(DATE '1970-01-01' + INTERVAL (${v}) DAY)::DATE AS "${c.name}"`;
			return `${q(v)}::${duckType[c.type]} AS "${c.name}"`;
		});
		const r = await con.runAndReadAll(`SELECT ${sel.join(', ')} FROM read_parquet(${q(local(f.file_path))}, schema = MAP {${map.join(', ')}})`);
		const rows = r.getRows();
		if (rows.length !== Number(f.record_count)) die(`${f.file_path}: record_count ${f.record_count} but ${rows.length} rows`);
		for (const row of rows) lines.push(row.map((c) => (c === null ? '' : String(c))).join(','));
	}
	lines.sort();
	return lines;
}
if (mode === 'rows-json') {
	const db = await DuckDBInstance.create(':memory:');
	const con = await db.connect();
	for (const l of await jsonRowsOf(snapOf(arg || m['current-snapshot-id']), con)) console.log(l);
	process.exit(0);
}
if (mode === 'rows' || mode === 'rows-many') {
	const db = await DuckDBInstance.create(':memory:');
	const con = await db.connect();
	if (mode === 'rows') {
		for (const l of await rowsOf(snapOf(arg || m['current-snapshot-id']), con)) console.log(l);
	} else {
		// rows-many TABLE OUTDIR SID...: OUTDIR/SID.rows for each snapshot
		const {writeFileSync} = await import('fs');
		for (const sid of process.argv.slice(5)) {
			const lines = await rowsOf(snapOf(sid), con);
			writeFileSync(`${arg}/${sid}.rows`, lines.map((l) => l + '\n').join(''));
		}
	}
	process.exit(0);
}
die(`unknown mode ${mode}`);

// ---- the hand-made fixture ----
async function fixture(dir, kind) {
	const {mkdirSync, writeFileSync, statSync, createWriteStream} = await import('fs');
	const db = await DuckDBInstance.create(':memory:');
	const con = await db.connect();
	mkdirSync(`${dir}/metadata`, {recursive: true});
	mkdirSync(`${dir}/data`, {recursive: true});
	// columns: 1 id long (required), 2 name string, 3 p int (identity partition), 4 amount decimal(9,2)
	const files = [];
	const expected = [];
	// decbin: p is decimal(9,2) (1.50, -2.25) and column 5 b binary a second identity partition
	// (the UTF-8 bytes of 'é!', then 0x01 0x41): Avro fixed(4) decimal and bytes in the manifests.
	const decbin = kind === 'decbin' || kind === 'decbin_bad';
	const pval = {1: decbin ? '1.50' : '1', 2: decbin ? '-2.25' : '2'};
	const bval = {1: Buffer.from('é!'), 2: Buffer.from(kind === 'decbin_bad' ? [0xff, 0x41] : [0x01, 0x41])};
	const fixed4 = (x) => { const b = Buffer.alloc(4); b.writeInt32BE(x); return b; };
	const nested = kind === 'nested';
	for (const p of [1, 2]) {
		if (nested) {
			// Iceberg renamed every column (the files keep the old names): ids alone resolve them.
			const path = `${dir}/data/n${p}.parquet`;
			await con.run(`COPY (SELECT (i * 10 + ${p})::BIGINT AS i0,
				CASE WHEN i % 3 = 0 THEN NULL ELSE ['a' || i, NULL, 'b'] END AS t0,
				CASE WHEN i % 4 = 1 THEN MAP {} ELSE MAP {'k' || i: i::INT, 'z': NULL::INT} END AS a0,
				[{'x0': i::INT, 'y0': 'y' || i}, NULL, {'x0': NULL::INT, 'y0': NULL::VARCHAR}] AS p0,
				CASE WHEN i % 2 = 0 THEN NULL ELSE MAP {'m': [i::INT, 2], 'e': []::INT[]} END AS m0
				FROM range(0, ${p * 4}) t(i))
				TO '${path}' (FORMAT parquet, FIELD_IDS {i0: 1, t0: {__duckdb_field_id: 2, element: 6},
				a0: {__duckdb_field_id: 3, key: 7, value: 8}, p0: {__duckdb_field_id: 4, element: {__duckdb_field_id: 9, x0: 10, y0: 11}},
				m0: {__duckdb_field_id: 5, key: 12, value: {__duckdb_field_id: 13, element: 14}}})`);
			files.push({path, p, rows: p * 4, size: statSync(path).size});
			continue;
		}
		const path = `${dir}/data/p=${p}/f${p}.parquet`;
		mkdirSync(`${dir}/data/p=${p}`, {recursive: true});
		await con.run(`COPY (SELECT (i * 10 + ${p})::BIGINT AS id, CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || i END AS name,
			(i * 1.25 + ${p})::DECIMAL(9,2) AS amount FROM range(0, ${p * 5}) t(i))
			TO '${path}' (FORMAT parquet, FIELD_IDS {id: 1, name: 2, amount: 4})`);
		const rows = (await con.runAndReadAll(`SELECT id, name, amount FROM read_parquet('${path}')`)).getRows();
		for (const r of rows)
			expected.push([r[0], r[1], pval[p], r[2], ...(decbin ? [`X'${bval[p].toString('hex').toUpperCase()}'`] : [])]
				.map((c) => (c === null ? '' : String(c))).join(','));
		files.push({path, p, rows: rows.length, size: statSync(path).size});
	}
	const part = {type: 'record', name: 'r102', fields: nested ? [] : decbin
		? [{name: 'p', type: ['null', {type: 'fixed', name: 'fixed_p', size: 4, logicalType: 'decimal', precision: 9, scale: 2}], default: null, 'field-id': 1000},
			{name: 'b', type: ['null', 'bytes'], default: null, 'field-id': 1001}]
		: [{name: 'p', type: ['null', 'int'], default: null, 'field-id': 1000}]};
	const kv = (k, v, t) => ({type: 'array', logicalType: 'map', items: {type: 'record', name: `k${k}_v${v}`,
		fields: [{name: 'key', type: 'int', 'field-id': k}, {name: 'value', type: t, 'field-id': v}]}});
	const entrySchema = {type: 'record', name: 'manifest_entry', fields: [
		{name: 'status', type: 'int', 'field-id': 0},
		{name: 'snapshot_id', type: ['null', 'long'], default: null, 'field-id': 1},
		{name: 'sequence_number', type: ['null', 'long'], default: null, 'field-id': 3},
		{name: 'file_sequence_number', type: ['null', 'long'], default: null, 'field-id': 4},
		{name: 'data_file', 'field-id': 2, type: {type: 'record', name: 'r2', fields: [
			{name: 'content', type: 'int', 'field-id': 134},
			{name: 'file_path', type: 'string', 'field-id': 100},
			{name: 'file_format', type: 'string', 'field-id': 101},
			{name: 'partition', type: part, 'field-id': 102},
			{name: 'record_count', type: 'long', 'field-id': 103},
			{name: 'file_size_in_bytes', type: 'long', 'field-id': 104},
			{name: 'value_counts', type: ['null', kv(119, 120, 'long')], default: null, 'field-id': 109},
			{name: 'null_value_counts', type: ['null', kv(121, 122, 'long')], default: null, 'field-id': 110},
			{name: 'lower_bounds', type: ['null', kv(126, 127, 'bytes')], default: null, 'field-id': 125},
			{name: 'upper_bounds', type: ['null', kv(129, 130, 'bytes')], default: null, 'field-id': 128},
		]}},
	]};
	const listSchema = {type: 'record', name: 'manifest_file', fields: [
		['manifest_path', 'string', 500], ['manifest_length', 'long', 501], ['partition_spec_id', 'int', 502],
		['content', 'int', 517], ['sequence_number', 'long', 515], ['min_sequence_number', 'long', 516],
		['added_snapshot_id', 'long', 503], ['added_files_count', 'int', 504], ['existing_files_count', 'int', 505],
		['deleted_files_count', 'int', 506], ['added_rows_count', 'long', 512], ['existing_rows_count', 'long', 513],
		['deleted_rows_count', 'long', 514]].map(([name, type, id]) => ({name, type, 'field-id': id}))};
	const schema = nested ? {type: 'struct', 'schema-id': 0, fields: [
		{id: 1, name: 'id', required: true, type: 'long'},
		{id: 2, name: 'tags', required: false, type: {type: 'list', 'element-id': 6, element: 'string', 'element-required': false}},
		{id: 3, name: 'attrs', required: false, type: {type: 'map', 'key-id': 7, key: 'string', 'value-id': 8, value: 'int', 'value-required': false}},
		{id: 4, name: 'pts', required: false, type: {type: 'list', 'element-id': 9, 'element-required': false,
			element: {type: 'struct', fields: [{id: 10, name: 'x', required: false, type: 'int'}, {id: 11, name: 'y', required: false, type: 'string'}]}}},
		{id: 5, name: 'mm', required: false, type: {type: 'map', 'key-id': 12, key: 'string', 'value-id': 13, 'value-required': false,
			value: {type: 'list', 'element-id': 14, element: 'int', 'element-required': true}}}]}
	: {type: 'struct', 'schema-id': 0, fields: [
		{id: 1, name: 'id', required: true, type: 'long'}, {id: 2, name: 'name', required: false, type: 'string'},
		{id: 3, name: 'p', required: false, type: decbin ? 'decimal(9, 2)' : 'int'},
		{id: 4, name: 'amount', required: false, type: 'decimal(9, 2)'},
		...(decbin ? [{id: 5, name: 'b', required: false, type: 'binary'}] : [])]};
	const spec = nested ? [] : [{name: 'p', transform: 'identity', 'source-id': 3, 'field-id': 1000},
		...(decbin ? [{name: 'b', transform: 'identity', 'source-id': 5, 'field-id': 1001}] : [])];
	const write = (path, sch, rows, meta) => new Promise((resolve, reject) => {
		const enc = new avro.streams.BlockEncoder(avro.Type.forSchema(sch, {registry: {long: bigLong}}), {codec: 'null',
			metadata: Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, Buffer.from(v)]))});
		const out = createWriteStream(path);
		enc.pipe(out);
		enc.on('error', reject);
		out.on('error', reject);
		out.on('close', resolve);
		for (const r of rows) enc.write(r);
		enc.end();
	});
	const snap = 3051729675574597004n;
	const manMeta = {schema: JSON.stringify(schema), 'schema-id': '0', 'partition-spec': JSON.stringify(spec),
		'partition-spec-id': '0', 'format-version': '2', content: 'data'};
	const entries = files.map((f) => ({status: 1, snapshot_id: snap, sequence_number: 1n, file_sequence_number: 1n,
		data_file: {content: 0, file_path: f.path, file_format: 'PARQUET',
			partition: nested ? {} : decbin ? {p: fixed4(f.p === 1 ? 150 : -225), b: bval[f.p]} : {p: f.p},
			record_count: BigInt(f.rows), file_size_in_bytes: BigInt(f.size), value_counts: null,
			null_value_counts: null, lower_bounds: null, upper_bounds: null}}));
	const man = `${dir}/metadata/fixture-m0.avro`;
	await write(man, entrySchema, entries, manMeta);
	const manifests = [{manifest_path: man, manifest_length: BigInt(statSync(man).size), partition_spec_id: 0, content: 0,
		sequence_number: 1n, min_sequence_number: 1n, added_snapshot_id: snap, added_files_count: files.length,
		existing_files_count: 0, deleted_files_count: 0, added_rows_count: BigInt(files.reduce((n, f) => n + f.rows, 0)),
		existing_rows_count: 0n, deleted_rows_count: 0n}];
	if (kind === 'deletes') {
		const del = `${dir}/metadata/fixture-m1.avro`;
		await write(del, entrySchema, [{...entries[0], data_file: {...entries[0].data_file, content: 1,
			file_path: `${dir}/data/p=1/deletes.parquet`}}], {...manMeta, content: 'deletes'});
		manifests.push({...manifests[0], manifest_path: del, manifest_length: BigInt(statSync(del).size), content: 1,
			added_files_count: 1});
	}
	const list = `${dir}/metadata/snap-${snap}-1-fixture.avro`;
	await write(list, listSchema, manifests, {'snapshot-id': String(snap), 'parent-snapshot-id': 'null',
		'sequence-number': '1', 'format-version': '2'});
	const specs = [{'spec-id': 0, fields: spec}];
	// plain: table properties a CONVERT copies (an Iceberg retention of 2 days)
	const fixtureProps = {'write.parquet.compression-codec': 'zstd', 'history.expire.max-snapshot-age-ms': '172800000',
		'owner': 'fixture'};
	if (kind === 'evolved') specs.push({'spec-id': 1, fields: []});
	const md = `{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"${dir}",
"last-sequence-number":1,"last-updated-ms":1700000000000,"last-column-id":${nested ? 14 : decbin ? 5 : 4},"current-schema-id":0,
"schemas":[${JSON.stringify(schema)}],"default-spec-id":${kind === 'evolved' ? 1 : 0},
"partition-specs":${JSON.stringify(specs)},"last-partition-id":${nested ? 999 : decbin ? 1001 : 1000},"default-sort-order-id":0,
"sort-orders":[{"order-id":0,"fields":[]}],"properties":${JSON.stringify(kind === 'plain' ? fixtureProps : {})},"current-snapshot-id":${snap},
"snapshots":[{"snapshot-id":${snap},"sequence-number":1,"timestamp-ms":1700000000000,
"summary":{"operation":"append"},"manifest-list":"${list}","schema-id":0}],
"snapshot-log":[{"timestamp-ms":1700000000000,"snapshot-id":${snap}}],"metadata-log":[]}`;
	writeFileSync(`${dir}/metadata/v1.metadata.json`, md);
	writeFileSync(`${dir}/metadata/version-hint.text`, '1');
	expected.sort();
	for (const l of expected) console.log(l);
	process.exit(0);
}
