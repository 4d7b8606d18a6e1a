// The browser tests that time the page, in one file that `scripts/test-js` runs alone (no other
// Chromium on the machine), so a busy neighbour does not skew their clocks:
// - a worker that goes silent is noticed within a second, and a busy one is not restarted;
// - Stop ends a long run within 100 ms;
// - two widgets on one host page run side by side without long frame gaps.
//
//   node --test tests/web/timed.test.mjs    (needs the wasm build, dist/ and /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, runToDone, startLongRun, status, useBrowser, waitForStatus, waitWidget } from './harness.mjs';

const browser = useBrowser();
const workers = (page) => page.workers();
const LONG_RUN = '/web/?experiment=standardization&max_iterations=10000000&tolerance=1e-12&mode=eager';
const HOST = '/tests/web/fixtures/two-widgets.html';

/** Text of the first element matching `inner` inside widget `sel`'s shadow root. */
const shadowText = (page, sel, inner) => page.evaluate(([s, i]) => {
  const n = document.querySelector(s).shadowRoot.querySelector(i);
  return n && !n.hidden ? n.textContent : null;
}, [sel, inner]);

// A worker that ends without an error event (close(), killed by the browser, or hung in a loop) sends
// nothing: only the heartbeat notices it (client.js). A killed worker looks to the page exactly like
// one that closed itself, so close() stands for both; the hang is the other silent case.
const SILENCES = [
  // Each returns the instant it goes silent (the next task), on the page's clock footing.
  ['called close()', () => { setTimeout(() => self.close(), 0); return performance.timeOrigin + performance.now(); }],
  ['hung in a loop', () => { setTimeout(() => { for (;;) { /* never yields */ } }, 0); return performance.timeOrigin + performance.now(); }],
];

test('a worker that goes silent mid-run (close(), a hang) is noticed within a second, reported and replaced; a busy one is not', { timeout: 180_000 }, async () => {
  const { page } = await browser.open(LONG_RUN);
  await waitForStatus(page, 'ready');
  // First the opposite: a worker that announced a long module call (BUSY, as before every chunk) may
  // stay silent for longer (one step of a large config can take seconds): no restart.
  await startLongRun(page);
  await workers(page)[0].evaluate(() => {
    setTimeout(() => {
      self.postMessage({ type: 'busy' });
      const t0 = performance.now();
      while (performance.now() - t0 < 1200) { /* one long synchronous call, longer than the 750 ms allowed unannounced */ }
    }, 0);
  });
  await page.waitForTimeout(1400);
  assert.equal(await status(page), 'running', 'a busy worker is not restarted');
  for (const [i, [how, silence]] of SILENCES.entries()) {
    if (i > 0) await startLongRun(page);       // on the worker that replaced the silent one: it works
    const [w] = workers(page);
    // Both instants taken where they happen, on the same footing (timeOrigin + now).
    await page.evaluate(() => {
      window.__noticedAt = 0;
      const poll = setInterval(() => {
        if (!(window.__looplab?.status ?? '').startsWith('error')) return;
        window.__noticedAt = performance.timeOrigin + performance.now();
        clearInterval(poll);
      }, 2);
    });
    const silencedAt = await w.evaluate(silence);
    await page.waitForFunction(() => window.__noticedAt, null, { timeout: 10_000, polling: 20 });
    const ms = await page.evaluate(() => window.__noticedAt) - silencedAt;
    console.log(`  a worker that ${how}: noticed ${ms.toFixed(0)} ms after it went silent`);
    assert.match(await status(page), /^error: the worker stopped responding \(it closed, was killed or hangs\); a fresh worker was started/, how);
    assert.ok(ms < 1000, `${how}: noticed after ${ms.toFixed(0)} ms`);   // 600-750 ms by design (client.js), plus timer delays
  }
  await page.fill('#param-max_iterations', '2000');
  await page.fill('#param-tolerance', '1e-6');
  await runToDone(page);
  assert.equal((await page.evaluate(() => window.__looplab.lastResult)).experiment, 'standardization');
  // The silent workers' threads are stopped too (a hung one would keep a core busy); a close may lag a little.
  for (let t = 0; workers(page).length > 1 && t < 50; t++) await page.waitForTimeout(100);   // ~1 s measured
  assert.equal(workers(page).length, 1, 'the silent workers were terminated');
});

test('Stop ends a long run within 100 ms (measured from the click to the stopped status)', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open(LONG_RUN);
  await waitForStatus(page, 'ready');
  const latencies = [];
  for (let i = 0; i < 5; i++) {
    await startLongRun(page);
    await page.waitForTimeout(200 + 37 * i);   // stop at different points of a chunk
    latencies.push(await page.evaluate(() => new Promise((resolve) => {
      const statusEl = document.getElementById('status');
      const t0 = performance.now();
      const obs = new MutationObserver(() => {
        if (window.__looplab.status === 'stopped') { obs.disconnect(); resolve(performance.now() - t0); }
      });
      obs.observe(statusEl, { childList: true, characterData: true, subtree: true });
      document.getElementById('stop').click();
    })));
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(`  Stop latency over ${latencies.length} runs: median ${sorted[2].toFixed(1)} ms, max ${sorted[4].toFixed(1)} ms `
    + `(${latencies.map((x) => x.toFixed(1)).join(', ')})`);
  assert.ok(sorted[4] < 100, `Stop took ${sorted[4].toFixed(1)} ms`);
  await assertClean(page, problems);
});

test('host page: two widgets under the strict CSP run side by side without freezing the page', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open(HOST);
  await waitWidget(page, '#first', 'ready');
  await waitWidget(page, '#second', 'ready');

  // The shadow stylesheets loaded (a <link>: style-src 'self'), in each widget's theme.
  const looks = await page.evaluate(() => ['#first', '#second'].map((s) => {
    const r = document.querySelector(s).shadowRoot;
    return { run: getComputedStyle(r.querySelector('button.primary')).backgroundColor, body: getComputedStyle(r.querySelector('.widget')).backgroundColor };
  }));
  assert.equal(looks[0].run, 'rgb(0, 114, 178)', 'light widget: Okabe-Ito blue Run button');
  assert.equal(looks[1].body, 'rgb(21, 27, 36)', 'theme="dark" widget: dark ground');

  // controls="lr_scaled": one visible control; the rest listed as fixed by the lesson.
  const visible = await page.evaluate(() => [...document.querySelector('#first').shadowRoot.querySelectorAll('.controls .field')]
    .filter((f) => !f.hidden).map((f) => f.dataset.param));
  assert.deepEqual(visible, ['lr_scaled']);
  assert.match(await shadowText(page, '#first', '.fixed'), /Fixed for this lesson: .*lr_raw = 1e-4/);

  // Both run at once; the page's frames keep coming (each widget computes in its own worker).
  await page.evaluate(() => {
    window.__gaps = [];
    window.__started = performance.now();
    let last = performance.now();
    const tick = (t) => { window.__gaps.push(t - last); last = t; if (!window.__stopTicks) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    document.querySelector('#first').run();
    document.querySelector('#second').run();
  });
  await waitWidget(page, '#first', 'done', RUN_TIMEOUT_MS);
  await waitWidget(page, '#second', 'done', RUN_TIMEOUT_MS);
  const { gaps, ms } = await page.evaluate(() => { window.__stopTicks = true; return { gaps: window.__gaps, ms: performance.now() - window.__started }; });
  const worst = Math.max(...gaps);
  console.log(`# two widgets running for ${ms.toFixed(0)} ms: ${gaps.length} frames, longest frame gap ${worst.toFixed(1)} ms`);
  // Run on the main thread, the experiments would block it for the whole run: one gap of about `ms`.
  assert.ok(gaps.length > 10, `the page kept drawing frames (${gaps.length})`);
  assert.ok(worst < ms / 2, `longest frame gap ${worst.toFixed(1)} ms of a ${ms.toFixed(0)} ms run`);

  const [a, b] = await page.evaluate(() => ['#first', '#second'].map((s) => document.querySelector(s).result));
  assert.equal(a.config.scaling, 'standardize');
  assert.equal(b.config.scaling, 'minmax', 'the second widget used its attributes');
  assert.equal(b.config.lr_scaled, 0.5);
  const scaled = a.runs.find((r) => r.variant === 'scaled');
  assert.ok(Math.abs(scaled.iterations_to_tolerance - 39) <= 2, `scaled reached tolerance at ${scaled.iterations_to_tolerance}`);
  assert.ok(await page.evaluate(() => document.querySelector('#first').shadowRoot.querySelectorAll('.cards .card').length) >= 1);
  await page.screenshot({ path: join(RESULTS, 'widgets-host.png'), fullPage: true });
  await assertClean(page, problems);
});
