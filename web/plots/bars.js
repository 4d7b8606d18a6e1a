// Bar plots drawn from a finished result, one bar per entry of result[spec.source]:
//   {id, type: 'bars', title, source: 'runs', category: 'mode', value: 'first_call_ms', y_label, log_y}
// The bar of run r is labelled r[category] and has height r[value]. Stacked bars: with
//   stack: ['pipeline_us_per_batch', 'step_us_per_batch'], stack_labels: ['pipeline', 'step']
// each bar is the sum of those fields, drawn as one segment per field (a legend names them), on a
// linear axis. With spread: 'steady_step_spread_us' (a run key holding the half-IQR of the value) each
// bar carries a whisker from value − spread to value + spread, so a student sees whether two bars
// differ by more than their noise. With interval: 'steady_step_ci_us' (a run key holding [lo, hi],
// the 95% interval of a median over paired rounds) the whisker goes from lo to hi. A lower end below the baseline (at or below zero on a log axis,
// below zero for a positive bar on a linear one: a time is never negative) is clamped to the baseline
// and drawn without its cap. Long category names are drawn slanted. The runs exist only in the final
// result, so the plot shows a note until finish(result) arrives; append() (live progress) is ignored.
//
// A small SVG chart built with createElementNS: real text for the values and categories (readable by
// screen readers and tests, unlike text painted on a canvas), an aria-label listing every bar, and a
// <title> per bar for the hover tooltip. Nothing is parsed as HTML or set as an inline style attribute.
//
//   const plot = new BarPlot(container, spec, (name, i) => colour);
//   plot.finish(result);      // draws the bars
//   plot.bars();              // [{label, value, spread? | interval?}] as drawn
import { formatShort, humanize, logTick } from '../util/format.js';
import { plotFrame, renderOnResize } from './frame.js';
import { svg } from './svg.js';
import { t as tr, text } from '../util/i18n.js';

const HEIGHT = 300;
/** The plot's height at `width`: 300 px, 150 in a phone's narrow column (Run and the first plot fit its first screen). */
const heightFor = (width) => (width >= 400 ? HEIGHT : Math.round(Math.max(150, 0.45 * width)));
const MARGIN = { top: 30, right: 12, bottom: 40, left: 68 };
const SLANTED_BOTTOM = 120;   // room for category names drawn at an angle
const CAP = 6;                // half-width of a whisker's cap

/** A spread worth a whisker: a positive finite number. */
const spreadOf = (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);
/** An interval worth a whisker: [lo, hi], finite, lo < hi. */
const intervalOf = (v) => (Array.isArray(v) && v.length === 2 && v.every(Number.isFinite) && v[0] < v[1] ? v : null);

/** A bar's whisker {lo, hi} from its spread (value ± spread) or its interval, or null. */
function whiskerOf(spec, r, value) {
  if (spec.interval) {
    const iv = intervalOf(r?.[spec.interval]);
    return iv ? { lo: iv[0], hi: iv[1], interval: iv } : null;
  }
  const s = spec.spread ? spreadOf(r?.[spec.spread]) : null;
  return s ? { lo: value - s, hi: value + s, spread: s } : null;
}


/** A round step near span/count: 1, 2, 2.5 or 5 times a power of ten. */
function niceStep(span, count) {
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw * 0.999) ?? 10 * p;
}

/** Axis for the values: {min, max, ticks, pos(v) -> 0..1 from the bottom, label(v)}. */
export function barScale(values, log, lang = 'en') {
  if (log) {
    const pos = values.filter((v) => v > 0);
    if (!pos.length) return null;
    const lo = Math.floor(Math.log10(Math.min(...pos)) + 1e-9);
    let hi = Math.ceil(Math.log10(Math.max(...pos)) - 1e-9);
    if (hi <= lo) hi = lo + 1;
    const ticks = [];
    const mults = hi - lo <= 2 ? [1, 2, 5] : [1];
    for (let e = lo; e <= hi; e++) for (const m of mults) if (e < hi || m === 1) ticks.push(m * 10 ** e);
    return {
      ticks, label: (v) => logTick(v, lang),
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
    ticks, label: (v) => formatShort(v, 3, lang),
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
    Object.assign(this, plotFrame(container, spec, {
      kind: 'bars', bodyClass: 'bars-body', captionId: `plot-${spec.id}-title`,
      empty: tr('plot.bars_empty', { per: text(`field.${spec.category || 'run'}`, humanize(spec.category || 'run'), spec.lang || 'en') }, spec.lang),
    }));
    this.resizer = renderOnResize(this);
  }

  append() {}   // the bars come from the finished result, not from progress

  finish(result) {
    const rows = result?.[this.spec.source || 'runs'];
    const stack = Array.isArray(this.spec.stack) ? this.spec.stack : null;
    this.items = (Array.isArray(rows) ? rows : []).map((r) => {
      const label = String(r?.[this.spec.category] ?? '?');
      if (!stack) return { label, value: r?.[this.spec.value], whisker: whiskerOf(this.spec, r, r?.[this.spec.value]) };
      const parts = stack.map((k) => r?.[k]);
      const ok = parts.every((v) => typeof v === 'number' && Number.isFinite(v) && v >= 0);
      return { label, value: ok ? parts.reduce((a, b) => a + b, 0) : null, parts: ok ? parts : null };
    });
    this.render();
  }

  clear() {
    this.items = [];
    this.render();
  }

  /** The bars as drawn: [{label, value, spread?}] (value null where it cannot be drawn; spread with a whisker). */
  bars() {
    const scale = barScale(this.extents(), this.spec.log_y, this.spec.lang);
    return this.items.map((b) => {
      const ok = Boolean(scale?.drawable(b.value));
      return {
        label: b.label, value: ok ? b.value : null, ...(b.parts ? { parts: b.parts } : {}),
        ...(this.spec.spread ? { spread: ok ? (b.whisker?.spread ?? null) : null } : {}),
        ...(this.spec.interval ? { interval: ok ? (b.whisker?.interval ?? null) : null } : {}),
      };
    });
  }

  /** The values the axis must hold: each bar's value and, with a spread, both ends of its whisker. */
  extents() {
    return this.items.flatMap((b) => (b.whisker ? [b.value, this.low(b), b.whisker.hi] : [b.value]));
  }

  /** The lower end of a whisker, kept at zero for a positive bar (a time, a count: never negative). */
  low(b) {
    return b.value >= 0 ? Math.max(0, b.whisker.lo) : b.whisker.lo;
  }

  pointCount() {
    return this.bars().filter((b) => b.value !== null).length;
  }

  render() {
    this.chart?.remove();
    this.chart = null;
    this.width = this.body.clientWidth;
    const stacked = Array.isArray(this.spec.stack);
    const scale = barScale(stacked ? this.items.map((b) => b.value) : this.extents(), this.spec.log_y && !stacked, this.spec.lang);
    this.empty.hidden = Boolean(scale && this.items.length);
    if (!this.empty.hidden) return;

    const W = Math.max(260, this.width || 420);
    const longest = Math.max(...this.items.map((b) => b.label.length));
    const slanted = longest * 7 > (W - MARGIN.left - MARGIN.right) / this.items.length;
    const H = heightFor(W) + (slanted ? SLANTED_BOTTOM - MARGIN.bottom : 0);
    const left = MARGIN.left, right = W - MARGIN.right, top = MARGIN.top;
    const bottom = H - (slanted ? SLANTED_BOTTOM : MARGIN.bottom);
    const y = (v) => bottom - scale.pos(v) * (bottom - top);
    const unit = this.spec.y_label || humanize(this.spec.value);
    const partNames = this.spec.stack_labels || this.spec.stack || [];
    const partsText = (b) => (b.parts ? ` (${b.parts.map((v, k) => `${partNames[k]} ${formatShort(v, 3, this.spec.lang)}`).join(' + ')})` : '');
    const f = (v, digits) => formatShort(v, digits, this.spec.lang);
    const spreadText = (b, digits) => (b.whisker?.interval ? ` [${f(b.whisker.lo, digits)}–${f(b.whisker.hi, digits)}]`
      : b.whisker ? ` ± ${f(b.whisker.spread, digits)}` : '');
    const noValue = tr('plot.no_value', {}, this.spec.lang);
    const described = this.items.map((b) => `${b.label}: ${scale.drawable(b.value) ? formatShort(b.value, 3, this.spec.lang) + spreadText(b) + partsText(b) : noValue}`);
    const chart = svg('svg', {
      class: 'bars', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img',
      'aria-label': `${this.spec.title} (${unit}${this.spec.log_y ? tr('ui.log_scale', {}, this.spec.lang) : ''}${this.spec.spread ? tr('plot.spread_note', {}, this.spec.lang) : ''}${this.spec.interval ? tr('plot.interval_note', {}, this.spec.lang) : ''}): ${described.join('; ')}`,
    });

    const axis = svg('g', { class: 'bars-axis', 'aria-hidden': 'true' });
    for (const t of scale.ticks) {
      const ty = y(t).toFixed(1);
      axis.append(
        svg('line', { class: 'bars-grid', x1: left, x2: right, y1: ty, y2: ty }),
        svg('text', { class: 'bars-tick', x: left - 8, y: ty, 'text-anchor': 'end', 'dominant-baseline': 'middle' }, scale.label(t)),
      );
    }
    const baseY = this.spec.log_y && !stacked ? bottom : y(0);   // bars grow from the bottom (log) or from zero
    axis.append(
      svg('line', { class: 'bars-baseline', x1: left, x2: right, y1: baseY, y2: baseY }),
      svg('text', {
        class: 'bars-axis-label', x: -(top + bottom) / 2, y: 16, transform: 'rotate(-90)', 'text-anchor': 'middle',
      }, `${unit}${this.spec.log_y && !stacked ? tr('plot.log_axis', {}, this.spec.lang) : ''}`),
    );
    chart.append(axis);
    if (stacked) chart.append(this.legend(partNames, left));

    const band = (right - left) / this.items.length;
    const barW = Math.min(band * 0.62, 96);
    this.items.forEach((b, i) => {
      const cx = left + band * (i + 0.5);
      const g = svg('g', { class: 'bar', 'data-category': b.label });
      const ok = scale.drawable(b.value);
      g.append(svg('title', {}, `${b.label}: ${ok ? formatShort(b.value, 4, this.spec.lang) + spreadText(b, 2) : noValue} ${unit}${ok ? partsText(b) : ''}`));
      if (ok && b.parts) {
        let base = 0;
        b.parts.forEach((v, k) => {
          const y1 = y(base + v), y0 = y(base);
          base += v;
          g.append(svg('rect', {
            class: 'bar-part', 'data-part': partNames[k], x: (cx - barW / 2).toFixed(1), y: y1.toFixed(1),
            width: barW.toFixed(1), height: Math.max(0.5, y0 - y1).toFixed(1), fill: this.colorOf(partNames[k], k),
          }));
        });
      } else if (ok) {
        const yv = y(b.value);
        const y0 = Math.min(yv, baseY), h = Math.max(1, Math.abs(baseY - yv));
        g.append(svg('rect', {
          x: (cx - barW / 2).toFixed(1), y: y0.toFixed(1), width: barW.toFixed(1), height: h.toFixed(1),
          rx: 3, fill: this.colorOf(b.label, i),
        }));
        if (b.whisker) g.append(this.whisker(b, cx, y, baseY));
      }
      // The number sits above the bar, or above its whisker, so neither hides the other.
      const topY = ok && b.whisker && !b.parts ? y(b.whisker.hi) : ok ? y(b.value) : baseY;
      const labelY = Math.min(topY, baseY) - 7;
      g.append(
        svg('text', { class: 'bars-value', x: cx, y: labelY.toFixed(1), 'text-anchor': 'middle' }, ok ? formatShort(b.value, 3, this.spec.lang) : '—'),
        slanted
          ? svg('text', {
            class: 'bars-category', x: cx, y: bottom + 14, 'text-anchor': 'end', transform: `rotate(-35 ${cx} ${bottom + 14})`,
          }, b.label)
          : svg('text', { class: 'bars-category', x: cx, y: bottom + 20, 'text-anchor': 'middle' }, b.label),
      );
      chart.append(g);
    });
    this.chart = chart;
    this.body.append(chart);
  }

  /**
   * The whisker (value ± spread, or the interval) as a vertical line with caps. A lower end clamped at zero (low()), or at or below
   * zero on a log axis where it cannot be placed, stops at the baseline without a cap (data-clamped).
   */
  whisker(b, cx, y, baseY) {
    const low = this.low(b), high = b.whisker.hi;
    const clamped = low !== b.whisker.lo || (Boolean(this.spec.log_y) && low <= 0);
    const y1 = y(high), y2 = clamped ? baseY : y(low);
    const g = svg('g', {
      class: 'bar-whisker', 'data-low': clamped ? 0 : low, 'data-high': high, 'data-clamped': clamped, 'aria-hidden': 'true',
    });
    const line = (x1, x2, ya, yb) => svg('line', { x1: x1.toFixed(1), x2: x2.toFixed(1), y1: ya.toFixed(1), y2: yb.toFixed(1) });
    g.append(line(cx, cx, y1, y2), line(cx - CAP, cx + CAP, y1, y1));
    if (!clamped) g.append(line(cx - CAP, cx + CAP, y2, y2));
    return g;
  }

  /** One swatch and name per stacked part, above the plot area. */
  legend(names, left) {
    const g = svg('g', { class: 'bars-legend' });
    let x = left;
    names.forEach((name, k) => {
      g.append(svg('rect', { x, y: 8, width: 12, height: 12, rx: 2, fill: this.colorOf(name, k) }),
        svg('text', { class: 'bars-tick', x: x + 16, y: 14, 'dominant-baseline': 'middle' }, name));
      x += 30 + name.length * 7;
    });
    return g;
  }

  destroy() {
    this.resizer.disconnect();
    this.root.remove();
  }
}
