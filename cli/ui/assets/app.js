/* The page of `deltalake ui`: hand-written, no libraries. Each view reads
 * its JSON from /api/ (docs/UI.md) once, when first shown, and draws tables
 * and SVG charts. All table data goes in through textContent (never as
 * HTML). */
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const token = new URLSearchParams(location.search).get('token');
const loaded = {};
let detail = null;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
  return e;
}

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

async function api(path) {
  const headers = token ? { Authorization: 'Bearer ' + token } : {};
  const r = await fetch('/api/' + path, { headers, credentials: 'same-origin' });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

function showError(e) {
  const box = document.getElementById('error');
  box.hidden = false;
  box.textContent = String(e && e.message ? e.message : e);
}

function bytes(n) {
  if (n === null || n === undefined) return '';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0, v = Number(n);
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(v < 10 ? 1 : 0) : v) + ' ' + u[i];
}

function num(n) { return n === null || n === undefined ? '' : Number(n).toLocaleString('en-US'); }

function card(value, label) { return el('div', { class: 'card' }, el('b', {}, value), el('span', {}, label)); }

/* A table from column specs [{h, f (row -> text or Node), num}]. */
function table(cols, rows, onclick) {
  const t = el('table', {});
  t.append(el('thead', {}, el('tr', {}, ...cols.map(c => el('th', c.num ? { class: 'num' } : {}, c.h)))));
  const tb = el('tbody', {});
  for (const r of rows) {
    const tr = el('tr', onclick ? { class: 'clickable' } : {}, ...cols.map(c => {
      const v = c.f(r);
      return el('td', c.num ? { class: 'num' } : {}, v instanceof Node ? v : (v === null || v === undefined ? '' : String(v)));
    }));
    if (onclick) tr.addEventListener('click', () => onclick(r, tr));
    tb.append(tr);
  }
  t.append(tb);
  return t;
}

function metric(m, ...keys) {
  if (!m) return null;
  for (const k of keys) if (m[k] !== undefined && m[k] !== null) return Number(m[k]);
  return null;
}

/* Rows and bytes a commit added and removed, from Spark's operationMetrics
 * (the keys differ per operation: WRITE numOutputRows, MERGE
 * numTargetRowsInserted, DELETE numDeletedRows...). */
function commitNumbers(c) {
  const m = c.operationMetrics;
  return {
    rowsAdded: metric(m, 'numOutputRows', 'numTargetRowsInserted', 'numAddedRows', 'numConvertedFiles'),
    rowsRemoved: metric(m, 'numDeletedRows', 'numTargetRowsDeleted', 'numRemovedRows'),
    bytesAdded: metric(m, 'numOutputBytes', 'numAddedBytes', 'numAddedBytesFromDeletionVectors'),
    bytesRemoved: metric(m, 'numRemovedBytes'),
  };
}

const palette = ['#2f6fde', '#d9480f', '#2b8a3e', '#862e9c', '#e67700', '#0b7285', '#c2255c', '#5c940d', '#495057'];

/* ---- history ---- */

async function viewHistory() {
  const hist = await api('history');
  const commits = hist.slice().sort((a, b) => a.version - b.version);
  const ops = [...new Set(commits.map(c => c.operation || '(no commitInfo)'))];
  const color = op => palette[ops.indexOf(op || '(no commitInfo)') % palette.length];
  const w = Math.max(600, Math.min(12000, commits.length * 14 + 60)), h = 140, x0 = 40;
  const maxRows = Math.max(1, ...commits.map(c => commitNumbers(c).rowsAdded || 0));
  const s = svg('svg', { width: w, height: h + 24, id: 'timeline-svg' });
  s.append(svg('line', { x1: x0, x2: w - 10, y1: h, y2: h, stroke: '#999' }));
  const step = commits.length > 1 ? (w - x0 - 20) / (commits.length - 1) : 0;
  commits.forEach((c, i) => {
    const n = commitNumbers(c).rowsAdded || 0;
    const bar = n > 0 ? 8 + (h - 20) * Math.log10(1 + n) / Math.log10(1 + maxRows) : 8;
    const x = x0 + i * step;
    const g = svg('g', { class: 'commit-mark', 'data-version': c.version });
    g.append(svg('rect', { x: x - 4, y: h - bar, width: 8, height: bar, fill: color(c.operation) }));
    g.append(svg('title', {}, `version ${c.version}: ${c.operation || ''} ${c.timestamp || ''}`));
    g.addEventListener('click', () => showCommit(c.version));
    s.append(g);
    if (commits.length <= 40 || i % Math.ceil(commits.length / 40) === 0)
      s.append(svg('text', { x: x, y: h + 14, 'text-anchor': 'middle' }, c.version));
  });
  document.getElementById('timeline').replaceChildren(s);
  document.getElementById('legend').replaceChildren(...ops.map(op =>
    el('span', {}, (() => { const i = el('i'); i.style.background = color(op); return i; })(), op)));
  const rows = hist; /* newest first, like `deltalake history` */
  document.getElementById('history-table').replaceChildren(table([
    { h: 'version', f: c => c.version, num: true },
    { h: 'timestamp', f: c => c.timestamp },
    { h: 'operation', f: c => c.operation },
    { h: 'user', f: c => c.userName || c.userId },
    { h: 'userMetadata', f: c => c.userMetadata },
    { h: 'rows +', f: c => num(commitNumbers(c).rowsAdded), num: true },
    { h: 'rows −', f: c => num(commitNumbers(c).rowsRemoved), num: true },
    { h: 'bytes +', f: c => bytes(commitNumbers(c).bytesAdded), num: true },
    { h: 'bytes −', f: c => bytes(commitNumbers(c).bytesRemoved), num: true },
  ], rows, c => showCommit(c.version)));
  document.getElementById('history-table').querySelector('table').id = 'history-rows';
}

function actionRow(text) {
  let a;
  try { a = JSON.parse(text); } catch (e) { return { kind: 'unparsable', path: text, size: '', dataChange: '', raw: text }; }
  const kind = Object.keys(a)[0] || '';
  const v = a[kind] || {};
  return { kind, path: v.path || v.appId || v.domain || '', size: v.size !== undefined ? v.size : '',
           dataChange: v.dataChange === undefined ? '' : String(v.dataChange), raw: a };
}

async function showCommit(version, offset = 0) {
  const panel = document.getElementById('commit-detail');
  document.querySelectorAll('.commit-mark').forEach(m =>
    m.classList.toggle('selected', Number(m.dataset.version) === version));
  if (offset === 0) panel.replaceChildren(el('p', { class: 'hint' }, `Loading version ${version}…`));
  try {
    const c = await api(`commit?version=${version}&offset=${offset}&limit=200`);
    const rows = c.actions.map(actionRow);
    if (offset === 0) {
      const kinds = {};
      rows.forEach(r => { kinds[r.kind] = (kinds[r.kind] || 0) + 1; });
      panel.replaceChildren(el('h3', { id: 'commit-title' }, `Version ${version}: ${c.total} actions`),
        el('div', {}, ...Object.entries(kinds).map(([k, n]) => el('span', { class: 'tag' }, `${k} ${n}${c.total > rows.length ? '+' : ''}`))));
      const info = rows.find(r => r.kind === 'commitInfo');
      if (info) panel.append(el('details', {}, el('summary', {}, 'commitInfo'),
        el('pre', { class: 'json' }, JSON.stringify(info.raw.commitInfo, null, 2))));
    }
    const t = table([
      { h: 'action', f: r => r.kind },
      { h: 'path / id', f: r => el('span', { class: 'mono' }, r.path) },
      { h: 'size', f: r => r.size === '' ? '' : bytes(r.size), num: true },
      { h: 'dataChange', f: r => r.dataChange },
    ], rows.filter(r => r.kind !== 'commitInfo'), r => {
      const pre = el('pre', { class: 'json' }, typeof r.raw === 'string' ? r.raw : JSON.stringify(r.raw, null, 2));
      panel.querySelector('.action-json')?.remove();
      pre.classList.add('action-json');
      panel.append(pre);
    });
    t.classList.add('commit-actions');
    panel.querySelector('button.more')?.remove();
    panel.append(t);
    if (offset + c.actions.length < c.total)
      panel.append(el('button', { class: 'more', onclick: () => showCommit(version, offset + c.actions.length) },
        `Load more (${num(c.total - offset - c.actions.length)} left)`));
  } catch (e) { panel.replaceChildren(el('div', { class: 'error' }, e.message)); }
}

/* ---- layout ---- */

let filesOffset = 0;

async function viewLayout() {
  const L = await api('layout');
  document.getElementById('layout-cards').replaceChildren(
    card(num(L.files), 'live files'), card(bytes(L.bytes), 'total size'),
    card(L.filesWithoutRowCount === L.files && L.files ? 'unknown' : num(L.rows),
      'live rows' + (L.filesWithoutRowCount ? ` (${num(L.filesWithoutRowCount)} files without numRecords)` : '')),
    card(num(L.smallFiles), `files below ${bytes(L.smallFileThreshold)}`),
    card(num(L.deletedRows), `rows hidden by deletion vectors (${num(L.filesWithDeletionVectors)} files)`),
    card(num(L.partitionCount), 'partitions'));
  drawHistogram(L);
  const maxBytes = Math.max(1, ...L.partitions.map(p => p.bytes));
  const bar = (v, m, warn) => { const d = el('div', { class: warn ? 'bar warn' : 'bar' }); if (!v) d.style.minWidth = '0'; d.style.width = (100 * v / m).toFixed(1) + '%'; return d; };
  const maxDel = Math.max(1, ...L.partitions.map(p => p.deletedRows));
  const part = document.getElementById('partitions');
  if (!L.partitionColumns.length) part.replaceChildren(el('p', { class: 'hint' }, 'The table is not partitioned.'));
  else {
    part.replaceChildren(table([
      { h: 'partition', f: p => el('span', { class: 'mono' }, Object.entries(p.values).map(([k, v]) => `${k}=${v === null ? 'null' : v}`).join(', ')) },
      { h: 'files', f: p => num(p.files), num: true },
      { h: 'bytes', f: p => bytes(p.bytes), num: true },
      { h: 'skew (bytes)', f: p => bar(p.bytes, maxBytes, false) },
      { h: 'rows', f: p => L.filesWithoutRowCount === L.files ? '–' : num(p.rows), num: true },
      { h: 'small files', f: p => num(p.smallFiles), num: true },
      { h: 'DV rows', f: p => num(p.deletedRows), num: true },
      { h: '', f: p => bar(p.deletedRows, maxDel, true) },
    ], L.partitions));
    if (L.partitionCount > L.partitions.length)
      part.append(el('p', { class: 'hint' }, `The ${L.partitions.length} largest of ${num(L.partitionCount)} partitions.`));
  }
  filesOffset = 0;
  document.getElementById('files').replaceChildren();
  await moreFiles();
  document.getElementById('files-more').onclick = () => moreFiles().catch(showError);
}

function drawHistogram(L) {
  const bins = L.histogram, bw = Math.min(90, Math.max(24, 1100 / Math.max(1, bins.length)));
  const h = 200, x0 = 50, top = 10, w = Math.max(600, x0 + bins.length * bw + 180);
  const maxF = Math.max(1, ...bins.map(b => b.files));
  const s = svg('svg', { width: w, height: h + 40, id: 'histogram-svg' });
  s.append(svg('line', { x1: x0, x2: x0 + bins.length * bw + 10, y1: h, y2: h, stroke: '#999' }));
  s.append(svg('text', { x: 4, y: top + 8 }, num(maxF)));
  bins.forEach((b, i) => {
    /* log scale: one stray file next to 300k must stay visible */
    const bh = b.files ? Math.max(2, (h - top) * Math.log10(1 + b.files) / Math.log10(1 + maxF)) : 0, x = x0 + i * bw;
    const r = svg('rect', { class: 'hist-bar' + (b.hi <= L.smallFileThreshold ? ' small' : ''), x: x + 2, y: h - bh,
      width: Math.max(1, bw - 4), height: bh, 'data-files': b.files });
    r.append(svg('title', {}, `${bytes(b.lo)} – ${bytes(b.hi)}: ${num(b.files)} files, ${bytes(b.bytes)}`));
    s.append(r);
    s.append(svg('text', { x: x + bw / 2, y: h + 14, 'text-anchor': 'middle' }, bytes(b.lo)));
  });
  /* The threshold's place on the log axis, when it falls inside the bins. */
  if (bins.length) {
    const lo = Math.log2(Math.max(1, bins[0].lo)), hi = Math.log2(bins[bins.length - 1].hi);
    const t = Math.log2(L.smallFileThreshold);
    const where = t <= lo ? 0 : t >= hi ? 1 : (t - lo) / (hi - lo);
    const x = x0 + where * bins.length * bw;
    s.append(svg('line', { class: 'threshold', x1: x, x2: x, y1: top, y2: h + 20 }));
    /* Off the axis, the line sits at its end: say so, or a 1 GiB threshold drawn just past a
       2 KiB bucket reads as 2 KiB. */
    const side = where === 1 && t > hi ? ', above every file' : where === 0 && t < lo ? ', below every file' : '';
    s.append(svg('text', { x: Math.min(x + 4, w - 240), y: h + 32 }, `small-file threshold ${bytes(L.smallFileThreshold)}${side}`));
  }
  document.getElementById('histogram').replaceChildren(s);
}

async function moreFiles() {
  const F = await api(`files?offset=${filesOffset}&limit=100`);
  const box = document.getElementById('files');
  const t = table([
    { h: 'path', f: f => el('span', { class: 'mono' }, f.path) },
    { h: 'size', f: f => bytes(f.size), num: true },
    { h: 'rows', f: f => num(f.rows), num: true },
    { h: 'deleted rows', f: f => num(f.deleted_rows), num: true },
    { h: 'stats', f: f => f.stats ? 'yes' : 'no' },
    { h: 'modified', f: f => f.modification_time },
  ], F.files);
  if (filesOffset === 0) box.replaceChildren(t);
  else box.querySelector('tbody').append(...t.querySelector('tbody').children);
  filesOffset += F.files.length;
  const more = document.getElementById('files-more');
  more.hidden = filesOffset >= F.total;
  more.textContent = `Load more files (${num(F.total - filesOffset)} of ${num(F.total)} left)`;
}

/* ---- stats ---- */

function pct(n, d) { return d ? (100 * n / d).toFixed(0) + '%' : '–'; }

function overlapView(o) {
  const maxH = Math.max(1, ...o.histogram);
  const s = svg('svg', { width: 17 * 22 + 20, height: 90 });
  o.histogram.forEach((n, i) => {
    const bh = 60 * n / maxH;
    s.append(svg('rect', { x: 10 + i * 22, y: 65 - bh, width: 18, height: bh, fill: '#2f6fde' },
      svg('title', {}, `depth ${i < 16 ? i + 1 : '>16'}: ${n} pieces`)));
    s.append(svg('text', { x: 19 + i * 22, y: 80, 'text-anchor': 'middle' }, i < 16 ? i + 1 : '>'));
  });
  return el('div', { class: 'card' }, el('b', {}, `${o.column}: average depth ${o.files ? o.averageDepth.toFixed(2) : '–'}, max ${o.maxDepth}`),
    el('span', {}, `${num(o.files)} files with min and max`), s);
}

async function viewStats() {
  const S = await api('stats');
  const parts = new Set((detail && detail.partitionColumns) || []);
  document.getElementById('stats-cards').replaceChildren(
    card(num(S.files), 'live files'), card(`${num(S.filesWithStats)} (${pct(S.filesWithStats, S.files)})`, 'files with stats (numRecords)'),
    card(num(S.columns.length), 'leaf columns'));
  const bar = v => { const d = el('div', { class: v < 1 ? 'bar warn' : 'bar' }); d.style.width = (100 * v).toFixed(0) + '%'; return d; };
  document.getElementById('coverage').replaceChildren(table([
    { h: 'column', f: c => c.column + (parts.has(c.column) ? ' (partition: exact values, no stats needed)' : '') },
    { h: 'type', f: c => c.type },
    { h: 'min', f: c => pct(c.filesWithMin, S.files), num: true },
    { h: 'max', f: c => pct(c.filesWithMax, S.files), num: true },
    { h: 'null count', f: c => pct(c.filesWithNullCount, S.files), num: true },
    { h: 'coverage', f: c => bar(S.files ? Math.min(c.filesWithMin, c.filesWithMax, c.filesWithNullCount) / S.files : 0) },
  ], S.columns));
  const cl = document.getElementById('clustering');
  if (!S.clustering.columns.length)
    cl.replaceChildren(el('p', { class: 'hint' }, 'No clustering columns and no OPTIMIZE ZORDER BY in the history: pick a column below.'));
  else cl.replaceChildren(el('p', {}, S.clustering.source === 'clustering' ? 'Liquid clustering columns:' : 'Z-order columns of the latest OPTIMIZE:'),
    el('div', { class: 'cards' }, ...S.clustering.columns.map(overlapView)));
  const sel = document.getElementById('overlap-column');
  sel.replaceChildren(el('option', { value: '' }, '(choose)'), ...S.columns.map(c => el('option', { value: c.column }, c.column)));
  sel.onchange = async () => {
    if (!sel.value) return;
    try { document.getElementById('overlap-one').replaceChildren(overlapView(await api('stats?column=' + encodeURIComponent(sel.value)))); }
    catch (e) { showError(e); }
  };
}

/* ---- schema, properties, protocol ---- */

/* The fields in tree order (each followed by its children); the API lists
 * a struct's children together after all fields of its level. */
function treeOrder(fields) {
  const kids = new Map();
  fields.forEach((f, i) => { const p = f.parent === null ? -1 : f.parent; (kids.get(p) || kids.set(p, []).get(p)).push(i); });
  const out = [];
  const visit = p => (kids.get(p) || []).forEach(i => { out.push(fields[i]); visit(i); });
  visit(-1);
  return out;
}

async function viewSchema() {
  const fields = treeOrder(await api('schema'));
  const md = f => f.metadata || {};
  document.getElementById('schema').replaceChildren(table([
    { h: 'column', f: f => { const s = el('span', { class: 'mono' }, f.column); s.style.paddingLeft = (f.depth * 18) + 'px'; return s; } },
    { h: 'type', f: f => el('span', { class: 'mono' }, f.type) },
    { h: 'nullable', f: f => f.nullable ? 'yes' : 'no' },
    { h: 'partition', f: f => f.partition ? 'yes' : '' },
    { h: 'mapping id', f: f => md(f)['delta.columnMapping.id'] },
    { h: 'physical name', f: f => md(f)['delta.columnMapping.physicalName'] },
    { h: 'generated / identity / default', f: f => {
      const m = md(f);
      if (m['delta.generationExpression']) return 'GENERATED ALWAYS AS (' + m['delta.generationExpression'] + ')';
      if (m['delta.identity.start'] !== undefined) return `IDENTITY (START ${m['delta.identity.start']} STEP ${m['delta.identity.step']})`;
      if (m.CURRENT_DEFAULT !== undefined) return 'DEFAULT ' + m.CURRENT_DEFAULT;
      return '';
    } },
    { h: 'comment', f: f => md(f).comment },
  ], fields));
  document.getElementById('schema').querySelector('table').id = 'schema-rows';
  const props = Object.entries((detail && detail.properties) || {});
  document.getElementById('properties').replaceChildren(props.length
    ? table([{ h: 'property', f: p => el('span', { class: 'mono' }, p[0]) }, { h: 'value', f: p => el('span', { class: 'mono' }, p[1]) }], props)
    : el('p', { class: 'hint' }, 'No table properties.'));
}

async function viewProtocol() {
  const P = await api('protocol');
  const tags = list => list.length ? el('div', {}, ...list.map(f => el('span', { class: 'tag' }, f))) : el('span', { class: 'hint' }, 'none listed');
  document.getElementById('protocol').replaceChildren(
    el('div', { class: 'cards' }, card(P.minReaderVersion, 'minReaderVersion'), card(P.minWriterVersion, 'minWriterVersion')),
    el('h3', {}, 'Reader features'), tags(P.readerFeatures),
    el('h3', {}, 'Writer features'), tags(P.writerFeatures),
    el('h3', {}, 'Supported (listed or implied by the versions)'), tags(P.supported));
}

/* ---- diff ---- */

async function runDiff(ev) {
  if (ev) ev.preventDefault();
  const a = document.getElementById('diff-from').value, b = document.getElementById('diff-to').value;
  const box = document.getElementById('diff');
  box.replaceChildren(el('p', { class: 'hint' }, 'Comparing…'));
  try {
    const D = await api(`diff?from=${encodeURIComponent(a)}&to=${encodeURIComponent(b)}&limit=1000`);
    const cols = [{ h: 'path', f: f => el('span', { class: 'mono' }, f.path) }, { h: 'size', f: f => bytes(f.size), num: true },
                  { h: 'rows', f: f => num(f.rows), num: true }, { h: 'deleted rows', f: f => num(f.deleted_rows), num: true }];
    box.replaceChildren(
      el('div', { class: 'cards' }, card(`+${num(D.addedCount)}`, `files added (${bytes(D.addedBytes)})`),
        card(`−${num(D.removedCount)}`, `files removed (${bytes(D.removedBytes)})`)),
      el('h3', {}, `Added between ${D.from} and ${D.to}` + (D.addedCount > D.added.length ? ` (first ${D.added.length})` : '')),
      el('div', { class: 'scroll', id: 'diff-added' }, table(cols, D.added)),
      el('h3', {}, 'Removed' + (D.removedCount > D.removed.length ? ` (first ${D.removed.length})` : '')),
      el('div', { class: 'scroll', id: 'diff-removed' }, table(cols, D.removed)));
  } catch (e) { box.replaceChildren(el('div', { class: 'error' }, e.message)); }
}

async function viewDiff() {
  const v = detail ? detail.version : 0;
  const f = document.getElementById('diff-from'), t = document.getElementById('diff-to');
  f.max = t.max = v;
  if (f.value === '') f.value = Math.max(0, v - 1);
  if (t.value === '') t.value = v;
  document.getElementById('diff-form').onsubmit = runDiff;
  await runDiff();
}

/* ---- query ---- */

async function runQuery(ev) {
  if (ev) ev.preventDefault();
  const sql = document.getElementById('query-sql').value, limit = document.getElementById('query-limit').value;
  const box = document.getElementById('query-result');
  box.replaceChildren(el('p', { class: 'hint' }, 'Running…'));
  try {
    const Q = await api(`query?sql=${encodeURIComponent(sql)}&limit=${encodeURIComponent(limit)}`);
    const cols = Q.rows.length ? Object.keys(Q.rows[0]) : [];
    const show = v => v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    box.replaceChildren(el('p', { class: 'hint' }, `${Q.rows.length} rows` + (Q.rows.length >= Q.limit ? ` (the limit; more may exist)` : '')),
      table(cols.map(c => ({ h: c, f: r => show(r[c]) })), Q.rows));
    box.querySelector('table').id = 'query-rows';
  } catch (e) { box.replaceChildren(el('div', { class: 'error', id: 'query-error' }, e.message)); }
}

async function viewQuery() {
  const q = document.getElementById('query-sql');
  if (!q.value && detail) q.value = 'SELECT * FROM delta.`' + detail.location.replace(/`/g, '``') + '` LIMIT 10';
  document.getElementById('query-form').onsubmit = runQuery;
}

/* ---- navigation ---- */

const views = { history: viewHistory, layout: viewLayout, stats: viewStats, schema: viewSchema,
                protocol: viewProtocol, diff: viewDiff, query: viewQuery };

async function show(name) {
  if (!views[name]) name = 'history';
  document.querySelectorAll('.view').forEach(v => v.classList.toggle('active', v.id === 'view-' + name));
  document.querySelectorAll('#tabs button').forEach(b => b.classList.toggle('active', b.dataset.view === name));
  if (!loaded[name]) {
    loaded[name] = true;
    const sec = document.getElementById('view-' + name);
    sec.classList.add('loading');
    try { await views[name](); sec.dataset.ready = '1'; } catch (e) { loaded[name] = false; showError(e); }
    sec.classList.remove('loading');
  }
}

async function start() {
  document.querySelectorAll('#tabs button').forEach(b => b.addEventListener('click', () => { location.hash = b.dataset.view; }));
  window.addEventListener('hashchange', () => show(location.hash.slice(1)));
  try {
    detail = (await api('detail'))[0];
    document.getElementById('title').textContent = detail.name || detail.location;
    document.title = 'deltalake ui: ' + (detail.name || detail.location);
    document.getElementById('summary').textContent =
      `version ${detail.version} · ${num(detail.numFiles)} files · ${bytes(detail.sizeInBytes)} · ` +
      `protocol ${detail.minReaderVersion}/${detail.minWriterVersion}` +
      (detail.partitionColumns.length ? ' · partitioned by ' + detail.partitionColumns.join(', ') : '') +
      ` · last modified ${detail.lastModified}`;
    document.body.dataset.version = detail.version;
  } catch (e) { showError(e); }
  await show(location.hash.slice(1) || 'history');
}

start();
