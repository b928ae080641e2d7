"""Recompute the model-free meta-evaluation cells of the seed papers' tables, one by one, beside the published values.

    .venv/bin/python benchmarks/meta_eval/run.py --data ../shared/data --out benchmarks/meta_eval

writes `results.md` and `results.json`: one entry per *cell* (one printed r, ρ, accuracy or τ, or in the listing
tables one printed system name, rank difference, count or score) with the published value and ours under the row's
declared protocol. Each paper row declares one protocol in `published/*.json` (the base or one switch of `SWITCHES`,
with its evidence) before anything is scored, and every cell of the row is judged under it: reproduced, a paper
slip (named in the published data, shown by its evidence), not covered (no data on disk), an explained miss (its
cause in `CAUSES` locates the difference) or unexplained. The other switches tried on a cell are exploration: listed
with their values, never counted. Counts are per paper and table,
in cells. Sentence scores go through the meta-evaluation cache (`--cache-dir`, default `$GECSCORE_CACHE/meta_eval`
or `~/.cache/gecscore/meta_eval`), so a second run only re-aggregates. `--from-json results.json` re-judges a
previous run's values under today's declared protocols without scoring anything. Published values are typed from
the papers' tables into `published/*.json`, with each row's protocol (sources in `docs/meta-evaluation.md`, section
"Published values in the benchmarks").

"ours" is always the benchmark's base protocol for the row (the `references`, `systems`, `aggregation` and `human`
columns of the row; conventions in results.md's header). A *switch* is one documented change of that protocol
(another edit source, code release, score file, reference convention, ...).

Beside this runner: `published.py` (the loader of `published/*.json`), `switches.py` (`SWITCHES`, `TRIED`),
`listing_values.py`, `external.py` (score files and edits from outside our extraction), `evaluator.py`, `cells.py`
(cell judging, counts, results.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Sequence

# Run as a script, loaded by path (the tests) or imported by probes.py: the sibling modules import by their names.
HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from cells import (all_cells, best_of, declared_rows, exploration, headline, misses_by_cause,  # noqa: E402
                   protocol_summary, summarize, to_markdown, unique_computations)
from evaluator import Evaluator  # noqa: E402
from listing_values import LISTING_COMPUTE  # noqa: E402
from published import (Listing, Row, listing_from_dict, listing_to_dict, listings, row_from_dict,  # noqa: E402
                       row_to_dict, rows)
from switches import SWITCHES  # noqa: E402


def evaluate_rows(all_rows: Sequence[Row], ev: Evaluator) -> list[dict]:
    """Base values and every listed switch's values of each row (JSON-ready)."""
    out = []
    for row in all_rows:
        base = ev.values(row)
        switch_values = {}
        for name in row.switches:
            switch_values[name] = SWITCHES[name].compute(row, ev)
        out.append({"row": row_to_dict(row), "ours": list(base) if base else None,
                    "switches": {k: list(v) if v else None for k, v in switch_values.items()}})
    return out


def evaluate_listings(items: Sequence[Listing], ev: Evaluator) -> list[dict]:
    """Base values and every listed switch's values of each listing (JSON-ready)."""
    out = []
    for item in items:
        switch_values = {name: SWITCHES[name].compute(item, ev) for name in item.switches}
        out.append({"listing": listing_to_dict(item), "ours": LISTING_COMPUTE[item.compute](item, ev),
                    "switches": switch_values})
    return out


def redeclared(previous: dict, current_rows: Sequence[Row], current_listings: Sequence[Listing]
               ) -> tuple[list[dict], list[dict]]:
    """A stored results.json's values with today's published data (declared protocols, slips, evidence): the stored
    rows and listings must be today's, in order and with the same printed cells; switch values that today's data no
    longer lists are dropped, and one it lists that the stored run did not compute is an error (re-run it)."""
    def refreshed(stored: list[dict], current: Sequence, key: str, to_dict, from_dict) -> list[dict]:
        if len(stored) != len(current):
            raise ValueError(f"{len(stored)} stored {key}s, {len(current)} published: re-run without --from-json")
        out = []
        for item, now in zip(stored, current):
            old = from_dict(item[key])
            same = (old.paper, old.table, old.name, old.published) == (now.paper, now.table, now.name, now.published)
            missing = set(now.switches) - set(item["switches"])
            if not same or missing:
                raise ValueError(f"{now.paper} {now.table} {now.name}: the stored values are not today's published "
                                 f"row (or lack switches {sorted(missing)}): re-run without --from-json")
            out.append({key: to_dict(now), "ours": item["ours"],
                        "switches": {name: item["switches"][name] for name in now.switches}})
        return out
    return (refreshed(previous["rows"], current_rows, "row", row_to_dict, row_from_dict),
            refreshed(previous.get("listings", []), current_listings, "listing", listing_to_dict, listing_from_dict))


def selected(items: Sequence, only: Sequence[str] | None) -> list:
    """The rows or listings whose "paper table" contains one of `only` (all of them when `only` is empty)."""
    return [x for x in items if not only or any(t in f"{x.paper} {x.table}" for t in only)]


def main(argv: list[str] | None = None) -> int:
    """Evaluate every row and its switches; write results.md and results.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="data directory laid out like ../shared/data")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--from-json", type=Path, default=None,
                        help="rebuild results.md/results.json from a previous results.json (no scoring)")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--only", action="append", default=None, metavar="TEXT",
                        help="evaluate only the tables whose 'paper table' contains TEXT (repeatable; for "
                             "development: write to another --out)")
    args = parser.parse_args(argv)
    started = time.time()
    if args.from_json:
        previous = json.loads(args.from_json.read_text(encoding="utf-8"))
        evaluated, listed = redeclared(previous, selected(rows(), args.only), selected(listings(), args.only))
        metric_scores = previous.get("metric_scores", {})
    else:
        if not args.data:
            parser.error("--data is required unless --from-json is given")
        from gecscore.meta_eval import ScoreCache, default_cache_dir, sharing_work

        ev = Evaluator(args.data, ScoreCache(args.cache_dir or default_cache_dir()), args.progress)
        with sharing_work():  # every configuration scores the same outputs: M² lattices, CLEME chunks built once
            evaluated = evaluate_rows(selected(rows(), args.only), ev)
            listed = evaluate_listings(selected(listings(), args.only), ev)
        metric_scores = ev.metric_scores
    payload = {"rows": evaluated, "listings": listed}
    cells = all_cells(payload)
    declared = declared_rows(payload, cells)
    summary = summarize(cells)
    payload = {"summary": summary, "headline": headline(summary), "protocols": protocol_summary(declared),
               "declared": declared, "exploration": exploration(cells), "best_of": best_of(cells),
               "unique_computations": unique_computations(cells), "misses": misses_by_cause(cells), "cells": cells,
               **payload, "metric_scores": metric_scores}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (args.out / "results.md").write_text(to_markdown(cells, declared), encoding="utf-8")
    for s in payload["summary"]:
        print(f"{s['paper']} {s['table']}: {s['cells']} cells, {s['covered']} covered, {s['reproduced']} reproduced, "
              f"{s['slip']} slips, {s['explained']} explained misses, {s['unexplained']} unexplained")
    print(f"wall time {time.time() - started:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())