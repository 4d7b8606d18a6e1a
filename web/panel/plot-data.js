// What the panel offers for each chart besides the picture: a "show data" table (for screen readers and
// for copying numbers) and a PNG of the chart. Both read the plot object's own data, so they show
// exactly what is drawn. Text only; nothing is parsed as HTML.
//
//   details.append(dataTable(plot, spec, result));      // <table> with a caption
//   const { name, blob } = await chartImage(plot, spec);  // PNG
import { el } from '../util/dom.js';
import { formatValue, humanize } from '../util/format.js';
import { t as say, text } from '../util/i18n.js';

const MAX_ROWS = 500;   // a longer table helps nobody; the CSV export has every point

/**
 * Columns of a chart: line plots (x, one column per series, and its ± spread next to it when the spec
 * declares one and the series has any), bar plots (category, value, and ± spread when declared).
 */
function columnsOf(plot, spec, result) {
  if (typeof plot.table === 'function') return plot.table();   // a plot that says what it shows (contour.js)
  const spreadHead = (what) => say('plot.spread_head', { what }, spec.lang);
  const field = (key) => (spec.lang && spec.lang !== 'en' ? text(`field.${key}`, humanize(key), spec.lang) : humanize(key));
  if (typeof plot.bars === 'function') {
    const bars = plot.bars();
    const value = spec.y_label || field(spec.value || 'value');
    const spread = Boolean(spec.spread);
    return { head: [field(spec.category || 'category'), value, ...(spread ? [spreadHead(value)] : [])],
      rows: bars.map((b) => [b.label, b.value, ...(spread ? [b.spread] : [])]) };
  }
  if (typeof plot.align === 'function') {
    const { x, ys, ss } = plot.align();
    const cols = [];
    plot.names.forEach((n, k) => {
      const name = `${spec.series_labels?.[spec.series.indexOf(n)] ?? n}: ${spec.y_label || spec.y}`;
      cols.push({ head: name, values: ys[k] });
      if (spec.spread && ss[k].some((v) => v !== null)) cols.push({ head: spreadHead(name), values: ss[k] });
    });
    return { head: [spec.x_label || spec.x, ...cols.map((c) => c.head)],
      rows: x.map((v, i) => [v, ...cols.map((c) => c.values[i])]) };
  }
  // Other chart kinds: the records the chart is drawn from, when the spec names them.
  const records = Array.isArray(result?.[spec.source]) ? result[spec.source] : [];
  const keys = records.length ? Object.keys(records[0]) : [];
  return { head: keys.map(field), rows: records.map((r) => keys.map((k) => r[k])) };
}

/** A value as the table shows it: numbers in the language's digits and signs, names by their label. */
function cell(v, lang) {
  if (typeof v === 'number' || !lang || lang === 'en') return formatValue(v, lang || 'en');
  if (typeof v === 'string') return text(`label.${v}`, v, lang);
  return typeof v === 'boolean' ? say(v ? 'word.yes' : 'word.no', {}, lang) : formatValue(v);
}

export function dataTable(plot, spec, result) {
  const { head, rows } = columnsOf(plot, spec, result);
  const table = el('table', 'data-table');
  const shown = rows.slice(0, MAX_ROWS);
  const more = rows.length > MAX_ROWS ? say('plot.first_rows', { shown: MAX_ROWS, n: rows.length }, spec.lang) : '';
  table.append(el('caption', null, rows.length ? `${spec.title}${more}` : say('plot.table_empty', { title: spec.title }, spec.lang)));
  const tr = el('tr');
  for (const h of head) { const th = el('th', null, h); th.scope = 'col'; tr.append(th); }
  const body = el('tbody');
  for (const r of shown) {
    const row = el('tr');
    r.forEach((v, i) => row.append(el(i === 0 ? 'th' : 'td', typeof v === 'number' ? 'num' : null, cell(v, spec.lang))));
    body.append(row);
  }
  table.append(el('thead', null, null, tr), body);
  return table;
}

const SCALE = 2;   // PNGs at twice the CSS size read well on slides

/** Title + the chart on a white canvas. Line plots copy uPlot's canvas; SVG charts are painted from their shapes. */
export async function chartImage(plot, spec) {
  const figure = plot.root;
  const source = figure.querySelector('canvas');
  const svg = figure.querySelector('svg');
  if (!source && !svg) throw new Error(say('plot.nothing_drawn', {}, spec.lang));
  const w = source ? source.width : svg.width.baseVal.value * SCALE;
  const h = source ? source.height : svg.height.baseVal.value * SCALE;
  const titleH = 28 * SCALE;
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h + titleH;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#1d2330';
  ctx.font = `600 ${14 * SCALE}px system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  ctx.fillText(spec.title, 8 * SCALE, titleH / 2);
  ctx.translate(0, titleH);
  if (source) ctx.drawImage(source, 0, 0);
  else paintSvg(ctx, svg);
  const blob = await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error(say('plot.png_failed', {}, spec.lang)))), 'image/png'));
  return { name: `${spec.id}.png`, blob };
}

/**
 * Paints the rect/line/text shapes of a chart SVG (bars.js draws only these) onto a canvas. Drawing the
 * SVG as an <img> would need a blob: or data: image, which a host's strict CSP (img-src 'self') blocks.
 */
function paintSvg(ctx, svg) {
  ctx.scale(SCALE, SCALE);
  for (const node of svg.querySelectorAll('rect, line, text')) {
    const style = getComputedStyle(node);
    if (style.display === 'none') continue;
    const num = (name) => Number(node.getAttribute(name)) || 0;
    if (node.tagName === 'rect') {
      ctx.fillStyle = node.getAttribute('fill') || style.fill;
      ctx.fillRect(num('x'), num('y'), num('width'), num('height'));
    } else if (node.tagName === 'line') {
      ctx.strokeStyle = style.stroke === 'none' ? '#c9ced8' : style.stroke;
      ctx.lineWidth = parseFloat(style.strokeWidth) || 1;
      ctx.beginPath();
      ctx.moveTo(num('x1'), num('y1'));
      ctx.lineTo(num('x2'), num('y2'));
      ctx.stroke();
    } else {
      paintText(ctx, node, style, num);
    }
  }
}

function paintText(ctx, node, style, num) {
  ctx.save();
  ctx.fillStyle = style.fill && style.fill !== 'none' ? style.fill : '#1d2330';
  ctx.font = `${style.fontWeight} ${style.fontSize} system-ui, sans-serif`;
  const anchor = node.getAttribute('text-anchor');
  ctx.textAlign = anchor === 'end' ? 'right' : anchor === 'middle' ? 'center' : 'left';
  ctx.textBaseline = node.getAttribute('dominant-baseline') === 'middle' ? 'middle' : 'alphabetic';
  if (/rotate\(-90\)/.test(node.getAttribute('transform') || '')) ctx.rotate(-Math.PI / 2);
  // A label wrapped into lines (a heatmap's column) is drawn line by line, each at its own place.
  const lines = [...node.querySelectorAll('tspan')];
  if (lines.length) {
    for (const t of lines) ctx.fillText(t.textContent.trim(), Number(t.getAttribute('x')) || 0, Number(t.getAttribute('y')) || 0);
  } else {
    ctx.fillText(node.textContent, num('x'), num('y'));
  }
  ctx.restore();
}
