// Form controls built from an experiment's parameter declarations (describe(id).parameters):
//   {name, type: 'choice'|'number'|'integer'|'bool', default, choices?, min?, max?, min_exclusive?,
//    max_exclusive?, log?, help, when?: {otherParam: value}}
// The page never knows an experiment's parameters: it reads them here. Values are sent to the core
// as typed; the core validates them and its one-line message ("lr_raw: must be ...") is shown under
// the control it names.
//
//   const controls = new Controls(container, describe.parameters, onInput);
//   controls.applyQuery(new URLSearchParams(location.search));
//   const config = { experiment: id, ...controls.values() };
//   controls.showError(message);          // true when the message named one of the controls
import { t } from '../util/i18n.js';

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Parses typed text; anything that is not a plain number is passed on as text so the core can name it. */
function parseNumber(text) {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return NUMBER_RE.test(trimmed) ? Number(trimmed) : trimmed;
}

/** Human-readable allowed range of a numeric parameter, e.g. "(0, 10]". */
export function rangeText(p) {
  if (p.min === undefined && p.max === undefined) return '';
  const lo = p.min === undefined ? '(-∞' : `${p.min_exclusive ? '(' : '['}${p.min}`;
  const hi = p.max === undefined ? '∞)' : `${p.max}${p.max_exclusive ? ')' : ']'}`;
  return `${lo}, ${hi}`;
}

const matches = (want, have) => (Array.isArray(want) ? want.includes(have) : want === have);

export class Controls {
  constructor(container, parameters, onInput, lang = 'en') {
    this.lang = lang;
    this.params = parameters;
    this.fields = new Map();
    this.onInput = onInput;
    container.replaceChildren();
    for (const p of parameters) {
      const field = this.buildField(p);
      this.fields.set(p.name, field);
      container.append(field.root);
    }
    this.reset();
  }

  buildField(p) {
    const id = `param-${p.name}`;
    const root = document.createElement('div');
    root.className = `field field-${p.type}`;
    root.dataset.param = p.name;

    const label = document.createElement('label');
    label.htmlFor = id;
    const name = document.createElement('code');
    name.textContent = p.name;
    label.append(name);

    let input;
    if (p.type === 'choice') {
      input = document.createElement('select');
      for (const c of p.choices || []) {
        const opt = document.createElement('option');
        opt.value = String(c);
        opt.textContent = String(c);
        input.append(opt);
      }
    } else if (p.type === 'bool') {
      input = document.createElement('input');
      input.type = 'checkbox';
    } else {
      input = document.createElement('input');
      input.type = 'text';
      input.inputMode = p.type === 'integer' ? 'numeric' : 'decimal';
      input.autocomplete = 'off';
      input.spellcheck = false;
    }
    input.id = id;
    input.name = p.name;

    const help = document.createElement('p');
    help.className = 'field-help';
    help.id = `${id}-help`;
    // The range and the default are values as one types them (here, in the URL, in the CLI), where '.'
    // is the only decimal sign the core reads: they are shown as code, not as numbers in the
    // language's signs.
    const meta = document.createElement('span');
    meta.className = 'field-meta';
    const facts = [];
    if (p.type === 'number' || p.type === 'integer') {
      const r = rangeText(p);   // the core's own wording when it gives one
      const allowed = r ? withCode(t(p.type === 'integer' ? 'allowed.integer_in' : 'allowed.number_in', { range: MARK }, this.lang), r) : [p.type];
      facts.push([...allowed, p.log ? t('ui.log_scale', {}, this.lang) : '']);
    }
    facts.push(withCode(t('ui.default_value', { value: MARK }, this.lang), formatDefault(p)));
    help.textContent = p.help || '';
    facts.forEach((nodes, i) => meta.append(...(i ? [' · '] : []), ...nodes));
    help.append(meta);

    // Under a parameter that others depend on: which ones are hidden, and when they apply.
    const when = document.createElement('p');
    when.className = 'field-when';
    when.id = `${id}-when`;
    when.hidden = true;

    const error = document.createElement('p');
    error.className = 'field-error';
    error.id = `${id}-error`;
    error.hidden = true;

    input.setAttribute('aria-describedby', `${help.id} ${error.id}`);
    input.addEventListener(p.type === 'choice' || p.type === 'bool' ? 'change' : 'input', () => {
      this.updateApplicability();
      this.onInput?.(p.name);
    });

    if (p.type === 'bool') {
      const row = document.createElement('div');
      row.className = 'check-row';
      row.append(input, label);
      root.append(row, help, when, error);
    } else {
      root.append(label, input, help, when, error);
    }
    return { p, root, input, error, when };
  }

  /** Sets every control to its declared default. */
  reset() {
    for (const f of this.fields.values()) setText(f, formatDefault(f.p), this.lang);
    this.clearErrors();
    this.updateApplicability();
  }

  /** Sets controls from ?name=value pairs; unknown names are returned (the page reports them). */
  applyQuery(query) {
    const unknown = [];
    for (const [name, value] of query) {
      if (name === 'experiment') continue;
      const f = this.fields.get(name);
      if (f) setText(f, value, this.lang); else unknown.push(name);
    }
    this.updateApplicability();
    return unknown;
  }

  isApplicable(p) {
    if (!p.when) return true;
    return Object.entries(p.when).every(([other, want]) => {
      const f = this.fields.get(other);
      return f && this.isApplicable(f.p) && matches(want, readValue(f));
    });
  }

  /** Hides the controls that do not apply; notes them under the control they depend on. Marks changed values. */
  updateApplicability() {
    for (const f of this.fields.values()) f.root.classList.toggle('changed', readValue(f) !== f.p.default);
    const hiddenBy = new Map();   // controlling name -> [[dependent name, condition text]]
    for (const f of this.fields.values()) {
      const on = this.isApplicable(f.p);
      f.input.disabled = !on || this.locked;
      f.root.hidden = !on;
      if (on) continue;
      for (const [other, want] of Object.entries(f.p.when)) {
        if (!hiddenBy.has(other)) hiddenBy.set(other, []);
        hiddenBy.get(other).push([f.p.name, `${other} = ${Array.isArray(want) ? want.join(t('ui.or', {}, this.lang)) : want}`]);
      }
    }
    for (const f of this.fields.values()) {
      const deps = hiddenBy.get(f.p.name) || [];
      f.when.hidden = deps.length === 0;
      const byCondition = new Map();
      for (const [name, cond] of deps) byCondition.set(cond, [...(byCondition.get(cond) || []), name]);
      f.when.textContent = [...byCondition].map(([cond, names]) => t('ui.adds', { cond, names: names.join(', ') }, this.lang)).join('; ');
    }
  }

  /** The config entries of the controls that apply, as typed (validated by the core, not here). */
  values() {
    const out = {};
    for (const f of this.fields.values()) if (this.isApplicable(f.p)) out[f.p.name] = readValue(f);
    return out;
  }

  /** URL query reproducing the current controls: experiment first, then the applicable parameters. */
  toQuery(experiment) {
    const q = new URLSearchParams({ experiment });
    for (const f of this.fields.values()) {
      if (!this.isApplicable(f.p)) continue;
      q.set(f.p.name, f.p.type === 'bool' ? String(f.input.checked) : f.input.value.trim());
    }
    return q;
  }

  setLocked(locked) {
    this.locked = locked;
    this.updateApplicability();
  }

  clearErrors() {
    for (const f of this.fields.values()) {
      f.error.hidden = true;
      f.error.textContent = '';
      f.input.removeAttribute('aria-invalid');
      f.root.classList.remove('invalid');
    }
  }

  /** Shows the core's message under the parameter it names ("name: ..."); false if it names none. */
  showError(message) {
    this.clearErrors();
    const m = /^\s*([A-Za-z_][\w.-]*)\s*:/.exec(message);
    const f = m && this.fields.get(m[1]);
    if (!f) return false;
    f.error.textContent = message;
    f.error.hidden = false;
    f.input.setAttribute('aria-invalid', 'true');
    f.root.classList.add('invalid');
    return true;
  }

  focus(name) {
    this.fields.get(name)?.input.focus();
  }
}

const MARK = '\u0000';

/** A catalog text rendered with MARK for a value: its parts, the value as a <code> element. */
function withCode(text, value) {
  const code = document.createElement('code');
  code.textContent = value;
  const [before, after = ''] = text.split(MARK);
  return [before, code, after].filter((part) => part !== '');
}

function formatDefault(p) {
  if (p.default === undefined || p.default === null) return '';
  return String(p.default);
}

function setText(f, text, lang) {
  const { p, input } = f;
  if (p.type === 'bool') {
    input.checked = text === true || /^(true|1|yes|on)$/i.test(String(text));
  } else if (p.type === 'choice') {
    const value = String(text);
    if (![...input.options].some((o) => o.value === value)) {
      // Not a declared choice (from a URL): keep it selectable so the core's message names it.
      const opt = document.createElement('option');
      opt.value = value;
      opt.textContent = t('ui.not_a_choice', { value }, lang);
      opt.className = 'invalid-choice';
      input.append(opt);
    }
    input.value = value;
  } else {
    input.value = String(text);
  }
}

function readValue(f) {
  const { p, input } = f;
  if (p.type === 'bool') return input.checked;
  if (p.type === 'choice') {   // choices keep their declared JSON type (e.g. numbers)
    const c = (p.choices || []).find((v) => String(v) === input.value);
    return c === undefined ? input.value : c;
  }
  return parseNumber(input.value);
}
