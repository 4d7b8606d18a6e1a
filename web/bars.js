// Bar plots drawn from a finished result, one bar per entry of result[spec.source]:
//   {id, type: 'bars', title, source: 'runs', category: 'mode', value: 'first_call_ms', y_label, log_y}
// The bar of run r is labelled r[category] and has height r[value]. The runs exist only in the final
// result, so the plot shows a note until finish(result) arrives; append() (live progress) is ignored.
//
// A small SVG chart built with createElementNS: real text for the values and categories (readable by
// screen readers and tests, unlike text painted on a canvas), an aria-label listing every bar, and a
// <title> per bar for the hover tooltip. Nothing is parsed as HTML or set as an inline style attribute.
//
//   const plot = new BarPlot(container, spec, (name, i) => colour);
//   plot.finish(result);      // draws the bars
//   plot.bars();              // [{label, value}] as drawn
import { formatShort, humanize, logTick } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 300;
const MARGIN = { top: 30, right: 12, bottom: 40, left: 68 };

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A round step near span/count: 1, 2, 2.5 or 5 times a power of ten. */
function niceStep(span, count) {
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw * 0.999) ?? 10 * p;
}

/** Axis for the values: {min, max, ticks, pos(v) -> 0..1 from the bottom, label(v)}. */
export function barScale(values, log) {
  if (log) {
    const pos = values.filter((v) => v > 0);
    if (!pos.length) return null;
    let lo = Math.floor(Math.log10(Math.min(...pos)) + 1e-9);
    let hi = Math.ceil(Math.log10(Math.max(...pos)) - 1e-9);
    if (hi <= lo) hi = lo + 1;
    const ticks = [];
    const mults = hi - lo <= 2 ? [1, 2, 5] : [1];
    for (let e = lo; e <= hi; e++) for (const m of mults) if (e < hi || m === 1) ticks.push(m * 10 ** e);
    return {
      ticks, label: logTick,
      pos: (v) => (Math.log10(v) - lo) / (hi - lo),
      drawable: (v) => typeof v === 'number' && v > 0 && Number.isFinite(v),
    };
  }
  const finite = values.filter((v) => Number.isFinite(v));
  if (!finite.length) return null;
  let lo = Math.min(0, ...finite);
  let hi = Math.max(0, ...finite);
  if (hi === lo) hi = lo + 1;
  const step = niceStep(hi - lo, 4);
  lo = Math.floor(lo / step + 1e-9) * step;
  hi = Math.ceil(hi / step - 1e-9) * step;
  const ticks = [];
  for (let t = lo; t <= hi + step / 2; t += step) ticks.push(+t.toPrecision(12));
  return {
    ticks, label: (v) => formatShort(v),
    pos: (v) => (v - lo) / (hi - lo),
    drawable: (v) => typeof v === 'number' && Number.isFinite(v),
  };
}

export class BarPlot {
  constructor(container, spec, colorOf) {
    this.spec = spec;
    this.colorOf = colorOf;
    this.items = [];
    this.width = 0;
    this.root = document.createElement('figure');
    this.root.className = 'plot plot-bars';
    this.root.dataset.plot = spec.id;
    const caption = document.createElement('figcaption');
    caption.id = `plot-${spec.id}-title`;
    caption.textContent = spec.title;
    this.body = document.createElement('div');
    this.body.className = 'plot-body bars-body';
    this.empty = document.createElement('p');
    this.empty.className = 'plot-empty';
    this.empty.textContent = `The bars are drawn when the run finishes: one per ${humanize(spec.category || 'run')}.`;
    this.body.append(this.empty);
    this.root.append(caption, this.body);
    container.append(this.root);
    this.resizer = new ResizeObserver(() => {
      if (Math.abs(this.body.clientWidth - this.width) > 1) this.render();
    });
    this.resizer.observe(this.body);
  }

  append() {}   // the bars come from the finished result, not from progress

  finish(result) {
    const rows = result?.[this.spec.source || 'runs'];
    this.items = (Array.isArray(rows) ? rows : []).map((r) => ({
      label: String(r?.[this.spec.category] ?? '?'),
      value: r?.[this.spec.value],
    }));
    this.render();
  }

  clear() {
    this.items = [];
    this.render();
  }

  /** The bars as drawn: [{label, value}] (value null where it cannot be drawn). */
  bars() {
    const scale = barScale(this.items.map((b) => b.value), this.spec.log_y);
    return this.items.map((b) => ({ label: b.label, value: scale?.drawable(b.value) ? b.value : null }));
  }

  pointCount() {
    return this.bars().filter((b) => b.value !== null).length;
  }

  render() {
    this.chart?.remove();
    this.chart = null;
    this.width = this.body.clientWidth;
    const scale = barScale(this.items.map((b) => b.value), this.spec.log_y);
    this.empty.hidden = Boolean(scale && this.items.length);
    if (!this.empty.hidden) return;

    const W = Math.max(260, this.width || 420);
    const H = HEIGHT;
    const left = MARGIN.left, right = W - MARGIN.right, top = MARGIN.top, bottom = H - MARGIN.bottom;
    const y = (v) => bottom - scale.pos(v) * (bottom - top);
    const unit = this.spec.y_label || humanize(this.spec.value);
    const described = this.items.map((b) => `${b.label}: ${scale.drawable(b.value) ? formatShort(b.value) : 'no value'}`);
    const chart = svg('svg', {
      class: 'bars', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
      'aria-label': `${this.spec.title} (${unit}${this.spec.log_y ? ', log scale' : ''}): ${described.join(', ')}`,
    });

    const axis = svg('g', { class: 'bars-axis', 'aria-hidden': 'true' });
    for (const t of scale.ticks) {
      const ty = y(t).toFixed(1);
      axis.append(
        svg('line', { class: 'bars-grid', x1: left, x2: right, y1: ty, y2: ty }),
        svg('text', { class: 'bars-tick', x: left - 8, y: ty, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, scale.label(t)),
      );
    }
    const baseY = this.spec.log_y ? bottom : y(0);   // bars grow from the bottom (log) or from zero
    axis.append(
      svg('line', { class: 'bars-baseline', x1: left, x2: right, y1: baseY, y2: baseY }),
      svg('text', {
        class: 'bars-axis-label', x: -(top + bottom) / 2, y: 16, transform: 'rotate(-90)', 'text-anchor': 'middle',
      }, `${unit}${this.spec.log_y ? ' (log)' : ''}`),
    );
    chart.append(axis);

    const band = (right - left) / this.items.length;
    const barW = Math.min(band * 0.62, 96);
    this.items.forEach((b, i) => {
      const cx = left + band * (i + 0.5);
      const g = svg('g', { class: 'bar', 'data-category': b.label });
      const ok = scale.drawable(b.value);
      g.append(svg('title', {}, `${b.label}: ${ok ? formatShort(b.value, 4) : 'no value'} ${unit}`));
      if (ok) {
        const yv = y(b.value);
        const y0 = Math.min(yv, baseY), h = Math.max(1, Math.abs(baseY - yv));
        g.append(svg('rect', {
          x: (cx - barW / 2).toFixed(1), y: y0.toFixed(1), width: barW.toFixed(1), height: h.toFixed(1),
          rx: 3, fill: this.colorOf(b.label, i),
        }));
      }
      const labelY = ok ? Math.min(y(b.value), baseY) - 7 : baseY - 7;
      g.append(
        svg('text', { class: 'bars-value', x: cx, y: labelY.toFixed(1), 'text-anchor': 'middle' }, ok ? formatShort(b.value) : '—'),
        svg('text', { class: 'bars-category', x: cx, y: bottom + 20, 'text-anchor': 'middle' }, b.label),
      );
      chart.append(g);
    });
    this.chart = chart;
    this.body.append(chart);
  }

  destroy() {
    this.resizer.disconnect();
    this.root.remove();
  }
}
