// Browser tests of the course widgets (issue 5) against the real WebAssembly module, served by
// web/tools/serve.py (COOP/COEP + strict CSP) and driven in Debian's Chromium by playwright-core:
// <looplab-experiment> on a host page, embed.html in an iframe with its postMessage API, the offline
// dist/looplab-standalone.html from file://, keyboard use, a 360 px screen, and hostile text.
//
//   node --test tests/web/widgets.test.mjs      (needs the wasm build and `make dist` for the dist tests)
//
// Screenshots: test-results/widgets-host.png, test-results/widget-360.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RESULTS, ROOT, RUN_TIMEOUT_MS, assertClean, holdModule, useBrowser, waitWidget } from './harness.mjs';

const browser = useBrowser();
const HOST = '/tests/web/fixtures/two-widgets.html';
const STANDALONE = join(ROOT, 'dist', 'looplab-standalone.html');
const HOSTILE = '<img src=x onerror=window.__pwned=1>';

/** Text of the first element matching `inner` inside widget `sel`'s shadow root. */
const shadowText = (page, sel, inner) => page.evaluate(([s, i]) => {
  const n = document.querySelector(s).shadowRoot.querySelector(i);
  return n && !n.hidden ? n.textContent : null;
}, [sel, inner]);

/** Counts <img> elements in the document and every shadow root (hostile text must create none). */
const countImages = (page) => page.evaluate(() => {
  let n = 0;
  const walk = (root) => {
    n += root.querySelectorAll('img').length;
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot);
  };
  walk(document);
  for (const f of document.querySelectorAll('iframe')) if (f.contentDocument) walk(f.contentDocument);
  return n;
});

/** The message the CLI prints for `--set name=value`, without its "looplab: " prefix (when the CLI is built). */
function cliMessage(name, value) {
  const cli = join(ROOT, 'build', 'native', 'looplab');
  if (!existsSync(cli)) return null;
  try {
    execFileSync(cli, ['run', 'standardization', '--set', `${name}=${value}`], { stdio: 'pipe' });
  } catch (e) {
    return String(e.stderr).trim().replace(/^looplab: /, '');
  }
  return '';
}

test('run() while the widget is still loading its module: the run starts once it is ready', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  const release = await holdModule(page);
  await page.goto(new URL(HOST, page.url()).href);
  await page.waitForFunction(() => document.querySelector('#first').status === 'loading');
  // While the worker is held the module's bytes still arrive: the line under Run counts them.
  await page.waitForFunction(() => /\d/.test(document.querySelector('#second').shadowRoot.querySelector('#progress-message').textContent));
  assert.match(await shadowText(page, '#second', '#progress-message'), /^Downloading the WebAssembly module: [\d.]+ [KMG]?B (of [\d.]+ [KMG]?B \(\d+%\)|so far)$/);
  // #first holds its experiment's defaults: the saved run shows at once, labelled; #second's lesson values have none.
  const savedNote = (id) => page.evaluate((w) => { const n = document.querySelector(w).shadowRoot.querySelector('#saved-note'); return n.hidden ? null : n.textContent; }, id);
  await page.waitForFunction(() => !document.querySelector('#first').shadowRoot.querySelector('#saved-note').hidden);
  assert.equal(await savedNote('#first'), 'Saved run, not measured here.');
  assert.match(await page.evaluate(() => document.querySelector('#first').shadowRoot.querySelector('#measured-on').textContent), /^Saved run: measured on Node\.js /);
  assert.equal(await savedNote('#second'), null, 'no saved run for values other than the defaults');
  assert.equal(await page.evaluate(() => document.querySelector('#first').result), null, 'a saved run is no result of this page');
  await page.evaluate(() => { document.querySelector('#first').run(); });
  release();
  await waitWidget(page, '#first', 'done', RUN_TIMEOUT_MS);
  await waitWidget(page, '#second', 'ready');
  assert.equal(await shadowText(page, '#second', '#progress-message'), '', 'the download line goes once the module is ready');
  assert.equal(await page.evaluate(() => document.querySelector('#second').result), null, 'only the widget asked to run ran');
  assert.equal(await savedNote('#first'), null, 'the live run replaced the saved one');
  assert.equal(await page.evaluate(() => document.querySelector('#first').result.saved), undefined);
  await assertClean(page, problems);
});

test('a host that changes a widget\'s values takes its saved run away; back at the defaults it returns', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open(HOST);
  await waitWidget(page, '#first', 'ready');
  const shown = () => page.evaluate(() => {
    const root = document.querySelector('#first').shadowRoot;
    return { note: !root.querySelector('#saved-note').hidden, summary: !root.querySelector('#summary').hidden };
  });
  await page.waitForFunction(() => !document.querySelector('#first').shadowRoot.querySelector('#saved-note').hidden);
  await page.evaluate(() => document.querySelector('#first').setAttribute('lr_scaled', '0.3'));
  await page.waitForFunction(() => document.querySelector('#first').shadowRoot.querySelector('#param-lr_scaled').value === '0.3');
  assert.deepEqual(await shown(), { note: false, summary: false }, 'the defaults\' run is not shown for other values');
  await page.evaluate(() => document.querySelector('#first').setAttribute('lr_scaled', '0.1'));
  await page.waitForFunction(() => !document.querySelector('#first').shadowRoot.querySelector('#saved-note').hidden);
  assert.deepEqual(await shown(), { note: true, summary: true });
  await assertClean(page, problems);
});

test('attributes: bursts coalesce; an invalid value shows the CLI message; hostile text stays text', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open(HOST);
  await waitWidget(page, '#first', 'ready');

  const before = await page.evaluate(() => document.querySelector('#first').updateCount);
  await page.evaluate(() => {
    const w = document.querySelector('#first');
    w.setAttribute('lr_scaled', '0.3');
    setTimeout(() => w.setAttribute('scaling', 'minmax'), 5);
    setTimeout(() => w.setAttribute('lr_scaled', '0.2'), 10);
  });
  await page.waitForFunction((n) => document.querySelector('#first').updateCount > n, before);
  await page.waitForTimeout(200);      // any further (uncoalesced) update would land by now
  assert.equal(await page.evaluate(() => document.querySelector('#first').updateCount), before + 1, 'three changes, one update');
  assert.equal(await page.evaluate(() => document.querySelector('#first').shadowRoot.querySelector('#param-lr_scaled').value), '0.2');

  // lr_raw is fixed by the lesson (not a visible control): its message shows in the widget's error line.
  const expected = cliMessage('lr_raw', '-1') ?? 'lr_raw: must be a number in (0, 10], got -1';
  await page.evaluate(() => document.querySelector('#first').setAttribute('lr_raw', '-1'));
  await waitWidget(page, '#first', 'error');
  assert.equal(await shadowText(page, '#first', '#form-error'), expected);
  await page.evaluate(() => document.querySelector('#first').run());
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => document.querySelector('#first').result), null, 'an invalid config does not run');

  // A visible control's message shows under that control.
  await page.evaluate(() => { const w = document.querySelector('#first'); w.setAttribute('lr_raw', '1e-4'); w.setAttribute('lr_scaled', '0'); });
  await page.waitForFunction(() => /^error: lr_scaled/.test(document.querySelector('#first').status));
  assert.match(await shadowText(page, '#first', '#param-lr_scaled-error'), /^lr_scaled: must be a number in \(0, 10\], got 0$/);
  assert.equal(await shadowText(page, '#first', '#form-error'), null, 'shown once, under the control');

  // Hostile text in an attribute value: shown as text, never parsed.
  await page.evaluate((h) => { const w = document.querySelector('#first'); w.setAttribute('lr_scaled', '0.1'); w.setAttribute('scaling', h); }, HOSTILE);
  await page.waitForFunction(() => /^error: scaling/.test(document.querySelector('#first').status));
  assert.ok((await page.evaluate(() => document.querySelector('#first').status)).includes(HOSTILE), 'the message quotes the value as text');
  assert.equal(await countImages(page), 0, 'no element created from the attribute');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);

  await page.evaluate(() => { const w = document.querySelector('#first'); w.setAttribute('scaling', 'standardize'); w.setAttribute('lr_scaled', '0.1'); });
  await page.waitForFunction(() => document.querySelector('#first').status === 'ready');
  await assertClean(page, problems);
});

test('autorun: a widget below the fold starts its worker and runs only when scrolled into view', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/autorun.html');
  await page.waitForTimeout(1500);
  assert.equal(await page.evaluate(() => document.querySelector('#later').status), 'idle', 'no worker before it is near the viewport');
  await page.locator('#later').scrollIntoViewIfNeeded();
  await waitWidget(page, '#later', 'done', RUN_TIMEOUT_MS);
  assert.ok(await page.evaluate(() => document.querySelector('#later').result.runs.length) >= 2);

  // Moved in the page while running (disconnected, connected again): a new worker, and it runs again.
  // Eager mode makes the run last long enough (seconds) to be caught running: the default traced run
  // can finish between two polls of its status.
  await page.evaluate(() => document.querySelector('#later').setAttribute('mode', 'eager'));
  await page.waitForFunction(() => { const w = document.querySelector('#later'); return w.panel.config().mode === 'eager' && w.status === 'ready'; });
  await page.evaluate(() => { const w = document.querySelector('#later'); w.run(); });
  await waitWidget(page, '#later', 'running');   // an error status fails with its text
  await page.evaluate(() => { const w = document.querySelector('#later'); document.body.prepend(w); w.scrollIntoView(); });
  await page.waitForFunction(() => document.querySelector('#later').status === 'ready');
  await page.evaluate(() => document.querySelector('#later').run());
  await waitWidget(page, '#later', 'done', RUN_TIMEOUT_MS);
  // An unknown experiment names the known ones.
  await page.evaluate(() => document.querySelector('#later').setAttribute('experiment', 'nope'));
  await page.waitForFunction(() => /^error: experiment: unknown experiment "nope"; one of .*standardization/.test(document.querySelector('#later').status));
  await assertClean(page, problems);
});

test('iframe: embed.html with postMessage run, result and resize; wrong shapes ignored', { timeout: 180_000 }, async () => {
  const { page: probe } = await browser.open('/tests/web/fixtures/two-widgets.html');
  const origin = new URL(probe.url()).origin;
  await probe.close();
  // lr_raw: a lesson's own value, so no saved run fills the frame before the run (page.test.mjs has those).
  const embed = new URLSearchParams({ experiment: 'standardization', lr_raw: '0.0002', controls: 'lr_scaled', 'parent-origin': origin });
  const { page, problems } = await browser.open(`/tests/web/fixtures/iframe-host.html?embed=${encodeURIComponent(embed)}`);
  const messages = (type) => page.evaluate((t) => window.__messages.filter((m) => m.data?.type === t).map((m) => m.data), type);
  await page.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'looplab:ready'), null, { timeout: 30_000 });
  const [ready] = await messages('looplab:ready');
  assert.equal(ready.experiment, 'standardization');
  assert.ok(ready.parameters.includes('lr_scaled'));
  assert.ok((await page.evaluate(() => window.__messages)).every((m) => m.origin === origin));

  // Wrong shapes: refused with a reason, nothing runs.
  await page.evaluate(() => {
    window.__send({ type: 'looplab:set', params: 'lr_scaled=0.2' });
    window.__send({ type: 'looplab:set', params: { lr_scaled: { valueOf: 1 } } });
    window.__send({ type: 'looplab:launch' });
    window.__send('looplab:run');             // not an object: not ours, ignored silently
    window.__send([{ type: 'looplab:run' }]);
  });
  await page.waitForFunction(() => window.__messages.filter((m) => m.data?.type === 'looplab:error').length >= 3);
  await page.waitForTimeout(300);
  const errors = await messages('looplab:error');
  assert.equal(errors.length, 3, JSON.stringify(errors));
  assert.ok(errors.every((e) => e.message.startsWith('ignored message: ')));
  assert.equal((await messages('looplab:progress')).length, 0, 'no run started');
  assert.equal(await page.evaluate(() => window.__frame.contentDocument.querySelector('looplab-experiment').status), 'ready');

  // set (including hostile text, then a good value), run -> progress, result, resize.
  await page.evaluate((h) => window.__send({ type: 'looplab:set', params: { lr_raw: h } }), HOSTILE);
  await page.waitForFunction(() => window.__messages.filter((m) => m.data?.type === 'looplab:error').length >= 4);
  assert.match((await messages('looplab:error')).at(-1).message, /^lr_raw: must be a number/);
  assert.equal(await countImages(page), 0, 'no element created from a message');
  const heightBefore = Number(await page.evaluate(() => window.__frame.height));
  await page.evaluate(() => {
    window.__send({ type: 'looplab:set', params: { lr_raw: 1e-4, lr_scaled: 0.2 } });
    setTimeout(() => window.__send({ type: 'looplab:run' }), 300);
  });
  await page.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'looplab:result'), null, { timeout: RUN_TIMEOUT_MS });
  const [result] = await messages('looplab:result');
  assert.equal(result.config.lr_scaled, 0.2, 'set reached the run');
  assert.ok(result.summary.headline.length >= 1 && typeof result.summary.reading === 'string');
  assert.ok((await messages('looplab:progress')).length >= 1, 'progress messages');
  await page.waitForTimeout(300);
  const resizes = await messages('looplab:resize');
  const frameHeight = Number(await page.evaluate(() => window.__frame.height));
  const docHeight = await page.evaluate(() => Math.ceil(window.__frame.contentDocument.documentElement.getBoundingClientRect().height));
  assert.ok(resizes.length >= 2 && resizes.every((r) => Number.isInteger(r.height) && r.height > 0));
  assert.equal(frameHeight, docHeight, 'the host sized the iframe to the last resize message');
  assert.ok(frameHeight > heightBefore, `the iframe grew with the result (${heightBefore} -> ${frameHeight})`);
  await assertClean(page, problems);
});

test('iframe: nothing is sent to, or accepted from, an origin other than parent-origin', { timeout: 60_000 }, async () => {
  const embed = new URLSearchParams({ experiment: 'standardization', 'parent-origin': 'https://course.example' });
  const { page } = await browser.open(`/tests/web/fixtures/iframe-host.html?embed=${encodeURIComponent(embed)}`);
  await page.waitForFunction(() => window.__frame.contentDocument?.querySelector('looplab-experiment')?.status === 'ready', null, { timeout: 30_000 });
  await page.evaluate(() => window.__send({ type: 'looplab:run' }));
  await page.waitForTimeout(500);
  assert.deepEqual(await page.evaluate(() => window.__messages), [], 'no message reached a host of another origin');
  assert.equal(await page.evaluate(() => window.__frame.contentDocument.querySelector('looplab-experiment').status), 'ready', 'its run request was ignored');
});

test('embed.html: hostile URL parameters create no element and run no script', { timeout: 60_000 }, async () => {
  const q = new URLSearchParams({ experiment: 'standardization', lr_raw: HOSTILE, controls: 'all' });
  q.append(HOSTILE, '1');
  const { page, problems } = await browser.open(`/web/embed.html?${q}`);
  await waitWidget(page, 'looplab-experiment', 'error');
  assert.equal(await countImages(page), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.match(await page.textContent('#embed-note'), /ignored URL parameters that are not parameter names: 1/);
  assert.ok((await shadowText(page, 'looplab-experiment', '#param-lr_raw-error')).includes(HOSTILE), 'the value is quoted as text');
  await assertClean(page, problems);
});

test('keyboard only: tab to the control, type a value, run, open the data table', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open(HOST);
  await waitWidget(page, '#first', 'ready');
  const focused = () => page.evaluate(() => {
    let a = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    return a ? `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}:${a.textContent?.trim().slice(0, 40) ?? ''}` : '';
  });
  const tabTo = async (pattern, max = 40) => {
    for (let i = 0; i < max; i++) {
      await page.keyboard.press('Tab');
      if (pattern.test(await focused())) return;
    }
    assert.fail(`Tab never reached ${pattern} (last: ${await focused()})`);
  };
  await tabTo(/^input#param-lr_scaled/);
  await page.keyboard.press('Control+A');
  await page.keyboard.type('0.25');
  await tabTo(/^button#run:Run$/);
  await page.keyboard.press('Enter');
  await waitWidget(page, '#first', 'done', RUN_TIMEOUT_MS);
  assert.equal(await page.evaluate(() => document.querySelector('#first').result.config.lr_scaled), 0.25);
  await tabTo(/^summary:Show data/);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#first').shadowRoot.querySelectorAll('.plot-data[open] tbody tr').length > 10);
  await assertClean(page, problems);
});

test('exports: JSON, CSV, a PNG per chart, and a link that reproduces the configuration', { timeout: 180_000 }, async () => {
  const { page, problems } = await browser.open(HOST);
  await waitWidget(page, '#first', 'ready');
  await page.evaluate(() => document.querySelector('#first').setAttribute('lr_scaled', '0.3'));
  await page.waitForFunction(() => document.querySelector('#first').shadowRoot.querySelector('#param-lr_scaled').value === '0.3');
  await page.evaluate(() => document.querySelector('#first').run());
  await waitWidget(page, '#first', 'done', RUN_TIMEOUT_MS);
  const root = page.locator('#first');
  const save = async (name) => {
    const [d] = await Promise.all([page.waitForEvent('download'), root.getByRole('button', { name }).first().click()]);
    return { name: d.suggestedFilename(), bytes: readFileSync(await d.path()) };
  };
  const json = await save('Results (JSON)');
  assert.equal(JSON.parse(json.bytes.toString()).config.lr_scaled, 0.3);
  const csv = await save('Series (CSV)');
  assert.match(csv.bytes.toString().split('\n')[0], /^series,/);
  const png = await save('Download chart');
  assert.match(png.name, /\.png$/);
  assert.deepEqual([...png.bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'PNG signature');
  assert.ok(png.bytes.length > 5000, `PNG has content (${png.bytes.length} B)`);

  await root.getByRole('button', { name: 'Copy link' }).click();
  await page.waitForFunction(() => /link/.test(document.querySelector('#first').status));
  const link = await page.evaluate(() => document.querySelector('#first').link());
  const q = new URL(link).searchParams;
  assert.equal(q.get('experiment'), 'standardization');
  assert.equal(q.get('lr_scaled'), '0.3');
  assert.equal(Number(q.get('lr_raw')), 1e-4, 'fixed parameters are in the link too');
  // The full page reads the link back into the same configuration.
  const { page: full } = await browser.open(new URL(link).pathname + new URL(link).search);
  await full.waitForFunction(() => window.__looplab?.status === 'ready', null, { timeout: 30_000 });
  assert.equal(await full.inputValue('#param-lr_scaled'), '0.3');
  await full.close();
  await assertClean(page, problems);
});

test('360 px wide: no horizontal scrolling, controls usable; screenshot', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open(HOST);
  await page.setViewportSize({ width: 360, height: 780 });
  await waitWidget(page, '#first', 'ready');
  await waitWidget(page, '#second', 'ready');
  await page.waitForTimeout(200);
  const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, first: document.querySelector('#first').getBoundingClientRect().width }));
  assert.ok(widths.doc <= 360, `page scroll width at 360 px: ${widths.doc}`);
  const run = await page.evaluate(() => document.querySelector('#first').shadowRoot.querySelector('button.primary').getBoundingClientRect().height);
  assert.ok(run >= 40, `Run button is a usable touch target (${run} px)`);
  await page.screenshot({ path: join(RESULTS, 'widget-360.png'), fullPage: true });
  await assertClean(page, problems);
});

test('prefers-color-scheme and prefers-reduced-motion: theme auto follows the reader; no live redraws', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  await page.goto(new URL(HOST, page.url()).href);
  await waitWidget(page, '#first', 'ready');
  const ground = () => page.evaluate(() => getComputedStyle(document.querySelector('#first').shadowRoot.querySelector('.widget')).backgroundColor);
  assert.equal(await ground(), 'rgb(21, 27, 36)', 'no theme attribute + a dark-scheme reader: dark');
  await page.evaluate(() => document.querySelector('#first').setAttribute('theme', 'light'));
  assert.equal(await ground(), 'rgb(255, 255, 255)', 'theme="light" wins');
  await page.waitForTimeout(100);       // the coalesced update for theme has landed
  const updates = await page.evaluate(() => document.querySelector('#first').updateCount);

  // Reduced motion: the plot is drawn once, from the result, not redrawn on every progress message.
  const counts = await page.evaluate(async () => {
    const w = document.querySelector('#first');
    const seen = [];
    w.addEventListener('looplab-progress', () => seen.push(w.plots[0].pointCount()));
    setTimeout(() => w.setAttribute('compact', ''), 50);   // styling while it runs: the run goes on
    await w.run();
    return { during: seen, after: w.plots[0].pointCount(), status: w.status };
  });
  assert.equal(counts.status, 'done');
  assert.equal(await page.evaluate(() => document.querySelector('#first').updateCount), updates + 1, 'compact during the run: one styling update, the run not stopped');
  assert.ok(counts.during.length > 1 && counts.during.every((n) => n === 0), `points while running: ${counts.during.slice(0, 5)}`);
  assert.ok(counts.after > 0, 'drawn at the end');
  await assertClean(page, problems);
});

test('dist/: the static site serves the widget and embed.html; the standalone file runs from file://', { timeout: 180_000 }, async () => {
  assert.ok(existsSync(STANDALONE), 'dist/looplab-standalone.html exists (run `make dist`)');
  const { page: site, problems: siteProblems } = await browser.open('/dist/embed.html?experiment=standardization&controls=all');
  await waitWidget(site, 'looplab-experiment', 'ready');
  await assertClean(site, siteProblems);
  await site.close();

  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  await page.goto(`${pathToFileURL(STANDALONE)}?experiment=standardization`);
  await waitWidget(page, 'looplab-experiment', 'ready');
  assert.equal(await page.evaluate(() => location.protocol), 'file:');
  await page.locator('looplab-experiment').getByRole('button', { name: 'Run' }).click();
  await waitWidget(page, 'looplab-experiment', 'done', RUN_TIMEOUT_MS);
  const result = await page.evaluate(() => document.querySelector('looplab-experiment').result);
  const scaled = result.runs.find((r) => r.variant === 'scaled');
  assert.ok(Math.abs(scaled.iterations_to_tolerance - 39) <= 2, `scaled reached tolerance at ${scaled.iterations_to_tolerance}`);
  assert.ok(await page.evaluate(() => document.querySelectorAll('#experiment option').length) >= 2, 'the picker lists the experiments');
  const [png] = await Promise.all([page.waitForEvent('download'),
    page.locator('looplab-experiment').getByRole('button', { name: 'Download chart' }).first().click()]);
  assert.deepEqual([...readFileSync(await png.path()).subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG from file:// too');
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'its own meta CSP is not violated');

  // Compiled mode from file:// too: the step generated as a WebAssembly module at run time, which
  // the file's meta CSP must allow ('wasm-unsafe-eval').
  await page.goto(`${pathToFileURL(STANDALONE)}?experiment=standardization&mode=compiled`);
  await waitWidget(page, 'looplab-experiment', 'ready');
  await page.locator('looplab-experiment').getByRole('button', { name: 'Run' }).click();
  await waitWidget(page, 'looplab-experiment', 'done', RUN_TIMEOUT_MS);
  const compiled = await page.evaluate(() => document.querySelector('looplab-experiment').result);
  for (const run of compiled.runs) {
    assert.equal(run.mode, 'compiled', `${run.variant} ran compiled`);
    assert.match(run.generated_code, /^\(module/, `${run.variant}: its generated WebAssembly text`);
  }
  const scaledCompiled = compiled.runs.find((r) => r.variant === 'scaled');
  assert.ok(Math.abs(scaledCompiled.iterations_to_tolerance - 39) <= 2, `compiled: scaled at ${scaledCompiled.iterations_to_tolerance}`);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'compiled mode keeps to the meta CSP');
  assert.deepEqual(problems, []);
});

test('author page: its HTML and iframe snippets run on a host page; the gallery has every experiment', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open('/web/author.html');
  await waitWidget(page, '#preview-widget', 'ready');
  await page.fill('#param-lr_raw', '3e-4');
  await page.check('#visible-scaling');
  await page.waitForFunction(() => /lr_raw="3e-4"/.test(document.querySelector('[data-snippet=html] code').textContent));
  const html = await page.textContent('[data-snippet=html] code');
  assert.match(html, /^<script type="module" src="http:\/\/127\.0\.0\.1:\d+\/web\/looplab-widgets\.js"><\/script>\n<looplab-experiment experiment="standardization" lr_raw="3e-4" controls="lr_scaled scaling"><\/looplab-experiment>$/);
  const iframe = (await page.textContent('[data-snippet=lms-iframe] code')).split('\n\n')[0];
  for (const id of ['myst', 'quarto', 'mkdocs', 'reveal']) {
    assert.ok((await page.textContent(`[data-snippet=${id}] code`)).includes('<looplab-experiment experiment="standardization" lr_raw="3e-4"'), id);
  }
  // The preview follows the editor.
  await page.waitForFunction(() => document.querySelector('#preview-widget').getAttribute('lr_raw') === '3e-4');

  // Gallery: one widget per experiment, each loads its experiment when scrolled into view.
  const ids = await page.evaluate(() => document.querySelector('#preview-widget').experiments.map((x) => x.id));
  assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#gallery looplab-experiment')].map((w) => w.getAttribute('experiment'))), ids);
  for (const id of ids) {
    const sel = `#gallery looplab-experiment[experiment="${id}"]`;
    await page.locator(sel).scrollIntoViewIfNeeded();
    await waitWidget(page, sel, 'ready', 60_000);
  }
  await assertClean(page, problems);
  await page.close();

  // The snippets, pasted into host pages served under the same strict CSP.
  const host = (body) => `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>snippet</title><link rel="icon" href="data:,"></head>\n<body>\n${body}\n</body></html>\n`;
  writeFileSync(join(RESULTS, 'snippet-html.html'), host(html));
  writeFileSync(join(RESULTS, 'snippet-iframe.html'), host(iframe));
  const { page: p1, problems: pr1 } = await browser.open('/test-results/snippet-html.html');
  await waitWidget(p1, 'looplab-experiment', 'ready');
  await p1.evaluate(() => document.querySelector('looplab-experiment').run());
  await waitWidget(p1, 'looplab-experiment', 'done', RUN_TIMEOUT_MS);
  assert.equal(await p1.evaluate(() => document.querySelector('looplab-experiment').result.config.lr_raw), 3e-4);
  await assertClean(p1, pr1);
  const { page: p2, problems: pr2 } = await browser.open('/test-results/snippet-iframe.html');
  await p2.waitForFunction(() => document.querySelector('iframe').contentDocument?.querySelector('looplab-experiment')?.status === 'ready', null, { timeout: 30_000 });
  assert.equal(await p2.evaluate(() => document.querySelector('iframe').contentDocument.querySelector('looplab-experiment').getAttribute('lr_raw')), '3e-4');
  await assertClean(p2, pr2);
});

test('author page in dist/: the preset standalone file keeps the lesson settings from file://', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open('/dist/author.html');
  await waitWidget(page, '#preview-widget', 'ready');
  await page.fill('#param-lr_scaled', '0.3');
  await page.waitForFunction(() => /lr_scaled="0.3"/.test(document.querySelector('[data-snippet=html] code').textContent));
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('#download-standalone')]);
  const saved = join(RESULTS, d.suggestedFilename());
  await d.saveAs(saved);
  assert.equal(d.suggestedFilename(), 'looplab-standalone.html'.replace('standalone', 'standardization'));
  await assertClean(page, problems);
  await page.goto(pathToFileURL(saved).href);
  await waitWidget(page, 'looplab-experiment', 'ready');
  assert.equal(await page.evaluate(() => document.querySelector('looplab-experiment').shadowRoot.querySelector('#param-lr_scaled').value), '0.3');
  assert.equal(await page.evaluate(() => document.querySelector('looplab-experiment').getAttribute('controls')), 'lr_scaled');
});
