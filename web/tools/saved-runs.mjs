// The saved runs (issue 39, item 2): each experiment's default configuration, run once at `make dist`
// by the WebAssembly module under Node.js and written to build/saved-runs/<id>.json with where and
// when it was measured. A page draws it at once, under a label that says so, until the reader's own
// run replaces it (panel/panel.js). Nothing saved is shown as measured here.
//
//   node web/tools/saved-runs.mjs [id ...]     (every experiment by default; needs the wasm build)
//
// build-dist.mjs makes them again only when the module (or these scripts) is newer than they are: the nine defaults
// take about 20 s on this project's 2-core machine (the matrix's 13), which a build of the pages
// alone need not pay.
//
// The same module and facade the worker uses (api.js), the JavaScript-driven variants included
// (js-variants.js), so a saved run has the shape of a live one. Its plots' points are rounded
// (`compact`): each array to the fewest significant digits, at least 4, that keep its every value
// within 1/10,000 of the array's range (a loss over decades keeps 4 digits, a loss tail from
// 0.9875 to 0.9870 keeps 8), a contour's grid within 1/1,000 (at least 3 digits): about half the
// bytes, and no plot shows the difference. Every text and number of its summary is as measured.
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrap } from '../runtime/api.js';
import { measureJsVariants } from '../runtime/js-variants.js';
import { addCatalog } from '../util/i18n.js';
import { loadModule } from '../../wasm/test/load.mjs';
import { readCatalogs } from './language-files.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SAVED_DIR = join(ROOT, 'build', 'saved-runs');
// What a saved run is made from: the module, and the scripts that run it here and in the worker.
const SOURCES = [join(ROOT, 'build', 'wasm', 'looplab.wasm'), fileURLToPath(import.meta.url),
  ...['api.js', 'js-variants.js'].map((f) => join(ROOT, 'web', 'runtime', f))];
const PLACES = 4, GRID_PLACES = 3;

/** Where the runs are measured, in no language's words (it sits in every language's sentence): "Node.js 20.20.2 (V8 11.3.244.8), AMD EPYC ×2, looplab 19b1f9e". */
function where() {
  let commit = '';
  try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(); } catch { /* no git */ }
  const cpu = cpus();
  return `Node.js ${process.versions.node} (V8 ${process.versions.v8}), ${cpu[0]?.model.trim() || 'CPU ?'} ×${cpu.length}${commit ? `, looplab ${commit}` : ''}`;
}

/**
 * `values` (an array; nested arrays and objects each their own) with every number that is not an
 * integer to the fewest significant digits, at least `places`, that keep it within 10^-places of
 * the array's range.
 */
export function roundToRange(values, places) {
  if (!Array.isArray(values)) {
    return values && typeof values === 'object'
      ? Object.fromEntries(Object.entries(values).map(([k, v]) => [k, roundToRange(v, places)])) : values;
  }
  let lo = Infinity, hi = -Infinity;
  for (const x of values) if (typeof x === 'number' && Number.isFinite(x)) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
  const spread = hi - lo, big = Math.max(Math.abs(lo), Math.abs(hi));
  const digits = spread > 0 ? Math.min(17, places + Math.max(0, Math.ceil(Math.log10(big / spread)))) : places;
  return values.map((x) => (typeof x === 'number' ? (Number.isInteger(x) || !Number.isFinite(x) ? x : Number(x.toPrecision(digits)))
    : roundToRange(x, places)));
}

/** A result's series rounded (roundToRange): a contour's grid (describe's plots) to 3 places, the rest to 4. */
export function compact(series, plots) {
  const grids = new Set(plots.filter((p) => p.type === 'contour').flatMap((p) => p.panels.map((panel) => panel.grid)));
  return Object.fromEntries(Object.entries(series).map(([name, s]) => [name, roundToRange(s, grids.has(name) ? GRID_PLACES : PLACES)]));
}

/** Runs experiment `id` at its defaults as the worker would (worker.js, js-variants.js); returns the result. */
async function runDefault(api, id) {
  const run = api.createRun({ experiment: id });
  try {
    while (!run.advance(50)) { /* to its end */ }
    const measured = await measureJsVariants(api, run.result(), { cancelled: () => false, progress: () => {}, nextTurn: async () => {} });
    if (measured) run.addMeasurements(measured);
    return run.result();
  } finally {
    run.delete();
  }
}

/** True when every experiment of `ids` has a saved run newer than the module and the scripts that made it. */
function upToDate(ids) {
  const have = new Set((() => { try { return readdirSync(SAVED_DIR); } catch { return []; } })());
  const built = Math.max(...SOURCES.map((f) => statSync(f).mtimeMs));
  return ids.every((id) => have.has(`${id}.json`) && statSync(join(SAVED_DIR, `${id}.json`)).mtimeMs > built);
}

/**
 * Runs each experiment of `ids` (every one when empty) at its defaults and writes its saved run;
 * `ifStale`: only when some saved run is missing or older than the module. Returns the ids written.
 */
export async function writeSavedRuns(ids = [], { ifStale = false, log = console.log } = {}) {
  const catalogs = readCatalogs();
  addCatalog('en', catalogs.en);   // js-variants' progress messages
  const api = wrap(await loadModule('looplab', { catalogs: [] }), catalogs);
  const all = api.listExperiments('en').map((x) => x.id);
  const unknown = ids.filter((id) => !all.includes(id));
  if (unknown.length) throw new Error(`unknown experiment ${unknown.join(', ')}: one of ${all.join(', ')}`);
  const wanted = ids.length ? ids : all;
  if (ifStale && upToDate(wanted)) return [];
  api.warmUp();
  // The plots' specs, for a contour's grid: from describe(), which the test module has (the shipped one leaves it to the language files).
  const described = wrap(await loadModule('looplab-test', { catalogs: [] }), catalogs);
  mkdirSync(SAVED_DIR, { recursive: true });
  const saved = { where: where(), when: new Date().toISOString().slice(0, 10) };
  for (const id of wanted) {
    const t0 = performance.now();
    const result = await runDefault(api, id);
    const text = JSON.stringify({ ...result, series: compact(result.series, described.describe(id, 'en').plots), saved });
    writeFileSync(join(SAVED_DIR, `${id}.json`), `${text}\n`);
    log(`  saved run: ${id} in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${text.length.toLocaleString('en-US')} B`);
  }
  return wanted;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writeSavedRuns(process.argv.slice(2));
