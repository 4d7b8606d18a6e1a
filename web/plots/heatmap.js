// Heatmaps drawn from a finished result: one cell per entry of result[spec.source], placed by two keys.
//   {id, type: 'heatmap', title, source: 'runs', row: 'model', col: 'data', value: 'traced_us',
//    unit: 'µs', scale: 'log' | 'linear' | 'diverging'}
// Rows and columns keep the order in which their labels first appear. Colour scales are colour-blind
// safe: viridis for magnitudes ('log' or 'linear'), purple–white–orange (ColorBrewer PuOr) around zero
// for signed values ('diverging': + purple, − orange, on a signed log scale). Every cell carries its number as an SVG text node
// (dark or light by the cell's luminance), so the numbers are readable without the colours, by screen
// readers and by tests; nothing is parsed as HTML.
//
//   const plot = new HeatmapPlot(container, spec);
//   plot.finish(result);      // draws the cells
//   plot.cells();             // [{row, col, value, text}] as drawn
import { formatShort, humanize } from '../util/format.js';
import { plotFrame, renderOnResize } from './frame.js';
import { svg } from './svg.js';
import { t as tr, text } from '../util/i18n.js';

const VIRIDIS = ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'];
const PUOR = ['#b35806', '#f1a340', '#f7f7f7', '#998ec3', '#542788'];   // − orange … 0 white … + purple
const CELL_H = 56;
const MARGIN = { top: 34, right: 12, bottom: 30, left: 150 };


const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/** The colour at f in [0, 1] along evenly spaced stops. */
export function ramp(stops, f) {
  const x = Math.min(1, Math.max(0, f)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const a = rgb(stops[i]), b = rgb(stops[i + 1]);
  const c = a.map((v, k) => Math.round(v + (b[k] - v) * (x - i)));
  return `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** Black text on light cells, white on dark (relative luminance). */
function textColor(hex) {
  const [r, g, b] = rgb(hex).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.35 ? '#111111' : '#ffffff';
}

const LINE_H = 14;   // px between the lines of a wrapped column label

// A label's width in px, 12 px bold: at most 8 px a Latin character, 13 px a CJK one.
const labelPx = (name) => [...name].reduce((w, ch) => w + (ch.codePointAt(0) >= 0x2e80 ? 13 : 8), 0);

/**
 * The row labels' column: wide enough for the longest label, at least MARGIN.left and at most 40%
 * of the plot, so that a label such as "medium (48,721 parameters)" is not cut at the left edge.
 */
function rowLabelWidth(names, width) {
  return Math.min(Math.max(MARGIN.left, 16 + Math.max(...names.map(labelPx))), Math.round(width * 0.4));
}

/**
 * A column label as the lines it needs in a cell `width` px wide: itself, or its words wrapped so
 * that neighbours do not overlap on a narrow screen ("small (8 × 14 steps × 30)" → "small (8 × 14",
 * "steps × 30)"). A word wider than the cell keeps a line of its own.
 */
function columnLines(name, width) {
  const lines = [];
  for (const word of name.split(' ')) {
    const last = lines.length ? `${lines[lines.length - 1]} ${word}` : null;
    if (last !== null && labelPx(last) <= width - 6) lines[lines.length - 1] = last;
    else lines.push(word);
  }
  return lines;
}

/** value -> colour for the finite values given, by spec.scale. */
export function colorScale(values, scale) {
  const finite = values.filter((v) => Number.isFinite(v) && (scale !== 'log' || v > 0));
  if (!finite.length) return () => '#dddddd';
  if (scale === 'diverging') {
    // Signed log: +50% and +5,000% both stay visible; one outlier does not wash out the rest.
    const slog = (v) => Math.sign(v) * Math.log10(1 + Math.abs(v) / 10);
    const m = Math.max(...finite.map((v) => Math.abs(slog(v)))) || 1;
    return (v) => ramp(PUOR, 0.5 + slog(v) / (2 * m));
  }
  const f = scale === 'log' ? Math.log10 : (v) => v;
  const lo = f(Math.min(...finite)), hi = f(Math.max(...finite));
  return (v) => ramp(VIRIDIS, hi > lo ? (f(v) - lo) / (hi - lo) : 0.5);
}

function cellText(v, spec) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  if (spec.scale === 'diverging') return `${v > 0 ? '+' : ''}${formatShort(v, 3, spec.lang)}${spec.unit === '%' ? '%' : ''}`;
  return formatShort(v, 3, spec.lang);
}

export class HeatmapPlot {
  constructor(container, spec) {
    this.spec = spec;
    this.items = [];
    this.width = 0;
    Object.assign(this, plotFrame(container, spec, {
      kind: 'heatmap', bodyClass: 'heatmap-body',
      empty: tr('plot.heatmap_empty', { row: text(`field.${spec.row}`, humanize(spec.row), spec.lang || 'en'), col: text(`field.${spec.col}`, humanize(spec.col), spec.lang || 'en') }, spec.lang),
    }));
    this.resizer = renderOnResize(this);
  }

  append() {}   // cells come from the finished result, not from progress

  finish(result) {
    const rows = result?.[this.spec.source || 'runs'];
    this.items = (Array.isArray(rows) ? rows : []).map((r) => ({
      row: String(r?.[this.spec.row] ?? '?'), col: String(r?.[this.spec.col] ?? '?'), value: r?.[this.spec.value],
    }));
    this.render();
  }

  clear() {
    this.items = [];
    this.render();
  }

  /** The cells as drawn: [{row, col, value, text}]. */
  cells() {
    return this.items.map((c) => ({ ...c, text: cellText(c.value, this.spec) }));
  }

  pointCount() {
    return this.items.filter((c) => typeof c.value === 'number' && Number.isFinite(c.value)).length;
  }

  render() {
    this.chart?.remove();
    this.chart = null;
    this.width = this.body.clientWidth;
    this.empty.hidden = this.items.length > 0;
    if (!this.items.length) return;
    const rowNames = [...new Set(this.items.map((c) => c.row))];
    const colNames = [...new Set(this.items.map((c) => c.col))];
    const color = colorScale(this.items.map((c) => c.value), this.spec.scale);
    const W = Math.max(360, this.width || 600);
    const left = rowLabelWidth(rowNames, W);
    const cellW = (W - left - MARGIN.right) / colNames.length;
    const colLines = colNames.map((name) => columnLines(name, cellW));
    const top = MARGIN.top + LINE_H * (Math.max(...colLines.map((l) => l.length)) - 1);
    const H = top + CELL_H * rowNames.length + MARGIN.bottom;
    const unit = this.spec.unit ? ` (${this.spec.unit})` : '';
    const chart = svg('svg', {
      class: 'heatmap', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
      'aria-label': `${this.spec.title}${unit}: ${this.cells().map((c) => `${c.row}, ${c.col}: ${c.text}`).join('; ')}`,
    });
    colLines.forEach((lines, j) => {
      // x and y on the text too (its last line), for readers of a plain <text>; a space ends every
      // line but the last, so that its textContent is the label as written.
      const x = left + cellW * (j + 0.5), y = top - 10;
      const label = svg('text', { class: 'heatmap-col', x, y, 'text-anchor': 'middle' });
      lines.forEach((line, k) => label.append(svg('tspan', {
        x, y: y - LINE_H * (lines.length - 1 - k),
      }, k < lines.length - 1 ? `${line} ` : line)));
      chart.append(label);
    });
    rowNames.forEach((name, i) => chart.append(svg('text', {
      class: 'heatmap-row', x: left - 8, y: top + CELL_H * (i + 0.5), 'text-anchor': 'end', 'dominant-baseline': 'middle',
    }, name)));
    for (const c of this.cells()) {
      const x = left + cellW * colNames.indexOf(c.col);
      const y = top + CELL_H * rowNames.indexOf(c.row);
      const fill = Number.isFinite(c.value) ? color(c.value) : '#dddddd';
      const g = svg('g', { class: 'heatmap-cell', 'data-row': c.row, 'data-col': c.col });
      g.append(
        svg('title', {}, `${c.row} × ${c.col}: ${c.text}${unit}`),
        svg('rect', { x: (x + 1).toFixed(1), y: y + 1, width: (cellW - 2).toFixed(1), height: CELL_H - 2, rx: 3, fill }),
        svg('text', {
          class: 'heatmap-value', x: (x + cellW / 2).toFixed(1), y: y + CELL_H / 2, 'text-anchor': 'middle',
          'dominant-baseline': 'middle', fill: textColor(fill),
        }, c.text),
      );
      chart.append(g);
    }
    const legend = this.spec.scale === 'diverging'
      ? tr('plot.legend_diverging', {}, this.spec.lang)
      : tr(this.spec.scale === 'log' ? 'plot.legend_log' : 'plot.legend_linear', {}, this.spec.lang);
    chart.append(svg('text', { class: 'heatmap-legend', x: left, y: H - 8 }, `${legend}${unit}`));
    this.chart = chart;
    this.body.append(chart);
  }

  destroy() {
    this.resizer.disconnect();
    this.root.remove();
  }
}
