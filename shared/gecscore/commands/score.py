"""`gecscore score`: score plain-text files from the shell (the `errant_compare` / `m2scorer` habit), with
bootstrap confidence intervals and a paired bootstrap test between two systems."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from gecscore.commands.meta_eval import parse_options

_POSITION = re.compile(r"`(sources|predictions)\[(\d+)\]`")


def register(subparsers: Any) -> None:
    """Add the `score` subcommand."""
    from gecscore import registry
    from gecscore.common.bootstrap import DEFAULT_SEED

    parser = subparsers.add_parser(
        "score", help="score system output files against references (or a gold M2)",
        description="Score a system's output with a gecscore metric and print the corpus scores and the signature. "
                    "Files hold one whitespace-tokenised sentence a line (raw text with --tokenize where the metric "
                    "offers it). --bootstrap N adds a 95% interval from N resamples of the sentences; with "
                    "--predictions2 too, a paired bootstrap test of the second system against the first. Resamples "
                    "reuse the per-sentence statistics of the one run: no model runs again.",
    )
    parser.add_argument("metric", choices=registry.NAMES, help="; ".join(
        [f"{s.name}: {s.title}, {s.summary}" for s in registry.SPECS.values()]
        + [f"{name}: {p.doc}" for name, p in registry.PRESETS.items()]))
    parser.add_argument("--sources", type=Path, help="source sentences, one per line (default with --gold-m2: its "
                                                     "S lines)")
    parser.add_argument("--predictions", type=Path, required=True, help="system output, one sentence per line")
    parser.add_argument("--predictions2", type=Path, help="a second system's output, tested against the first")
    refs = parser.add_mutually_exclusive_group()
    refs.add_argument("--references", type=Path, nargs="+", metavar="FILE",
                      help="one file per reference set, aligned by line")
    refs.add_argument("--gold-m2", type=Path, metavar="FILE",
                      help="gold M2: pt_m2 scores against its edits; the other metrics take each annotator's "
                           "corrected sentences as references")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--sentences", type=Path, metavar="OUT", help="write per-sentence scores (JSON lines) here")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N", help="bootstrap resamples (e.g. 1000)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"bootstrap seed (default {DEFAULT_SEED})")
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="metric option (repeatable); the same as --KEY VALUE")
    group = parser.add_argument_group(
        "metric options",
        "--KEY VALUE (VALUE is JSON when it parses: 0.1, true, null, [0.4,0.3,0.2,0.1]; else a string; a bare "
        "--KEY means true). " + "; ".join(f"{m}: {', '.join(registry.allowed_options(m))}" for m in registry.NAMES))
    for name in sorted({o for m in registry.NAMES for o in registry.allowed_options(m)}):
        flags = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
        group.add_argument(*flags, dest=f"option_{name}", nargs="?", const="true", default=None, metavar="VALUE",
                           help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def read_lines(path: Path, what: str) -> list[str]:
    """The sentences of a UTF-8 file, read as the Spaces read them (`gecscore.common.text_input.split_lines`);
    errors name the file, line and column."""
    from gecscore.common.text_input import control_character, decode_utf8, split_lines

    if not path.is_file():
        raise FileNotFoundError(f"{what} file {path} does not exist")
    text, bad_line = decode_utf8(path.read_bytes())
    if text is None:
        raise ValueError(f"{what} file {path}, line {bad_line}: not valid UTF-8")
    lines = split_lines(text)
    if not any(line.strip() for line in lines):
        raise ValueError(f"{what} file {path} is empty")
    for number, line in enumerate(lines, 1):
        found = control_character(line)
        if found is not None:
            raise ValueError(f"{what} file {path}, line {number}, column {found[0]}: control character {found[1]}")
    return lines


def read_inputs(args: argparse.Namespace) -> tuple[list[str], dict[str, list[str]], list[list[str]] | None, Any]:
    """Sources, systems (`predictions`, `predictions2`), references and the parsed gold M2, line counts checked."""
    from gecscore.common.m2io import read_m2

    gold = None
    if args.gold_m2 is not None:
        if not args.gold_m2.is_file():
            raise FileNotFoundError(f"gold M2 file {args.gold_m2} does not exist")
        try:
            gold = read_m2(args.gold_m2)
        except ValueError as error:
            raise ValueError(f"gold M2 file {args.gold_m2}: {error}") from None
    if args.sources is not None:
        first, sources = ("sources", args.sources), read_lines(args.sources, "sources")
        if gold is not None:
            _check_length(("gold M2", args.gold_m2), len(gold), first, len(sources), unit="sentences")
    elif gold is not None:
        first, sources = ("gold M2", args.gold_m2), [block.source for block in gold]
    else:
        raise ValueError("give --sources (or --gold-m2, whose S lines are the sources)")
    files = {"predictions": args.predictions, "predictions2": args.predictions2}
    systems = {}
    for key, path in files.items():
        if path is not None:
            systems[key] = read_lines(path, key)
            _check_length((key, path), len(systems[key]), first, len(sources))
    references = None
    if args.references:
        columns = []
        for path in args.references:
            columns.append(read_lines(path, "references"))
            _check_length(("references", path), len(columns[-1]), first, len(sources))
        references = [list(refs) for refs in zip(*columns)]
    return sources, systems, references, gold


def _check_length(file: tuple[str, Path], n: int, first: tuple[str, Path], n_first: int, unit: str = "lines") -> None:
    if n != n_first:
        raise ValueError(f"{file[0]} file {file[1]} has {n} {unit} but {first[0]} file {first[1]} has {n_first}")


def metric_options(args: argparse.Namespace) -> dict[str, Any]:
    """`--KEY VALUE` and `-o KEY=VALUE` options (VALUE as JSON when it parses)."""
    options = parse_options(args.option)
    for key, raw in vars(args).items():
        if key.startswith("option_") and raw is not None:
            options[key[len("option_"):]] = parse_options([f"x={raw}"])["x"]
    return options


def run(args: argparse.Namespace) -> int:
    """Score the files and print the result."""
    from gecscore import registry
    from gecscore.common.bootstrap import confidence_interval, paired_bootstrap, signature_suffix

    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    options = metric_options(args)
    registry.check_options(args.metric, options)
    reference_free = registry.spec(args.metric).reference_free
    if reference_free and (args.references or args.gold_m2):
        raise ValueError(f"{args.metric} is reference-free: drop --references/--gold-m2")
    if not reference_free and not (args.references or args.gold_m2):
        raise ValueError(f"{args.metric} needs --references (or --gold-m2)")
    sources, systems, references, gold = read_inputs(args)
    try:
        runs = registry.run_systems(args.metric, sources, systems, references, gold_m2=gold,
                                    progress=args.progress, **options)
    except (ValueError, TypeError) as error:
        raise type(error)(_with_lines(str(error), args)) from None
    first = runs["predictions"]
    result: dict[str, Any] = {"metric": args.metric, **first.scores, **first.details}
    if "predictions2" in runs:
        result["predictions2"] = {**runs["predictions2"].scores, **runs["predictions2"].details}
    signature = first.signature
    if args.bootstrap:
        n, common = len(sources), {"n_samples": args.bootstrap, "seed": args.seed}
        if "predictions2" in runs:
            test = paired_bootstrap(first.statistic, runs["predictions2"].statistic, n, **common)
            result["bootstrap"] = _interval(first.main, test.baseline)
            result["predictions2"]["bootstrap"] = _interval(first.main, test.system)
            result["paired_bootstrap"] = {"difference": test.difference, "p_value": test.p_value}
        else:
            result["bootstrap"] = _interval(first.main, confidence_interval(first.statistic, n, **common))
        signature = f"{signature}|{signature_suffix(args.bootstrap, args.seed)}"
    result["signature"] = signature
    if args.sentences is not None:
        with args.sentences.open("w", encoding="utf-8") as out:
            for key, system in runs.items():
                for i, record in enumerate(system.sentences):
                    row = record if len(runs) == 1 else {"system": key, **record}
                    out.write(json.dumps({"line": i + 1, **row}, ensure_ascii=False, default=float) + "\n")
    print(json.dumps(result, indent=2, ensure_ascii=False, default=float) if args.json
          else format_result(result, first.main))
    return 0


def _interval(key: str, interval: Any) -> dict[str, Any]:
    return {"score": key, "mean": interval.mean, "ci": interval.ci, "n_samples": interval.n_samples,
            "seed": interval.seed}


def _with_lines(message: str, args: argparse.Namespace) -> str:
    """The metric's message with file lines added to `sources[i]` / `predictions[i]` positions."""
    def where(match: re.Match) -> str:
        path = args.sources if match.group(1) == "sources" else args.predictions
        return f"{match.group(0)} (line {int(match.group(2)) + 1} of {path or args.gold_m2})"

    return _POSITION.sub(where, message)


def format_result(result: dict[str, Any], main: str) -> str:
    """Tab-separated `key value [value2]` lines: headline first (with `mean ± ci` when bootstrapped), the other
    scalars, the paired test and the signature."""
    second = result.get("predictions2")
    keys = [main] + [k for k, v in result.items()
                     if k != main and isinstance(v, (int, float)) and not isinstance(v, bool)]

    def cell(entry: dict[str, Any], key: str) -> str:
        text = f"{entry[key]:.6f}" if isinstance(entry[key], float) else str(entry[key])
        if key == main and "bootstrap" in entry:
            text += f" (μ = {entry['bootstrap']['mean']:.4f} ± {entry['bootstrap']['ci']:.4f})"
        return text

    lines = [f"metric\t{result['metric']}"]
    if second is not None:
        lines.append("\tpredictions\tpredictions2")
    for key in keys:
        lines.append("\t".join([key, cell(result, key)] + ([cell(second, key)] if second is not None else [])))
    if "paired_bootstrap" in result:
        test = result["paired_bootstrap"]
        lines.append(f"paired_bootstrap\tdifference {test['difference']:+.6f}\tp = {test['p_value']:.4f}")
    lines.append(f"signature\t{result['signature']}")
    return "\n".join(lines)
