// Browser tests of the languages (issue 14): the page in zh-CN runs every experiment (small configs)
// with no missing catalog key (⟦key⟧) and no console error; the page in id runs standardization; a
// screenshot of standardization after a run per language (test-results/lang-<lang>-standardization.png
// and -summary.png; English: page.test.mjs's page.png); <looplab-experiment lang="id"> inside a Chinese host
// page speaks Indonesian and the widget without lang follows the host (zh-CN), both usable at 360 px.
//
//   node --test tests/web/languages.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, useBrowser, waitForStatus } from './harness.mjs';
import { CATALOGS } from '../../web/util/catalogs.js';

const browser = useBrowser();

// The small configs of tests/core/experiments/small_runs.hpp, as control values.
const SMALL = {
  standardization: { data: 'synthetic', n: '300', max_iterations: '3000' },
  'execution-modes': { n: '1000', batch: '50', epochs: '2' },
  unroll: { n: '1000', batch: '100', epochs: '1' },
  retracing: { n: '300' },
  'call-granularity': { n: '1000', epochs: '3', chunk_ms: '0.5' },
  overhead: { n_max: '1000', points: '3', repeats: '1', chunk_ms: '0.2' },
  matrix: { rows_small: '2', rows_medium: '4', rows_large: '8', repeats: '1', chunk_ms: '0.2' },
  pipelines: { n: '1000', epochs: '2' },
};

const pageText = (page) => page.evaluate(() => document.body.innerText);

/** Sets the controls to `values` (inputs and selects), then waits for the core's verdict. */
async function setValues(page, values) {
  for (const [name, value] of Object.entries(values)) {
    const tag = await page.evaluate((n) => document.getElementById(`param-${n}`)?.tagName, name);
    if (tag === 'SELECT') await page.selectOption(`#param-${name}`, value);
    else await page.fill(`#param-${name}`, value);
  }
  await page.waitForTimeout(200);        // the validation delay (120 ms), then the worker's answer
  await waitForStatus(page, 'ready');
}

const CJK = /[\u4e00-\u9fff]/;
const SHOWN_APART = new Set(['headline', 'reading', 'answer', 'comparisons', 'beside_quoted', 'messages']);
const RESULT_KEYS = new Set(['experiment', 'config', 'environment', 'series', 'runs', 'summary']);

/** The keys the page shows as headings: the runs' and extra tables' columns, the tables, the other summary values. */
function headingKeys(result) {
  const keys = new Set();
  for (const [key, rows] of Object.entries(result)) {
    if (!Array.isArray(rows) || key === 'series' || (RESULT_KEYS.has(key) && key !== 'runs')) continue;
    if (key !== 'runs') keys.add(key);
    for (const r of rows) for (const k of Object.keys(r)) keys.add(k);
  }
  for (const k of Object.keys(result.summary)) if (!SHOWN_APART.has(k)) keys.add(k);
  return [...keys];
}

/** English left in a finished run's summary fails here: the verdicts, explanations, headings and comparison names are Chinese. */
async function assertChinese(page, id) {
  for (const sel of ['#answer', '#reading']) assert.match(await page.textContent(sel), CJK, `${id}: ${sel} is not Chinese`);
  for (const label of await page.locator('#headline .card-label').allTextContents()) assert.match(label, CJK, `${id}: headline "${label}" is not Chinese`);
  const result = await page.evaluate(() => window.__looplab.lastResult);
  const shown = (await page.evaluate(() => window.__progressShown)).filter((m) => /\d/.test(m));
  assert.ok(shown.every((m) => CJK.test(m) || /^(k = \d+|\w+：N = [\d,]+)$/.test(m)), `${id}: a progress message not in Chinese: ${shown.find((m) => !CJK.test(m))}`);
  const zh = CATALOGS['zh-CN'];
  for (const key of headingKeys(result)) assert.ok(zh[`field.${key}`], `${id}: no Chinese heading for "${key}"`);
  // unroll's comparison names follow its k values (step_k<k>_vs_k1): only the default ones are named.
  for (const c of result.summary.comparisons) assert.ok(id === 'unroll' || zh[`cmp_id.${c.id}`], `${id}: no Chinese name for comparison "${c.id}"`);
}

async function runAndCheck(page, id, lang) {
  // Every progress message the page shows during the run.
  await page.evaluate(() => {
    const shown = window.__progressShown = [];
    new MutationObserver(() => shown.push(document.getElementById('progress-message').textContent))
      .observe(document.getElementById('progress-message'), { childList: true, characterData: true, subtree: true });
  });
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  const text = await pageText(page);
  assert.ok(!text.includes('⟦'), `${lang} ${id}: a missing key: ${text.match(/⟦[^⟧]*⟧/)?.[0]}`);
  return text;
}

test('the page in 简体中文 runs every experiment: every text from the catalogs, none missing', { timeout: 240_000 }, async () => {
  const { page, problems } = await browser.open(`/web/?lang=zh-CN&experiment=standardization&${new URLSearchParams(SMALL.standardization)}`);
  await waitForStatus(page, 'ready');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal(await page.textContent('#run'), '运行');
  assert.equal(await page.textContent('#title'), '为什么缩放输入能让训练更快？');
  assert.equal(await page.inputValue('#lang'), 'zh-CN');

  // A bad value: the core's message in Chinese, under the control it names (its CLI name).
  await page.fill('#param-lr_raw', '-1');
  await waitForStatus(page, 'error');
  assert.equal(await page.textContent('#param-lr_raw-error'), 'lr_raw: 必须是区间 (0, 10] 内的数，实际为 -1');
  await page.fill('#param-lr_raw', '0.0001');
  await page.waitForFunction(() => window.__looplab.status === 'ready', null, { timeout: 10_000, polling: 50 });

  const text = await runAndCheck(page, 'standardization', 'zh-CN');
  await assertChinese(page, 'standardization');
  const answer = await page.textContent('#answer');
  assert.match(answer, /原始 x/, 'the answer, computed from the run, in Chinese');
  assert.match(await page.textContent('#comparisons'), /最终损失低于/, 'the verdicts in Chinese');
  assert.match(text, /达到 1\.0e-06 相对差距所需的迭代次数/);
  assert.match(text, /waktu eksekusi sekitar 40 detik/, 'a quoted figure keeps the thread\'s own words');
  assert.ok(new URL(page.url()).searchParams.get('lang') === 'zh-CN', 'the language is in the shared link');
  await page.screenshot({ path: join(RESULTS, 'lang-zh-CN-standardization.png'), fullPage: true });
  await page.locator('#summary').screenshot({ path: join(RESULTS, 'lang-zh-CN-summary.png') });

  for (const id of Object.keys(SMALL).filter((x) => x !== 'standardization')) {
    await page.selectOption('#experiment', id);
    await waitForStatus(page, 'ready');
    await setValues(page, SMALL[id]);
    assert.equal(await page.textContent('#title'), await page.evaluate(() => window.__looplab.describe.question));
    await runAndCheck(page, id, 'zh-CN');
    await assertChinese(page, id);
    assert.match(await page.textContent('#summary-title'), /本次运行测得的结果/);
  }
  await assertClean(page, problems);
});

// English: page.test.mjs runs it and writes test-results/page.png.
for (const lang of ['id']) {
  test(`the page in ${lang}: standardization after a run (screenshot)`, { timeout: 120_000 }, async () => {
    const { page, problems } = await browser.open(`/web/?lang=${lang}&experiment=standardization&${new URLSearchParams(SMALL.standardization)}`);
    await waitForStatus(page, 'ready');
    await runAndCheck(page, 'standardization', lang);
    const answer = await page.textContent('#answer');
    assert.equal(await page.textContent('#run'), 'Jalankan');
    assert.match(answer, /x mentah/);
    assert.notEqual(answer, await page.evaluate(() => window.__looplab.lastResult.summary.answer), 'not the core\'s English');
    assert.match(await page.textContent('#comparisons'), /berakhir pada loss yang lebih rendah/);
    assert.match(await page.textContent('#headline'), /tidak tercapai dalam 3\.000/, 'numbers grouped the Indonesian way');
    await page.screenshot({ path: join(RESULTS, `lang-${lang}-standardization.png`), fullPage: true });
    await page.locator('#summary').screenshot({ path: join(RESULTS, `lang-${lang}-summary.png`) });
    await assertClean(page, problems);
  });
}

test('<looplab-experiment lang="id"> in a Chinese host page, and one that follows the host, at 360 px', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open('/tests/web/fixtures/blank.html');
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(new URL('/tests/web/fixtures/lang-widgets.html', page.url()).href);
  const shadowText = (sel, inner) => page.evaluate(([s, i]) => document.querySelector(s).shadowRoot.querySelector(i)?.textContent, [sel, inner]);
  await page.waitForFunction(() => ['#id-widget', '#page-lang'].every((s) => document.querySelector(s).status === 'ready'), null, { timeout: 30_000 });
  assert.equal(await shadowText('#id-widget', '#run'), 'Jalankan');
  assert.equal(await shadowText('#page-lang', '#run'), '运行', 'no lang attribute: the host page\'s <html lang>');
  const result = await page.evaluate(() => document.querySelector('#id-widget').run().then(() => document.querySelector('#id-widget').status));
  assert.equal(result, 'done');
  assert.match(await shadowText('#id-widget', '#answer'), /x mentah/);
  // Usable at 360 px: nothing wider than the viewport, the Run button inside it.
  const layout = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    widgets: ['#id-widget', '#page-lang'].map((s) => {
      const root = document.querySelector(s).shadowRoot;
      const run = root.querySelector('#run').getBoundingClientRect();
      const cards = [...root.querySelectorAll('.card')].map((c) => c.scrollWidth - c.clientWidth);
      return { runRight: run.right, overflow: Math.max(0, ...cards) };
    }),
  }));
  assert.ok(layout.page <= 360, `page width ${layout.page}`);
  for (const w of layout.widgets) {
    assert.ok(w.runRight <= 360, `Run inside the viewport: ${w.runRight}`);
    assert.equal(w.overflow, 0, 'no card clips its text');
  }
  await page.screenshot({ path: join(RESULTS, 'lang-widgets-360.png'), fullPage: true });
  await page.evaluate(() => document.querySelector('#id-widget').shadowRoot.querySelector('#summary').scrollIntoView());
  await page.screenshot({ path: join(RESULTS, 'lang-widgets-360-summary.png') });   // the viewport: the verdicts at 360 px
  await page.evaluate(() => document.querySelector('#page-lang').scrollIntoView());
  await page.screenshot({ path: join(RESULTS, 'lang-widgets-360-zh.png') });
  await assertClean(page, problems);
});
