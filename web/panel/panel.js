// The experiment panel: one flow from an experiment's declarations to its result, the same on the
// page (app/page.js), in the <looplab-experiment> widget and so in the iframe embed (app/embed.js):
//   controls generated from describe().parameters; the core's validation message under the control
//   it names; Run -> progress with live plots -> result (summary, tables); Stop; exports (JSON, CSV,
//   a data table and a PNG per chart) and a link that shares the configuration.
// The host picks the experiment and the values; the panel does the rest and reports through events:
//   status {status}   progress {fraction, message}   result {result}   error {message}
//   runstart {config}   running {running}
//
//   const panel = new ExperimentPanel(container, { layout: 'page', linkBase: location.href });
//   panel.setClient(connect());                       // runtime/connect.js
//   await panel.whileLoading((async () => {
//     await panel.load('standardization');
//     panel.setValues(new URLSearchParams('lr_raw=3e-4'));   // returns the names that are no parameter
//     await panel.settle();                                   // validates; 'ready' when valid
//   })());
//   panel.run();   // pressed while loading: queued, starts when the loading is over
//
// Every text goes through textContent (controls.js, summary.js, dom.js): nothing reaches innerHTML.
import { isTerminated, terminatedError } from '../runtime/client.js';
import { createPlot } from '../plots/plots.js';
import { seriesColors } from '../plots/colors.js';
import { download, el } from '../util/dom.js';
import { firstSentence, formatValue, numberFormat } from '../util/format.js';
import { addCatalog, errorText, hasCatalog, labelDescribe, localizeResult, render, t } from '../util/i18n.js';
import { Controls } from './controls.js';
import { DataPicker } from './data-picker.js';
import { chartImage, dataTable } from './plot-data.js';
import { LAYOUTS, SUBHEADING, buildShell, relabel } from './shell.js';
import { renderExplanation, renderQuoted, renderResult, seriesCsv, wrapTable } from './summary.js';

/**
 * Resolves once the browser has painted what is on the page now (the frame after the next), or at
 * once in a hidden page, which paints no frame (and after 250 ms in an iframe whose frames wait).
 */
const afterPaint = () => new Promise((resolve) => {
  if (document.visibilityState === 'hidden') return resolve();
  requestAnimationFrame(() => requestAnimationFrame(resolve));
  setTimeout(resolve, 250);
});

const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';
const VALIDATE_DELAY_MS = 120;    // typing: ask the core once the keys pause
const RUN_LONGER_S = 10;          // "Run longer": at most this many more seconds of paired rounds

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
/** A control's value (as read, controls.js) and a config's alike: numbers by value, the rest as text. */
const sameValue = (v, c) => (typeof c === 'number' ? typeof v === 'number' && v === c : c !== undefined && String(v) === String(c));
/** Seconds since `since`, one decimal, in the language's signs ("0,4" in Indonesian). */
const seconds = (since, lang) => numberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format((performance.now() - since) / 1000);

export class ExperimentPanel extends EventTarget {
  constructor(container, { layout = 'widget', linkBase = '', lang = 'en' } = {}) {
    super();
    this.lang = lang;
    this.layout = LAYOUTS[layout];
    this.linkBase = linkBase;
    this.client = null;
    this.controls = null;
    this.charts = [];             // [{plot, spec, data}] per describe.plots entry
    this.state = { status: 'idle', describe: null, result: null, active: null, starting: false,
      loading: 0, queued: false, invalid: '', validation: 0, saved: false, runs: 0 };
    this.ui = buildShell(this.layout);
    container.append(this.ui.root);
    this.setLang(lang);
    if (this.layout.dataPicker) this.data = new DataPicker(this.ui.dataBox, () => this.scheduleValidation(), lang);
    this.wire();
  }

  /**
   * The language of everything the panel says (en, zh-CN, id): its own labels now; the experiment's
   * texts and a result's sentences from the next load() and run.
   */
  setLang(lang) {
    this.lang = lang;
    if (!hasCatalog(lang) && hasCatalog(this.ui.root.lang)) return;   // the old words until the new catalog comes (useLanguage)
    this.ui.root.lang = lang;
    relabel(this.ui.root, lang);
    if (this.data) this.data.lang = lang;
    this.ui.status.textContent = this.statusText(this.state.status);
    if (this.download) this.showDownload(this.download);
    this.sayWhereSaved();
  }

  /** A status (idle, ready, running, error: …) as the reader reads it; the status itself stays the same in every language. */
  statusText(status) {
    const error = /^error: ([\s\S]*)$/.exec(status);
    if (error) return t('status.error', { message: error[1] }, this.lang) || error[1];   // no catalog yet: the message itself
    const key = `status.${status}`;
    const shown = t(key, {}, this.lang);
    return shown.startsWith('⟦') ? status : shown;
  }

  get status() { return this.state.status; }
  /** The result of the last run here; null while a saved run is shown (savedResult). */
  get result() { return this.state.saved ? null : this.state.result; }
  /** The saved run on show, measured elsewhere (showSavedRun), or null. */
  get savedResult() { return this.state.saved ? this.state.result : null; }
  get describe() { return this.state.describe; }
  get running() { return Boolean(this.state.active); }
  /** The plot objects, one per describe.plots entry (tests read their points). */
  get plots() { return this.charts.map((c) => c.plot); }

  /** The worker client to ask; a crash it recovers from is reported here unless a run reports it. */
  setClient(client) {
    this.client = client;
    this.listed = null;
    if (client) client.onRestart = (err) => { if (!this.state.active) this.fail(err); };
  }

  wire() {
    const { ui } = this;
    ui.form.addEventListener('submit', (e) => { e.preventDefault(); this.run(); });
    ui.form.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.stop(); });
    ui.stop.addEventListener('click', () => this.stop());
    ui.reset?.addEventListener('click', () => this.resetToDefaults());
    ui.exportJson.addEventListener('click', () => this.exportJson());
    ui.runLonger.addEventListener('click', () => this.runLonger());
    ui.exportCsv.addEventListener('click', () => this.exportCsv());
    ui.copyLink.addEventListener('click', () => this.copyLink());
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // ---- loading: the experiment, then its values ----

  /**
   * Marks the panel as loading until `work` settles. A Run pressed meanwhile is queued and starts
   * afterwards; if `work` fails, the queued run is dropped (the failure is what the reader sees).
   */
  whileLoading(work) {
    const token = ++this.state.loading;
    const finish = (ok) => {
      if (token !== this.state.loading) return;      // a newer load is under way: it decides
      this.state.loading = 0;
      if (ok) this.startQueuedRun(); else this.unqueueRun();
    };
    work.then(() => finish(true), () => finish(false));
    return work;
  }

  get loading() { return this.state.loading !== 0; }

  /**
   * The catalog of the panel's language, from its language file (client.js) the first time, then the
   * panel's labels in it: until then they are empty (util/i18n.js).
   */
  async useLanguage() {
    const { lang, client } = this;
    addCatalog(lang, await client.catalog(lang));
    if (client !== this.client) throw terminatedError('the panel\'s client was replaced');   // i18n: not shown (isTerminated)
    if (lang === this.lang) this.setLang(lang);
  }

  /** The module's experiments [{id, title, ...}], asked once per client; the panel's language is loaded first. */
  async experiments() {
    await this.useLanguage();
    this.listed ??= this.client.list(this.lang);
    return this.listed;
  }

  /** Asks the core for experiment `id` and builds its controls, plots and texts. */
  async load(id) {
    this.setStatus('loading');
    this.state.describe = null;
    const list = await this.experiments();
    if (!list.some((x) => x.id === id)) {
      throw new Error(t('ui.err_unknown_experiment', { id, ids: list.map((x) => x.id).join(' | ') }, this.lang));
    }
    const d = labelDescribe(await this.client.describe(id, this.lang), this.lang);
    this.state.describe = d;
    this.showExperiment(d);
    return d;
  }

  /**
   * The experiment's saved run (connect.js), drawn at once, labelled (sayWhereSaved; the summary's
   * measured-on line says where and when, and that timings here will differ), when the controls hold
   * the defaults it was run with and nothing of this page's own is shown: fetched only then. Run
   * replaces it; changing a value takes it away (scheduleValidation).
   */
  async showSavedRun() {
    const d = this.state.describe;
    if (!d || !this.holdsConfig(Object.fromEntries(d.parameters.map((p) => [p.name, p.default])))) return;
    const runs = this.state.runs;
    const saved = await this.client.savedRun(d.id).catch(() => null);
    await afterPaint();   // the texts and controls first: drawing the saved run takes a phone a frame or four
    if (!saved?.saved || this.state.describe !== d || this.state.result || this.state.runs !== runs) return;
    if (this.holdsConfig(saved.config)) this.showResult(saved, { saved: true });
  }

  /** The saved run's label under Run, in the panel's language: "Saved run, not measured here." */
  sayWhereSaved() {
    this.ui.savedNote.hidden = !this.state.saved;
    this.ui.savedNote.textContent = this.state.saved ? t('ui.saved_run', {}, this.lang) : '';
  }

  /** Takes the saved run away once the controls no longer hold the configuration it was run with. */
  dropChangedSavedRun() {
    if (this.state.saved && !this.holdsConfig(this.state.result.config)) this.clearResult();
  }

  /** True when every applicable control holds `config`'s value and no file of the reader's is attached. */
  holdsConfig(config) {
    if (!this.controls || this.data?.attachment()) return false;
    return Object.entries(this.controls.values()).every(([name, v]) => sameValue(v, config?.[name]));
  }

  showExperiment(d) {
    const { ui } = this;
    // The question is the headline; the experiment's short title sits above it.
    delete ui.title.dataset.i18n;    // no longer "Loading…": a relabel (the page's, a language switch) keeps it
    ui.title.textContent = d.question || d.title;
    ui.eyebrow.textContent = d.question && d.title !== d.question ? d.title : '';
    ui.eyebrow.hidden = !ui.eyebrow.textContent;
    renderExplanation(ui.explanation, d.explanation, d.tensorflow, this.lang, SUBHEADING[this.layout.heading]);
    ui.lede.textContent = this.layout.lede ? firstSentence(d.explanation?.intro ?? '') : '';
    ui.lede.hidden = !ui.lede.textContent;
    ui.fixedBox.replaceChildren();
    this.controls = new Controls(ui.controls, d.parameters || [], () => this.scheduleValidation(), this.lang);
    this.data?.show(Boolean(d.takes_csv));
    this.buildCharts(d.plots || []);
    if (this.layout.quoted) renderQuoted(ui.quoted, d.quoted, this.lang);
    this.showNote('');
    this.showFormError('');
    this.clearResult();
  }

  /**
   * Sets every control to its default, then to `values` ([name, text] pairs, e.g. URLSearchParams);
   * shows the controls named in `visible` (null: all) and lists the others as fixed.
   * Returns the names in `values` that are not parameters of this experiment.
   */
  setValues(values, visible = null) {
    this.controls.reset();
    const unknown = this.controls.applyQuery(values);
    this.showVisibleControls(visible);
    this.dropChangedSavedRun();   // a host changed the values
    this.showSavedRun();
    return unknown;
  }

  showVisibleControls(visible) {
    const { ui, controls } = this;
    const fixed = [];
    for (const [name, field] of controls.fields) {
      if (!visible || visible.has(name)) { ui.controls.append(field.root); continue; }
      ui.fixedBox.append(field.root);
      if (controls.isApplicable(field.p)) fixed.push(`${name} = ${formatValue(controls.values()[name])}`);
    }
    ui.controls.hidden = ui.controls.childElementCount === 0;
    ui.fixedNote.textContent = fixed.length ? t('ui.fixed_for_lesson', { list: fixed.join(', ') }, this.lang) : '';
    ui.fixedNote.hidden = !fixed.length;
  }

  /** Asks the core whether the values are valid; 'ready' when they are. Emits error when not. */
  async settle() {
    const valid = await this.validate();
    if (valid) this.setStatus('ready');
    else if (this.state.invalid) this.emit('error', { message: this.state.invalid });
    return valid;
  }

  resetToDefaults() {
    if (!this.controls || this.state.active) return;
    this.controls.reset();
    this.showFormError('');
    this.scheduleValidation();
  }

  // ---- validation ----

  /** The config the core gets: the experiment, the applicable controls, the reader's CSV if any. */
  config() {
    const csv = this.data?.attachment();
    return { experiment: this.state.describe.id, ...this.controls.values(), ...(csv ? { csv } : {}) };
  }

  scheduleValidation() {
    this.dropChangedSavedRun();
    clearTimeout(this.validationTimer);
    this.validationTimer = setTimeout(() => this.validate(), VALIDATE_DELAY_MS);
  }

  /** The core's verdict on the current values; resolves true when valid and still current. */
  async validate() {
    if (!this.state.describe || !this.client) return false;
    const seq = ++this.state.validation;
    try {
      await this.client.validate(this.config());
      if (seq === this.state.validation) this.showValid();
      return seq === this.state.validation;
    } catch (e) {
      if (seq === this.state.validation && !isTerminated(e)) this.showInvalid(errorText(e, this.lang));
      return false;
    }
  }

  showValid() {
    this.state.invalid = '';
    this.controls.clearErrors();
    this.data?.showError('');
    this.showFormError('');
    if (this.state.status.startsWith('error')) this.setStatus('ready');
  }

  /** The message goes under the visible control it names, else under the file picker, else below the form. */
  showInvalid(message) {
    this.state.invalid = message;
    const underControl = this.controls.showError(message) && this.invalidField() !== null;
    const aboutData = !underControl && Boolean(this.data?.showError(message));
    this.showFormError(underControl || aboutData ? '' : message);
    this.setStatus(`error: ${message}`);
  }

  /** The visible field showing an error, or null (a field the lesson fixes sits in fixedBox). */
  invalidField() {
    return this.ui.controls.querySelector('.field.invalid');
  }

  // ---- running ----

  /** Validates, then runs in the worker. While loading, the run is queued and starts when the loading is over. */
  async run() {
    if (this.state.active || this.state.starting) return;
    if (this.loading) { this.queueRun(); return; }
    if (!this.state.describe) return;
    clearTimeout(this.validationTimer);
    this.state.starting = true;        // a second press while the config is being validated does nothing
    let valid;
    try { valid = await this.validate(); } finally { this.state.starting = false; }
    if (!valid) { this.refuse(); return; }
    await this.runValid(this.config());
  }

  /** Run pressed with an invalid config: the reader's focus goes to the control at fault. */
  refuse() {
    if (!this.state.invalid) return;       // no verdict (the worker went away): nothing to say
    const field = this.invalidField();
    if (field) this.controls.focus(field.dataset.param);
    this.emit('error', { message: this.state.invalid });
  }

  async runValid(config) {
    this.state.runs += 1;            // a saved run still on its way stays away (showSavedRun)
    this.emit('runstart', { config });
    this.clearResult();
    this.setRunning(true);
    this.setStatus('running');
    this.showProgressMessage(t('ui.starting', {}, this.lang));
    const started = performance.now();
    const live = !matchMedia(REDUCED_MOTION).matches;   // reduced motion: draw once, at the end
    const handle = this.client.run(config, (p) => this.onProgress(p, live));
    this.state.lastRun = handle.id;
    await this.follow(handle, started);
  }

  /**
   * "Run longer": the finished run takes up to RUN_LONGER_S more seconds of paired timing rounds,
   * until its open verdicts are decided; its result is shown again, with the narrower intervals.
   */
  async runLonger() {
    if (this.state.active || this.state.lastRun === undefined) return;
    this.setRunning(true);
    this.setStatus('running');
    const started = performance.now();
    await this.follow(this.client.extend(this.state.lastRun, RUN_LONGER_S, (p) => this.onProgress(p, false)), started);
  }

  /** Shows a run (or its extension) to its end: the result, a stop, or an error. */
  async follow(handle, started) {
    this.state.active = handle;
    try {
      const { result, cancelled } = await handle.done;
      if (cancelled) this.showStopped(t('ui.stopped_after', { s: seconds(started, this.lang) }, this.lang));
      else this.showFinished(result, started);
    } catch (e) {
      if (isTerminated(e)) this.showStopped(t('ui.stopped_left', {}, this.lang));
      else { this.showProgressMessage(''); this.fail(e); }
    } finally {
      this.state.active = null;
      this.setRunning(false);
    }
  }

  showStopped(message) {
    this.showProgressMessage(message);
    this.setStatus('stopped');
  }

  showFinished(result, started) {
    this.showResult(result);
    this.ui.progress.value = 1;
    this.showProgressMessage(t('ui.finished_in', { s: seconds(started, this.lang) }, this.lang));
    this.setStatus('done');
    this.emit('result', { result });
  }

  /** Stops the run after its current chunk, or drops a run queued while loading. */
  stop() {
    if (this.state.queued) {
      this.unqueueRun();
      this.showProgressMessage(t('ui.queued_cancelled', {}, this.lang));
      return;
    }
    if (!this.state.active) return;
    this.showProgressMessage(t('ui.stopping', {}, this.lang));
    this.state.active.cancel();
  }

  queueRun() {
    if (this.state.queued) return;
    this.state.queued = true;
    this.ui.run.disabled = true;
    this.ui.stop.disabled = false;         // Stop drops the queued run
    this.showProgressMessage(t('ui.run_queued', {}, this.lang));
  }

  unqueueRun() {
    if (!this.state.queued) return;
    this.state.queued = false;
    this.ui.run.disabled = false;
    this.ui.stop.disabled = true;
    this.showProgressMessage('');
  }

  startQueuedRun() {
    if (!this.state.queued) return;
    this.unqueueRun();
    this.run();
  }

  onProgress(p, live) {
    if (typeof p.fraction === 'number') this.ui.progress.value = p.fraction;
    if (p.message) this.showProgressMessage(p.i18n ? render(p.i18n, this.lang) : p.message);
    if (live) for (const { plot } of this.charts) plot.append(p.series);
    this.emit('progress', { fraction: p.fraction ?? null, message: p.message ?? '' });
  }

  setRunning(running) {
    const { ui } = this;
    ui.run.disabled = running;
    ui.stop.disabled = !running;
    if (ui.reset) ui.reset.disabled = running;
    this.controls.setLocked(running);
    this.data?.setLocked(running);
    ui.root.classList.toggle('running', running);
    const root = ui.root.getRootNode();
    if (!running && root.activeElement === ui.stop) ui.run.focus();
    this.emit('running', { running });
  }

  // ---- the result ----

  clearResult() {
    this.state.result = null;
    this.state.saved = false;
    this.sayWhereSaved();
    this.ui.summary.hidden = true;
    this.ui.runLonger.hidden = true;
    this.ui.linkBox.hidden = true;
    this.ui.progress.value = 0;
    for (const { plot, data } of this.charts) { plot.clear(); data.open = false; }
  }

  showResult(result, { saved = false } = {}) {
    const { ui } = this;
    this.state.result = result;
    this.state.saved = saved;
    this.sayWhereSaved();
    const shown = localizeResult(result, this.lang);   // a heatmap's row and column names, in the reader's language
    for (const { plot } of this.charts) plot.finish(shown);
    // Run longer while the run's paired rounds leave a timing verdict open (the core says so).
    ui.runLonger.hidden = saved || !result.summary?.run_longer;
    renderResult({ headline: ui.headline, reading: ui.reading, answer: ui.answer, comparisons: ui.comparisons,
      measuredOn: ui.measuredOn, runs: ui.runs, extra: ui.extra, quoted: this.layout.quoted ? ui.quoted : null }, result, this.colorOf,
    this.lang);
    ui.summary.hidden = false;
  }

  /** One chart per describe.plots entry, each with a "show data" table and a PNG download. */
  buildCharts(specs) {
    for (const { plot } of this.charts) plot.destroy();
    this.ui.plots.replaceChildren();
    this.colorOf = seriesColors(specs);
    this.charts = specs.map((spec) => this.addChart(spec));
  }

  addChart(spec) {
    const box = el('div', 'plot-box');
    this.ui.plots.append(box);
    const plot = createPlot(box, spec, this.colorOf);
    const tableHolder = el('div');
    const data = el('details', 'plot-data', null, el('summary', null, t('ui.show_data', { title: spec.title }, this.lang)), tableHolder);
    data.addEventListener('toggle', () => {
      if (data.open) tableHolder.replaceChildren(wrapTable(dataTable(plot, spec, localizeResult(this.state.result, this.lang))));
    });
    const image = el('button', 'quiet small', t('ui.download_chart', {}, this.lang));
    image.type = 'button';
    image.addEventListener('click', () => this.downloadChart(plot, spec));
    box.append(el('div', 'plot-tools', null, data, image));
    return { plot, spec, data };
  }

  async downloadChart(plot, spec) {
    try {
      const { name, blob } = await chartImage(plot, spec);
      download(`looplab-${this.state.describe.id}-${name}`, blob, blob.type);
    } catch (e) {
      this.showNote(e.message);
    }
  }

  // ---- exports and sharing ----

  fileStem() {
    return `looplab-${this.state.result.experiment}-${stamp()}`;
  }

  exportJson() {
    if (this.state.result) download(`${this.fileStem()}.json`, `${JSON.stringify(this.state.result, null, 2)}\n`, 'application/json');
  }

  exportCsv() {
    if (this.state.result) download(`${this.fileStem()}-series.csv`, seriesCsv(this.state.result.series), 'text/csv');
  }

  /** The query that reproduces the current controls: experiment first, then the applicable parameters. */
  query() {
    const query = this.controls.toQuery(this.state.describe.id);
    // The language is part of the shared link: always when chosen explicitly (langInLink), else when not English.
    if (this.lang !== 'en' || this.langInLink) query.set('lang', this.lang);
    return query;
  }

  /** The full page's URL for this exact configuration (the page reads it back from its query). */
  link() {
    return `${this.linkBase}?${this.query()}`;
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
      this.setStatus('link shown below: copy it with Ctrl+C');   // i18n: a status; statusText() says it
    }
  }

  // ---- what the reader reads ----

  setStatus(text) {
    this.state.status = text;
    this.ui.status.textContent = this.statusText(text);
    this.ui.status.dataset.state = text.split(/[\s:]/)[0];
    this.emit('status', { status: text });
  }

  /** Something went wrong outside validation: said in the status and below the form. */
  fail(err) {
    if (isTerminated(err)) return;        // the host let the worker go on purpose
    const message = errorText(err, this.lang);
    this.showFormError(message);
    this.setStatus(`error: ${message}`);
    this.emit('error', { message });
  }

  showProgressMessage(text) {
    this.ui.progressMessage.textContent = text;
  }

  /**
   * The module's download under Run ({got, total} from connect.js's onModuleDownload; total 0: bytes
   * only), unless a queued run says something there; null once the module is ready clears it.
   */
  showDownload(progress) {
    this.download = progress;       // said again when the language changes or its catalog comes (setLang)
    if (this.state.queued) return;
    if (!progress) { this.showProgressMessage(''); return; }
    const { got, total } = progress;
    this.showProgressMessage(total
      ? t('ui.module_download', { got, total, percent: Math.min(100, (100 * got) / total) }, this.lang)
      : t('ui.module_download_got', { got }, this.lang));
  }

  showFormError(message) {
    this.ui.formError.textContent = message;
    this.ui.formError.hidden = !message;
  }

  /** A note below the form (ignored URL parameters or attributes, a chart that could not be saved). */
  showNote(message) {
    this.ui.note.textContent = message;
    this.ui.note.hidden = !message;
  }
}
