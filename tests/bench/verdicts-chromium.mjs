// The default timing verdicts in Chromium: tests/bench/verdicts.py's count for the page a student
// opens (web/tools/serve.py, Debian's Chromium, headless), every timed experiment's default config
// run once by its Run button, the JS-driven call-granularity variants included.
//   node tests/bench/verdicts-chromium.mjs [rounds]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from '../web/harness.mjs';

const EXPERIMENTS = ['execution-modes', 'unroll', 'retracing', 'call-granularity', 'overhead', 'pipelines', 'matrix', 'optimizers'];

const server = spawn('python3', ['-u', 'web/tools/serve.py', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => { out += d; const m = /PORT (\d+)\r?\n/.exec(out); if (m) resolve(Number(m[1])); });
  server.once('exit', (code) => reject(new Error(`serve.py exited (${code}): ${out}`)));
});
const profile = mkdtempSync(join(tmpdir(), 'looplab-verdicts-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  for (let round = 1; round <= Number(process.argv[2] || 1); round++) {
    const counts = {};
    console.log(`== Chromium ${context.browser()?.version() ?? ''}, round ${round}, load average ${loadavg()[0].toFixed(1)}`);
    for (const experiment of EXPERIMENTS) {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${port}/web/?experiment=${experiment}`);
      await page.waitForFunction(() => /^(ready|error)/.test(window.__looplab?.status ?? ''), null, { timeout: 60_000 });
      await page.click('#run');
      await page.waitForFunction(() => /^(done|error)/.test(window.__looplab?.status ?? ''), null, { timeout: 600_000, polling: 200 });
      const r = await page.evaluate(() => window.__looplab.lastResult);
      for (const c of r.summary.comparisons.filter((x) => x.quantity === 'time')) {
        counts[c.verdict] = (counts[c.verdict] || 0) + 1;
        const extra = c.ci ? ` ratio ${c.ratio.toPrecision(3)} [${c.ci[0].toPrecision(3)}, ${c.ci[1].toPrecision(3)}] over ${c.rounds}` : '';
        console.log(`  ${experiment.padEnd(17)} ${c.id.padEnd(40)} ${c.verdict.padEnd(12)}${extra}`);
      }
      await page.close();
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(`  -> ${total} timing verdicts: ${Object.entries(counts).sort().map(([k, n]) => `${k} ${n}`).join(', ')}; decided ${total - (counts.inconclusive || 0)} of ${total}`);
  }
} finally {
  await context.close();
  server.kill();
  rmSync(profile, { recursive: true, force: true });
}
