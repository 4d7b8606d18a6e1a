// The languages without a browser: the language files carry core/i18n's catalogs (but the texts their
// describes hold), the glossary terms are used consistently, the JS renderer says exactly what the core's renderer says (a standardization
// result from the wasm module: its summary.messages rendered in English equal its English text, and
// render in zh-CN and id with no missing key), and no renderer builds a student-facing English sentence
// outside the catalogs.
//
//   node --test tests/web/i18n.test.mjs   (needs the wasm build)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pageCatalog, readCatalogs } from '../../web/tools/language-files.mjs';
import { LANGUAGES, MISSING, addCatalog, chooseLang, comparisonMessage, render, t } from '../../web/util/i18n.js';
import { loadModule, runToEnd } from '../../wasm/test/load.mjs';
import { ROOT } from './harness.mjs';

const catalog = (lang) => JSON.parse(readFileSync(join(ROOT, 'core', 'i18n', `${lang}.json`), 'utf8'));

test('no script carries a catalog: before one is added every text is empty, then a missing key shows', () => {
  assert.equal(t('ui.run', {}, 'id'), '');
  assert.throws(() => addCatalog('fr', {}), /no catalog for language fr/);
  for (const [lang, c] of Object.entries(readCatalogs())) addCatalog(lang, c);
  assert.equal(t('ui.run', {}, 'id'), 'Jalankan');
  assert.equal(t('ui.no_such_key', {}, 'id'), '⟦ui.no_such_key⟧');
});

test('the language files (make dist) carry core/i18n\'s catalogs, the list and every describe', () => {
  for (const lang of LANGUAGES) {
    const file = JSON.parse(readFileSync(join(ROOT, 'build', 'lang', `${lang}.json`), 'utf8'));
    assert.deepEqual(file.catalog, pageCatalog(catalog(lang)), `${lang}: stale: run make dist`);
    assert.deepEqual(Object.keys(file.describe), file.list.map((x) => x.id), lang);
    // What the catalog leaves out, the describes say (English shows a thread's own words only in translation).
    const described = JSON.stringify(file.describe);
    const left = Object.entries(catalog(lang)).filter(([key]) => !Object.hasOwn(file.catalog, key));
    assert.ok(left.length > 200, `${lang}: ${left.length} texts left to the describes`);
    const unsaid = left.filter(([key, text]) => !(lang === 'en' && key.endsWith('.original')) && !described.includes(JSON.stringify(text).slice(1, -1)));
    assert.deepEqual(unsaid.map(([key]) => key), [], `${lang}: left out of the catalog, and in no describe`);
  }
});

// A language's glossary: glossary.<lang>.json (English term → the rendering every key must use where
// the English has the term: a flat map, the form the translation review's checker reads) and
// glossary.<lang>.replaced.json (renderings a review replaced: a pattern no catalog value may match,
// what to use instead and why).
const readJson = (name) => JSON.parse(readFileSync(join(ROOT, 'core', 'i18n', name), 'utf8'));
const glossary = (lang) => ({ terms: readJson(`glossary.${lang}.json`), replaced: readJson(`glossary.${lang}.replaced.json`) });

test('each language uses its glossary term wherever the English uses the term', () => {
  const en = catalog('en');
  for (const lang of ['zh-CN', 'id']) {
    const c = catalog(lang);
    const misses = [];
    for (const [term, translation] of Object.entries(glossary(lang).terms)) {
      // Not inside code such as map(standardize) or an id in quotes ("standardization"), and not in a
      // thread's own words (…original).
      const re = new RegExp(`(?<![(.\\w"])${term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'i');
      for (const [key, text] of Object.entries(en)) {
        if (key.endsWith('.original') || !re.test(text.replace(/\{[a-z0-9_:]+\}/g, ''))) continue;
        if (!c[key].toLowerCase().includes(translation.toLowerCase())) misses.push(`${key}: "${term}" is not "${translation}"`);
      }
    }
    assert.deepEqual(misses, [], lang);
  }
});

test('no catalog value uses a rendering its glossary replaced', () => {
  for (const lang of ['zh-CN', 'id']) {
    const { replaced } = glossary(lang);
    assert.ok(Array.isArray(replaced) && replaced.length > 0, `${lang}: glossary has a "replaced" list`);
    const found = [];
    for (const { pattern, use, why } of replaced) {
      assert.ok(pattern && use && why, `${lang}: ${JSON.stringify({ pattern, use, why })} names pattern, use and why`);
      const re = new RegExp(pattern, 'iu');
      for (const [key, text] of Object.entries(catalog(lang))) {
        if (!key.endsWith('.original') && re.test(text)) found.push(`${key}: /${pattern}/ → ${use}: "${text}"`);
      }
    }
    assert.deepEqual(found, [], lang);
  }
});

test('Chinese has no space between two Han characters (as the core renders it)', () => {
  assert.equal(t('std.h_why', { label: 'raw x' }, 'zh-CN'), '为什么原始 x 需要这么多次迭代');
  assert.equal(t('std.h_why', { label: 'fit' }, 'zh-CN'), '为什么 fit 需要这么多次迭代');
});

test('language choice: ?lang=, then the element or page, then the browser; anything else is English', () => {
  assert.equal(chooseLang('zh', 'id'), 'zh-CN');
  assert.equal(chooseLang(null, 'id-ID'), 'id');
  assert.equal(chooseLang('fr', undefined, 'zh-Hans-CN'), 'zh-CN');
  assert.equal(chooseLang('fr'), 'en');
  assert.equal(t('no.such.key', {}, 'id'), `${MISSING}no.such.key⟧`);
});

test('the JS renderer says what the core says, and every language has every key a result uses', async () => {
  const m = await loadModule('looplab-test');   // describe(): the test module's
  const config = { experiment: 'standardization', data: 'synthetic', n: 300, max_iterations: 3000 };
  const r = runToEnd(m, config);
  const s = r.summary;
  assert.ok(s.messages, 'standardization gives its sentences as messages');
  assert.equal(render(s.messages.answer, 'en'), s.answer);
  assert.equal(render(s.messages.reading, 'en'), s.reading);
  s.messages.headline.forEach((h, i) => {
    for (const k of Object.keys(h)) assert.equal(render(h[k], 'en'), s.headline[i][k], `headline[${i}].${k}`);
  });
  for (const lang of ['zh-CN', 'id']) {
    const said = [render(s.messages.answer, lang), render(s.messages.reading, lang),
      ...s.comparisons.map((c) => render(comparisonMessage(c), lang))];
    for (const text of said) {
      assert.ok(!text.includes(MISSING) && !/\{[a-z_]+(:[a-z0-9_]+)?\}/.test(text), `${lang}: ${text}`);
      assert.notEqual(text, render(s.messages.answer, 'en'));
    }
  }
  // The same numbers, formatted per language: Indonesian groups with '.', Chinese with ','.
  assert.equal(render({ key: 'std.iter', args: { n: 132956 } }, 'id'), '132.956');
  assert.equal(render({ key: 'std.iter', args: { n: 132956 } }, 'zh-CN'), '132,956');
  assert.equal(render({ key: 'cmp.value', args: { v: 0.8124 } }, 'id'), '0,812');
  const gap = s.comparisons.find((c) => c.id === 'final_gap');
  assert.match(render(comparisonMessage(gap), 'zh-CN'), /标准化的 x 的最终损失低于原始 x/);
  const d = JSON.parse(m.describe('standardization', 'id'));
  assert.equal(d.title, 'Standardisasi');
  assert.ok(d.parameters.find((p) => p.name === 'lr_raw').help.includes('laju pembelajaran'));
  assert.equal(d.quoted[0].original, 'waktu eksekusi sekitar 40 detik @CPU hingga 80 detik @GPU');
  // A bad value: the error carries its message, named by the CLI name in every language.
  const err = m.validateConfig(JSON.stringify({ experiment: 'standardization', lr_raw: -1 }));
  assert.ok(err instanceof Error && typeof err.i18n === 'string');
  for (const lang of LANGUAGES) assert.match(render(JSON.parse(err.i18n), lang), /^lr_raw: .*-1$/, lang);
  assert.match(render(JSON.parse(err.i18n), 'id'), /harus bilangan dalam \(0, 10\]/);
});

test('paired timing verdicts: the JS renderer says what the core says, in every verdict, and every language has the words', async () => {
  const m = await loadModule();
  // Few rounds (inconclusive) and many (decided): both kinds of sentence.
  for (const epochs of [3, 30]) {
    const r = runToEnd(m, { experiment: 'call-granularity', n: 1000, epochs, max_seconds: 0 });
    const s = r.summary;
    const paired = s.comparisons.filter((c) => Object.hasOwn(c, 'rounds'));
    assert.equal(paired.length, 4, 'the four timing comparisons carry rounds');
    for (const c of paired) {
      assert.ok(['a', 'b', 'same', 'inconclusive'].includes(c.verdict), c.verdict);
      assert.ok(c.ci[0] <= c.ratio && c.ratio <= c.ci[1], JSON.stringify(c));
      const en = render(comparisonMessage(c), 'en');
      assert.ok(s.reading.includes(en), `the core's reading has the JS clause: ${en}`);
      for (const lang of ['zh-CN', 'id']) {
        const text = render(comparisonMessage(c), lang);
        assert.ok(!text.includes(MISSING) && !/\{[a-z_]+(:[a-z0-9_]+)?\}/.test(text), `${lang}: ${text}`);
      }
    }
    if (epochs === 3) assert.ok(paired.every((c) => c.verdict === 'inconclusive'), 'two rounds decide nothing');
  }
});

test('every bad input of tests/bad-inputs is said in every language: the JS renderer gives the module\'s English, Chinese and Indonesian name the same parameter', async () => {
  const m = await loadModule();
  const cases = JSON.parse(readFileSync(join(ROOT, 'tests', 'bad-inputs', 'cases.json'), 'utf8')).cases;
  let checked = 0;
  for (const c of cases) {
    if (c.args || c.cli_only) continue;
    const f = c.config_fill;
    const err = m.validateConfig('config' in c ? c.config : f.prefix + f.fill.repeat(f.count) + f.suffix);
    assert.ok(err instanceof Error && typeof err.i18n === 'string', c.name);
    const message = JSON.parse(err.i18n);
    assert.notEqual(message.key, 'err.text', `${c.name}: English only`);
    assert.equal(render(message, 'en'), err.message, `${c.name}: the JS renderer, in English`);
    const named = /^[a-z_.-]+: /.exec(err.message)?.[0];
    for (const lang of ['zh-CN', 'id']) {
      const said = render(message, lang);
      assert.notEqual(said, err.message, `${c.name} in ${lang}`);
      assert.ok(!said.includes(MISSING), said);
      if (named) assert.ok(said.startsWith(named), `${c.name} in ${lang}: ${said}`);
    }
    checked++;
  }
  assert.ok(checked >= 50, `checked ${checked}`);
  // The JSON syntax error, its place and what was wrong, in Chinese.
  const syntax = JSON.parse(m.validateConfig('{"experiment": "standardization",}').i18n);
  assert.equal(render(syntax, 'zh-CN'), 'config: 不是有效的 JSON（第 1 行第 34 列）：意外的 \'}\'；应为字符串');
});

test('describe(id, lang) takes every text from the catalogs: each language its own, none missing', async () => {
  const m = await loadModule('looplab-test');   // describe(): the test module's
  for (const { id } of JSON.parse(m.listExperiments('en'))) {
    const en = JSON.parse(m.describe(id, 'en'));
    for (const lang of LANGUAGES) {
      const d = JSON.parse(m.describe(id, lang));
      const texts = [d.title, d.question, ...Object.values(d.explanation), ...d.parameters.map((p) => p.help),
        ...d.plots.map((p) => p.title), ...d.tensorflow.flatMap((x) => [x.looplab, x.tensorflow]), ...d.quoted.flatMap((q) => [q.label, q.value])];
      for (const x of texts) assert.ok(typeof x === 'string' && x.length > 0, `${id} in ${lang}: ${JSON.stringify(x)}`);
      assert.equal(d.title, catalog(lang)[`exp.${id}.title`], `${id} in ${lang}`);
      if (lang !== 'en') assert.notEqual(d.explanation.intro, en.explanation.intro, `${id}: ${lang} is not English`);
      assert.equal(d.tensorflow.length, en.tensorflow.length);
    }
  }
});

// A string literal of three or more words in a renderer is an English sentence built outside the
// catalogs. Lines marked "// i18n: …" say why theirs is not for students (a host's API, a status id).
test('no student-facing English sentence is built outside the catalogs in web/', () => {
  const STRING = /(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/g;
  const found = [];
  const files = ['panel', 'plots', 'widgets'].flatMap((d) => readdirSync(join(ROOT, 'web', d)).map((f) => join('web', d, f)))
    .concat(['web/app/page.js', 'web/app/embed.js', 'web/app/environment.js', 'web/app/author.js'])
    .filter((f) => f.endsWith('.js'));
  for (const file of files) {
    readFileSync(join(ROOT, file), 'utf8').split('\n').forEach((line, i) => {
      if (/\/\/ i18n: /.test(line)) return;
      const code = line.replace(/^\s*(\/\/|\*|\/\*).*$/, '').replace(/\s\/\/ .*$/, '');
      for (const m of code.matchAll(STRING)) {
        const text = m[2].replace(/\$\{[^}]*\}/g, 'X');
        if (/[A-Za-z]+[,:;]? [a-z]+ [a-z]+/.test(text) && !/^[.#[]/.test(text)) found.push(`${file}:${i + 1}: ${m[0]}`);
      }
    });
  }
  assert.ok(files.length > 15, 'the renderers were read');
  assert.deepEqual(found, []);
});
