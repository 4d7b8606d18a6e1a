// The wasm build's default timing verdicts under node: tests/bench/verdicts.py's count for the
// module (build/wasm), every timed experiment's default config, one run each.
//   node tests/bench/verdicts-wasm.mjs [rounds]
import { loadavg } from 'node:os';
import { loadModule, runToEnd } from '../../wasm/test/load.mjs';

const EXPERIMENTS = ['execution-modes', 'unroll', 'retracing', 'call-granularity', 'overhead', 'pipelines', 'matrix', 'optimizers'];
const m = await loadModule();
for (let round = 1; round <= Number(process.argv[2] || 1); round++) {
  const counts = {};
  console.log(`== wasm under node, round ${round}, load average ${loadavg()[0].toFixed(1)}`);
  for (const experiment of EXPERIMENTS) {
    const r = runToEnd(m, { experiment });
    for (const c of r.summary.comparisons.filter((x) => x.quantity === 'time')) {
      counts[c.verdict] = (counts[c.verdict] || 0) + 1;
      const extra = c.ci ? ` ratio ${c.ratio.toPrecision(3)} [${c.ci[0].toPrecision(3)}, ${c.ci[1].toPrecision(3)}] over ${c.rounds}` : '';
      console.log(`  ${experiment.padEnd(17)} ${c.id.padEnd(40)} ${c.verdict.padEnd(12)}${extra}`);
    }
  }
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(`  -> ${total} timing verdicts: ${Object.entries(counts).sort().map(([k, n]) => `${k} ${n}`).join(', ')}; decided ${total - (counts.inconclusive || 0)} of ${total}`);
}
