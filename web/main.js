// The looplab page: pick an experiment, set its parameters, run it in the worker, watch it converge.
// Everything experiment-specific (controls, plots, tables, text) comes from describe() and the result.
import { LooplabClient } from './worker-client.js';
import { Controls } from './controls.js';
import { DataPicker } from './data-picker.js';
import { createPlot, seriesColors } from './plots.js';
import { renderExplanation, renderQuoted, renderResult, seriesCsv } from './summary.js';
import { el, formatDuration, formatValue, download } from './format.js';

const $ = (id) => document.getElementById(id);
const ui = {
  experiment: $('experiment'), eyebrow: $('eyebrow'), title: $('title'), explanation: $('explanation'),
  form: $('controls-form'), controls: $('controls'), formError: $('form-error'), urlNote: $('url-note'),
  run: $('run'), stop: $('stop'), reset: $('reset'),
  progress: $('progress'), status: $('status'), progressMessage: $('progress-message'),
  environment: $('environment'), plots: $('plots'),
  summary: $('summary'), headline: $('headline'), reading: $('reading'), runs: $('runs'), extra: $('summary-extra'),
  quoted: $('quoted'), exportJson: $('export-json'), exportCsv: $('export-csv'),
};

const state = {
  status: 'loading', lastResult: null, describe: null, controls: null, plots: [],
  colorOf: null,         // series / category name -> colour, shared by plots and tables
  active: null,          // the run in progress: {cancel()}
  starting: false,       // Run pressed, config being validated
  validation: 0,         // sequence number of the latest validate request
  environment: null, pageClockNs: NaN,
};

// For tests and the curious: window.__looplab.status, .lastResult, .plots[i].pointCount() (bars: .bars())
window.__looplab = {
  get status() { return state.status; },
  get lastResult() { return state.lastResult; },
  get describe() { return state.describe; },
  get plots() { return state.plots; },
};

function setStatus(text) {
  state.status = text;
  ui.status.textContent = text;
  ui.status.dataset.state = text.split(/[\s:]/)[0];
}

function fail(err) {
  const message = err instanceof Error ? err.message : String(err);
  setStatus(`error: ${message}`);
}

/** Smallest step of performance.now() on this page (coarsened to 5 µs or 100 µs by the browser). */
function measureClockStepNs() {
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

function renderEnvironment(env) {
  ui.environment.replaceChildren(el('h2', null, 'Measured in this browser'));
  const dl = el('dl', 'env-list');
  const add = (k, v) => dl.append(el('dt', null, k), el('dd', null, v));
  add('build', `${env.build ?? '?'}${env.simd ? ', SIMD' : ', no SIMD'}`);
  if (env.compiler) add('compiler', env.compiler);
  add('core clock step', formatDuration(env.clock_resolution_ns));
  add('page clock step', formatDuration(state.pageClockNs));
  add('cross-origin isolated', window.crossOriginIsolated ? 'yes' : 'no');
  for (const [k, v] of Object.entries(env)) {
    if (['build', 'simd', 'compiler', 'clock_resolution_ns'].includes(k) || (v !== null && typeof v === 'object')) continue;
    add(k.replace(/_/g, ' '), formatValue(v));
  }
  ui.environment.append(dl, el('p', 'env-note',
    'Core clock: C++ steady_clock in the worker, as the core measured it. Page clock: the smallest step of '
    + 'performance.now() on this page. Browsers coarsen both (5 µs when cross-origin isolated, 100 µs '
    + 'otherwise), so timings come from chunks of many steps, never single steps.'));
}

async function loadExperiment(id, query) {
  const d = await state.client.describe(id);
  state.describe = d;
  ui.experiment.value = d.id;
  document.title = `${d.title} · looplab`;
  // The question is the headline; the experiment's short title sits above it.
  ui.title.textContent = d.question || d.title;
  ui.eyebrow.textContent = d.question && d.title !== d.question ? d.title : '';
  ui.eyebrow.hidden = !ui.eyebrow.textContent;
  renderExplanation(ui.explanation, d.explanation);
  state.controls = new Controls(ui.controls, d.parameters || [], () => scheduleValidation());
  state.data.show(Boolean(d.takes_csv));
  const unknown = state.controls.applyQuery(query);
  for (const p of state.plots) p.destroy();
  state.colorOf = seriesColors(d.plots);
  state.plots = (d.plots || []).map((spec) => createPlot(ui.plots, spec, state.colorOf));
  renderQuoted(ui.quoted, d.quoted);
  clearResult();
  showUrlNote(unknown.length ? `ignored unknown URL parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : '');
  showFormError('');
  if ([...query.keys()].some((k) => k !== 'experiment')) await validateNow();
}

function clearResult() {
  state.lastResult = null;
  ui.summary.hidden = true;
  ui.exportJson.disabled = true;
  ui.exportCsv.disabled = true;
  for (const p of state.plots) p.clear();
}

function config() {
  const csv = state.data.attachment();   // the user's own CSV, when one is loaded
  return { experiment: state.describe.id, ...state.controls.values(), ...(csv ? { csv } : {}) };
}

function showUrlNote(message) {
  ui.urlNote.textContent = message;
  ui.urlNote.hidden = !message;
}

function showFormError(message) {
  ui.formError.textContent = message;
  ui.formError.hidden = !message;
}

/** Asks the core; shows its message under the named control. Resolves true when valid and current. */
async function validateNow() {
  const seq = ++state.validation;
  try {
    await state.client.validate(config());
    if (seq !== state.validation) return false;
    state.controls.clearErrors();
    state.data.showError('');
    showFormError('');
    return true;
  } catch (e) {
    if (seq !== state.validation) return false;
    const shown = state.controls.showError(e.message) || state.data.showError(e.message);
    if (!shown) state.data.showError('');
    showFormError(shown ? '' : e.message);
    return false;
  }
}

let validationTimer = 0;
function scheduleValidation() {
  clearTimeout(validationTimer);
  validationTimer = setTimeout(() => validateNow(), 120);
}

function setRunning(running) {
  ui.run.disabled = running;
  ui.stop.disabled = !running;
  ui.reset.disabled = running;
  ui.experiment.disabled = running;
  state.controls.setLocked(running);
  state.data.setLocked(running);
  document.body.classList.toggle('running', running);
}

async function run() {
  if (state.active || state.starting || !state.describe) return;
  clearTimeout(validationTimer);
  state.starting = true;             // a second click while the config is being validated does nothing
  let valid;
  try { valid = await validateNow(); } finally { state.starting = false; }
  if (!valid) {
    const err = ui.controls.querySelector('.field.invalid');
    if (err) state.controls.focus(err.dataset.param);
    const shownError = ui.controls.querySelector('.field-error:not([hidden])')?.textContent
      || state.data.error.textContent || ui.formError.textContent;
    setStatus(`error: ${shownError}`);
    return;
  }
  const cfg = config();
  history.replaceState(null, '', `?${state.controls.toQuery(cfg.experiment)}`);
  clearResult();
  setRunning(true);
  setStatus('running');
  ui.progress.value = 0;
  ui.progressMessage.textContent = 'starting…';
  const started = performance.now();
  const handle = state.client.run(cfg, (p) => {
    if (typeof p.fraction === 'number') ui.progress.value = p.fraction;
    if (p.message) ui.progressMessage.textContent = p.message;
    for (const plot of state.plots) plot.append(p.series);
  });
  state.active = handle;
  try {
    const { result, cancelled } = await handle.done;
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    if (cancelled) {
      ui.progressMessage.textContent = `stopped after ${secs} s; the plots show the points reached so far`;
      setStatus('stopped');
      return;
    }
    state.lastResult = result;
    for (const plot of state.plots) plot.finish(result);
    showResult(result);
    ui.progress.value = 1;
    ui.progressMessage.textContent = `finished in ${secs} s (wall time in the page, including plotting)`;
    setStatus('done');
  } catch (e) {
    ui.progressMessage.textContent = '';
    fail(e);
  } finally {
    state.active = null;
    setRunning(false);
  }
}

function showResult(result) {
  renderResult({ headline: ui.headline, reading: ui.reading, runs: ui.runs, extra: ui.extra }, result, state.colorOf);
  if (result.environment) renderEnvironment(result.environment);
  ui.summary.hidden = false;
  ui.exportJson.disabled = false;
  ui.exportCsv.disabled = false;
}

function stamp() {
  return new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
}

function wire() {
  ui.form.addEventListener('submit', (e) => { e.preventDefault(); run(); });
  ui.stop.addEventListener('click', () => {
    if (!state.active) return;
    ui.progressMessage.textContent = 'stopping after the current chunk…';
    state.active.cancel();
  });
  ui.reset.addEventListener('click', () => { state.controls.reset(); showFormError(''); scheduleValidation(); });
  ui.experiment.addEventListener('change', async () => {
    const id = ui.experiment.value;
    history.replaceState(null, '', `?${new URLSearchParams({ experiment: id })}`);
    setStatus('loading');
    try {
      await loadExperiment(id, new URLSearchParams());
      setStatus('ready');
    } catch (e) { fail(e); }
  });
  ui.exportJson.addEventListener('click', () => {
    const r = state.lastResult;
    if (r) download(`looplab-${r.experiment}-${stamp()}.json`, `${JSON.stringify(r, null, 2)}\n`, 'application/json');
  });
  ui.exportCsv.addEventListener('click', () => {
    const r = state.lastResult;
    if (r) download(`looplab-${r.experiment}-${stamp()}-series.csv`, seriesCsv(r.series), 'text/csv');
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.active) ui.stop.click();
  });
}

async function main() {
  state.data = new DataPicker(ui.controls.parentElement, () => scheduleValidation());
  ui.formError.before(state.data.root);
  wire();
  state.pageClockNs = measureClockStepNs();
  setStatus('loading the WebAssembly module');
  state.client = new LooplabClient(new URL('./worker.js', import.meta.url));
  // A crashed worker is replaced by the client; say so even when no run was waiting on it.
  state.client.onRestart = (err) => { if (!state.active) fail(err); };
  const env = await state.client.ready;
  state.environment = env;
  renderEnvironment(env);
  const list = await state.client.list();
  ui.experiment.replaceChildren(...list.map((x) => {
    const opt = el('option', null, `${x.title}`);
    opt.value = x.id;
    return opt;
  }));
  const query = new URLSearchParams(location.search);
  const wanted = query.get('experiment');
  const known = list.some((x) => x.id === wanted);
  await loadExperiment(known ? wanted : list[0].id, known ? query : new URLSearchParams());
  if (wanted && !known) showUrlNote(`unknown experiment "${wanted}" in the URL; showing ${list[0].id}`);
  setStatus('ready');
}

main().catch(fail);
