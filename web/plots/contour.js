// Contour plots, live: the loss over two parameters as contour lines, one panel per grid, each with
// the path its run takes drawn as the points stream in, and a last panel with the data and the
// line y = W·x + b of each path's latest point. Everything comes from the result's series (and
// arrives in progress events); the spec only names them (core: plots.hpp, contour_plot):
//   {id, type: 'contour', title, x: 'W', y: 'b', z: 'gap', x_label, y_label,
//    panels: [{name, grid, path}], levels, data, line_w, line_b, series: [path names]}
//   grid series: columns x, y, z for an n × n grid, x varying fastest;
//   levels series: one column per path name, the z values to draw lines at;
//   path series: columns x, y (the parameters), line_w, line_b (the line in data units), iteration;
//   data series: columns x and y.
//   valley_plane series (several features only, core: valley.hpp): the grids and paths are in the
//   plane of the slowest and fastest eigen-directions, so the axes are named for them.
// One canvas, drawn with the 2-D context (no inline style, no HTML: CSP-safe); redrawn at most
// once per animation frame. Contour lines come from marching squares on log z, so log-spaced
// levels near the valley floor are as smooth as the outer ones.
//
//   const plot = new ContourPlot(container, spec, colorOf);
//   plot.append(progress.series);   // grids, levels, data and path points as they arrive
//   plot.finish(result);            // the complete series
//   plot.table();                   // {head, rows}: the paths, for "Show data"
import { formatNumber, formatShort } from '../util/format.js';
import { plotFrame } from './frame.js';
import { t as tr, text } from '../util/i18n.js';

const PANEL_H = 300;
const WIDE = 720;                 // from this body width the panels stand side by side
const MIN_PANEL_W = 240;          // and wrap into rows when more would be narrower (optimizers: 9)
const PAD = { top: 22, right: 10, bottom: 34, left: 52 };
const LINE_GREYS = ['#9aa3b2', '#3b4250'];   // outermost level .. innermost level
const INK = '#3b4250';
const OUTSIDE_GRID = '#eef0f4';   // beyond the computed valley: no contour lines there

/** Columns of a series appended to `into` ({col: []}); unknown shapes are ignored. */
function push(into, data, columns) {
  if (!data || !columns.every((c) => Array.isArray(data[c]))) return;
  const n = Math.min(...columns.map((c) => data[c].length));
  for (const c of columns) for (let i = 0; i < n; i++) into[c].push(data[c][i]);
}

const empty = (columns) => Object.fromEntries(columns.map((c) => [c, []]));
const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/** '#rrggbb' mixed from a to b by f in [0, 1]. */
function mix(a, b, f) {
  const ch = (hex, i) => parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16);
  return `#${[0, 1, 2].map((i) => Math.round(ch(a, i) + (ch(b, i) - ch(a, i)) * f).toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The segments of the contour at `level` through a grid of values v (n × n, x fastest), as
 * [x0, y0, x1, y1] in grid coordinates (0 .. n − 1). Marching squares; a saddle cell is split by
 * the value at its centre.
 */
export function contourSegments(v, n, level) {
  const out = [];
  const at = (i, j) => v[j * n + i];
  // Where the level crosses the edge from value a (at 0) to value b (at 1).
  const t = (a, b) => (a === b ? 0.5 : (level - a) / (b - a));
  for (let j = 0; j + 1 < n; j++) {
    for (let i = 0; i + 1 < n; i++) {
      const a = at(i, j), b = at(i + 1, j), c = at(i + 1, j + 1), d = at(i, j + 1);
      if (![a, b, c, d].every(Number.isFinite)) continue;
      const code = (a > level ? 1 : 0) | (b > level ? 2 : 0) | (c > level ? 4 : 0) | (d > level ? 8 : 0);
      if (code === 0 || code === 15) continue;
      const bottom = [i + t(a, b), j], right = [i + 1, j + t(b, c)];
      const top = [i + t(d, c), j + 1], left = [i, j + t(a, d)];
      const seg = (p, q) => out.push([p[0], p[1], q[0], q[1]]);
      const centreHigh = (a + b + c + d) / 4 > level;
      switch (code) {
        case 1: case 14: seg(left, bottom); break;
        case 2: case 13: seg(bottom, right); break;
        case 3: case 12: seg(left, right); break;
        case 4: case 11: seg(right, top); break;
        case 6: case 9: seg(bottom, top); break;
        case 7: case 8: seg(left, top); break;
        case 5: if (centreHigh) { seg(left, top); seg(bottom, right); } else { seg(left, bottom); seg(right, top); } break;
        case 10: if (centreHigh) { seg(left, bottom); seg(right, top); } else { seg(left, top); seg(bottom, right); } break;
        default: break;
      }
    }
  }
  return out;
}

export class ContourPlot {
  constructor(container, spec, colorOf) {
    this.spec = spec;
    this.colorOf = colorOf;
    this.frame = 0;
    this.width = 0;
    Object.assign(this, plotFrame(container, spec, {
      kind: 'contour', empty: tr('plot.contour_empty', {}, spec.lang),
    }));
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'contour-canvas';
    this.canvas.setAttribute('role', 'img');
    this.canvas.hidden = true;
    this.note = document.createElement('p');
    this.note.className = 'plot-note';
    this.note.hidden = true;
    this.body.append(this.canvas, this.note);
    this.clear();
    this.resizer = new ResizeObserver(() => {
      if (Math.abs(this.body.clientWidth - this.width) > 1) this.schedule();
    });
    this.resizer.observe(this.body);
  }

  get pathColumns() { return ['iteration', this.spec.x, this.spec.y, this.spec.z, this.spec.line_w, this.spec.line_b]; }

  clear() {
    const { spec } = this;
    this.grids = new Map(spec.panels.map((p) => [p.grid, empty([spec.x, spec.y, spec.z])]));
    this.paths = new Map(spec.panels.map((p) => [p.path, empty(this.pathColumns)]));
    this.levels = empty(spec.panels.map((p) => p.path));
    this.data = empty(['x', 'y']);
    this.setEigenPlane(false);
    this.schedule();
  }

  /** Axes named for the eigen-directions (several features) or for W and b. */
  setEigenPlane(on) {
    const { spec } = this;
    this.eigen = on;
    this.xLabel = on ? tr('plot.valley_slow', {}, spec.lang) : spec.x_label || spec.x;
    this.yLabel = on ? tr('plot.valley_fast', {}, spec.lang) : spec.y_label || spec.y;
    this.note.textContent = on ? tr('plot.eigen_plane', {}, spec.lang) : '';
    this.note.hidden = !on;
  }

  /** New points of any series this plot draws: {seriesName: {column: [...]}}. */
  append(series) {
    const { spec } = this;
    for (const [name, data] of Object.entries(series || {})) {
      if (this.grids.has(name)) push(this.grids.get(name), data, [spec.x, spec.y, spec.z]);
      else if (this.paths.has(name)) push(this.paths.get(name), data, this.pathColumns);
      else if (name === spec.levels) push(this.levels, data, Object.keys(this.levels));
      else if (name === spec.data) push(this.data, data, ['x', 'y']);
      else if (name === 'valley_plane') this.setEigenPlane(true);
    }
    this.schedule();
  }

  finish(result) {
    this.clear();
    this.append(result?.series);
  }

  /** Path points drawn, over all panels. */
  pointCount() {
    let n = 0;
    for (const p of this.paths.values()) n += p[this.spec.x].length;
    return n;
  }

  /** The paths as a table, for "Show data": one row per recorded iteration of each run. */
  table() {
    const { spec } = this;
    const head = [tr('plot.col_run', {}, spec.lang), tr('plot.col_iteration', {}, spec.lang), this.xLabel,
      this.yLabel, text(`field.${spec.z}`, spec.z, spec.lang),
      tr('plot.col_line', { name: spec.line_w }, spec.lang), tr('plot.col_line', { name: spec.line_b }, spec.lang)];
    const rows = [];
    for (const panel of spec.panels) {
      const p = this.paths.get(panel.path);
      p.iteration.forEach((it, i) => rows.push([panel.name, it, ...this.pathColumns.slice(1).map((c) => p[c][i])]));
    }
    return { head, rows };
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** The panels' boxes in CSS pixels: side by side when wide (in rows of panels at least MIN_PANEL_W wide), stacked when narrow. */
  layout(width) {
    const count = this.spec.panels.length + 1;
    const perRow = width >= WIDE ? Math.min(count, Math.floor(width / MIN_PANEL_W)) : 1;
    const w = width / perRow;
    const boxes = [];
    for (let k = 0; k < count; k++) {
      boxes.push({ x: (k % perRow) * w, y: Math.floor(k / perRow) * PANEL_H, w, h: PANEL_H });
    }
    return { boxes, height: Math.ceil(count / perRow) * PANEL_H };
  }

  render() {
    this.width = this.body.clientWidth;
    const drawn = [...this.grids.values()].some((g) => g[this.spec.z].length > 0);
    this.empty.hidden = drawn;
    this.canvas.hidden = !drawn;
    if (!drawn) return;
    const width = Math.max(300, this.width || 900);
    const { boxes, height } = this.layout(width);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
    ctx.font = '12px system-ui, sans-serif';
    const labels = [];
    this.spec.panels.forEach((panel, k) => {
      labels.push(this.drawValley(ctx, boxes[k], panel, k));
    });
    labels.push(this.drawData(ctx, boxes[boxes.length - 1]));
    this.canvas.setAttribute('aria-label', `${this.spec.title}. ${labels.join(' ')}`);
  }

  /** Maps a value range onto a box's plot area. */
  static scale(box, xr, yr) {
    const left = box.x + PAD.left, right = box.x + box.w - PAD.right;
    const top = box.y + PAD.top, bottom = box.y + box.h - PAD.bottom;
    return {
      left, right, top, bottom,
      x: (v) => left + ((v - xr[0]) / (xr[1] - xr[0] || 1)) * (right - left),
      y: (v) => bottom - ((v - yr[0]) / (yr[1] - yr[0] || 1)) * (bottom - top),
    };
  }

  /** range [lo, hi] widened to every finite value of `values` beyond it, with a 4% margin. */
  static widened(range, values) {
    let lo = range[0], hi = range[1];
    for (const v of values) if (finite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (lo === range[0] && hi === range[1]) return range;
    const pad = 0.04 * (hi - lo);
    return [lo < range[0] ? lo - pad : lo, hi > range[1] ? hi + pad : hi];
  }

  /** The first of `titles` (longest first) that fits `width` in ctx's font, else the last cut with "…". */
  static fitted(ctx, titles, width) {
    for (const t of titles) if (ctx.measureText(t).width <= width) return t;
    let t = titles[titles.length - 1];
    while (t.length > 1 && ctx.measureText(`${t}…`).width > width) t = t.slice(0, -1);
    return `${t}…`;
  }

  /** The frame, title (a list: the longest that fits) and end labels of one panel. */
  static axes(ctx, s, title, xLabel, yLabel, xr, yr, lang = 'en') {
    ctx.strokeStyle = '#c9ced8';
    ctx.lineWidth = 1;
    ctx.strokeRect(s.left, s.top, s.right - s.left, s.bottom - s.top);
    ctx.fillStyle = INK;
    ctx.textBaseline = 'alphabetic';
    ctx.textAlign = 'left';
    ctx.font = '600 12px system-ui, sans-serif';
    ctx.fillText(ContourPlot.fitted(ctx, [].concat(title), s.right + PAD.right - s.left), s.left, s.top - 7);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    ctx.fillText(formatShort(xr[0], 3, lang), s.left, s.bottom + 4);
    ctx.textAlign = 'right';
    ctx.fillText(formatShort(xr[1], 3, lang), s.right, s.bottom + 4);
    ctx.textAlign = 'center';
    ctx.fillText(xLabel, (s.left + s.right) / 2, s.bottom + 17);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    ctx.fillText(formatShort(yr[0], 3, lang), s.left - 4, s.bottom);
    ctx.textBaseline = 'top';
    ctx.fillText(formatShort(yr[1], 3, lang), s.left - 4, s.top);
    ctx.textBaseline = 'middle';
    ctx.fillText(yLabel, s.left - 4, (s.top + s.bottom) / 2);
  }

  drawValley(ctx, box, panel, k) {
    const { spec } = this;
    const g = this.grids.get(panel.grid);
    const z = g[spec.z];
    const n = Math.round(Math.sqrt(z.length));
    if (n < 2 || n * n !== z.length) return tr('plot.no_grid', { name: panel.name }, spec.lang);
    const xs = g[spec.x].slice(0, n), ys = [];
    for (let j = 0; j < n; j++) ys.push(g[spec.y][j * n]);
    const p = this.paths.get(panel.path);
    const px = p[spec.x], py = p[spec.y];
    // The frame: the grid's, widened to the whole path when the path swings beyond it (momentum
    // overshoots across a narrow valley's steep walls); the part without contours is shaded.
    const gxr = [xs[0], xs[n - 1]], gyr = [ys[0], ys[n - 1]];
    const xr = ContourPlot.widened(gxr, px), yr = ContourPlot.widened(gyr, py);
    const s = ContourPlot.scale(box, xr, yr);
    const beyond = xr[0] < gxr[0] || xr[1] > gxr[1] || yr[0] < gyr[0] || yr[1] > gyr[1];
    if (beyond) {
      ctx.fillStyle = OUTSIDE_GRID;
      ctx.fillRect(s.left, s.top, s.right - s.left, s.bottom - s.top);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(s.x(gxr[0]), s.y(gyr[1]), s.x(gxr[1]) - s.x(gxr[0]), s.y(gyr[0]) - s.y(gyr[1]));
    }
    // The panel's name alone when "<name>: loss over (W, b)" is wider than the panel (the plot's
    // title says what every panel shows).
    const [ax, ay] = this.eigen ? ['u', 'v'] : [spec.x, spec.y];
    ContourPlot.axes(ctx, s, [tr('plot.loss_over', { name: panel.name, x: ax, y: ay }, spec.lang), panel.name], this.xLabel,
      this.yLabel, xr, yr, spec.lang);
    // Grid coordinates (0 .. n − 1) to pixels; the grid is evenly spaced.
    const gx = (i) => s.x(gxr[0] + (i / (n - 1)) * (gxr[1] - gxr[0]));
    const gy = (j) => s.y(gyr[0] + (j / (n - 1)) * (gyr[1] - gyr[0]));
    const logZ = z.map((v) => (finite(v) ? Math.log10(Math.max(v, 1e-300)) : NaN));
    const levels = (this.levels[panel.path] || []).filter((v) => finite(v) && v > 0);
    ctx.save();
    ctx.beginPath();
    ctx.rect(s.left, s.top, s.right - s.left, s.bottom - s.top);
    ctx.clip();
    ctx.lineWidth = 1;
    levels.forEach((level, li) => {
      ctx.strokeStyle = mix(LINE_GREYS[0], LINE_GREYS[1], levels.length > 1 ? li / (levels.length - 1) : 1);
      ctx.beginPath();
      for (const [x0, y0, x1, y1] of contourSegments(logZ, n, Math.log10(level))) {
        ctx.moveTo(gx(x0), gy(y0));
        ctx.lineTo(gx(x1), gy(y1));
      }
      ctx.stroke();
    });
    const color = this.colorOf?.(panel.path, k) || INK;
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    let started = false;
    for (let i = 0; i < px.length; i++) {
      if (!finite(px[i]) || !finite(py[i])) { started = false; continue; }
      if (started) ctx.lineTo(s.x(px[i]), s.y(py[i])); else ctx.moveTo(s.x(px[i]), s.y(py[i]));
      started = true;
    }
    ctx.stroke();
    for (let i = 0; i < px.length; i++) {
      if (!finite(px[i]) || !finite(py[i])) continue;
      ctx.beginPath();
      ctx.arc(s.x(px[i]), s.y(py[i]), i === px.length - 1 ? 4 : 1.8, 0, 2 * Math.PI);
      ctx.fill();
    }
    // The minimum: the grid's centre point (the core centres it on the closed form).
    const mid = (n - 1) / 2;
    ctx.strokeStyle = INK;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    ctx.moveTo(gx(mid) - 5, gy(mid)); ctx.lineTo(gx(mid) + 5, gy(mid));
    ctx.moveTo(gx(mid), gy(mid) - 5); ctx.lineTo(gx(mid), gy(mid) + 5);
    ctx.stroke();
    ctx.restore();
    const last = px.length - 1;
    const said = tr('plot.valley_said', { name: panel.name, levels: levels.length, points: px.length,
      now: last >= 0 ? tr('plot.now_at', { x: spec.x, xv: formatNumber(px[last], spec.lang), y: spec.y, yv: formatNumber(py[last], spec.lang) }, spec.lang) : '' }, spec.lang);
    if (!beyond) return said;
    const range = (r) => tr('plot.range', { lo: formatShort(r[0], 3, spec.lang), hi: formatShort(r[1], 3, spec.lang) }, spec.lang);
    return said + tr('plot.path_beyond', { x: spec.x, xr: range(xr), gx: range(gxr), y: spec.y, yr: range(yr), gy: range(gyr) }, spec.lang);
  }

  drawData(ctx, box) {
    const { spec } = this;
    const { x, y } = this.data;
    const fx = x.filter(finite), fy = y.filter(finite);
    if (!fx.length) return tr('plot.no_data', {}, spec.lang);
    const lo = (a) => a.reduce((m, v) => Math.min(m, v), Infinity);
    const hi = (a) => a.reduce((m, v) => Math.max(m, v), -Infinity);
    const pad = (a, b) => { const d = (b - a) * 0.05 || Math.abs(a) * 0.05 || 1; return [a - d, b + d]; };
    const xr = pad(lo(fx), hi(fx)), yr = pad(lo(fy), hi(fy));
    const s = ContourPlot.scale(box, xr, yr);
    ContourPlot.axes(ctx, s, tr('plot.data_lines', {}, spec.lang), 'x', 'y', xr, yr, spec.lang);
    ctx.save();
    ctx.beginPath();
    ctx.rect(s.left, s.top, s.right - s.left, s.bottom - s.top);
    ctx.clip();
    ctx.fillStyle = '#9aa3b2';
    for (let i = 0; i < x.length; i++) {
      if (!finite(x[i]) || !finite(y[i])) continue;
      ctx.beginPath();
      ctx.arc(s.x(x[i]), s.y(y[i]), 1.8, 0, 2 * Math.PI);
      ctx.fill();
    }
    const said = [];
    spec.panels.forEach((panel, k) => {
      const p = this.paths.get(panel.path);
      const i = p[spec.line_w].length - 1;
      if (i < 0 || !finite(p[spec.line_w][i]) || !finite(p[spec.line_b][i])) return;
      const w = p[spec.line_w][i], b = p[spec.line_b][i];
      ctx.strokeStyle = this.colorOf?.(panel.path, k) || INK;
      ctx.lineWidth = 2;
      ctx.setLineDash(k === 0 ? [] : [7, 4]);
      ctx.beginPath();
      ctx.moveTo(s.x(xr[0]), s.y(w * xr[0] + b));
      ctx.lineTo(s.x(xr[1]), s.y(w * xr[1] + b));
      ctx.stroke();
      said.push(`${panel.name}: y = ${formatNumber(w, spec.lang)}·x + ${formatNumber(b, spec.lang)}`);
    });
    ctx.restore();
    return tr('plot.data_said', { n: x.length, lines: said.length ? said.join('; ') : tr(this.eigen ? 'plot.no_line_features' : 'plot.no_line', {}, spec.lang) }, spec.lang);
  }

  destroy() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.resizer.disconnect();
    this.root.remove();
  }
}
