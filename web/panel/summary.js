// Renders what describe() and a run's result say, generically: any experiment's headline cards,
// reading sentence, runs table (columns from the keys), extra summary numbers, quoted figures, and
// the series as CSV. Everything is built with textContent; nothing from data is parsed as HTML.
import { el } from '../util/dom.js';
import { humanize, formatDay, formatNumber, formatValue, formatDuration } from '../util/format.js';
import { comparisonMessage, comparisonName, comparisonShortMessage, has, localizeResult, render, t, text } from '../util/i18n.js';

/**
 * A record key as a heading: in English the key made readable; in another language its catalog name
 * (field.<key>), else its label (label.<key>), else the key itself: an id such as a variant's name
 * (train_on_batch) reads the same in every language, where the readable form would be English.
 */
const fieldName = (key, lang) => (lang === 'en' ? humanize(key) : text(`field.${key}`, text(`label.${key}`, key, lang), lang));

/**
 * describe.explanation {intro, try, mechanism, ...} -> titled blocks, then describe.tensorflow
 * [{looplab, tensorflow}] as "In TensorFlow terms".
 */
export function renderExplanation(container, explanation, tensorflow = [], lang = 'en', heading = 'h3') {
  container.replaceChildren();
  for (const [key, body] of Object.entries(explanation || {})) {
    if (typeof body !== 'string' || !body) continue;
    const block = el('div', `explain explain-${key}`);
    block.append(el(heading, null, has(`ui.explain_${key}`, lang) ? t(`ui.explain_${key}`, {}, lang) : humanize(key)), el('p', null, body));
    container.append(block);
  }
  if (!tensorflow?.length) return;
  const dl = el('dl', 'tf-terms');
  for (const term of tensorflow) dl.append(el('dt', null, term.looplab), el('dd', null, term.tensorflow));
  container.append(el('div', 'explain explain-tensorflow', null, el(heading, null, t('ui.tensorflow_terms', {}, lang)), dl));
}

/** "raw x: 18.8 ± 0.4 µs per step": a side of a comparison as measured. */
function sideText(side, unit, lang) {
  const value = render({ key: side.spread > 0 ? 'cmp.value_spread' : 'cmp.value', args: { v: side.value, s: side.spread } }, lang);
  return t('ui.cmp_side', { label: side.label, value, unit: unit ? { key: 'cmp.unit', args: { unit } } : null }, lang);
}

/** A paired timing's ratio a/b with its 95% interval, "0.93 [0.81–1.07]"; "—" for a comparison without rounds. */
function ratioText(c, lang) {
  if (!Object.hasOwn(c, 'rounds')) return '—';
  return t('ui.cmp_ratio_value', { ratio: c.ratio, lo: c.ci[0], hi: c.ci[1], rounds: c.rounds }, lang);
}

/** summary.comparisons -> a table: each side as measured, with its spread, the ratio's interval, the computed verdict and its sentence. */
function comparisonsTable(comparisons, lang) {
  const table = el('table', 'runs-table comparisons-table');
  table.append(el('caption', null, t('ui.cmp_caption', {}, lang)));
  const head = el('tr');
  for (const h of [t('ui.cmp_name', {}, lang), t('ui.cmp_one_side', {}, lang), t('ui.cmp_other_side', {}, lang), t('ui.cmp_ratio', {}, lang), t('ui.cmp_verdict', {}, lang)]) {
    const th = el('th', null, h);
    th.scope = 'col';
    head.append(th);
  }
  const body = el('tbody');
  for (const c of comparisons) {
    const tr = el('tr', `verdict-${c.verdict}`);
    const th = el('th', null, comparisonName(c.id, lang) ?? humanize(c.id));
    th.scope = 'row';
    tr.append(th, el('td', null, sideText(c.a, c.unit, lang)), el('td', null, sideText(c.b, c.unit, lang)),
      el('td', 'ratio', ratioText(c, lang)), el('td', 'verdict', render(comparisonShortMessage(c), lang)));
    // The verdict as a sentence, in the reader's language, on its own row under the numbers.
    const sentence = el('td', 'verdict-sentence', render(comparisonMessage(c), lang));
    sentence.colSpan = 5;
    body.append(tr, el('tr', `verdict-${c.verdict} verdict-sentence-row`, null, sentence));
  }
  table.append(el('thead', null, null, head), body);
  return wrapTable(table);
}

/**
 * Where the numbers come from: result.environment -> "Measured in wasm, SIMD simd128, clock step 1 µs";
 * a saved run (panel.js) says where and when it was measured, and that timings here will differ.
 */
function measuredOn(result, lang) {
  if (result.saved) return t('ui.saved_where', { where: result.saved.where, when: formatDay(result.saved.when, lang) }, lang);
  const env = result.environment;
  if (!env) return '';
  const clock = Number.isFinite(env.clock_resolution_ns) ? t('ui.clock_step', { step: formatDuration(env.clock_resolution_ns, lang) }, lang) : '';
  return t('ui.measured_on', { build: env.build, simd: env.simd_kind || t(env.simd ? 'ui.on' : 'ui.off', {}, lang), clock }, lang);
}

/** summary.beside_quoted -> the seed's figures with this run's beside them, and why they differ. */
function besideQuoted(container, rows, lang) {
  container.querySelector('.beside-quoted')?.remove();
  if (!rows?.length) return;
  const list = el('ul', 'beside-quoted');
  for (const q of rows) {
    list.append(el('li', null, null, el('span', 'quoted-label', q.label),
      el('span', 'measured-value', t('ui.measured_here', { value: q.measured }, lang)),
      el('span', 'quoted-value', t('ui.quoted_value', { value: q.quoted }, lang)), el('span', 'why', q.why)));
  }
  container.hidden = false;
  container.append(list);
}

/** describe.quoted [{label, value, source}] -> figures labelled as quoted, not measured. */
export function renderQuoted(container, quoted, lang = 'en') {
  container.replaceChildren();
  container.hidden = !quoted?.length;
  if (!quoted?.length) return;
  container.append(el('h2', null, t('ui.quoted_heading', {}, lang)), el('p', 'quoted-note', t('ui.quoted_note', {}, lang)));
  const list = el('ul', 'quoted-list');
  for (const q of quoted) {
    const item = el('li', 'quoted-item');
    item.append(
      el('span', 'quoted-tag', t('ui.quoted_from', { source: q.source || t('ui.seed_thread', {}, lang) }, lang)),
      el('span', 'quoted-label', q.label),
      el('span', 'quoted-value', q.value),
    );
    // The figure as the thread said it, in the thread's language, beside the translation.
    if (q.original) item.append(el('span', 'quoted-original', t('ui.quoted_original', { text: q.original }, lang)));
    list.append(item);
  }
  container.append(list);
}

/**
 * Cell text for a run value; a few keys have a clearer word for null. A name (a run's variant, a mode)
 * is shown by its catalog label where it has one (label.raw x: 原始 x); text cells come translated
 * (localizeResult).
 */
const NULL_TEXT = { iterations_to_tolerance: 'ui.not_reached', diverged_at: 'word.no' };
function cellText(key, v, lang) {
  if (v === null || v === undefined) return NULL_TEXT[key] ? t(NULL_TEXT[key], {}, lang) : '—';
  if (typeof v === 'boolean') return t(v ? 'word.yes' : 'word.no', {}, lang);
  if (typeof v === 'number') return formatNumber(v, lang);
  if (typeof v === 'string' && lang !== 'en') return text(`label.${v}`, v, lang);
  // An interval [lo, hi]: each end as a number of this language ("; " where "," is the decimal mark).
  if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'number'))
    return `[${v.map((x) => formatNumber(x, lang)).join(lang === 'id' ? '; ' : ', ')}]`;
  return formatValue(v);
}

/** Summary keys drawn in their own place (run_longer: the Run longer button), not in the "other numbers" list. */
const SHOWN_APART = new Set(['headline', 'reading', 'answer', 'comparisons', 'beside_quoted', 'messages', 'run_longer']);

/** A run's generated code (compiled mode): shown as text under the table, not as a column. */
const CODE_KEY = 'generated_code';

/** The code compiled mode generated for a run's step (WebAssembly text in the browser), folded. */
function generatedCode(run, lang) {
  const details = el('details', 'generated-code');
  details.dataset.mode = run.mode ?? '';
  details.append(el('summary', null, t('ui.generated_code', { mode: run.mode ?? 'compiled' }, lang)),
    el('pre', 'code', run[CODE_KEY]));
  return details;
}

/** Keys of a result that are not extra tables. */
const RESULT_KEYS = new Set(['experiment', 'config', 'environment', 'series', 'runs', 'summary']);

/**
 * result -> headline cards, reading, runs table, other summary values. Any other array of records in
 * the result (e.g. retracing's `calls`) becomes a table folded under a <details>.
 * colorOf(name) gives a run's plot colour, or undefined (for the table's swatches).
 */
export function renderResult(parts, raw, colorOf = () => undefined, lang = 'en') {
  const result = localizeResult(raw, lang);
  const summary = result.summary || {};
  parts.headline.replaceChildren();
  for (const h of summary.headline || []) {
    const card = el('div', 'card');
    card.append(el('div', 'card-label', h.label), el('div', 'card-value', h.value));
    if (h.note) card.append(el('div', 'card-note', h.note));
    parts.headline.append(card);
  }
  parts.reading.textContent = summary.reading || '';
  parts.reading.hidden = !summary.reading;
  if (parts.answer) {
    parts.answer.textContent = summary.answer || '';
    parts.answer.hidden = !summary.answer;
  }
  if (parts.comparisons) {
    parts.comparisons.replaceChildren();
    if (summary.comparisons?.length) parts.comparisons.append(comparisonsTable(summary.comparisons, lang));
  }
  if (parts.quoted) besideQuoted(parts.quoted, summary.beside_quoted, lang);
  if (parts.measuredOn) parts.measuredOn.textContent = measuredOn(result, lang);

  parts.runs.replaceChildren();
  const runs = result.runs || [];
  if (runs.length) parts.runs.append(runsTable(runs, colorOf, lang));
  for (const r of runs) if (r[CODE_KEY]) parts.runs.append(generatedCode(r, lang));
  for (const [key, rows] of Object.entries(result)) {
    if (RESULT_KEYS.has(key) || !isRecords(rows)) continue;
    const details = el('details', 'more-table');
    details.dataset.key = key;
    details.append(el('summary', null, t('ui.all_records', { n: rows.length, name: fieldName(key, lang) }, lang)),
      recordsTable(rows, colorOf, null, lang));
    parts.runs.append(details);
  }

  parts.extra.replaceChildren();
  const scalars = [];
  for (const [key, value] of Object.entries(summary)) {
    if (SHOWN_APART.has(key)) continue;
    if (isTableOfRecords(value)) parts.extra.append(recordsByColumn(fieldName(key, lang), value, lang));
    else if (value && typeof value === 'object' && !Array.isArray(value)) parts.extra.append(valueList(fieldName(key, lang), Object.entries(value), lang));
    else scalars.push([key, value]);
  }
  if (scalars.length) parts.extra.append(valueList(t('ui.other_numbers', {}, lang), scalars, lang));
}

const isRecords = (v) => Array.isArray(v) && v.length > 0 && v.every((r) => r && typeof r === 'object' && !Array.isArray(r));
const isPlainRecord = (r) => r !== null && typeof r === 'object' && !Array.isArray(r)
  && Object.values(r).every((v) => v === null || typeof v !== 'object');
/** {name: {field: number or text}} with at least one entry, e.g. standardization's theory per variant. */
const isTableOfRecords = (v) => v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0
  && Object.values(v).every(isPlainRecord);

/** Every key of the records, in first-seen order. */
function keysOf(rows) {
  const keys = [];
  for (const r of rows) for (const k of Object.keys(r)) if (k !== CODE_KEY && !keys.includes(k)) keys.push(k);
  return keys;
}

/**
 * For each boolean key, the value held by fewer rows (shown marked: the 5 traced calls of 40, the one
 * evaluation call), or undefined when both are as common.
 */
function rareBooleans(rows, keys) {
  const rare = new Map();
  for (const k of keys) {
    const vals = rows.map((r) => r[k]).filter((v) => v !== null && v !== undefined);
    if (!vals.length || !vals.every((v) => typeof v === 'boolean')) continue;
    const yes = vals.filter(Boolean).length;
    if (yes * 2 !== vals.length && yes > 0 && yes < vals.length) rare.set(k, yes * 2 < vals.length);
  }
  return rare;
}

function valueCell(k, v, rare, lang) {
  const td = el('td', typeof v === 'number' ? 'num' : null, cellText(k, v, lang));
  if (typeof v === 'boolean' && rare.get(k) === v) td.classList.add('rare');
  return td;
}

/** The first cell of a run: its name, its plot colour, a badge when it diverged. */
function nameCell(r, nameKey, colorOf, scope, lang) {
  const th = el('th', 'run-name');
  th.scope = scope;
  const color = colorOf(String(r[nameKey]));
  if (color) {
    const swatch = el('span', 'swatch');
    swatch.style.backgroundColor = color;   // style property from JS: allowed by style-src 'self'
    th.append(swatch);
  }
  th.append(cellText(nameKey, r[nameKey], lang));
  if (r.diverged_at !== null && r.diverged_at !== undefined) {
    th.append(el('span', 'badge badge-bad', t('ui.diverged_at', { at: r.diverged_at }, lang)));
  }
  return th;
}

/**
 * A table in a box that scrolls sideways when it is wider than the panel: a keyboard reaches it (tab
 * stop) and can scroll it with the arrow keys; a screen reader names it by the table's caption.
 */
export function wrapTable(table) {
  const wrap = el('div', 'table-wrap');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  const caption = table.querySelector('caption')?.textContent;
  if (caption) wrap.setAttribute('aria-label', caption);
  wrap.append(table);
  return wrap;
}

/**
 * Runs as a table with columns from the keys. A few runs with many numbers each read best side by
 * side (one column per run, one row per key); otherwise one row per run.
 */
function runsTable(runs, colorOf, lang) {
  const [nameKey, ...valueKeys] = keysOf(runs);
  if (runs.length > 8 || valueKeys.length <= runs.length) {
    return recordsTable(runs, colorOf, t('ui.runs_row_per', { name: fieldName(nameKey, lang) }, lang), lang);
  }
  const rare = rareBooleans(runs, valueKeys);
  const table = el('table', 'runs-table runs-by-column');
  table.append(el('caption', null, t('ui.runs_column_per', { name: fieldName(nameKey, lang) }, lang)));
  const head = el('tr');
  head.append(el('td', 'corner'), ...runs.map((r) => nameCell(r, nameKey, colorOf, 'col', lang)));
  const body = el('tbody');
  for (const k of valueKeys) {
    const tr = el('tr');
    const th = el('th', null, fieldName(k, lang));
    th.scope = 'row';
    tr.append(th, ...runs.map((r) => valueCell(k, r[k], rare, lang)));
    body.append(tr);
  }
  table.append(el('thead', null, null, head), body);
  return wrapTable(table);
}

/** Records as one row each, the first key as the row header. */
function recordsTable(rows, colorOf, caption, lang = 'en') {
  const [nameKey, ...valueKeys] = keysOf(rows);
  const rare = rareBooleans(rows, valueKeys);
  const table = el('table', 'runs-table');
  if (caption) table.append(el('caption', null, caption));
  const head = el('tr');
  for (const k of [nameKey, ...valueKeys]) {
    const numeric = k !== nameKey && rows.every((r) => r[k] === null || r[k] === undefined || typeof r[k] === 'number');
    const th = el('th', numeric ? 'num' : null, fieldName(k, lang));
    th.scope = 'col';
    head.append(th);
  }
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr');
    if (r.diverged_at !== null && r.diverged_at !== undefined) tr.className = 'diverged';
    else if (valueKeys.some((k) => rare.has(k) && rare.get(k) === r[k])) tr.className = 'marked';
    tr.append(nameCell(r, nameKey, colorOf, 'row', lang), ...valueKeys.map((k) => valueCell(k, r[k], rare, lang)));
    body.append(tr);
  }
  table.append(el('thead', null, null, head), body);
  return wrapTable(table);
}

/** {name: {field: value}} as a table titled `title`: one column per name, one row per field. */
function recordsByColumn(title, records, lang) {
  const box = el('div', 'value-list value-table');
  box.append(el('h3', null, title));
  const names = Object.keys(records);
  const fields = keysOf(Object.values(records));
  const table = el('table', 'runs-table runs-by-column');
  const head = el('tr');
  head.append(el('td', 'corner'), ...names.map((n) => Object.assign(el('th', null, fieldName(n, lang)), { scope: 'col' })));
  const body = el('tbody');
  for (const f of fields) {
    const tr = el('tr');
    tr.append(Object.assign(el('th', null, fieldName(f, lang)), { scope: 'row' }),
      ...names.map((n) => valueCell(f, records[n][f], new Map(), lang)));
    body.append(tr);
  }
  table.append(el('thead', null, null, head), body);
  box.append(wrapTable(table));
  return box;
}

function valueList(title, entries, lang) {
  const box = el('div', 'value-list');
  const unit = /^(.*) (\([^)]*\))$/.exec(title);   // "steady step (µs)": the unit is not uppercased
  box.append(unit ? el('h3', null, `${unit[1]} `, el('span', 'unit', unit[2])) : el('h3', null, title));
  const dl = el('dl');
  for (const [k, v] of entries) dl.append(el('dt', null, fieldName(k, lang)), el('dd', typeof v === 'string' && / /.test(v) ? 'text' : null, cellText(k, v, lang)));
  box.append(dl);
  return box;
}

/** result.series -> CSV in long form: series,<every column name> (empty where a series lacks it). */
export function seriesCsv(series) {
  const cols = [];
  for (const s of Object.values(series || {})) for (const c of Object.keys(s)) if (!cols.includes(c)) cols.push(c);
  const quote = (v) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const lines = [['series', ...cols].map(quote).join(',')];
  for (const [name, s] of Object.entries(series || {})) {
    const n = Math.max(0, ...cols.map((c) => (Array.isArray(s[c]) ? s[c].length : 0)));
    for (let i = 0; i < n; i++) {
      lines.push([quote(name), ...cols.map((c) => {
        const v = s[c]?.[i];
        return v === null || v === undefined ? '' : quote(String(v));
      })].join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}
