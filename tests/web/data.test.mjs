// Browser tests for the user's own data and the pipelines experiment, in the real WebAssembly module:
// a CSV chosen in the file picker (playwright setInputFiles) trains standardization and
// execution-modes on the chosen columns; a bad CSV shows the core's message in the form; header
// names are text, never HTML; the pipelines page draws stacked pipeline-vs-step bars and says that
// prefetch has no overlap here. Screenshots: test-results/data-*.png.
//
//   node --test tests/web/data.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, useBrowser, waitForStatus } from './harness.mjs';

const browser = useBrowser();

// weight = 2·height + 1 with a little deterministic noise; a third column whose name is markup.
const HOSTILE = '<img src=x id=injected>';
function csvText(rows) {
  const lines = [`height,weight,"${HOSTILE}"`];
  for (let i = 0; i < rows; i++) lines.push(`${i},${(2 * i + 1 + (((i * 7) % 5) - 2) * 0.3).toFixed(1)},7`);
  return `${lines.join('\n')}\n`;
}

const upload = (page, name, text) =>
  page.setInputFiles('#data-file', { name, mimeType: 'text/csv', buffer: Buffer.from(text) });

test('standardization trains on an uploaded CSV, with the columns chosen on the page', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=standardization&max_iterations=20000');
  await waitForStatus(page, 'ready');
  assert.ok(await page.isVisible('#data-picker'), 'the picker is shown for an experiment that takes data');
  assert.equal(await page.textContent('label[for="data-file"]'), 'CSV file');

  await upload(page, 'mine.csv', csvText(40));
  await page.waitForFunction(() => document.querySelectorAll('#data-x option').length === 3);
  const options = await page.$$eval('#data-x option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(options, ['height', 'weight', HOSTILE], 'header names offered as text');
  assert.equal(await page.locator('#injected').count(), 0, 'a header name is never parsed as HTML');
  assert.equal(await page.inputValue('#data-y'), HOSTILE, 'y defaults to the last column');
  await page.selectOption('#data-x', 'height');
  await page.selectOption('#data-y', 'weight');
  assert.match(await page.textContent('#data-status'), /mine\.csv \(40 data rows\): x = height, y = weight/);

  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const r = await page.evaluate(() => window.__looplab.lastResult);
  assert.equal(r.config.data, 'csv');
  assert.deepEqual(r.config.csv, { name: 'mine.csv', x: 'height', y: 'weight', rows: 40, bytes: csvText(40).length });
  // The closed-form fit of these 40 points (computed by hand from the same numbers) is W ≈ 2.002.
  assert.ok(Math.abs(r.summary.closed_form.W - 2.00225) < 1e-4, `W = ${r.summary.closed_form.W}`);
  await page.screenshot({ path: join(RESULTS, 'data-standardization.png'), fullPage: true });

  // Back to the built-in data: the next config has no csv.
  await page.click('#data-clear');
  const cfg = await page.evaluate(() => document.querySelector('#data-x').options.length);
  assert.equal(cfg, 0);
  await assertClean(page, problems);
});

test('a bad CSV gets the core\'s one-line message, naming line and column, in the form', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=standardization');
  await waitForStatus(page, 'ready');
  await upload(page, 'bad.csv', 'x,y\n1,2\n3,abc\n');
  await page.waitForSelector('#data-error:not([hidden])');
  const message = 'csv line 3 (data row 2), column "y": "abc" is not a number';
  assert.equal(await page.textContent('#data-error'), message);
  assert.equal(await page.getAttribute('#data-file', 'aria-invalid'), 'true');
  await page.click('#run');
  await waitForStatus(page, 'error');
  assert.equal(await page.evaluate(() => window.__looplab.status), `error: ${message}`);
  assert.equal(await page.evaluate(() => window.__looplab.lastResult), null, 'nothing ran');
  await assertClean(page, problems);
});

test('execution-modes takes n from the CSV rows', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=execution-modes&batch=10&unroll=2&epochs=1');
  await waitForStatus(page, 'ready');
  await upload(page, 'mine.csv', csvText(40));
  await page.waitForFunction(() => document.querySelectorAll('#data-x option').length === 3);
  await page.selectOption('#data-y', 'weight');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const r = await page.evaluate(() => window.__looplab.lastResult);
  assert.equal(r.config.n, 40);
  assert.equal(r.config.csv.y, 'weight');
  assert.ok(r.runs.every((run) => run.steps === 4), 'four batches of 10, one epoch');
  await assertClean(page, problems);
});

test('pipelines: stacked pipeline-vs-step bars, and the page says prefetch has no overlap', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=pipelines&n=1000&epochs=3');
  await waitForStatus(page, 'ready');
  assert.ok(await page.isHidden('#data-picker'), 'no picker for an experiment without data');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const r = await page.evaluate(() => window.__looplab.lastResult);
  assert.equal(r.runs.length, 9);
  assert.equal(r.summary.prefetch_overlap, false);
  assert.match(await page.textContent('#reading'), /no overlap/);
  const split = await page.evaluate(() => {
    const p = window.__looplab.plots.find((x) => x.spec.id === 'split');
    const fig = document.querySelector('.plot[data-plot="split"]');
    return { bars: p.bars(), parts: fig.querySelectorAll('rect.bar-part').length,
      legend: [...fig.querySelectorAll('.bars-legend text')].map((t) => t.textContent) };
  });
  assert.equal(split.parts, 18, 'two segments per variant');
  assert.deepEqual(split.legend, ['pipeline', 'step']);
  split.bars.forEach((b, i) => {
    const run = r.runs[i];
    assert.equal(b.label, run.variant);
    assert.deepEqual(b.parts, [run.pipeline_us_per_batch, run.step_us_per_batch]);
  });
  await page.screenshot({ path: join(RESULTS, 'data-pipelines.png'), fullPage: true });
  await assertClean(page, problems);
});
