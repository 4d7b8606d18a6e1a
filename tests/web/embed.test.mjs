// Embedding (issue 13): six widgets on one page share one download and one compile of the wasm, and
// a host page loads the widget script from another origin (a "CDN").
//
//   node --test tests/web/embed.test.mjs       (needs the wasm build and `make dist`)
//   SIX_ROUNDS=5 SIX_EXTRA=/web/looplab-widgets.js,/old/looplab-widgets.js node --test tests/web/embed.test.mjs
//       more rounds (the times are a benchmark, printed, not asserted); also time other copies of the
//       widget script (the development tree; an older checkout of web/ copied into the repository)
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { ROOT, RUN_TIMEOUT_MS, assertClean, useBrowser } from './harness.mjs';

const browser = useBrowser({ viewport: { width: 1800, height: 2000 } });   // all six widgets in view
const ROUNDS = Number(process.env.SIX_ROUNDS || 1);
const EXTRA = (process.env.SIX_EXTRA || '').split(',').filter(Boolean);

/** Opens the six-widget page with `src`; returns {ms from load until all six are ready, wasm requests}. */
async function sixWidgets(src) {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url()); });
  await page.goto(page.url().replace(/blank\.html$/, `six-widgets.html?src=${encodeURIComponent(src)}`));
  await page.waitForFunction(() => window.__allReadyAt, null, { timeout: 60_000, polling: 20 });
  const ms = await page.evaluate(() => window.__allReadyAt - performance.getEntriesByType('navigation')[0].loadEventStart);
  await assertClean(page, problems);
  await page.close();
  return { ms, wasm: wasm.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test('six widgets on one page: the wasm is downloaded and compiled once; time from load until all are ready', { timeout: 300_000 }, async () => {
  const sources = ['/dist/looplab-widgets.js', ...EXTRA];
  for (const src of sources) {
    const times = [];
    let requests = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const { ms, wasm } = await sixWidgets(src);
      times.push(ms);
      requests = wasm;
      if (EXTRA.includes(src)) continue;   // other copies are only timed
      assert.equal(wasm, 1, `${src}: looplab.wasm requested ${wasm} times for six widgets`);
    }
    console.log(`  six widgets from ${src}: ${requests} wasm request(s); load -> all ready, median ${median(times).toFixed(0)} ms `
      + `(${times.map((t) => t.toFixed(0)).join(', ')})`);
  }
});

// ---------------------------------------------------------------- two origins
const MIME = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.html': 'text/html' };

/** A static server on a free port of 127.0.0.1: `files(path)` -> {body, type} or null. Resolves with its origin. */
function listen(files, headers) {
  const server = createServer((req, res) => {
    const found = files(new URL(req.url, 'http://x').pathname);
    if (!found) { res.writeHead(404, headers).end(); return; }
    res.writeHead(200, { ...headers, 'Content-Type': found.type, 'Cache-Control': 'no-cache' }).end(found.body);
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));
}
const servers = [];
after(() => { for (const s of servers) s.close(); });

/** The "CDN": dist/ as it is, with CORS, on its own origin. */
const cdnFiles = (path) => {
  const file = normalize(join(ROOT, 'dist', path));
  if (!file.startsWith(join(ROOT, 'dist')) || !statSync(file, { throwIfNoEntry: false })?.isFile()) return null;
  return { body: readFileSync(file), type: MIME[extname(file)] || 'application/octet-stream' };
};

/** A course page on another origin, isolated (COOP + COEP) and with a CSP that names the CDN. */
async function courseHost(cdn, workerSrc) {
  const csp = [`default-src 'self'`, `script-src 'self' ${cdn} 'wasm-unsafe-eval'`, `worker-src ${workerSrc}`, `style-src 'self' ${cdn}`,
    `connect-src 'self' ${cdn}`, `img-src 'self' data: blob:`, `object-src 'none'`, `base-uri 'none'`].join('; ');
  const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>course</title><link rel="icon" href="data:,">
<script type="module" src="${cdn}/looplab-widgets.js"></script></head>
<body><h1>Lesson 3</h1><looplab-experiment experiment="standardization" controls="lr_scaled"></looplab-experiment></body></html>\n`;
  return listen((path) => (path === '/lesson.html' ? { body: html, type: 'text/html' } : null), {
    'Content-Security-Policy': csp, 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp',
  });
}

async function openCourse(host) {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${host}/lesson.html`);
  return { page, problems, requests };
}

const widgetStatus = (page) => page.evaluate(() => document.querySelector('looplab-experiment')?.status ?? '');

test('the widget script from another origin (a CDN with CORS): worker, wasm and styles load from there and a run completes', { timeout: 180_000 }, async () => {
  const cdn = await listen(cdnFiles, { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
  const host = await courseHost(cdn, `'self' blob: ${cdn}`);
  assert.notEqual(new URL(cdn).origin, new URL(host).origin);
  const { page, problems, requests } = await openCourse(host);
  await page.waitForFunction(() => /^(ready|error)/.test(document.querySelector('looplab-experiment')?.status ?? ''), null, { timeout: 60_000 });
  assert.equal(await widgetStatus(page), 'ready');
  const run = await page.evaluate(() => getComputedStyle(document.querySelector('looplab-experiment').shadowRoot.querySelector('button.primary')).backgroundColor);
  assert.equal(run, 'rgb(0, 114, 178)', 'the CDN\'s stylesheets apply');
  await page.evaluate(() => document.querySelector('looplab-experiment').run());
  await page.waitForFunction(() => /^(done|error)/.test(document.querySelector('looplab-experiment').status), null, { timeout: RUN_TIMEOUT_MS });
  assert.equal(await widgetStatus(page), 'done');
  const result = await page.evaluate(() => document.querySelector('looplab-experiment').result);
  assert.ok(Math.abs(result.runs.find((r) => r.variant === 'scaled').iterations_to_tolerance - 39) <= 2);
  const fromCdn = (name) => requests.filter((u) => u === `${cdn}/${name}`).length;
  assert.deepEqual(['looplab-worker.js', 'looplab.wasm', 'looplab.css'].map(fromCdn), [1, 1, 1], requests.join('\n'));
  assert.ok(requests.every((u) => u.startsWith(cdn) || u.startsWith(host) || /^(data|blob):/.test(u)), requests.join('\n'));
  await assertClean(page, problems);
});

test('a host whose CSP forbids blob: workers: the widget says so in one line and points to the iframe', { timeout: 60_000 }, async () => {
  const cdn = await listen(cdnFiles, { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
  const host = await courseHost(cdn, `'self' ${cdn}`);   // the CDN, but no blob:
  const { page } = await openCourse(host);
  await page.waitForFunction(() => /^(ready|error)/.test(document.querySelector('looplab-experiment')?.status ?? ''), null, { timeout: 30_000 });
  const status = await widgetStatus(page);
  assert.match(status, /^error: .*Content-Security-Policy does not allow blob: workers.*embed\.html/);
  assert.ok(!status.includes('\n'), 'one line');
  const csp = await page.evaluate(() => window.__cspViolations);
  assert.ok(csp.length > 0 && csp.every((v) => /^worker-src blob/.test(v)), `only the blob: worker is refused: ${csp}`);
});
