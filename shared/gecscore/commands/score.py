"""`gecscore score`: score files from the shell, as `errant_compare` and `m2scorer` do."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from .meta_eval import parse_options

METRICS = ("uot_errant", "pt_m2", "cleme2", "impara_ged")
METRICS_DIR_ENV = "GECSCORE_METRICS_DIR"
_REPO_METRICS = Path(__file__).resolve().parents[3] / "metrics"


def register(subparsers: Any) -> None:
    """Add the `score` subcommand."""
    parser = subparsers.add_parser(
        "score", help="score a system output file against references (or gold M2)",
        description="Read plain-text files (one whitespace-tokenised sentence per line), score them with a gecscore "
                    "metric and print the corpus scores and the signature.",
    )
    parser.add_argument("metric", choices=METRICS)
    parser.add_argument("--sources", type=Path, required=True, help="source sentences, one per line")
    parser.add_argument("--predictions", type=Path, required=True, help="system output, one sentence per line")
    refs = parser.add_mutually_exclusive_group()
    refs.add_argument("--references", type=Path, nargs="+", help="one file per reference set, aligned by line")
    refs.add_argument("--gold-m2", type=Path, help="gold edits as an M2 file (pt_m2)")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="metric option (repeatable), e.g. -o model=minilm -o layer=6; VALUE is JSON when it parses")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.add_argument("--sentences", type=Path, help="write per-sentence scores (JSON lines) here")
    parser.set_defaults(func=run)


def read_sentences(path: Path, what: str) -> list[str]:
    """Lines of a UTF-8 file (trailing newline and right-hand whitespace removed); errors name file and line."""
    if not path.is_file():
        raise FileNotFoundError(f"{what} file {path} does not exist")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ValueError(f"{what} file {path}, line {line}: not valid UTF-8") from None
    if not text.strip():
        raise ValueError(f"{what} file {path} is empty")
    return [line.rstrip() for line in text.rstrip("\n").split("\n")]


def load_module(name: str) -> Any:
    """The evaluate module `name`: from $GECSCORE_METRICS_DIR or this checkout's metrics/, else the Hub."""
    import evaluate

    base = Path(os.environ.get(METRICS_DIR_ENV, _REPO_METRICS))
    local = base / name
    return evaluate.load(str(local) if (local / f"{name}.py").is_file() else f"gecscore/{name}")


def run(args: argparse.Namespace) -> int:
    """Score the files and print the result."""
    options = parse_options(args.option)
    sources = read_sentences(args.sources, "sources")
    predictions = read_sentences(args.predictions, "predictions")
    if len(predictions) != len(sources):
        raise ValueError(f"predictions file {args.predictions} has {len(predictions)} lines but sources file "
                         f"{args.sources} has {len(sources)}")
    kwargs: dict[str, Any] = {"sources": sources, "predictions": predictions, **options}
    if args.metric == "impara_ged":
        if args.references or args.gold_m2:
            raise ValueError("impara_ged is reference-free: drop --references/--gold-m2")
    elif args.gold_m2:
        if args.metric != "pt_m2":
            raise ValueError("--gold-m2 is for pt_m2; give --references (corrected sentences) instead")
        kwargs["gold_m2"] = str(args.gold_m2)
    elif args.references:
        columns = []
        for path in args.references:
            lines = read_sentences(path, "references")
            if len(lines) != len(sources):
                raise ValueError(f"references file {path} has {len(lines)} lines but sources file {args.sources} "
                                 f"has {len(sources)}")
            columns.append(lines)
        kwargs["references"] = [list(refs) for refs in zip(*columns)]
    else:
        raise ValueError(f"{args.metric} needs --references (or --gold-m2 for pt_m2)")
    if args.sentences:
        kwargs[_SENTENCE_OPTION[args.metric]] = True
    result = load_module(args.metric).compute(**kwargs)
    if args.sentences:
        rows = result.get("sentence_scores") or result.get("sentences") or []
        with args.sentences.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, default=float) + "\n")
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if not isinstance(v, list)}, indent=2, default=str))
    else:
        for key, value in result.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                print(f"{key}\t{value:.6f}" if isinstance(value, float) else f"{key}\t{value}")
        print(f"signature\t{result.get('signature', '')}")
    return 0


_SENTENCE_OPTION = {"uot_errant": "return_sentence_scores", "pt_m2": "sentence_scores", "cleme2": "sentences",
                    "impara_ged": "sentence_scores"}
