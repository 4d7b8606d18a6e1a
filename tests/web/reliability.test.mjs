// Reliability of the page (issue 6): worker faults, hostile URL parameters, and a sample of
// tests/bad-inputs/cases.json shown in the form with the same message as the CLI. The tests that
// time the page (Stop latency, a silent worker noticed within a second) are in timed.test.mjs.
//
//   node --test tests/web/reliability.test.mjs    (needs the wasm build, incl. looplab-test.mjs)
//
// The trap test swaps the shipped module for build/wasm/looplab-test.mjs (bindings.cpp plus
// wasm/test_hooks.cpp) by intercepting the worker's request: the page itself never loads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runToDone, startLongRun, status, useBrowser, waitForSettled, waitForStatus } from './harness.mjs';

const browser = useBrowser();
const cases = JSON.parse(readFileSync(join(ROOT, 'tests', 'bad-inputs', 'cases.json'), 'utf8')).cases;

/**
 * Serves looplab-test.mjs (with the trap hook) whenever the worker asks for looplab.mjs, and its
 * looplab-test.wasm when the page fetches looplab.wasm to compile it for the workers.
 */
const MODULE_HEADERS = { 'Cross-Origin-Resource-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

async function useTestModule(page) {
  const headers = MODULE_HEADERS;
  const serve = (file, contentType) => (route) => route.fulfill({
    status: 200, contentType, headers, body: readFileSync(join(ROOT, 'build', 'wasm', file)),
  });
  await page.route(/\/build\/wasm\/looplab\.mjs$/, serve('looplab-test.mjs', 'text/javascript'));
  await page.route(/\/build\/wasm\/looplab\.wasm$/, serve('looplab-test.wasm', 'application/wasm'));
}

const workers = (page) => page.workers();

const LONG_RUN = '/web/?experiment=standardization&max_iterations=10000000&tolerance=1e-12&mode=eager';
const SHORT_QUERY = 'experiment=standardization&max_iterations=2000';

test('a trapping module: the page says so, starts a fresh worker, and the next run works', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open(`/web/?${SHORT_QUERY}`);
  const origin = new URL(page.url()).origin;
  await useTestModule(page);
  await page.goto(`${origin}${LONG_RUN}`);               // a fresh worker, which gets the test module
  await waitForStatus(page, 'ready');
  await startLongRun(page);
  const [first] = workers(page);
  assert.ok(first, 'a worker is running');
  await first.evaluate(() => { globalThis.__looplabTrapOnAdvance = true; });   // the next advance() traps
  await page.waitForFunction(() => (window.__looplab?.status ?? '').startsWith('error'), null, { timeout: 30_000 });
  const s = await status(page);
  assert.match(s, /^error: the WebAssembly module crashed \(RuntimeError: unreachable\); a fresh worker was started/);
  assert.equal(await page.isDisabled('#run'), false, 'Run is enabled again');
  // The fresh worker has no trap armed: a short run completes.
  await page.fill('#param-max_iterations', '2000');
  await page.fill('#param-tolerance', '1e-6');
  await runToDone(page);
  assert.equal(workers(page).length, 1, 'the trapped worker was terminated');
  // Allowed: the trap itself, and fetches aborted by the navigation and by terminating the worker.
  assert.equal(problems.filter((p) => !/unreachable|crashed|net::ERR_ABORTED/.test(p)).length, 0, problems.join('\n'));
});

// A module whose start-up (the static constructors, run by the glue's initRuntime) takes 1.5 s, as
// on a slow phone or a machine busy with other work: the worker cannot answer the heartbeat
// meanwhile, and must not be taken for dead (it says BUSY first: worker.js).
test('a module that takes 1.5 s to start: the page waits for it, then runs', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  const origin = new URL(page.url()).origin;
  const glue = readFileSync(join(ROOT, 'build', 'wasm', 'looplab.mjs'), 'utf8');
  const slow = glue.replace('function initRuntime(){',
    'function initRuntime(){const t0=performance.now();while(performance.now()-t0<1500);');
  assert.notEqual(slow, glue, 'the glue has an initRuntime to slow down');
  await page.route(/\/build\/wasm\/looplab\.mjs$/, (route) => route.fulfill({
    status: 200, contentType: 'text/javascript', body: slow, headers: MODULE_HEADERS,
  }));
  await page.goto(`${origin}/web/?${SHORT_QUERY}`);
  await waitForStatus(page, 'ready', 60_000);
  await runToDone(page);
  assert.deepEqual(problems, [], 'console errors, page errors or failed requests');
  await page.close();
});

test('a worker that dies with an uncaught error is replaced and the next run works', { timeout: 180_000 }, async () => {
  const { page } = await browser.open(`/web/?${SHORT_QUERY}`);
  await waitForStatus(page, 'ready');
  await runToDone(page);
  const [w] = workers(page);
  await w.evaluate(() => { setTimeout(() => { throw new Error('worker killed by the test'); }, 0); });
  await page.waitForFunction(() => (window.__looplab?.status ?? '').startsWith('error'), null, { timeout: 30_000 });
  assert.match(await status(page), /the worker failed \(.*worker killed by the test.*\); a fresh worker was started/);
  await runToDone(page);
  const result = await page.evaluate(() => window.__looplab.lastResult);
  assert.equal(result.experiment, 'standardization');
});

test('markup in URL parameters and the experiment id creates no element and runs no script', { timeout: 120_000 }, async () => {
  const payload = '<img src=x onerror="window.__pwned=1">';
  const q = encodeURIComponent(payload);
  for (const path of [`/web/?experiment=${q}`, `/web/?experiment=standardization&mode=${q}&${q}=1&lr_raw=${q}`]) {
    const { page } = await browser.open(path);
    await waitForSettled(page);                // an invalid value in the URL: "error: mode: …"
    await page.waitForTimeout(300);
    const seen = await page.evaluate(() => ({
      imgs: document.querySelectorAll('img').length,
      pwned: window.__pwned,
      text: document.body.innerText,
    }));
    assert.equal(seen.imgs, 0, `${path}: an <img> element was created`);
    assert.equal(seen.pwned, undefined, `${path}: the onerror handler ran`);
    assert.ok(seen.text.includes('<img src=x onerror='), `${path}: the markup is shown as text`);
  }
});

test('bad inputs from the list show the same message in the form as in the CLI', { timeout: 180_000 }, async () => {
  const sample = cases.filter((c) => c.page_query);
  assert.ok(sample.length >= 8, `${sample.length} page cases`);
  const { page } = await browser.open('/web/');
  for (const c of sample) {
    await page.goto(page.url().replace(/\/web\/.*$/, `/web/?${c.page_query}`));
    await waitForSettled(page);              // the status names the error too, as the widget's does
    const want = c.message_wasm ?? c.message;
    await page.waitForFunction((w) => [...document.querySelectorAll('.field-error, #form-error')]
      .some((e) => !e.hidden && e.textContent === w), want, { timeout: 10_000 }).catch(() => {});
    const shown = await page.evaluate(() => [...document.querySelectorAll('.field-error, #form-error')]
      .filter((e) => !e.hidden && e.textContent).map((e) => e.textContent));
    assert.deepEqual(shown, [want], c.name);
  }
});

test('terminate() rejects every pending request of the worker client, and later ones', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  const outcome = await page.evaluate(async () => {
    const { LooplabClient, isTerminated } = await import('/web/runtime/client.js');
    const { languageFile } = await import('/web/runtime/connect.js');
    const client = new LooplabClient('/web/runtime/worker.js', { languageFile });
    await client.ready;
    const settle = (p) => p.then(() => 'resolved', (e) => (isTerminated(e) ? 'terminated' : `other: ${e.message}`));
    const run = client.run({ experiment: 'standardization', max_iterations: 10000000, tolerance: 1e-12 }, () => {});
    const pending = [settle(client.list()), settle(client.validate({ experiment: 'standardization' })), settle(run.done)];
    client.terminate();
    run.cancel();                                   // a no-op now, not an error
    return { pending: await Promise.all(pending), later: await settle(client.describe('standardization')) };
  });
  assert.deepEqual(outcome, { pending: ['terminated', 'terminated', 'terminated'], later: 'terminated' });
  assert.deepEqual(problems, []);
});
