// Accessibility (issue 39, item 5): axe-core (npm) finds no violation on any experiment's page after a
// run, nor in a widget after its run. Each experiment runs on small settings (the rules look at what a
// finished result draws: tables, plots, notes, headings), in English.
//
//   node --test tests/web/a11y.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import axe from 'axe-core';
import { RUN_TIMEOUT_MS, assertClean, useBrowser, waitForStatus, waitWidget } from './harness.mjs';

const browser = useBrowser();

// Every experiment, with settings that finish in a few seconds in the browser.
const PAGES = [
  ['standardization', ''],
  ['optimizers', 'ladder=false&max_iterations=3000&max_seconds=0'],
  ['execution-modes', 'epochs=2'],
  ['unroll', 'n=1000&epochs=1'],
  ['retracing', ''],
  ['call-granularity', 'n=1000&epochs=4'],
  ['overhead', 'n_max=10000&points=4&repeats=2&chunk_ms=1'],
  ['matrix', 'rows_large=512&repeats=1&chunk_ms=1&max_seconds=0'],
  ['pipelines', 'n=2000&batch=50&epochs=1'],
];

/** axe's violations on the page (its shadow roots included), one line each: rule, impact, where. */
async function violations(page) {
  // Evaluated through the debugging protocol, which the page's CSP (no inline scripts) does not govern.
  await page.evaluate(axe.source);
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return found.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary.split('\n')[1] ?? ''}`));
}

for (const [id, query] of PAGES) {
  test(`${id}: no accessibility violation after a run`, { timeout: 240_000 }, async () => {
    const { page, problems } = await browser.open(`/web/?experiment=${id}${query ? `&${query}` : ''}`);
    await waitForStatus(page, 'ready');
    await page.click('#run');
    await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
    await assertClean(page, problems);   // before axe, which adds a <style> of its own (a CSP report)
    assert.deepEqual(await violations(page), []);
    await page.close();
  });
}

test('a widget: no accessibility violation after its run', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/optimizers-widget.html');
  await waitWidget(page, '#opt', 'ready', 60_000);
  await page.evaluate(() => document.querySelector('#opt').run());
  await waitWidget(page, '#opt', 'done', RUN_TIMEOUT_MS);
  await assertClean(page, problems);
  assert.deepEqual(await violations(page), []);
  await page.close();
});
