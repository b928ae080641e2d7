"""IMPARA-GED and IMPARA in shards (`gecscore.common.shards`): the corpus score is the mean of the sentences'."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from gecscore.common.results import MetricResult

PER_SENTENCE_DETAILS: tuple[str, ...] = ()


def needs(name: str, resolved: Mapping[str, Any], references: Sequence[Any] | None) -> dict[str, str]:
    """Nothing beyond the sentence scores."""
    return {}


def refusal(name: str, resolved: Mapping[str, Any], result: MetricResult) -> str | None:
    """Every shard merges exactly."""
    return None


def merge(name: str, resolved: Mapping[str, Any], result: MetricResult) -> None:
    """The mean of the sentence scores."""
    values = [float(s["score"]) for s in result.sentences]
    result.scores = {"score": float(np.mean(np.asarray(values, dtype=np.float64)))}
    result.sentence_output = values
