"""Instructions per GLEU call, counted by valgrind's cachegrind: a measure of work that does not move with the
machine's load (this machine's wall times move by half between hours; an instruction count moves by well under 1 %).

For each case, two processes run under `valgrind --tool=cachegrind --cache-sim=no`: both import gecscore, read the
texts and make one warm-up call; the second then makes `--repeats` more. The difference of their totals over the
repeats is the count of one call. Both run with `PYTHONHASHSEED=0` (dictionaries probe the same way in both) and
`OPENBLAS_NUM_THREADS=1` (OpenBLAS's idle threads spin, counting instructions that do no work). Parts:

- `call`: `registry.run_systems("gleu", ...)` on one system, the reference draws' cache emptied first, so every
  call draws as a fresh process's first call does;
- `counts`: the k-gram statistics alone (`counting.run_counts`);
- `draws`: the 500 seeded reference draws alone (`reference_draws`, its cache emptied).

    .venv/bin/python benchmarks/instructions.py --data ../shared/data --src shared

`--src` is the folder holding the `gecscore` package to measure (another commit's `shared`, checked out with
`git worktree add`, measures that commit). Needs `valgrind` on the PATH.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CASES = {
    "seeda": ("SEEDA/outputs/subset/INPUT.txt", ["SEEDA/derived/REF0.txt", "SEEDA/derived/REF1.txt"],
              "SEEDA/outputs/subset/T5.txt"),
    "jfleg": ("JFLEG/test/test.src", [f"JFLEG/test/test.ref{k}" for k in range(4)],
              "JFLEG/test/test.spellchecked.src"),
}
PARTS = ("call", "counts", "draws")

# One process: the texts read, one warm-up call, then `repeats` calls of the part.
CHILD = """
import sys, warnings
sys.path.insert(0, sys.argv[1])
from gecscore import registry
from gecscore.gleu import counting, metric
data, source, refs, hyp, part, repeats = sys.argv[2], sys.argv[3], sys.argv[4].split(","), sys.argv[5], sys.argv[6], int(sys.argv[7])
read = lambda p: open(data + "/" + p, encoding="utf-8").read().rstrip("\\n").split("\\n")
sources, predictions = read(source), read(hyp)
references = [list(group) for group in zip(*(read(r) for r in refs))]
warnings.simplefilter("ignore")
def call():
    metric.reference_draws.cache_clear()
    registry.run_systems("gleu", sources, {"h": predictions}, references)
def counts():
    counting.run_counts(sources, {"h": predictions}, references, order=4, tokens=str.split, shortest=0,
                        floor=True, reformulated=False)
def draws():
    metric.reference_draws.cache_clear()
    metric.reference_draws(tuple(len(r) for r in references), 500, 101)
work = {"call": call, "counts": counts, "draws": draws}[part]
for _ in range(1 + repeats):
    work()
"""


def instructions(src: Path, data: Path, case: str, part: str, repeats: int) -> int:
    """The instructions cachegrind counts for one process of `case` and `part` making 1 + `repeats` calls."""
    source, refs, hyp = CASES[case]
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    run = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", CHILD, str(src), str(data), source, ",".join(refs), hyp, part,
                          str(repeats)], capture_output=True, text=True, env=env, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--src", type=Path, default=REPO / "shared", help="the folder holding the gecscore package")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--cases", nargs="*", choices=list(CASES), default=list(CASES))
    parser.add_argument("--parts", nargs="*", choices=PARTS, default=list(PARTS))
    args = parser.parse_args()
    src, data = args.src.resolve(), args.data.resolve()
    print(f"instructions per call (millions), {args.repeats} repeats, gecscore from {src}")
    for case in args.cases:
        for part in args.parts:
            base = instructions(src, data, case, part, 0)
            more = instructions(src, data, case, part, args.repeats)
            print(f"{case:6} {part:7} {(more - base) / args.repeats / 1e6:8.1f}")


if __name__ == "__main__":
    main()
