// Browser tests: every experiment beyond standardization builds its page from describe() and runs live
// in the real WebAssembly module: line plots (log or linear axes, points style), bar plots from the
// result's runs, summary, runs table, extra result tables, quoted figures; no console errors, page
// errors or CSP violations. Screenshots: test-results/<experiment>.png.
//
//   node --test tests/web/experiments.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, countColor, hexRgb, useBrowser, waitForStatus } from './harness.mjs';
import { COLORS } from '../../web/plots/colors.js';

const browser = useBrowser();

const CASES = [
  { id: 'execution-modes', query: 'epochs=3' },   // the loss is a mean per epoch: one epoch would be one point, all modes on it
  { id: 'unroll', query: 'n=1000&epochs=1' },
  { id: 'retracing', query: '' },
];

/** What the page shows for each describe.plots entry, read from the DOM and window.__looplab. */
function readPlots(page) {
  return page.evaluate(() => window.__looplab.plots.map((p, i) => {
    const fig = document.querySelectorAll('#plots .plot')[i];
    const out = {
      spec: p.spec, points: p.pointCount(), id: fig.dataset.plot,
      caption: fig.querySelector('figcaption').textContent,
      emptyShown: !fig.querySelector('.plot-empty').hidden,
    };
    if (p.spec.type === 'bars') {
      out.bars = p.bars();
      out.rects = fig.querySelectorAll('svg.bars .bar rect').length;
      out.values = [...fig.querySelectorAll('.bars-value')].map((t) => t.textContent);
      out.categories = [...fig.querySelectorAll('.bars-category')].map((t) => t.textContent);
      out.ariaLabel = fig.querySelector('svg.bars')?.getAttribute('aria-label') ?? '';
    } else {
      out.xDistr = p.uplot.scales.x.distr;
      out.yDistr = p.uplot.scales.y.distr;
      out.lineShown = p.uplot.series.slice(1).map((s, k) => s.paths(p.uplot, k + 1, 0, 0) !== null);
    }
    return out;
  }));
}

for (const { id, query } of CASES) {
  test(`${id}: controls and plots from describe, a live run, bars, summary, no errors`, { timeout: 180_000 }, async () => {
    const { page, problems } = await browser.open(`/web/?experiment=${id}${query ? `&${query}` : ''}`);
    await waitForStatus(page, 'ready');
    const d = await page.evaluate(() => window.__looplab.describe);
    assert.equal(d.id, id);
    assert.equal(await page.inputValue('#experiment'), id);
    assert.equal(await page.textContent('#title'), d.question);
    assert.equal(await page.locator('#controls .field').count(), d.parameters.length, 'one control per parameter');
    for (const [k, v] of new URLSearchParams(query)) assert.equal(await page.inputValue(`#param-${k}`), v, `URL sets ${k}`);

    // Before the run: one figure per plot spec, each showing its placeholder note, or, at the
    // defaults, the saved run's points under its label.
    let plots = await readPlots(page);
    assert.deepEqual(plots.map((p) => p.id), d.plots.map((s) => s.id));
    const saved = await page.evaluate(() => window.__looplab.savedResult);
    assert.equal(await page.evaluate(() => document.getElementById('saved-note').hidden), !saved, 'a saved run only with its label');
    if (saved) assert.ok(plots.some((p) => p.points > 0) && saved.experiment === id, 'the saved run drawn before the run');
    else assert.ok(plots.every((p) => p.emptyShown && p.points === 0), 'placeholders before the run');

    await page.click('#run');
    await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
    await page.waitForTimeout(100);             // one animation frame for the final setData
    const result = await page.evaluate(() => window.__looplab.lastResult);
    assert.equal(result.experiment, id);
    assert.equal(await page.evaluate(() => document.getElementById('progress').value), 1, 'progress complete');

    plots = await readPlots(page);
    let lineIndex = 0;
    for (const p of plots) {
      const { spec } = p;
      assert.ok(!p.emptyShown, `${spec.id}: placeholder gone`);
      assert.equal(p.caption, spec.title);
      if (spec.type === 'bars') {
        const rows = result[spec.source];
        assert.deepEqual(p.categories, rows.map((r) => String(r[spec.category])), `${spec.id}: one bar per run`);
        assert.deepEqual(p.bars.map((b) => b.value), rows.map((r) => r[spec.value]), `${spec.id}: heights from the runs`);
        assert.equal(p.rects, rows.length, `${spec.id}: bars drawn`);
        assert.ok(p.values.every((v) => /\d/.test(v)), `${spec.id}: values labelled: ${p.values}`);
        assert.ok(p.ariaLabel.includes(rows[0][spec.category]), `${spec.id}: aria-label lists the bars`);
      } else {
        const expected = Object.entries(result.series)
          .filter(([name]) => spec.series.includes(name))
          .reduce((n, [, s]) => n + s[spec.x].length, 0);
        assert.ok(p.points > 0 && p.points <= expected, `${spec.id}: ${p.points} points of ${expected}`);
        assert.equal(p.xDistr, spec.log_x ? 3 : 1, `${spec.id}: x axis ${spec.log_x ? 'log' : 'linear'}`);
        assert.equal(p.yDistr, spec.log_y ? 3 : 1, `${spec.id}: y axis ${spec.log_y ? 'log' : 'linear'}`);
        assert.ok(p.lineShown.every((shown) => shown === (spec.style !== 'points')), `${spec.id}: lines only unless style is points`);
        // Series that coincide (execution-modes' five loss curves) cover each other: any one showing will do.
        const colors = spec.series.map((_, k) => hexRgb(COLORS[k % COLORS.length]));
        let drawn = 0;
        for (const rgb of colors) drawn += await countColor(page, lineIndex, rgb);
        assert.ok(drawn > 20, `${spec.id}: series drawn`);
        lineIndex++;
      }
    }

    // Summary: cards, the reading sentence, the runs table, quoted figures.
    assert.ok(await page.locator('#summary').isVisible());
    assert.ok(await page.locator('#headline .card').count() >= 1, 'headline cards');
    const reading = await page.textContent('#reading');
    assert.equal(reading, result.summary.reading);
    assert.ok(reading.length > 20 && await page.locator('#reading').isVisible(), 'reading sentence shown');
    assert.ok(await page.locator('#runs .runs-table').first().isVisible(), 'runs table');
    if (d.quoted?.length) assert.ok(await page.locator('#quoted').isVisible(), 'quoted figures');
    assert.equal(new URL(page.url()).searchParams.get('experiment'), id, 'URL keeps the experiment');

    if (id === 'execution-modes') {
      // Compiled mode: its run generated a WebAssembly module at run time (under the page's CSP);
      // the text of the step is shown folded under the runs table, not as a table column.
      const compiled = result.runs.find((r) => r.mode === 'compiled');
      assert.match(compiled.generated_code, /^\(module/);
      const code = page.locator('details.generated-code[data-mode="compiled"]');
      await code.locator('summary').click();
      assert.equal(await code.locator('pre').textContent(), compiled.generated_code);
      assert.equal(await page.locator('#runs th', { hasText: 'generated code' }).count(), 0);
    }

    if (id === 'retracing') {
      // The traced calls with their reasons, one row each; the full call list folded below.
      const rows = await page.locator('#runs .runs-table').first().locator('tbody tr').allTextContents();
      assert.equal(rows.length, result.runs.length);
      for (const r of result.runs) assert.ok(rows.some((t) => t.includes(r.reason)), `reason shown: ${r.reason}`);
      const details = page.locator('details.more-table[data-key="calls"]');
      assert.match(await details.locator('summary').textContent(), new RegExp(`All ${result.calls.length} calls`));
      await details.locator('summary').click();
      assert.equal(await details.locator('tbody tr').count(), result.calls.length);
      const traced = result.calls.filter((c) => c.traced).length;
      assert.equal(await details.locator('td.rare').filter({ hasText: 'yes' }).count(), traced, 'traced calls marked');
    }

    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(RESULTS, `${id}.png`), fullPage: true });
    await assertClean(page, problems);
    await page.close();
  });
}

test('choosing an experiment with the keyboard rebuilds controls, plots and the URL', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=standardization');
  await waitForStatus(page, 'ready');
  const ids = await page.locator('#experiment option').evaluateAll((o) => o.map((x) => x.value));
  assert.ok(['standardization', 'optimizers', ...CASES.map((c) => c.id)].every((id) => ids.includes(id)), `experiments listed: ${ids}`);
  for (let i = ids.indexOf('standardization') + 1; i < ids.length; i++) {
    await page.focus('#experiment');
    await page.keyboard.press('ArrowDown');          // a closed select changes on arrow keys
    const id = ids[i];
    await page.waitForFunction((want) => window.__looplab.describe?.id === want, id, { timeout: 10_000 });
    await waitForStatus(page, 'ready');
    const d = await page.evaluate(() => window.__looplab.describe);
    assert.equal(new URL(page.url()).searchParams.get('experiment'), id);
    assert.equal(await page.locator('#controls .field').count(), d.parameters.length);
    assert.deepEqual(await page.locator('#plots .plot').evaluateAll((f) => f.map((x) => x.dataset.plot)), d.plots.map((s) => s.id));
    assert.equal(await page.locator('.plot-bars').count(), d.plots.filter((s) => s.type === 'bars').length);
  }
  // Retracing: Enter in a parameter field runs it (the form submits).
  await page.selectOption('#experiment', 'retracing');
  await page.waitForFunction(() => window.__looplab.describe?.id === 'retracing');
  await waitForStatus(page, 'ready');
  await page.fill('#param-epochs', '1');
  await page.press('#param-epochs', 'Enter');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  assert.equal(new URL(page.url()).searchParams.get('epochs'), '1');
  assert.ok(await page.locator('#summary').isVisible());
  // Another experiment leaves no stale result: summary hidden, bar placeholders shown.
  await page.selectOption('#experiment', 'execution-modes');
  await page.waitForFunction(() => window.__looplab.describe?.id === 'execution-modes');
  await waitForStatus(page, 'ready');
  // (its own saved run, under its label, at its defaults)
  assert.equal(await page.evaluate(() => window.__looplab.savedResult?.experiment), 'execution-modes', 'no stale summary: the saved run of execution-modes');
  assert.equal(await page.locator('#saved-note').isVisible(), true);
  assert.equal(await page.evaluate(() => window.__looplab.lastResult), null);
  assert.equal(new URL(page.url()).search, '?experiment=execution-modes');
  await assertClean(page, problems);
  await page.close();
});
