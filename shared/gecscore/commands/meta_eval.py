"""`gecscore meta-eval`: correlate a metric with human judgments (SEEDA, GJG15, GMEG-Data)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

DATA_ENV = "GECSCORE_META_EVAL_DATA"
_DEFAULT_SYSTEM_SET = {"seeda": "base", "gjg15": "all", "gmeg": "all"}


def register(subparsers: Any) -> None:
    """Add the `meta-eval` subcommand."""
    from gecscore.common.aggregate import AGGREGATIONS
    from gecscore import registry
    from gecscore.meta_eval.data import CONLL_REFERENCE_SETS, DATASETS, GMEG_DOMAINS

    parser = subparsers.add_parser(
        "meta-eval", help="correlate a metric with human judgments (SEEDA, GJG15, GMEG-Data)",
        description="Score every system of a human-judged data set with a metric, aggregate to system scores and "
                    "print Pearson/Spearman against the human scores, sentence-level pairwise accuracy/Kendall and "
                    "window correlations. Sentence scores are cached, so another --aggregation costs nothing. "
                    "Further analyses: Williams' test against a --baseline metric, agreement per system pair "
                    "(--pairs), top-K correlation (--top-k) and hyper-parameter searches (--search).",
    )
    parser.add_argument("--metric", required=True, help=f"a registry name: {', '.join(registry.SPECS)}, or a preset "
                        f"({', '.join(registry.PRESETS)}), cleme-length, or a metric of your own as module:attribute "
                        "(a factory returning a SentenceMetric); options with -o, e.g. -o variant=m2")
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
    extra = parser.add_argument_group("analyses (docs/meta-evaluation.md, section \"Further analyses\")")
    extra.add_argument("--baseline", metavar="METRIC", help="a second metric: Williams' test (one-sided, Pearson) "
                       "that --metric correlates better with each human score; also drawn in the --pairs and "
                       "--top-k plots")
    extra.add_argument("--baseline-option", action="append", default=[], metavar="KEY=VALUE",
                       help="option of the baseline metric (repeatable), read like --metric-option")
    extra.add_argument("--pairs", action="store_true", help="agreement per system pair: sentence level per "
                       "judgment set (UOT-ERRANT Figure 6) and per pair of human ranks (gec-metrics' "
                       "pairwise_analysis), system level per human score")
    extra.add_argument("--top-k", type=int, metavar="MIN_K", help="correlation over the K best systems by each "
                       "human score, K = all systems down to MIN_K (PT-M2 Figure 2 uses 4)")
    extra.add_argument("--search", metavar="OPTION=VALUES", help="grid search over a metric option, e.g. "
                       "reg_m=0.02:1:0.02 (START:STOP:STEP), alpha=simplex:0.05 (weights summing to 1) or "
                       "beta=0.5,1,2; prints the correlation of every value and the best one")
    extra.add_argument("--cv-references", metavar="SET,SET,...", help="with --search: leave one reference set "
                       "out in turn, choose on the others, report on the held-out one (CLEME2.0 Appendix B.5)")
    extra.add_argument("--search-key", default="pearson", choices=("pearson", "spearman"),
                       help="what --search maximises (ties: the other correlation; default pearson)")
    extra.add_argument("--search-human", action="append", default=[], metavar="NAME",
                       help="human score --search correlates with (repeatable; default: all, averaged)")
    parser.set_defaults(func=run, cli_option_flag="-o")


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


def format_analyses(analyses: dict[str, Any], metric: str, baseline: str | None) -> str:
    """Plain-text summary of the analyses that were asked for."""
    lines: list[str] = []
    if "williams" in analyses:
        lines += ["", f"Williams' test, {metric} > {baseline} (Pearson r, one-sided)",
                  f"{'human score':<14}{'r metric':>10}{'r base':>10}{'r m-b':>10}{'t':>9}{'p':>9}"]
        lines += [f"{h:<14}{w.r12:>10.3f}{w.r13:>10.3f}{w.r23:>10.3f}{w.t:>9.3f}{w.p:>9.4f}"
                  for h, w in analyses["williams"].items()]
    for name, matrix in analyses.get("pairs", {}).items():
        n, names = len(matrix.systems), matrix.systems
        worst = sorted((matrix.rates[i, j], i, j) for i in range(n) for j in range(i + 1, n) if matrix.total[i, j])
        lines += ["", f"agreement by system pair, judgments {name}: accuracy {matrix.accuracy:.3f}; lowest pairs:"]
        lines += [f"  {names[i]} / {names[j]}: {rate:.3f} ({matrix.agree[i, j]}/{matrix.total[i, j]})"
                  for rate, i, j in worst[:5]]
    for name, agreement in analyses.get("rank_pairs", {}).items():
        lines += ["", f"agreement by pair of human ranks, judgments {name} (better rank / worse rank):"]
        lines += [f"  {better} / {worse}: {rate:.3f} ({agree}/{total})" for (better, worse), rate, agree, total
                  in zip(agreement.pairs, agreement.rates, agreement.agree, agreement.total)]
    for name, agreement in analyses.get("system_pairs", {}).items():
        lines.append(f"system pairs ordered as {name}: {agreement.agree}/{agreement.total} = {agreement.accuracy:.3f}")
    if "top_k" in analyses:
        names = list(analyses["top_k"])
        lines += ["", "top-K systems by human score: " + "  ".join(f"{h} r / rho" for h in names),
                  f"{'K':>3}" + "".join(f"{h:>22}" for h in names)]
        for row in zip(*analyses["top_k"].values()):
            lines.append(f"{row[0].k:>3}" + "".join(f"{c.pearson:>12.3f}{c.spearman:>10.3f}" for c in row))
    if "search" in analyses:
        search = analyses["search"]
        lines += ["", f"search over {search.param} by {search.key} ({min(10, len(search.points))} best of "
                      f"{len(search.points)} values)", f"{'value':>40}{'Pearson':>10}{'Spearman':>10}"]
        lines += [f"{str(search.points[i].value):>40}{search.points[i].correlation.pearson:>10.3f}"
                  f"{search.points[i].correlation.spearman:>10.3f}" for i in search.ranking[:10]]
        lines.append(f"best {search.param}: {search.best_value}")
    if "cross_validation" in analyses:
        cv = analyses["cross_validation"]
        lines += ["", f"cross-validated search over {cv.param} (by {cv.key}, {len(cv.values)} values)",
                  f"{'held out':<14}{'chosen':>30}{'train r':>9}{'test r':>9}{'test rho':>9}"]
        lines += [f"{r.held_out:<14}{str(r.value):>30}{r.train.pearson:>9.3f}{r.test.pearson:>9.3f}"
                  f"{r.test.spearman:>9.3f}" for r in cv.rounds]
        lines.append(f"held-out mean r {cv.mean_test.pearson:.3f} rho {cv.mean_test.spearman:.3f}; "
                     f"final {cv.param}: {cv.final}")
    return "\n".join(lines)


#: Properties of the analyses' results that the JSON output spells out.
_DERIVED = ("rates", "accuracy", "best", "best_value", "mean_test")


def _plain(value: Any) -> Any:
    """JSON-ready copy: dataclasses and arrays unpacked, NaN as None."""
    import dataclasses

    import numpy as np

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        fields.update({name: getattr(value, name) for name in _DERIVED if hasattr(type(value), name)})
        return _plain(fields)
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _stem(*parts: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in "_".join(parts))


def run(args: argparse.Namespace) -> int:
    """Load the data set, score (through the cache), print the table, write JSON and plots; model-loading bars
    follow the command's own progress setting (a terminal, unless --no-progress)."""
    from gecscore.common.encoders import loading_progress

    with loading_progress(not args.no_progress and sys.stderr.isatty()):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from gecscore.meta_eval.cache import ScoreCache, default_cache_dir
    from gecscore.meta_eval.data import load_dataset
    from gecscore.meta_eval.metrics import get_metric
    from gecscore.meta_eval.plots import scatter_plot, window_plot
    from gecscore.meta_eval.runner import meta_evaluate

    if not args.data:
        raise ValueError(f"give the data directory with --data or ${DATA_ENV}")
    if args.cv_references and not args.search:
        raise ValueError("--cv-references needs --search")
    search = parse_search(args.search) if args.search else None
    options = parse_options(args.metric_option)
    metric = get_metric(args.metric, **options)
    baseline = get_metric(args.baseline, **parse_options(args.baseline_option)) if args.baseline else None
    data = load_dataset(args.dataset, args.data, references=args.references,
                        exclude_unchanged=args.exclude_unchanged_references, domain=args.domain, split=args.split)
    cache = None if args.no_cache else ScoreCache(args.cache_dir or default_cache_dir())
    progress = not args.no_progress and sys.stderr.isatty()
    system_set = args.system_set or _DEFAULT_SYSTEM_SET[args.dataset]
    result = meta_evaluate(metric, data, system_set=system_set, aggregation=args.aggregation, cache=cache,
                           window=args.window, progress=progress)
    baseline_result = None if baseline is None else meta_evaluate(
        baseline, data, system_set=system_set, aggregation=args.aggregation, cache=cache, window=None,
        progress=progress)
    analyses = _analyses(args, options, metric, baseline, data, result, baseline_result, cache, progress)
    if search is not None:
        analyses.update(_search(args, options, *search, data, result.system_set, cache, progress))
    print(format_table(result))
    if analyses:
        print(format_analyses(analyses, result.metric, baseline_result.metric if baseline_result else None))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        payload = {**result.to_dict(), **({"analyses": _plain(analyses)} if analyses else {})}
        args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    if args.plots:
        stem = _stem(result.metric, result.dataset, result.reference_set, result.system_set, result.aggregation)
        for name, human in result.human_scores.items():
            scatter_plot(args.plots / f"{stem}_{name}_scatter.png", result.metric_scores, human, result.systems,
                         metric_label=f"{result.metric} ({result.aggregation})", human_label=f"human {name}",
                         title=f"{result.dataset}: r={result.system[name].pearson:.3f} "
                               f"rho={result.system[name].spearman:.3f}")
        for name, windows in result.windows.items():
            window_plot(args.plots / f"{stem}_{name}_windows.png", windows, title=f"{result.dataset} {name}")
        _plot_analyses(args.plots, stem, analyses, result.metric, baseline_result.metric if baseline_result else None)
    return 0


def _analyses(args: argparse.Namespace, options: dict[str, Any], metric: Any, baseline: Any, data: Any, result: Any,
              baseline_result: Any, cache: Any, progress: bool) -> dict[str, Any]:
    """Run the analyses asked for on the command line (name → result objects)."""
    from gecscore.meta_eval.agreement import pair_agreement, rank_pair_agreement, system_pair_agreement
    from gecscore.meta_eval.runner import score_systems
    from gecscore.meta_eval.topk import top_k_correlations
    from gecscore.meta_eval.williams import compare_metrics

    systems, analyses = result.systems, {}
    if baseline_result is not None:
        analyses["williams"] = {h: compare_metrics(human, result.metric_scores, baseline_result.metric_scores, systems)
                                for h, human in result.human_scores.items()}
    if args.pairs:
        for key, adapter in (("pairs", metric), ("baseline_pairs", baseline)):
            if adapter is not None:
                scores = score_systems(adapter, data, systems, cache=cache, progress=progress)
                sentence = {s: scores[s].sentence for s in systems}
                analyses[key] = {name: pair_agreement(items, sentence, systems)
                                 for name, items in data.judgments.items()}
                if key == "pairs":
                    analyses["rank_pairs"] = {name: rank_pair_agreement(items, sentence, systems)
                                              for name, items in data.judgments.items()}
        analyses["system_pairs"] = {h: system_pair_agreement(result.metric_scores, human, systems)
                                    for h, human in result.human_scores.items()}
    if args.top_k is not None:
        for key, res in (("top_k", result), ("baseline_top_k", baseline_result)):
            if res is not None:
                analyses[key] = {h: top_k_correlations(res.metric_scores, human, systems, args.top_k)
                                 for h, human in res.human_scores.items()}
    return analyses


def parse_search(text: str) -> tuple[str, list[Any]]:
    """`--search OPTION=VALUES` to the option's name and its grid (`search.parse_values`)."""
    from gecscore.meta_eval.search import parse_values

    param, sep, spec = text.partition("=")
    if not sep or not param or not spec:
        raise ValueError(f"--search must look like OPTION=VALUES, got {text!r}")
    return param, parse_values(spec)


def _search(args: argparse.Namespace, options: dict[str, Any], param: str, values: list[Any], data: Any,
            system_set: str, cache: Any, progress: bool) -> dict[str, Any]:
    """`--search` (and `--cv-references`): the grid search or its cross-validated form."""
    from gecscore.meta_eval.data import load_dataset
    from gecscore.meta_eval.search import cross_validated_search, grid_search, runner_scorer

    scorer = runner_scorer(args.metric, options, param, aggregation=args.aggregation, cache=cache, progress=progress)
    common = {"system_set": system_set, "humans": args.search_human, "key": args.search_key, "param": param,
              "progress": progress}
    if not args.cv_references:
        return {"search": grid_search(values, scorer, data, **common)}
    folds = {ref: load_dataset(args.dataset, args.data, references=ref,
                               exclude_unchanged=args.exclude_unchanged_references, domain=args.domain,
                               split=args.split)
             for ref in args.cv_references.split(",")}
    return {"cross_validation": cross_validated_search(values, scorer, folds, **common)}


def _plot_analyses(directory: Path, stem: str, analyses: dict[str, Any], metric: str, baseline: str | None) -> None:
    """PNG + SVG of each analysis."""
    from gecscore.meta_eval.plots import (cross_validation_plot, pair_agreement_plot, rank_pair_plot, search_plot,
                                          system_pair_plot, top_k_plot)

    for name, matrix in analyses.get("pairs", {}).items():
        pair_agreement_plot(directory / f"{stem}_{name}_pairs.png", matrix, title=f"{metric}: judgments {name}")
        if "baseline_pairs" in analyses:
            pair_agreement_plot(directory / f"{stem}_{name}_pairs_vs_{_stem(str(baseline))}.png", matrix,
                                baseline=analyses["baseline_pairs"][name],
                                title=f"{metric} minus {baseline}: judgments {name}")
    for name, agreement in analyses.get("rank_pairs", {}).items():
        rank_pair_plot(directory / f"{stem}_{name}_rank_pairs.png", agreement,
                       title=f"{metric}: judgments {name}, agreement by pair of human ranks")
    for name, agreement in analyses.get("system_pairs", {}).items():
        system_pair_plot(directory / f"{stem}_{name}_system_pairs.png", agreement,
                         title=f"{metric} vs human {name}: {agreement.agree}/{agreement.total} pairs ordered alike")
    for name, curve in analyses.get("top_k", {}).items():
        curves = {metric: curve}
        if "baseline_top_k" in analyses:
            curves[str(baseline)] = analyses["baseline_top_k"][name]
        top_k_plot(directory / f"{stem}_{name}_topk.png", curves, title=f"top-K systems by {name}")
    if "search" in analyses:
        search_plot(directory / f"{stem}_search_{_stem(analyses['search'].param)}.png", analyses["search"])
    if "cross_validation" in analyses:
        cv = analyses["cross_validation"]
        cross_validation_plot(directory / f"{stem}_cv_{_stem(cv.param)}.png", cv)
