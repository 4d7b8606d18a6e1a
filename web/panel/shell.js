// The panel's elements, built once per panel; panel.js fills them per experiment and per run.
// Ids are unique within the panel's root: the page holds one panel, and each widget's panel lives in
// its own shadow root, so the same ids serve the page's skip link, labels, tests and styles.
//
//   const ui = buildShell(LAYOUTS.page);     // ui.root holds ui.head, ui.side (the form), ui.results
import { el } from '../util/dom.js';
import { t } from '../util/i18n.js';

/** How a panel is laid out where it lives. */
export const LAYOUTS = {
  // The full page: the question as the page's h1 over a one-line lede, the explanations folded (Run and
  // the first plot on the first screen of a laptop or a phone), Run above the parameters (the list can be
  // long), every number in view, a Defaults button, the reader's own data, the figures quoted from the seed thread.
  page: { name: 'page', heading: 'h1', lede: true, explainOpen: false, runFirst: true, numbersOpen: true, resetButton: true,
    dataPicker: true, quoted: true, landmarks: true },
  // A widget inside a course page: an h2 under the host's own headings, Run after the few controls a
  // lesson shows, the numbers folded away.
  // Landmarks are the host page's business there.
  widget: { name: 'widget', heading: 'h2', lede: false, explainOpen: true, runFirst: false, numbersOpen: false, resetButton: false, dataPicker: false, quoted: true,
    landmarks: false },
};

/** The heading level under a layout's title: its sections (parameters, explanations, summary). */
export const SUBHEADING = { h1: 'h2', h2: 'h3' };

/** Marks `node`'s text as catalog key `key` (relabel() puts it in the panel's language). */
function label(node, key) {
  node.dataset.i18n = key;
  node.textContent = t(key);
  return node;
}

/** Marks `node`'s aria-label as catalog key `key`. */
function ariaLabel(node, key) {
  node.dataset.i18nAria = key;
  node.setAttribute('aria-label', t(key));
  return node;
}

/**
 * Every marked text and aria-label under `root` in `lang`. A marked node keeps its children marked
 * data-slot="name" (a checkbox, a <code> inside a sentence): its template says where, as {name}.
 */
export function relabel(root, lang) {
  for (const node of root.querySelectorAll('[data-i18n]')) {
    const text = t(node.dataset.i18n, {}, lang);
    const slots = new Map([...node.children].filter((c) => c.dataset.slot).map((c) => [c.dataset.slot, c]));
    if (!slots.size) node.textContent = text;
    else node.replaceChildren(...text.split(/\{([a-z0-9_]+)\}/).map((part, i) => (i % 2 ? slots.get(part) || `{${part}}` : part)));
  }
  for (const node of root.querySelectorAll('[data-i18n-aria]')) node.setAttribute('aria-label', t(node.dataset.i18nAria, {}, lang));
}

function withId(node, id) {
  node.id = id;
  return node;
}

function button(id, key, className = null, type = 'button') {
  const b = withId(label(el('button', className), key), id);
  b.type = type;
  return b;
}

/** A line of text that starts hidden (errors, notes). */
function hiddenLine(id, className) {
  const p = withId(el('p', className), id);
  p.hidden = true;
  return p;
}

function buildHead(ui, layout) {
  ui.eyebrow = withId(el('p', 'eyebrow'), 'eyebrow');
  ui.eyebrow.hidden = true;
  ui.title = withId(label(el(layout.heading, 'title'), 'ui.loading'), 'title');
  ui.explanation = withId(el('div', 'explanation'), 'explanation');
  ui.explain = el('details', 'explain-box', null, label(el('summary'), 'ui.what_happens'), ui.explanation);
  ui.explain.open = layout.explainOpen;
  ui.lede = withId(el('p', 'lede'), 'lede');
  ui.lede.hidden = true;
  ui.head = el('header', 'panel-head', null, ui.eyebrow, ui.title, ui.lede, ui.explain);
}

function buildRunState(ui) {
  ui.run = button('run', 'ui.run', 'primary', 'submit');
  ui.stop = button('stop', 'ui.stop');
  ui.stop.disabled = true;
  ui.progress = withId(el('progress'), 'progress');
  ui.progress.max = 1;
  ui.progress.value = 0;
  ariaLabel(ui.progress, 'ui.run_progress');
  ui.status = withId(el('p', 'status', 'idle'), 'status');
  ui.status.setAttribute('role', 'status');
  ui.status.setAttribute('aria-live', 'polite');
  ui.progressMessage = withId(el('p', 'progress-message'), 'progress-message');
  // Under Run while the plots show a saved run (panel.js showSavedRun): it is not this page's; Run measures here.
  ui.savedNote = hiddenLine('saved-note', 'saved-note');
  ui.runState = el('div', 'run-state', null, el('div', 'actions', null, ui.run, ui.stop), ui.progress, ui.status,
    ui.progressMessage, ui.savedNote);
}

function buildParams(ui, layout) {
  ui.controls = withId(el('div', 'controls'), 'controls');
  ui.fixedBox = el('div', 'fixed-box');            // the fields a lesson fixes: kept, not shown
  ui.fixedBox.hidden = true;
  ui.fixedNote = hiddenLine('fixed-note', 'fixed');
  ui.dataBox = el('div', 'data-box');              // the reader's own CSV, when the layout offers it
  ui.formError = hiddenLine('form-error', 'form-error');
  ui.formError.setAttribute('role', 'alert');
  ui.note = hiddenLine('form-note', 'form-note');
  const head = el('div', 'params-head', null, label(el(SUBHEADING[layout.heading]), 'ui.parameters'));
  if (layout.resetButton) {
    ui.reset = button('reset', 'ui.defaults', 'quiet small');
    head.append(ui.reset);
  }
  ui.params = el('div', 'params', null, head, ui.controls, ui.fixedBox, ui.fixedNote, ui.dataBox, ui.formError, ui.note);
}

function buildSummary(ui, layout) {
  ui.headline = withId(el('div', 'cards'), 'headline');
  ui.reading = withId(el('p', 'reading'), 'reading');
  ui.answer = withId(el('p', 'answer'), 'answer');
  ui.comparisons = withId(el('div', 'comparisons'), 'comparisons');
  // "Run longer": shown while a timing verdict is "not enough evidence yet" (panel.js).
  ui.runLonger = button('run-longer', 'ui.run_longer', 'quiet');
  ui.runLonger.hidden = true;
  ui.measuredOn = withId(el('p', 'measured-on'), 'measured-on');
  ui.runs = withId(el('div', 'runs'), 'runs');
  ui.extra = withId(el('div', 'summary-extra'), 'summary-extra');
  ui.numbers = el('details', 'more', null, label(el('summary'), 'ui.all_numbers'), ui.runs, ui.extra);
  ui.numbers.open = layout.numbersOpen;
  ui.exportJson = button('export-json', 'ui.export_json', 'quiet');
  ui.exportCsv = button('export-csv', 'ui.export_csv', 'quiet');
  ui.copyLink = button('copy-link', 'ui.copy_link', 'quiet');
  ui.linkBox = withId(el('input', 'link-box'), 'link-box');
  ui.linkBox.readOnly = true;
  ui.linkBox.hidden = true;
  ariaLabel(ui.linkBox, 'ui.link_box');
  const title = withId(label(el(SUBHEADING[layout.heading], 'summary-title'), 'ui.summary_title'), 'summary-title');
  const exports = el('div', 'exports', null, ui.exportJson, ui.exportCsv, ui.copyLink);
  ui.summary = withId(el('section', 'summary', null, el('div', 'summary-head', null, title, exports), ui.headline,
    ui.answer, ui.reading, ui.comparisons, ui.runLonger, ui.measuredOn, ui.numbers, ui.linkBox), 'summary');
  ui.summary.setAttribute('aria-labelledby', 'summary-title');
  ui.summary.hidden = true;
}

/** A landmark `tag` labelled for screen readers when the layout wants landmarks, else a plain div. */
function region(layout, tag, className, key, ...children) {
  if (!layout.landmarks) return el('div', className, null, ...children);
  return ariaLabel(el(tag, className, null, ...children), key);
}

/** Every element of a panel laid out as `layout` (one of LAYOUTS). */
export function buildShell(layout) {
  const ui = {};
  buildHead(ui, layout);
  buildRunState(ui);
  buildParams(ui, layout);
  ui.form = withId(el('form', 'panel-form', null, ...(layout.runFirst ? [ui.runState, ui.params] : [ui.params, ui.runState])),
    'controls-form');
  ui.form.noValidate = true;
  ui.side = region(layout, 'aside', 'panel-side', 'ui.side_region', ui.form);
  ui.plots = withId(el('div', 'plots'), 'plots');
  buildSummary(ui, layout);
  ui.quoted = withId(el('section', 'quoted'), 'quoted');
  ui.quoted.hidden = true;
  ui.results = region(layout, 'section', 'results', 'ui.results_region', ui.plots, ui.summary, ui.quoted);
  ui.root = el('div', `looplab-panel layout-${layout.name}`, null, ui.head, ui.side, ui.results);
  return ui;
}
