"""Meta-evaluation metrics by name: the built-in adapters (`adapters.BUILTIN`) and any registered factory."""

from __future__ import annotations

from typing import Any, Callable

from gecscore.meta_eval import adapters
from gecscore.meta_eval.protocol import SentenceMetric, SystemScores

__all__ = ["SentenceMetric", "SystemScores", "available_metrics", "get_metric", "register_metric"]

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
    for name, factory in adapters.BUILTIN.items():
        _REGISTRY.setdefault(name, factory)
    _BUILTINS_DONE.append(True)


_BUILTINS_DONE: list[bool] = []
