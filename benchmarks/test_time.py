"""Where `make test`'s time goes: wall time per stage, cost per test file, the slowest tests, machine and load.

`make test` wraps each stage (install, docs, wheel check, hub check, pytest) in `stage`, which runs the command and
appends its wall time, exit code and the load average before and after to `build/test-time/stages.jsonl`; pytest
writes `build/test-time/junit.xml` (its `time` per test is setup + call + teardown, so a module fixture's cost lands
on the test that first asks for it). `report` prints the summary at the end of `make test` and, with `--record`,
adds the run to `benchmarks/test_time.json` under a label; `render` writes `benchmarks/test_time.md` from that file.

    python benchmarks/test_time.py stage --dir build/test-time pytest -- python -m pytest ...
    python benchmarks/test_time.py together --dir build/test-time "wheel-check=CMD" "hub-check=CMD"
    python benchmarks/test_time.py report --dir build/test-time
    python benchmarks/test_time.py report --dir build/test-time --record benchmarks/test_time.json --label "after"
    python benchmarks/test_time.py render --json benchmarks/test_time.json --out benchmarks/test_time.md

A file's cost is the sum of its tests' times: with several pytest workers the sum over files exceeds the stage's
wall time, and the ratio is how well the workers were kept busy. To see one file's cost alone:
`.venv/bin/python -m pytest tests/test_x.py -p no:cacheprovider --durations=0`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

STAGES = "stages.jsonl"
JUNIT = "junit.xml"
SLOWEST = 30


def machine() -> dict[str, Any]:
    """The machine a run was made on: cores this process may use, CPU model, memory, Python, kernel."""
    model = ""
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = 0
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    return {"cores": len(os.sched_getaffinity(0)), "cpu": model or platform.processor(),
            "memory_gib": round(memory / 2**30, 1), "python": platform.python_version(), "kernel": platform.release()}


def run_stage(name: str, directory: Path, argv: Sequence[str]) -> int:
    """Run `argv`, append its wall time, exit code and load to the stages file; return its exit code."""
    directory.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    started = time.time()
    rc = subprocess.call(list(argv))
    record = {"stage": name, "wall_s": round(time.time() - started, 1), "rc": rc, "started": started,
              "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()]}
    with (directory / STAGES).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    return rc


def run_together(commands: Sequence[tuple[str, str]], directory: Path) -> int:
    """Run independent stages at once (`NAME=COMMAND`, each through the shell), each timed as `run_stage` does and
    its output kept in `<dir>/<NAME>.log`; print each log whole when all are done (nothing interleaves); exit code:
    the first non-zero one. The stages share the cores: each gets its share as torch's and BLAS's thread count
    (unless the caller set one), so that two model loads side by side do not run four threads on two cores."""
    directory.mkdir(parents=True, exist_ok=True)
    me = [sys.executable, str(Path(__file__).resolve()), "stage", "--dir", str(directory)]
    share = str(max(1, len(os.sched_getaffinity(0)) // max(1, len(commands))))
    env = {**{name: share for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")}, **os.environ}
    running = []
    for name, command in commands:
        log = (directory / f"{name}.log").open("w", encoding="utf-8")
        running.append((name, log, subprocess.Popen([*me, name, "--", "bash", "-c", command], stdout=log,
                                                     stderr=subprocess.STDOUT, env=env)))
    codes = []
    for name, log, process in running:
        codes.append(process.wait())
        log.close()
    for (name, _, _), code in zip(running, codes):
        print(f"==== {name} (exit {code}) ====", flush=True)
        sys.stdout.write((directory / f"{name}.log").read_text(encoding="utf-8"))
        sys.stdout.flush()
    return next((code for code in codes if code), 0)


def read_stages(directory: Path) -> list[dict[str, Any]]:
    """The stage records of one run, in the order they ran."""
    path = directory / STAGES
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_junit(path: Path) -> list[dict[str, Any]]:
    """One record per test case of a pytest junit XML: file, name, seconds and outcome."""
    if not path.exists():
        return []
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "skipped"
        module = case.get("classname", "")
        file = module.split(".")[1] if module.startswith("tests.") else module.split(".")[0]
        name = case.get("name", "")
        if name.rfind("@") > name.rfind("]"):  # pytest-xdist's `@group` suffix
            name = name[:name.rfind("@")]
        cases.append({"file": f"tests/{file}.py", "name": name, "seconds": float(case.get("time", 0)),
                      "outcome": outcome})
    return cases


def summarize(directory: Path) -> dict[str, Any]:
    """One run's record: stages, counts, per-file cost and the slowest tests."""
    cases = read_junit(directory / JUNIT)
    per_file: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for case in cases:
        per_file[case["file"]] += case["seconds"]
        count[case["file"]] += 1
    outcomes = defaultdict(int)
    for case in cases:
        outcomes[case["outcome"]] += 1
    slowest = sorted(cases, key=lambda c: -c["seconds"])[:SLOWEST]
    stages = read_stages(directory)
    return {
        "machine": machine(), "stages": stages, "total_wall_s": wall(stages),
        "counts": dict(outcomes), "test_seconds": round(sum(c["seconds"] for c in cases), 1),
        "files": [{"file": f, "tests": count[f], "seconds": round(s, 1)}
                  for f, s in sorted(per_file.items(), key=lambda item: -item[1])],
        "slowest": [{"test": f"{c['file']}::{c['name']}", "seconds": round(c["seconds"], 1)} for c in slowest],
    }


def wall(stages: Sequence[dict[str, Any]]) -> float:
    """Wall time of the stages from the first start to the last end (stages that ran side by side count once)."""
    if not stages:
        return 0.0
    if not any(s["started"] for s in stages):  # a record without start times: the stages ran one after another
        return round(sum(s["wall_s"] for s in stages), 1)
    return round(max(s["started"] + s["wall_s"] for s in stages) - min(s["started"] for s in stages), 1)


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def print_summary(run: dict[str, Any], files: int = 15) -> None:
    """The end-of-`make test` summary: stages, counts, the costliest files."""
    for stage in run["stages"]:
        print(f"  {stage['stage']:<12} {stage['wall_s']:>8.1f} s  rc={stage['rc']}  load {stage['load_before'][0]:.1f}"
              f" -> {stage['load_after'][0]:.1f}")
    print(f"  {'all stages':<12} {run['total_wall_s']:>8.1f} s ({minutes(run['total_wall_s'])})")
    counts = ", ".join(f"{n} {k}" for k, n in sorted(run["counts"].items()))
    print(f"  tests: {counts}; sum of test times {run['test_seconds']:.0f} s")
    for item in run["files"][:files]:
        print(f"  {item['seconds']:>8.1f} s  {item['file']} ({item['tests']} tests)")


def record(path: Path, label: str, run: dict[str, Any], note: str) -> None:
    """Add (or replace) the run under `label` in the JSON record of runs."""
    runs = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    runs = [r for r in runs if r["label"] != label]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    runs.append({"label": label, "note": note, "commit": commit, "date": time.strftime("%Y-%m-%d"), **run})
    path.write_text(json.dumps(runs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def render(runs: list[dict[str, Any]]) -> str:
    """benchmarks/test_time.md: the runs side by side, then each run's costliest files and slowest tests."""
    lines = ["# Where `make test`'s time goes", "",
             "Made by `benchmarks/test_time.py render` from `benchmarks/test_time.json` (each run recorded by",
             "`make test` and `benchmarks/test_time.py report --record`). A file's cost is the sum of its tests' times",
             "(setup + call + teardown); with two pytest workers the files' sum is about twice the pytest stage's wall.",
             "", "## Runs", ""]
    header = "| | " + " | ".join(r["label"] for r in runs) + " |"
    lines += [header, "|---|" + "---|" * len(runs)]
    stage_names = list(dict.fromkeys(s["stage"] for r in runs for s in r["stages"]))

    def cell(run: dict[str, Any], name: str) -> str:
        found = [s for s in run["stages"] if s["stage"] == name]
        return f"{found[0]['wall_s']:.0f} s" if found else "–"

    lines.append("| commit | " + " | ".join(r["commit"] for r in runs) + " |")
    lines.append("| date | " + " | ".join(r["date"] for r in runs) + " |")
    for name in stage_names:
        lines.append(f"| {name} | " + " | ".join(cell(r, name) for r in runs) + " |")
    lines.append("| **all stages, wall** | " + " | ".join(f"**{minutes(r['total_wall_s'])}**" for r in runs) + " |")
    for outcome in ("passed", "skipped", "failed"):
        lines.append(f"| tests {outcome} | " + " | ".join(str(r["counts"].get(outcome, 0)) for r in runs) + " |")
    lines.append("| sum of test times | " + " | ".join(f"{r['test_seconds']:.0f} s" for r in runs) + " |")
    lines.append("| machine | " + " | ".join(f"{r['machine']['cores']} cores, {r['machine']['memory_gib']} GiB, "
                                               f"{r['machine']['cpu']}" for r in runs) + " |")
    lines.append("| load (1-min average at each stage's start) | " + " | ".join(
        ", ".join(f"{s['load_before'][0]:.1f}" for s in r["stages"]) if any(s["load_before"][0] for s in r["stages"])
        else "not recorded" for r in runs) + " |")
    lines += ["", "Notes:", ""]
    lines += [f"- **{r['label']}**: {r['note']}" for r in runs if r.get("note")]
    for r in runs:
        if not r["files"]:
            continue
        lines += ["", f"## {r['label']}: cost per test file", "", "| file | tests | seconds |", "|---|---|---|"]
        lines += [f"| `{f['file']}` | {f['tests']} | {f['seconds']:.0f} |" for f in r["files"]]
        lines += ["", f"## {r['label']}: the {SLOWEST} slowest tests", "", "| test | seconds |", "|---|---|"]
        lines += [f"| `{t['test']}` | {t['seconds']:.0f} |" for t in r["slowest"]]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    stage = sub.add_parser("stage", help="run a command as a timed stage")
    stage.add_argument("name")
    stage.add_argument("--dir", type=Path, required=True)
    stage.add_argument("argv", nargs=argparse.REMAINDER)
    together = sub.add_parser("together", help="run independent stages at once: NAME=COMMAND ...")
    together.add_argument("--dir", type=Path, required=True)
    together.add_argument("commands", nargs="+", metavar="NAME=COMMAND")
    report = sub.add_parser("report", help="print a run's summary; --record adds it to the JSON record")
    report.add_argument("--dir", type=Path, required=True)
    report.add_argument("--record", type=Path, default=None)
    report.add_argument("--label", default="")
    report.add_argument("--note", default="")
    rend = sub.add_parser("render", help="write the markdown from the JSON record")
    rend.add_argument("--json", type=Path, required=True)
    rend.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "stage":
        command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
        if not command:
            parser.error("stage: give the command after --")
        return run_stage(args.name, args.dir, command)
    if args.command == "together":
        pairs = [tuple(item.split("=", 1)) for item in args.commands]
        if any(len(pair) != 2 or not pair[0] for pair in pairs):
            parser.error("together: give each stage as NAME=COMMAND")
        return run_together(pairs, args.dir)
    if args.command == "report":
        run = summarize(args.dir)
        print(f"make test: where the time went ({args.dir}):")
        print_summary(run)
        if args.record:
            if not args.label:
                parser.error("--record needs --label")
            record(args.record, args.label, run, args.note)
        return 0
    runs = json.loads(args.json.read_text(encoding="utf-8"))
    args.out.write_text(render(runs), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
