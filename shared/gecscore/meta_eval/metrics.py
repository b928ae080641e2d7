"""Meta-evaluation metrics by name: every `gecscore.registry` name, the meta-evaluation's own `cleme-length`, or a
user's factory as `module:attribute`.

There is one metric registry (`gecscore.registry`); the meta-evaluation adds no second one. A metric of your own is
either passed to `meta_evaluate` as an object, or named on the command line by its import path
(`--metric mypackage.metrics:MyMetric`), so nothing global is mutated to make it available.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from gecscore import registry
from gecscore.meta_eval.adapters import RegistryMetric
from gecscore.meta_eval.protocol import SentenceMetric, SystemScores

__all__ = ["SentenceMetric", "SystemScores", "available_metrics", "get_metric"]


def _cleme_length(**options: Any) -> SentenceMetric:
    from gecscore.meta_eval.cleme_length import LengthWeightedCleme

    return LengthWeightedCleme(**options)


# CLEME (v1) with explicit length-weighting sigmoids (UOT-ERRANT's setting of its CLEME rows); see cleme_length.
_META_EVAL_ONLY: dict[str, Callable[..., SentenceMetric]] = {"cleme-length": _cleme_length}


def available_metrics() -> list[str]:
    """The names `get_metric` accepts besides import paths."""
    return sorted([*registry.NAMES, *_META_EVAL_ONLY])


def get_metric(name: str, **options: Any) -> SentenceMetric:
    """A metric adapter by registry name, `cleme-length`, or `module:attribute` import path, built with `options`."""
    if ":" in name:
        factory = _import_factory(name)
    elif name.lower() in _META_EVAL_ONLY:
        factory = _META_EVAL_ONLY[name.lower()]
    else:
        if name.lower() not in registry.NAMES:
            raise ValueError(f"unknown metric {name!r}; available: {available_metrics()}, "
                             "or a factory of your own as module:attribute")
        return RegistryMetric(name.lower(), **options)
    metric = factory(**options)
    if not isinstance(metric, SentenceMetric):
        raise TypeError(f"metric factory {name!r} returned {type(metric).__name__}, not a SentenceMetric")
    return metric


def _import_factory(path: str) -> Callable[..., SentenceMetric]:
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"metric {path!r}: cannot import module {module_name!r} ({error})") from error
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"metric {path!r}: module {module_name!r} has no callable {attribute!r}")
    return factory
