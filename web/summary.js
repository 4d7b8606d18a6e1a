// Renders what describe() and a run's result say, generically: any experiment's headline cards,
// reading sentence, runs table (columns from the keys), extra summary numbers, quoted figures, and
// the series as CSV. Everything is built with textContent; nothing from data is parsed as HTML.
import { el, humanize, formatValue } from './format.js';

const EXPLANATION_HEADINGS = { intro: 'What happens', try: 'Try this', mechanism: 'Why' };

/** describe.explanation {intro, try, mechanism, ...} -> titled blocks. */
export function renderExplanation(container, explanation) {
  container.replaceChildren();
  for (const [key, text] of Object.entries(explanation || {})) {
    if (typeof text !== 'string' || !text) continue;
    const block = el('div', `explain explain-${key}`);
    block.append(el('h3', null, EXPLANATION_HEADINGS[key] || humanize(key)), el('p', null, text));
    container.append(block);
  }
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

/**
 * result -> headline cards, reading, runs table, other summary values.
 * seriesColors maps a variant/series name to its plot colour (for the table's swatches).
 */
export function renderResult(parts, result, seriesColors) {
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

  parts.runs.replaceChildren();
  const runs = result.runs || [];
  if (runs.length) parts.runs.append(runsTable(runs, seriesColors));

  parts.extra.replaceChildren();
  const scalars = [];
  for (const [key, value] of Object.entries(summary)) {
    if (key === 'headline' || key === 'reading') continue;
    if (value && typeof value === 'object' && !Array.isArray(value)) parts.extra.append(valueList(humanize(key), Object.entries(value)));
    else scalars.push([key, value]);
  }
  if (scalars.length) parts.extra.append(valueList('other numbers', scalars));
}

/**
 * Runs as a table with columns from the keys. A few runs read best side by side (one column per
 * run, one row per key); many runs (a matrix) as one row per run.
 */
function runsTable(runs, seriesColors) {
  const keys = [];
  for (const r of runs) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
  const [nameKey, ...valueKeys] = keys;
  const table = el('table', 'runs-table');
  const head = el('tr');
  const body = el('tbody');
  const headerCell = (r) => {
    const th = el('th', 'run-name');
    th.scope = runs.length <= 5 ? 'col' : 'row';
    const color = seriesColors.get(String(r[nameKey]));
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
  };
  const valueCell = (k, v) => el('td', typeof v === 'number' ? 'num' : null, cellText(k, v));

  if (runs.length <= 5) {
    table.classList.add('runs-by-column');
    table.append(el('caption', null, `Runs, one column per ${humanize(nameKey)}`));
    const corner = el('td', 'corner');
    head.append(corner, ...runs.map(headerCell));
    for (const k of valueKeys) {
      const tr = el('tr');
      const th = el('th', null, humanize(k));
      th.scope = 'row';
      tr.append(th, ...runs.map((r) => valueCell(k, r[k])));
      body.append(tr);
    }
  } else {
    table.append(el('caption', null, `Runs, one row per ${humanize(nameKey)}`));
    for (const k of keys) {
      const th = el('th', null, humanize(k));
      th.scope = 'col';
      head.append(th);
    }
    for (const r of runs) {
      const tr = el('tr');
      if (r.diverged_at !== null && r.diverged_at !== undefined) tr.className = 'diverged';
      tr.append(headerCell(r), ...valueKeys.map((k) => valueCell(k, r[k])));
      body.append(tr);
    }
  }
  table.append(el('thead', null, null, head), body);
  const wrap = el('div', 'table-wrap');
  wrap.append(table);
  return wrap;
}

function valueList(title, entries) {
  const box = el('div', 'value-list');
  box.append(el('h3', null, title));
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
