"""`gecscore rerank`: pick one candidate per source from n-best files by a reference-free score, MBR or references."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gecscore.commands.meta_eval import parse_options
from gecscore.commands.score import metric_name, read_lines


def register(subparsers: Any) -> None:
    from gecscore import registry
    from gecscore.reranking import METHODS

    parser = subparsers.add_parser(
        "rerank", help="pick one candidate per source (n-best reranking, MBR)",
        description="Pick one candidate per source sentence from K candidate files (line i of each file is a "
                    "candidate for source line i): by a reference-free metric (--method reference_free), by minimum "
                    "Bayes risk with the other candidates as pseudo-references (--method mbr, the default), or "
                    "against references (--method reference, an oracle). Robust by default (-o robust=false for "
                    "the published metric). Prints the chosen sentences, one per line, or JSON with every score.")
    parser.add_argument("metric", type=metric_name, choices=registry.NAMES, help="the metric (a registry name)",
                        metavar="METRIC")
    parser.add_argument("--sources", type=Path, required=True, help="source sentences, one per line")
    parser.add_argument("--candidates", type=Path, nargs="+", required=True, metavar="FILE",
                        help="candidate files, one candidate per source line in each (an n-best list as K files)")
    parser.add_argument("--references", type=Path, nargs="+", metavar="FILE",
                        help="reference files (--method reference only)")
    parser.add_argument("--method", choices=METHODS, default="mbr", help="how to choose (default mbr)")
    parser.add_argument("--output", type=Path, metavar="FILE", help="write the chosen sentences here (without it and --json: to stdout)")
    parser.add_argument("--json", action="store_true",
                        help="print JSON: choice, chosen, scores, utility matrices, degenerate candidates, signature")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a metric option (repeatable), as for gecscore score")
    parser.set_defaults(func=run, cli_option_flag="-o")


def run(args: argparse.Namespace) -> int:
    from gecscore.reranking import check_method, rerank

    check_method(args.metric, args.method, bool(args.references), cli=True)  # before any file is read
    sources = read_lines(args.sources, "sources")
    files = [read_lines(path, "candidates") for path in args.candidates]
    for path, lines in zip(args.candidates, files):
        if len(lines) != len(sources):
            raise ValueError(f"candidates file {path} has {len(lines)} lines but sources has {len(sources)}")
    references = None
    if args.references:
        refs = [read_lines(path, "references") for path in args.references]
        for path, lines in zip(args.references, refs):
            if len(lines) != len(sources):
                raise ValueError(f"references file {path} has {len(lines)} lines but sources has {len(sources)}")
        references = [list(group) for group in zip(*refs)]
    candidates = [list(group) for group in zip(*files)]
    result = rerank(sources, candidates, references, metric=args.metric, method=args.method,
                    **parse_options(args.option))
    chosen = "".join(line + "\n" for line in result.chosen)
    if args.output is not None:
        args.output.write_text(chosen, encoding="utf-8")
    if args.json:
        print(json.dumps({**result.as_dict(), "candidate_files": [str(path) for path in args.candidates]},
                         ensure_ascii=False))
    elif args.output is None:
        print(chosen, end="")
    return 0
