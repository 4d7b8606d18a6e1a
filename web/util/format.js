// Numbers and keys as text for people, shared by the panel, the plots and the pages.

/** "iterations_to_tolerance" -> "iterations to tolerance", "wall_ms" -> "wall (ms)". */
export function humanize(key) {
  const unit = /_(ms|us|ns|s)$/.exec(key);
  const base = (unit ? key.slice(0, -unit[0].length) : key).replace(/_/g, ' ');
  return unit ? `${base} (${unit[1] === 'us' ? 'µs' : unit[1]})` : base;
}

/** Numbers for people: 132,955 · 0.96818 · 9.9e-7 · 13,300.2 */
export function formatNumber(v) {
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (Number.isInteger(v) && a < 1e9) return v.toLocaleString('en-US');
  if (a >= 1e-3 && a < 1e9) return v.toLocaleString('en-US', { maximumSignificantDigits: 7 });
  return v.toExponential(3).replace(/\.?0+e/, 'e').replace('e+', 'e');
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const superscript = (n) => String(n).replace(/[-0-9]/g, (c) => SUPERSCRIPT[c]);

/** Tick label for a log axis: 0.01 … 1000 as plain numbers, 10⁻⁶ etc. beyond; other values as 2·10⁻⁶. */
export function logTick(v) {
  if (!(v > 0)) return '';   // also null and undefined: uPlot asks for splits it has no value at
  const e = Math.floor(Math.log10(v) + 1e-9);
  const m = Math.round(v / 10 ** e);
  if (e >= -3 && e <= 4) return String(+v.toPrecision(3));
  return m === 1 ? `10${superscript(e)}` : `${m}·10${superscript(e)}`;
}

/** A number to `digits` significant digits, grouped: 14.9 · 5.32 · 1,234 · 2.1e-7 */
export function formatShort(v, digits = 3) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return formatValue(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e9)) return v.toExponential(digits - 1).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return (+v.toPrecision(digits)).toLocaleString('en-US', { maximumFractionDigits: 20 });
}

/** Any JSON value as short text. */
export function formatValue(v) {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Microseconds or nanoseconds, whichever reads better. */
export function formatDuration(ns) {
  if (typeof ns !== 'number' || !Number.isFinite(ns)) return '?';
  if (ns >= 1e6) return `${+(ns / 1e6).toPrecision(3)} ms`;
  if (ns >= 1e3) return `${+(ns / 1e3).toPrecision(3)} µs`;
  return `${+ns.toPrecision(3)} ns`;
}
