// "Your own data": a labelled file picker for experiments whose describe() says takes_csv. It reads
// the chosen file with file.text(), offers the header's column names as x and y (as option text,
// never as HTML), and hands the page the config's "csv" field: {text, x, y, name}. The core parses
// and checks the file (csv.hpp); its one-line message ("csv line 3 (data row 2), column "y": ...")
// is shown here, inside the form.
//
//   const picker = new DataPicker(formElement, () => revalidate());
//   picker.show(describe.takes_csv);
//   const csv = picker.attachment();      // null: the experiment's built-in data
//   picker.showError(message);            // true when the message is about the file

import { t as tr } from '../util/i18n.js';

// Mirrors CsvLimits::max_bytes so a huge file is refused before it is read; the core checks again.
const MAX_BYTES = 16 * 1024 * 1024;

/** The column names of a CSV's first non-blank line: commas split, "quoted, names" and "" kept. */
export function headerColumns(text) {
  const line = text.replace(/^\uFEFF/, '').split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const names = [];
  let cur = '', quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; } else if (c === '"') quoted = false; else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { names.push(cur.trim()); cur = ''; } else cur += c;
  }
  names.push(cur.trim());
  return names.filter((n) => n !== '');
}

function make(tag, props = {}, text) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** `node` saying catalog key `key`, marked so that the panel's relabel() says it in another language. */
function labelled(node, key, lang) {
  node.dataset.i18n = key;
  node.textContent = tr(key, {}, lang);
  return node;
}

export class DataPicker {
  constructor(container, onChange, lang = 'en') {
    this.onChange = onChange;
    this.lang = lang;
    this.data = null;   // {text, name, columns}
    this.root = make('fieldset', { className: 'data-picker', id: 'data-picker', hidden: true });
    this.root.append(labelled(make('legend'), 'data.legend', lang));
    this.file = make('input', { type: 'file', id: 'data-file', accept: '.csv,text/csv,text/plain' });
    this.x = make('select', { id: 'data-x', disabled: true });
    this.y = make('select', { id: 'data-y', disabled: true });
    this.clear = labelled(make('button', { type: 'button', id: 'data-clear', disabled: true }), 'data.clear', lang);
    this.status = labelled(make('p', { className: 'form-note', id: 'data-status' }), 'data.hint', lang);
    this.error = make('p', { className: 'form-error', id: 'data-error', hidden: true });
    this.error.setAttribute('role', 'alert');
    const field = (key, input) => {
      const div = make('div', { className: 'field' });
      div.append(labelled(make('label', { htmlFor: input.id }), key, lang), input);
      return div;
    };
    this.file.setAttribute('aria-describedby', 'data-status data-error');
    this.root.append(field('data.file', this.file), field('data.x', this.x), field('data.y', this.y),
      this.clear, this.status, this.error);
    container.append(this.root);
    this.file.addEventListener('change', () => this.load(this.file.files?.[0]));
    for (const s of [this.x, this.y]) s.addEventListener('change', () => { this.describeChoice(); this.onChange(); });
    this.clear.addEventListener('click', () => this.reset());
  }

  /** Shown only for experiments that take data; hiding it drops the file. */
  show(takesCsv) {
    this.root.hidden = !takesCsv;
    if (!takesCsv && this.data) this.reset(false);
  }

  async load(file) {
    this.showError('');
    if (!file) return;
    if (file.size > MAX_BYTES) {
      this.reset(false);
      this.showError(tr('data.too_big', { bytes: file.size, max: MAX_BYTES }, this.lang));
      return;
    }
    const text = await file.text();
    const columns = headerColumns(text);
    this.data = { text, name: file.name, columns };
    this.fill(this.x, columns, 0);
    this.fill(this.y, columns, columns.length - 1);
    this.clear.disabled = false;
    this.describeChoice();
    this.onChange();
  }

  fill(select, columns, chosen) {
    select.replaceChildren(...columns.map((c) => make('option', { value: c }, c)));
    select.selectedIndex = chosen;
    select.disabled = columns.length === 0;
  }

  describeChoice() {
    if (!this.data) return;
    const rows = this.data.text.split('\n').filter((l) => l.trim() !== '').length - 1;
    delete this.status.dataset.i18n;
    this.status.textContent = tr('data.using', { name: this.data.name, rows: Math.max(0, rows), x: this.x.value || '?', y: this.y.value || '?' }, this.lang);
  }

  reset(notify = true) {
    this.data = null;
    this.file.value = '';
    for (const s of [this.x, this.y]) { s.replaceChildren(); s.disabled = true; }
    this.clear.disabled = true;
    labelled(this.status, 'data.builtin', this.lang);
    this.showError('');
    if (notify) this.onChange();
  }

  /** The config's "csv" field, or null for the built-in data. */
  attachment() {
    if (this.root.hidden || !this.data) return null;
    return { text: this.data.text, name: this.data.name, x: this.x.value, y: this.y.value };
  }

  /** Shows a message about the file (csv…, x:, y:) here; '' clears. True when it was one. */
  showError(message) {
    const ours = message !== '' && !this.root.hidden && /^(csv\b|x:|y:)/.test(message);
    this.error.textContent = ours ? message : '';
    this.error.hidden = !ours;
    if (ours) this.file.setAttribute('aria-invalid', 'true'); else this.file.removeAttribute('aria-invalid');
    return ours;
  }

  setLocked(locked) {
    this.file.disabled = locked;
    this.x.disabled = locked || !this.data;
    this.y.disabled = locked || !this.data;
    this.clear.disabled = locked || !this.data;
  }
}
