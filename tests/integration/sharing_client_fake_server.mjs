// An independent Delta Sharing server for testing our client: Node's http
// module only, answers built per PROTOCOL.md of delta-io/delta-sharing from
// real local tables (its own JSON log replay, no code of ours).
//
//   node sharing_client_fake_server.mjs CONFIG.json PORT_FILE
//
// CONFIG: {"token": "...", "oauth": {"clientId","clientSecret"},
//          "tables": [{"share","schema","name","location",
//                      "format": "parquet"|"delta",
//                      "urls": "ok"|"expired-first"|"refused-first"}]}
// "expired-first": the first query of the table hands out URLs whose
// expirationTimestamp has passed (and that the file endpoint refuses);
// "refused-first": URLs that claim to be valid but are refused (403), as
// S3 does for a URL whose signature expired early; "file-scheme": file://
// URLs, which a client must not follow. GET /_stats answers the
// number of queries per table. Listings return one item per page, so a
// client must follow nextPageToken.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import crypto from 'node:crypto';

const [cfgPath, portFile] = process.argv.slice(2);
const cfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'));
const PREFIX = '/delta-sharing';
const stats = {};
const pages = {}; // query pages after the first, per table (GET /_pages)
const oauthTokens = new Set();
let serial = 0;

// ---- a minimal Delta log replay (commit JSON files only) ----
function commits(loc) {
  const dir = path.join(loc, '_delta_log');
  return fs.readdirSync(dir).filter((f) => /^\d{20}\.json$/.test(f)).sort()
    .map((f) => ({ version: Number(f.slice(0, 20)), file: path.join(dir, f) }));
}
function latest(loc) { const c = commits(loc); return c[c.length - 1].version; }
function actionsOf(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}
// A commit's time is its file's modification time (Delta without in-commit
// timestamps), what a reader of the table itself sees.
// Times that go backwards (copied files) are made strictly increasing, as
// Delta readers do for time travel.
function rawTs(c) {
  for (const a of actionsOf(c.file)) if (a.commitInfo && a.commitInfo.inCommitTimestamp) return a.commitInfo.inCommitTimestamp;
  return Math.floor(fs.statSync(c.file).mtimeMs);
}
function commitTs(c) {
  let prev = -Infinity, out;
  for (const k of commits(path.dirname(path.dirname(c.file)))) {
    let t = rawTs(k);
    if (t <= prev) t = prev + 1;
    prev = t;
    if (k.version === c.version) out = t;
  }
  return out;
}
function dvKey(dv) { return dv ? `${dv.storageType}${dv.pathOrInlineDv}@${dv.offset ?? ''}` : ''; }
function snapshot(loc, version) {
  let protocol, metaData;
  const files = new Map();
  for (const c of commits(loc)) {
    if (c.version > version) break;
    for (const a of actionsOf(c.file)) {
      if (a.protocol) protocol = a.protocol;
      if (a.metaData) metaData = a.metaData;
      if (a.add) files.set(a.add.path + '|' + dvKey(a.add.deletionVector), { ...a.add, version: c.version });
      if (a.remove) files.delete(a.remove.path + '|' + dvKey(a.remove.deletionVector));
    }
  }
  return { protocol, metaData, files: [...files.values()] };
}

// ---- Z85 (the 'u' deletion vector ids) ----
const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
function z85decode(s) {
  const out = [];
  for (let i = 0; i < s.length; i += 5) {
    let v = 0;
    for (let j = 0; j < 5; j++) v = v * 85 + Z85.indexOf(s[i + j]);
    out.push((v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  }
  return Buffer.from(out);
}
function dvRelPath(dv) {
  const p = dv.pathOrInlineDv;
  const prefix = p.slice(0, p.length - 20);
  const h = z85decode(p.slice(-20)).toString('hex');
  const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return (prefix ? prefix + '/' : '') + `deletion_vector_${uuid}.bin`;
}

// ---- URLs of the file endpoint ----
let base = '';
function fileUrl(tidx, rel, exp, bad) {
  // a hostile server: a URL that would read the recipient's own files
  if (cfg.tables[tidx].urls === 'file-scheme') return 'file://' + path.resolve(cfg.tables[tidx].location, rel);
  const q = `exp=${exp}&n=${serial++}${bad ? '&bad=1' : ''}`;
  return `${base}/files/${tidx}/${rel.split('/').map(encodeURIComponent).join('/')}?${q}`;
}

function findTable(share, schema, name) {
  return cfg.tables.findIndex((t) => t.share.toLowerCase() === share.toLowerCase() &&
    t.schema.toLowerCase() === schema.toLowerCase() && t.name.toLowerCase() === name.toLowerCase());
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}
function err(res, status, code, message) { send(res, status, { errorCode: code, message }); }

function page(res, items, url) {
  const tok = Number(url.searchParams.get('pageToken') ?? '0');
  const out = { items: items.slice(tok, tok + 1) };
  if (tok + 1 < items.length) out.nextPageToken = String(tok + 1);
  send(res, 200, out, { 'Content-Type': 'application/json; charset=utf-8' });
}

function formats(req) {
  const h = (req.headers['delta-sharing-capabilities'] || '').toLowerCase();
  const m = /responseformat=([a-z,]+)/.exec(h);
  return m ? m[1].split(',') : ['parquet'];
}
// "If there's only one responseFormat specified, the server must respect
// [it]"; with a list, parquet unless the table needs delta.
function answerDelta(req, t) {
  const f = formats(req);
  return t.format === 'delta' ? f.includes('delta') : f.length === 1 && f[0] === 'delta';
}

// page: {offset, size} when the client asked for pages (maxFiles); this
// server's pages hold at most PAGE_FILES files whatever maxFiles says (the
// protocol lets a server return fewer), and the next page's token is in a
// last endStreamAction line. A query is counted once, on its first page.
const PAGE_FILES = 2;
function queryLines(tidx, t, version, delta, page) {
  const st = !page || page.offset === 0 ? (stats[t.name] = (stats[t.name] || 0) + 1) : stats[t.name];
  const snap = snapshot(t.location, version);
  const now = Date.now();
  let exp = now + 3600_000, bad = false;
  if (t.urls === 'expired-first' && st === 1) { exp = now - 1000; bad = true; }
  if (t.urls === 'refused-first' && st === 1) bad = true;
  const lines = [];
  if (delta) {
    lines.push({ protocol: { deltaProtocol: snap.protocol } });
    lines.push({ metaData: { deltaMetadata: snap.metaData, version } });
  } else {
    lines.push({ protocol: { minReaderVersion: 1 } });
    const { id, name, description, format, schemaString, partitionColumns, configuration } = snap.metaData;
    lines.push({ metaData: { id, name, description, format, schemaString, partitionColumns, configuration, version } });
  }
  const files = page ? snap.files.slice(page.offset, page.offset + page.size) : snap.files;
  for (const f of files) {
    const id = crypto.createHash('md5').update(f.path).digest('hex');
    const url = fileUrl(tidx, decodeURIComponent(f.path), exp, bad);
    if (delta) {
      const add = { ...f, path: url };
      delete add.version;
      const line = { id, expirationTimestamp: exp, deltaSingleAction: { add } };
      if (f.deletionVector && f.deletionVector.storageType === 'u') {
        const rel = dvRelPath(f.deletionVector);
        add.deletionVector = { ...f.deletionVector, storageType: 'p', pathOrInlineDv: fileUrl(tidx, rel, exp, bad) };
        line.deletionVectorFileId = crypto.createHash('md5').update(rel).digest('hex');
      }
      lines.push({ file: line });
    } else {
      if (f.deletionVector) throw new Error('a table with deletion vectors is shared in the delta format');
      lines.push({ file: { url, id, partitionValues: f.partitionValues, size: f.size, stats: f.stats,
        version: f.version, timestamp: commitTs(commits(t.location).find((c) => c.version === f.version)),
        expirationTimestamp: exp } });
    }
  }
  if (page) {
    const end = { minUrlExpirationTimestamp: exp };
    if (page.offset + page.size < snap.files.length) end.nextPageToken = `p${version}_${page.offset + page.size}`;
    lines.push({ endStreamAction: end });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}


// GET .../changes: the data change files of [startingVersion, endingVersion].
function changesLines(tidx, t, start, end, delta, historical) {
  const st = stats[t.name] = (stats[t.name] || 0) + 1;
  const now = Date.now();
  let exp = now + 3600_000, bad = false;
  if (t.urls === 'expired-first' && st === 1) { exp = now - 1000; bad = true; }
  if (t.urls === 'refused-first' && st === 1) bad = true;
  const snap = snapshot(t.location, end);
  const lines = [];
  if (delta) {
    lines.push({ protocol: { deltaProtocol: snap.protocol } });
    lines.push({ metaData: { deltaMetadata: snap.metaData } });
  } else {
    lines.push({ protocol: { minReaderVersion: 1 } });
    lines.push({ metaData: snap.metaData });
  }
  for (const c of commits(t.location)) {
    if (c.version < start || c.version > end) continue;
    const timestamp = commitTs(c);
    for (const a of actionsOf(c.file)) {
      if (a.metaData && historical)
        lines.push({ metaData: delta ? { deltaMetadata: a.metaData, version: c.version } : { ...a.metaData, version: c.version } });
      const key = a.add ? 'add' : a.remove ? 'remove' : a.cdc ? 'cdc' : null;
      if (!key) continue;
      const f = a[key];
      if (key !== 'cdc' && f.dataChange === false) continue;
      const id = crypto.createHash('md5').update(f.path).digest('hex');
      const url = fileUrl(tidx, decodeURIComponent(f.path), exp, bad);
      if (delta) {
        const act = { ...f, path: url };
        const line = { id, version: c.version, timestamp, expirationTimestamp: exp, deltaSingleAction: { [key]: act } };
        if (f.deletionVector && f.deletionVector.storageType === 'u') {
          const rel = dvRelPath(f.deletionVector);
          act.deletionVector = { ...f.deletionVector, storageType: 'p', pathOrInlineDv: fileUrl(tidx, rel, exp, bad) };
          line.deletionVectorFileId = crypto.createHash('md5').update(rel).digest('hex');
        }
        lines.push({ file: line });
      } else {
        if (f.deletionVector) throw new Error('deletion vectors are shared in the delta format');
        lines.push({ [key === 'cdc' ? 'cdf' : key]: { url, id, partitionValues: f.partitionValues || {},
          size: f.size, ...(key === 'add' && f.stats ? { stats: f.stats } : {}), timestamp,
          version: c.version, expirationTimestamp: exp } });
      }
    }
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

function authorized(req) {
  const a = req.headers.authorization || '';
  const tok = a.startsWith('Bearer ') ? a.slice(7) : null;
  return tok && (tok === cfg.token || oauthTokens.has(tok));
}

function serveFile(req, res, parts, url) {
  const t = cfg.tables[Number(parts[1])];
  if (!t) return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', 'no such table');
  const exp = Number(url.searchParams.get('exp'));
  if (url.searchParams.get('bad') || Date.now() >= exp) return err(res, 403, 'AccessDenied', 'Request has expired');
  const rel = parts.slice(2).map(decodeURIComponent).join('/');
  const file = path.resolve(t.location, rel);
  if (!file.startsWith(path.resolve(t.location) + path.sep)) return err(res, 403, 'AccessDenied', 'outside');
  const data = fs.readFileSync(file);
  const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range || '');
  if (m) {
    const a = Number(m[1]), b = Math.min(Number(m[2]), data.length - 1);
    if (a >= data.length) { res.writeHead(416); return res.end(); }
    res.writeHead(206, { 'Content-Range': `bytes ${a}-${b}/${data.length}`, 'Content-Length': b - a + 1 });
    return res.end(data.subarray(a, b + 1));
  }
  res.writeHead(200, { 'Content-Length': data.length });
  res.end(data);
}

function handle(req, res, body) {
  const url = new URL(req.url, base);
  if (url.pathname === '/_stats') return send(res, 200, stats);
  if (url.pathname === '/_pages') return send(res, 200, pages);
  if (url.pathname === '/oauth/token') {
    const a = req.headers.authorization || '';
    const [id, secret] = Buffer.from(a.replace(/^Basic /, ''), 'base64').toString().split(':');
    if (req.method !== 'POST' || !/grant_type=client_credentials/.test(body) || !cfg.oauth ||
        id !== cfg.oauth.clientId || secret !== cfg.oauth.clientSecret)
      return send(res, 401, { error: 'invalid_client' });
    const tok = 'oauth-' + crypto.randomBytes(8).toString('hex');
    oauthTokens.add(tok);
    return send(res, 200, { access_token: tok, token_type: 'bearer', expires_in: 3600 });
  }
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts[0] === 'files') return serveFile(req, res, parts, url);
  if (!url.pathname.startsWith(PREFIX + '/')) return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', 'no such path');
  if (!authorized(req)) return err(res, 401, 'UNAUTHENTICATED', 'missing or incorrect bearer token');
  const p = parts.slice(1).map(decodeURIComponent); // after "delta-sharing"
  const shares = [...new Set(cfg.tables.map((t) => t.share))];
  if (p[0] !== 'shares') return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', 'no such path');
  if (p.length === 1) return page(res, shares.map((name) => ({ name, id: 'id-' + name })), url);
  const share = shares.find((s) => s.toLowerCase() === p[1].toLowerCase());
  if (!share) return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', `share ${p[1]} not found`);
  const inShare = cfg.tables.filter((t) => t.share === share);
  if (p.length === 2) return send(res, 200, { share: { name: share, id: 'id-' + share } });
  if (p[2] === 'all-tables' && p.length === 3)
    return page(res, inShare.map((t) => ({ name: t.name, schema: t.schema, share, shareId: 'id-' + share })), url);
  if (p[2] !== 'schemas') return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', 'no such path');
  if (p.length === 3) return page(res, [...new Set(inShare.map((t) => t.schema))].map((name) => ({ name, share })), url);
  if (p[4] !== 'tables') return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', 'no such path');
  if (p.length === 5)
    return page(res, inShare.filter((t) => t.schema === p[3]).map((t) => ({ name: t.name, schema: t.schema, share })), url);
  const tidx = findTable(share, p[3], p[5]);
  if (tidx < 0) return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', `table ${p[3]}.${p[5]} not found`);
  const t = cfg.tables[tidx];
  const cur = latest(t.location);
  const delta = answerDelta(req, t);
  if (p[6] === 'version' && req.method === 'GET') {
    res.writeHead(200, { 'Delta-Table-Version': String(cur) });
    return res.end();
  }
  if (t.format === 'delta' && !delta)
    return err(res, 400, 'INVALID_PARAMETER_VALUE', 'the table needs responseformat=delta');
  const nd = { 'Content-Type': 'application/x-ndjson; charset=utf-8' };
  if (p[6] === 'metadata') {
    const lines = queryLines(tidx, t, cur, delta).split('\n').slice(0, 2).join('\n') + '\n';
    stats[t.name]--;
    return send(res, 200, lines, { ...nd, 'Delta-Table-Version': String(cur) });
  }
  if (p[6] === 'query' && req.method === 'POST') {
    let q;
    try { q = JSON.parse(body || '{}'); } catch { return err(res, 400, 'MALFORMED_REQUEST', 'body is not JSON'); }
    let v = q.version ?? cur, page = null;
    if (q.maxFiles !== undefined) {
      if (!Number.isInteger(q.maxFiles) || q.maxFiles < 1) return err(res, 400, 'INVALID_PARAMETER_VALUE', 'bad maxFiles');
      page = { offset: 0, size: Math.min(q.maxFiles, PAGE_FILES) };
      if (q.pageToken !== undefined) {
        const m = /^p(\d+)_(\d+)$/.exec(q.pageToken);
        if (!m) return err(res, 400, 'INVALID_PARAMETER_VALUE', 'bad pageToken');
        v = Number(m[1]);
        page.offset = Number(m[2]);
        pages[t.name] = (pages[t.name] || 0) + 1;
      }
    }
    if (!Number.isInteger(v) || v < 0 || v > cur) return err(res, 400, 'INVALID_PARAMETER_VALUE', `bad version ${v}`);
    return send(res, 200, queryLines(tidx, t, v, delta, page), { ...nd, 'Delta-Table-Version': String(v) });
  }
  if (p[6] === 'changes' && req.method === 'GET') {
    const sv = url.searchParams.get('startingVersion');
    if (sv === null || !/^\d+$/.test(sv)) return err(res, 400, 'INVALID_PARAMETER_VALUE', 'startingVersion is required');
    const ev = url.searchParams.get('endingVersion');
    const start = Number(sv), end = ev === null ? cur : Math.min(Number(ev), cur);
    if (start > cur) return err(res, 400, 'INVALID_PARAMETER_VALUE', `startingVersion ${start} is after the latest ${cur}`);
    const cfgOf = snapshot(t.location, start).metaData.configuration || {};
    if (cfgOf['delta.enableChangeDataFeed'] !== 'true')
      return err(res, 400, 'INVALID_PARAMETER_VALUE', 'cdf is not enabled on table');
    const historical = url.searchParams.get('includeHistoricalMetadata') === 'true';
    return send(res, 200, changesLines(tidx, t, start, end, delta, historical), { ...nd, 'Delta-Table-Version': String(start) });
  }
  return err(res, 404, 'RESOURCE_DOES_NOT_EXIST', 'no such endpoint');
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    try { handle(req, res, body); } catch (e) { err(res, 500, 'INTERNAL_ERROR', String(e.message)); }
  });
});
server.listen(0, '127.0.0.1', () => {
  base = `http://127.0.0.1:${server.address().port}`;
  fs.writeFileSync(portFile + '.tmp', String(server.address().port));
  fs.renameSync(portFile + '.tmp', portFile);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
