"""CLEME2.0's disentangled scores per system from per-sentence chunk counts that are computed once and reused.

CLEME2.0 (Ye et al., ACL 2025) reports, besides its combined score, the hit / wrong / under / over-correction
scores of each system (Table 12), their correlations (Table 5) and correlations averaged over every trade-off
factor α of a 0.05 grid (Table 11). All of them are functions of the unweighted chunk counts of each sentence
against each reference: `reference_counts` computes these once per system (one ERRANT pass gives both correction
assumptions), `disentangled` applies `HEUO`'s own corpus / sentence rules for one α, and `indicator_grid` (and
`com_grid`) gives the indicators for a whole grid of α at once with the same reference-choice rules, vectorised
over α.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from gecscore.cleme2 import ASSUMPTIONS, HEUO, ChunkCounts, Sample, count_chunks, heuo, heuo_indicators, label_chunks, \
    partition_sample, samples_from_m2, samples_from_text

PerRef = Sequence[Sequence[ChunkCounts]]
FIELDS = ("tp", "fp", "fp_ne", "fp_un", "fn", "tn")


def reference_counts(sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     assumptions: Sequence[str] = ASSUMPTIONS) -> dict[str, list[list[ChunkCounts]]]:
    """Unweighted chunk counts of every sentence against every reference, per correction assumption."""
    return sample_counts(samples_from_text(sources, hypotheses, references), assumptions)


def reference_counts_m2(hyp_m2: str | Path, ref_m2: str | Path, assumptions: Sequence[str] = ASSUMPTIONS
                        ) -> dict[str, list[list[ChunkCounts]]]:
    """`reference_counts` from the edits of a hypothesis M2 and a reference M2 (as CLEME reads them)."""
    return sample_counts(samples_from_m2(hyp_m2, ref_m2), assumptions)


def sample_counts(samples: Sequence[Sample], assumptions: Sequence[str] = ASSUMPTIONS
                  ) -> dict[str, list[list[ChunkCounts]]]:
    """Unweighted chunk counts of every sample against every reference, per correction assumption."""
    chunked = [partition_sample(s) for s in samples]
    return {a: [[count_chunks(labels) for labels in label_chunks(c, a)] for c in chunked] for a in assumptions}


def disentangled(per_ref: PerRef, alpha: Sequence[float], level: str) -> dict[str, float]:
    """`com`, `hit`, `err`, `und`, `ove` and the chosen references' summed counts under CLEME2.0's rules."""
    scorer = HEUO(tuple(alpha))
    result = scorer.corpus(per_ref) if level == "corpus" else scorer.sentence(per_ref)
    return {**result.values, **result.total.as_dict()}


def _array(refs: Sequence[ChunkCounts]) -> np.ndarray:
    return np.array([[getattr(c, f) for f in FIELDS] for c in refs], dtype=float)


def _tie_greater(keys: Sequence[tuple]) -> np.ndarray:
    """`out[r, b]`: the tie-break key of candidate r is strictly greater than that of candidate b."""
    return np.array([[kr > kb for kb in keys] for kr in keys], dtype=bool)


def _choose(com: np.ndarray, ties: Sequence[tuple]) -> np.ndarray:
    """Per α (rows of `com`, one column per candidate): the first candidate with the largest (com, tie key)."""
    greater = _tie_greater(ties)
    best = np.zeros(com.shape[0], dtype=int)
    rows = np.arange(com.shape[0])
    for r in range(1, com.shape[1]):
        current = com[rows, best]
        better = (com[:, r] > current) | ((com[:, r] == current) & greater[r, best])
        best = np.where(better, r, best)
    return best


def _indicators(c: np.ndarray) -> tuple[float, float, float, float]:
    """hit, -err, -und, -ove of one count vector (the sentence-level tie-break after `com`)."""
    values = HEUO().indicators(ChunkCounts(*c))
    return (values["hit"], -values["err"], -values["und"], -values["ove"])


def indicators_of(counts: np.ndarray) -> dict[str, np.ndarray]:
    """`hit`, `err`, `und`, `ove` of `(..., 6)` count arrays (`heuo_indicators`; 0 on empty denominators)."""
    values = heuo_indicators(counts[..., 0], counts[..., 2], counts[..., 3], counts[..., 4], (1.0, 0.0, 0.0, 0.0))
    return {name: values[name] for name in ("hit", "err", "und", "ove")}


def indicator_grid(per_ref: PerRef, alphas: np.ndarray, level: str) -> dict[str, np.ndarray]:
    """`com`, `hit`, `err`, `und`, `ove` for each α (rows of `alphas`), with HEUO's reference choice made per α.

    Corpus: greedy over sentences on `[com(total + c), tp, -fp, -fn, tn]`, indicators of the chosen total;
    sentence: per sentence on `[com, hit, -err, -und, -ove]`, then the means of the chosen indicators. The first
    reference wins complete ties.
    """
    alphas = np.asarray(alphas, dtype=float)
    weights = tuple(alphas[:, k] for k in range(4))
    rows = np.arange(len(alphas))
    if level == "corpus":
        total = np.zeros((len(alphas), len(FIELDS)))
        for refs in per_ref:
            cand = _array(refs)
            com = heuo(total[:, None, :] + cand[None, :, :], tuple(w[:, None] for w in weights))
            best = _choose(com, [(c[0], -c[1], -c[4], c[5]) for c in cand])
            total = total + cand[best]
        return {"com": heuo(total, weights), **indicators_of(total)}
    sums = {name: np.zeros(len(alphas)) for name in ("com", "hit", "err", "und", "ove")}
    for refs in per_ref:
        cand = _array(refs)
        com = heuo(np.broadcast_to(cand, (len(alphas),) + cand.shape), tuple(w[:, None] for w in weights))
        best = _choose(com, [_indicators(c) for c in cand])
        sums["com"] += com[rows, best]
        for name, values in indicators_of(cand).items():
            sums[name] += values[best]
    return {name: total / len(per_ref) for name, total in sums.items()}


def com_grid(per_ref: PerRef, alphas: np.ndarray, level: str) -> np.ndarray:
    """The combined score for each α (rows of `alphas`): `indicator_grid`'s `com`."""
    return indicator_grid(per_ref, alphas, level)["com"]
