// Browser test of `deltalake ui` in Debian's chromium through playwright-core.
//   node ui_test.mjs ARTIFACT_DIR JOB...    JOB = MODE,URL,LABEL[,EXTRA]
// One chromium serves every job (a fresh page each):
// MODE full:  every view of a table: the page loads, the commit marks match
//             /api/history, clicking a commit lists its actions, the
//             histogram has one bar per power-of-two bucket of the sizes in
//             /api/files (computed here, independently), the schema tree has
//             every field, the query box runs a SELECT and refuses a DELETE;
//             a screenshot of each view.
// MODE bench: a large log (EXTRA: the table's path): the page and its layout
//             load; the histogram checked against buckets computed here from
//             the log's add and remove actions; screenshots; prints the times.
// MODE token: a server bound beyond loopback (EXTRA: the token): without it
//             401, with it (query, cookie, Bearer) 200, and the page loads.
// Exits 1 when a check failed (each failure on stderr).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [outDir, ...jobs] = process.argv.slice(2);
const oracle = process.env.DL_ORACLE_DIR;
if (!outDir || !jobs.length || !oracle) {
  console.error('usage: DL_ORACLE_DIR=... node ui_test.mjs ARTIFACT_DIR MODE,URL,LABEL[,EXTRA]...');
  process.exit(2);
}
const { chromium } = await import(path.join(oracle, 'node_modules/playwright-core/index.mjs'));
// The job being run (set per job below).
let mode, url, label, token, tablePath, origin, page;

function check(ok, what) {
  if (!ok) throw new Error('check failed: ' + what);
}

async function apiGet(p, withToken = true) {
  const headers = withToken && token ? { Authorization: 'Bearer ' + token } : {};
  const r = await fetch(origin + 'api/' + p, { headers });
  const body = await r.json();
  check(r.status === 200, `GET /api/${p} answered ${r.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

// The histogram the page must draw, from the file list alone: one bucket
// [2^k, 2^(k+1)) per k from the smallest to the largest file (empty ones
// between included), plus one for empty files.
// The same from the log itself (JSON commits, no checkpoint): the live adds.
function bucketsFromLog(table) {
  const log = path.join(table, '_delta_log');
  const live = new Map();
  for (const f of fs.readdirSync(log).filter(f => /^\d{20}\.json$/.test(f)).sort()) {
    for (const line of fs.readFileSync(path.join(log, f), 'utf8').split('\n')) {
      if (!line) continue;
      const a = JSON.parse(line);
      if (a.add) live.set(a.add.path, a.add.size);
      else if (a.remove) live.delete(a.remove.path);
    }
  }
  return buckets([...live.values()]);
}

function buckets(sizes) {
  const counts = new Map();
  let zero = 0;
  for (const size of sizes) {
    if (size <= 0) { zero++; continue; }
    let k = Math.floor(Math.log2(size));
    if (2 ** (k + 1) <= size) k++; else if (2 ** k > size) k--; // float rounding at powers of two
    counts.set(k, (counts.get(k) || 0) + 1);
  }
  const ks = [...counts.keys()];
  const out = zero ? [zero] : [];
  if (ks.length) for (let k = Math.min(...ks); k <= Math.max(...ks); k++) out.push(counts.get(k) || 0);
  return out;
}

async function expectedBuckets() {
  const sizes = [];
  let offset = 0, total = Infinity;
  while (offset < total) {
    const pg = await apiGet(`files?offset=${offset}&limit=10000`);
    total = pg.total;
    for (const f of pg.files) sizes.push(f.size);
    offset += pg.files.length;
    if (!pg.files.length) break;
  }
  return buckets(sizes);
}

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-ui-chromium-'));
const ctx = await chromium.launchPersistentContext(userDataDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
});
fs.mkdirSync(outDir, { recursive: true });
let pageErrors = [], foreign = [];

// A fresh page per job; it must never reach beyond its server (no CDN, no internet).
async function newPage() {
  if (page) await page.close();
  page = await ctx.newPage();
  pageErrors = [];
  foreign = [];
  page.on('pageerror', e => pageErrors.push(String(e)));
  page.on('request', r => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) foreign.push(r.url()); });
}

async function openView(name) {
  await page.evaluate(n => { location.hash = n; }, name);
  await page.waitForSelector(`#view-${name}[data-ready="1"]`, { timeout: 30000 });
}

async function shot(name) {
  await page.screenshot({ path: path.join(outDir, `${label}-${name}.png`), fullPage: false });
}

async function checkHistogram() {
  const t0 = Date.now();
  await openView('layout');
  const ms = Date.now() - t0;
  const want = mode === 'bench' ? bucketsFromLog(tablePath) : await expectedBuckets();
  const bars = await page.$$eval('#histogram-svg rect.hist-bar', rs => rs.map(r => Number(r.dataset.files)));
  check(bars.length === want.length, `histogram has ${bars.length} bars, the file sizes make ${want.length} buckets`);
  check(JSON.stringify(bars) === JSON.stringify(want), `histogram bars ${bars} differ from the file sizes' buckets ${want}`);
  console.log(`ok: ${label}: histogram has ${bars.length} bars matching the file sizes (${mode === 'bench' ? 'from the log' : 'from /api/files'})`);
  return ms;
}

async function checkCommitClick() {
  const hist = await apiGet('history');
  const marks = await page.$$('#timeline-svg .commit-mark');
  check(marks.length === hist.length, `${marks.length} commit marks for ${hist.length} commits`);
  const v = hist[0].version; // the newest
  await page.click(`#timeline-svg .commit-mark[data-version="${v}"]`);
  await page.waitForSelector('#commit-title', { timeout: 30000 });
  const title = await page.textContent('#commit-title');
  const c = await apiGet(`commit?version=${v}&limit=200`);
  check(title.includes(`Version ${v}:`) && title.includes(`${c.total} actions`), `commit panel says '${title}'`);
  const want = c.actions.filter(a => !('commitInfo' in JSON.parse(a))).length;
  const rows = await page.$$eval('table.commit-actions tbody tr', t => t.length);
  check(rows === want, `the commit panel lists ${rows} actions, the commit's first page has ${want}`);
  console.log(`ok: ${label}: ${marks.length} commit marks; clicking version ${v} lists its ${rows} actions`);
}

async function runJob() {
  if (mode === 'token') {
    const noTok = await fetch(origin + 'api/detail');
    check(noTok.status === 401, `no token: /api/detail answered ${noTok.status}, expected 401`);
    const noTokPage = await fetch(origin);
    check(noTokPage.status === 401, `no token: / answered ${noTokPage.status}, expected 401`);
    const wrong = await fetch(origin + 'api/detail', { headers: { Authorization: 'Bearer ' + 'f'.repeat(64) } });
    check(wrong.status === 401, `wrong token answered ${wrong.status}`);
    const bearer = await fetch(origin + 'api/detail', { headers: { Authorization: 'Bearer ' + token } });
    check(bearer.status === 200, `Bearer token answered ${bearer.status}`);
    const q = await fetch(origin + 'api/detail?token=' + token);
    check(q.status === 200 && (q.headers.get('set-cookie') || '').startsWith('dl_ui_token='),
          `?token= answered ${q.status} with cookie '${q.headers.get('set-cookie')}'`);
    const resp = await page.goto(origin);
    check(resp.status() === 401, `the browser without token got ${resp.status()}`);
    const ok = await page.goto(origin + '?token=' + token + '#history');
    check(ok.status() === 200, `the browser with the token got ${ok.status()}`);
    await page.waitForSelector('#view-history[data-ready="1"]', { timeout: 30000 });
    // The cookie alone (no token in the URL) now lets the page in.
    const again = await page.goto(origin + '#layout');
    check(again.status() === 200, `the browser with the cookie got ${again.status()}`);
    await page.waitForSelector('#view-layout[data-ready="1"]', { timeout: 30000 });
    await shot('token');
    console.log(`ok: ${label}: 401 without the token, 200 with it (query, cookie, Bearer)`);
  } else {
    const t0 = Date.now();
    const resp = await page.goto(url + (url.includes('#') ? '' : '#history'));
    check(resp.status() === 200, `the page answered ${resp.status()}`);
    await page.waitForSelector('#view-history[data-ready="1"]', { timeout: 30000 });
    const tHistory = Date.now() - t0;
    await checkCommitClick();
    await shot('history');
    const tLayout = await checkHistogram();
    await shot('layout');
    console.log(`ok: ${label}: page with history in ${tHistory} ms, layout view in ${tLayout} ms`);
    const views = mode === 'full' ? ['stats', 'schema', 'protocol', 'diff', 'query'] : ['stats', 'schema'];
    for (const v of views) {
      await openView(v);
      if (v === 'schema') {
        const fields = await apiGet('schema');
        const rows = await page.$$eval('#schema-rows tbody tr', t => t.length);
        check(rows === fields.length, `schema view has ${rows} rows for ${fields.length} fields`);
      }
      if (v === 'diff') await page.waitForSelector('#diff-added', { timeout: 30000 });
      if (v === 'query') {
        await page.click('#query-form button[type=submit]');
        await page.waitForSelector('#query-rows, #query-error', { timeout: 30000 });
        const err = await page.$('#query-error');
        check(!err, 'the default query failed: ' + (err && await err.textContent()));
        const n = await page.$$eval('#query-rows tbody tr', t => t.length);
        check(n > 0 && n <= 10, `the default query shows ${n} rows`);
        await shot(v);
        await page.fill('#query-sql', 'DELETE FROM t');
        await page.click('#query-form button[type=submit]');
        await page.waitForSelector('#query-error', { timeout: 30000 });
        check((await page.textContent('#query-error')).includes('SELECT only'), 'DELETE was not refused');
        continue;
      }
      await shot(v);
    }
    console.log(`ok: ${label}: views ${['history', 'layout', ...views].join(', ')} rendered; screenshots in ${outDir}`);
  }
  check(pageErrors.length === 0, 'page errors: ' + pageErrors.join('; '));
  check(foreign.length === 0, 'requests beyond the server: ' + foreign.join(', '));
}

let failed = 0;
for (const job of jobs) {
  [mode, url, label, token] = job.split(',');
  tablePath = mode === 'bench' ? token : undefined;
  origin = new URL(url).origin + '/';
  try {
    await newPage();
    await runJob();
  } catch (e) {
    console.error(`FAIL: ${label}: ${e.message}`);
    try { await shot('failure'); } catch {}
    failed++;
  }
}
await ctx.close();
fs.rmSync(userDataDir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
