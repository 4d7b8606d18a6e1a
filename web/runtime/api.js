// The thin facade over the embind module (docs/toolchain.md, "The ES module").
//
// Bound functions never throw: on failure they *return* a JS Error, because an exception that unwinds
// through WebAssembly frames leaks wasm stack. This facade turns a returned Error into a thrown one and
// parses the JSON strings, so callers write ordinary try/catch code. The module embeds no message
// catalog, and neither does this script: the caller hands it the catalogs ({lang: catalog}, from the
// language files, dist/lang/<lang>.json). The facade gives the module English at once (the English
// text of errors and results) and any other language the first time a call asks for it.
//
//   const api = wrap(await createLooplab(), { en: englishCatalog });
//   const run = api.createRun({ experiment: 'standardization' });
//   try { while (!run.advance(50)) { ... run.progress() ... } return run.result(); }
//   finally { run.delete(); }            // embind objects are not garbage collected
/** Throws `r` when the module returned an Error, else returns it unchanged. */
export function check(r) {
  if (r instanceof Error) {
    // A ConfigError carries its message as {key, args} too (JSON text): parsed for the renderer.
    if (typeof r.i18n === 'string') {
      try { r.i18n = JSON.parse(r.i18n); } catch { r.i18n = null; }
    }
    throw r;
  }
  return r;
}

/** Gives the module the catalog of the language `lang` stands for (from `catalogs`), unless it has it already. */
function provideCatalog(m, lang, catalogs) {
  const needed = m.catalogNeeded(lang);
  if (!needed) return;
  if (!catalogs[needed]) throw new Error(`the catalog of ${needed} was not given to the module`);   // i18n: the caller's error
  check(m.provideCatalog(needed, JSON.stringify(catalogs[needed])));
}

const toJson = (config) => (typeof config === 'string' ? config : JSON.stringify(config));

/** Wraps one embind Run: every method throws on error; delete() may be called more than once. */
function wrapRun(raw) {
  let deleted = false;
  return {
    advance: (budgetMs) => check(raw.advance(budgetMs)),
    progress: () => JSON.parse(check(raw.progress())),
    result: () => JSON.parse(check(raw.result())),
    /** What the worker measured of the browser-only variants (js-variants.js): joins result(). */
    addMeasurements: (measured) => { check(raw.addMeasurements(toJson(measured))); },
    /** "Run longer": more paired timing rounds for up to `seconds`; false when the run has none. advance() works again. */
    extend: (seconds) => raw.extend(seconds),
    delete() {
      if (!deleted) { deleted = true; raw.delete(); }
    },
  };
}

/**
 * Wraps the module instance returned by the default export of looplab.mjs. `catalogs`: {lang: catalog}
 * with English at least; addCatalog gives another language later.
 */
export function wrap(m, catalogs) {
  const given = { ...catalogs };
  provideCatalog(m, 'en', given);
  return {
    module: m,
    addCatalog: (lang, catalog) => { given[lang] = catalog; },
    listExperiments: (lang = 'en') => { provideCatalog(m, lang, given); return JSON.parse(check(m.listExperiments(lang))); },
    /** The test module's (looplab-test.mjs, which the build writes the language files with); the shipped module has none. */
    describe: (id, lang = 'en') => {
      if (!m.describe) throw new Error('this module has no describe(): the describes are in the language files (lang/<lang>.json)');
      provideCatalog(m, lang, given);
      return JSON.parse(check(m.describe(id, lang)));
    },
    validateConfig: (config) => JSON.parse(check(m.validateConfig(toJson(config)))),
    environment: () => JSON.parse(check(m.environment())),
    /** Compiles and runs a tiny model in every mode, once per module instance (api.hpp, warm_up). */
    warmUp: () => { check(m.warmUp()); },
    /** The caller owns the returned run and must call run.delete(). */
    createRun: (config) => wrapRun(check(m.createRun(toJson(config)))),
  };
}
