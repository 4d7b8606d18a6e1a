// Browser tests for call-granularity, overhead and matrix: each runs on the page with tiny settings in
// the real WebAssembly module; the JS per-call variants measured in the worker join the result (with
// the same losses as the core's fit), the fitted lines are drawn, and the matrix heatmaps carry their
// numbers as text. Screenshots: test-results/<experiment>.png.
//
//   node --test tests/web/perf-experiments.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, useBrowser, waitForStatus } from './harness.mjs';

const browser = useBrowser();

async function runOnPage(id, query) {
  const { page, problems } = await browser.open(`/web/?experiment=${id}&${query}`);
  await waitForStatus(page, 'ready');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  await page.waitForTimeout(100);   // one animation frame for the final setData
  const result = await page.evaluate(() => window.__looplab.lastResult);
  assert.equal(result.experiment, id);
  return { page, problems, result };
}

async function finish(page, problems, id) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(RESULTS, `${id}.png`), fullPage: true });
  await assertClean(page, problems);
  await page.close();
}

test('Run longer: an open timing verdict offers it, and it continues the same run with more paired rounds', { timeout: 180_000 }, async () => {
  // Two epochs of rounds (one may be calibration) decide nothing (the first look is at eight), and
  // max_seconds=0 takes no extra ones.
  const { page, problems, result } = await runOnPage('call-granularity', 'n=400&batch=20&epochs=3&max_seconds=0');
  // The core's four paired timings (the JS-driven variants are measured once, after the core's run).
  const paired = (r) => r.summary.comparisons.filter((c) => Object.hasOwn(c, 'rounds') && !c.id.startsWith('js_'));
  assert.equal(paired(result).length, 4);
  assert.ok(paired(result).every((c) => c.verdict === 'inconclusive' && c.rounds <= 2), JSON.stringify(paired(result)));
  assert.equal(result.summary.run_longer, true);
  assert.match(await page.locator('#comparisons').innerText(), /not enough evidence yet/);
  assert.ok(await page.locator('#run-longer').isVisible(), 'Run longer is offered');
  await page.click('#run-longer');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const longer = await page.evaluate(() => window.__looplab.lastResult);
  for (const [i, c] of paired(longer).entries()) assert.ok(c.taken > paired(result)[i].taken, `${c.id}: ${c.taken} rounds`);
  // The same training: extra rounds time further epochs without recording them.
  assert.deepEqual(longer.runs.map((r) => r.final_loss), result.runs.map((r) => r.final_loss));
  assert.deepEqual(longer.series.fit, result.series.fit);
  await finish(page, problems, 'call-granularity-run-longer');
});

test('call-granularity: fit, C++ train_on_batch (eager, traced and compiled) and the JS-driven variants, the same losses', { timeout: 180_000 }, async () => {
  const { page, problems, result } = await runOnPage('call-granularity', 'n=400&batch=20&epochs=4&chunk_ms=1');
  const variants = ['fit', 'train_on_batch', 'train_on_batch_traced', 'train_on_batch_compiled', 'js_fit', 'js_train_on_batch'];
  assert.deepEqual(result.runs.map((r) => r.variant), variants);
  assert.deepEqual(result.runs.map((r) => r.mode), ['traced', 'eager', 'traced', 'compiled', 'traced', 'traced']);
  const [fit, eager, , compiled, jsFit, js] = result.runs;
  const tolerance = result.summary.loss_tolerance;
  for (const r of result.runs) {
    assert.equal(r.steps, 80, `${r.variant}: 4 epochs of 20 batches`);
    assert.ok(r.us_per_step > 0, `${r.variant}: timed`);
    assert.equal(r.same_losses_as_fit, true, `${r.variant}: same losses as fit`);
    // Traced steps are bit-identical to fit's; the eager and the generated step agree to float32 rounding.
    if (r !== eager && r !== compiled) assert.equal(r.final_loss, fit.final_loss, `${r.variant}: same final loss`);
  }
  for (const r of [eager, compiled]) {
    assert.ok(Math.abs(r.final_loss - fit.final_loss) <= tolerance * Math.abs(fit.final_loss), `${r.variant}: within the tolerance`);
  }
  assert.match(js.measured_in, /JavaScript.*WebAssembly/);
  assert.match(fit.measured_in, /WebAssembly/, 'the core variants ran as wasm in the browser');
  assert.ok(Math.abs(js.overhead_us_per_call - (js.us_per_step - jsFit.us_per_step)) < 1e-9, 'JS overhead against js_fit');
  assert.match(result.summary.measured_where, /js_train_on_batch/);
  assert.deepEqual(result.summary.comparisons.map((c) => c.id), ['train_on_batch_vs_fit', 'eager_vs_traced_per_call', 'per_call_vs_fit',
    'compiled_vs_traced_per_call', 'final_loss_train_on_batch_vs_fit', 'final_loss_train_on_batch_traced_vs_fit',
    'final_loss_train_on_batch_compiled_vs_fit', 'js_train_on_batch_vs_js_fit']);
  assert.ok(result.summary.answer.length > 0, 'the question answered');
  assert.equal(result.series.js_train_on_batch.step.length, 80);
  assert.deepEqual(result.series.js_fit.loss, result.series.fit.loss, 'fit called from JS: the same losses');
  // The bar plots show every variant; the loss plot drew its points.
  const bars = await page.evaluate(() => window.__looplab.plots.filter((p) => p.spec.type === 'bars').map((p) => p.bars()));
  for (const b of bars) assert.deepEqual(b.map((x) => x.label), variants);
  const headline = await page.locator('#headline .card').allTextContents();
  assert.ok(headline.some((t) => t.includes('JS → wasm per batch')), `JS card shown: ${headline}`);
  await finish(page, problems, 'call-granularity');
});

test('overhead: every mode and js_per_call measured at each N, with fitted lines on log-log axes', { timeout: 180_000 }, async () => {
  const { page, problems, result } = await runOnPage('overhead', 'n_min=10&n_max=10000&points=4&chunk_ms=1&repeats=2');
  const ns = [10, 100, 1000, 10000];
  for (const m of ['eager', 'traced', 'compiled', 'reference', 'js_per_call']) {
    assert.deepEqual(result.series[m].n, ns, `${m}: measured at every N`);
    assert.ok(result.series[m].us_per_step.every((t) => t > 0), `${m}: positive times`);
    assert.equal(result.series[`${m}_fit`].us_per_step.length, ns.length, `${m}: fitted line`);
  }
  assert.deepEqual(result.runs.map((r) => r.mode), ['eager', 'traced', 'compiled', 'reference', 'js_per_call']);
  const js = result.runs[4];
  assert.ok(Number.isFinite(js.a_us) && Number.isFinite(js.b_ns_per_point));
  assert.equal(result.summary.a_fixed_us.js_per_call, js.a_us);
  assert.equal(result.points.length, 5 * ns.length, 'every mode at every N');
  const plot = await page.evaluate(() => {
    const p = window.__looplab.plots[0];
    return { points: p.pointCount(), xDistr: p.uplot.scales.x.distr, yDistr: p.uplot.scales.y.distr, series: p.names };
  });
  assert.equal(plot.xDistr, 3);
  assert.equal(plot.yDistr, 3);
  assert.ok(plot.series.includes('js_per_call_fit'));
  assert.ok(plot.points >= 8 * ns.length - 4, `measured and fitted points drawn: ${plot.points}`);
  await finish(page, problems, 'overhead');
});

test('matrix with seed 001\'s models: eight cells of four modes, the scale said and each model\'s layers', { timeout: 180_000 }, async () => {
  const { page, problems, result } = await runOnPage('matrix',
    'models=seed001&sequences=2&channel_divisor=16&length_divisor=100&chunk_ms=0.5&repeats=1&max_seconds=0');
  assert.equal(result.runs.length, 8, 'the large model skips the small data, as in the seed');
  const maps = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.plot-heatmap')].map((f) => [
    f.dataset.plot, [...f.querySelectorAll('.heatmap-cell text.heatmap-value')].map((t) => t.textContent)])));
  assert.ok(maps.traced_vs_eager.every((t) => /\d/.test(t)), `numbers: ${maps.traced_vs_eager}`);
  assert.equal(maps.reference_us.length, 8, 'the hand-written Conv1D loop timed in every cell');
  assert.ok(maps.reference_vs_traced.every((t) => /\d/.test(t)), `numbers: ${maps.reference_vs_traced}`);
  // The long column labels ("small (2 × 2 steps × 30)") take two lines where a cell is narrower:
  // on a laptop's narrower window the maps redraw with each label clear of its neighbour.
  await page.setViewportSize({ width: 1000, height: 900 });
  await page.waitForTimeout(300);  // the maps redraw on resize (renderOnResize)
  const overlaps = await page.evaluate(() => [...document.querySelectorAll('.plot-heatmap svg')].flatMap((s) => {
    const boxes = [...s.querySelectorAll('.heatmap-col')].map((t) => t.getBBox());
    return boxes.slice(1).filter((b, i) => b.x < boxes[i].x + boxes[i].width).map(() => s.closest('.plot-heatmap').dataset.plot);
  }));
  assert.deepEqual(overlaps, [], 'each column label clear of its neighbour');
  const wrapped = await page.evaluate(() => [...document.querySelectorAll('.plot-heatmap[data-plot="traced_us"] .heatmap-col')]
    .map((t) => [t.querySelectorAll('tspan').length, t.textContent]));
  assert.ok(wrapped.some(([lines]) => lines > 1), `a label wrapped: ${JSON.stringify(wrapped)}`);
  assert.deepEqual(wrapped.map(([, text]) => text), ['small (2 × 2 steps × 30)', 'medium (2 × 14 steps × 30)', 'large (2 × 140 steps × 30)']);
  const headline = await page.locator('#headline .card').allTextContents();
  assert.ok(headline.some((t) => /filters ÷ 16, lengths ÷ 100/.test(t) && /the seed's 162,049/.test(t)), `scale card: ${headline}`);
  const layers = page.locator('details.more-table[data-key="layers"]');
  assert.equal(await layers.locator('tbody tr').count(), 5 + 12 + 51);
  assert.match(await layers.locator('tbody').textContent(), /Conv1D\(8, 1, strides=4, 'same'\)/);
  await finish(page, problems, 'matrix-seed001');
});

test('matrix: heatmaps with the numbers as text, the cells table and the winner', { timeout: 180_000 }, async () => {
  const { page, problems, result } = await runOnPage('matrix', 'rows_small=2&rows_medium=4&rows_large=8&chunk_ms=0.5&repeats=1&max_seconds=0');
  assert.equal(result.runs.length, 9);
  assert.ok('wins_every_cell' in result.summary);
  const maps = await page.evaluate(() => [...document.querySelectorAll('.plot-heatmap')].map((f) => ({
    id: f.dataset.plot,
    texts: [...f.querySelectorAll('.heatmap-cell text.heatmap-value')].map((t) => t.textContent),
    rects: f.querySelectorAll('.heatmap-cell rect').length,
    rows: [...f.querySelectorAll('.heatmap-row')].map((t) => t.textContent),
    cols: [...f.querySelectorAll('.heatmap-col')].map((t) => t.textContent),
    fills: [...f.querySelectorAll('.heatmap-cell rect')].map((r) => r.getAttribute('fill')),
  })));
  const d = await page.evaluate(() => window.__looplab.describe);
  assert.deepEqual(maps.map((m) => m.id), d.plots.map((p) => p.id));
  for (const m of maps) {
    const spec = d.plots.find((p) => p.id === m.id);
    assert.equal(m.rects, 9, `${m.id}: 9 cells`);
    assert.deepEqual(m.rows, ['small (8→16→1)', 'medium (32→64→1)', 'large (128→256→1)']);
    assert.deepEqual(m.cols, ['small (2 rows)', 'medium (4 rows)', 'large (8 rows)']);
    assert.ok(m.texts.every((t) => /\d/.test(t)), `${m.id}: numbers in the cells: ${m.texts}`);
    assert.ok(new Set(m.fills).size > 1, `${m.id}: colours vary`);
    // The number in each cell is the result's value for that cell.
    result.runs.forEach((r, i) => {
      const v = r[spec.value];
      const shown = parseFloat(m.texts[i].replace(/[^\d.eE+-]/g, ''));
      assert.ok(Math.abs(shown - v) <= Math.abs(v) * 0.06 + 0.01, `${m.id} cell ${i}: ${m.texts[i]} vs ${v}`);
    });
  }
  const rows = await page.locator('#runs .runs-table').first().locator('tbody tr').count();
  assert.equal(rows, 9, 'a table row per cell');
  // Each model's layers as model.summary() lists them, folded under the numbers.
  const layers = page.locator('details.more-table[data-key="layers"]');
  assert.equal(await layers.locator('tbody tr').count(), 6, 'two Dense layers per MLP');
  assert.match(await layers.locator('thead').textContent(), /layer.*output shape.*parameters/);
  const headline = await page.locator('#headline .card').allTextContents();
  assert.ok(headline.some((t) => /wins every cell/.test(t)), `winner card: ${headline}`);
  await finish(page, problems, 'matrix');
});
