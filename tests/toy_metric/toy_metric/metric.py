"""The toy metric's two halves: per-sentence matches against every reference, then their mean."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Mapping, Sequence

from gecscore.common.bootstrap import SentenceMean
from gecscore.common.results import MetricResult, sentence_core
from gecscore.common.signature import make_signature
from gecscore.common.statistics import Statistics
from toy_metric import SPEC


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToyStatistics(Statistics):
    """Per sentence, 1.0 or 0.0 against each of its references."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("matches",)

    matches: tuple[tuple[float, ...], ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Nothing to load."""


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Any = None, *,
                       progress: bool = False, **options: Any) -> dict[str, ToyStatistics]:
    """Every system's matches against every reference."""
    opts = SPEC.resolve(options)
    fold = (lambda text: text) if opts["case_sensitive"] else str.lower
    signature = make_signature("toy", {"case_sensitive": opts["case_sensitive"]}, libraries=())
    return {name: ToyStatistics(settings=opts, signature=signature, matches=tuple(
        tuple(float(fold(p) == fold(r)) for r in refs) for p, refs in zip(predictions, references)))
        for name, predictions in systems.items()}


def score(stats: ToyStatistics) -> MetricResult:
    """The mean of each sentence's best match."""
    sentences = [{**sentence_core(max(row), row.index(max(row)), [{"match": m} for m in row]), "exact": max(row)}
                 for row in stats.matches]
    values = [s["score"] for s in sentences]
    return MetricResult("toy", {"exact": sum(values) / len(values)}, "exact", sentences, SentenceMean(values),
                        stats.signature, {"degenerate_sentences": [dict(d) for d in stats.degenerate]})
