// <looplab-experiment>: one experiment, preset for one lesson, embedded in any page by one script tag.
//
//   <script type="module" src="https://…/web/looplab-widgets.js"></script>
//   <looplab-experiment experiment="standardization" lr_raw="3e-4" controls="lr_scaled"></looplab-experiment>
//
// Attributes: `experiment`; every parameter of that experiment under its CLI name (read from the
// module's describe(), so a new parameter is a new attribute with no change here); `controls` (the
// parameters the reader may change: names separated by spaces or commas, or `all`; the others are
// fixed by the lesson and listed read-only); `autorun` (run once when scrolled into view); `compact`;
// `theme` = light | dark | auto (default auto: follows prefers-color-scheme); `lang` = en | zh-CN | id,
// the language of everything the widget says (else the nearest lang of the host page, then the
// browser's language).
//
// The element is a shell around the experiment panel (panel/panel.js, the same one the page uses):
// it maps attributes to the panel's experiment and values, starts a Web Worker when it comes near
// the viewport (several widgets never freeze the page), and turns the panel's events into its own.
// Attribute changes coalesce into one update. An invalid value shows the core's own message (the same
// validateConfig the CLI calls).
//
// Events (bubbling, composed) for hosts and embed.js: looplab-ready {experiment, parameters},
// looplab-status {status}, looplab-progress {fraction, message}, looplab-result {result},
// looplab-error {message}. Methods: run(), stop(), link(). Properties: status, result, describe,
// experiments, plots.
import { connect, onModuleDownload } from '../runtime/connect.js';
import { ExperimentPanel } from '../panel/panel.js';
import { browserLang, chooseLang, t } from '../util/i18n.js';

/**
 * Where the worker and the stylesheets come from; the offline single file replaces these (see configure).
 * All are resolved against this module, so they load from wherever the script came from (a CDN too).
 */
const settings = {
  createClient: connect,
  styles: [new URL('../styles/looplab.css', import.meta.url).href],   // uPlot's, the panel's and the widget's
  inlineCss: null,          // text of a <style> instead of <link>s (file://, where no CSP applies)
  linkBase: new URL('../index.html', import.meta.url).href,
};

/** For the offline build: {createClient, inlineCss, linkBase}. Call before the first widget connects. */
export function configure(options) {
  Object.assign(settings, options);
}

const WIDGET_ATTRS = new Set(['experiment', 'controls', 'autorun', 'compact', 'theme']);
const STYLE_ATTRS = new Set(['compact', 'theme', 'autorun']);   // change how the widget looks or starts, not what runs
// Attributes any element may carry; they are not experiment parameters and are never reported.
const GLOBAL_ATTRS = new Set(['id', 'class', 'style', 'title', 'lang', 'dir', 'hidden', 'tabindex', 'slot', 'part',
  'role', 'is', 'nonce', 'inert', 'translate', 'draggable', 'spellcheck', 'autofocus', 'contenteditable']);
const isGlobalAttr = (name) => GLOBAL_ATTRS.has(name) || name.startsWith('data-') || name.startsWith('aria-');
const PANEL_EVENTS = ['status', 'progress', 'result', 'error'];
const UPDATE_DELAY_MS = 30;

/** "lr_raw, scaling" | "lr_raw scaling" | "all" -> Set of names. */
function parseControls(text, parameters) {
  const names = String(text || '').split(/[\s,]+/).filter(Boolean);
  if (names.includes('all')) return new Set(parameters.map((p) => p.name));
  return new Set(names);
}

export class LooplabExperiment extends HTMLElement {
  constructor() {
    super();
    this.client = null;
    this.updates = 0;
    this.root = this.attachShadow({ mode: 'open' });
    const styles = this.buildStyles();
    const frame = document.createElement('div');
    frame.className = 'widget';
    frame.setAttribute('part', 'widget');
    this.root.replaceChildren(...styles, frame);
    this.frame = frame;
    this.panel = new ExperimentPanel(frame, { layout: 'widget', linkBase: settings.linkBase });
    for (const type of PANEL_EVENTS) this.panel.addEventListener(type, (e) => this.emit(`looplab-${type}`, e.detail));
    this.revealWhenStyled(styles);
    this.observer = new MutationObserver(() => this.scheduleUpdate());
  }

  get status() { return this.panel.status; }
  /** The experiment it shows: its `experiment` attribute, else the first. */
  get experimentId() { return this.getAttribute('experiment') || 'standardization'; }
  get result() { return this.panel.result; }
  get describe() { return this.panel.describe; }
  /** The module's experiment list [{id, title, ...}] once loaded (for pickers around the widget). */
  get experiments() { return this.list || []; }
  /** The plot objects, one per chart (tests read their points). */
  get plots() { return this.panel.plots; }
  /** How many coalesced updates have been applied (tests check that bursts coalesce). */
  get updateCount() { return this.updates; }

  connectedCallback() {
    this.observer.observe(this, { attributes: true });
    this.watchVisibility();
  }

  disconnectedCallback() {
    this.observer.disconnect();
    this.visibility?.disconnect();
    this.visibility = null;
    // Settles everything pending: a running run ends as 'stopped'. Connecting again starts afresh.
    this.client?.terminate('the widget was removed from the page');   // i18n: the client's reason, not shown
    this.client = null;
    this.panel.setClient(null);
    this.loaded = null;
    this.loadedId = null;
    this.appliedSignature = null;
  }

  buildStyles() {
    if (settings.inlineCss) return [Object.assign(document.createElement('style'), { textContent: settings.inlineCss })];
    // crossOrigin: a CDN's stylesheets then load with CORS, which a host that isolates itself
    // (Cross-Origin-Embedder-Policy) requires of cross-origin subresources.
    return settings.styles.map((href) => Object.assign(document.createElement('link'), {
      rel: 'stylesheet', href, ...(new URL(href).origin === location.origin ? {} : { crossOrigin: 'anonymous' }),
    }));
  }

  /** Keeps the widget hidden until its stylesheets load (no flash of unstyled controls, no jump in height). */
  revealWhenStyled(styles) {
    const links = styles.filter((n) => n.tagName === 'LINK');
    if (!links.length) return;
    this.frame.hidden = true;
    let pending = links.length;
    const done = () => { if (--pending === 0) this.frame.hidden = false; };
    for (const link of links) {
      link.addEventListener('load', done, { once: true });
      link.addEventListener('error', done, { once: true });   // unstyled beats invisible
    }
  }

  /** Starts the worker when the widget comes near the viewport; autorun when it is in view. */
  watchVisibility() {
    if (typeof IntersectionObserver !== 'function') { this.start(); return; }
    this.visibility = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      this.start();
      this.inView = true;
      if (this.hasAttribute('autorun')) this.loaded?.then(() => this.autorun());
    }, { rootMargin: '200px' });
    this.visibility.observe(this);
  }

  start() {
    if (this.client || !this.isConnected) return;
    this.panel.setStatus('loading');
    const stopShowing = onModuleDownload((progress) => this.panel.showDownload(progress));   // as the page does
    this.client = settings.createClient();
    this.client.ready.catch((e) => this.panel.fail(e));
    this.client.ready.finally(() => { stopShowing(); this.panel.showDownload(null); }).catch(() => {});
    this.panel.setClient(this.client);
    // A widget that sets no parameter shows its experiment's saved run first (panel.js): asked for
    // now, beside the texts, not once they have come (issue 39, item 6).
    if ([...this.attributes].every((a) => WIDGET_ATTRS.has(a.name) || isGlobalAttr(a.name))) {
      const id = this.experimentId;
      Promise.resolve().then(() => this.client?.savedRun?.(id)).catch(() => {});   // a host's own client may lack it
    }
    this.update();
  }

  /** Runs the experiment; before the worker is up (or while it loads) the run is queued. */
  run() {
    this.start();
    return this.panel.run();
  }

  stop() {
    this.panel.stop();
  }

  /** The full page's URL for this exact configuration. */
  link() {
    return this.panel.link();
  }

  autorun() {
    if (this.autorunDone || this.panel.running || !this.panel.describe) return;
    this.autorunDone = true;
    this.run();
  }

  // ---- attributes -> panel ----
  scheduleUpdate() {
    if (!this.client || this.updateTimer) return;
    // Coalesce a burst (an author's script setting several attributes, a slider) into one update.
    this.updateTimer = setTimeout(() => { this.updateTimer = 0; this.update(); }, UPDATE_DELAY_MS);
  }

  /** Applies every attribute: loads the experiment if it changed, then the parameter values. */
  update() {
    if (!this.client) return Promise.resolve();   // disconnected meanwhile; connecting again updates
    this.updates++;
    // The language: this element's lang, else the host page's (the nearest lang around it), else the browser's.
    const lang = chooseLang(this.closest('[lang]')?.getAttribute('lang'), browserLang());
    if (lang !== this.panel.lang) {
      this.panel.setLang(lang);
      this.loadedId = null;             // the experiment's texts are loaded again in the new language
      this.appliedSignature = null;
    }
    this.frame.classList.toggle('compact', this.hasAttribute('compact'));
    this.panel.ui.explain.open = !this.hasAttribute('compact');
    const id = this.experimentId;
    const wanted = this.paramSignature();
    // Only a change of what runs (experiment, parameters, controls) reconfigures; theme and compact are styling.
    if (this.loadedId === id && wanted === this.appliedSignature) return this.loaded;
    this.appliedSignature = wanted;
    if (this.panel.running) this.stop();
    let work;
    if (this.loadedId !== id) {
      this.loadedId = id;
      work = this.loadExperiment(id).then(() => this.applyAttributes(wanted));
    } else {
      work = (this.loaded || Promise.resolve()).then(() => this.applyAttributes(wanted));
    }
    this.loaded = this.panel.whileLoading(work).catch((e) => this.panel.fail(e));
    return this.loaded;
  }

  async loadExperiment(id) {
    this.list = await this.panel.experiments();
    await this.panel.load(id);
  }

  paramSignature() {
    return [...this.attributes].filter((a) => !STYLE_ATTRS.has(a.name)).map((a) => `${a.name}=${a.value}`).join('\n');
  }

  /** Sets the panel from the attributes; hides the controls the lesson fixes; validates. */
  async applyAttributes(signature) {
    const d = this.panel.describe;
    if (signature !== this.paramSignature() || !d) return;   // a newer update follows
    const names = new Set(d.parameters.map((p) => p.name));
    const values = [];
    const unknown = [];
    for (const { name, value } of this.attributes) {
      if (names.has(name)) values.push([name, value]);
      else if (!WIDGET_ATTRS.has(name) && !isGlobalAttr(name)) unknown.push(name);
    }
    const visible = parseControls(this.getAttribute('controls'), d.parameters);
    this.panel.setValues(values, visible);
    const notParams = [...visible].filter((n) => !names.has(n));
    const lang = this.panel.lang;
    this.panel.showNote([
      unknown.length ? t(unknown.length > 1 ? 'ui.ignored_attrs' : 'ui.ignored_attr', { names: unknown.join(', ') }, lang) : '',
      notParams.length ? t('ui.controls_no_param', { names: notParams.join(', ') }, lang) : '',
    ].filter(Boolean).join('; '));
    const valid = await this.panel.settle();
    this.emit('looplab-ready', { experiment: d.id, parameters: d.parameters.map((p) => p.name) });
    if (valid && this.inView && this.hasAttribute('autorun')) this.autorun();
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

/**
 * Defines the element once under `tag` (a page may load the script twice). This module only exports
 * the class (`looplab/element`); looplab-widgets.js (`import 'looplab'`) calls define().
 */
export function define(tag = 'looplab-experiment') {
  if (!customElements.get(tag)) customElements.define(tag, class extends LooplabExperiment {});
}
