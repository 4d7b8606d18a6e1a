// The page of dist/looplab-standalone.html (bundled into it by build-dist.mjs; not served as a module).
// One widget with an experiment picker. Its configuration comes from the URL query when it names an
// experiment (file:///…/looplab-standalone.html?experiment=overhead&controls=all), else from the
// preset in the file (<script type="application/json" id="looplab-preset">, which the authoring
// page rewrites for a lesson). The worker is a Blob URL made from the inlined worker script.
// The widget module itself, not the entry that re-exports it: the bundler takes no re-exports.
import { LooplabClient } from '../runtime/client.js';
import { configure, define } from '../widgets/looplab-experiment.js';

const NAME_RE = /^[a-z][a-z0-9_]*$/;

// NOTE: LooplabClient starts a module worker, which file:// pages may not do (not even from a Blob URL);
// the inlined worker script is classic, so this page starts its Blob-URL workers as classic ones.
// Scoped to this offline page: the served page and widgets keep module workers.
const NativeWorker = self.Worker;
self.Worker = class extends NativeWorker {
  constructor(url, options = {}) {
    super(url, String(url).startsWith('blob:') ? { ...options, type: 'classic' } : options);
  }
};
const text = (id) => document.getElementById(id).textContent;
const languageFiles = JSON.parse(text('looplab-languages'));   // every language's file, inline (build-dist.mjs)
const languageFile = async (lang) => (Object.hasOwn(languageFiles, lang) ? languageFiles[lang] : null);
const workerUrl = URL.createObjectURL(new Blob([text('looplab-worker')], { type: 'text/javascript' }));
configure({
  createClient: () => new LooplabClient(workerUrl, { languageFile }),
  inlineCss: text('looplab-widget-css'),
  linkBase: location.href.split(/[?#]/)[0],
});
define();

/** {attribute: value} from the query, or the preset. Names that are not attribute names are dropped. */
function initialAttributes() {
  const query = new URLSearchParams(location.search);
  let attrs = Object.fromEntries(query);
  if (!query.get('experiment')) {
    try { attrs = JSON.parse(text('looplab-preset')); } catch { attrs = {}; }
  }
  if (!attrs || typeof attrs !== 'object') attrs = {};
  return Object.fromEntries(Object.entries(attrs).filter(([k, v]) => NAME_RE.test(k) && typeof v !== 'object'));
}

const app = document.getElementById('app');
const picker = document.getElementById('experiment');

function mount(attrs) {
  const widget = document.createElement('looplab-experiment');
  for (const [k, v] of Object.entries({ controls: 'all', ...attrs })) widget.setAttribute(k, String(v));
  widget.addEventListener('looplab-ready', () => fillPicker(widget), { once: true });
  app.replaceChildren(widget);
  window.__widget = widget;     // for tests
}

function fillPicker(widget) {
  if (picker.options.length > 1 || !widget.experiments.length) { picker.value = widget.describe?.id; return; }
  picker.replaceChildren(...widget.experiments.map((x) => {
    const opt = document.createElement('option');
    opt.value = x.id;
    opt.textContent = x.title;
    return opt;
  }));
  picker.value = widget.describe?.id;
  picker.disabled = false;
}

picker.addEventListener('change', () => mount({ experiment: picker.value }));
mount(initialAttributes());
