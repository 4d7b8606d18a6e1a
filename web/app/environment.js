// "Measured in this browser": the build, the clocks and the isolation the page's numbers come from.
// Shown by the page only (a widget inside a course page leaves it out).
//
//   const pageClockNs = measureClockStepNs();
//   renderEnvironment(section, await client.ready, pageClockNs);   // again with result.environment
import { el } from '../util/dom.js';
import { formatDuration, formatValue } from '../util/format.js';
import { has, t as tr } from '../util/i18n.js';

const SHOWN_FIRST = ['build', 'simd', 'compiler', 'clock_resolution_ns'];

/** Smallest step of performance.now() on this page (coarsened to 5 µs or 100 µs by the browser). */
export function measureClockStepNs() {
  let last = performance.now();
  let min = Infinity;
  const stopAt = last + 25;
  for (let changes = 0; changes < 200;) {
    const t = performance.now();
    if (t !== last) { min = Math.min(min, t - last); last = t; changes++; }
    if (t > stopAt) break;
  }
  return min * 1e6;
}

export function renderEnvironment(section, env, pageClockNs, lang = 'en') {
  section.replaceChildren(el('h2', null, tr('env.heading', {}, lang)));
  const dl = el('dl', 'env-list');
  const add = (k, v) => dl.append(el('dt', null, k), el('dd', null, v));
  add(tr('env.build', {}, lang), `${env.build ?? '?'}${tr(env.simd ? 'env.simd' : 'env.no_simd', {}, lang)}`);
  if (env.compiler) add(tr('env.compiler', {}, lang), env.compiler);
  add(tr('env.core_clock', {}, lang), formatDuration(env.clock_resolution_ns, lang));
  add(tr('env.page_clock', {}, lang), formatDuration(pageClockNs, lang));
  add(tr('env.isolated', {}, lang), tr(window.crossOriginIsolated ? 'word.yes' : 'word.no', {}, lang));
  for (const [k, v] of Object.entries(env)) {
    if (SHOWN_FIRST.includes(k) || (v !== null && typeof v === 'object')) continue;
    add(has(`env.${k}`, lang) ? tr(`env.${k}`, {}, lang) : k.replace(/_/g, ' '), typeof v === 'boolean' ? tr(v ? 'word.yes' : 'word.no', {}, lang) : formatValue(v, lang));
  }
  section.append(dl, el('p', 'env-note', tr('env.note', {}, lang)));
}
