#!/usr/bin/env python3
"""How many timing verdicts a default run decides: every timing comparison of every timed
experiment's default config, for one or more CLIs (e.g. a build before and after a change).

    tests/bench/verdicts.py build/native/looplab [other/looplab ...] [--rounds 3]

Prints, per CLI and round, the verdict of each timing comparison (a, b, same, inconclusive; a or b
"(margin open)" when which side is faster is decided but not whether by more than the band) with
its ratio and interval when it has one, then the counts, and the load average when it ran. A
verdict is "decided" when it is a or b beyond the band, or same; under the spread rule (no rounds) "same" may also mean the
spreads were too wide to tell. Nothing here is pass/fail: it is a measurement for the notes.
"""
import json
import os
import subprocess
import sys
import tempfile

EXPERIMENTS = ["execution-modes", "unroll", "retracing", "call-granularity", "overhead", "pipelines", "matrix", "optimizers"]


def timing_verdicts(cli, experiment):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        subprocess.run([cli, "run", experiment, "--json", out], check=True, capture_output=True)
        with open(out) as f:
            result = json.load(f)
    return [c for c in result["summary"]["comparisons"] if c.get("quantity") == "time"]


def main():
    args = sys.argv[1:]
    rounds = 1
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    for cli in args:
        for r in range(rounds):
            counts = {}
            print(f"== {cli}, round {r + 1}, load average {os.getloadavg()[0]:.1f}")
            for e in EXPERIMENTS:
                for c in timing_verdicts(cli, e):
                    v = c["verdict"]
                    if v in ("a", "b") and c.get("decided") is False:
                        v += " (margin open)"  # faster, but whether beyond the band is not decided
                    counts[v] = counts.get(v, 0) + 1
                    extra = f" ratio {c['ratio']:.3g} [{c['ci'][0]:.3g}, {c['ci'][1]:.3g}] over {c['rounds']}" if "ci" in c else ""
                    print(f"  {e:17s} {c['id']:40s} {v:12s}{extra}")
            total = sum(counts.values())
            decided = total - sum(n for k, n in counts.items() if k == "inconclusive" or "open" in k)
            print(f"  -> {total} timing verdicts: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())) +
                  f"; decided {decided} of {total}")


if __name__ == "__main__":
    main()
