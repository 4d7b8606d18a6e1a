// The looplab page (web/index.html): an experiment picker around the experiment panel
// (panel/panel.js), the same panel the widget and the iframe embed use. The page adds what only a
// whole page has: the picker, the address bar as the share link (?experiment=…&<param>=…, written
// when a run starts and read back on load), Escape anywhere to stop, and what this browser measured.
import { connect } from '../runtime/connect.js';
import { ExperimentPanel } from '../panel/panel.js';
import { el } from '../util/dom.js';
import { measureClockStepNs, renderEnvironment } from './environment.js';

const picker = document.getElementById('experiment');
const panel = new ExperimentPanel(document.getElementById('app'), {
  layout: 'page', linkBase: location.href.split(/[?#]/)[0],
});
const environment = el('section', 'environment');
environment.id = 'environment';
environment.setAttribute('aria-label', 'Environment');
panel.ui.side.append(environment);
const pageClockNs = measureClockStepNs();

// For tests and the curious: window.__looplab.status, .lastResult, .plots[i].pointCount() (bars: .bars())
window.__looplab = {
  get status() { return panel.status; },
  get lastResult() { return panel.result; },
  get describe() { return panel.describe; },
  get plots() { return panel.plots; },
};

const plural = (n, word) => `${word}${n > 1 ? 's' : ''}`;

/** Loads experiment `id` into the panel with the values of `query`; resolves when validated. */
async function showExperiment(id, query) {
  await panel.load(id);
  picker.value = id;
  document.title = `${panel.describe.title} · looplab`;
  const unknown = panel.setValues(query);
  panel.showNote(unknown.length ? `ignored unknown URL ${plural(unknown.length, 'parameter')}: ${unknown.join(', ')}` : '');
  await panel.settle();
}

async function fillPicker() {
  const list = await panel.experiments();
  picker.replaceChildren(...list.map((x) => Object.assign(el('option', null, x.title), { value: x.id })));
  picker.disabled = false;
  return list;
}

/** The module, the experiment list, then the experiment the URL names (or the first). */
async function start() {
  panel.setStatus('loading the WebAssembly module');
  const client = connect();
  panel.setClient(client);
  renderEnvironment(environment, await client.ready, pageClockNs);
  const list = await fillPicker();
  const query = new URLSearchParams(location.search);
  const wanted = query.get('experiment');
  const known = list.some((x) => x.id === wanted);
  await showExperiment(known ? wanted : list[0].id, known ? query : new URLSearchParams());
  if (wanted && !known) panel.showNote(`unknown experiment "${wanted}" in the URL; showing ${list[0].id}`);
}

function wire() {
  picker.addEventListener('change', () => {
    const id = picker.value;
    history.replaceState(null, '', `?${new URLSearchParams({ experiment: id })}`);
    panel.whileLoading(showExperiment(id, new URLSearchParams())).catch((e) => panel.fail(e));
  });
  panel.addEventListener('runstart', () => history.replaceState(null, '', `?${panel.query()}`));
  panel.addEventListener('running', (e) => { picker.disabled = e.detail.running; });
  panel.addEventListener('result', (e) => {
    if (e.detail.result.environment) renderEnvironment(environment, e.detail.result.environment, pageClockNs);
  });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') panel.stop(); });
}

wire();
panel.whileLoading(start()).catch((e) => panel.fail(e));
