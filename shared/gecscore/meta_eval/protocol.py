"""What the meta-evaluation needs from a metric: the `SentenceMetric` protocol and its `SystemScores`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    from gecscore.common.m2io import M2Sentence


@dataclass
class SystemScores:
    """One system's sentence scores and, when the metric has its own, its corpus score (else the mean is used)."""

    sentence: list[float]
    corpus: float | None = None

    @property
    def system(self) -> float:
        """The `default` aggregation: the metric's corpus score, or the mean of its sentence scores."""
        if self.corpus is not None:
            return float(self.corpus)
        return float(sum(self.sentence) / len(self.sentence))


@runtime_checkable
class SentenceMetric(Protocol):
    """Anything that scores one system's sentences; `settings()` must name everything that changes a score."""

    name: str

    def settings(self) -> dict[str, Any]:
        """Options that change scores (cache key and signature)."""
        ...

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """Sentence scores (one per source) and an optional corpus score.

        `references` has one list per sentence; `gold_m2` is the gold M2 of the same sentences when the
        reference set has one (M2-file metrics such as M² need it).
        """
        ...
