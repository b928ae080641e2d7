"""ERRANT's edit extraction on 1, 2, ... worker processes (`gecscore.common.workers`): throughput and identity.

Protocol (declared before measuring): every SEEDA output of the 15 systems on the 391 judged sources, and both
official references (gec-metrics' REF0/REF1), as (source, target) pairs, 6,647 in all; for each worker count in
`--workers` (default 1 2), a fresh extractor (no cached parses or edits) extracts every pair's edits, `--repeats`
times (default 2), alternating the worker counts so the machine's load falls on all alike. Worker processes are
started before the clock (`--warm`, the default) so the rows time the extraction, not spaCy's start-up, which is
reported apart. Reported: each count's best wall time, pairs per second and speed-up over one process, and
whether its edits equal one process's, pair for pair.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from report import machine_line, write_report

REPO = Path(__file__).resolve().parent.parent


def pairs(data: Path) -> list[tuple[str, str]]:
    """Every SEEDA output and reference against its source."""
    from gecscore.meta_eval.data import SEEDA_SYSTEMS, load_seeda

    seeda = load_seeda(data)
    out = [(s, h) for name in SEEDA_SYSTEMS for s, h in zip(seeda.sources, seeda.hypotheses[name])]
    return out + [(s, r) for s, refs in zip(seeda.sources, seeda.references) for r in refs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "workers")
    args = parser.parse_args(argv)
    from gecscore.common import edits
    from gecscore.common.inputs import load_spacy
    from gecscore.common.workers import using_workers

    load = os.getloadavg()[0]
    work = pairs(args.data)
    srcs, trgs = [s for s, _ in work], [t for _, t in work]
    nlp = load_spacy()
    startup = {}
    for n in args.workers:
        if n > 1:
            started = time.perf_counter()
            edits.parallel_annotate(edits.EditExtractor(nlp).pipeline_name(), work[:n], n)  # start the pool
            startup[n] = time.perf_counter() - started
    times: dict[int, list[float]] = {n: [] for n in args.workers}
    results: dict[int, list] = {}
    for _ in range(args.repeats):
        for n in args.workers:
            extractor = edits.EditExtractor(nlp)
            with using_workers(n):
                started = time.perf_counter()
                results[n] = extractor.extract(srcs, trgs, keep_unk=True)
                times[n].append(time.perf_counter() - started)
    base = min(times[1]) if 1 in times else None
    rows = []
    for n in args.workers:
        best = min(times[n])
        rows.append({"workers": n, "seconds": best, "all_seconds": times[n], "pairs_per_second": len(work) / best,
                     "speedup": None if base is None else base / best,
                     "equal_to_one_process": None if 1 not in results else results[n] == results[1],
                     "startup_seconds": startup.get(n)})
    lines = [f"Pairs: {len(work)} (SEEDA: 15 systems' outputs and 2 references on 391 sources).",
             machine_line(load), "",
             "| workers | best wall (s) | pairs / s | speed-up | same edits as 1 process | pool start-up (s) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['workers']} | {r['seconds']:.2f} | {r['pairs_per_second']:.0f} | "
                     f"{'—' if r['speedup'] is None else format(r['speedup'], '.2f')} | "
                     f"{r['equal_to_one_process']} | "
                     f"{'—' if r['startup_seconds'] is None else format(r['startup_seconds'], '.1f')} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"pairs": len(work), "rows": rows}, indent=1) + "\n",
                                             encoding="utf-8")
    write_report(args.out.with_suffix(".md"), "ERRANT edit extraction on worker processes", "workers.py",
                 sys.argv[1:] if argv is None else argv, "\n".join(lines) + "\n\n" + __doc__.split("\n\n", 1)[1])
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
