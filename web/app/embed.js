// embed.html: one <looplab-experiment> configured by the URL, and a postMessage API for the host page.
//
//   <iframe src="…/embed.html?experiment=standardization&controls=lr_scaled&parent-origin=https://host.example"
//           title="looplab: standardization" width="100%" height="900"></iframe>
//
// URL parameters become the widget's attributes (experiment, controls, autorun, compact, theme and
// every experiment parameter); `parent-origin` is the only origin messages are sent to and accepted
// from (without it: sent to any origin, accepted from the parent window only).
//
// Widget -> host, all {type: 'looplab:<name>', ...}:
//   ready {experiment, parameters}   resize {height}   progress {fraction, message}
//   result {experiment, config, summary}   error {message}
// Host -> widget:
//   {type: 'looplab:run'}   {type: 'looplab:stop'}   {type: 'looplab:set', params: {name: value, ...}}
// A message of any other shape is ignored (the widget answers with a looplab:error saying why, in the
// embed's language like the widget's own errors: "ignored message: unknown type (…)").
import '../looplab-widgets.js';
import { languageFile } from '../runtime/connect.js';
import { addCatalog, browserLang, chooseLang, render, t } from '../util/i18n.js';

const NAME_RE = /^[a-z][a-z0-9_]*$/;          // attribute names we set: parameter names and ours
const BOOLEAN_ATTRS = new Set(['autorun', 'compact']);

const query = new URLSearchParams(location.search);
// ?lang= (en, zh-CN, id) becomes the widget's lang attribute below; the page itself says the same.
const lang = chooseLang(query.get('lang'), browserLang());
document.documentElement.lang = lang;
const note = document.getElementById('embed-note');
const notes = [];   // messages {key, args}, said once the language's catalog has come (showNotes)

/** The parent-origin parameter as an origin, or null (absent or not an origin: noted). */
function parentOrigin() {
  const text = query.get('parent-origin');
  if (!text) return null;
  try {
    const origin = new URL(text).origin;
    if (origin !== 'null' && origin === text.replace(/\/$/, '')) return origin;
  } catch { /* noted below */ }
  notes.push({ key: 'embed.bad_origin' });
  return 'invalid';
}

const origin = parentOrigin();
const toHost = window.parent !== window && origin !== 'invalid';

function post(type, fields = {}) {
  if (toHost) window.parent.postMessage({ type: `looplab:${type}`, ...fields }, origin || '*');
}

function setAttr(widget, name, value) {
  if (BOOLEAN_ATTRS.has(name) && /^(false|0|no|off)$/i.test(String(value))) widget.removeAttribute(name);
  else widget.setAttribute(name, String(value));
}

function createWidget() {
  const widget = document.createElement('looplab-experiment');
  const skipped = [];
  for (const [name, value] of query) {
    if (name === 'parent-origin') continue;
    if (NAME_RE.test(name)) setAttr(widget, name, value); else skipped.push(name);
  }
  if (skipped.length) notes.push({ key: 'embed.skipped', args: { n: skipped.length } });
  document.getElementById('embed').append(widget);
  return widget;
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
const isScalar = (v) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/**
 * Why a host message is refused, as a message {key, args} (in the embed's language below: the host
 * passes it on to its readers as it passes the widget's errors), or null when its shape is right.
 */
function shapeError(data) {
  if (!isPlainObject(data) || typeof data.type !== 'string') return { key: 'embed.not_object' };
  if (data.type === 'looplab:run' || data.type === 'looplab:stop') return null;
  if (data.type !== 'looplab:set') return { key: 'embed.unknown_type' };
  if (!isPlainObject(data.params)) return { key: 'embed.set_params' };
  for (const [k, v] of Object.entries(data.params)) {
    if (!NAME_RE.test(k) || k === 'experiment') return { key: 'embed.bad_name' };
    if (!isScalar(v)) return { key: 'embed.bad_value', args: { name: k } };
  }
  return null;
}

function listen(widget) {
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || window.parent === window) return;
    if (origin && event.origin !== origin) return;           // not the host we were told about
    if (!isPlainObject(event.data) || !String(event.data.type).startsWith('looplab:')) return;   // not ours
    const why = shapeError(event.data);
    if (why) { post('error', { message: t('embed.ignored', { why }, lang) }); return; }
    if (event.data.type === 'looplab:run') widget.run();
    else if (event.data.type === 'looplab:stop') widget.stop();
    else for (const [k, v] of Object.entries(event.data.params)) setAttr(widget, k, v);
  });
}

function forward(widget) {
  widget.addEventListener('looplab-ready', (e) => post('ready', e.detail));
  widget.addEventListener('looplab-progress', (e) => post('progress', e.detail));
  widget.addEventListener('looplab-error', (e) => post('error', e.detail));
  widget.addEventListener('looplab-result', (e) => {
    const { result } = e.detail;
    post('result', { experiment: result.experiment, config: result.config, summary: result.summary });
  });
  let last = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) { last = height; post('resize', { height }); }
  }).observe(document.body);
}

/** The notes about the URL, in the embed's language: its file is the one the widget loads too (connect.js). */
async function showNotes() {
  const file = await languageFile(lang);
  if (file) addCatalog(lang, file.catalog);
  note.textContent = notes.map((m) => render(m, lang)).join('; ');
  note.hidden = !notes.length;
}

const widget = createWidget();
showNotes();
forward(widget);
listen(widget);
