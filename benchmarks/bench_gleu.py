"""GLEU side by side: the official GLEU+ script, gec-metrics 0.1.1 (`gleu`, `gleuofficial`) and gecscore, one run.

Data: SEEDA's 14 subset systems (sources `INPUT.txt`, references REF0 and REF1) and JFLEG test (the source and the
spell-checked source as hypotheses, references ref0..ref3). Each implementation scores every system of a data set
with 500 iterations, in its own process, timed from the texts in memory to the corpus scores (interpreter start and
imports excluded; the script's class is driven as its `__main__` drives it, file reading included because its class
reads files). gecscore scores all systems of a data set in one call (`registry.run_systems`, sources and
references counted once), the way `gecscore score gleu --predictions A B ...` does; its per-system time is also
given. Before timing, every gecscore score is checked equal (==) to its reference's.

Two more protocols, each declared here before it was run:

- **One call, fresh processes.** For every hypothesis file of a data set, a fresh process of each implementation
  imports it (the script: its module with numpy and scipy; gecscore: `gecscore.registry` and the GLEU module) and
  then times one call that scores that file and nothing else: the script's class as its `__main__` drives it for
  one file (sources, references and the file read), gecscore's `run_systems` on the texts in memory. The two
  processes alternate, file by file, `--repeats` rounds; every gecscore score is checked equal to the script's.
  Reported: the median call per data set and their ratio.
- **The command line, 14 SEEDA systems.** Whole processes, alternating, `--repeats` rounds: the script's own
  command line with every hypothesis file, and `gecscore score gleu` with the same files and its default
  1,000-resample intervals; each system's printed GLEU (4 decimals) is checked against the script's (6).

The script is not part of this repository (license unclear): pass its path (keisks/jfleg `eval/gleu.py` at
ee06ff8). gec-metrics runs in a Python that has `gec-metrics==0.1.1` installed (`--gec-metrics-python`; without it
its rows are left out).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from report import machine_line, write_report

REPO = Path(__file__).resolve().parent.parent
SEEDA_SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
                 "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]


def datasets(data: Path) -> dict[str, dict]:
    """Each data set's files, relative to `data`'s parent."""
    seeda, jfleg = "data/SEEDA/outputs/subset/", "data/JFLEG/test/"
    return {
        "SEEDA (14 systems, 2 references)": {
            "src": seeda + "INPUT.txt", "refs": ["data/SEEDA/derived/REF0.txt", "data/SEEDA/derived/REF1.txt"],
            "hyps": [seeda + f"{name}.txt" for name in SEEDA_SYSTEMS]},
        "JFLEG test (2 hypotheses, 4 references)": {
            "src": jfleg + "test.src", "refs": [jfleg + f"test.ref{k}" for k in range(4)],
            "hyps": [jfleg + "test.src", jfleg + "test.spellchecked.src"]},
    }


# Drives the script's class as its __main__ does, timing the scoring of each hypothesis file; only the final
# formatting is replaced (the mean unrounded), as tests/golden_gleu/make_golden.py does.
SCRIPT_DRIVER = """
import importlib.util, json, sys, time
import numpy as np
spec = importlib.util.spec_from_file_location("gleu", sys.argv[1]); gleu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gleu)
class Full(gleu.GLEU):
    def get_gleu_stats(self, scores):
        return [float(np.mean(scores))]
case = json.loads(sys.argv[2]); out = {}
start = time.perf_counter()
calculator = Full(4); calculator.load_sources(case["src"]); calculator.load_references(case["refs"])
for hyp in case["hyps"]:
    out[hyp] = [g for g in calculator.run_iterations(num_iterations=500, source=case["src"], hypothesis=hyp,
                                                   per_sent=False)][0]
print(json.dumps({"seconds": time.perf_counter() - start, "scores": {h: float(v[0]) for h, v in out.items()}}))
"""

# gec-metrics' classes on the texts in memory, one fresh object per system as its CLI makes one per run.
GEC_METRICS_DRIVER = """
import json, sys, time
from gec_metrics.metrics import GLEU, GLEUOfficial
case = json.loads(sys.argv[1]); cls = {"gleu": GLEU, "gleuofficial": GLEUOfficial}[sys.argv[2]]
read = lambda p: open(p, encoding="utf-8").read().rstrip("\\n").split("\\n")
src, refs = read(case["src"]), [read(r) for r in case["refs"]]
hyps = {h: read(h) for h in case["hyps"]}
start = time.perf_counter()
scores = {h: cls(cls.Config()).score_corpus(src, hyp, refs) for h, hyp in hyps.items()}
print(json.dumps({"seconds": time.perf_counter() - start, "scores": scores}))
"""


# One call in a fresh process: the script's class on one hypothesis file, timed after the imports.
SCRIPT_ONE_CALL = """
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("gleu", sys.argv[1]); gleu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gleu)
case, hyp = json.loads(sys.argv[2]), sys.argv[3]
start = time.perf_counter()
calculator = gleu.GLEU(4); calculator.load_sources(case["src"]); calculator.load_references(case["refs"])
value = [g for g in calculator.run_iterations(num_iterations=500, source=case["src"], hypothesis=hyp,
                                               per_sent=False)][0]
print(json.dumps({"seconds": time.perf_counter() - start, "printed": value[0]}))
"""

# The same for gecscore: the texts read, the modules imported, then one `run_systems` call timed.
GECSCORE_ONE_CALL = """
import json, sys, time, warnings
from gecscore import registry
import gecscore.gleu.metric
read = lambda p: open(p, encoding="utf-8").read().rstrip("\\n").split("\\n")
case, hyp = json.loads(sys.argv[1]), sys.argv[2]
sources, predictions = read(case["src"]), read(hyp)
references = [list(group) for group in zip(*(read(r) for r in case["refs"]))]
warnings.simplefilter("ignore")
start = time.perf_counter()
score = registry.run_systems("gleu", sources, {"h": predictions}, references)["h"].score
print(json.dumps({"seconds": time.perf_counter() - start, "score": score}))
"""


def one_call_rows(parent: Path, script: Path, title: str, case: dict, repeats: int) -> list[str]:
    """Median seconds of one call in a fresh process, script and gecscore alternating file by file."""
    theirs: list[float] = []
    ours: list[float] = []
    arg = json.dumps(case)
    for _ in range(repeats):
        for hyp in case["hyps"]:
            script_run = run_json([sys.executable, "-c", SCRIPT_ONE_CALL, str(script), arg, hyp], parent)
            our_run = run_json([sys.executable, "-c", GECSCORE_ONE_CALL, arg, hyp], parent)
            assert f"{our_run['score']:f}" == script_run["printed"], (hyp, our_run["score"], script_run["printed"])
            theirs.append(script_run["seconds"])
            ours.append(our_run["seconds"])
    script_median, our_median = statistics.median(theirs), statistics.median(ours)
    return [f"| {title} | {len(theirs)} | {script_median:.3f} ({min(theirs):.3f}–{max(theirs):.3f}) | "
            f"{our_median:.4f} ({min(ours):.4f}–{max(ours):.4f}) | {script_median / our_median:.1f} |"]


def command_line_rows(parent: Path, script: Path, case: dict, repeats: int) -> list[str]:
    """Whole-process seconds of the script's command line and `gecscore score gleu` on every hypothesis file."""
    script_argv = [sys.executable, str(script), "-r", *case["refs"], "-s", case["src"], "--hyp", *case["hyps"]]
    our_argv = [str(Path(sys.executable).parent / "gecscore"), "score", "gleu", "--sources", case["src"], "--references",
                *case["refs"], "--predictions", *case["hyps"]]
    times: dict[str, list[float]] = {"script": [], "gecscore": []}
    outputs: dict[str, str] = {}
    for _ in range(repeats):
        for name, argv in (("script", script_argv), ("gecscore", our_argv)):
            start = time.perf_counter()
            outputs[name] = subprocess.run(argv, cwd=parent, check=True, capture_output=True, text=True).stdout
            times[name].append(time.perf_counter() - start)
    printed = dict(zip(case["hyps"], [ast.literal_eval(line)[0][0] for line in outputs["script"].splitlines()
                                      if line.startswith("[")]))
    for hyp in case["hyps"]:
        row = next(line.split() for line in outputs["gecscore"].splitlines() if f" {Path(hyp).stem} " in line)
        assert abs(float(row[2]) - float(printed[hyp])) <= 0.00005 + 0.0000005, (hyp, row, printed[hyp])
    script_median, our_median = statistics.median(times["script"]), statistics.median(times["gecscore"])
    return [f"| SEEDA, {len(case['hyps'])} systems | official script's command line | {script_median:.2f} | 1.0 |",
            f"| | `gecscore score gleu` (1,000-resample intervals) | {our_median:.2f} | "
            f"{script_median / our_median:.1f} |"]


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").rstrip("\n").split("\n")


def run_json(argv: list[str], cwd: Path) -> dict:
    return json.loads(subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout)


def gecscore_times(parent: Path, case: dict, variant: str, repeats: int) -> tuple[float, float, dict[str, float]]:
    """Best-of-`repeats` seconds for all systems in one call and for the systems one call each, and the scores."""
    import warnings

    from gecscore import registry

    sources = lines(parent / case["src"])
    references = [list(group) for group in zip(*(lines(parent / r) for r in case["refs"]))]
    systems = {hyp: lines(parent / hyp) for hyp in case["hyps"]}
    together, apart = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # REF-F's empty prediction is flagged; flags are not what is timed
        for _ in range(repeats):
            start = time.perf_counter()
            results = registry.run_systems("gleu", sources, systems, references, variant=variant)
            together.append(time.perf_counter() - start)
            start = time.perf_counter()
            for name, texts in systems.items():
                registry.run_systems("gleu", sources, {name: texts}, references, variant=variant)
            apart.append(time.perf_counter() - start)
    return min(together), min(apart), {name: result.score for name, result in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--script", type=Path, required=True, help="the official gleu.py (keisks/jfleg ee06ff8)")
    parser.add_argument("--gec-metrics-python", help="a Python with gec-metrics==0.1.1 (its rows are left out "
                                                     "without it)")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "gleu.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    parent = args.data.resolve().parent
    script_path = args.script.resolve()
    rows, one_call = [], []
    for title, case in datasets(args.data).items():
        arg = json.dumps(case)
        script = min((run_json([sys.executable, "-c", SCRIPT_DRIVER, str(script_path), arg], parent)
                      for _ in range(args.repeats)), key=lambda r: r["seconds"])
        theirs = {m: min((run_json([args.gec_metrics_python, "-c", GEC_METRICS_DRIVER, arg, m], parent)
                          for _ in range(args.repeats)), key=lambda r: r["seconds"])
                  for m in ("gleu", "gleuofficial")} if args.gec_metrics_python else {}
        ours = {v: gecscore_times(parent, case, v, args.repeats) for v in ("official", "gec-metrics")}
        for hyp, value in script["scores"].items():
            assert ours["official"][2][hyp] == value, (hyp, ours["official"][2][hyp], value)
        for hyp, value in theirs.get("gleu", {}).get("scores", {}).items():
            assert ours["gec-metrics"][2][hyp] == value, (hyp, ours["gec-metrics"][2][hyp], value)
        official, reformulated = ours["official"], ours["gec-metrics"]
        rows += [
            f"| {title} | official script (`GLEU` class) | {script['seconds']:.2f} | 1.0 | — |",
            *([f"| | gec-metrics 0.1.1 `gleuofficial` | {theirs['gleuofficial']['seconds']:.2f} | "
               f"{script['seconds'] / theirs['gleuofficial']['seconds']:.1f} | not equal (empty texts, see docs) |"]
              if theirs else []),
            f"| | gecscore `official`, all systems in one call | {official[0]:.3f} | "
            f"{script['seconds'] / official[0]:.0f} | == script, every system |",
            f"| | gecscore `official`, one call per system | {official[1]:.3f} | "
            f"{script['seconds'] / official[1]:.0f} | == script |",
            *([f"| | gec-metrics 0.1.1 `gleu` | {theirs['gleu']['seconds']:.2f} | "
               f"{script['seconds'] / theirs['gleu']['seconds']:.1f} | (reference of the row below) |"]
              if theirs else []),
            f"| | gecscore `gec-metrics`, all systems in one call | {reformulated[0]:.3f} | "
            + (f"{script['seconds'] / reformulated[0]:.0f} (×{theirs['gleu']['seconds'] / reformulated[0]:.0f} "
               "gec-metrics) | == gec-metrics `gleu`, every system |" if theirs else
               f"{script['seconds'] / reformulated[0]:.0f} | (gec-metrics not run) |"),
        ]
        one_call += one_call_rows(parent, script_path, title.split(" (")[0], case, args.repeats)
    seeda = datasets(args.data)["SEEDA (14 systems, 2 references)"]
    command_line = command_line_rows(parent, script_path, seeda, args.repeats)
    report = ("## Every system of a data set\n\nSeconds to score every system of the data set (best of "
              f"{args.repeats}), and the speed-up over the official script"
              + ("" if theirs else " (gec-metrics not run this time: `--gec-metrics-python` not given)") + ".\n\n"
              "| data | implementation | seconds | × script | output |\n|---|---|---|---|---|\n" + "\n".join(rows)
              + "\n\n## One call, fresh processes\n\nOne hypothesis file per call, each call in a fresh process "
              "after the imports (protocol in `bench_gleu.py`'s docstring); median seconds (range) over every file "
              f"and {args.repeats} alternating rounds; every score equal to the script's.\n\n"
              "| data | calls each | script (s) | gecscore (s) | × script |\n|---|---|---|---|---|\n"
              + "\n".join(one_call)
              + "\n\n## The command line\n\nWhole processes (interpreter start, imports, reading the files, "
              f"printing), median of {args.repeats} alternating rounds; every system's GLEU equal to the script's "
              "as far as both print it (4 and 6 decimals).\n\n| data | command | seconds | × script |\n|---|---|---|---|\n"
              + "\n".join(command_line) + "\n\n" + machine_line(load))
    argv = ["--script", "path/to/gleu.py", *(["--gec-metrics-python", "path/to/python-with-gec-metrics"]
                                             if theirs else []), "--out", "benchmarks/gleu.md"]
    write_report(args.out, "GLEU: official script, gec-metrics 0.1.1 and gecscore", "bench_gleu.py", argv, report)
    print(args.out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
