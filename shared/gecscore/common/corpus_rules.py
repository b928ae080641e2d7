"""ERRANT's greedy corpus rule as a resamplable statistic (`gecscore.common.bootstrap`), shared by ERRANT,
UOT-ERRANT and PT-ERRANT.

A numpy transcription of `gecscore.common.errant_scoring.FScore` (both zero-division rules, `(F, TP, -FP, -FN)`
greedy key on the running total) with the same floating-point operations in the same order, so that it reproduces
the metrics' own scores and reference choices (tests compare them resample by resample). M²'s and CLEME2.0's
greedy rules live with their metrics (`gecscore.pt_m2.metric.m2_greedy`, `gecscore.cleme2.metric.heuo_greedy`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from gecscore.common.bootstrap import GreedyReferences
from gecscore.common.errant_scoring import Counts, FScore


def errant_prf(counts: np.ndarray, rule: FScore) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and F_β of `(..., 3)` arrays of TP, FP, FN under `rule`."""
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        if rule.zero_division == "errant":
            p = np.where(fp == 0, 1.0, tp / (tp + fp))
            r = np.where(fn == 0, 1.0, tp / (tp + fn))
        else:
            p = np.where(tp + fp == 0, 1.0, tp / (tp + fp))
            r = np.where(tp + fn == 0, 1.0, tp / (tp + fn))
        b2 = rule.beta ** 2
        denominator = b2 * p + r
        f = np.where(p + r == 0, 0.0, np.where(denominator == 0, 1.0, (1 + b2) * p * r / denominator))
    return p, r, f


def errant_greedy(per_sentence: Sequence[Sequence[Counts]], rule: FScore) -> GreedyReferences:
    """Corpus F_β with ERRANT's greedy reference accumulation (`FScore.aggregate`) on resamples."""
    def key(running: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, ...]:
        local = running + candidates
        return errant_prf(local, rule)[2], local[..., 0], -local[..., 1], -local[..., 2]

    return GreedyReferences([[(c.tp, c.fp, c.fn) for c in refs] for refs in per_sentence], key,
                            lambda totals: errant_prf(totals, rule)[2])
