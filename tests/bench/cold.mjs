// cold.mjs — cold runs (issue 27): a student's first click runs in a fresh process, where the
// engine has compiled nothing yet. Each run here is a new process (`looplab_bench cold <case>`),
// the cases taking turns within a round (the order reversed every other round, so drift hits them
// alike); each process also runs the same case a second time, warm. Wall time. Not a test.
//
//   node tests/bench/cold.mjs [rounds] [native|node|chromium] [first-click|raw] [a looplab_bench .js]
//     first-click: as on the page, the warm-up every run starts with (api.hpp, warm_up), done while
//               the page is idle after loading, then one second idle (the student reads), then the
//               case; raw: the case first thing in the process, nothing compiled before it
//     native:   build/native/looplab_bench (LOOPLAB_JIT_CACHE a fresh directory per run, so the C
//               compiler runs: no process before has built this program)
//     node:     build/wasm/looplab_bench.js, or the given one (e.g. a copy built before a change)
//     chromium: build/wasm/looplab_bench_worker.js in a worker of a new headless Chromium (Debian's,
//               a fresh profile each run: no code cache) under web/tools/serve.py's headers
//   (build them: cmake --build --preset wasm --target looplab_bench looplab_bench_worker)
// Prints every round and a Markdown table of medians; the split of the compiled cases' setup:
// trace, compile passes (fusion, memory plan, lowering), generate (lowering to the kernel IR and
// writing the code), build (the C compiler / the engine compiling the module), load.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const rounds = Number(process.argv[2] || 5);
const target = process.argv[3] || 'node';
const regime = process.argv[4] || 'first-click';
const benchJs = process.argv[5] || 'build/wasm/looplab_bench.js';
const regimeArgs = regime === 'raw' ? ['raw'] : [];
const cases = ['w1-reference', 'w1-compiled', 'w2-reference', 'w2-compiled'];

async function runOnce(name) {
  if (target === 'native') {
    const cache = mkdtempSync(join(tmpdir(), 'looplab-cold-'));
    try {
      const out = execFileSync('build/native/looplab_bench', ['cold', name, ...regimeArgs], {
        env: { ...process.env, LOOPLAB_JIT_CACHE: cache },
      });
      return JSON.parse(out);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }
  if (target === 'chromium') return runInChromium(name);
  return JSON.parse(execFileSync('node', ['--no-experimental-fetch', benchJs, 'cold', name, ...regimeArgs]));
}

let server = null, port = 0;
async function runInChromium(name) {
  const { chromium } = await import('playwright-core');
  if (!server) {
    server = spawn('python3', ['-u', 'web/tools/serve.py', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    port = await new Promise((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d) => { out += d; const m = /PORT (\d+)\r?\n/.exec(out); if (m) resolve(Number(m[1])); });
      server.once('exit', (code) => reject(new Error(`serve.py exited (${code}): ${out}`)));
    });
  }
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/tests/bench/cold.html`);
    const line = await page.evaluate(([c, raw]) => new Promise((resolve, reject) => {
      const w = new Worker(`/tests/bench/cold-worker.js?case=${c}${raw}`);
      const errors = [];
      w.onmessage = (e) => (e.data.line ? resolve(e.data.line) : errors.push(e.data.error));
      setTimeout(() => reject(new Error(`no result in 120 s: ${errors.join('; ')}`)), 120_000);
      w.onerror = (e) => reject(new Error(e.message));
    }), [name, regime === 'raw' ? '&raw=1' : '']);
    return JSON.parse(line);
  } finally {
    await browser.close();
  }
}

const total = (r) => r.setup_ms + r.steps_ms;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const f1 = (x) => x.toFixed(1);

const results = Object.fromEntries(cases.map((c) => [c, []]));
for (let round = 1; round <= rounds; ++round) {
  const order = round % 2 ? cases : [...cases].reverse();
  const line = [];
  for (const c of order) {
    const r = await runOnce(c);
    results[c].push(r);
    line.push(`${c} ${f1(total(r.cold))} (warm ${f1(total(r.warm))})`);
  }
  console.log(`round ${round}: ${line.join(', ')}`);
}

console.log(`\n${target}${target === 'node' ? ` (${benchJs})` : ''}, ${regime}, ${rounds} rounds, wall ms, medians:\n`);
console.log(`warm-up before the idle second (medians by case): ${cases.map((c) => `${c} ${f1(median(results[c].map((r) => r.warm_up_ms)))}`).join(', ')}\n`);
console.log('| case | cold total | cold setup | cold steps | first tenth of steps | warm total | warm steps | every round: cold total |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of cases) {
  const rs = results[c];
  const m = (f) => f1(median(rs.map(f)));
  console.log(`| ${c} | ${m((r) => total(r.cold))} | ${m((r) => r.cold.setup_ms)} | ${m((r) => r.cold.steps_ms)} | ` +
    `${m((r) => r.cold.chunk_ms[0])} | ${m((r) => total(r.warm))} | ${m((r) => r.warm.steps_ms)} | ` +
    `${rs.map((r) => f1(total(r.cold))).join(', ')} |`);
}
console.log('\nThe compiled cases\' cold setup, split (medians, ms):\n');
console.log('| case | setup | trace | compile passes | generate | of which emit | build | load |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of cases.filter((x) => x.includes('compiled'))) {
  const rs = results[c].map((r) => r.cold);
  const m = (f) => f1(median(rs.map(f)));
  console.log(`| ${c} | ${m((r) => r.setup_ms)} | ${m((r) => r.trace_ms)} | ${m((r) => r.compile_ms - r.codegen_ms)} | ` +
    `${m((r) => r.codegen_ms - r.build_ms - r.load_ms)} | ${m((r) => r.emit_ms)} | ${m((r) => r.build_ms)} | ${m((r) => r.load_ms)} |`);
}
for (const c of ['w1', 'w2']) {
  const ratio = (f) => median(results[`${c}-compiled`].map((r, i) => f(r) / f(results[`${c}-reference`][i])));
  console.log(`\n${c}: compiled cold / reference cold ${ratio((r) => total(r.cold)).toFixed(2)}x (median of per-round ratios), ` +
    `compiled cold / compiled warm ${median(results[`${c}-compiled`].map((r) => total(r.cold) / total(r.warm))).toFixed(2)}x`);
}
if (server) server.kill();
