// The student's language: the catalogs (core/i18n/<lang>.json, the same files the CLI embeds) and the
// one renderer of the web side, the twin of core's base/i18n.cpp. No script carries a catalog: each
// comes in its language file (dist/lang/<lang>.json, fetched by runtime/connect.js) and is added here.
//
//   addCatalog('zh-CN', file.catalog);
//   t('ui.run', {}, 'zh-CN')                         -> "运行"
//   render({ key: 'err.must_be', args: {...} }, 'id') -> "lr_raw: harus ..."
//   renderComparison(result.summary.comparisons[0], 'zh-CN')
//
// A template holds {name} or {name:format} placeholders. An argument is a number (formats: int,
// sig1..sig9, num, spread, rho, plain; grouped and with the decimal sign of the language, by
// Intl.NumberFormat), a string (format label or unit looks it up as label.<s> / unit.<s>), a
// message {key, args}, or an array of those. A key missing in a language falls back to English when
// its catalog has been added (the build's catalogs hold every key in every language);
// one missing in English renders as ⟦key⟧, which the tests look for. Before any catalog has arrived,
// every text is empty (a label waits for its language file, then the panel relabels). Renderers
// return plain text: it goes into the DOM with textContent, never as HTML.
import { decimalSign, numberFormat } from './format.js';

export const LANGUAGES = Object.freeze(['en', 'zh-CN', 'id']);
/** Each language's name in itself, for the picker. */
export const LANGUAGE_NAMES = Object.freeze({ en: 'English', 'zh-CN': '简体中文', id: 'Bahasa Indonesia' });
export const MISSING = '⟦';

const CATALOGS = {};

/** Makes `catalog` ({key: template}, a language file's) the catalog of `lang`. */
export function addCatalog(lang, catalog) {
  if (!LANGUAGES.includes(lang) || !catalog || typeof catalog !== 'object') throw new Error(`no catalog for language ${lang}`);   // i18n: a build error
  CATALOGS[lang] = catalog;
}

/** True once `lang`'s catalog has been added. */
export const hasCatalog = (lang) => Object.hasOwn(CATALOGS, lang);

/** "zh", "zh-Hans-CN", "zh_CN.UTF-8" -> "zh-CN"; "id-ID", "in" -> "id"; anything else (or nothing) -> null. */
export function normalizeLang(tag) {
  if (typeof tag !== 'string' || !tag) return null;
  const primary = tag.toLowerCase().split(/[-_.@]/)[0];
  if (primary === 'zh') return 'zh-CN';
  if (primary === 'id' || primary === 'in') return 'id';
  if (primary === 'en') return 'en';
  return null;
}

/** The first of `tags` that names a catalog language, else 'en'. */
export function chooseLang(...tags) {
  for (const tag of tags) {
    const lang = normalizeLang(tag);
    if (lang) return lang;
  }
  return 'en';
}

/** The browser's own preference: navigator.languages in order, then navigator.language. */
export function browserLang() {
  const nav = globalThis.navigator;
  if (!nav) return null;
  for (const tag of [...(nav.languages || []), nav.language]) {
    const lang = normalizeLang(tag);
    if (lang) return lang;
  }
  return null;
}

function lookup(key, lang) {
  const own = CATALOGS[lang]?.[key];
  if (typeof own === 'string') return own;
  const en = CATALOGS.en?.[key];
  return typeof en === 'string' ? en : null;
}

/** True when `lang`'s catalog (or English) has `key`. */
export function has(key, lang = 'en') {
  return lookup(key, lang) !== null;
}

/** A describe() text in `lang`: its catalog entry under `key` when there is one, else `fallback` (the core's English). */
export function text(key, fallback, lang = 'en') {
  const own = CATALOGS[lang]?.[key];
  if (typeof own === 'string') return own;
  return fallback;
}

/** `v` to `digits` significant digits the way the core's format_sig does, in the language's digits and signs. */
function sig(v, digits, lang) {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : (v > 0 ? 'inf' : '-inf');
  const a = Math.abs(v);
  if (a >= 1000 && a < 1e15) return numberFormat(lang, { maximumFractionDigits: 0 }).format(Math.round(v));
  if (a !== 0 && a < 1e-3) {
    const [mantissa, exponent] = v.toExponential(digits - 1).split('e');
    const e = Number(exponent);
    return `${mantissa.replace('.', decimalSign(lang))}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return numberFormat(lang, { maximumSignificantDigits: digits }).format(v);
}

function rho(v, lang) {
  if (!Number.isFinite(v)) return sig(v, 3, lang);
  const d = Math.abs(1 - v);
  if (v < 1e-6) return '0';
  if (v < 0.99 || d === 0) return sig(v, 3, lang);
  return sig(v, 2 + Math.ceil(-Math.log10(d)), lang);
}

/** A size in decimal units to 3 significant digits, as the core's format_bytes: 2.4 GB, 512 B. */
function bytes(v, lang) {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let u = 0;
  while (v >= 1000 && u < units.length - 1) { v /= 1000; u += 1; }
  return `${sig(v, 3, lang)} ${units[u]}`;
}

function formatNumberAs(v, format, lang) {
  switch (format) {
    case 'int': return Number.isFinite(v) ? numberFormat(lang, { maximumFractionDigits: 0 }).format(Math.round(v)) : sig(v, 3, lang);
    case 'num': return sig(v, 3, lang);
    case 'spread': return v >= 100 ? sig(Math.round(v), 3, lang) : sig(v, 2, lang);
    case 'rho': return rho(v, lang);
    case 'bytes': return bytes(v, lang);
    default: {
      const m = /^sig([1-9])$/.exec(format || '');
      if (m) return sig(v, Number(m[1]), lang);
      return Number.isInteger(v) ? String(v) : numberFormat(lang, { maximumSignificantDigits: 6, useGrouping: false }).format(v);
    }
  }
}

function renderArg(v, format, lang) {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map((item) => renderArg(item, format, lang)).join('');
  if (typeof v === 'object') return render(v, lang);
  if (typeof v === 'boolean') return t(v ? 'word.yes' : 'word.no', {}, lang);
  if (typeof v === 'number') return formatNumberAs(v, format, lang);
  const s = String(v);
  if ((format === 'label' || format === 'unit') && s) {
    const found = lookup(`${format}.${s}`, lang);
    if (found !== null) return found;
    // A unit that ends in a count, "µs per step at N = 1,000": unit.µs per step at N = #, the count as {n}.
    const m = /^(.*[^\d,])([\d,]+)$/.exec(s);
    if (format === 'unit' && m && lookup(`unit.${m[1]}#`, lang) !== null) return t(`unit.${m[1]}#`, { n: Number(m[2].replace(/,/g, '')) }, lang);
    return s;
  }
  return s;
}

// Chinese puts a space between Han and Latin text ("用 eager 执行"), none between two Han characters:
// a template's space beside a label that is itself Chinese ("为什么 {label} 需要" with 原始 x) is
// dropped (as the core's render() does).
const SPACE_BETWEEN_WIDE = /(?<=[\u3000-\u9fff\uff00-\uff7f]) (?=[\u3000-\u9fff\uff00-\uff7f])/g;

/** The template of `key` in `lang` with `args` filled in. */
export function t(key, args = {}, lang = 'en') {
  const template = lookup(key, lang);
  if (template === null) return hasCatalog(lang) || hasCatalog('en') ? `⟦${key}⟧` : '';
  const out = template.replace(/\{([a-z0-9_]+)(?::([a-z0-9_]+))?\}/g,
    (whole, name, format) => (Object.hasOwn(args, name) ? renderArg(args[name], format, lang) : whole));
  return lang === 'zh-CN' ? out.replace(SPACE_BETWEEN_WIDE, '') : out;
}

/** A message {key, args} from the core, in `lang`. Anything else (an English string) is returned as text. */
export function render(message, lang = 'en') {
  if (message && typeof message === 'object' && typeof message.key === 'string') return t(message.key, message.args || {}, lang);
  return message === null || message === undefined ? '' : String(message);
}

// ---- comparisons: each summary.comparisons record carries its sentence as the core rendered it ----

/** The comparison as one clause (the core's comparison_message, shipped in the record), e.g. "traced was 1.73× faster than eager (…)". */
export const comparisonMessage = (c) => c.message;

/** The verdict in a few words (the core's comparison_short_message): "traced 1.73× faster", "not enough evidence yet". */
export const comparisonShortMessage = (c) => c.short;

export const renderComparison = (c, lang = 'en') => render(comparisonMessage(c), lang);

/**
 * A comparison's name in `lang`: cmp_id.<id>, else its family's key with the id's first number as
 * {k} (step_k20_vs_k1 -> cmp_id.step_k#_vs_k1, "step, k = 20 vs k = 1"), else null.
 */
export function comparisonName(id, lang = 'en') {
  if (has(`cmp_id.${id}`, lang)) return t(`cmp_id.${id}`, {}, lang);
  const number = /\d+/.exec(id);
  const family = number && `cmp_id.${id.replace(/\d+/, '#')}`;
  return family && has(family, lang) ? t(family, { k: Number(number[0]) }, lang) : null;
}

/** An Error from the worker in `lang`: its message {key, args} when the core gave one (and a catalog is there), else its English text. */
export function errorText(err, lang = 'en') {
  if (err?.i18n) return render(err.i18n, lang) || err.message;
  return err instanceof Error ? err.message : String(err);
}

// ---- describe() and a result's summary in a language ----

/**
 * describe(id, lang) (its texts already in `lang`, from the core) with what the plots show for a
 * series or a panel named by a word ("raw", "step"): its label in `lang`; ids stay.
 */
export function labelDescribe(d, lang = 'en') {
  if (!d || lang === 'en') return d;  // English shows the names themselves
  return {
    ...d,
    plots: (d.plots || []).map((p) => {
      const out = { ...p, lang };
      if (Array.isArray(p.panels)) out.panels = p.panels.map((panel) => ({ ...panel, name: renderArg(panel.name, 'label', lang) }));
      if (Array.isArray(p.series)) out.series_labels = p.series.map((name) => renderArg(name, 'label', lang));
      if (Array.isArray(p.stack_labels)) out.stack_labels = p.stack_labels.map((name) => renderArg(name, 'label', lang));
      return out;
    }),
  };
}

/**
 * A copy of a result's summary whose sentences are in `lang`: rendered from summary.messages where
 * the experiment gives them; the comparisons are always rendered here, from their numbers.
 */
export function localizeSummary(summary, lang = 'en') {
  if (!summary) return summary;
  const m = summary.messages;
  const out = { ...summary };
  if (m && lang !== 'en') {
    const records = (rows) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, render(v, lang)])));
    out.headline = records(m.headline || []);
    out.reading = render(m.reading, lang);
    if (m.answer) out.answer = render(m.answer, lang);
    if (m.beside_quoted) out.beside_quoted = records(m.beside_quoted);
    for (const [k, v] of Object.entries(m.values || {})) out[k] = render(v, lang);
  }
  return out;
}

/**
 * A copy of a result whose texts are in `lang`: its summary (localizeSummary, with the text values
 * such as measured_where) and the text cells of its tables (a retracing reason, a matrix cell's
 * name), rendered from summary.messages.cells. Numbers and ids are left as they are.
 */
export function localizeResult(result, lang = 'en') {
  if (!result || lang === 'en') return result;
  const out = { ...result, summary: localizeSummary(result.summary, lang) };
  for (const [table, rows] of Object.entries(result.summary?.messages?.cells || {})) {
    if (!Array.isArray(result[table])) continue;
    out[table] = result[table].map((r, i) => (rows[i]
      ? { ...r, ...Object.fromEntries(Object.entries(rows[i]).map(([k, m]) => [k, render(m, lang)])) }
      : r));
  }
  return out;
}
