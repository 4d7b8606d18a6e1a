// Live line plots driven by one entry of describe.plots:
//   {id, title, x, y, x_label, y_label, log_x, log_y, series: [names]}
// Points arrive as columns per series ({raw: {iteration: [...], gap: [...]}, ...}); append() collects
// them and redraws at most once per animation frame. Series may have different x values: they are
// merged into one sorted x column with gaps (null), which uPlot bridges with spanGaps.
//
//   const plot = new LivePlot(container, spec);
//   plot.append(progress.series);       // live
//   plot.replace(result.series);        // the complete series at the end
//   plot.destroy();
import uPlot from '../node_modules/uplot/dist/uPlot.esm.js';
import { formatNumber } from './format.js';

/** Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), plus dashes. */
export const COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];
const DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3]];
const HEIGHT = 380;

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const superscript = (n) => String(n).replace(/[-0-9]/g, (c) => SUPERSCRIPT[c]);

/** Tick label for a log axis: 0.01 … 1000 as plain numbers, 10⁻⁶ etc. beyond; other values as 2·10⁻⁶. */
export function logTick(v) {
  if (v == null || !(v > 0)) return '';
  const e = Math.floor(Math.log10(v) + 1e-9);
  const m = Math.round(v / 10 ** e);
  if (e >= -3 && e <= 4) return String(+v.toPrecision(3));
  return m === 1 ? `10${superscript(e)}` : `${m}·10${superscript(e)}`;
}

const isPow10 = (v) => v > 0 && Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;

/** Grid lines on a log axis: every split over a few decades, only the decades over many. */
function logGrid(u, splits) {
  const decades = splits.filter((v) => v != null && isPow10(v)).length;
  return decades >= 4 ? splits.map((v) => (v != null && isPow10(v) ? v : null)) : splits;
}

/** Keeps a value that a plot can show: finite, and positive on a log axis; else null (a gap). */
const plottable = (v, log) => (typeof v === 'number' && Number.isFinite(v) && (!log || v > 0) ? v : null);

export class LivePlot {
  constructor(container, spec) {
    this.spec = spec;
    this.names = spec.series.slice();
    this.cols = new Map(this.names.map((n) => [n, { x: [], y: [] }]));
    this.frame = 0;
    this.root = document.createElement('figure');
    this.root.className = 'plot';
    const caption = document.createElement('figcaption');
    caption.textContent = spec.title;
    this.body = document.createElement('div');
    this.body.className = 'plot-body';
    this.empty = document.createElement('p');
    this.empty.className = 'plot-empty';
    this.empty.textContent = 'Press Run to draw this plot live.';
    this.body.append(this.empty);
    this.root.append(caption, this.body);
    container.append(this.root);

    const tick = (log) => (log ? (u, splits) => splits.map(logTick) : undefined);
    const grid = (log) => ({ stroke: '#e6e9ef', ...(log ? { filter: logGrid } : {}) });
    const ticks = (log) => ({ stroke: '#c9ced8', ...(log ? { filter: logGrid } : {}) });
    // Legend values only while the cursor is over the plot (uPlot shows "--" otherwise).
    const value = (u, v, si, di) => (di == null ? '' : v == null ? '—' : formatNumber(v));
    this.uplot = new uPlot({
      width: Math.max(300, this.body.clientWidth || 600),
      height: HEIGHT,
      scales: { x: { time: false, distr: spec.log_x ? 3 : 1 }, y: { distr: spec.log_y ? 3 : 1 } },
      axes: [
        { label: spec.x_label || spec.x, values: tick(spec.log_x), stroke: '#3b4250', grid: grid(spec.log_x), ticks: ticks(spec.log_x) },
        { label: spec.y_label || spec.y, values: tick(spec.log_y), stroke: '#3b4250', grid: grid(spec.log_y), ticks: ticks(spec.log_y), size: 64 },
      ],
      series: [
        { label: spec.x_label || spec.x, value },
        ...this.names.map((name, i) => ({
          label: name, stroke: COLORS[i % COLORS.length], width: 2, dash: DASHES[i % DASHES.length],
          spanGaps: true, points: { show: false }, value,
        })),
      ],
      legend: { live: true },
    }, this.build(), this.body);
    this.resizer = new ResizeObserver(() => this.fit());
    this.resizer.observe(this.body);
  }

  fit() {
    const w = this.body.clientWidth;
    if (w > 0 && Math.abs(w - this.uplot.width) > 1) this.uplot.setSize({ width: w, height: HEIGHT });
  }

  /** Appends new points: {seriesName: {<x>: [...], <y>: [...]}}; names not in the spec are ignored. */
  append(series) {
    for (const [name, data] of Object.entries(series || {})) {
      const col = this.cols.get(name);
      const xs = data?.[this.spec.x], ys = data?.[this.spec.y];
      if (!col || !Array.isArray(xs) || !Array.isArray(ys)) continue;
      for (let i = 0; i < xs.length; i++) {
        const x = plottable(xs[i], this.spec.log_x);
        if (x === null) continue;
        col.x.push(x);
        col.y.push(plottable(ys[i], this.spec.log_y));
      }
    }
    this.schedule();
  }

  /** Replaces all points with complete series (e.g. result.series). */
  replace(series) {
    this.clear();
    this.append(series);
  }

  clear() {
    for (const col of this.cols.values()) { col.x.length = 0; col.y.length = 0; }
    this.schedule();
  }

  pointCount() {
    let n = 0;
    for (const col of this.cols.values()) n += col.x.length;
    return n;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.empty.hidden = this.pointCount() > 0;
      this.uplot.setData(this.build());
    });
  }

  /** Merges the series' x columns (each sorted as appended) into uPlot's aligned [x, y1, y2, ...]. */
  build() {
    const cols = this.names.map((n) => this.cols.get(n));
    for (const c of cols) sortIfNeeded(c);
    const x = [], ys = cols.map(() => []);
    const at = cols.map(() => 0);
    for (;;) {
      let next = Infinity;
      cols.forEach((c, k) => { if (at[k] < c.x.length && c.x[at[k]] < next) next = c.x[at[k]]; });
      if (next === Infinity) break;
      x.push(next);
      cols.forEach((c, k) => {
        let v = null;
        while (at[k] < c.x.length && c.x[at[k]] === next) v = c.y[at[k]++];   // duplicates: keep the last
        ys[k].push(v);
      });
    }
    return [x, ...ys];
  }

  destroy() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.resizer.disconnect();
    this.uplot.destroy();
    this.root.remove();
  }
}

function sortIfNeeded(c) {
  for (let i = 1; i < c.x.length; i++) {
    if (c.x[i] < c.x[i - 1]) {
      const order = c.x.map((_, k) => k).sort((a, b) => c.x[a] - c.x[b] || a - b);
      c.x = order.map((k) => c.x[k]);
      c.y = order.map((k) => c.y[k]);
      return;
    }
  }
}
