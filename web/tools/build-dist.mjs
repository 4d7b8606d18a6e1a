#!/usr/bin/env node
// `make dist`: the static site and the offline single file (issue 5).
//
//   node web/tools/build-dist.mjs [outDir=dist]      (needs build/wasm/looplab.{mjs,wasm} and node_modules/uplot)
//
// dist/                          deploy as-is to any static host or CDN: no server code
//   index.html                   -> web/ (a meta refresh: no script)
//   web/                         the pages (index, embed, author), looplab-widgets.js and the folders they
//                                load (app, panel, plots, runtime, util, styles, widgets); not web/tools
//   build/wasm/looplab.{mjs,wasm}
//   node_modules/uplot/dist/{uPlot.esm.js,uPlot.min.css}
//   looplab-standalone.html      one self-contained file: opens from file:// and uploads to an LMS
//
// The site keeps the repository's relative layout, so the same relative imports work in both.
//
// file:// refuses ES modules and module workers (TOOLCHAIN.md §5), so the standalone file holds classic
// scripts: a tiny bundler below turns our ES modules (static imports, `export` declarations, one
// dynamic import of the module) into one script per side. The worker side, with the wasm inlined as
// base64, sits in a <script type="text/plain"> and starts as a Blob-URL worker.
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = resolve(ROOT, process.argv[2] || 'dist');
const WASM_MJS = join(ROOT, 'build/wasm/looplab.mjs');
const WASM_BIN = join(ROOT, 'build/wasm/looplab.wasm');
const VENDOR = ['node_modules/uplot/dist/uPlot.esm.js', 'node_modules/uplot/dist/uPlot.min.css'];
const SITE_EXT = /\.(html|js|css)$/;
const NOT_SITE = new Set(['tools']);   // build scripts and the dev server stay out of the site

function fail(message) {
  console.error(`build-dist: ${message}`);
  process.exit(1);
}

// ---------------------------------------------------------------- static site
/** Copies web/<dir>'s pages, scripts and styles (recursively, without web/tools) to OUT/web/<dir>. */
function copyWeb(dir = '') {
  mkdirSync(join(OUT, 'web', dir), { recursive: true });
  for (const name of readdirSync(join(ROOT, 'web', dir))) {
    const rel = join(dir, name);
    const from = join(ROOT, 'web', rel);
    if (statSync(from).isDirectory()) { if (!NOT_SITE.has(rel)) copyWeb(rel); continue; }
    if (SITE_EXT.test(name)) cpSync(from, join(OUT, 'web', rel));
  }
}

function copySite() {
  rmSync(OUT, { recursive: true, force: true });
  copyWeb();
  for (const file of [...VENDOR, 'build/wasm/looplab.mjs', 'build/wasm/looplab.wasm']) {
    mkdirSync(dirname(join(OUT, file)), { recursive: true });
    cpSync(join(ROOT, file), join(OUT, file));
  }
  writeFileSync(join(OUT, 'index.html'), '<!doctype html>\n<meta charset="utf-8">\n<title>looplab</title>\n'
    + '<meta http-equiv="refresh" content="0; url=web/">\n<a href="web/">looplab</a>\n');
}

// ---------------------------------------------------------------- mini bundler
const IMPORT_RE = /^import\s+(?:([\w$]+)\s*,\s*)?(?:([\w$]+)|\{([^}]*)\}|\*\s+as\s+([\w$]+))?\s*(?:from\s*)?['"]([^'"]+)['"];?[ \t]*$/gm;
const DYNAMIC_IMPORT_RE = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const EXPORT_DECL_RE = /^export\s+(async\s+function\*?|function\*?|class|const|let|var)\s+([\w$]+)/gm;
const EXPORT_DEFAULT_RE = /^export\s+default\s+([\w$]+)\s*;?[ \t]*$/gm;
const EXPORT_LIST_RE = /^export\s*\{([^}]*)\}\s*;?[ \t]*$/gm;

/**
 * Bundles the ES module `entry` and what it imports into one classic script: each module becomes
 * `const __mN = (() => { ...; return {exports}; })();` in dependency order. Handles exactly the forms
 * our files and uPlot/Emscripten use, and fails loudly on anything else (a remaining `import`/`export`
 * line or `import.meta`), so a new form breaks the build instead of the page.
 * exportsOverride: {absPath: 'expression'} replaces a module's exports (the module factory gets its wasm).
 */
function bundle(entry, exportsOverride = {}) {
  const ids = new Map();
  const out = [];
  const visit = (file, stack = []) => {
    if (ids.has(file)) return ids.get(file);
    if (stack.includes(file)) fail(`import cycle: ${[...stack, file].map((f) => relative(ROOT, f)).join(' -> ')}`);
    let code = readFileSync(file, 'utf8');
    const dep = (spec) => `__m${visit(resolve(dirname(file), spec), [...stack, file])}`;
    code = code.replace(IMPORT_RE, (_, defA, defB, names, star, spec) => {
      const m = dep(spec);
      const parts = [];
      if (defA || defB) parts.push(`const ${defA || defB} = ${m}.default;`);
      if (names) parts.push(`const { ${names.replace(/\s+as\s+/g, ': ')} } = ${m};`);
      if (star) parts.push(`const ${star} = ${m};`);
      return parts.join(' ');
    });
    code = code.replace(DYNAMIC_IMPORT_RE, (_, spec) => `Promise.resolve(${dep(spec)})`);
    const exported = [];
    code = code.replace(EXPORT_DECL_RE, (_, kind, name) => { exported.push([name, name]); return `${kind} ${name}`; });
    code = code.replace(EXPORT_DEFAULT_RE, (_, name) => { exported.push(['default', name]); return ''; });
    code = code.replace(EXPORT_LIST_RE, (_, list) => {
      for (const item of list.split(',').map((s) => s.trim()).filter(Boolean)) {
        const [local, as] = item.split(/\s+as\s+/);
        exported.push([as || local, local]);
      }
      return '';
    });
    const url = JSON.stringify(`file:///looplab/${relative(ROOT, file)}`);   // only ever a base for new URL()
    code = code.replace(/\bimport\.meta\.url\b/g, url);
    const leftover = /^\s*(import|export)\b[^(]|\bimport\.meta\b/m.exec(code);
    if (leftover) fail(`${relative(ROOT, file)}: cannot bundle "${code.slice(leftover.index, leftover.index + 60).trim()}"`);
    const id = ids.size;
    ids.set(file, id);
    // Getters, as ES live bindings: a name matched inside a comment (uPlot has one) is never read.
    const exportsExpr = exportsOverride[file] || `{ ${exported.map(([as, local]) => `get ${as}() { return ${local}; }`).join(', ')} }`;
    out.push(`// ---- ${relative(ROOT, file)}\nconst __m${id} = (() => {\n${code}\nreturn ${exportsExpr};\n})();\n`);
    return id;
  };
  visit(entry);
  return `'use strict';\n${out.join('\n')}`;
}

/** Text safe inside <script>…</script>: "</script" (any case) cannot close the element early. */
const scriptSafe = (js) => js.replace(/<\/(script)/gi, '<\\/$1');

// ---------------------------------------------------------------- standalone file
function standalone() {
  const wasmB64 = readFileSync(WASM_BIN).toString('base64');
  // The worker's module gets its wasm from the base64 text instead of fetching looplab.wasm.
  const factory = `{ default: (options = {}) => createLooplab({ wasmBinary: Uint8Array.from(atob(${JSON.stringify(wasmB64)}), (c) => c.charCodeAt(0)), ...options }) }`;
  const workerJs = bundle(join(ROOT, 'web/runtime/worker.js'), { [WASM_MJS]: factory });
  const mainJs = bundle(join(ROOT, 'web/tools/standalone-main.js'));
  const css = [...VENDOR.filter((f) => f.endsWith('.css')), 'web/styles/panel.css', 'web/styles/widget.css']
    .map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
  const pageCss = readFileSync(join(ROOT, 'web/tools/standalone.css'), 'utf8');
  const template = readFileSync(join(ROOT, 'web/tools/standalone.html'), 'utf8');
  const parts = {
    '/*PAGE_CSS*/': pageCss,
    '/*WIDGET_CSS*/': css,
    '/*WORKER_JS*/': workerJs,
    '/*MAIN_JS*/': mainJs,
  };
  let html = template;
  for (const [marker, text] of Object.entries(parts)) {
    if (html.split(marker).length !== 2) fail(`web/tools/standalone.html must hold ${marker} exactly once`);
    html = html.replace(marker, () => scriptSafe(text));
  }
  writeFileSync(join(OUT, 'looplab-standalone.html'), html);
}

// ---------------------------------------------------------------- sizes
function size(files) {
  const bytes = files.reduce((n, f) => n + statSync(join(OUT, f)).size, 0);
  const gz = files.reduce((n, f) => n + gzipSync(readFileSync(join(OUT, f)), { level: 9 }).length, 0);
  return `${bytes.toLocaleString('en-US')} B (gzip -9: ${gz.toLocaleString('en-US')} B)`;
}

/**
 * What a host page downloads for one widget: looplab-widgets.js and everything it references, followed
 * through static and dynamic imports and `new URL('…', import.meta.url)` (worker, styles, module, wasm).
 */
function hostFiles(entry = 'web/looplab-widgets.js') {
  const seen = new Set();
  const REF_RE = /(?:\bfrom\s*|\bimport\(\s*|new URL\(\s*)['"]([^'"]+\.(?:m?js|css|wasm))['"]/g;
  const walk = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!/\.m?js$/.test(file)) return;
    for (const [, spec] of readFileSync(join(OUT, file), 'utf8').matchAll(REF_RE)) {
      walk(relative(OUT, resolve(dirname(join(OUT, file)), spec)));
    }
  };
  walk(entry);
  return [...seen];
}

function main() {
  for (const f of [WASM_MJS, WASM_BIN, ...VENDOR.map((v) => join(ROOT, v))]) {
    try { statSync(f); } catch { fail(`missing ${relative(ROOT, f)}: run \`make build\` (wasm) and \`npm ci\` first`); }
  }
  copySite();
  standalone();
  console.log(`dist: ${relative(process.cwd(), OUT) || '.'}/`);
  console.log(`  looplab-standalone.html  ${size(['looplab-standalone.html'])}`);
  console.log(`  build/wasm module        ${size(['build/wasm/looplab.mjs', 'build/wasm/looplab.wasm'])}`);
  const files = hostFiles();
  const code = files.filter((f) => !f.startsWith('build/'));
  console.log(`  a host page with widgets downloads ${files.length} files: ${size(files)}`);
  console.log(`    of which widget script + imports + styles + worker (${code.length} files): ${size(code)}`);
  if (process.env.VERBOSE) for (const f of files) console.log(`    ${f.padEnd(40)} ${size([f])}`);
}

main();
