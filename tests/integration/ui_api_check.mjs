// Checks the JSON of `deltalake ui` fetched by ui_api.sh (curl) against
// what the CLI commands print and against the table's log read here:
//   node ui_api_check.mjs DIR TABLE
// DIR holds <endpoint>.json answers and cli-<command>.json outputs.
// Prints one "ok:" line per check; exits 1 after listing the failures.
import fs from 'node:fs';
import path from 'node:path';

const [dir, table] = process.argv.slice(2);
const read = name => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
const has = name => fs.existsSync(path.join(dir, name));
let fails = 0;
function check(ok, what) {
  if (ok) console.log('ok: ' + what);
  else { console.error('FAIL: ' + what); fails++; }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The live adds from the log's commit files (all of them are kept in these
// test tables), the newest action per file winning.
function replay() {
  const log = path.join(table, '_delta_log');
  const live = new Map();
  let schema = null, config = {};
  for (const f of fs.readdirSync(log).filter(f => /^\d{20}\.json$/.test(f)).sort()) {
    for (const line of fs.readFileSync(path.join(log, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const a = JSON.parse(line);
      // a file is its path and deletion vector (PROTOCOL.md "Action Reconciliation")
      const id = x => x.path + '|' + (x.deletionVector ? x.deletionVector.storageType + x.deletionVector.pathOrInlineDv + '@' + (x.deletionVector.offset ?? '') : '');
      if (a.add) live.set(id(a.add), a.add);
      if (a.remove) live.delete(id(a.remove));
      if (a.metaData) { schema = JSON.parse(a.metaData.schemaString); config = a.metaData.configuration || {}; }
    }
  }
  return { adds: [...live.values()], schema, config };
}

// history, detail: exactly what `deltalake history/detail --format json` print.
check(same(read('history.json'), read('cli-history.json')), '/api/history equals `deltalake history --format json`');
const H = read('history.json');
check(H.every((c, i) => Number.isInteger(c.version) && (i === 0 || c.version < H[i - 1].version)),
      '/api/history: one object per commit with its version, newest first');
check(same(read('detail.json'), read('cli-detail.json')), '/api/detail equals `deltalake detail --format json`');
const D = read('detail.json')[0];

// schema: the top-level fields are the rows of `deltalake schema`.
const S = read('schema.json'), cliS = read('cli-schema.json');
const top = S.filter(f => f.depth === 0).map(f => ({ column: f.column, type: f.type, nullable: f.nullable,
  partition: f.partition, metadata: Object.keys(f.metadata).length ? f.metadata : null }));
check(same(top, cliS), '/api/schema top-level fields equal `deltalake schema --format json`');
check(S.every(f => f.depth === 0 ? f.parent === null : S[f.parent] && S[f.parent].depth === f.depth - 1),
      '/api/schema nested fields point at their parents');

// protocol: the versions and features of `deltalake protocol`.
const P = read('protocol.json'), cliP = Object.fromEntries(read('cli-protocol.json').map(r => [r.name, r.value]));
check(String(P.minReaderVersion) === cliP.minReaderVersion && String(P.minWriterVersion) === cliP.minWriterVersion &&
      P.readerFeatures.join(',') === (cliP.readerFeatures || '') && P.writerFeatures.join(',') === (cliP.writerFeatures || ''),
      '/api/protocol equals `deltalake protocol`');

// files: the pages together are `deltalake files`.
const pages = fs.readdirSync(dir).filter(f => /^files-\d+\.json$/.test(f)).sort((a, b) => parseInt(a.slice(6)) - parseInt(b.slice(6)));
const all = pages.flatMap(p => read(p).files);
const cliF = read('cli-files.json');
check(read(pages[0]).total === cliF.length && all.length === cliF.length, `/api/files pages hold all ${cliF.length} files`);
const key = f => `${f.path}|${f.size}|${f.rows}|${f.deleted_rows}|${JSON.stringify(f.partition_values)}`;
check(same(all.map(key), cliF.map(key)), '/api/files rows equal `deltalake files --format json` (path, size, rows, deleted rows, partition values)');

// layout: the totals, histogram and partitions add up to the file list.
const L = read('layout.json');
const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);
check(L.files === D.numFiles && L.bytes === D.sizeInBytes, '/api/layout files and bytes equal detail');
check(sum(L.histogram, b => b.files) === L.files && sum(L.histogram, b => b.bytes) === L.bytes, '/api/layout histogram covers every file');
let hist = true;
for (const b of L.histogram) {
  const n = all.filter(f => b.lo === 0 ? f.size <= 0 : f.size >= b.lo && f.size < b.hi).length;
  if (n !== b.files) hist = false;
}
check(hist && L.histogram.every((b, i) => i === 0 || b.lo === L.histogram[i - 1].hi || L.histogram[i - 1].lo === 0),
      '/api/layout histogram buckets are consecutive powers of two holding the right files');
check(L.deletedRows === sum(all, f => f.deleted_rows) && L.smallFiles === all.filter(f => f.size < L.smallFileThreshold).length,
      '/api/layout deleted rows and small files match the file list');
if (L.partitionColumns.length) {
  const byPart = new Map();
  for (const f of all) {
    const k = JSON.stringify(f.partition_values);
    const p = byPart.get(k) || { files: 0, bytes: 0, deletedRows: 0 };
    p.files++; p.bytes += f.size; p.deletedRows += f.deleted_rows;
    byPart.set(k, p);
  }
  check(L.partitionCount === byPart.size && L.partitions.every(p => {
    const q = byPart.get(JSON.stringify(p.values));
    return q && q.files === p.files && q.bytes === p.bytes && q.deletedRows === p.deletedRows;
  }), `/api/layout per-partition files, bytes and DV rows (${byPart.size} partitions) match the file list`);
}

// commit: the actions are the lines of the commit file.
const C = read('commit.json');
const lines = fs.readFileSync(path.join(table, '_delta_log', String(C.version).padStart(20, '0') + '.json'), 'utf8')
  .split('\n').map(l => l.trim()).filter(Boolean);
check(C.total === lines.length && same(C.actions, lines.slice(C.offset, C.offset + C.actions.length)),
      `/api/commit?version=${C.version} gives the commit's ${lines.length} actions`);
if (has('commit-page.json')) {
  const CP = read('commit-page.json');
  check(same(CP.actions, lines.slice(CP.offset, CP.offset + CP.actions.length)) && CP.actions.length <= 1,
        '/api/commit pages with offset and limit');
}

// diff: files of the two versions (`deltalake files --version`) compared here.
const DF = read('diff.json'), fa = read('cli-files-from.json'), fb = read('cli-files-to.json');
const k2 = f => `${f.path}|${f.deleted_rows}`;
const A = new Set(fa.map(k2)), B = new Set(fb.map(k2));
const added = fb.filter(f => !A.has(k2(f))), removed = fa.filter(f => !B.has(k2(f)));
check(DF.addedCount === added.length && DF.removedCount === removed.length &&
      same(DF.added.map(k2).sort(), added.map(k2).sort()) && same(DF.removed.map(k2).sort(), removed.map(k2).sort()) &&
      DF.addedBytes === sum(added, f => f.size) && DF.removedBytes === sum(removed, f => f.size),
      `/api/diff?from=${DF.from}&to=${DF.to}: ${added.length} added, ${removed.length} removed, as the two file lists say`);

// stats: coverage per leaf column counted here from the log's stats JSON.
if (has('stats.json')) {
  const ST = read('stats.json');
  const { adds, schema, config } = replay();
  const mapped = config['delta.columnMapping.mode'] && config['delta.columnMapping.mode'] !== 'none';
  const leaves = [];
  const walk = (fields, logical, phys) => {
    for (const f of fields) {
      const p = mapped ? f.metadata['delta.columnMapping.physicalName'] : f.name;
      if (f.type && f.type.type === 'struct') walk(f.type.fields, [...logical, f.name], [...phys, p]);
      else if (typeof f.type === 'string' && f.type !== 'variant') leaves.push({ column: [...logical, f.name].join('.'), phys: [...phys, p] });
    }
  };
  walk(schema.fields, [], []);
  const at = (o, p) => p.reduce((v, k) => (v && typeof v === 'object' ? v[k] : undefined), o);
  const parsed = adds.map(a => a.stats ? JSON.parse(a.stats) : {});
  const want = leaves.map(l => ({
    column: l.column,
    filesWithMin: parsed.filter(s => at(s.minValues, l.phys) !== undefined && typeof at(s.minValues, l.phys) !== 'object' || at(s.minValues, l.phys) === null).length,
    filesWithMax: parsed.filter(s => at(s.maxValues, l.phys) !== undefined && typeof at(s.maxValues, l.phys) !== 'object' || at(s.maxValues, l.phys) === null).length,
    filesWithNullCount: parsed.filter(s => typeof at(s.nullCount, l.phys) === 'number').length,
  }));
  const got = ST.columns.map(c => ({ column: c.column, filesWithMin: c.filesWithMin, filesWithMax: c.filesWithMax, filesWithNullCount: c.filesWithNullCount }));
  check(same(got, want), `/api/stats coverage of ${want.length} columns matches the log's stats`);
  check(ST.files === adds.length && ST.filesWithStats === parsed.filter(s => s.numRecords !== undefined).length,
        '/api/stats counts files and files with numRecords');
  // Overlap depth of one column, by the definition in stats_summary.h.
  if (has('overlap.json')) {
    const O = read('overlap.json');
    const l = leaves.find(x => x.column === O.column);
    const iv = parsed.map(s => [at(s.minValues, l.phys), at(s.maxValues, l.phys)])
      .filter(([a, b]) => typeof a === 'number' && typeof b === 'number' && a <= b);
    const pts = [...new Set(iv.flat())].sort((a, b) => a - b);
    let pieces = 0, total = 0, max = 0;
    pts.forEach((p, i) => {
      const dp = iv.filter(([a, b]) => a <= p && p <= b).length;
      if (dp) { pieces++; total += dp; max = Math.max(max, dp); }
      if (i + 1 < pts.length) {
        const q = pts[i + 1];
        const dg = iv.filter(([a, b]) => a <= p && b >= q).length;
        if (dg) { pieces++; total += dg; max = Math.max(max, dg); }
      }
    });
    check(O.files === iv.length && O.pieces === pieces && O.maxDepth === max &&
          Math.abs(O.averageDepth - (pieces ? total / pieces : 0)) < 1e-3,
          `/api/stats?column=${O.column}: overlap depth avg ${O.averageDepth} max ${O.maxDepth} over ${pieces} pieces`);
  }
}

// query: the SELECT's rows.
if (has('query.json')) {
  const Q = read('query.json');
  check(Q.rows.length === 1 && Object.values(Q.rows[0])[0] === sum(all, f => f.rows ?? 0),
        `/api/query SELECT count(*) gives the live rows (${sum(all, f => f.rows ?? 0)})`);
}
if (has('query-limit.json')) check(read('query-limit.json').rows.length === 2, '/api/query applies the row limit');

if (fails) { console.error(`${fails} check(s) failed`); process.exit(1); }
