#!/usr/bin/env python3
"""Golden results: the same configs must give the same result JSON, timings aside.

    golden.py capture <looplab-cli> <dir>   run every config three times, keep what all agree on
    golden.py check   <looplab-cli> <dir>   run every config once, compare with what was kept
    golden.py capture <looplab-cli> <dir> unroll retracing   only these experiments' configs

A result holds measured times (and numbers derived from them: fits, adaptive step counts,
sentences quoting them), which differ from run to run. Rather than listing those keys by hand,
`capture` runs each config three times and stores every leaf all runs agree on, plus the set of all
leaf paths. `check` then requires the same paths and the same values for the stored leaves. So a
refactoring that changes a loss, an iteration count, a key or a fixed sentence fails, while a new
timing does not.

The goldens must not depend on the CPU they were captured on: the native build follows the machine
(LOOPLAB_NATIVE, -march=native), so `simd_kind` names its vector unit and is not compared, and a
float is compared to 1e-9 relative or 1e-12 absolute (Eigen's double reductions change their order
with the vector width: ~1e-14 relative between SSE2 and AVX2), never exactly. Integers, strings
and booleans are compared exactly.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

# (experiment, [--set name=value ...]): each experiment declares its golden configs (the defaults
# and two others, small enough that all of them run in well under a minute natively) beside its
# code, in `e.golden_configs`; `looplab test-configs` prints them.
def golden_configs(cli):
    declared = json.loads(subprocess.run([cli, "test-configs"], check=True, capture_output=True,
                                         text=True).stdout)
    return [(experiment, sets) for experiment, configs in declared.items() for sets in configs["golden"]]


# Leaves that follow the clock even when three runs happened to agree: adaptive step counts, how many
# chunks a timing filled, which mode was fastest, and, in the timing experiments, every sentence of
# the summary (they quote times).
TIMING_KEYS = {"clock_resolution_ns", "steps", "steps_per_chunk", "chunks", "rounds", "epochs_per_round", "fastest", "wins_every_cell",
               "wins_every_cell_eager_vs_traced", "cells_without_a_measurable_winner", "prebatched_speedup",
               # a paired verdict's look: how many rounds were taken, the look's level, its outcome
               "taken", "level", "beyond_band", "decided",
               # whether Run longer has an open verdict to decide
               "run_longer"}
# Leaves that follow the CPU the native build was compiled for (-march=native): "SSE2", "AVX2", ...
# and the machine's compiled-code cache (a fresh machine builds the code, a warm one finds it built).
CPU_KEYS = {"simd_kind", "code_cached"}
# How far a float may move: the order of a vectorized double reduction follows the vector width
# (~1e-14 relative); a number near 0 made by cancellation (standardization's best_rho = (κ − 1)/(κ + 1)
# ≈ 7e-10 on standardized data) keeps that error in absolute terms (~1e-16), hence ABS_TOL.
REL_TOL = 1e-9
ABS_TOL = 1e-12
# Every experiment but standardization states verdicts about times, so its sentences follow the
# clock even where three runs agreed ("on this run tracing did not make a step measurably faster").
TIMED_EXPERIMENTS = {"overhead", "matrix", "pipelines", "call-granularity", "execution-modes", "unroll",
                     "retracing", "optimizers"}  # optimizers: its notes quote paired wall times


def compared(experiment, path, value):
    key = path.rsplit("/", 1)[-1]
    if key in TIMING_KEYS or key in CPU_KEYS or "/cells_won/" in path:
        return False
    # A key or series column named with a time unit (steady_step_us, us_spread, ms) is a timing,
    # even where three captures happened to agree (a spread of 0 with one chunk).
    if any(re.search(r"(^|_)(ms|us|ns)(_|$)", part) for part in path.split("/")):
        return False
    # summary.messages are those sentences as {key, args}: in the timing experiments their keys and
    # numbers follow the clock as the sentences do (a verdict's key, a factor of 1 when it is "same").
    if experiment in TIMED_EXPERIMENTS and path.startswith("/summary/messages/"):
        return False
    # A comparison's own sentence ({key, args}, the core renders it once): a timing's follows the
    # clock (its verdict's key, a factor of 1 when it is not decided).
    if re.match(r"/summary/comparisons/\d+/(message|short)/", path):
        return False
    return not (experiment in TIMED_EXPERIMENTS and path.startswith("/summary/") and isinstance(value, str))


def name_of(experiment, sets):
    return experiment + ("" if not sets else "-" + "-".join(s.replace("=", "_") for s in sets))


def run(cli, experiment, sets):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        args = [cli, "run", experiment, "--json", out]
        for s in sets:
            args += ["--set", s]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
        with open(out) as f:
            return without_timed_comparisons(json.load(f))


def without_timed_comparisons(result):
    """A comparison of times (or rates) follows the clock: its values, spreads and verdict.
    The valley grids (49 x 49 points per variant) are kept as their size and sums, not 7,000 leaves."""
    for name, columns in result.get("series", {}).items():
        if name.endswith("_valley"):
            result["series"][name] = {c: {"points": len(v), "sum": round(sum(x for x in v if x is not None), 6)}
                                      for c, v in columns.items()}
    summary = result.get("summary", {})
    if "comparisons" in summary:
        summary["comparisons"] = [c for c in summary["comparisons"] if c.get("quantity") not in ("time", "rate")]
    if "messages" in summary:
        summary["messages"] = without_timed_messages(summary["messages"])
    return result


TIMED_MESSAGE = re.compile(r"cmp\.((same|win|short|same_paired|unsure|lean)\.(time|rate)|short\.(same|same_paired|unsure|lean))")


def without_timed_messages(m):
    """The same inside summary.messages: a comparison of times as a message (its winner first, its key
    the verdict, its factor) becomes {"key": "timed"}, even where three captures happened to agree."""
    if isinstance(m, dict):
        if isinstance(m.get("key"), str) and TIMED_MESSAGE.fullmatch(m["key"]):
            return {"key": "timed"}
        return {k: without_timed_messages(v) for k, v in m.items()}
    if isinstance(m, list):
        return [without_timed_messages(v) for v in m]
    return m


def same(a, b):
    """Equal: floats to REL_TOL relative (or ABS_TOL absolute); integers, strings and booleans exactly."""
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool) or \
            isinstance(b, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    return a == b and type(a) is type(b)


def leaves(value, path=""):
    """{path: leaf} for every leaf; arrays index by position."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(leaves(v, f"{path}/{k}"))
        return out
    if isinstance(value, list):
        out = {f"{path}#len": len(value)}
        for i, v in enumerate(value):
            out.update(leaves(v, f"{path}/{i}"))
        return out
    return {path: value}


def capture(cli, folder, only=()):
    os.makedirs(folder, exist_ok=True)
    for experiment, sets in golden_configs(cli):
        if only and experiment not in only:
            continue
        a, b, c = (leaves(run(cli, experiment, sets)) for _ in range(3))
        stable = {p: v for p, v in a.items()
                  if p in b and p in c and same(b[p], v) and same(c[p], v) and compared(experiment, p, v)}
        golden = {"experiment": experiment, "set": sets, "paths": sorted(set(a) & set(b) & set(c)), "stable": stable}
        with open(os.path.join(folder, name_of(experiment, sets) + ".json"), "w") as f:
            json.dump(golden, f, indent=0, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        print(f"{name_of(experiment, sets)}: {len(stable)} of {len(a)} leaves stable")


def check(cli, folder):
    failures = 0
    configs = golden_configs(cli)
    # A golden file no declaration names any more is a config that was renamed or dropped.
    names = {name_of(experiment, sets) + ".json" for experiment, sets in configs}
    for stale in sorted(set(os.listdir(folder)) - names):
        print(f"{stale}: no experiment declares this golden config any more (see e.golden_configs)")
        failures += 1
    for experiment, sets in configs:
        with open(os.path.join(folder, name_of(experiment, sets) + ".json")) as f:
            golden = json.load(f)
        now = leaves(run(cli, experiment, sets))
        problems = []
        # A path that was in both capture runs must exist now; a path now that was never there is
        # a new key. Array lengths that moved with timing are not stable, so are not compared.
        missing = [p for p in golden["paths"] if p not in now and "#len" not in p]
        problems += [f"missing {p}" for p in missing[:5]]
        known = set(golden["paths"])
        extra = [p for p in now if p not in known and not any(p.startswith(k.rsplit("#", 1)[0] + "/") for k in known if k.endswith("#len") and k not in golden["stable"])]
        problems += [f"new {p}" for p in extra[:5]]
        for p, v in golden["stable"].items():
            if p in now and not same(now[p], v) and compared(experiment, p, v):
                problems.append(f"{p}: was {json.dumps(v, ensure_ascii=False)[:120]}, now {json.dumps(now[p], ensure_ascii=False)[:120]}")
        status = "ok" if not problems else "DIFFERS"
        print(f"{name_of(experiment, sets)}: {status} ({len(golden['stable'])} stable leaves)")
        for line in problems[:12]:
            print("   ", line)
        failures += bool(problems)
    if failures:
        sys.exit(f"{failures} of {len(configs)} golden configs differ from {folder} or are missing")


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in ("capture", "check") or (sys.argv[1] == "check" and len(sys.argv) > 4):
        sys.exit(__doc__)
    if sys.argv[1] == "capture":
        capture(sys.argv[2], sys.argv[3], set(sys.argv[4:]))
    else:
        check(sys.argv[2], sys.argv[3])
