"""GREEN side by side with gec-metrics 0.1.1: wall time on SEEDA's 14 systems (subset, references REF0 and REF1).

gecscore scores the 14 systems in one `registry.run_systems` call (corpus scores and sentence records together: the
sources and references are counted once). gec-metrics runs in its own interpreter (`--gec-metrics-python`, an
environment with `pip install gec-metrics==0.1.1`): one `GREEN` object, `score_corpus` of every system, then, as a
separate row, `score_corpus` and `score_sentence` of every system (what the same output costs there). Each side
runs `--repeat` times and reports its fastest run; the corpus scores of the two are compared with `==`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
import warnings
from pathlib import Path

from report import machine_line, write_report

from gecscore import registry

REPO = Path(__file__).resolve().parent.parent
SEEDA = REPO.parent / "shared" / "data" / "SEEDA"
SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
           "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]

# Runs in gec-metrics' interpreter: argv = data folder, repeats, options (JSON); prints the timings and scores.
REFERENCE = """
import json, sys, time
from pathlib import Path
from gec_metrics.metrics import GREEN
seeda, repeat, config = Path(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
lines = lambda p: p.read_text(encoding="utf-8").rstrip("\\n").split("\\n")
sources = lines(seeda / "outputs/subset/INPUT.txt")
references = [lines(seeda / "derived/REF0.txt"), lines(seeda / "derived/REF1.txt")]
systems = {name: lines(seeda / f"outputs/subset/{name}.txt") for name in sys.argv[4:]}
corpus_only, both = [], []
for _ in range(repeat):
    start = time.perf_counter(); metric = GREEN(GREEN.Config(**config))
    scores = {name: metric.score_corpus(sources, hyps, references) for name, hyps in systems.items()}
    corpus_only.append(time.perf_counter() - start)
    start = time.perf_counter(); metric = GREEN(GREEN.Config(**config))
    for hyps in systems.values():
        metric.score_corpus(sources, hyps, references); metric.score_sentence(sources, hyps, references)
    both.append(time.perf_counter() - start)
print(json.dumps({"corpus": min(corpus_only), "both": min(both), "scores": scores}))
"""


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").rstrip("\n").split("\n")


def ours(config: dict, repeat: int) -> tuple[float, dict[str, float]]:
    """The fastest of `repeat` runs of gecscore over the 14 systems, and the corpus scores."""
    sources = lines(SEEDA / "outputs" / "subset" / "INPUT.txt")
    references = [list(pair) for pair in zip(lines(SEEDA / "derived" / "REF0.txt"),
                                             lines(SEEDA / "derived" / "REF1.txt"))]
    systems = {name: lines(SEEDA / "outputs" / "subset" / f"{name}.txt") for name in SYSTEMS}
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results = registry.run_systems("green", sources, systems, references, sentences=True, **config)
        times.append(time.perf_counter() - start)
    return min(times), {name: result.score for name, result in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gec-metrics-python", required=True, help="a Python with gec-metrics 0.1.1 installed")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows = []
    for config in ({}, {"unit": "char", "beta": 0.5}):
        reference = json.loads(subprocess.run(
            [args.gec_metrics_python, "-c", REFERENCE, str(SEEDA), str(args.repeat), json.dumps(config), *SYSTEMS],
            check=True, capture_output=True, text=True).stdout)
        seconds, scores = ours(config, args.repeat)
        same = scores == reference["scores"]
        label = ", ".join(f"{k}={v!r}" for k, v in config.items()) or "defaults (n=4, beta=2.0, unit='word')"
        rows.append(f"| {label} | {reference['corpus']:.2f} | {reference['both']:.2f} | {seconds:.2f} | "
                    f"{reference['corpus'] / seconds:.1f}× / {reference['both'] / seconds:.1f}× | "
                    f"{'yes' if same else 'NO'} |")
    report = "\n".join([
        f"SEEDA subset, {len(SYSTEMS)} systems × 391 sentences, references `derived/REF0.txt` and `REF1.txt`; the "
        f"fastest of {args.repeat} runs per side. gecscore's time is one `registry.run_systems` call with "
        "`sentences=True` (corpus scores and sentence records, input checks included).",
        "",
        "| options | gec-metrics 0.1.1 corpus (s) | gec-metrics corpus + sentence (s) | gecscore corpus + sentences "
        "(s) | speed-up (corpus / both) | corpus scores `==` |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        machine_line(load_before),
    ])
    print(report)
    if args.out:
        write_report(args.out, "GREEN: gecscore and gec-metrics 0.1.1 side by side", "bench_green.py",
                     ["--gec-metrics-python", "GEC_METRICS_PYTHON", "--repeat", str(args.repeat),
                      "--out", "benchmarks/green.md"], report)


if __name__ == "__main__":
    main()
