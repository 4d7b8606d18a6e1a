// Line plots (the default plot type), live: uPlot fed with points as a run reports them.
//   {id, title, x, y, x_label, y_label, log_x, log_y, series: [names], style?: 'lines'|'points', spread?: column}
// Points arrive as columns per series ({raw: {iteration: [...], gap: [...]}, ...}); append() collects
// them and redraws at most once per animation frame. Series may have different x values: they are
// merged into one sorted x column with gaps (null), which uPlot bridges with spanGaps. style 'points'
// draws markers only; a series with few points gets markers on its line.
// spread names a column of each series holding the half-IQR of y at each point: drawn as whiskers
// y ± spread in the series' colour (a series without the column has none). A series '<name>_fit' is the
// fitted line of <name>: dashed, in <name>'s colour (colors.js), and <name> is drawn as points on a
// thin line, so the measurements and the model read as two things.
import { formatNumber, logTick } from '../util/format.js';
import { fitOf, seriesColors } from './colors.js';
import { plotFrame } from './frame.js';
import { t as tr } from '../util/i18n.js';

// uPlot's code (about half of a page's script) is fetched once this module runs, not before it: the
// experiment's texts and controls need none of it and show first on a slow link (issue 39); a line plot
// made before it has arrived is drawn when it does. (dist/ has it as uplot.js: build-dist.mjs.)
let uPlot = null;
let uPlotLoading = null;
/** uPlot's module: asked for once, and again after a failed download. */
function loadUPlot() {
  uPlotLoading ??= import('../../node_modules/uplot/dist/uPlot.esm.js').then(
    (m) => { uPlot = m.default; },
    (e) => { uPlotLoading = null; throw e; },
  );
  return uPlotLoading;
}
loadUPlot().catch(() => {});   // at once; a plot that finds it missing says so (failed())

const DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3]];
const HEIGHT = 380;
// A narrow plot (a phone) gets less height, so that it fits on the first screen beside Run.
const heightFor = (width) => Math.round(Math.min(HEIGHT, Math.max(240, 0.7 * width)));
const FEW_POINTS = 60;          // up to this many x values, lines also get markers
const FIT_DASH = [7, 5];
const CAP = 4;                  // half-width of a whisker's cap, CSS px

const mantissa = (v) => Math.round(v / 10 ** Math.floor(Math.log10(v) + 1e-9));

/**
 * The splits of a log axis worth a grid line (thin = false) or a label (thin = true): 1, 2 and 5 per
 * decade when a decade is wide, else the decades, and for labels only every n-th decade when they would
 * touch. (uPlot's own label filter measures decades in the wrong direction on horizontal axes.)
 */
function logKept(u, splits, axisIdx, thin) {
  const key = u.axes[axisIdx].scale;
  const perDecade = Math.abs(u.valToPos(10, key) - u.valToPos(1, key));
  const mantissas = perDecade >= 160 ? [1, 2, 5] : [1];
  const minPx = axisIdx === 0 ? 44 : 22;
  const every = thin && perDecade < minPx ? Math.ceil(minPx / perDecade) : 1;
  return splits.map((v) => (v > 0 && mantissas.includes(mantissa(v))
    && Math.round(Math.log10(v)) % every === 0 ? v : null));
}
/**
 * A log axis's splits: m × 10^e (m = 1 … 9) inside the scale, as uPlot's own, whose loop can run until
 * the array overflows ("Invalid array length") on a scale it cannot step; this one ends on any scale.
 */
function logSplits(u, axisIdx, min, max) {
  if (!(min > 0) || !Number.isFinite(max) || max < min) return [];
  const out = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)) && out.length < 1000; e++) {
    for (let m = 1; m <= 9; m++) {
      const v = Number(`${m}e${e}`);   // exact decimals: 10 ** -24 is 1.0000000000000001e-24
      if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
    }
  }
  return out;
}
const logGrid = (u, splits, axisIdx) => logKept(u, splits, axisIdx, false);
const logLabels = (u, splits, axisIdx) => logKept(u, splits, axisIdx, true);

// uPlot's log axis knows the decades 1e-32 … 1e32 only: a scale that starts below them makes its
// splits loop until the array overflows ("Invalid array length": a gap (L − L*)/L* of 1e-35, which
// float64 can reach once a run has converged). Such a point is left out, as a zero is.
const LOG_MIN = 1e-30;
const LOG_MAX = 1e30;
/** Keeps a value that a plot can show: finite, and within the log decades on a log axis; else null (a gap). */
const plottable = (v, log) => (typeof v === 'number' && Number.isFinite(v) && (!log || (v >= LOG_MIN && v <= LOG_MAX)) ? v : null);

export class LivePlot {
  constructor(container, spec, colorOf = seriesColors([spec])) {
    this.spec = spec;
    this.names = spec.series.slice();
    this.cols = new Map(this.names.map((n) => [n, { x: [], y: [], s: [] }]));
    this.spreads = this.names.map(() => []);   // aligned with the last build(), for the whiskers
    this.drawn = [];                           // the whiskers of the last draw (tests read them)
    this.colors = this.names.map((name, i) => colorOf(name, i));
    this.frame = 0;
    Object.assign(this, plotFrame(container, spec, { kind: 'lines', empty: tr('plot.lines_empty', {}, spec.lang) }));

    this.uplot = null;
    this.destroyed = false;
    // Until uPlot has arrived, the chart's room is kept: nothing below it moves when it comes.
    this.body.style.minHeight = `${heightFor(Math.max(300, this.body.clientWidth || 600))}px`;
    if (uPlot) this.makeChart();
    else loadUPlot().then(() => { if (!this.destroyed) this.makeChart(); }, (e) => { if (!this.destroyed) this.failed(e); });
    this.resizer = new ResizeObserver(() => this.fit());
    this.resizer.observe(this.body);
  }

  /** Makes the uPlot chart, with every point appended so far. */
  makeChart() {
    const spec = this.spec;
    // Tick labels in the student's language's signs (uPlot's own would follow the browser's locale).
    const lang = spec.lang || 'en';
    const tick = (log) => (log
      ? { splits: logSplits, values: (u, splits) => splits.map((v) => logTick(v, lang)), filter: logLabels }
      : { values: (u, splits) => splits.map((v) => (v === null || v === undefined ? '' : formatNumber(v, lang))) });
    const grid = (log) => ({ stroke: '#e6e9ef', ...(log ? { filter: logGrid } : {}) });
    const ticks = (log) => ({ stroke: '#c9ced8', ...(log ? { filter: logGrid } : {}) });
    // Legend values only while the cursor is over the plot (uPlot shows "--" otherwise).
    const value = (u, v, si, di) => (typeof di !== 'number' ? '' : typeof v !== 'number' ? '—' : formatNumber(v, lang));
    this.uplot = new uPlot({
      width: Math.max(300, this.body.clientWidth || 600),
      height: heightFor(Math.max(300, this.body.clientWidth || 600)),
      scales: {
        x: { time: false, distr: spec.log_x ? 3 : 1, range: xRange(spec) },
        y: { distr: spec.log_y ? 3 : 1, ...(spec.spread ? { range: (u, min, max) => this.yRange(u, min, max) } : {}) },
      },
      axes: [
        { label: spec.x_label || spec.x, ...tick(spec.log_x), stroke: '#3b4250', grid: grid(spec.log_x), ticks: ticks(spec.log_x) },
        { label: spec.y_label || spec.y, ...tick(spec.log_y), stroke: '#3b4250', grid: grid(spec.log_y), ticks: ticks(spec.log_y), size: 64 },
      ],
      series: [
        { label: spec.x_label || spec.x, value },
        ...this.names.map((name, i) => seriesOptions(spec, this.names, name, i, this.colors[i], value)),
      ],
      legend: { live: true },
      hooks: spec.spread ? { draw: [(u) => this.drawWhiskers(u)] } : {},
    }, this.build(), this.body);
    this.body.style.minHeight = '';
    this.empty.hidden = this.pointCount() > 0;
  }

  /** uplot.js did not arrive: the plot's box says so instead of staying empty. */
  failed(error) {
    this.body.style.minHeight = '';
    this.empty.hidden = false;
    this.empty.textContent = tr('plot.lines_failed', { error: error?.message ?? String(error) }, this.spec.lang);
  }

  fit() {
    const w = this.body.clientWidth;
    if (this.uplot && w > 0 && Math.abs(w - this.uplot.width) > 1) this.uplot.setSize({ width: w, height: heightFor(w) });
  }

  /** Appends new points: {seriesName: {<x>: [...], <y>: [...]}}; names not in the spec are ignored. */
  append(series) {
    for (const [name, data] of Object.entries(series || {})) {
      const col = this.cols.get(name);
      const xs = data?.[this.spec.x], ys = data?.[this.spec.y];
      if (!col || !Array.isArray(xs) || !Array.isArray(ys)) continue;
      const ss = this.spec.spread && Array.isArray(data[this.spec.spread]) ? data[this.spec.spread] : [];
      for (let i = 0; i < xs.length; i++) {
        const x = plottable(xs[i], this.spec.log_x);
        if (x === null) continue;
        col.x.push(x);
        col.y.push(plottable(ys[i], this.spec.log_y));
        col.s.push(typeof ss[i] === 'number' && Number.isFinite(ss[i]) && ss[i] >= 0 ? ss[i] : null);
      }
    }
    this.schedule();
  }

  /** Replaces all points with complete series (e.g. result.series). */
  replace(series) {
    this.clear();
    this.append(series);
  }

  /** The run finished: show its complete series. */
  finish(result) {
    this.replace(result?.series);
  }

  clear() {
    for (const col of this.cols.values()) { col.x.length = 0; col.y.length = 0; col.s.length = 0; }
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
      if (!this.uplot) return;   // makeChart() takes every point so far
      this.empty.hidden = this.pointCount() > 0;
      this.uplot.setData(this.build());
    });
  }

  /**
   * Merges the series' x columns (each sorted as appended) into one x column:
   * {x, ys: [per series], ss: [per series spreads]}, null where a series has no point at that x.
   */
  align() {
    const cols = this.names.map((n) => this.cols.get(n));
    for (const c of cols) sortIfNeeded(c);
    const x = [], ys = cols.map(() => []), ss = cols.map(() => []);
    const at = cols.map(() => 0);
    for (;;) {
      let next = Infinity;
      cols.forEach((c, k) => { if (at[k] < c.x.length && c.x[at[k]] < next) next = c.x[at[k]]; });
      if (next === Infinity) break;
      x.push(next);
      cols.forEach((c, k) => {
        let v = null, s = null;
        while (at[k] < c.x.length && c.x[at[k]] === next) { v = c.y[at[k]]; s = c.s[at[k]++]; }   // duplicates: keep the last
        ys[k].push(v);
        ss[k].push(s);
      });
    }
    return { x, ys, ss };
  }

  /** uPlot's aligned data [x, y1, y2, ...]; keeps the spreads aligned with it for the whiskers. */
  build() {
    const { x, ys, ss } = this.align();
    this.spreads = ss;
    return [x, ...ys];
  }

  /** The whiskers of the last draw: [{series, x, y, lo, hi, cx, top, bottom}] (values; canvas px). */
  whiskers() {
    return this.drawn.slice();
  }

  /** Each point's y ± spread, clamped to the scale on a log axis (a spread can exceed y). */
  * spans(u) {
    const [xs, ...ys] = u.data;
    for (let k = 0; k < this.names.length; k++) {
      if (!u.series[k + 1].show) continue;
      const s = this.spreads[k] || [];
      for (let i = 0; i < xs.length; i++) {
        const y = ys[k][i];
        if (typeof y !== 'number' || typeof s[i] !== 'number' || s[i] <= 0) continue;
        const lo = y - s[i];
        yield { k, x: xs[i], y, lo: this.spec.log_y && lo <= 0 ? null : lo, hi: y + s[i] };
      }
    }
  }

  /** The y range of the data widened to hold every whisker, padded as uPlot pads its own. */
  yRange(u, min, max) {
    if (typeof min !== 'number') return [null, null];
    let lo = min, hi = max;
    for (const w of this.spans(u)) {
      if (w.lo !== null) lo = Math.min(lo, w.lo);
      hi = Math.max(hi, w.hi);
    }
    return this.spec.log_y ? uPlot.rangeLog(lo, hi, 10, false) : uPlot.rangeNum(lo, hi, 0.1, true);
  }

  /** Draws y ± spread as a vertical line with caps, in the series' colour, inside the plot area. */
  drawWhiskers(u) {
    const { ctx } = u;
    const r = uPlot.pxRatio;
    const { left, top, width, height } = u.bbox;
    this.drawn = [];
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    ctx.lineWidth = 1.5 * r;
    for (const w of this.spans(u)) {
      const cx = Math.round(u.valToPos(w.x, 'x', true));
      const yTop = u.valToPos(w.hi, 'y', true);
      // A lower end at or below zero on a log axis: the whisker runs to the bottom of the plot.
      const yBottom = w.lo === null ? top + height : u.valToPos(w.lo, 'y', true);
      ctx.strokeStyle = this.colors[w.k];
      ctx.beginPath();
      ctx.moveTo(cx, yTop);
      ctx.lineTo(cx, yBottom);
      for (const yy of [yTop, ...(w.lo === null ? [] : [yBottom])]) {
        ctx.moveTo(cx - CAP * r, yy);
        ctx.lineTo(cx + CAP * r, yy);
      }
      ctx.stroke();
      this.drawn.push({ series: this.names[w.k], x: w.x, y: w.y, lo: w.lo, hi: w.hi, cx, top: yTop, bottom: yBottom });
    }
    ctx.restore();
  }

  destroy() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.resizer.disconnect();
    this.destroyed = true;
    this.uplot?.destroy();
    this.root.remove();
  }
}

/** Markers drawn: style 'points', or few x values. */
const hasMarkers = (spec, u) => spec.style === 'points' || u.data[0].length <= FEW_POINTS;

/** uPlot's x range (data extent; decades on a log axis), widened a little when markers would sit on the edges. */
function xRange(spec) {
  return (u, min, max) => {
    if (typeof min !== 'number') return [null, null];   // no data yet
    const few = hasMarkers(spec, u);
    if (spec.log_x) return few ? [min / 1.25, max * 1.25] : uPlot.rangeLog(min, max, 10, false);
    if (!few) return [min, max];
    const pad = (max - min) * 0.03 || 1;
    return [min - pad, max + pad];
  };
}

/**
 * uPlot series options: a line (dashed after the first), markers only for style 'points'. A fitted line
 * ('<name>_fit') is dashed without markers; the series it fits is drawn as markers on a thin line.
 */
function seriesOptions(spec, names, name, i, color, value) {
  const common = { label: spec.series_labels?.[spec.series.indexOf(name)] ?? name, stroke: color, spanGaps: true, value };
  if (fitOf(name, names)) return { ...common, width: 2, dash: FIT_DASH, points: { show: false } };
  // Markers, every other series hollow, so the series differ in more than colour.
  const hollow = i % 2 === 1;
  const markers = { show: true, size: hollow ? 11 : 8, width: hollow ? 2.5 : 1, stroke: color, fill: hollow ? '#ffffff' : color };
  if (spec.style === 'points') {
    return { ...common, width: 2, paths: () => null, fill: hollow ? undefined : color, points: markers };   // fill: the legend marker
  }
  if (names.some((n) => fitOf(n, names) === name)) return { ...common, width: 1.25, points: markers };
  return {
    ...common, width: 2, dash: DASHES[i % DASHES.length],
    points: { show: (u) => hasMarkers(spec, u), size: 7, width: 2, stroke: color, fill: '#ffffff' },
  };
}

function sortIfNeeded(c) {
  for (let i = 1; i < c.x.length; i++) {
    if (c.x[i] < c.x[i - 1]) {
      const order = c.x.map((_, k) => k).sort((a, b) => c.x[a] - c.x[b] || a - b);
      c.x = order.map((k) => c.x[k]);
      c.y = order.map((k) => c.y[k]);
      c.s = order.map((k) => c.s[k]);
      return;
    }
  }
}
