// Browser tests of the looplab page against the real WebAssembly module (build/wasm/looplab.mjs),
// served by web/serve.py (COOP/COEP + strict CSP) and driven in Debian's Chromium by playwright-core.
//
//   node --test tests/web/page.test.mjs          (needs `npm ci`, the wasm build, /usr/bin/chromium)
//
// Screenshots go to test-results/*.png; test-results/page.png is the full page after the default run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RESULTS = join(ROOT, 'test-results');
const RUN_TIMEOUT_MS = 120_000;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let server;
let context;
let profileDir;
let base;

/** Starts web/serve.py on a free port; resolves with {proc, port} once it prints "PORT <n>". */
function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn('python3', ['-u', 'web/serve.py', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => { proc.kill(); reject(new Error(`web/serve.py printed no PORT line in 15 s: ${out}${err}`)); }, 15_000);
    const done = (fn, value) => { clearTimeout(timer); proc.stdout.removeAllListeners('data'); fn(value); };
    proc.stderr.on('data', (d) => { if (err.length < 4000) err += d; });
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)\r?\n/.exec(out);   // whole line: the port may arrive in pieces
      if (m) done(resolve, { proc, port: Number(m[1]) });
    });
    proc.once('exit', (code) => done(reject, new Error(`web/serve.py exited (${code}) before serving: ${out}${err}`)));
    proc.once('error', (e) => done(reject, e));
  });
}

before(async () => {
  mkdirSync(RESULTS, { recursive: true });
  server = await startServer();
  server.proc.stdout.resume();    // keep draining; the server may log
  server.proc.stderr.resume();
  base = `http://127.0.0.1:${server.port}`;
  profileDir = mkdtempSync(join(tmpdir(), 'looplab-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 }, acceptDownloads: true,
  });
});

after(async () => {
  await context?.close();
  if (server) {
    server.proc.removeAllListeners('exit');
    server.proc.kill();
  }
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

/** Opens a page and records every console error, page error, CSP violation and failed request. */
async function open(path) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(`${base}${path}`);
  return { page, problems };
}

const status = (page) => page.evaluate(() => window.__looplab?.status ?? '');

/** Waits until the status starts with `prefix` (or an error shows up, which then fails with its text). */
async function waitForStatus(page, prefix, timeout = 30_000) {
  await page.waitForFunction((p) => {
    const s = window.__looplab?.status ?? '';
    return s.startsWith(p) || s.startsWith('error');
  }, prefix, { timeout, polling: 50 });
  const s = await status(page);
  assert.ok(s.startsWith(prefix), `expected status "${prefix}…", got "${s}"`);
  return s;
}

async function assertClean(page, problems) {
  const csp = await page.evaluate(() => window.__cspViolations);
  assert.deepEqual(csp, [], 'CSP violations');
  assert.deepEqual(problems, [], 'console errors, page errors or failed requests');
}

/** Pixels of a plot canvas close to an (r, g, b) series colour. */
function countColor(page, canvasIndex, rgb) {
  return page.evaluate(([i, [r, g, b]]) => {
    const c = document.querySelectorAll('.plot canvas')[i];
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let k = 0; k < d.length; k += 4) {
      if (d[k + 3] > 200 && Math.abs(d[k] - r) < 40 && Math.abs(d[k + 1] - g) < 40 && Math.abs(d[k + 2] - b) < 40) n++;
    }
    return n;
  }, [canvasIndex, rgb]);
}

test('default standardization run: live plot, summary, environment, exports, no errors', { timeout: 180_000 }, async () => {
  const { page, problems } = await open('/web/');
  await waitForStatus(page, 'ready');
  assert.equal(await page.evaluate(() => window.crossOriginIsolated), true, 'crossOriginIsolated');
  if ((await page.inputValue('#experiment')) !== 'standardization') {
    await page.selectOption('#experiment', 'standardization');
    await waitForStatus(page, 'ready');
  }
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);

  const result = await page.evaluate(() => window.__looplab.lastResult);
  const scaled = result.runs.find((r) => r.variant === 'scaled');
  const raw = result.runs.find((r) => r.variant === 'raw');
  assert.ok(scaled && raw, 'runs has raw and scaled');
  assert.ok(Math.abs(scaled.iterations_to_tolerance - 39) <= 2, `scaled reached tolerance at ${scaled.iterations_to_tolerance}`);
  assert.equal(raw.diverged_at, null);

  // Plots: one per describe.plots entry, with data, and the first two series colours on the canvas.
  const points = await page.evaluate(() => window.__looplab.plots.map((p) => p.pointCount()));
  assert.ok(points.length >= 1 && points.every((n) => n > 0), `plot points ${points}`);
  assert.ok(await page.locator('.plot canvas').count() >= 1, 'plot canvas exists');
  await page.waitForTimeout(100);          // one animation frame for the final setData
  assert.ok(await countColor(page, 0, [0x00, 0x72, 0xb2]) > 50, 'first series drawn');
  assert.ok(await countColor(page, 0, [0xd5, 0x5e, 0x00]) > 20, 'second series drawn');

  // Summary: headline cards, the reading, the runs table; quoted figures labelled; environment line.
  assert.ok(await page.locator('#summary').isVisible());
  assert.ok(await page.locator('#headline .card').count() >= 1, 'headline cards');
  assert.ok((await page.textContent('#reading')).length > 10, 'reading sentence');
  assert.ok(await page.locator('.runs-table tbody tr').count() >= 2, 'runs table rows');
  assert.ok(await page.getByText('quoted from seed thread').first().isVisible(), 'quoted label');
  const env = await page.textContent('#environment');
  assert.match(env, /cross-origin isolated\s*yes/);
  assert.match(env, /core clock step\s*\d/);
  assert.match(env, /page clock step\s*\d/);

  // The URL reproduces the run.
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('experiment'), 'standardization');
  assert.ok(url.searchParams.has('lr_raw'), `URL has the parameters: ${url.search}`);

  // Exports.
  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
  const exported = JSON.parse(readFileSync(await jsonDownload.path(), 'utf8'));
  assert.deepEqual(exported.runs, result.runs);
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
  const csv = readFileSync(await csvDownload.path(), 'utf8').trim().split('\n');
  assert.match(csv[0], /^series,/);
  assert.ok(csv.some((l) => l.startsWith('scaled,')) && csv.some((l) => l.startsWith('raw,')), 'CSV has both series');

  await page.evaluate(() => window.scrollTo(0, 0));   // the panel is sticky: shoot it in place
  await page.screenshot({ path: join(RESULTS, 'page.png'), fullPage: true });
  await page.locator('.plot').first().screenshot({ path: join(RESULTS, 'plot.png') });
  await assertClean(page, problems);
  await page.close();
});

test('a URL with lr_raw=0.001 sets the control and the raw run diverges', { timeout: 180_000 }, async () => {
  const { page, problems } = await open('/web/?experiment=standardization&lr_raw=0.001');
  await waitForStatus(page, 'ready');
  assert.equal(await page.inputValue('#param-lr_raw'), '0.001');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const runs = await page.evaluate(() => window.__looplab.lastResult.runs);
  const raw = runs.find((r) => r.variant === 'raw');
  assert.ok(Number.isInteger(raw.diverged_at) && raw.diverged_at > 0, `raw diverged_at = ${raw.diverged_at}`);
  const badge = page.locator('.runs-table').getByText('diverged', { exact: false }).first();
  assert.ok(await badge.isVisible(), 'text "diverged" visible');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(RESULTS, 'diverged.png'), fullPage: true });
  await assertClean(page, problems);
  await page.close();
});

test('Stop ends a long run within 2 s', { timeout: 120_000 }, async () => {
  const { page, problems } = await open('/web/?experiment=standardization');
  await waitForStatus(page, 'ready');
  await page.fill('#param-max_iterations', '5000000');
  await page.fill('#param-tolerance', '1e-12');
  await page.click('#run');
  await waitForStatus(page, 'running');
  await page.waitForFunction(() => window.__looplab.plots[0].pointCount() > 0, null, { timeout: 30_000 });
  await page.waitForTimeout(500);
  assert.ok((await status(page)).startsWith('running'), 'still running before Stop');
  const t0 = Date.now();
  await page.click('#stop');
  await waitForStatus(page, 'stopped', 2_000);
  const elapsed = Date.now() - t0;
  assert.ok(elapsed < 2_000, `stopped after ${elapsed} ms`);
  assert.equal(await page.isEnabled('#run'), true, 'Run enabled again');
  assert.equal(new URL(page.url()).searchParams.get('max_iterations'), '5000000');
  await page.waitForTimeout(300);
  assert.equal(await status(page), 'stopped', 'nothing arrives after the stop');
  await page.screenshot({ path: join(RESULTS, 'stopped.png'), fullPage: true });
  await assertClean(page, problems);
  await page.close();
});

test('an invalid value shows the core\'s message under the control it names', { timeout: 60_000 }, async () => {
  const { page, problems } = await open('/web/?experiment=standardization');
  await waitForStatus(page, 'ready');
  await page.fill('#param-lr_raw', '-1');
  const error = page.locator('#param-lr_raw-error');
  await error.waitFor({ state: 'visible', timeout: 5_000 });
  const message = await error.textContent();
  assert.match(message, /^lr_raw\b/, `message names the parameter: ${message}`);
  assert.match(message, /-1/, 'message shows the value');
  assert.equal(await page.getAttribute('#param-lr_raw', 'aria-invalid'), 'true');
  await page.locator('.field[data-param="lr_raw"]').screenshot({ path: join(RESULTS, 'invalid.png') });

  // Run refuses with the same message and leaves no result.
  await page.click('#run');
  await waitForStatus(page, 'error: lr_raw');
  assert.equal(await page.evaluate(() => window.__looplab.lastResult), null);

  // A valid value clears it.
  await page.fill('#param-lr_raw', '0.0002');
  await error.waitFor({ state: 'hidden', timeout: 5_000 });
  await assertClean(page, problems);
  await page.close();
});
