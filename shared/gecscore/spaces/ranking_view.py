"""IMPARA-GED explanation: several hypotheses of one source ranked by their quality score."""

from __future__ import annotations

from typing import Sequence

import pandas as pd


def ranking(hypotheses: Sequence[str], scores: Sequence[float]) -> pd.DataFrame:
    """Hypotheses from best to worst (ties keep the input order), with rank, score and input position (0-based
    index, 1-based line)."""
    order = sorted(range(len(hypotheses)), key=lambda i: -scores[i])
    rows = [(rank, float(scores[i]), hypotheses[i], i, i + 1) for rank, i in enumerate(order, start=1)]
    return pd.DataFrame(rows, columns=["rank", "score", "hypothesis", "index", "line"]).round(4)


def bars(hypotheses: Sequence[str], scores: Sequence[float]) -> dict[str, float]:
    """`gr.Label` confidences: one bar per hypothesis, keyed by its line number so duplicates stay apart."""
    return {f"{i + 1}. {h}": float(s) for i, (h, s) in enumerate(zip(hypotheses, scores))}
