#!/usr/bin/env python3
"""Runs every case of cases.json through the looplab CLI (a ctest test; see CMakeLists.txt).

    check_cli.py <looplab binary> <cases.json> [--print] [--english-only] [--cli-cases-only]

A config case ("config", "config_hex" or "config_fill") is written to a file and run as
`looplab run --config <file>`, which hands the text to the core unchanged; an "args" case runs
those arguments ({"hex": ...} = raw bytes). Each must exit with code 2, print nothing to stdout,
and print "looplab: <message>" as the first line of stderr, with no sanitizer report. Run again with
--lang zh-CN and --lang id, each must say its message in that language (Chinese characters; not the
English line), naming the parameter by its CLI name as the English does. --print shows what the CLI
says for each case instead of checking (for writing new cases). --english-only skips the other
languages: the sanitizer tree passes it, as its CLI runs each case as an ASan process (the wording in
every language is checked by the native tree's run). --cli-cases-only (the sanitizer tree too) runs
only the cases whose path differs in the CLI: its arguments, and the bytes only a file can carry
(cli_only); every other config case reaches the core as the same text the GoogleTest suite's BadInput
tests hand it in-process, and those run under the sanitizers too.
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def config_bytes(case):
    if "config" in case:
        return case["config"].encode("utf-8")
    if "config_hex" in case:
        return bytes.fromhex(case["config_hex"])
    f = case["config_fill"]
    return (f["prefix"] + f["fill"] * f["count"] + f["suffix"]).encode("utf-8")


def arg_bytes(a):
    return bytes.fromhex(a["hex"]) if isinstance(a, dict) else a.encode("utf-8")


def run_case(binary, case, tmp, lang=None):
    options = ["--lang", lang] if lang else []
    if "args" in case:
        argv = [binary.encode()] + [o.encode() for o in options] + [arg_bytes(a) for a in case["args"]]
    else:
        path = os.path.join(tmp, "config.json")
        with open(path, "wb") as f:
            f.write(config_bytes(case))
        argv = [binary] + options + ["run", "--config", path]
    p = subprocess.run(argv, capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# "lr_raw: ..." or "--set: ...": the CLI name a message starts with, which every language keeps.
NAMED = re.compile(r"^(--)?[a-z_.-]+: ")


def translated(binary, case, tmp):
    """The problems of the case's message in Chinese and Indonesian (none when each is said in its language)."""
    problems = []
    english = "looplab: " + case["message"]
    named = NAMED.match(case["message"])
    for lang in ("zh-CN", "id"):
        code, _, err = run_case(binary, case, tmp, lang)
        first = err.split("\n", 1)[0]
        if code != 2 or not first.startswith("looplab: ") or first == english or "\u27e6" in first:
            problems.append(f"--lang {lang}: exit {code}, {first!r} (English: {english!r})")
        elif lang == "zh-CN" and not re.search(r"[\u4e00-\u9fff]", first):
            problems.append(f"--lang zh-CN: not Chinese: {first!r}")
        elif named and not first.startswith("looplab: " + named.group(0)):
            problems.append(f"--lang {lang}: does not start with {named.group(0)!r}: {first!r}")
    return problems


def main():
    binary, cases_path = sys.argv[1], sys.argv[2]
    show = "--print" in sys.argv
    english_only = "--english-only" in sys.argv
    cases = json.load(open(cases_path, encoding="utf-8"))["cases"]
    if "--cli-cases-only" in sys.argv:
        cases = [c for c in cases if "args" in c or c.get("cli_only")]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            if case.get("wasm_only"):
                continue
            code, out, err = run_case(binary, case, tmp)
            first = err.split("\n", 1)[0]
            if show:
                print(json.dumps({"name": case["name"], "exit": code, "message": first.removeprefix("looplab: ")},
                                 ensure_ascii=False))
                continue
            problems = []
            if code != 2:
                problems.append(f"exit code {code}, expected 2")
            if out:
                problems.append(f"stdout not empty: {out[:200]!r}")
            if first != "looplab: " + case["message"]:
                problems.append(f"message\n      got:      {first!r}\n      expected: {('looplab: ' + case['message'])!r}")
            if "Sanitizer" in err or "runtime error:" in err:
                problems.append("sanitizer report:\n" + err[:2000])
            if not english_only:
                problems += translated(binary, case, tmp)
            if problems:
                failures.append(f"  {case['name']}: " + "; ".join(problems))
    if show:
        return 0
    checked = sum(1 for c in cases if not c.get("wasm_only"))
    print(f"{checked - len(failures)} of {checked} bad inputs: exit code 2 and the expected message")
    if failures:
        print("\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
