// Checker of the sharing server tests (sharing_server_*.sh): the NDJSON
// responses of our server read as PROTOCOL.md of delta-io/delta-sharing
// defines them, line by line, by a reader that is not our client.
//   lines FILE parquet|delta [KIND...]   checks every line of a query/metadata/changes
//        response; KINDs are the wrapper keys allowed after protocol and metaData
//        (default: file); prints "files=N" and one "url<TAB>size" per data file
//   conform LIST                          LIST has lines "DIR<TAB>EXPECTED.parquet": DIR
//        holds query.ndjson and the downloaded files (named by sha1 of their URL);
//        checks each table's rows (sum of the files' rows minus deletion-vector
//        cardinalities) equal the rows of EXPECTED.parquet, and each download's size
//   count FILE...                         prints the rows of Parquet files
import {createRequire} from 'module';
import {readFileSync, statSync, existsSync} from 'fs';
import {createHash} from 'crypto';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , mode, ...args] = process.argv;
const errors = [];
const err = (m) => errors.push(m);
const isInt = (v) => Number.isInteger(v);
const isStr = (v) => typeof v === 'string';
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// PROTOCOL.md "JSON Wrapper Object In Each Line": exactly one field per line.
function wrapper(o, where) {
	if (!isObj(o)) return err(`${where}: not a JSON object`), [null, null];
	const k = Object.keys(o);
	if (k.length !== 1) return err(`${where}: ${k.length} fields, a line holds exactly one`), [null, null];
	return [k[0], o[k[0]]];
}

function checkProtocol(p, fmt, where) {
	if (fmt === 'parquet') {
		if (p.minReaderVersion !== 1) err(`${where}: protocol.minReaderVersion must be 1`);
	} else {
		const d = p.deltaProtocol;
		if (!isObj(d) || !isInt(d.minReaderVersion) || !isInt(d.minWriterVersion))
			err(`${where}: protocol.deltaProtocol needs minReaderVersion and minWriterVersion`);
	}
}

function checkMetadata(m, fmt, where) {
	if (fmt === 'parquet') {
		if (!isStr(m.id)) err(`${where}: metaData.id is required`);
		if (!isObj(m.format) || m.format.provider !== 'parquet') err(`${where}: metaData.format.provider must be parquet`);
		if (!isStr(m.schemaString)) err(`${where}: metaData.schemaString is required`);
		else {
			const s = JSON.parse(m.schemaString);
			if (s.type !== 'struct' || !Array.isArray(s.fields)) err(`${where}: schemaString is not a struct`);
		}
		if (!Array.isArray(m.partitionColumns)) err(`${where}: metaData.partitionColumns must be an array`);
		if (m.configuration !== undefined && !isObj(m.configuration)) err(`${where}: configuration must be a map`);
		for (const k of ['version', 'size', 'numFiles'])
			if (m[k] !== undefined && !isInt(m[k])) err(`${where}: metaData.${k} must be a Long`);
	} else {
		const d = m.deltaMetadata;
		if (!isObj(d) || !isStr(d.id) || !isStr(d.schemaString) || !Array.isArray(d.partitionColumns))
			err(`${where}: metaData.deltaMetadata needs id, schemaString, partitionColumns`);
	}
}

// One data file: returns {url, size, dvUrl, dvCard} for downloads.
function checkFile(kind, f, fmt, where) {
	if (fmt === 'parquet') {
		if (!isStr(f.url) || !/^https?:\/\//.test(f.url)) err(`${where}: ${kind}.url must be an http(s) URL`);
		if (!isStr(f.id)) err(`${where}: ${kind}.id is required`);
		if (!isObj(f.partitionValues)) err(`${where}: ${kind}.partitionValues must be a map`);
		else for (const [k, v] of Object.entries(f.partitionValues))
			if (v !== null && !isStr(v)) err(`${where}: partition value ${k} must be a string`);
		if (!isInt(f.size)) err(`${where}: ${kind}.size must be a Long`);
		if (f.stats !== undefined && !isStr(f.stats)) err(`${where}: ${kind}.stats must be a string`);
		if (!isInt(f.expirationTimestamp)) err(`${where}: ${kind}.expirationTimestamp must be a Long`);
		if (kind !== 'file' && (!isInt(f.version) || !isInt(f.timestamp)))
			err(`${where}: ${kind} needs version and timestamp`);
		return {url: f.url, size: f.size, dvUrl: null, dvCard: 0};
	}
	if (!isStr(f.id)) err(`${where}: file.id is required`);
	if (!isInt(f.expirationTimestamp)) err(`${where}: file.expirationTimestamp must be a Long`);
	const [ak, a] = wrapper(f.deltaSingleAction || {}, `${where} deltaSingleAction`);
	if (!['add', 'remove', 'cdc'].includes(ak)) return err(`${where}: deltaSingleAction is ${ak}`), null;
	if (!isStr(a.path) || !/^https?:\/\//.test(a.path)) err(`${where}: the action's path must be a URL`);
	const dv = a.deletionVector;
	let dvUrl = null, dvCard = 0;
	if (dv) {
		if (dv.storageType === 'p') dvUrl = dv.pathOrInlineDv;
		else if (dv.storageType !== 'i') err(`${where}: a DV must be signed ('p') or inline, not ${dv.storageType}`);
		dvCard = dv.cardinality;
	}
	return {url: a.path, size: a.size, dvUrl, dvCard, kind: ak};
}

function checkLines(text, fmt, kinds, where) {
	const lines = text.split('\n');
	if (lines[lines.length - 1] !== '') err(`${where}: the response does not end with a newline`);
	lines.pop();
	const files = [];
	lines.forEach((line, i) => {
		const w = `${where} line ${i + 1}`;
		let o;
		try {
			o = JSON.parse(line);
		} catch (e) {
			return err(`${w}: not JSON: ${e.message}`);
		}
		const [k, v] = wrapper(o, w);
		if (i === 0) return k === 'protocol' ? checkProtocol(v, fmt, w) : err(`${w}: the first line must be protocol, not ${k}`);
		if (i === 1) return k === 'metaData' ? checkMetadata(v, fmt, w) : err(`${w}: the second line must be metaData, not ${k}`);
		if (k === 'metaData' && kinds.includes('metaData')) return checkMetadata(v, fmt, w);
		if (k === 'protocol' && kinds.includes('protocol')) {
			if (!isInt(v.version)) err(`${w}: a historical protocol needs its version`);
			return checkProtocol(v, fmt, w);
		}
		if (k === 'endStreamAction' && kinds.includes('endStreamAction')) {
			if (i !== lines.length - 1) err(`${w}: endStreamAction must be the last line`);
			return;
		}
		if (!kinds.includes(k)) return err(`${w}: unexpected line ${k}`);
		const f = checkFile(k, v, fmt, w);
		if (f) files.push(f);
	});
	return files;
}

const sha1 = (s) => createHash('sha1').update(s).digest('hex');

if (mode === 'lines') {
	const [file, fmt, ...k] = args;
	const files = checkLines(readFileSync(file, 'utf8'), fmt, k.length ? k : ['file'], file);
	console.log(`files=${files.length}`);
	for (const f of files) console.log(`${f.url}\t${f.size}`);
} else if (mode === 'conform' || mode === 'count') {
	const db = await DuckDBInstance.create(':memory:');
	const con = await db.connect();
	const q = (s) => `'${s.replaceAll("'", "''")}'`;
	const rows = async (paths) => {
		if (!paths.length) return 0n;
		const r = await con.runAndReadAll(`SELECT count(*) FROM read_parquet([${paths.map(q).join(",")}], union_by_name=true)`);
		return r.getRows()[0][0];
	};
	if (mode === 'count') console.log(String(await rows(args)));
	else {
		let n = 0;
		for (const line of readFileSync(args[0], 'utf8').split('\n').filter(Boolean)) {
			const [dir, expected] = line.split('\t');
			const text = readFileSync(`${dir}/query.ndjson`, 'utf8');
			const fmt = text.startsWith('{"protocol":{"deltaProtocol"') ? 'delta' : 'parquet';
			const before = errors.length;
			const files = checkLines(text, fmt, ['file'], dir);
			const paths = [];
			let deleted = 0n;
			for (const f of files) {
				const p = `${dir}/files/${sha1(f.url)}`;
				if (!existsSync(p)) { err(`${dir}: ${f.url} was not downloaded`); continue; }
				if (statSync(p).size !== f.size) err(`${dir}: a download has ${statSync(p).size} bytes, the file line says ${f.size}`);
				paths.push(p);
				if (f.dvUrl && !existsSync(`${dir}/files/${sha1(f.dvUrl)}`)) err(`${dir}: its DV file was not downloaded`);
				deleted += BigInt(f.dvCard || 0);
			}
			if (errors.length > before) continue;
			const got = (await rows(paths)) - deleted;
			const want = await rows([expected]);
			if (got !== want) err(`${dir}: ${got} rows through the server, ${want} read directly`);
			n++;
		}
		console.log(`tables=${n}`);
	}
}
if (errors.length) {
	for (const e of errors.slice(0, 40)) console.error(e);
	process.exit(1);
}
