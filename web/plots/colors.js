// Series colours shared by every chart of an experiment (and the runs table's swatches).

/** Okabe-Ito colours (distinguishable with the common colour-vision deficiencies). */
export const COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

/**
 * Colour by name: the first plot that lists a series name decides its colour (its index in that plot).
 * colorOf(name, i) falls back to the i-th colour for other names, or undefined without i.
 */
export function seriesColors(specs) {
  const colors = new Map();
  for (const spec of specs || []) {
    (spec.series || []).forEach((name, i) => { if (!colors.has(name)) colors.set(name, COLORS[i % COLORS.length]); });
  }
  return (name, i) => colors.get(String(name)) ?? (Number.isInteger(i) ? COLORS[i % COLORS.length] : undefined);
}
