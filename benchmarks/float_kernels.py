"""The golden-parity tests under every float-kernel condition of docs/tolerances.md, one process each.

Each condition changes how this machine rounds floats without changing the code: torch's CPU kernels
(ATEN_CPU_CAPABILITY), MKL's code path (MKL_CBWR) and the thread count (OMP_NUM_THREADS). For each, pytest runs the
selected tests with GECSCORE_FLOAT_REPORT set, so every value checked by `tests/float_noise.py` is recorded with
its |ours − golden|, its bar and its measured spread; the report gives per condition and test file the pytest
outcome, the largest difference and spread, how many values are float-sensitive (bar above the floor), and the
largest |diff| / spread, the number that K must cover.

    python benchmarks/float_kernels.py                      # the parity tests, every condition
    python benchmarks/float_kernels.py --select real-model  # every real-model, golden and degenerate test file
    python benchmarks/float_kernels.py --select real-model --out R.md --resume  # only the conditions R.json lacks
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from report import machine_line, write_report

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from float_noise import K  # noqa: E402  (the tests' own constant)
CONDITIONS: dict[str, dict[str, str]] = {
    "as installed": {},
    "ATEN_CPU_CAPABILITY=avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "ATEN_CPU_CAPABILITY=default": {"ATEN_CPU_CAPABILITY": "default"},
    "OMP_NUM_THREADS=1": {"OMP_NUM_THREADS": "1"},
    "OMP_NUM_THREADS=2": {"OMP_NUM_THREADS": "2"},
    "MKL_CBWR=COMPATIBLE": {"MKL_CBWR": "COMPATIBLE"},
    "MKL_CBWR=AVX2": {"MKL_CBWR": "AVX2"},
}
#: Each selection is one or more pytest invocations (arguments after `pytest -q`).
SELECTIONS: dict[str, list[list[str]]] = {
    "parity": [["tests/test_uot_errant.py", "tests/test_pt_m2.py", "tests/test_cleme2.py",
                "-k", "golden or parity or flagged"]],
    "real-model": [["tests", "-m", "real_model and not browser"],
                   ["tests/test_cleme2_degenerate.py", "tests/test_pt_m2_degenerate.py",
                    "tests/test_impara_degenerate.py", "tests/test_uot_errant.py"]],
}


def run_condition(name: str, selection: list[list[str]]) -> dict:
    """pytest under one condition; its outcome line, its wall time and the recorded values."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "values.jsonl"
        env = {**os.environ, **CONDITIONS[name], "GECSCORE_FLOAT_REPORT": str(report)}
        start = time.perf_counter()
        runs = [subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments],
                               cwd=ROOT, env=env, capture_output=True, text=True) for arguments in selection]
        wall = time.perf_counter() - start
        lines = report.read_text(encoding="utf-8").splitlines() if report.exists() else []
    outcomes = []
    for done in runs:
        tail = [line for line in done.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
        outcomes.append(tail[-1].strip("= ") if tail else done.stdout[-300:])
    failures = [line for done in runs for line in done.stdout.splitlines() if line.startswith("FAILED")]
    records = [json.loads(line) for line in lines]
    return {"condition": name, "env": CONDITIONS[name], "returncode": max(done.returncode for done in runs),
            "outcome": " + ".join(outcomes), "failures": failures, "wall_s": round(wall, 1),
            "machine": records[0]["machine"] if records else None, "by_file": summarise(records)}


def summarise(records: list[dict]) -> dict[str, dict]:
    """Per test file: values checked, over their bar, largest |diff| and spread, sensitive values, largest ratio."""
    out: dict[str, dict] = defaultdict(lambda: {"values": 0, "over_bar": 0, "max_diff": 0.0, "max_spread": 0.0,
                                                "sensitive": 0, "max_ratio": 0.0, "max_ratio_at": None})
    for record in records:
        row = out[record["test"].split("::")[0]]
        for diff, bar, spread in zip(record["diff"], record["bar"], record["spread"]):
            row["values"] += 1
            row["over_bar"] += diff > bar
            row["max_diff"] = max(row["max_diff"], diff)
            if spread is None:
                continue  # a noise-determined value with its documented fixed bar
            row["max_spread"] = max(row["max_spread"], spread)
            row["sensitive"] += K * spread > 1e-5
            if diff > 1e-5:  # the smallest floor: at or below it a value passes whatever its spread
                ratio = diff / spread if spread > 0 else float("inf")
                if ratio > row["max_ratio"]:
                    row["max_ratio"], row["max_ratio_at"] = ratio, record["what"]
    return dict(out)


def render(results: list[dict]) -> str:
    lines = ["| condition | torch CPU kernel / threads | pytest | wall |", "|---|---|---|---|"]
    for r in results:
        kernel = re.search(r"CPU capability (\w+), (\d+) threads", r["machine"] or "")
        lines.append(f"| {r['condition']} | {kernel.group(1) + ' / ' + kernel.group(2) if kernel else '?'} | "
                     f"{r['outcome']} | {r['wall_s']:.0f} s |")
    lines += ["", "Per test file: values checked, values over their bar, the largest |ours − golden| and "
              "measured spread, "
              f"values whose bar the spread raised above 1e-5 (K × spread > 1e-5, K = {K:g}), and the largest "
              "|diff| / spread among values with |diff| > 1e-5 (what K must cover).", "",
              "| condition | test file | values | over bar | max \\|diff\\| | max spread | raised | "
              "max \\|diff\\|/spread |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        for file, row in sorted(r["by_file"].items()):
            lines.append(f"| {r['condition']} | {file} | {row['values']} | {row['over_bar']} | {row['max_diff']:.1e} "
                         f"| {row['max_spread']:.1e} | {row['sensitive']} | {row['max_ratio']:.1f} |")
    failures = [f for r in results for f in r["failures"]]
    if failures:
        lines += ["", "Failures:", ""] + [f"- {f}" for f in failures]
    lines += ["", f"Machine of the first condition: {results[0]['machine']}"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--select", choices=sorted(SELECTIONS), default="parity")
    parser.add_argument("--conditions", nargs="*", choices=list(CONDITIONS), default=list(CONDITIONS))
    parser.add_argument("--out", type=Path, default=None, help="report (.md; the .json beside it)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the conditions already in --out's .json (a run that was stopped) and run the rest")
    args = parser.parse_args()
    if args.resume and not args.out:
        parser.error("--resume needs --out")
    load = os.getloadavg()[0]
    saved = args.out.with_suffix(".json") if args.out else None
    results = json.loads(saved.read_text(encoding="utf-8")) if args.resume and saved.exists() else []
    done = {r["condition"] for r in results}

    def save() -> str:
        """The report so far, conditions in the table's order; written at once when --out is given."""
        results.sort(key=lambda r: list(CONDITIONS).index(r["condition"]))
        text = render(results) + "\n\n" + machine_line(load)
        if args.out:
            saved.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
            write_report(args.out, f"Tests under float-kernel conditions ({args.select})", "float_kernels.py",
                         sys.argv[1:], text)
        return text

    for name in [c for c in args.conditions if c not in done]:
        results.append(run_condition(name, SELECTIONS[args.select]))
        print(f"{name}: {results[-1]['outcome']} ({results[-1]['wall_s']:.0f} s)", flush=True)
        text = save()  # after each condition, so a long run that is stopped keeps what it measured
    text = save()
    print(text)
    return 0 if all(r["returncode"] == 0 for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
