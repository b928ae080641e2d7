"""One meta-evaluation: score the systems (through the cache), aggregate, correlate with humans."""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence


from gecscore.common.caller import warn
from gecscore.common.signature import make_signature
from gecscore.common.aggregate import AGGREGATIONS, aggregate_scores
from gecscore.meta_eval.cache import ScoreCache, score_key
from gecscore.meta_eval.correlate import (Correlation, PairwiseAgreement, WindowCorrelation, correlate_systems, sentence_agreement,
                        window_correlations)
from gecscore.meta_eval.data import MetaEvalData
from gecscore.meta_eval.protocol import SentenceMetric, SystemScores
from gecscore.common.progress import progress_bar


@dataclass
class MetaEvalResult:
    """Correlations of one metric with the humans of one data set, system set, reference set and aggregation."""

    metric: str
    signature: str
    dataset: str
    reference_set: str
    system_set: str
    aggregation: str
    systems: list[str]
    metric_scores: dict[str, float]
    human_scores: dict[str, dict[str, float]]
    system: dict[str, Correlation]
    sentence: dict[str, PairwiseAgreement] = field(default_factory=dict)
    windows: dict[str, list[WindowCorrelation]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (NaN correlations become None)."""
        return _nan_to_none(asdict(self))


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nan_to_none(v) for v in value]
    return value


def _gold_text(data: MetaEvalData) -> str | None:
    if data.gold_m2 is None:
        return None
    from gecscore.common.m2io import format_m2

    return format_m2(data.gold_m2)


def score_systems(metric: SentenceMetric, data: MetaEvalData, systems: Sequence[str], *,
                  cache: ScoreCache | None = None, progress: bool = False) -> dict[str, SystemScores]:
    """Each system's `SystemScores`, read from `cache` when present and written to it otherwise."""
    settings = metric.settings()
    gold = _gold_text(data)
    out: dict[str, SystemScores] = {}
    for system in progress_bar(systems, desc=f"{metric.name} systems", disable=not progress, leave=False):
        hypotheses = data.hypotheses[system]
        key = score_key(metric.name, settings, data.sources, hypotheses, data.references, gold)
        scores = cache.get(metric.name, key) if cache is not None else None
        if scores is None and cache is not None:
            with cache.computing(metric.name, key):  # another process may be computing it: wait, then read it
                scores = cache.get(metric.name, key)
                if scores is None:
                    scores = _score_system(metric, data, system, progress)
                    cache.put(metric.name, key, scores)
        elif scores is None:
            scores = _score_system(metric, data, system, progress)
        out[system] = scores
    return out


def _score_system(metric: SentenceMetric, data: MetaEvalData, system: str, progress: bool) -> SystemScores:
    """One system's scores, its warnings re-issued naming the system, its length checked."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = metric.score_system(data.sources, data.hypotheses[system], data.references, gold_m2=data.gold_m2,
                                     progress=progress)
    for caught_warning in caught:
        warn(f"{data.dataset} system {system}: {caught_warning.message}", caught_warning.category)
    if len(scores.sentence) != len(data.sources):
        raise ValueError(f"metric {metric.name!r} returned {len(scores.sentence)} sentence scores for "
                         f"system {system!r}, expected {len(data.sources)}")
    return scores


def meta_evaluate(metric: SentenceMetric, data: MetaEvalData, *, system_set: str = "base", aggregation: str = "default",
                  cache: ScoreCache | None = None, window: int | None = 4, progress: bool = False) -> MetaEvalResult:
    """System-level correlations (every human score of the data set), sentence-level agreement (every judgment
    set) and window analysis for one system set and aggregation."""
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"unknown aggregation {aggregation!r}; choose from {list(AGGREGATIONS)}")
    systems = data.system_set(system_set)
    scores = score_systems(metric, data, systems, cache=cache, progress=progress)
    values = aggregate_scores(
        aggregation, [scores[s].sentence for s in systems], [scores[s].system for s in systems], systems
    )
    metric_scores = dict(zip(systems, values))
    system_corr = {name: correlate_systems(metric_scores, human, systems) for name, human in data.human.items()}
    sentence = {
        name: sentence_agreement(items, {s: scores[s].sentence for s in systems}, systems)
        for name, items in data.judgments.items()
    }
    windows = {}
    if window is not None and len(systems) >= window:
        windows = {name: window_correlations(metric_scores, human, systems, window)
                   for name, human in data.human.items()}
    return MetaEvalResult(
        metric=metric.name, signature=make_signature(metric.name, metric.settings()), dataset=data.dataset,
        reference_set=data.reference_set, system_set=system_set, aggregation=aggregation, systems=list(systems),
        metric_scores=metric_scores, human_scores={k: {s: v[s] for s in systems} for k, v in data.human.items()},
        system=system_corr, sentence=sentence, windows=windows,
    )
