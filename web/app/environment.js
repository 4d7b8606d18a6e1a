// "Measured in this browser": the build, the clocks and the isolation the page's numbers come from.
// Shown by the page only (a widget inside a course page leaves it out).
//
//   const pageClockNs = measureClockStepNs();
//   renderEnvironment(section, await client.ready, pageClockNs);   // again with result.environment
import { el } from '../util/dom.js';
import { formatDuration, formatValue } from '../util/format.js';

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

export function renderEnvironment(section, env, pageClockNs) {
  section.replaceChildren(el('h2', null, 'Measured in this browser'));
  const dl = el('dl', 'env-list');
  const add = (k, v) => dl.append(el('dt', null, k), el('dd', null, v));
  add('build', `${env.build ?? '?'}${env.simd ? ', SIMD' : ', no SIMD'}`);
  if (env.compiler) add('compiler', env.compiler);
  add('core clock step', formatDuration(env.clock_resolution_ns));
  add('page clock step', formatDuration(pageClockNs));
  add('cross-origin isolated', window.crossOriginIsolated ? 'yes' : 'no');
  for (const [k, v] of Object.entries(env)) {
    if (SHOWN_FIRST.includes(k) || (v !== null && typeof v === 'object')) continue;
    add(k.replace(/_/g, ' '), formatValue(v));
  }
  section.append(dl, el('p', 'env-note',
    'Core clock: C++ steady_clock in the worker, as the core measured it. Page clock: the smallest step of '
    + 'performance.now() on this page. Browsers coarsen both (5 µs when cross-origin isolated, 100 µs '
    + 'otherwise), so timings come from chunks of many steps, never single steps.'));
}
