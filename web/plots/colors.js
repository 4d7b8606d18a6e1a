// Series colours shared by every chart of an experiment (and the runs table's swatches).

/** Okabe-Ito colours (distinguishable with the common colour-vision deficiencies; its yellow, too light on
 * white, left out), and Tol's wine as an eighth, so a plot of eight series (optimizers) repeats none. */
export const COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#882255'];

const FIT = '_fit';

/**
 * The series that `name` is the fitted line of, when `names` (one plot's series) holds it: '<base>_fit'
 * -> '<base>'; else null. A name that merely ends in '_fit' (call granularity's 'js_fit') is no fit
 * unless its base is plotted beside it.
 */
export function fitOf(name, names) {
  const s = String(name);
  if (!s.endsWith(FIT)) return null;
  const base = s.slice(0, -FIT.length);
  return base && names.includes(base) ? base : null;
}

/**
 * Colour by name: the first plot that lists a series name decides its colour (its index among that
 * plot's measured series). A fitted line '<name>_fit' takes <name>'s colour, so a student sees at once
 * which fit belongs to which series; with colours of their own the fits read as more modes.
 * colorOf(name, i) falls back to the i-th colour for other names, or undefined without i.
 */
export function seriesColors(specs) {
  const colors = new Map();
  for (const spec of specs || []) {
    const names = (spec.series || []).map(String);
    names.filter((n) => !fitOf(n, names)).forEach((name, i) => {
      if (!colors.has(name)) colors.set(name, COLORS[i % COLORS.length]);
    });
    for (const name of names) {
      const base = fitOf(name, names);
      if (base && !colors.has(name)) colors.set(name, colors.get(base));
    }
  }
  return (name, i) => colors.get(String(name)) ?? (Number.isInteger(i) ? COLORS[i % COLORS.length] : undefined);
}
