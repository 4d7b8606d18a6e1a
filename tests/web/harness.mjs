// Shared by the browser tests: web/tools/serve.py (COOP/COEP + strict CSP) on a free port, Debian's Chromium
// driven by playwright-core, and helpers that fail with the browser's own messages.
//
//   import { useBrowser, waitForStatus, assertClean } from './harness.mjs';
//   const browser = useBrowser();                       // registers before/after hooks
//   const { page, problems } = await browser.open('/web/?experiment=unroll');
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS = join(ROOT, 'test-results');
export const RUN_TIMEOUT_MS = 120_000;
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Starts web/tools/serve.py on a free port; resolves with {proc, port} once it prints "PORT <n>". */
function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn('python3', ['-u', 'web/tools/serve.py', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => { proc.kill(); reject(new Error(`web/tools/serve.py printed no PORT line in 15 s: ${out}${err}`)); }, 15_000);
    const done = (fn, value) => { clearTimeout(timer); proc.stdout.removeAllListeners('data'); fn(value); };
    proc.stderr.on('data', (d) => { if (err.length < 4000) err += d; });
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)\r?\n/.exec(out);   // whole line: the port may arrive in pieces
      if (m) done(resolve, { proc, port: Number(m[1]) });
    });
    proc.once('exit', (code) => done(reject, new Error(`web/tools/serve.py exited (${code}) before serving: ${out}${err}`)));
    proc.once('error', (e) => done(reject, e));
  });
}

/**
 * Registers before/after hooks that start the server and a Chromium profile for this test file.
 * Returns {open(path)}: a new page that records every console error, page error, CSP violation and
 * failed request in `problems`.
 */
export function useBrowser({ viewport = { width: 1280, height: 900 } } = {}) {
  let server;
  let context;
  let profileDir;
  let base;

  before(async () => {
    mkdirSync(RESULTS, { recursive: true });
    server = await startServer();
    server.proc.stdout.resume();    // keep draining; the server may log
    server.proc.stderr.resume();
    base = `http://127.0.0.1:${server.port}`;
    profileDir = mkdtempSync(join(tmpdir(), 'looplab-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport, acceptDownloads: true,
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

  return {
    async open(path) {
      const page = await context.newPage();
      const problems = [];
      page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
      // The first frames of the stack say where a rare one came from.
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message} at ${(e.stack ?? '').split('\n').slice(1, 4).map((l) => l.trim()).join(' < ')}`));
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
    },
  };
}

export const status = (page) => page.evaluate(() => window.__looplab?.status ?? '');

/** Waits until the status starts with `prefix` (or an error shows up, which then fails with its text). */
export async function waitForStatus(page, prefix, timeout = 30_000) {
  await page.waitForFunction((p) => {
    const s = window.__looplab?.status ?? '';
    return s.startsWith(p) || s.startsWith('error');
  }, prefix, { timeout, polling: 50 });
  const s = await status(page);
  assert.ok(s.startsWith(prefix), `expected status "${prefix}…", got "${s}"`);
  return s;
}

/** Waits until the page has loaded its experiment: "ready", or "error: …" when its config is invalid. */
export async function waitForSettled(page, timeout = 30_000) {
  await page.waitForFunction(() => /^(ready|error)/.test(window.__looplab?.status ?? ''), null, { timeout, polling: 50 });
  return status(page);
}

/**
 * Holds the worker's request for the WebAssembly module (build/wasm/looplab.mjs) until release() is
 * called, so a test can act while the page still says it is loading. Call before navigating.
 */
export async function holdModule(page) {
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(/\/build\/wasm\/looplab\.mjs$/, async (route) => { await held; await route.continue(); });
  return release;
}

export async function assertClean(page, problems) {
  const csp = await page.evaluate(() => window.__cspViolations);
  assert.deepEqual(csp, [], 'CSP violations');
  assert.deepEqual(problems, [], 'console errors, page errors or failed requests');
}

/** Pixels of the canvas of line plot `plotIndex` (among .plot-lines) close to an (r, g, b) colour. */
export function countColor(page, plotIndex, rgb) {
  return page.evaluate(([i, [r, g, b]]) => {
    const c = document.querySelectorAll('.plot-lines canvas')[i];
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let k = 0; k < d.length; k += 4) {
      if (d[k + 3] > 200 && Math.abs(d[k] - r) < 40 && Math.abs(d[k + 1] - g) < 40 && Math.abs(d[k + 2] - b) < 40) n++;
    }
    return n;
  }, [plotIndex, rgb]);
}

/** '#0072B2' -> [0, 114, 178] */
export const hexRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/** Clicks Run on a long standardization run and waits until progress arrives. */
export async function startLongRun(page) {
  const previous = await status(page);
  await page.click('#run');
  // The status may still show the previous error (a replaced worker's) until validation finishes
  // and the run starts: wait for "running" or a new error.
  await page.waitForFunction((b) => {
    const s = window.__looplab?.status ?? '';
    return s.startsWith('running') || (s.startsWith('error') && s !== b);
  }, previous, { timeout: 30_000, polling: 20 });
  const s = await status(page);
  assert.ok(s.startsWith('running'), `expected status "running…", got "${s}"`);
  await page.waitForFunction(() => /iteration [1-9]/.test(document.getElementById('progress-message').textContent),
    null, { timeout: 30_000, polling: 20 });
}

/** Clicks Run and waits until the run is done. */
export async function runToDone(page) {
  await page.click('#run');
  // The status may still show the previous error until validation finishes and the run starts.
  await page.waitForFunction(() => /^(running|done)/.test(window.__looplab.status), null, { timeout: 30_000, polling: 20 });
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
}

/** Waits until widget `sel` reports a status starting with `prefix` (an error status fails with its text). */
export async function waitWidget(page, sel, prefix, timeout = 30_000) {
  await page.waitForFunction(([s, p]) => {
    const st = document.querySelector(s)?.status ?? '';
    return st.startsWith(p) || st.startsWith('error');
  }, [sel, prefix], { timeout, polling: 50 });
  const now = await page.evaluate((s) => document.querySelector(s).status, sel);
  assert.ok(now.startsWith(prefix), `${sel}: expected "${prefix}…", got "${now}"`);
  return now;
}
