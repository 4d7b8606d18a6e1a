// Browser tests of the looplab page against the real WebAssembly module (build/wasm/looplab.mjs),
// served by web/tools/serve.py (COOP/COEP + strict CSP) and driven in Debian's Chromium by playwright-core.
//
//   node --test tests/web/page.test.mjs          (needs `npm ci`, the wasm build, /usr/bin/chromium)
//
// Screenshots go to test-results/*.png; test-results/page.png is the full page after the default run.
// LOOPLAB_SCREENSHOT=1 also writes web/screenshot.png (the README's): the top 1100 px of that page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS, ROOT, RUN_TIMEOUT_MS, assertClean, countColor, holdModule, status, useBrowser, waitForStatus } from './harness.mjs';

const browser = useBrowser();
const open = (path) => browser.open(path);

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
  if (process.env.LOOPLAB_SCREENSHOT === '1') {
    await page.screenshot({ path: join(ROOT, 'web', 'screenshot.png'), fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 1100 } });
  }
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

// How fast Stop acts is measured in timed.test.mjs, alone at the end of `make test`: here, beside
// other browsers and compilers, only what it does.
test('Stop ends a long run: Run works again and nothing arrives after it', { timeout: 120_000 }, async () => {
  const { page, problems } = await open('/web/?experiment=standardization');
  await waitForStatus(page, 'ready');
  await page.fill('#param-max_iterations', '5000000');
  await page.fill('#param-tolerance', '1e-12');
  await page.click('#run');
  await waitForStatus(page, 'running');
  await page.waitForFunction(() => window.__looplab.plots[0].pointCount() > 0, null, { timeout: 30_000 });
  await page.waitForTimeout(500);
  assert.ok((await status(page)).startsWith('running'), 'still running before Stop');
  await page.click('#stop');
  await waitForStatus(page, 'stopped', 10_000);
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

test('Run pressed right after load, while the module is still loading, starts the run once it is ready', { timeout: 120_000 }, async () => {
  const { page, problems } = await open('/tests/web/fixtures/blank.html');
  const release = await holdModule(page);         // the page stays at "loading the WebAssembly module"
  await page.goto(new URL('/web/?experiment=standardization&max_iterations=2000', page.url()).href);   // resolves on load
  assert.match(await status(page), /^loading/);
  await page.click('#run');
  assert.equal(await page.isDisabled('#run'), true, 'Run shows it is queued');
  assert.match(await page.textContent('#progress-message'), /starts as soon as the experiment is ready/);
  release();
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const result = await page.evaluate(() => window.__looplab.lastResult);
  assert.equal(result.config.max_iterations, 2000, 'the run used the values from the URL');
  assert.equal(await page.isEnabled('#run'), true);
  await assertClean(page, problems);
  await page.close();
});

test('before the module loads, the texts and controls come from the language file (issue 39)', { timeout: 60_000 }, async () => {
  const described = JSON.parse(readFileSync(join(ROOT, 'build', 'lang', 'id.json'), 'utf8')).describe.optimizers;
  const { page, problems } = await open('/tests/web/fixtures/blank.html');
  const release = await holdModule(page);         // the worker's module stays unloaded
  await page.goto(new URL('/web/?experiment=optimizers&lang=id', page.url()).href);
  await page.waitForFunction(() => document.querySelectorAll('#controls .field').length > 0);
  assert.match(await status(page), /^loading/, 'the module is still loading');
  assert.equal(await page.textContent('#title'), described.question);
  assert.ok((await page.textContent('#lede')).length > 20, 'a lede');
  assert.ok((await page.textContent('#explanation')).includes(described.explanation.intro), 'the explanations');
  assert.ok(await page.locator('.plot-box').count() > 0, 'the plots\' frames');
  // The module's download, under Run, in the page's language (its worker is held, its bytes are not).
  await page.waitForFunction(() => /\d/.test(document.getElementById('progress-message').textContent));
  assert.match(await page.textContent('#progress-message'), /^Mengunduh modul WebAssembly: [\d,.]+ [KMG]?B (dari [\d,.]+ [KMG]?B \(\d+%\)|sejauh ini)$/);
  release();
  await waitForStatus(page, 'ready');
  assert.equal(await page.textContent('#title'), described.question);
  assert.equal(await page.textContent('#progress-message'), '', 'the download line goes once the module is ready');
  await assertClean(page, problems);
  await page.close();
});

// A saved run (build/saved-runs/, written by make dist; issue 39 item 2) is drawn before the module has loaded, always under
// its label, in every language; the reader's own run replaces it, and a changed value takes it away.
test('a saved run is on screen before the module loads, labelled in every language; Run replaces it', { timeout: 120_000 }, async () => {
  const saved = JSON.parse(readFileSync(join(ROOT, 'build', 'saved-runs', 'standardization.json'), 'utf8'));
  const label = JSON.parse(readFileSync(join(ROOT, 'build', 'lang', 'en.json'), 'utf8')).catalog['ui.saved_run'];
  const opening = { en: label, 'zh-CN': '这是保存的运行结果，不是在这里测得的。', id: 'Hasil tersimpan, bukan diukur di sini.' };
  for (const lang of ['en', 'zh-CN', 'id']) {
    const { page, problems } = await open('/tests/web/fixtures/blank.html');
    const release = await holdModule(page);
    await page.goto(new URL(`/web/?experiment=standardization&lang=${lang}`, page.url()).href);
    await page.waitForFunction(() => !document.getElementById('summary').hidden);
    assert.match(await status(page), /^loading/, `${lang}: the module is still loading`);
    const note = await page.evaluate(() => { const n = document.getElementById('saved-note'); return n.hidden ? null : n.textContent; });
    assert.ok(note?.startsWith(opening[lang]), `${lang}: the label: ${note}`);
    const measuredOn = await page.textContent('#measured-on');
    assert.ok(measuredOn.includes(saved.saved.where) && !measuredOn.includes('⟦'), `${lang}: the summary says where it was measured: ${measuredOn}`);
    assert.equal(await page.evaluate(() => window.__looplab.savedResult.saved.where), saved.saved.where);
    assert.ok(await page.evaluate(() => window.__looplab.plots[0].pointCount()) > 10, `${lang}: the saved run's plot is drawn`);
    assert.equal(await page.evaluate(() => window.__looplab.lastResult), null, `${lang}: no result of this page yet`);
    release();
    await waitForStatus(page, 'ready');
    if (lang === 'en') {
      // A changed value takes the saved run away: it is the defaults' run.
      await page.fill('#param-lr_scaled', '0.05');
      await page.waitForFunction(() => document.getElementById('saved-note').hidden && document.getElementById('summary').hidden);
      await page.fill('#param-lr_scaled', '0.1');
    }
    await page.click('#run');
    await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
    assert.equal(await page.evaluate(() => document.getElementById('saved-note').hidden), true, `${lang}: the live run replaced it`);
    assert.equal(await page.evaluate(() => window.__looplab.lastResult.saved), undefined, `${lang}: the result shown is this page's`);
    await assertClean(page, problems);
    await page.close();
  }
});

// uPlot arrives after the texts (plots/line.js imports it when it runs): if it never does, each line
// plot says so in its box, and the rest of the page still works.
test('a line plot whose uPlot does not arrive says so; the run still finishes', { timeout: 120_000 }, async () => {
  const { page } = await open('/tests/web/fixtures/blank.html');
  await page.route(/uPlot\.esm\.js$/, (route) => route.abort());
  await page.goto(new URL('/web/?experiment=standardization&max_iterations=2000', page.url()).href);
  await waitForStatus(page, 'ready');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const says = await page.evaluate(() => [...document.querySelectorAll('.plot-lines .plot-empty')].map((e) => (e.hidden ? '' : e.textContent)));
  assert.ok(says.length > 0 && says.every((t) => t.startsWith("This plot's code (uplot.js) did not arrive")), JSON.stringify(says));
  assert.ok((await page.textContent('#summary')).length > 50, 'the summary is there');
  await page.close();
});

test('a shared link with other values shows no saved run and does not fetch one', { timeout: 60_000 }, async () => {
  const { page, problems } = await open('/tests/web/fixtures/blank.html');
  const release = await holdModule(page);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(new URL('/web/?experiment=standardization&lr_raw=0.0002', page.url()).href);
  await page.waitForFunction(() => document.querySelectorAll('#controls .field').length > 0);
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => document.getElementById('saved-note').hidden), true);
  assert.deepEqual(requests.filter((p) => p.includes('saved-runs')), []);
  release();
  await waitForStatus(page, 'ready');
  await assertClean(page, problems);
  await page.close();
});

test('Stop drops a run queued while the module loads', { timeout: 60_000 }, async () => {
  const { page, problems } = await open('/tests/web/fixtures/blank.html');
  const release = await holdModule(page);
  await page.goto(new URL('/web/?experiment=standardization', page.url()).href);
  await page.click('#run');
  await page.click('#stop');
  assert.equal(await page.isEnabled('#run'), true, 'Run is back');
  release();
  await waitForStatus(page, 'ready');
  await page.waitForTimeout(300);                 // a run that still started would be under way by now
  assert.equal(await status(page), 'ready');
  assert.equal(await page.evaluate(() => window.__looplab.lastResult), null, 'nothing ran');
  await assertClean(page, problems);
  await page.close();
});
