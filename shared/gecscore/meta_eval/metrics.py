"""The metric side of a meta-evaluation: the `SentenceMetric` protocol and a registry of adapters by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, runtime_checkable

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


_REGISTRY: dict[str, Callable[..., SentenceMetric]] = {}


def register_metric(name: str, factory: Callable[..., SentenceMetric]) -> None:
    """Make `factory(**options)` available as `get_metric(name, **options)` and `gecscore meta-eval --metric name`."""
    _REGISTRY[name.lower()] = factory


def available_metrics() -> list[str]:
    """Registered metric names (built-ins whose core module is missing raise on use)."""
    _register_builtins()
    return sorted(_REGISTRY)


def get_metric(name: str, **options: Any) -> SentenceMetric:
    """A metric adapter by name, built with `options`."""
    _register_builtins()
    factory = _REGISTRY.get(name.lower())
    if factory is None:
        raise ValueError(f"unknown metric {name!r}; available: {sorted(_REGISTRY)}")
    metric = factory(**options)
    if not isinstance(metric, SentenceMetric):
        raise TypeError(f"metric factory {name!r} returned {type(metric).__name__}, not a SentenceMetric")
    return metric


def _register_builtins() -> None:
    if _BUILTINS_DONE:
        return
    from gecscore.meta_eval import adapters

    for name, factory in adapters.BUILTIN.items():
        _REGISTRY.setdefault(name, factory)
    _BUILTINS_DONE.append(True)


_BUILTINS_DONE: list[bool] = []
