"""GLEU side by side: the official GLEU+ script, gec-metrics 0.1.1 (`gleu`, `gleuofficial`) and gecscore, one run.

Data: SEEDA's 14 subset systems (sources `INPUT.txt`, references REF0 and REF1) and JFLEG test (the source and the
spell-checked source as hypotheses, references ref0..ref3). Each implementation scores every system of a data set
with 500 iterations, in its own process, timed from the texts in memory to the corpus scores (interpreter start and
imports excluded; the script's class is driven as its `__main__` drives it, file reading included because its class
reads files). gecscore scores all systems of a data set in one call (`registry.run_systems`, sources and
references counted once), the way `gecscore score gleu --predictions A B ...` does; its per-system time is also
given. Before timing, every gecscore score is checked equal (==) to its reference's.

The script is not part of this repository (license unclear): pass its path (keisks/jfleg `eval/gleu.py` at
ee06ff8). gec-metrics runs in a Python that has `gec-metrics==0.1.1` installed (`--gec-metrics-python`).
"""

from __future__ import annotations

import argparse
import json
import os
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
    parser.add_argument("--gec-metrics-python", required=True, help="a Python with gec-metrics==0.1.1")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "gleu.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    parent = args.data.resolve().parent
    rows = []
    for title, case in datasets(args.data).items():
        arg = json.dumps(case)
        script = min((run_json([sys.executable, "-c", SCRIPT_DRIVER, str(args.script.resolve()), arg], parent)
                      for _ in range(args.repeats)), key=lambda r: r["seconds"])
        theirs = {m: min((run_json([args.gec_metrics_python, "-c", GEC_METRICS_DRIVER, arg, m], parent)
                          for _ in range(args.repeats)), key=lambda r: r["seconds"])
                  for m in ("gleu", "gleuofficial")}
        ours = {v: gecscore_times(parent, case, v, args.repeats) for v in ("official", "gec-metrics")}
        for hyp, value in script["scores"].items():
            assert ours["official"][2][hyp] == value, (hyp, ours["official"][2][hyp], value)
        for hyp, value in theirs["gleu"]["scores"].items():
            assert ours["gec-metrics"][2][hyp] == value, (hyp, ours["gec-metrics"][2][hyp], value)
        official, reformulated = ours["official"], ours["gec-metrics"]
        rows += [
            f"| {title} | official script (`GLEU` class) | {script['seconds']:.2f} | 1.0 | — |",
            f"| | gec-metrics 0.1.1 `gleuofficial` | {theirs['gleuofficial']['seconds']:.2f} | "
            f"{script['seconds'] / theirs['gleuofficial']['seconds']:.1f} | not equal (empty texts, see docs) |",
            f"| | gecscore `official`, all systems in one call | {official[0]:.3f} | "
            f"{script['seconds'] / official[0]:.0f} | == script, every system |",
            f"| | gecscore `official`, one call per system | {official[1]:.3f} | "
            f"{script['seconds'] / official[1]:.0f} | == script |",
            f"| | gec-metrics 0.1.1 `gleu` | {theirs['gleu']['seconds']:.2f} | "
            f"{script['seconds'] / theirs['gleu']['seconds']:.1f} | (reference of the row below) |",
            f"| | gecscore `gec-metrics`, all systems in one call | {reformulated[0]:.3f} | "
            f"{script['seconds'] / reformulated[0]:.0f} (×{theirs['gleu']['seconds'] / reformulated[0]:.0f} "
            f"gec-metrics) | == gec-metrics `gleu`, every system |",
        ]
    report = ("Seconds to score every system of the data set (best of "
              f"{args.repeats}), and the speed-up over the official script.\n\n"
              "| data | implementation | seconds | × script | output |\n|---|---|---|---|---|\n" + "\n".join(rows)
              + "\n\n" + machine_line(load))
    argv = ["--script", "path/to/gleu.py", "--gec-metrics-python", "path/to/python-with-gec-metrics",
            "--out", "benchmarks/gleu.md"]
    write_report(args.out, "GLEU: official script, gec-metrics 0.1.1 and gecscore", "bench_gleu.py", argv, report)
    print(args.out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
