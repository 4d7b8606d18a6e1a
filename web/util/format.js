// Numbers and keys as text for people, shared by the panel, the plots and the pages.

/** The first sentence of `text` (all of it when it has one): up to . ! or ? before a space or the end, or 。！？. */
export function firstSentence(text) {
  return (/^[\s\S]*?(?:[.!?](?=\s|$)|[。！？])/.exec(text)?.[0] ?? text).trim();
}

/** "iterations_to_tolerance" -> "iterations to tolerance", "wall_ms" -> "wall (ms)". */
export function humanize(key) {
  const unit = /_(ms|us|ns|s)$/.exec(key);
  const base = (unit ? key.slice(0, -unit[0].length) : key).replace(/_/g, ' ');
  return unit ? `${base} (${unit[1] === 'us' ? 'µs' : unit[1]})` : base;
}

const formatters = new Map();
/** One cached Intl.NumberFormat per language and options. */
export function numberFormat(lang, options) {
  const id = `${lang}|${JSON.stringify(options)}`;
  if (!formatters.has(id)) formatters.set(id, new Intl.NumberFormat(lang, options));
  return formatters.get(id);
}

/** The decimal sign of a language: '.' in English and Chinese, ',' in Indonesian. */
export function decimalSign(lang = 'en') {
  return numberFormat(lang, {}).formatToParts(1.5).find((p) => p.type === 'decimal')?.value || '.';
}

/** 2.1e-7 with `digits` digits after the point, in the language's decimal sign. */
function exponential(v, digits, lang) {
  return v.toExponential(digits).replace(/\.?0+e/, 'e').replace('e+', 'e').replace('.', decimalSign(lang));
}

/** Up to 3 significant digits, never grouped (axis ticks, durations): 0.02 · 1500 · 0,02 in id. */
const plain3 = (v, lang) => numberFormat(lang, { maximumSignificantDigits: 3, useGrouping: false }).format(v);

/**
 * Numbers for people, in the language's signs (Intl.NumberFormat, as the core's renderer):
 * 132,955 · 0.96818 · 9.9e-7 · 13,300.2 in English and Chinese; 132.955 · 0,96818 · 9,9e-7 in Indonesian.
 */
export function formatNumber(v, lang = 'en') {
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (Number.isInteger(v) && a < 1e9) return numberFormat(lang, {}).format(v);
  if (a >= 1e-3 && a < 1e9) return numberFormat(lang, { maximumSignificantDigits: 7 }).format(v);
  return exponential(v, 3, lang);
}

const SUPERSCRIPT = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const superscript = (n) => String(n).replace(/[-0-9]/g, (c) => SUPERSCRIPT[c]);

/** Tick label for a log axis: 0.01 … 1000 as plain numbers, 10⁻⁶ etc. beyond; other values as 2·10⁻⁶. */
export function logTick(v, lang = 'en') {
  if (!(v > 0)) return '';   // also null and undefined: uPlot asks for splits it has no value at
  const e = Math.floor(Math.log10(v) + 1e-9);
  const m = Math.round(v / 10 ** e);
  if (e >= -3 && e <= 4) return plain3(v, lang);
  return m === 1 ? `10${superscript(e)}` : `${m}·10${superscript(e)}`;
}

/** A number to `digits` significant digits, grouped: 14.9 · 5.32 · 1,234 · 2.1e-7 (14,9 · 1.234 in id). */
export function formatShort(v, digits = 3, lang = 'en') {
  if (typeof v !== 'number' || !Number.isFinite(v)) return formatValue(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e9)) return exponential(v, digits - 1, lang);
  return numberFormat(lang, { maximumFractionDigits: 20 }).format(+v.toPrecision(digits));
}

/** Any JSON value as short text. */
export function formatValue(v, lang = 'en') {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return formatNumber(v, lang);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Microseconds or nanoseconds, whichever reads better. */
export function formatDuration(ns, lang = 'en') {
  if (typeof ns !== 'number' || !Number.isFinite(ns)) return '?';
  if (ns >= 1e6) return `${plain3(ns / 1e6, lang)} ms`;
  if (ns >= 1e3) return `${plain3(ns / 1e3, lang)} µs`;
  return `${plain3(ns, lang)} ns`;
}

/** A day "2026-12-06" as the language writes it: "December 6, 2026", "2026年12月6日", "6 Desember 2026". */
export function formatDay(day, lang = 'en') {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return String(day);
  return date.toLocaleDateString(lang, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}
