"""`gecscore meta-eval`: correlate a metric with human judgments (SEEDA, GJG15, GMEG-Data)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

DATA_ENV = "GECSCORE_META_EVAL_DATA"
_DEFAULT_SYSTEM_SET = {"seeda": "base", "gjg15": "all", "gmeg": "all"}


def register(subparsers: Any) -> None:
    """Add the `meta-eval` subcommand."""
    from gecscore.meta_eval.aggregate import AGGREGATIONS
    from gecscore.meta_eval.data import CONLL_REFERENCE_SETS, DATASETS, GMEG_DOMAINS

    parser = subparsers.add_parser(
        "meta-eval", help="correlate a metric with human judgments (SEEDA, GJG15, GMEG-Data)",
        description="Score every system of a human-judged data set with a metric, aggregate to system scores and "
                    "print Pearson/Spearman against the human scores, sentence-level pairwise accuracy/Kendall and "
                    "window correlations. Sentence scores are cached, so another --aggregation costs nothing.",
    )
    parser.add_argument("--metric", required=True, help="a registry name: uot_errant, pt_m2, cleme2, impara_ged, or a "
                        "preset (errant, senterrant, m2, sentm2, cleme, impara); options with -o, e.g. -o variant=m2")
    parser.add_argument("-o", "--metric-option", action="append", default=[], metavar="KEY=VALUE",
                        help="metric option (repeatable); VALUE is read as JSON when it parses, else as a string")
    parser.add_argument("--dataset", required=True, choices=DATASETS)
    parser.add_argument("--references", default=None,
                        help=f"reference set: {', '.join(CONLL_REFERENCE_SETS)} (SEEDA, GJG15; default official) "
                             "or ref1-3 (GMEG-Data)")
    parser.add_argument("--exclude-unchanged-references", action="store_true",
                        help="drop references equal to the source unless all are (CLEME2.0's protocol)")
    parser.add_argument("--system-set", default=None,
                        help="SEEDA: base (default), +input, +fluency, all; GJG15: all (default), -input")
    parser.add_argument("--domain", default="wiki", choices=GMEG_DOMAINS, help="GMEG-Data domain")
    parser.add_argument("--split", default="test", choices=("test", "dev"), help="GMEG-Data split")
    parser.add_argument("--aggregation", default="default", choices=AGGREGATIONS)
    parser.add_argument("--data", default=os.environ.get(DATA_ENV),
                        help=f"data directory laid out like the handouts' data/ (default: ${DATA_ENV})")
    parser.add_argument("--out", type=Path, help="write the full result as JSON here")
    parser.add_argument("--plots", type=Path, help="write scatter and window PNGs into this directory")
    parser.add_argument("--window", type=int, default=4, help="window size of the window analysis (default 4)")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="sentence-score cache (default: $GECSCORE_CACHE/meta_eval or ~/.cache/gecscore/meta_eval)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the sentence-score cache")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    parser.set_defaults(func=run)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings to a dict; VALUE as JSON when it parses (1, 0.5, true, null, [..]), else a string."""
    options: dict[str, Any] = {}
    for i, pair in enumerate(pairs):
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--metric-option #{i + 1} must look like KEY=VALUE, got {pair!r}")
        try:
            options[key] = json.loads(raw)
        except ValueError:
            options[key] = raw
    return options


def format_table(result: Any) -> str:
    """Plain-text summary: system-level correlations, sentence-level agreement, system scores."""
    lines = [
        f"{result.metric} on {result.dataset} (references {result.reference_set}, systems {result.system_set}, "
        f"aggregation {result.aggregation})",
        f"{'human score':<14}{'Pearson':>10}{'Spearman':>10}",
    ]
    lines += [f"{name:<14}{c.pearson:>10.3f}{c.spearman:>10.3f}" for name, c in result.system.items()]
    if result.sentence:
        lines += ["", f"{'sentence level':<14}{'accuracy':>10}{'Kendall':>10}{'pairs':>8}"]
        lines += [f"{name:<14}{a.accuracy:>10.3f}{a.kendall:>10.3f}{a.total:>8}" for name, a in result.sentence.items()]
    lines += ["", f"{'system':<14}{'metric':>12}"]
    lines += [f"{s:<14}{result.metric_scores[s]:>12.4f}" for s in result.systems]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Load the data set, score (through the cache), print the table, write JSON and plots."""
    from gecscore.meta_eval.cache import ScoreCache, default_cache_dir
    from gecscore.meta_eval.data import load_dataset
    from gecscore.meta_eval.metrics import get_metric
    from gecscore.meta_eval.plots import scatter_plot, window_plot
    from gecscore.meta_eval.runner import meta_evaluate

    if not args.data:
        raise ValueError(f"give the data directory with --data or ${DATA_ENV}")
    metric = get_metric(args.metric, **parse_options(args.metric_option))
    data = load_dataset(args.dataset, args.data, references=args.references,
                        exclude_unchanged=args.exclude_unchanged_references, domain=args.domain, split=args.split)
    cache = None if args.no_cache else ScoreCache(args.cache_dir or default_cache_dir())
    result = meta_evaluate(
        metric, data, system_set=args.system_set or _DEFAULT_SYSTEM_SET[args.dataset], aggregation=args.aggregation,
        cache=cache, window=args.window, progress=not args.no_progress and sys.stderr.isatty(),
    )
    print(format_table(result))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
    if args.plots:
        stem = f"{result.metric}_{result.dataset}_{result.reference_set}_{result.system_set}_{result.aggregation}"
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)
        for name, human in result.human_scores.items():
            scatter_plot(args.plots / f"{stem}_{name}_scatter.png", result.metric_scores, human, result.systems,
                         metric_label=f"{result.metric} ({result.aggregation})", human_label=f"human {name}",
                         title=f"{result.dataset}: r={result.system[name].pearson:.3f} "
                               f"rho={result.system[name].spearman:.3f}")
        for name, windows in result.windows.items():
            window_plot(args.plots / f"{stem}_{name}_windows.png", windows, title=f"{result.dataset} {name}")
    return 0
