"""Greedy corpus rules of the ERRANT family, M² and CLEME2.0 as resamplable statistics (`gecscore.common.bootstrap`).

numpy transcriptions of `gecscore.common.errant_scoring.FScore` (both zero-division rules, `(F, TP, -FP, -FN)` greedy
key on the running total), of `gecscore.pt_m2.lattice.prf` / `choose_annotator` (`(F, correct, -(proposed + β²·gold))`)
and of `gecscore.cleme2.metric.HEUO` at corpus level, with the same floating-point operations in the same order, so
that they reproduce the metrics' own scores and reference choices (tests compare them resample by resample).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from gecscore.common.bootstrap import GreedyReferences
from gecscore.cleme2.metric import ChunkCounts
from gecscore.common.errant_scoring import Counts, FScore
from gecscore.pt_m2.lattice import Counts as M2Counts


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


def m2_prf(counts: np.ndarray, beta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """M²'s precision, recall and F_β of `(..., 3)` arrays of correct, proposed, gold (`gecscore.pt_m2.lattice.prf`)."""
    correct, proposed, gold = counts[..., 0], counts[..., 1], counts[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(proposed != 0, correct / proposed, 1.0)
        r = np.where(gold != 0, correct / gold, 1.0)
        b2 = beta * beta
        denominator = b2 * p + r
        f = np.where(denominator != 0, (1.0 + b2) * p * r / denominator, 0.0)
    return p, r, f


def m2_greedy(per_sentence: Sequence[Sequence[M2Counts]], beta: float) -> GreedyReferences:
    """Corpus M² F_β with the official scorer's greedy annotator choice (`gecscore.pt_m2.lattice.corpus_m2`) on resamples."""
    b2 = beta * beta

    def key(running: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, ...]:
        local = running + candidates
        return m2_prf(local, beta)[2], local[..., 0], -(local[..., 1] + b2 * local[..., 2])

    return GreedyReferences([[tuple(c) for c in refs] for refs in per_sentence], key,
                            lambda totals: m2_prf(totals, beta)[2])


def heuo(counts: np.ndarray, alpha: Sequence[float]) -> np.ndarray:
    """CLEME2.0's `com` of `(..., 6)` arrays of TP, FP, FP_ne, FP_un, FN, TN (`gecscore.cleme2.metric.HEUO.indicators`)."""
    tp, fp_ne, fp_un, fn = counts[..., 0], counts[..., 2], counts[..., 3], counts[..., 4]
    ne = tp + fp_ne + fn
    fp = fp_ne + fp_un
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = np.where(ne != 0, tp / ne, 0.0)
        err = np.where(ne != 0, fp_ne / ne, 0.0)
        und = np.where(ne != 0, fn / ne, 0.0)
        ove = np.where(tp + fp != 0, fp_un / (tp + fp), 0.0)
    a_hit, a_err, a_und, a_ove = alpha
    return a_hit * hit + a_err * (1 - err) + a_und * (1 - und) + a_ove * (1 - ove)


def heuo_greedy(per_sentence: Sequence[Sequence[ChunkCounts]], alpha: Sequence[float]) -> GreedyReferences:
    """Corpus CLEME2.0 with its greedy reference choice (`HEUO.corpus`: `[com(total + c), tp, -fp, -fn, tn]` of
    the candidate `c`) on resamples."""
    def key(running: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, ...]:
        return (heuo(running + candidates, alpha), candidates[..., 0], -candidates[..., 1], -candidates[..., 4],
                candidates[..., 5])

    return GreedyReferences([[(c.tp, c.fp, c.fp_ne, c.fp_un, c.fn, c.tn) for c in refs] for refs in per_sentence],
                            key, lambda totals: heuo(totals, alpha))
