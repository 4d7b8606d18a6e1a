// author.html: preset an experiment for a lesson, see it live, copy the snippet for the course platform.
// The parameter editor is the panel's Controls (from describe()); the preview is a real widget, which
// validates with the core and shows the same messages a reader would see. Snippets are plain text
// shown with textContent; attribute values are HTML-escaped in the snippet text itself.
import { define } from '../looplab-widgets.js';
import { languageFile } from '../runtime/connect.js';
import { Controls } from '../panel/controls.js';
import { el, download } from '../util/dom.js';
import { addCatalog, browserLang, chooseLang, hasCatalog, t as tr, text as catalogText } from '../util/i18n.js';
import { relabel } from '../panel/shell.js';

// The page's language (?lang=, else the browser's): its labels, the editor and, through <html lang>,
// the preview and gallery widgets. A lesson's own language is the widget's lang option above.
const pageLang = chooseLang(new URLSearchParams(location.search).get('lang'), browserLang());
document.documentElement.lang = pageLang;

define();
const $ = (id) => document.getElementById(id);
const ui = {
  experiment: $('experiment'), params: $('params'), base: $('base'), preview: $('preview'), snippets: $('snippets'),
  autorun: $('opt-autorun'), compact: $('opt-compact'), theme: $('opt-theme'), lang: $('opt-lang'), copyStatus: $('copy-status'),
  gallery: $('gallery'), standalone: $('download-standalone'), standaloneNote: $('standalone-note'),
};
const state = { built: null, controls: null, visible: new Set(['lr_scaled']), widget: null };

/** Escapes text for an HTML attribute value or element content in a snippet. */
const escapeHtml = (t) => String(t).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The lesson's attributes: experiment, values that differ from the defaults, controls, options. */
function lessonAttributes() {
  const d = state.widget.describe;
  const attrs = { experiment: d ? d.id : state.widget.getAttribute('experiment') };
  if (state.controls) {
    const typed = state.controls.values();
    for (const [name, text] of state.controls.toQuery(attrs.experiment)) {
      const p = d.parameters.find((x) => x.name === name);
      if (p && String(typed[name]) !== String(p.default)) attrs[name] = text;
    }
  }
  const visible = [...state.visible].filter((n) => !d || d.parameters.some((p) => p.name === n));
  if (visible.length) attrs.controls = visible.join(' ');
  if (ui.autorun.checked) attrs.autorun = '';
  if (ui.compact.checked) attrs.compact = '';
  if (ui.theme.value) attrs.theme = ui.theme.value;
  if (ui.lang.value) attrs.lang = ui.lang.value;
  return attrs;
}

const attrText = (attrs) => Object.entries(attrs).map(([k, v]) => (v === '' ? ` ${k}` : ` ${k}="${escapeHtml(v)}"`)).join('');

function baseUrl() {
  try { return new URL(ui.base.value || '.', location.href).href.replace(/\/?$/, '/'); } catch { return new URL('.', location.href).href; }
}

/**
 * Every platform's snippet for these attributes: [{id, title, text, note}], the titles and notes in
 * `lang` (the page's); the sample slide's heading is the experiment's question in the lesson's language.
 */
export function snippets(attrs, base, lang = 'en') {
  const lesson = attrs.lang || lang;
  const note = (id) => tr(`author.note_${id}`, {}, lang);
  const script = `<script type="module" src="${escapeHtml(`${base}looplab-widgets.js`)}"></script>`;
  const element = `<looplab-experiment${attrText(attrs)}></looplab-experiment>`;
  const html = `${script}\n${element}`;
  const query = new URLSearchParams(attrs).toString();
  const embedUrl = `${base}embed.html?${query}`;
  const origin = new URL(base).origin;
  const iframe = `<iframe src="${escapeHtml(embedUrl)}"\n        title="looplab: ${escapeHtml(attrs.experiment)}" width="100%" height="900" loading="lazy"\n        allow="clipboard-write" data-looplab></iframe>`;
  const resize = `<script>\n  // Optional: size the iframe to the widget (it posts {type: 'looplab:resize', height}).\n  addEventListener('message', (e) => {\n    if (e.origin !== '${origin}' || e.data?.type !== 'looplab:resize') return;\n    document.querySelector('iframe[data-looplab]').height = e.data.height;\n  });\n</script>`;
  const heading = escapeHtml(tr(`exp.${attrs.experiment}.question`, {}, lesson));
  return [
    { id: 'html', title: tr('author.plain_html', {}, lang), text: html, note: note('html') },
    { id: 'myst', title: 'Jupyter Book / MyST', text: `\`\`\`{raw} html\n${html}\n\`\`\``, note: note('myst') },
    { id: 'quarto', title: 'Quarto', text: `\`\`\`{=html}\n${html}\n\`\`\``, note: note('quarto') },
    { id: 'mkdocs', title: 'MkDocs', text: html, note: note('mkdocs') },
    { id: 'reveal', title: 'reveal.js', text: `<!-- once, e.g. before </body> -->\n${script}\n\n<section>\n  <h2>${heading}</h2>\n  ${element}\n</section>`, note: note('reveal') },
    { id: 'lms-iframe', title: 'LMS (iframe)', text: `${iframe}\n\n${resize}`, note: note('lms') },
  ];
}

function renderSnippets() {
  const attrs = lessonAttributes();
  // The sample slide's heading is in the lesson's language: its catalog first, then the snippets again.
  if (attrs.lang && !hasCatalog(attrs.lang)) {
    languageFile(attrs.lang).then((file) => { if (file) { addCatalog(attrs.lang, file.catalog); renderSnippets(); } });
  }
  const list = snippets(attrs, baseUrl(), pageLang);
  ui.snippets.replaceChildren(...list.map((s) => {
    const code = el('code', null, s.text);
    const copy = el('button', 'copy', tr('author.copy', {}, pageLang));
    copy.type = 'button';
    copy.addEventListener('click', () => copyText(s.title, s.text, code));
    const box = el('div', 'snippet', null, el('div', 'snippet-head', null, el('h2', null, s.title), copy), el('p', 'hint', s.note), el('pre', null, null, code));
    box.dataset.snippet = s.id;
    return box;
  }));
  return attrs;
}

async function copyText(title, text, node) {
  try {
    await navigator.clipboard.writeText(text);
    ui.copyStatus.textContent = tr('author.copied', { title }, pageLang);
  } catch {
    getSelection().selectAllChildren(node);   // no clipboard permission: select it for Ctrl+C
    ui.copyStatus.textContent = tr('author.selected', { title }, pageLang);
  }
}

/** Mirrors the lesson attributes onto the preview widget (it coalesces the burst into one update). */
function applyToPreview() {
  const attrs = renderSnippets();
  const w = state.widget;
  for (const { name } of [...w.attributes]) if (!(name in attrs) && name !== 'id') w.removeAttribute(name);
  for (const [k, v] of Object.entries(attrs)) if (w.getAttribute(k) !== v) w.setAttribute(k, v);
}

/** The editor for describe.parameters: the page's controls plus a "reader may change" box each. */
function buildEditor(d) {
  state.built = d.id;
  state.controls = new Controls(ui.params, d.parameters, () => applyToPreview(), pageLang);
  for (const [name, field] of state.controls.fields) {
    const box = el('input');
    box.type = 'checkbox';
    box.id = `visible-${name}`;
    box.checked = state.visible.has(name);
    box.addEventListener('change', () => {
      if (box.checked) state.visible.add(name); else state.visible.delete(name);
      applyToPreview();
    });
    const label = el('label', 'visible', tr('author.reader_may_change', {}, pageLang));
    label.htmlFor = box.id;
    field.root.append(el('div', 'visible-row', null, box, label));
  }
  ui.experiment.value = d.id;
  renderSnippets();
}

function fillPicker(list) {
  if (ui.experiment.options.length > 1) return;
  ui.experiment.replaceChildren(...list.map((x) => Object.assign(el('option', null, catalogText(`exp.${x.id}.title`, x.title, pageLang)), { value: x.id })));
  ui.experiment.disabled = false;
}

function buildGallery(list) {
  ui.gallery.replaceChildren(...list.map((x) => {
    const w = document.createElement('looplab-experiment');
    w.setAttribute('experiment', x.id);
    w.setAttribute('controls', 'all');
    w.setAttribute('compact', '');
    return el('div', 'gallery-item', null, w);
  }));
}

async function downloadStandalone() {
  const url = new URL('looplab-standalone.html', baseUrl()).href;
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const html = await res.text();
    const preset = JSON.stringify({ controls: 'all', ...lessonAttributes() }).replace(/</g, '\\u003c');
    const re = /(<script type="application\/json" id="looplab-preset">)[^<]*(<\/script>)/;
    if (!re.test(html)) throw new Error(tr('author.no_preset', {}, pageLang));
    download(`looplab-${lessonAttributes().experiment}.html`, html.replace(re, (_, a, b) => `${a}${preset}${b}`), 'text/html');
    ui.standaloneNote.hidden = true;
  } catch (e) {
    ui.standaloneNote.textContent = tr('author.standalone_missing', { url, error: e.message }, pageLang);
    ui.standaloneNote.hidden = false;
  }
}

/** The page's labels in its language, once its catalog has come (its language file, connect.js). */
async function sayPage() {
  const file = await languageFile(pageLang);
  if (file) addCatalog(pageLang, file.catalog);
  document.title = tr('author.title', {}, pageLang);
  relabel(document, pageLang);
}

async function main() {
  await sayPage();
  ui.base.value = new URL('.', location.href).href;
  const w = document.createElement('looplab-experiment');
  w.id = 'preview-widget';
  w.setAttribute('experiment', new URLSearchParams(location.search).get('experiment') || 'standardization');
  w.setAttribute('controls', [...state.visible].join(' '));
  state.widget = w;
  ui.preview.append(w);
  w.addEventListener('looplab-ready', () => {
    fillPicker(w.experiments);
    if (!ui.gallery.childElementCount) buildGallery(w.experiments);
    if (w.describe && state.built !== w.describe.id) buildEditor(w.describe);
  });
  ui.experiment.addEventListener('change', () => {
    state.controls = null;
    state.visible = new Set();
    for (const { name } of [...w.attributes]) if (name !== 'id') w.removeAttribute(name);
    w.setAttribute('experiment', ui.experiment.value);
  });
  for (const input of [ui.autorun, ui.compact, ui.theme, ui.lang]) input.addEventListener('change', () => applyToPreview());
  ui.base.addEventListener('input', () => renderSnippets());
  ui.standalone.addEventListener('click', () => downloadStandalone());
}

main();
