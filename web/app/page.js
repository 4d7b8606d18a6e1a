// The looplab page (web/index.html): an experiment picker around the experiment panel
// (panel/panel.js), the same panel the widget and the iframe embed use. The page adds what only a
// whole page has: the picker, the address bar as the share link (?experiment=…&<param>=…, written
// when a run starts and read back on load), Escape anywhere to stop, and what this browser measured.
import { connect, onModuleDownload } from '../runtime/connect.js';
import { ExperimentPanel } from '../panel/panel.js';
import { el } from '../util/dom.js';
import { LANGUAGES, LANGUAGE_NAMES, browserLang, chooseLang, hasCatalog, t, text } from '../util/i18n.js';
import { relabel } from '../panel/shell.js';
import { measureClockStepNs, renderEnvironment } from './environment.js';

// The language: ?lang=, else the browser's; the picker switches it in place and sets ?lang= (one
// download: that language's file, with its catalog, runtime/client.js). The page's own labels are
// said once the catalog has come (sayPage).
const pageQuery = new URLSearchParams(location.search);
let lang = chooseLang(pageQuery.get('lang'), browserLang());
document.documentElement.lang = lang;

const picker = document.getElementById('experiment');
const panel = new ExperimentPanel(document.getElementById('app'), {
  layout: 'page', linkBase: location.href.split(/[?#]/)[0], lang,
});
panel.langInLink = pageQuery.has('lang');
const environment = el('section', 'environment');
environment.id = 'environment';
panel.ui.side.append(environment);
const pageClockNs = measureClockStepNs();
let shownEnvironment = null;   // the environment last shown, to show again in another language

// For tests and the curious: window.__looplab.status, .lastResult, .plots[i].pointCount() (bars: .bars())
window.__looplab = {
  get status() { return panel.status; },
  get lastResult() { return panel.result; },
  get savedResult() { return panel.savedResult; },
  get describe() { return panel.describe; },
  get plots() { return panel.plots; },
};

/** Loads experiment `id` into the panel with the values of `query`; resolves when validated. */
async function showExperiment(id, query) {
  await panel.load(id);
  sayPage();
  picker.value = id;
  document.title = `${panel.describe.title} · looplab`;
  const values = new URLSearchParams(query);
  values.delete('lang');
  const unknown = panel.setValues(values);
  panel.showNote(unknown.length ? t(unknown.length > 1 ? 'ui.ignored_url_params' : 'ui.ignored_url_param', { names: unknown.join(', ') }, lang) : '');
  if (!panel.client.wasReady) panel.setStatus('loading the WebAssembly module');   // validating needs it
  await panel.settle();
}

function showEnvironment(env) {
  shownEnvironment = env;
  renderEnvironment(environment, env, pageClockNs, lang);
}

/** The page's own labels and what this browser measured, in `lang`, once its catalog is there (the panel loads it). */
function sayPage() {
  if (!hasCatalog(lang)) return;   // a switch under way: said again once its experiment is shown
  relabel(document, lang);
  environment.setAttribute('aria-label', t('ui.environment', {}, lang));
  if (shownEnvironment) showEnvironment(shownEnvironment);
}

/**
 * The language picker: choosing says everything in that language in place (the page's labels, the
 * experiment loaded again with the configuration kept, as a shared link with ?lang= would), with
 * one request, its language file: a reload would fetch every script and the wasm again (the server
 * says no-cache).
 */
function fillLanguages() {
  const select = document.getElementById('lang');
  if (!select) return;
  select.replaceChildren(...LANGUAGES.map((l) => Object.assign(el('option', null, LANGUAGE_NAMES[l]), { value: l, lang: l })));
  select.value = lang;
  select.disabled = false;
  select.addEventListener('change', () => {
    const q = panel.describe ? panel.query() : new URLSearchParams(location.search);
    q.set('lang', select.value);
    history.replaceState(null, '', `?${q}`);
    panel.langInLink = true;
    if (panel.running) panel.stop();
    lang = select.value;
    document.documentElement.lang = lang;
    panel.setLang(lang);
    if (!panel.describe) return;          // still starting: start() loads in the language now set
    panel.whileLoading(fillPicker().then(() => showExperiment(panel.describe?.id ?? picker.value, q)))
      .catch((e) => panel.fail(e));
  });
}

/** The experiment picker, in the page's language; its catalog arrives with the list (panel.experiments). */
async function fillPicker() {
  const list = await panel.experiments();
  sayPage();
  picker.replaceChildren(...list.map((x) => Object.assign(el('option', null, text(`exp.${x.id}.title`, x.title, lang)), { value: x.id })));
  picker.disabled = false;
  return list;
}

/**
 * The experiment list, then the experiment the URL names (or the first): its texts and controls come
 * from the build's static describe file (client.js) while the module loads; validating waits for it.
 */
async function start() {
  panel.setStatus('loading the WebAssembly module');
  fillLanguages();
  const stopShowing = onModuleDownload((progress) => panel.showDownload(progress));
  const client = connect();
  panel.setClient(client);
  // The environment once the module is up; a module that fails says so through the first request.
  client.ready.then(showEnvironment, () => {}).finally(() => {
    stopShowing();
    panel.showDownload(null);
  });
  const list = await fillPicker();
  const query = new URLSearchParams(location.search);
  const wanted = query.get('experiment');
  const known = list.some((x) => x.id === wanted);
  await showExperiment(known ? wanted : list[0].id, known ? query : new URLSearchParams());
  if (wanted && !known) panel.showNote(t('ui.unknown_experiment_url', { wanted, shown: list[0].id }, lang));
}

function wire() {
  picker.addEventListener('change', () => {
    const id = picker.value;
    const q = new URLSearchParams({ experiment: id });
    if (panel.langInLink) q.set('lang', lang);
    history.replaceState(null, '', `?${q}`);
    panel.whileLoading(showExperiment(id, new URLSearchParams())).catch((e) => panel.fail(e));
  });
  panel.addEventListener('runstart', () => history.replaceState(null, '', `?${panel.query()}`));
  panel.addEventListener('running', (e) => { picker.disabled = e.detail.running; });
  panel.addEventListener('result', (e) => {
    if (e.detail.result.environment) showEnvironment(e.detail.result.environment);
  });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') panel.stop(); });
}

wire();
panel.whileLoading(start()).catch((e) => panel.fail(e));
