// Renders what describe() and a run's result say, generically: any experiment's headline cards,
// reading sentence, runs table (columns from the keys), extra summary numbers, quoted figures, and
// the series as CSV. Everything is built with textContent; nothing from data is parsed as HTML.
import { el } from '../util/dom.js';
import { humanize, formatValue, formatDuration } from '../util/format.js';

const EXPLANATION_HEADINGS = { intro: 'What happens', try: 'Try this', mechanism: 'Why' };

/**
 * describe.explanation {intro, try, mechanism, ...} -> titled blocks, then describe.tensorflow
 * [{looplab, tensorflow}] as "In TensorFlow terms".
 */
export function renderExplanation(container, explanation, tensorflow = []) {
  container.replaceChildren();
  for (const [key, text] of Object.entries(explanation || {})) {
    if (typeof text !== 'string' || !text) continue;
    const block = el('div', `explain explain-${key}`);
    block.append(el('h3', null, EXPLANATION_HEADINGS[key] || humanize(key)), el('p', null, text));
    container.append(block);
  }
  if (!tensorflow?.length) return;
  const dl = el('dl', 'tf-terms');
  for (const t of tensorflow) dl.append(el('dt', null, t.looplab), el('dd', null, t.tensorflow));
  container.append(el('div', 'explain explain-tensorflow', null, el('h3', null, 'In TensorFlow terms'), dl));
}

/** "18.8 ± 0.4 µs per step": a side of a comparison as measured. */
function sideText(side, unit) {
  const spread = side.spread > 0 ? ` ± ${formatValue(side.spread)}` : '';
  return `${formatValue(side.value)}${spread}${unit ? ` ${unit}` : ''}`;
}

/** The verdict the core computed, in words: the winner and its factor (≥ 1), or no difference. */
function verdictText(c) {
  if (c.verdict === 'same') return c.quantity === 'loss' ? 'the same loss' : 'no measurable difference';
  const [win, lose] = c.verdict === 'a' ? [c.a, c.b] : [c.b, c.a];
  if (c.quantity === 'loss') return `${win.label}: lower`;
  const factor = c.better === 'lower' ? lose.value / win.value : win.value / lose.value;
  const word = { time: 'faster', count: `fewer ${c.unit}`, rate: 'the rate' }[c.quantity] || 'better';
  return `${win.label}: ${formatValue(factor)}× ${word}`;
}

/** summary.comparisons -> a table: each side as measured, with its spread, and the computed verdict. */
function comparisonsTable(comparisons) {
  const table = el('table', 'runs-table comparisons-table');
  table.append(el('caption', null, 'Compared on this run (a difference within the spreads counts as none)'));
  const head = el('tr');
  for (const h of ['', 'one side', 'other side', 'verdict']) {
    const th = el('th', null, h);
    th.scope = 'col';
    head.append(th);
  }
  const body = el('tbody');
  for (const c of comparisons) {
    const tr = el('tr', `verdict-${c.verdict}`);
    const th = el('th', null, humanize(c.id));
    th.scope = 'row';
    tr.append(th, el('td', null, `${c.a.label}: ${sideText(c.a, c.unit)}`), el('td', null, `${c.b.label}: ${sideText(c.b, c.unit)}`),
      el('td', 'verdict', verdictText(c)));
    body.append(tr);
  }
  table.append(el('thead', null, null, head), body);
  return wrapTable(table);
}

/** result.environment -> "Measured in wasm, SIMD simd128, clock step 1 µs": where the numbers come from. */
function measuredOn(env) {
  if (!env) return '';
  const clock = Number.isFinite(env.clock_resolution_ns) ? `, clock step ${formatDuration(env.clock_resolution_ns)}` : '';
  return `Measured on this run: ${env.build} build, SIMD ${env.simd_kind || (env.simd ? 'on' : 'off')}${clock}.`;
}

/** summary.beside_quoted -> the seed's figures with this run's beside them, and why they differ. */
function besideQuoted(container, rows) {
  container.querySelector('.beside-quoted')?.remove();
  if (!rows?.length) return;
  const list = el('ul', 'beside-quoted');
  for (const q of rows) {
    list.append(el('li', null, null, el('span', 'quoted-label', q.label), el('span', 'measured-value', `measured here: ${q.measured}`),
      el('span', 'quoted-value', `quoted: ${q.quoted}`), el('span', 'why', q.why)));
  }
  container.hidden = false;
  container.append(list);
}

/** describe.quoted [{label, value, source}] -> figures labelled as quoted, not measured. */
export function renderQuoted(container, quoted) {
  container.replaceChildren();
  container.hidden = !quoted?.length;
  if (!quoted?.length) return;
  container.append(el('h2', null, 'Figures quoted from the seed thread'),
    el('p', 'quoted-note', 'Not measured here: these are the numbers the original question reported, for comparison.'));
  const list = el('ul', 'quoted-list');
  for (const q of quoted) {
    const item = el('li', 'quoted-item');
    item.append(
      el('span', 'quoted-tag', `quoted from ${q.source || 'seed thread'}`),
      el('span', 'quoted-label', q.label),
      el('span', 'quoted-value', q.value),
    );
    list.append(item);
  }
  container.append(list);
}

/** Cell text for a run value; a few keys have a clearer word for null. */
const NULL_TEXT = { iterations_to_tolerance: 'not reached', diverged_at: 'no' };
function cellText(key, v) {
  if (v === null || v === undefined) return NULL_TEXT[key] || '—';
  return formatValue(v);
}

/** Summary keys drawn in their own place, not in the "other numbers" list. */
const SHOWN_APART = new Set(['headline', 'reading', 'answer', 'comparisons', 'beside_quoted']);

/** A run's generated code (compiled mode): shown as text under the table, not as a column. */
const CODE_KEY = 'generated_code';

/** The code compiled mode generated for a run's step (WebAssembly text in the browser), folded. */
function generatedCode(run) {
  const details = el('details', 'generated-code');
  details.dataset.mode = run.mode ?? '';
  details.append(el('summary', null, `Generated code of the ${run.mode ?? 'compiled'} step`),
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
export function renderResult(parts, result, colorOf = () => undefined) {
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
    if (summary.comparisons?.length) parts.comparisons.append(comparisonsTable(summary.comparisons));
  }
  if (parts.quoted) besideQuoted(parts.quoted, summary.beside_quoted);
  if (parts.measuredOn) parts.measuredOn.textContent = measuredOn(result.environment);

  parts.runs.replaceChildren();
  const runs = result.runs || [];
  if (runs.length) parts.runs.append(runsTable(runs, colorOf));
  for (const r of runs) if (r[CODE_KEY]) parts.runs.append(generatedCode(r));
  for (const [key, rows] of Object.entries(result)) {
    if (RESULT_KEYS.has(key) || !isRecords(rows)) continue;
    const details = el('details', 'more-table');
    details.dataset.key = key;
    details.append(el('summary', null, `All ${rows.length} ${humanize(key)}`), recordsTable(rows, colorOf, null));
    parts.runs.append(details);
  }

  parts.extra.replaceChildren();
  const scalars = [];
  for (const [key, value] of Object.entries(summary)) {
    if (SHOWN_APART.has(key)) continue;
    if (value && typeof value === 'object' && !Array.isArray(value)) parts.extra.append(valueList(humanize(key), Object.entries(value)));
    else scalars.push([key, value]);
  }
  if (scalars.length) parts.extra.append(valueList('other numbers', scalars));
}

const isRecords = (v) => Array.isArray(v) && v.length > 0 && v.every((r) => r && typeof r === 'object' && !Array.isArray(r));

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

function valueCell(k, v, rare) {
  const td = el('td', typeof v === 'number' ? 'num' : null, cellText(k, v));
  if (typeof v === 'boolean' && rare.get(k) === v) td.classList.add('rare');
  return td;
}

/** The first cell of a run: its name, its plot colour, a badge when it diverged. */
function nameCell(r, nameKey, colorOf, scope) {
  const th = el('th', 'run-name');
  th.scope = scope;
  const color = colorOf(String(r[nameKey]));
  if (color) {
    const swatch = el('span', 'swatch');
    swatch.style.backgroundColor = color;   // style property from JS: allowed by style-src 'self'
    th.append(swatch);
  }
  th.append(cellText(nameKey, r[nameKey]));
  if (r.diverged_at !== null && r.diverged_at !== undefined) {
    th.append(el('span', 'badge badge-bad', `diverged at ${formatValue(r.diverged_at)}`));
  }
  return th;
}

function wrapTable(table) {
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  return wrap;
}

/**
 * Runs as a table with columns from the keys. A few runs with many numbers each read best side by
 * side (one column per run, one row per key); otherwise one row per run.
 */
function runsTable(runs, colorOf) {
  const [nameKey, ...valueKeys] = keysOf(runs);
  if (runs.length > 8 || valueKeys.length <= runs.length) {
    return recordsTable(runs, colorOf, `Runs, one row per ${humanize(nameKey)}`);
  }
  const rare = rareBooleans(runs, valueKeys);
  const table = el('table', 'runs-table runs-by-column');
  table.append(el('caption', null, `Runs, one column per ${humanize(nameKey)}`));
  const head = el('tr');
  head.append(el('td', 'corner'), ...runs.map((r) => nameCell(r, nameKey, colorOf, 'col')));
  const body = el('tbody');
  for (const k of valueKeys) {
    const tr = el('tr');
    const th = el('th', null, humanize(k));
    th.scope = 'row';
    tr.append(th, ...runs.map((r) => valueCell(k, r[k], rare)));
    body.append(tr);
  }
  table.append(el('thead', null, null, head), body);
  return wrapTable(table);
}

/** Records as one row each, the first key as the row header. */
function recordsTable(rows, colorOf, caption) {
  const [nameKey, ...valueKeys] = keysOf(rows);
  const rare = rareBooleans(rows, valueKeys);
  const table = el('table', 'runs-table');
  if (caption) table.append(el('caption', null, caption));
  const head = el('tr');
  for (const k of [nameKey, ...valueKeys]) {
    const numeric = k !== nameKey && rows.every((r) => r[k] === null || r[k] === undefined || typeof r[k] === 'number');
    const th = el('th', numeric ? 'num' : null, humanize(k));
    th.scope = 'col';
    head.append(th);
  }
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr');
    if (r.diverged_at !== null && r.diverged_at !== undefined) tr.className = 'diverged';
    else if (valueKeys.some((k) => rare.has(k) && rare.get(k) === r[k])) tr.className = 'marked';
    tr.append(nameCell(r, nameKey, colorOf, 'row'), ...valueKeys.map((k) => valueCell(k, r[k], rare)));
    body.append(tr);
  }
  table.append(el('thead', null, null, head), body);
  return wrapTable(table);
}

function valueList(title, entries) {
  const box = el('div', 'value-list');
  const unit = /^(.*) (\([^)]*\))$/.exec(title);   // "steady step (µs)": the unit is not uppercased
  box.append(unit ? el('h3', null, `${unit[1]} `, el('span', 'unit', unit[2])) : el('h3', null, title));
  const dl = el('dl');
  for (const [k, v] of entries) dl.append(el('dt', null, humanize(k)), el('dd', null, formatValue(v)));
  box.append(dl);
  return box;
}

/** result.series -> CSV in long form: series,<every column name> (empty where a series lacks it). */
export function seriesCsv(series) {
  const cols = [];
  for (const s of Object.values(series || {})) for (const c of Object.keys(s)) if (!cols.includes(c)) cols.push(c);
  const quote = (t) => (/[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t);
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
