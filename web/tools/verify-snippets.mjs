#!/usr/bin/env node
// Checks the authoring page's snippets with the real site generators, when they are installed:
// builds an MkDocs site and a Sphinx + MyST (Jupyter Book's engine) site from the snippets that
// web/author.html generates, serves them with web/tools/serve.py, and runs the widget in each in Chromium.
// Not part of `make test` (mkdocs, sphinx and myst-parser are not project dependencies):
//
//   apt-get install mkdocs python3-sphinx python3-myst-parser   # Debian 12: MkDocs 1.4, Sphinx 5.3, MyST 0.18
//   node web/tools/verify-snippets.mjs
//   REVEAL_DIST=/path/to/reveal.js/dist node web/tools/verify-snippets.mjs    # also a reveal.js deck
//
// Prints one line per platform: built, widget ran (its status), and any CSP violation the widget caused.
// The generated sites land in test-results/snippet-sites/ (served from the repo root).
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SITES = join(ROOT, 'test-results', 'snippet-sites');

function serve() {
  const proc = spawn('python3', ['-u', 'web/tools/serve.py', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((res) => proc.stdout.on('data', (d) => {
    const m = /PORT (\d+)/.exec(d);
    if (m) res({ proc, base: `http://127.0.0.1:${m[1]}` });
  }));
}

const has = (cmd, args) => { try { execFileSync(cmd, args, { stdio: 'ignore' }); return true; } catch { return false; } };

function buildMkdocs(snippet) {
  const dir = join(SITES, 'mkdocs');
  mkdirSync(join(dir, 'docs'), { recursive: true });
  writeFileSync(join(dir, 'mkdocs.yml'), 'site_name: looplab snippet check\nuse_directory_urls: false\n');
  writeFileSync(join(dir, 'docs', 'index.md'), `# Scaling the inputs\n\nRun it, then change the learning rate.\n\n${snippet}\n\nAfter the widget.\n`);
  execFileSync('mkdocs', ['build', '-q', '-f', join(dir, 'mkdocs.yml'), '-d', join(dir, 'site')], { stdio: 'inherit' });
  return '/test-results/snippet-sites/mkdocs/site/index.html';
}

function buildMyst(snippet) {
  const dir = join(SITES, 'myst');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'conf.py'), "extensions = ['myst_parser']\nproject = 'looplab snippet check'\nhtml_theme = 'basic'\n");
  writeFileSync(join(dir, 'index.md'), `# Scaling the inputs\n\nRun it, then change the learning rate.\n\n${snippet}\n\nAfter the widget.\n`);
  execFileSync('sphinx-build', ['-q', '-b', 'html', dir, join(dir, '_build')], { stdio: 'inherit' });
  return '/test-results/snippet-sites/myst/_build/index.html';
}

function buildReveal(snippet) {
  const dir = join(SITES, 'reveal');
  mkdirSync(dir, { recursive: true });
  cpSync(process.env.REVEAL_DIST, join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'init.js'), "import Reveal from './dist/reveal.mjs';\nwindow.Reveal = Reveal;\nReveal.initialize({ hash: true });\n");
  writeFileSync(join(dir, 'index.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>deck</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="dist/reveal.css"><link rel="stylesheet" href="dist/theme/white.css">
<script type="module" src="init.js"></script></head>
<body><div class="reveal"><div class="slides">
<section><h1>Training loops</h1></section>
${snippet}
</div></div></body></html>\n`);
  return '/test-results/snippet-sites/reveal/index.html#/1';
}

async function main() {
  rmSync(SITES, { recursive: true, force: true });
  const { proc, base } = await serve();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const author = await browser.newPage();
    await author.goto(`${base}/web/author.html`);
    await author.waitForFunction(() => document.querySelector('#preview-widget')?.status === 'ready', null, { timeout: 30_000 });
    const text = (id) => author.textContent(`[data-snippet=${id}] code`);
    const platforms = [
      ['MkDocs', () => has('mkdocs', ['--version']), async () => buildMkdocs(await text('mkdocs'))],
      ['Jupyter Book / MyST (Sphinx + myst-parser)', () => has('sphinx-build', ['--version']), async () => buildMyst(await text('myst'))],
      ['reveal.js', () => Boolean(process.env.REVEAL_DIST), async () => buildReveal(await text('reveal'))],
    ];
    for (const [name, available, build] of platforms) {
      if (!available()) { console.log(`${name}: skipped (not installed)`); continue; }
      let path;
      try { path = await build(); } catch (e) { console.log(`${name}: build failed: ${e.message.split('\n')[0]}`); continue; }
      const page = await browser.newPage();
      await page.addInitScript(() => {
        window.__csp = [];
        document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}`));
      });
      await page.goto(`${base}${path}`);
      await page.waitForFunction(() => /^(ready|error)/.test(document.querySelector('looplab-experiment')?.status ?? ''), null, { timeout: 30_000 });
      await page.evaluate(() => document.querySelector('looplab-experiment').run());
      await page.waitForFunction(() => /^(done|error)/.test(document.querySelector('looplab-experiment').status), null, { timeout: 120_000 });
      const status = await page.evaluate(() => document.querySelector('looplab-experiment').status);
      const csp = await page.evaluate(() => window.__csp);
      const ours = csp.filter((v) => /looplab|\/web\//.test(v));
      console.log(`${name}: built ${path}; widget ${status}; CSP violations by the widget: ${ours.length}`
        + `${csp.length > ours.length ? ` (the generator's own theme: ${csp.length - ours.length})` : ''}`);
      await page.close();
    }
  } finally {
    await browser.close();
    proc.kill();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
