"""Scoring time of this checkout against an earlier commit, configuration by configuration (A/B, one job at a time).

For a refactoring that must not move speed: each configuration of `snapshot.py` runs in a fresh process per tree,
the trees alternating (A, B, A, B, ...) so that a change of machine load hits both alike. A process loads the
metric and warms it on two sentences, then times one `registry.run_systems` over the whole corpus (the scoring
time; interpreter start, imports and model loading excluded). The report gives the median of the repeats per tree
and B / A.

    python benchmarks/speed_ab.py --base HEAD~1 --data ../shared/data --out benchmarks/speed_ab.md
    python benchmarks/speed_ab.py --base v0.1.0 --data ../shared/data --configs errant m2 --corpus conll14
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from report import base_tree, machine_line, write_report
from snapshot import CONFIGS

REPO = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from snapshot import CONFIGS, datasets
from gecscore import registry
name, options = CONFIGS[sys.argv[2]]
corpus = next(d for d in datasets(__import__("pathlib").Path(sys.argv[3])) if d[0] == sys.argv[4])
_, sources, systems, references = corpus
ref = None if name in ("impara_ged", "impara") else references
registry.run_systems(name, sources[:2], {k: v[:2] for k, v in systems.items()}, ref and ref[:2], **options)
start = time.perf_counter()
registry.run_systems(name, sources, systems, ref, **options)
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def timed(tree: Path, config: str, data: Path, corpus: str) -> float:
    """Scoring seconds of one configuration in a fresh process on the `gecscore` of `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree / "shared")}
    env.pop("GECSCORE_EMBEDDING_CACHE", None)  # every process encodes: a cache would time the disk, not the code
    done = subprocess.run([sys.executable, "-c", CHILD, str(REPO / "benchmarks"), config, str(data), corpus],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{config} on {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit to compare with (A); B is this checkout")
    parser.add_argument("--data", type=Path, required=True, help="a folder laid out like ../shared/data")
    parser.add_argument("--configs", nargs="*", choices=list(CONFIGS), default=list(CONFIGS))
    parser.add_argument("--corpus", choices=("seeda", "conll14"), default="seeda")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, help="report (.md)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    data = args.data.resolve()
    rows = []
    with base_tree(REPO, args.base) as (base, revision):
        for config in args.configs:
            times: dict[str, list[float]] = {"A": [], "B": []}
            for _ in range(args.repeat):
                times["A"].append(timed(base, config, data, args.corpus))
                times["B"].append(timed(REPO, config, data, args.corpus))
            a, b = statistics.median(times["A"]), statistics.median(times["B"])
            rows.append({"config": config, "A": times["A"], "B": times["B"], "ratio": b / a})
            print(f"{config}: A {a:.2f} s, B {b:.2f} s, B/A {b / a:.3f}", flush=True)
    lines = [f"A = {revision} (`--base {args.base}`), B = this checkout; corpus {args.corpus}; median of "
             f"{args.repeat} fresh processes per tree, alternating; scoring time only (seconds).", "",
             "| configuration | A | B | B / A | A runs | B runs |", "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['config']} | {statistics.median(r['A']):.2f} | {statistics.median(r['B']):.2f} | "
                     f"{r['ratio']:.3f} | {', '.join(f'{t:.2f}' for t in r['A'])} | "
                     f"{', '.join(f'{t:.2f}' for t in r['B'])} |")
    text = "\n".join(lines) + "\n\n" + machine_line(load)
    if args.out:
        write_report(args.out, "Scoring time before and after a change (A/B)", "speed_ab.py", sys.argv[1:], text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
