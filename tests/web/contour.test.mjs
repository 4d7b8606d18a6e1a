// Browser tests of standardization's picture of the valley (issue 11, item 4): the contour plot
// draws both valleys and the paths live on the page and in a <looplab-experiment> widget (the same
// ExperimentPanel), on a canvas under the strict CSP, and "Show data" lists the path.
//
//   node --test tests/web/contour.test.mjs      (needs the wasm build and npm ci)
//
// Screenshots: test-results/contour-page.png, test-results/contour-widget.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, useBrowser, waitForStatus } from './harness.mjs';

const browser = useBrowser();

/**
 * What the contour canvas shows, read in the page: pixels that are not white, pixels near each
 * path colour, and the plot's path points. `host` is a widget's selector, or null for the page.
 */
function readContour(page, host) {
  return page.evaluate(([sel]) => {
    const root = sel ? document.querySelector(sel).shadowRoot : document;
    const plots = sel ? document.querySelector(sel).plots : window.__looplab.plots;
    const plot = plots.find((p) => p.spec.type === 'contour');
    const canvas = root.querySelector('.plot-contour canvas');
    if (!plot || !canvas || canvas.hidden || !canvas.width) return { drawn: false, points: plot?.pointCount() ?? -1 };
    const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const near = (k, [r, g, b]) => Math.abs(d[k] - r) < 40 && Math.abs(d[k + 1] - g) < 40 && Math.abs(d[k + 2] - b) < 40;
    let ink = 0, raw = 0, scaled = 0;
    for (let k = 0; k < d.length; k += 4) {
      if (d[k] < 245 || d[k + 1] < 245 || d[k + 2] < 245) ink++;
      if (near(k, [0x00, 0x72, 0xb2])) raw++;
      if (near(k, [0xd5, 0x5e, 0x00])) scaled++;
    }
    return { drawn: true, points: plot.pointCount(), ink, raw, scaled, pixels: d.length / 4, label: canvas.getAttribute('aria-label') };
  }, [host]);
}

test('standardization on the page: the valleys and the paths drawn live, the path as a table, no errors', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=standardization');
  await waitForStatus(page, 'ready');
  assert.ok(await page.locator('.plot-contour').count() === 1, 'one contour plot');
  // Before Run: the defaults' saved run (build/saved-runs/), under its label; Run clears it and draws live.
  assert.equal(await page.evaluate(() => document.getElementById('saved-note').hidden), false, 'the saved run, labelled');
  assert.equal((await readContour(page, null)).drawn, true, 'the saved run drawn before Run');
  // A smaller raw rate: about three times the defaults' 881 raw steps, so that the run is still going
  // when the check below looks (at the defaults it can end within one look's interval).
  await page.fill('#param-lr_raw', '0.00003');
  await waitForStatus(page, 'ready');
  await page.click('#run');
  // Live: while the raw run is still going, the valleys are drawn and its path has points.
  await page.waitForFunction(() => window.__looplab.status === 'running'
    && window.__looplab.plots.find((p) => p.spec.type === 'contour').pointCount() > 20, null, { timeout: 60_000, polling: 'raf' });
  await page.waitForTimeout(100);   // the next animation frame draws them
  const live = await readContour(page, null);
  assert.ok(live.drawn && live.ink > 2000 && live.raw > 50, `drawn while running: ${JSON.stringify({ ...live, label: undefined })}`);
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  await page.waitForTimeout(100);

  const result = await page.evaluate(() => window.__looplab.lastResult);
  const expected = result.series.raw.W.length + result.series.scaled.W.length;
  const end = await readContour(page, null);
  assert.equal(end.points, expected, 'every path point of the result is drawn');
  assert.ok(end.ink > 0.03 * end.pixels, `contour lines and points cover the canvas: ${end.ink} of ${end.pixels}`);
  assert.ok(end.raw > 100 && end.scaled > 100, `both paths in their colours: raw ${end.raw}, scaled ${end.scaled}`);
  assert.match(end.label, /raw x: 10 contour lines, \d+ path points/);
  assert.match(end.label, /scaled x: 10 contour lines, \d+ path points/);

  // "Show data": the paths as a table, one row per point.
  const details = page.locator('.plot-box', { has: page.locator('.plot-contour') }).locator('details.plot-data');
  await details.locator('summary').click();
  // The table is built on the details' toggle event, a task after the click: wait for it.
  await details.locator('tbody tr').first().waitFor({ timeout: 10_000 });
  const rows = await details.locator('tbody tr').count();
  assert.equal(rows, Math.min(500, expected), 'one table row per path point (the table shows at most 500)');
  assert.match(await details.locator('thead').textContent(), /run.*iteration.*W.*b.*gap/s);

  await page.locator('.plot-contour').screenshot({ path: join(RESULTS, 'contour-page.png') });
  await assertClean(page, problems);
  await page.close();
});

// Several features (x, x², x³): the panels are the plane of the extreme eigen-directions, the axes
// and a note say so, and the data panel draws no line (there is none in x alone).
test('standardization with three features: the valley in the eigen-plane, named as such', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=standardization&degree=3&scaling=whiten&lr_scaled=0.5&max_iterations=2000');
  await waitForStatus(page, 'ready');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  await page.waitForTimeout(100);
  const note = page.locator('.plot-contour .plot-note');
  assert.ok(await note.isVisible(), 'the eigen-plane note is shown');
  assert.match(await note.textContent(), /slowest and fastest eigen-directions/);
  const end = await readContour(page, null);
  assert.ok(end.drawn && end.scaled > 20, `the whitened path is drawn: ${JSON.stringify({ ...end, label: undefined })}`);
  assert.match(end.label, /no line: the fit has several features/);
  const details = page.locator('.plot-box', { has: page.locator('.plot-contour') }).locator('details.plot-data');
  await details.locator('summary').click();
  await details.locator('tbody tr').first().waitFor({ timeout: 10_000 });
  assert.match(await details.locator('thead').textContent(), /u \(λmin\).*v \(λmax\)/s);
  await assertClean(page, problems);
  await page.close();
});

test('standardization in a widget: the same contour plot, drawn in the shadow root', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/two-widgets.html');
  await page.waitForFunction(() => document.querySelector('#first')?.status === 'ready', null, { timeout: 60_000, polling: 50 });
  await page.evaluate(() => document.querySelector('#first').run());
  await page.waitForFunction(() => /^(done|error)/.test(document.querySelector('#first').status), null, { timeout: RUN_TIMEOUT_MS, polling: 100 });
  assert.equal(await page.evaluate(() => document.querySelector('#first').status), 'done');
  await page.waitForTimeout(100);
  const result = await page.evaluate(() => document.querySelector('#first').result);
  const got = await readContour(page, '#first');
  assert.equal(got.points, result.series.raw.W.length + result.series.scaled.W.length);
  assert.ok(got.drawn && got.ink > 0.03 * got.pixels && got.raw > 100 && got.scaled > 100, `widget canvas: ${JSON.stringify({ ...got, label: undefined })}`);
  await page.locator('#first').screenshot({ path: join(RESULTS, 'contour-widget.png') });
  await assertClean(page, problems);
  await page.close();
});

test('optimizers on the page: one valley panel per run, every path drawn, no errors', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=optimizers');
  await waitForStatus(page, 'ready');
  assert.ok(await page.locator('.plot-contour').count() === 1, 'one contour plot');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  await page.waitForTimeout(100);
  const result = await page.evaluate(() => window.__looplab.lastResult);
  const expected = result.runs.reduce((n, r) => n + result.series[r.variant].W.length, 0);
  const end = await readContour(page, null);
  assert.equal(end.points, expected, 'every path point of every run is drawn');
  for (const r of result.runs) assert.ok(result.series[r.variant].W.length > 1, `${r.variant} has a path`);
  assert.match(end.label, /momentum, raw x: 10 contour lines, \d+ path points/);
  assert.match(end.label, /gd, scaled x: 10 contour lines, \d+ path points/);
  // Heavy ball overshoots across raw x's steep walls, far beyond the level set through the start:
  // its frame is widened to the whole path, and says so; gradient descent's stays inside.
  const swing = Math.max(...result.series.raw_momentum.W.map(Math.abs));
  assert.ok(swing > 10, `heavy ball's W reaches ${swing}`);
  assert.match(end.label, /momentum, raw x: 10 contour lines, \d+ path points, now at W = [-\d.,]+, b = [-\d.,]+\. The path swings beyond the computed valley \(W -?[\d.]+ to [\d.]+, b [^)]*\), so the frame is widened to W -?[\d.]+ to [\d.]+/);
  assert.doesNotMatch(end.label, /gd, raw x: 10 contour lines, \d+ path points, now at W = [-\d.,]+, b = [-\d.,]+\. The path swings/);
  assert.match(await page.textContent('#summary'), /no optimizer on raw x replaces scaling/);
  // The ladder: a heatmap cell per rung and optimizer, holding the result's exact counts.
  const cells = await page.evaluate(() => window.__looplab.plots.find((p) => p.spec.id === 'ladder').cells());
  assert.equal(cells.length, 20);
  assert.deepEqual([...new Set(cells.map((c) => c.row))], ['raw x', 'centred x', 'min-max scaled x', 'standardized x', 'whitened x']);
  assert.deepEqual([...new Set(cells.map((c) => c.col))], ['gradient descent', 'heavy ball', 'Nesterov', 'Adam']);
  assert.deepEqual(cells.map((c) => c.value), result.ladder.map((r) => r.exact_iterations));
  await page.locator('.plot-heatmap').screenshot({ path: join(RESULTS, 'optimizers-ladder.png') });
  await page.locator('.plot-contour').screenshot({ path: join(RESULTS, 'contour-optimizers.png') });
  await assertClean(page, problems);
  await page.close();
});

test('optimizers in a widget, in Chinese: a panel and a path per run, the answer and the paired wall times', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/optimizers-widget.html');
  await page.waitForFunction(() => document.querySelector('#opt')?.status === 'ready', null, { timeout: 60_000, polling: 50 });
  await page.evaluate(() => document.querySelector('#opt').run());
  await page.waitForFunction(() => /^(done|error)/.test(document.querySelector('#opt').status), null, { timeout: RUN_TIMEOUT_MS, polling: 100 });
  assert.equal(await page.evaluate(() => document.querySelector('#opt').status), 'done');
  await page.waitForTimeout(100);
  const result = await page.evaluate(() => document.querySelector('#opt').result);
  const got = await readContour(page, '#opt');
  assert.equal(got.points, result.runs.reduce((n, r) => n + result.series[r.variant].W.length, 0), 'every path point drawn');
  assert.ok(got.drawn && got.raw > 100 && got.scaled > 100, `widget canvas: ${JSON.stringify({ ...got, label: undefined })}`);
  assert.match(got.label, /路径超出了已计算的山谷范围/, 'the widened frame is said in Chinese');
  const text = await page.evaluate(() => document.querySelector('#opt').shadowRoot.textContent);
  assert.match(text, /原始 x 上没有哪个优化器能代替缩放/, 'the answer, in Chinese');
  const rows = await page.evaluate(() => [...new Set(document.querySelector('#opt').plots.find((p) => p.spec.id === 'ladder').cells().map((c) => c.row))]);
  assert.deepEqual(rows, ['原始 x', '中心化的 x', '最小-最大缩放的 x', '标准化的 x', '白化的 x'], 'the ladder in Chinese');
  // The wall times come from paired rounds, and the widget says so with their interval.
  const wall = result.summary.comparisons.filter((c) => c.id.endsWith('_wall_time'));
  assert.ok(wall.length >= 2 && wall.every((c) => c.rounds >= 6 && c.ci[0] <= c.ratio && c.ratio <= c.ci[1]), JSON.stringify(wall));
  assert.match(text, /95% 置信区间为 [\d.]+–[\d.]+ 倍/);
  await page.locator('#opt').screenshot({ path: join(RESULTS, 'contour-optimizers-widget.png') });
  await assertClean(page, problems);
  await page.close();
});
