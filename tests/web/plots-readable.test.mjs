// Browser tests that the plots read right (issue 11, item 6): bars and line points carry their spread
// as whiskers value ± half-IQR (a lower end on a log axis clamped to stay positive), a fitted line
// '<name>_fit' takes the colour of <name> and is dashed while <name> is drawn as points on a line, the
// "Show data" tables list the spreads, and on a phone-wide page the plots come right after Run rather
// than after the parameter list; a narrow widget folds its quoted figures to one column.
// The spread plots are drawn from synthetic specs (web/plots/ imported into the served page), so they
// do not wait for the core to declare spreads on every experiment; the fit colours and the layout use
// the real page and module, and execution-modes checks the whiskers of the spread the core declares.
// Screenshots: test-results/plots-spread-bars.png, plots-spread-line.png, overhead-fits.png,
// page-360.png, page-390.png, widget-narrow-column.png, execution-modes-steady.png.
//
//   node --test tests/web/plots-readable.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, useBrowser, waitForStatus } from './harness.mjs';

const browser = useBrowser();

/** The page with an empty figure area (#plot-sandbox) at the top of <main>, once the panel is ready. */
async function sandbox() {
  const { page, problems } = await browser.open('/web/?experiment=standardization');
  await waitForStatus(page, 'ready');
  await page.evaluate(() => {
    const box = document.createElement('div');
    box.id = 'plot-sandbox';
    box.className = 'plots';
    document.getElementById('app').prepend(box);
  });
  return { page, problems };
}

const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b} (±${tol})`);

test('bars with a spread: whiskers value ± spread on linear and log axes, the lower end clamped on log', { timeout: 60_000 }, async () => {
  const { page, problems } = await sandbox();
  const runs = [
    { mode: 'eager', t: 40, t_spread: 6 },
    { mode: 'traced', t: 10, t_spread: 1.5 },
    { mode: 'reference', t: 2, t_spread: 5 },     // spread > value: on a log axis the lower end is clamped
    { mode: 'unmeasured', t: 5 },                 // no spread key: no whisker
  ];
  const drawn = await page.evaluate(async (rows) => {
    const { createPlot } = await import('/web/plots/plots.js');
    const { dataTable } = await import('/web/panel/plot-data.js');
    const box = document.getElementById('plot-sandbox');
    const out = {};
    for (const log of [false, true]) {
      const spec = { id: `steady-${log}`, type: 'bars', title: `Steady (${log ? 'log' : 'linear'})`, source: 'runs',
        category: 'mode', value: 't', spread: 't_spread', y_label: 'µs per step', log_y: log };
      const plot = createPlot(box, spec);
      plot.finish({ runs: rows });
      const fig = plot.root;
      const bars = [...fig.querySelectorAll('.bar')].map((g) => {
        const rect = g.querySelector('rect');
        const w = g.querySelector('.bar-whisker');
        const lines = w ? [...w.querySelectorAll('line')].map((l) => ['x1', 'x2', 'y1', 'y2'].map((k) => Number(l.getAttribute(k)))) : [];
        return { label: g.dataset.category, top: Number(rect.getAttribute('y')), bottom: Number(rect.getAttribute('y')) + Number(rect.getAttribute('height')),
          whisker: w ? { low: Number(w.dataset.low), high: Number(w.dataset.high), clamped: w.dataset.clamped === 'true', lines } : null,
          title: g.querySelector('title').textContent };
      });
      const baseline = Number(fig.querySelector('.bars-baseline').getAttribute('y1'));
      const table = dataTable(plot, spec, { runs: rows });
      out[log ? 'log' : 'linear'] = { bars, baseline, data: plot.bars(),
        head: [...table.querySelectorAll('thead th')].map((t) => t.textContent),
        rows: [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)) };
    }
    return out;
  }, runs);

  // Linear: the bars grow from zero, so pixel heights are proportional to the values.
  const lin = drawn.linear;
  const px = (lin.baseline - lin.bars[0].top) / runs[0].t;   // pixels per µs, from the eager bar
  for (const [i, r] of runs.entries()) {
    const b = lin.bars[i];
    near(lin.baseline - b.top, r.t * px, 1, `${r.mode}: bar height`);
    if (r.t_spread === undefined) { assert.equal(b.whisker, null, `${r.mode}: no whisker without a spread`); continue; }
    assert.ok(b.whisker, `${r.mode}: whisker drawn`);
    const [stem, ...caps] = b.whisker.lines;
    const [, , yHigh, yLow] = stem;
    near(lin.baseline - yHigh, (r.t + r.t_spread) * px, 1, `${r.mode}: upper end at value + spread`);
    if (r.t - r.t_spread >= 0) {
      near(lin.baseline - yLow, (r.t - r.t_spread) * px, 1, `${r.mode}: lower end at value − spread`);
      assert.equal(caps.length, 2, `${r.mode}: two caps`);
      assert.equal(b.whisker.clamped, false);
    } else {
      // A time is never negative: the whisker stops at zero, the axis does not go below it.
      near(yLow, lin.baseline, 0.5, `${r.mode}: lower end clamped at zero`);
      assert.equal(caps.length, 1, `${r.mode}: no cap at the clamped end`);
      assert.equal(b.whisker.clamped, true);
    }
    assert.match(b.title, new RegExp(`± ${r.t_spread}`), `${r.mode}: tooltip gives the spread`);
  }

  assert.ok(Math.max(...lin.bars.map((b) => b.bottom)) <= lin.baseline + 0.5, 'no bar or axis below zero');

  // Log: y = a − c·log10(v); fit a and c from two bars, then check every whisker end.
  const log = drawn.log;
  const [e, t] = [log.bars[0].top, log.bars[1].top];
  const c = (t - e) / Math.log10(runs[0].t / runs[1].t);
  const yOf = (v) => e + c * Math.log10(runs[0].t / v);
  for (const [i, r] of runs.entries()) {
    const b = log.bars[i];
    if (r.t_spread === undefined) { assert.equal(b.whisker, null); continue; }
    const [, , yHigh, yLow] = b.whisker.lines[0];
    near(yHigh, yOf(r.t + r.t_spread), 1, `${r.mode} (log): upper end`);
    if (r.t - r.t_spread > 0) {
      near(yLow, yOf(r.t - r.t_spread), 1, `${r.mode} (log): lower end`);
      assert.equal(b.whisker.clamped, false);
    } else {
      assert.equal(b.whisker.clamped, true, `${r.mode} (log): lower end clamped`);
      near(yLow, log.baseline, 0.5, `${r.mode} (log): clamped to the baseline`);
      assert.ok(yLow >= yHigh && Number.isFinite(yLow), 'the clamped whisker stays on the plot');
      assert.equal(b.whisker.lines.length, 2, 'no cap at a clamped end');
    }
    assert.ok(yHigh >= 0, `${r.mode} (log): the axis holds the upper end`);
  }

  // Show data: the spread column, for the bars that have one.
  for (const d of [lin, log]) {
    assert.deepEqual(d.head, ['mode', 'µs per step', 'µs per step: ± half-IQR']);
    assert.deepEqual(d.rows.map((r) => r[2]), ['6', '1.5', '5', '—']);
    assert.deepEqual(d.data.map((b) => b.spread), [6, 1.5, 5, null]);
  }
  await page.locator('#plot-sandbox').screenshot({ path: join(RESULTS, 'plots-spread-bars.png') });
  await assertClean(page, problems);
  await page.close();
});

test('a line plot with a spread column: whiskers y ± spread in the series colour, inside the y range', { timeout: 60_000 }, async () => {
  const { page, problems } = await sandbox();
  const k = [1, 2, 4, 8, 16, 32];
  const series = {
    // The last point's spread exceeds its value: on the log axis its lower end is clamped.
    step: { k, us: [30, 18, 12, 10, 9.5, 9], us_spread: [3, 2, 1, 1.5, 2, 12] },
    other: { k, us: [20, 20, 20, 20, 20, 20] },      // no spread column: no whiskers
  };
  const drawn = await page.evaluate(async (data) => {
    const { createPlot } = await import('/web/plots/plots.js');
    const { dataTable } = await import('/web/panel/plot-data.js');
    const spec = { id: 'sweep', title: 'Steady time per step against k', x: 'k', y: 'us', x_label: 'k', y_label: 'µs per step',
      log_x: true, log_y: true, spread: 'us_spread', series: ['step', 'other'] };
    const plot = createPlot(document.getElementById('plot-sandbox'), spec);
    plot.append(data);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const u = plot.uplot;
    const table = dataTable(plot, spec, null);
    return {
      whiskers: plot.whiskers(), yMin: u.scales.y.min, yMax: u.scales.y.max, bbox: u.bbox,
      stroke: u.series[1].stroke(u, 1),
      head: [...table.querySelectorAll('thead th')].map((t) => t.textContent),
      rows: [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
    };
  }, series);

  const s = series.step;
  assert.equal(drawn.whiskers.length, k.length, 'one whisker per point with a spread');
  assert.ok(drawn.whiskers.every((w) => w.series === 'step'), 'none for the series without the column');
  drawn.whiskers.forEach((w, i) => {
    assert.equal(w.x, k[i]);
    near(w.hi, s.us[i] + s.us_spread[i], 1e-9, `k=${k[i]}: upper end`);
    if (s.us[i] > s.us_spread[i]) {
      near(w.lo, s.us[i] - s.us_spread[i], 1e-9, `k=${k[i]}: lower end`);
      assert.ok(w.bottom > w.top + 1, `k=${k[i]}: drawn with a length`);
    } else {
      assert.equal(w.lo, null, `k=${k[i]}: lower end below zero on a log axis is clamped`);
      near(w.bottom, drawn.bbox.top + drawn.bbox.height, 0.5, 'clamped to the bottom of the plot');
    }
  });
  assert.ok(drawn.yMax >= Math.max(...s.us.map((v, i) => v + s.us_spread[i])), 'y range holds the upper ends');
  assert.ok(drawn.yMin > 0 && drawn.yMin <= Math.min(...s.us.map((v, i) => v - s.us_spread[i]).filter((v) => v > 0)),
    'y range holds the lower ends and stays positive');

  // Pixels: the whisker of k=2 is painted in the series' colour, above and below the point.
  const w = drawn.whiskers[1];
  const painted = await page.evaluate(([cx, top, bottom, hex]) => {
    const c = document.querySelector('#plot-sandbox canvas');
    const d = c.getContext('2d').getImageData(cx - 1, Math.round(top), 3, Math.round(bottom - top)).data;
    const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (rgb.every((v, j) => Math.abs(d[i + j] - v) < 60)) n++;
    return n;
  }, [w.cx, w.top, w.bottom, drawn.stroke]);
  assert.ok(painted >= (w.bottom - w.top) * 0.8, `whisker pixels in ${drawn.stroke}: ${painted} of ${Math.round(w.bottom - w.top)} rows`);

  // Show data: a spread column next to the series that has one, none for the other.
  assert.deepEqual(drawn.head, ['k', 'step: µs per step', 'step: µs per step: ± half-IQR', 'other: µs per step']);
  assert.deepEqual(drawn.rows[0], ['1', '30', '3', '20']);
  await page.locator('#plot-sandbox').screenshot({ path: join(RESULTS, 'plots-spread-line.png') });
  await assertClean(page, problems);
  await page.close();
});

// uPlot's log axis knows the decades 1e-32 … 1e32: a value beyond them (a converged run's gap of
// 1e-35, a diverging one's 1e40) once made its splits loop until "Invalid array length".
test('a log-log line plot leaves out values beyond 1e-30 … 1e30 and draws the rest', { timeout: 60_000 }, async () => {
  const { page, problems } = await sandbox();
  const drawn = await page.evaluate(async () => {
    const { createPlot } = await import('/web/plots/plots.js');
    const spec = { id: 'gap', title: 'gap', x: 'iteration', y: 'gap', log_x: true, log_y: true, series: ['run'] };
    const plot = createPlot(document.getElementById('plot-sandbox'), spec);
    plot.append({ run: { iteration: [1, 2, 3, 4, 5], gap: [1, 1e-3, 1e-35, 1e40, 1e-9] } });
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return { y: plot.uplot.data[1], min: plot.uplot.scales.y.min, max: plot.uplot.scales.y.max };
  });
  assert.deepEqual(drawn.y, [1, 1e-3, null, null, 1e-9]);
  assert.ok(drawn.min >= 1e-30 && drawn.max <= 1e30, `y scale ${drawn.min} … ${drawn.max}`);
  await assertClean(page, problems);
  await page.close();
});

test('overhead: each fitted line has its mode\'s colour and is dashed; the measured series are points on a line', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=overhead&n_min=10&n_max=10000&points=4&chunk_ms=1&repeats=2');
  await waitForStatus(page, 'ready');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  await page.waitForTimeout(100);   // one animation frame for the final setData
  const series = await page.evaluate(() => {
    const p = window.__looplab.plots[0];
    const u = p.uplot;
    return u.series.slice(1).map((s, i) => ({
      name: s.label, stroke: s.stroke(u, i + 1), dash: s.dash ?? [], points: s.points.show(u, i + 1), lines: s.paths(u, i + 1, 0, 0) !== null,
    }));
  });
  const byName = Object.fromEntries(series.map((s) => [s.name, s]));
  const modes = ['eager', 'traced', 'reference', 'js_per_call'];
  for (const m of modes) {
    const measured = byName[m], fit = byName[`${m}_fit`];
    assert.ok(measured && fit, `${m} and ${m}_fit plotted`);
    assert.equal(fit.stroke, measured.stroke, `${m}_fit has ${m}'s colour`);
    assert.ok(fit.dash.length > 0, `${m}_fit dashed`);
    assert.equal(fit.points, false, `${m}_fit: a line without markers`);
    assert.equal(measured.points, true, `${m}: markers`);
    assert.ok(measured.lines, `${m}: and a line through them`);
    assert.deepEqual(measured.dash, [], `${m}: solid`);
  }
  assert.equal(new Set(modes.map((m) => byName[m].stroke)).size, modes.length, 'the modes keep distinct colours');
  // The bars of the same experiment use the same colours for the same modes.
  // A fitted overhead a ≤ 0 (noise on a fast machine) has no bar on the log axis, only "—" where its number goes.
  const bars = await page.evaluate(() => [...document.querySelectorAll('.plot-bars .bar')].map((g) => [
    g.dataset.category, g.querySelector('rect')?.getAttribute('fill') ?? null, g.querySelector('.bars-value').textContent]));
  assert.ok(bars.some(([, fill]) => fill !== null), `at least one bar is drawn: ${JSON.stringify(bars)}`);
  for (const [mode, fill, value] of bars) {
    if (fill === null) assert.equal(value, '—', `${mode}: no bar only when there is no value to draw`);
    else assert.equal(fill, byName[mode].stroke, `${mode}: the bar has the line's colour`);
  }
  await page.locator('.plot').first().screenshot({ path: join(RESULTS, 'overhead-fits.png') });
  await assertClean(page, problems);
  await page.close();
});

test('call granularity: js_fit is a series of its own, not the fit of a series "js"', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=call-granularity');
  await waitForStatus(page, 'ready');
  const strokes = await page.evaluate(() => {
    const u = window.__looplab.plots[0].uplot;
    return u.series.slice(1).map((s, i) => [s.label, s.stroke(u, i + 1), s.dash ?? []]);
  });
  assert.equal(new Set(strokes.map(([, c]) => c)).size, strokes.length, `every variant its own colour: ${JSON.stringify(strokes)}`);
  await assertClean(page, problems);
  await page.close();
});

for (const width of [360, 390]) {
  test(`${width} px wide page: the plots come right after Run, above the parameters; nothing scrolls sideways`, { timeout: 60_000 }, async () => {
    const { page, problems } = await browser.open('/web/?experiment=unroll');
    await page.setViewportSize({ width, height: 800 });
    await waitForStatus(page, 'ready');
    const box = (sel) => page.locator(sel).first().evaluate((n) => { const r = n.getBoundingClientRect(); return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right }; });
    const run = await box('#run'), plots = await box('#plots'), params = await box('#controls'), summary = await box('#summary');
    assert.ok(plots.top > run.bottom, `plots (${plots.top}) below Run (${run.bottom})`);
    assert.ok(plots.top < params.top, `plots (${plots.top}) above the parameters (${params.top})`);
    assert.ok(plots.top - run.bottom < 200, `the plots follow Run closely: ${plots.top - run.bottom} px between`);
    assert.ok(summary.top > params.top || await page.locator('#summary').isHidden(), 'the summary follows the parameters');
    const sideways = async (when) => {
      const doc = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(doc <= width, `page scroll width at ${width} px ${when}: ${doc}`);
    };
    await sideways('before the run');
    // Still usable: a parameter takes a value, Run runs.
    await page.fill('#param-epochs', '1');
    await page.fill('#param-n', '1000');
    await page.click('#run');
    await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
    assert.ok(await page.evaluate(() => window.__looplab.plots.some((p) => p.pointCount() > 0)), 'the plots drew the run');
    await sideways('after the run (the runs table scrolls in its own box)');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(RESULTS, `page-${width}.png`), fullPage: true });
    await assertClean(page, problems);
    await page.close();
  });
}

test('wide page: the parameters stay in the left column beside the plots', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=unroll');
  await waitForStatus(page, 'ready');
  const [params, plots, run] = await Promise.all(['#controls', '#plots', '#run'].map((s) => page.locator(s).evaluate((n) => n.getBoundingClientRect().toJSON())));
  assert.ok(params.right <= plots.left, `parameters (right ${params.right}) left of the plots (left ${plots.left})`);
  assert.ok(run.top < params.top, 'Run above the parameters');
  // Keyboard: Run, then the parameters (Stop is disabled until a run starts).
  await page.focus('#run');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'reset', 'Tab from Run reaches the Defaults button');
  await assertClean(page, problems);
  await page.close();
});

test('a widget in a narrow column of a wide page: the quoted figures fold to one column, nothing overflows', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  await page.evaluate(async () => {
    await import('/web/looplab-widgets.js');
    const column = document.createElement('div');
    column.style.width = '420px';      // a course page's side column (a style property, CSP-safe)
    const w = document.createElement('looplab-experiment');
    w.id = 'narrow';
    w.setAttribute('experiment', 'standardization');
    column.append(w);
    document.body.append(column);
  });
  await page.waitForFunction(() => /^(ready|error)/.test(document.querySelector('#narrow')?.status ?? ''), null, { timeout: 30_000 });
  const laid = await page.evaluate(() => {
    const root = document.querySelector('#narrow').shadowRoot;
    const list = root.querySelector('.quoted-list');
    const widget = root.querySelector('.widget').getBoundingClientRect();
    return {
      shown: Boolean(list) && !root.querySelector('#quoted').hidden,
      tracks: list ? getComputedStyle(list).gridTemplateColumns.split(' ').length : 0,
      overflow: [...root.querySelectorAll('.quoted *')].filter((n) => n.getBoundingClientRect().right > widget.right + 0.5).length,
    };
  });
  assert.ok(laid.shown, 'the widget shows the quoted figures');
  assert.equal(laid.tracks, 1, 'one column in a 420 px widget');
  assert.equal(laid.overflow, 0, 'no quoted text wider than the widget');
  await page.locator('#narrow').screenshot({ path: join(RESULTS, 'widget-narrow-column.png') });
  await assertClean(page, problems);
  await page.close();
});

test('execution-modes: the steady step bars carry the core\'s 95% interval of the median as whiskers', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open('/web/?experiment=execution-modes&epochs=1');
  await waitForStatus(page, 'ready');
  const spec = await page.evaluate(() => window.__looplab.describe.plots.find((p) => p.id === 'steady'));
  assert.equal(spec?.interval, 'steady_step_ci_us', 'the core declares the interval');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const runs = await page.evaluate(() => window.__looplab.lastResult.runs);
  const whiskers = await page.locator('.plot-bars[data-plot="steady"] .bar').evaluateAll((gs) => gs.map((g) => {
    const w = g.querySelector('.bar-whisker');
    return [g.dataset.category, w ? Number(w.dataset.high) : null];
  }));
  for (const r of runs) {
    const [, high] = whiskers.find(([c]) => c === String(r[spec.category]));
    const [lo, hi] = r[spec.interval];
    if (hi > lo) near(high, hi, 1e-9, `${r[spec.category]}: whisker to the interval's upper end`);
    else assert.equal(high, null, `${r[spec.category]}: a point interval, no whisker`);
  }
  assert.ok(whiskers.some(([, h]) => h !== null), 'at least one mode has an interval');
  await page.locator('.plot-bars[data-plot="steady"]').screenshot({ path: join(RESULTS, 'execution-modes-steady.png') });
  await assertClean(page, problems);
  await page.close();
});
