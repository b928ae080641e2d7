"""Hyper-parameter searches against human judgments, with an injectable scorer.

* `grid_search` is UOT-ERRANT's λ search (Goto et al., section 4.1): score a development set (GJG15) once per
  value of a parameter (λ1 = λ2, our `reg_m`, over 0.02..1.00 in steps of 0.02, ε = `reg` fixed at 0.1), take the
  value with the highest Pearson r and break ties by Spearman ρ.
* `cross_validated_search` is CLEME2.0's trade-off factor search (Ye et al., Appendix B.5): the folds are reference
  sets of GJG15; for each held-out reference set, every α on a 0.05 grid (`simplex_grid`) is scored on the other
  sets, the best on average is applied to the held-out set, and of these per-fold choices the one with the best
  held-out correlation is the final α.

A scorer maps (value, data, systems) to one system score per system; `runner_scorer` builds one from a registered
metric through the meta-evaluation runner (`score_systems`, its cache, `aggregate_scores`). Correlations are
averaged over the chosen human scores; "ties" compare correlations rounded to `decimals` (3, as the papers print
them), and the first value in grid order wins a complete tie.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence


from gecscore.common.aggregate import aggregate_scores
from gecscore.meta_eval.cache import ScoreCache
from gecscore.meta_eval.correlate import Correlation, correlate_systems
from gecscore.meta_eval.data import MetaEvalData
from gecscore.meta_eval.metrics import get_metric
from gecscore.meta_eval.runner import score_systems
from gecscore.common.progress import progress_bar

Scorer = Callable[[Any, MetaEvalData, Sequence[str]], Mapping[str, float]]
KEYS = ("pearson", "spearman")


@dataclass(frozen=True)
class GridPoint:
    """One value of the searched parameter and its correlation (mean over the human scores)."""

    value: Any
    correlation: Correlation


@dataclass(frozen=True)
class GridSearch:
    """Every grid point on the development data (grid order) and their indices from best to worst."""

    param: str
    key: str
    points: list[GridPoint]
    ranking: list[int]

    @property
    def best(self) -> int:
        """Index of the chosen point."""
        return self.ranking[0]

    @property
    def best_value(self) -> Any:
        """The chosen value."""
        return self.points[self.best].value


@dataclass(frozen=True)
class Fold:
    """One round of cross-validation: the value chosen without `held_out`, its training and held-out scores."""

    held_out: str
    value: Any
    train: Correlation
    test: Correlation


@dataclass(frozen=True)
class CrossValidatedSearch:
    """Leave-one-fold-out search: every (value, fold) correlation, each round's choice and the final value."""

    param: str
    key: str
    values: list[Any]
    folds: list[str]
    table: list[list[Correlation]]
    rounds: list[Fold]
    final: Any

    @property
    def mean_test(self) -> Correlation:
        """The cross-validated estimate: held-out correlations averaged over the rounds."""
        return _mean([r.test for r in self.rounds])


def _mean(correlations: Sequence[Correlation]) -> Correlation:
    return Correlation(sum(c.pearson for c in correlations) / len(correlations),
                       sum(c.spearman for c in correlations) / len(correlations))


def _rank(correlation: Correlation, key: str, decimals: int) -> tuple[float, float]:
    """Sort key: the `key` correlation, then the other one, rounded; NaN ranks last."""
    first, second = (correlation.pearson, correlation.spearman) if key == "pearson" else \
        (correlation.spearman, correlation.pearson)
    return _rounded(first, decimals), _rounded(second, decimals)


def _rounded(x: float, decimals: int) -> float:
    return -math.inf if math.isnan(x) else round(x, decimals)


def rank_correlations(correlations: Sequence[Correlation], key: str = "pearson", decimals: int = 3) -> list[int]:
    """Indices from best to worst by `key`, ties broken by the other correlation, then by position."""
    if key not in KEYS:
        raise ValueError(f"key must be one of {KEYS}, got {key!r}")
    if not correlations:
        raise ValueError("nothing to choose from: the grid is empty")
    return sorted(range(len(correlations)), key=lambda i: _rank(correlations[i], key, decimals), reverse=True)


def correlate_with_humans(scores: Mapping[str, float], data: MetaEvalData, systems: Sequence[str],
                          humans: Sequence[str] | None = None) -> Correlation:
    """Pearson and Spearman of system scores against each of `humans` (default: all of the data's), averaged."""
    names = list(humans) if humans else list(data.human)
    unknown = [h for h in names if h not in data.human]
    if unknown:
        raise ValueError(f"unknown human scores {unknown} for {data.dataset}; choose from {sorted(data.human)}")
    return _mean([correlate_systems(scores, data.human[h], systems) for h in names])


def grid_search(values: Sequence[Any], scorer: Scorer, data: MetaEvalData, *, system_set: str,
                humans: Sequence[str] | None = None, key: str = "pearson", decimals: int = 3,
                param: str = "value", progress: bool = False) -> GridSearch:
    """Score `data` once per value and choose the best (UOT-ERRANT: Pearson, ties by Spearman)."""
    systems = data.system_set(system_set)
    points = [GridPoint(v, correlate_with_humans(scorer(v, data, systems), data, systems, humans))
              for v in progress_bar(values, desc=f"search {param}", disable=not progress, leave=False)]
    return GridSearch(param, key, points, rank_correlations([p.correlation for p in points], key, decimals))


def cross_validated_search(values: Sequence[Any], scorer: Scorer, folds: Mapping[str, MetaEvalData], *,
                           system_set: str, humans: Sequence[str] | None = None, key: str = "pearson",
                           decimals: int = 3, param: str = "value", progress: bool = False) -> CrossValidatedSearch:
    """Leave each fold out in turn, choose on the others' mean, test on it; final: the best-testing choice."""
    if len(folds) < 2:
        raise ValueError(f"cross-validation needs at least two folds, got {list(folds)}")
    names = list(folds)
    table = []
    for value in progress_bar(values, desc=f"search {param}", disable=not progress, leave=False):
        row = []
        for name in names:
            systems = folds[name].system_set(system_set)
            row.append(correlate_with_humans(scorer(value, folds[name], systems), folds[name], systems, humans))
        table.append(row)
    rounds = []
    for f, held_out in enumerate(names):
        train = [_mean([row[g] for g in range(len(names)) if g != f]) for row in table]
        chosen = rank_correlations(train, key, decimals)[0]
        rounds.append(Fold(held_out, values[chosen], train[chosen], table[chosen][f]))
    final = rounds[rank_correlations([r.test for r in rounds], key, decimals)[0]].value
    return CrossValidatedSearch(param, key, list(values), names, table, rounds, final)


def simplex_grid(step: float = 0.05, parts: int = 4) -> list[tuple[float, ...]]:
    """Every tuple of `parts` positive multiples of `step` that sum to 1 (CLEME2.0's α grid: 969 points at 0.05)."""
    units = round(1 / step)
    if step <= 0 or abs(units * step - 1) > 1e-9 or units < parts:
        raise ValueError(f"step must divide 1 into at least {parts} parts, got {step}")
    grid = []
    for cuts in itertools.combinations(range(1, units), parts - 1):
        bounds = (0, *cuts, units)
        grid.append(tuple(round((b - a) * step, 10) for a, b in zip(bounds, bounds[1:])))
    return grid


def parse_values(spec: str) -> list[Any]:
    """Grid values from `START:STOP:STEP` (ends included), `simplex:STEP` or `a,b,c` (JSON when it parses)."""
    if spec.startswith("simplex:"):
        return list(simplex_grid(float(spec.split(":", 1)[1])))
    if spec.count(":") == 2:
        start, stop, step = (float(x) for x in spec.split(":"))
        count = (stop - start) / step if step > 0 else -1.0
        if count < 0 or abs(count - round(count)) > 1e-9:
            raise ValueError(f"START:STOP:STEP must step from START to STOP exactly, got {spec!r}")
        return [round(start + i * step, 10) for i in range(round(count) + 1)]
    values: list[Any] = []
    for raw in spec.split(","):
        try:
            values.append(json.loads(raw))
        except ValueError:
            values.append(raw)
    return values


def runner_scorer(metric: str, options: Mapping[str, Any], param: str, *, aggregation: str = "default",
                  cache: ScoreCache | None = None, progress: bool = False) -> Scorer:
    """A scorer that runs registered metric `metric` with `options` and `param` = value through the runner."""
    def score(value: Any, data: MetaEvalData, systems: Sequence[str]) -> dict[str, float]:
        adapter = get_metric(metric, **{**options, param: value})
        scores = score_systems(adapter, data, systems, cache=cache, progress=progress)
        return dict(zip(systems, aggregate_scores(aggregation, [scores[s].sentence for s in systems],
                                                  [scores[s].system for s in systems], systems)))

    return score
