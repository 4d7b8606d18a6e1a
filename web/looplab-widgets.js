// <looplab-experiment>: one experiment, preset for one lesson, embedded in any page by one script tag.
//
//   <script type="module" src="https://…/web/looplab-widgets.js"></script>
//   <looplab-experiment experiment="standardization" lr_raw="3e-4" controls="lr_scaled"></looplab-experiment>
//
// Attributes: `experiment`; every parameter of that experiment under its CLI name (read from the
// module's describe(), so a new parameter is a new attribute with no change here); `controls` (the
// parameters the reader may change: names separated by spaces or commas, or `all`; the others are
// fixed by the lesson and listed read-only); `autorun` (run once when scrolled into view); `compact`;
// `theme` = light | dark | auto (default auto: follows prefers-color-scheme).
//
// Attribute changes coalesce into one update. An invalid value shows the core's own message (the same
// validateConfig the CLI calls). Each widget owns a Web Worker that runs the experiment in ~50 ms
// chunks, so several widgets never freeze the page. Built from the page's modules (controls.js,
// plots.js, summary.js); every text goes through textContent, never HTML.
//
// Events (bubbling, composed) for hosts and embed.js: looplab-ready {experiment, parameters},
// looplab-status {status}, looplab-progress {fraction, message}, looplab-result {result},
// looplab-error {message}. Methods: run(), stop(). Properties: status, result, describe.
import { LooplabClient } from './worker-client.js';
import { Controls } from './controls.js';
import { createPlot, seriesColors } from './plots.js';
import { renderExplanation, renderResult, seriesCsv } from './summary.js';
import { el, download, formatValue } from './format.js';
import { dataTable, chartImage } from './widget-data.js';

/** Where the worker and the stylesheets come from; the offline single file replaces these (see configure). */
const settings = {
  createClient: () => new LooplabClient(new URL('./worker.js', import.meta.url)),
  styles: [new URL('../node_modules/uplot/dist/uPlot.min.css', import.meta.url).href,
    new URL('./widget.css', import.meta.url).href],
  inlineCss: null,          // text of a <style> instead of <link>s (file://, where no CSP applies)
  linkBase: new URL('./index.html', import.meta.url).href,
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
const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';

/** "lr_raw, scaling" | "lr_raw scaling" | "all" -> Set of names (or 'all'). */
function parseControls(text, parameters) {
  const names = String(text || '').split(/[\s,]+/).filter(Boolean);
  if (names.includes('all')) return new Set(parameters.map((p) => p.name));
  return new Set(names);
}

export class LooplabExperiment extends HTMLElement {
  constructor() {
    super();
    this.state = { status: 'idle', result: null, describe: null, active: null, updates: 0 };
    this.root = this.attachShadow({ mode: 'open' });
    this.buildShell();
    this.observer = new MutationObserver(() => this.scheduleUpdate());
  }

  get status() { return this.state.status; }
  get result() { return this.state.result; }
  get describe() { return this.state.describe; }
  /** The module's experiment list [{id, title, ...}] once loaded (for pickers around the widget). */
  get experiments() { return this.state.list || []; }
  /** How many coalesced updates have been applied (tests check that bursts coalesce). */
  get updateCount() { return this.state.updates; }

  connectedCallback() {
    this.observer.observe(this, { attributes: true });
    this.watchVisibility();
  }

  disconnectedCallback() {
    this.observer.disconnect();
    this.visibility?.disconnect();
    this.visibility = null;
    if (this.state.active) {
      // The worker is terminated below, so this run never settles: forget it and release the buttons.
      this.state.active = null;
      this.setRunning(false);
      this.setStatus('stopped');
    }
    this.client?.worker.terminate();
    this.client = null;
    this.loaded = null;
    this.loadedId = null;          // reconnected: load again with the new worker
    this.appliedSignature = null;
    this.state.describe = null;
  }

  /** Starts the worker when the widget comes near the viewport; autorun when it is in view. */
  watchVisibility() {
    if (typeof IntersectionObserver !== 'function') { this.start(); return; }
    this.visibility = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      this.start();
      this.inView = true;
      if (this.hasAttribute('autorun') && !this.autorunDone) this.loaded?.then(() => this.autorun());
    }, { rootMargin: '200px' });
    this.visibility.observe(this);
  }

  start() {
    if (this.client) return;
    this.setStatus('loading');
    this.client = settings.createClient();
    this.client.ready.catch((e) => this.fail(e));
    this.update();
  }

  autorun() {
    if (this.autorunDone || this.state.active || !this.state.describe) return;
    this.autorunDone = true;
    this.run();
  }

  // ---- the shadow DOM: built once, filled per experiment ----
  buildShell() {
    const styles = settings.inlineCss
      ? [el('style', null, settings.inlineCss)]
      : settings.styles.map((href) => Object.assign(document.createElement('link'), { rel: 'stylesheet', href }));
    const ui = {};
    ui.title = el('h2', 'title', 'looplab');
    ui.question = el('p', 'question');
    ui.explain = el('details', 'explain');
    ui.explainBody = el('div', 'explain-body');
    ui.explain.append(el('summary', null, 'What happens, and why'), ui.explainBody);
    ui.controls = el('div', 'controls');
    ui.fixedBox = el('div');
    ui.fixedBox.hidden = true;
    ui.fixedNote = el('p', 'fixed');
    ui.run = el('button', 'primary', 'Run');
    ui.run.type = 'submit';
    ui.stop = el('button', null, 'Stop');
    ui.stop.type = 'button';
    ui.stop.disabled = true;
    ui.progress = el('progress');
    ui.progress.max = 1;
    ui.progress.value = 0;
    ui.progress.setAttribute('aria-label', 'Run progress');
    ui.status = el('p', 'status', 'idle');
    ui.status.setAttribute('role', 'status');
    ui.status.setAttribute('aria-live', 'polite');
    ui.error = el('p', 'error');
    ui.error.setAttribute('role', 'alert');
    ui.error.hidden = true;
    ui.note = el('p', 'note');
    ui.note.hidden = true;
    ui.form = el('form', 'form', null, ui.controls, ui.fixedBox, ui.fixedNote,
      el('div', 'actions', null, ui.run, ui.stop, ui.progress), ui.status, ui.error, ui.note);
    ui.form.noValidate = true;
    ui.plots = el('div', 'plots');
    ui.headline = el('div', 'cards');
    ui.reading = el('p', 'reading');
    ui.runs = el('div', 'runs');
    ui.extra = el('div', 'extra');
    ui.exportJson = el('button', 'quiet', 'Results (JSON)');
    ui.exportCsv = el('button', 'quiet', 'Series (CSV)');
    ui.copyLink = el('button', 'quiet', 'Copy link');
    ui.linkBox = el('input', 'link-box');
    ui.linkBox.readOnly = true;
    ui.linkBox.hidden = true;
    ui.linkBox.setAttribute('aria-label', 'Link to this configuration');
    for (const b of [ui.exportJson, ui.exportCsv, ui.copyLink]) b.type = 'button';
    ui.details = el('details', 'more');
    ui.details.append(el('summary', null, 'All numbers'), ui.runs, ui.extra);
    ui.summary = el('section', 'summary', null, ui.headline, ui.reading, ui.details,
      el('div', 'exports', null, ui.exportJson, ui.exportCsv, ui.copyLink), ui.linkBox);
    ui.summary.hidden = true;
    ui.body = el('div', 'widget', null, el('header', 'head', null, ui.title, ui.question), ui.explain,
      ui.form, ui.plots, ui.summary);
    ui.body.setAttribute('part', 'widget');
    this.root.replaceChildren(...styles, ui.body);
    this.ui = ui;
    this.revealWhenStyled(styles);
    this.wire();
  }

  /** Keeps the widget hidden until its stylesheets load (no flash of unstyled controls, no jump in height). */
  revealWhenStyled(styles) {
    const links = styles.filter((n) => n.tagName === 'LINK');
    if (!links.length) return;
    this.ui.body.hidden = true;
    let pending = links.length;
    const done = () => { if (--pending === 0) this.ui.body.hidden = false; };
    for (const link of links) {
      link.addEventListener('load', done, { once: true });
      link.addEventListener('error', done, { once: true });   // unstyled beats invisible
    }
  }

  wire() {
    const { ui } = this;
    ui.form.addEventListener('submit', (e) => { e.preventDefault(); this.run(); });
    ui.stop.addEventListener('click', () => this.stop());
    ui.form.addEventListener('keydown', (e) => { if (e.key === 'Escape' && this.state.active) this.stop(); });
    ui.exportJson.addEventListener('click', () => this.exportJson());
    ui.exportCsv.addEventListener('click', () => this.exportCsv());
    ui.copyLink.addEventListener('click', () => this.copyLink());
  }

  // ---- attributes -> widget ----
  scheduleUpdate() {
    if (!this.client || this.updateTimer) return;
    // Coalesce a burst (an author's script setting several attributes, a slider) into one update.
    this.updateTimer = setTimeout(() => { this.updateTimer = 0; this.update(); }, 30);
  }

  /** Applies every attribute: loads the experiment if it changed, then the parameter values. */
  update() {
    if (!this.client) return Promise.resolve();   // disconnected meanwhile; connecting again updates
    this.state.updates++;
    this.ui.body.classList.toggle('compact', this.hasAttribute('compact'));
    this.ui.explain.open = !this.hasAttribute('compact');
    const id = this.getAttribute('experiment') || 'standardization';
    const wanted = this.paramSignature();
    // Only a change of what runs (experiment, parameters, controls) reconfigures; theme and compact are styling.
    if (this.loadedId === id && wanted === this.appliedSignature) return this.loaded;
    this.appliedSignature = wanted;
    if (this.state.active) this.stop();
    if (this.loadedId !== id) {
      this.loadedId = id;
      this.loaded = this.load(id).then(() => this.applyParams(wanted), (e) => this.fail(e));
    } else {
      this.loaded = (this.loaded || Promise.resolve()).then(() => this.applyParams(wanted));
    }
    return this.loaded;
  }

  paramSignature() {
    return [...this.attributes].filter((a) => !STYLE_ATTRS.has(a.name)).map((a) => `${a.name}=${a.value}`).join('\n');
  }

  async load(id) {
    const list = await this.client.list();
    this.state.list = list;
    if (!list.some((x) => x.id === id)) {
      throw new Error(`experiment: unknown experiment "${id}"; one of ${list.map((x) => x.id).join(' | ')}`);
    }
    const d = await this.client.describe(id);
    this.state.describe = d;
    const { ui } = this;
    ui.title.textContent = d.title;
    ui.question.textContent = d.question || '';
    renderExplanation(ui.explainBody, d.explanation);
    ui.fixedBox.replaceChildren();
    this.controls = new Controls(ui.controls, d.parameters || [], () => this.scheduleValidation());
    for (const p of this.plots || []) p.plot.destroy();
    ui.plots.replaceChildren();
    this.colorOf = seriesColors(d.plots);
    this.plots = (d.plots || []).map((spec) => this.addPlot(spec));
    this.clearResult();
  }

  /** A plot plus its "show data" table and image export, built from the plot object's own data. */
  addPlot(spec) {
    const box = el('div', 'plot-box');
    this.ui.plots.append(box);
    const plot = createPlot(box, spec, this.colorOf);
    const data = el('details', 'plot-data');
    const tableHolder = el('div', 'table-wrap');
    data.append(el('summary', null, `Show data: ${spec.title}`), tableHolder);
    data.addEventListener('toggle', () => { if (data.open) tableHolder.replaceChildren(dataTable(plot, spec, this.state.result)); });
    const image = el('button', 'quiet small', 'Download chart');
    image.type = 'button';
    image.addEventListener('click', () => chartImage(plot, spec).then(({ name, blob }) => download(
      `looplab-${this.loadedId}-${name}`, blob, blob.type)).catch((e) => this.showNote(e.message)));
    box.append(el('div', 'plot-tools', null, data, image));
    return { plot, spec, data, tableHolder };
  }

  /** Sets the controls from the attributes; hides the ones the lesson fixes; validates. */
  async applyParams(signature) {
    if (signature !== this.paramSignature() || !this.state.describe) return;   // a newer update follows
    const d = this.state.describe;
    const names = new Set(d.parameters.map((p) => p.name));
    const query = new URLSearchParams();
    const unknown = [];
    for (const { name, value } of this.attributes) {
      if (names.has(name)) query.set(name, value);
      else if (!WIDGET_ATTRS.has(name) && !isGlobalAttr(name)) unknown.push(name);
    }
    this.controls.reset();
    this.controls.applyQuery(query);
    this.showVisibleControls(parseControls(this.getAttribute('controls'), d.parameters), names);
    this.showNote(unknown.length ? `ignored unknown attribute${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : '');
    const valid = await this.validate();
    if (valid) this.setStatus('ready');
    else this.emit('looplab-error', { message: this.state.status.replace(/^error: /, '') });
    this.emit('looplab-ready', { experiment: d.id, parameters: d.parameters.map((p) => p.name) });
    if (valid && this.inView && this.hasAttribute('autorun')) this.autorun();
  }

  showVisibleControls(visible, names) {
    const { ui } = this;
    const fixed = [];
    for (const name of names) {
      const field = this.controls.fields.get(name);
      if (visible.has(name)) ui.controls.append(field.root);
      else {
        ui.fixedBox.append(field.root);
        if (this.controls.isApplicable(field.p)) fixed.push(`${name} = ${formatValue(this.controls.values()[name])}`);
      }
    }
    ui.controls.hidden = visible.size === 0;
    ui.fixedNote.textContent = fixed.length ? `Fixed for this lesson: ${fixed.join(', ')}` : '';
    ui.fixedNote.hidden = !fixed.length;
    const unknown = [...visible].filter((n) => !names.has(n));
    if (unknown.length) this.showNote(`controls: no parameter named ${unknown.join(', ')}`);
  }

  config() {
    return { experiment: this.state.describe.id, ...this.controls.values() };
  }

  scheduleValidation() {
    clearTimeout(this.validationTimer);
    this.validationTimer = setTimeout(() => this.validate(), 120);
  }

  /** The core's verdict; its message goes under a visible control, else into the widget's error line. */
  async validate() {
    const seq = (this.validation = (this.validation || 0) + 1);
    try {
      await this.client.validate(this.config());
      if (seq !== this.validation) return false;
      this.controls.clearErrors();
      this.showError('');
      if (this.state.status.startsWith('error')) this.setStatus('ready');
      return true;
    } catch (e) {
      if (seq !== this.validation) return false;
      const named = this.controls.showError(e.message);
      const field = this.ui.form.querySelector('.field.invalid');
      const visible = named && field && !this.ui.fixedBox.contains(field);
      this.showError(visible ? '' : e.message);
      this.setStatus(`error: ${e.message}`);
      return false;
    }
  }

  // ---- running ----
  async run() {
    if (this.state.active || this.starting || !this.state.describe) return;
    this.starting = true;
    let valid;
    try { valid = await this.validate(); } finally { this.starting = false; }
    if (!valid) { this.emit('looplab-error', { message: this.state.status.replace(/^error: /, '') }); return; }
    this.clearResult();
    this.setRunning(true);
    this.setStatus('running');
    const live = !matchMedia(REDUCED_MOTION).matches;   // reduced motion: draw once, at the end
    const handle = this.client.run(this.config(), (p) => this.onProgress(p, live));
    this.state.active = handle;
    try {
      const { result, cancelled } = await handle.done;
      if (cancelled) { this.setStatus('stopped'); return; }
      this.showResult(result);
      this.setStatus('done');
      this.emit('looplab-result', { result });
    } catch (e) {
      this.fail(e);
    } finally {
      this.state.active = null;
      this.setRunning(false);
    }
  }

  stop() {
    this.state.active?.cancel();
  }

  onProgress(p, live) {
    if (typeof p.fraction === 'number') this.ui.progress.value = p.fraction;
    if (live) for (const { plot } of this.plots) plot.append(p.series);
    this.emit('looplab-progress', { fraction: p.fraction ?? null, message: p.message ?? '' });
  }

  setRunning(running) {
    this.ui.run.disabled = running;
    this.ui.stop.disabled = !running;
    this.controls.setLocked(running);
    if (!running && this.ui.stop === this.root.activeElement) this.ui.run.focus();
  }

  clearResult() {
    this.state.result = null;
    this.ui.summary.hidden = true;
    this.ui.progress.value = 0;
    for (const { plot, data } of this.plots || []) { plot.clear(); data.open = false; }
  }

  showResult(result) {
    this.state.result = result;
    this.ui.progress.value = 1;
    for (const { plot } of this.plots) plot.finish(result);
    const { ui } = this;
    renderResult({ headline: ui.headline, reading: ui.reading, runs: ui.runs, extra: ui.extra }, result, this.colorOf);
    ui.summary.hidden = false;
  }

  setStatus(text) {
    this.state.status = text;
    this.ui.status.textContent = text;
    this.ui.status.dataset.state = text.split(/[\s:]/)[0];
    this.emit('looplab-status', { status: text });
  }

  fail(err) {
    const message = err instanceof Error ? err.message : String(err);
    this.showError(message);
    this.setStatus(`error: ${message}`);
    this.emit('looplab-error', { message });
  }

  showError(message) {
    this.ui.error.textContent = message;
    this.ui.error.hidden = !message;
  }

  showNote(message) {
    this.ui.note.textContent = message;
    this.ui.note.hidden = !message;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // ---- exports ----
  fileStem() {
    return `looplab-${this.loadedId}-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}`;
  }

  exportJson() {
    if (this.state.result) download(`${this.fileStem()}.json`, `${JSON.stringify(this.state.result, null, 2)}\n`, 'application/json');
  }

  exportCsv() {
    if (this.state.result) download(`${this.fileStem()}-series.csv`, seriesCsv(this.state.result.series), 'text/csv');
  }

  /** The full page's URL for this exact configuration (the page reads it back from its query). */
  link() {
    return `${settings.linkBase}?${this.controls.toQuery(this.state.describe.id)}`;
  }

  async copyLink() {
    const url = this.link();
    this.ui.linkBox.value = url;
    try {
      await navigator.clipboard.writeText(url);
      this.ui.linkBox.hidden = true;
      this.setStatus('link copied');
    } catch {
      // No clipboard (an iframe without permission, file://): show the link, selected, to copy by hand.
      this.ui.linkBox.hidden = false;
      this.ui.linkBox.select();
      this.setStatus('link shown below: copy it with Ctrl+C');
    }
  }
}

/** Defines the element once under `tag` (a page may load the script twice). */
export function define(tag = 'looplab-experiment') {
  if (!customElements.get(tag)) customElements.define(tag, class extends LooplabExperiment {});
}

define();
