// Browser tests of the languages (issue 14): the page in zh-CN runs every experiment (small configs)
// with no missing catalog key (⟦key⟧), no console error and no English sentence left in what a
// finished run shows (tables, other numbers, verdicts, errors); the page in id runs standardization
// and retracing; the authoring page and the embed's postMessage errors in zh-CN; a
// screenshot of standardization after a run per language (test-results/lang-<lang>-standardization.png
// and -summary.png; English: page.test.mjs's page.png) and of the standardization and call-granularity
// summaries (lang-<lang>-<id>-summary.png); no number written the English way in Indonesian; <looplab-experiment lang="id"> inside a Chinese host
// page speaks Indonesian and the widget without lang follows the host (zh-CN), both usable at 360 px.
//
//   node --test tests/web/languages.test.mjs   (needs `npm ci`, the wasm build, /usr/bin/chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RESULTS, RUN_TIMEOUT_MS, assertClean, useBrowser, waitForStatus } from './harness.mjs';
import { readCatalogs } from '../../web/tools/language-files.mjs';

const browser = useBrowser();

// The small configs of tests/core/experiments/small_runs.hpp, as control values.
const SMALL = {
  standardization: { data: 'synthetic', n: '300', max_iterations: '3000' },
  'execution-modes': { n: '1000', batch: '50', epochs: '2' },
  unroll: { n: '1000', batch: '100', epochs: '1' },
  retracing: { n: '300' },
  'call-granularity': { n: '1000', epochs: '3', chunk_ms: '0.5' },
  overhead: { n_max: '1000', points: '3', repeats: '1', chunk_ms: '0.2' },
  matrix: { rows_small: '2', rows_medium: '4', rows_large: '8', repeats: '1', chunk_ms: '0.2', max_seconds: '0' },
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
const SHOWN_APART = new Set(['headline', 'reading', 'answer', 'comparisons', 'beside_quoted', 'messages', 'run_longer']);
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

// Three Latin-script words in a row: an English phrase ("first call", "native C++ in …"). Ids and
// code ("train_on_batch", "k = all", "[100 x 1]") are one word or none.
const LATIN_SENTENCE = /[A-Za-z]+[,;:]? [A-Za-z]+[,;:]? [A-Za-z]+/;

/** The texts of a finished run's tables (runs, the extra tables, the other numbers) and comparisons. */
const tableTexts = (page) => page.evaluate(() => [...document.querySelectorAll(
  '#runs caption, #runs summary, #runs th, #runs td, #summary-extra h3, #summary-extra dt, #summary-extra dd, #summary-extra th, #summary-extra td, #comparisons caption, #comparisons th, #comparisons td')]
  .map((n) => n.textContent.trim()).filter(Boolean));

/** English left in a finished run's summary fails here: the verdicts, explanations, headings, comparison names and table cells are Chinese. */
async function assertChinese(page, id) {
  for (const sel of ['#answer', '#reading']) assert.match(await page.textContent(sel), CJK, `${id}: ${sel} is not Chinese`);
  for (const label of await page.locator('#headline .card-label').allTextContents()) assert.match(label, CJK, `${id}: headline "${label}" is not Chinese`);
  const result = await page.evaluate(() => window.__looplab.lastResult);
  const shown = (await page.evaluate(() => window.__progressShown)).filter((m) => /\d/.test(m));
  assert.ok(shown.every((m) => CJK.test(m) || /^(k = \d+|\w+：N = [\d,]+)$/.test(m)), `${id}: a progress message not in Chinese: ${shown.find((m) => !CJK.test(m))}`);
  const zh = readCatalogs()['zh-CN'];
  for (const key of headingKeys(result)) assert.ok(zh[`field.${key}`], `${id}: no Chinese heading for "${key}"`);
  // unroll's comparison names follow its k values (step_k<k>_vs_k1): only the default ones are named.
  for (const c of result.summary.comparisons) assert.ok(zh[`cmp_id.${c.id}`] || zh[`cmp_id.${c.id.replace(/\d+/, '#')}`], `${id}: no Chinese name for comparison "${c.id}"`);
  // Every text cell and text value of the tables and the other numbers, every comparison's name and verdict.
  await page.evaluate(() => { document.querySelector('#summary details.more').open = true; });
  const english = (await tableTexts(page)).filter((text) => LATIN_SENTENCE.test(text));
  assert.deepEqual(english, [], `${id}: English in the tables`);
  const dumped = (await tableTexts(page)).filter((text) => /^[[{]"/.test(text));
  assert.deepEqual(dumped, [], `${id}: raw JSON in the tables`);
  // Mixed-script artefacts: a space between two Han characters (a template's space beside a Chinese label).
  const spaced = (await pageText(page)).match(/.{0,12}[\u4e00-\u9fff] [\u4e00-\u9fff].{0,12}/g) ?? [];
  assert.deepEqual(spaced, [], `${id}: a space between two Han characters`);
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

test('the page in 简体中文: the text cells and values a student reads in a finished run', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open(`/web/?lang=zh-CN&experiment=retracing&${new URLSearchParams(SMALL.retracing)}`);
  await waitForStatus(page, 'ready');
  await runAndCheck(page, 'retracing', 'zh-CN');
  const result = await page.evaluate(() => window.__looplab.lastResult);
  assert.equal(result.runs[0].reason, 'first call', 'the result keeps its English text');
  assert.equal(await page.textContent('#runs table tbody tr:first-child td:nth-of-type(3)'), '首次调用', 'the reason column in Chinese');
  // standardization's theory: a table per variant, with headings, not a line of JSON.
  await page.selectOption('#experiment', 'standardization');
  await waitForStatus(page, 'ready');
  await setValues(page, SMALL.standardization);
  await runAndCheck(page, 'standardization', 'zh-CN');
  const theory = page.locator('#summary-extra .value-table').filter({ hasText: '理论' });
  assert.equal(await theory.count(), 1, 'the theory as a table');
  assert.match(await theory.textContent(), /原始 x.*缩放后的 x.*条件数/s);
  const box = await theory.boundingBox();
  const panel = await page.locator('#summary').boundingBox();
  assert.ok(box.x + box.width <= panel.x + panel.width + 1, `the theory table fits the summary (${box.x + box.width} > ${panel.x + panel.width})`);
  await assertClean(page, problems);
});

test('the page in 简体中文: matrix\'s heatmap rows and columns, the unroll comparison of any k', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open(`/web/?lang=zh-CN&experiment=matrix&${new URLSearchParams(SMALL.matrix)}`);
  await waitForStatus(page, 'ready');
  await runAndCheck(page, 'matrix', 'zh-CN');
  const labels = await page.evaluate(() => [...document.querySelectorAll('.plot-box svg text')].map((n) => n.textContent));
  assert.ok(labels.some((l) => /^小（8→16→1）$/.test(l)), `the heatmap's model names in Chinese: ${labels.join(' | ')}`);
  assert.ok(labels.some((l) => /^大（8 行）$/.test(l)), `the heatmap's data names in Chinese: ${labels.join(' | ')}`);
  assert.ok(!labels.some((l) => LATIN_SENTENCE.test(l) || / rows\)$/.test(l)), labels.join(' | '));
  await page.selectOption('#experiment', 'unroll');
  await waitForStatus(page, 'ready');
  await setValues(page, { n: '1000', batch: '25', epochs: '3', max_seconds: '0' });   // 40 batches: k = 2, 4, 8, 20, 40 or so; paired rounds from epoch 3
  await runAndCheck(page, 'unroll', 'zh-CN');
  await assertChinese(page, 'unroll');
  const names = await page.locator('#comparisons tbody th').allTextContents();
  assert.ok(names.length > 1 && names.every((n) => CJK.test(n)), names.join(' | '));
  await assertClean(page, problems);
});

test('the page in 简体中文: a bad CSV file is refused in Chinese, naming its line and column', { timeout: 60_000 }, async () => {
  const { page, problems } = await browser.open('/web/?lang=zh-CN&experiment=standardization');
  await waitForStatus(page, 'ready');
  await page.setInputFiles('#data-file', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('x,y\n1,2\n3,abc\n') });
  await page.waitForSelector('#data-error:not([hidden])');
  assert.equal(await page.textContent('#data-error'), 'csv 第 3 行（第 2 个数据行），列 "y"："abc" 不是数');
  await waitForStatus(page, 'error');
  await assertClean(page, problems);
});

test('the page in Bahasa Indonesia: retracing\'s reasons and the other numbers', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open(`/web/?lang=id&experiment=retracing&${new URLSearchParams(SMALL.retracing)}`);
  await waitForStatus(page, 'ready');
  await runAndCheck(page, 'retracing', 'id');
  const result = await page.evaluate(() => window.__looplab.lastResult);
  const reasons = await page.locator('#runs table').first().locator('tbody tr td:nth-of-type(3)').allTextContents();
  assert.equal(reasons.length, result.runs.length);
  assert.equal(reasons[0], 'panggilan pertama');
  reasons.forEach((r, i) => assert.notEqual(r, result.runs[i].reason, `row ${i}: the core's English`));
  await assertClean(page, problems);
});

// A number written the English way where Indonesian is shown: a decimal point ("3.41", "0.0125") or
// a decimal comma grouped like thousands would be ambiguous, so only the unambiguous English forms:
// '.' followed by 1–2 or 4+ digits (Indonesian groups by three after '.'). Quoted versions
// (TensorFlow 2.4, Python 3.10) and addresses are not numbers a student reads as a quantity.
const ENGLISH_DECIMAL = /(?<![\d.,])\d+\.(\d{1,2}|\d{4,})(?![\d.,])/g;
const NOT_A_QUANTITY = /https?:\S+|\barange\([^)]*\)|\b(TensorFlow|TF|tf|Python|Chromium|Chrome|Node|node|V8|Emscripten|emcc|C\+\+|uPlot|Eigen)[ /v]*\d+(\.\d+)*\S*|\b\d+\.\d+\.\d+\S*/g;

/**
 * Every text a finished run shows in a root (the document or a widget's shadow root): each text node
 * outside code (values as one types them: the controls, their ranges and defaults), the plots' SVG
 * text and aria-labels, the line plots' tick labels.
 */
const shownTexts = (page, host) => page.evaluate((sel) => {
  const root = sel ? document.querySelector(sel).shadowRoot : document;
  const texts = [];
  const walker = document.createTreeWalker(sel ? root : document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.closest('code, pre, select, script, style')) texts.push(node.textContent);
  }
  for (const node of root.querySelectorAll('[aria-label]')) texts.push(node.getAttribute('aria-label'));
  const plots = sel ? document.querySelector(sel).plots ?? [] : window.__looplab.plots;
  for (const p of plots) for (const axis of p.uplot?.axes ?? []) texts.push((axis._values ?? []).join(' '));
  return texts.filter(Boolean);
}, host);

function assertIndonesianNumbers(texts, where) {
  const english = texts.flatMap((t) => {
    const text = t.replace(NOT_A_QUANTITY, '');
    return [...text.matchAll(ENGLISH_DECIMAL)].map((m) => `${m[0]} in "…${text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 10)}…"`);
  });
  assert.deepEqual(english, [], `${where}: numbers written the English way`);
}

test('the page in Bahasa Indonesia: every number written the Indonesian way (tables, verdicts, plots)', { timeout: 180_000 }, async () => {
  for (const id of ['standardization', 'call-granularity', 'overhead', 'matrix']) {
    const { page, problems } = await browser.open(`/web/?lang=id&experiment=${id}&${new URLSearchParams(SMALL[id])}`);
    await waitForStatus(page, 'ready');
    await runAndCheck(page, id, 'id');
    await page.evaluate(() => { document.querySelector('#summary details.more').open = true; });
    const texts = await shownTexts(page, null);
    assert.ok(texts.join(' ').match(/\d,\d/), `${id}: some decimal comma is shown`);
    assertIndonesianNumbers(texts, id);
    if (id === 'call-granularity') await page.locator('#summary').screenshot({ path: join(RESULTS, `lang-id-${id}-summary.png`) });
    await assertClean(page, problems);
    await page.close();
  }
});

test('the authoring page and the embed\'s messages to the host in 简体中文', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open('/web/author.html?lang=zh-CN');
  await page.waitForFunction(() => document.querySelector('#preview-widget')?.status === 'ready', null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.title), 'looplab · 把实验嵌入你的课程');
  const texts = await page.evaluate(() => [...document.querySelectorAll('.hint, .options label, #opt-theme option, .snippet .hint, .snippet button, .standalone p')]
    .map((n) => n.textContent.replace(/\s+/g, ' ').trim()).filter(Boolean));
  assert.ok(texts.length > 10, texts.join(' | '));
  assert.deepEqual(texts.filter((t) => LATIN_SENTENCE.test(t.replace(/https?:\S+|\S+\.(js|yml|html)\b|extra_javascript:.*|myst-parser|Python-Markdown|Jupyter Book|MkDocs 1\.5\+/g, ''))), [], 'English left on the authoring page');
  assert.ok(await page.locator('#opt-autorun').isVisible(), 'the checkbox is kept inside its translated label');
  assert.equal(await page.textContent('.hint strong'), '读者可修改');
  assert.match(await page.textContent('[data-snippet=reveal] code'), /<h2>为什么缩放输入能让训练更快？<\/h2>/, 'the sample slide asks the experiment\'s question in the lesson\'s language');
  await assertClean(page, problems);
  await page.close();

  const { page: probe } = await browser.open('/tests/web/fixtures/blank.html');
  const origin = new URL(probe.url()).origin;
  await probe.close();
  const embed = new URLSearchParams({ experiment: 'standardization', lang: 'zh-CN', 'parent-origin': origin });
  const { page: host, problems: hostProblems } = await browser.open(`/tests/web/fixtures/iframe-host.html?embed=${encodeURIComponent(embed)}`);
  await host.waitForFunction(() => window.__messages.some((m) => m.data?.type === 'looplab:ready'), null, { timeout: 30_000 });
  await host.evaluate(() => {
    window.__send({ type: 'looplab:set', params: 'lr_scaled=0.2' });
    window.__send({ type: 'looplab:set', params: { lr_scaled: { valueOf: 1 } } });
    window.__send({ type: 'looplab:launch' });
    window.__send({ type: 'looplab:set', params: { lr_raw: -1 } });
  });
  await host.waitForFunction(() => window.__messages.filter((m) => m.data?.type === 'looplab:error').length >= 4, null, { timeout: 10_000 });
  const errors = await host.evaluate(() => window.__messages.filter((m) => m.data?.type === 'looplab:error').map((m) => m.data.message));
  assert.deepEqual(errors.slice(0, 3), ['已忽略消息：looplab:set 需要 params: {name: value}',
    '已忽略消息：looplab:set: lr_scaled 必须是字符串、数字或布尔值',
    '已忽略消息：未知的 type（应为 looplab:run、looplab:stop 或 looplab:set）']);
  assert.match(errors[3], /^lr_raw: 必须是区间/, 'the widget\'s own error in the same language');
  await assertClean(host, hostProblems);
});

test('the page in 简体中文: a worker that stops responding is reported in Chinese', { timeout: 120_000 }, async () => {
  const { page } = await browser.open('/web/?lang=zh-CN&experiment=standardization&max_iterations=10000000&tolerance=1e-12&mode=eager');
  await waitForStatus(page, 'ready');
  await page.click('#run');
  await waitForStatus(page, 'running');
  await page.waitForFunction(() => /[1-9]/.test(document.getElementById('progress-message').textContent), null, { timeout: 30_000, polling: 20 });
  await page.workers()[0].evaluate(() => { setTimeout(() => self.close(), 0); });
  await page.waitForFunction(() => window.__looplab.status.startsWith('error'), null, { timeout: 10_000, polling: 20 });
  assert.equal(await page.evaluate(() => window.__looplab.status),
    'error: 后台 worker 没有响应了（它已关闭、被终止或卡住）；已启动一个新的 worker，你可以再运行一次');
  assert.match(await page.textContent('#status'), /^错误：后台 worker 没有响应了/);
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

// The summaries a student reads first, for a person to look at (test-results/lang-<lang>-<id>-summary.png).
// (Indonesian: the numbers test above and the standardization screenshot below.)
test('the summaries of standardization and call-granularity in 简体中文 (screenshots)', { timeout: 120_000 }, async () => {
  for (const id of ['standardization', 'call-granularity']) {
    const { page, problems } = await browser.open(`/web/?lang=zh-CN&experiment=${id}&${new URLSearchParams(SMALL[id])}`);
    await waitForStatus(page, 'ready');
    await runAndCheck(page, id, 'zh-CN');
    await assertChinese(page, id);
    await page.locator('#summary').screenshot({ path: join(RESULTS, `lang-zh-CN-${id}-summary.png`) });
    await assertClean(page, problems);
    await page.close();
  }
});

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
  assertIndonesianNumbers(await shownTexts(page, '#id-widget'), 'the id widget');
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

// A language switch costs one small download (issues 26 and 39): the page says everything in the new
// language in place, with the configuration kept and ?lang= set, instead of reloading every script and
// the wasm; the one request is the new language's static describe file (client.js).
test('the page\'s language picker switches in place: one small request, the values kept, ?lang= set', { timeout: 120_000 }, async () => {
  const { page, problems } = await browser.open(`/dist/index.html?lang=en&experiment=standardization&${new URLSearchParams(SMALL.standardization)}&lr_raw=0.0002`);
  await waitForStatus(page, 'ready');
  assert.equal(await page.textContent('#run'), 'Run');
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.selectOption('#lang', 'id');
  await page.waitForFunction(() => document.getElementById('title')?.textContent.startsWith('Mengapa'), null, { timeout: 30_000 });
  await waitForStatus(page, 'ready');
  assert.equal(await page.textContent('#run'), 'Jalankan');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'id');
  assert.equal(await page.inputValue('#param-lr_raw'), '0.0002');
  const query = new URLSearchParams(await page.evaluate(() => location.search));
  assert.equal(query.get('lang'), 'id');
  assert.equal(query.get('lr_raw'), '0.0002');
  assert.deepEqual(requests.map((u) => new URL(u).pathname), ['/dist/lang/id.json'],
    'a language switch asks for its language file only');
  await page.click('#run');
  await waitForStatus(page, 'done', RUN_TIMEOUT_MS);
  assert.ok(!(await pageText(page)).includes('⟦'));
  await assertClean(page, problems);
});
