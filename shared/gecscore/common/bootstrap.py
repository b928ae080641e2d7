"""Bootstrap confidence intervals and paired significance over per-sentence sufficient statistics.

The procedure is sacrebleu's (`sacrebleu/significance.py`): `n_samples` resamples of the sentence indices drawn
with replacement by `numpy.random.default_rng(seed).choice` (seed 12345 by default); the interval is the mean of
the resampled corpus scores ± half the width between the 2.5% and 97.5% order statistics; the paired test scores
both systems on the same index sets, centres the absolute score differences on their mean and counts those that
exceed the observed difference: p = (count + 1) / (n_samples + 1).

A *corpus statistic* is any callable `statistic(indices) -> float` that re-applies a metric's corpus rule (mean of
sentence scores, greedy best reference, ...) to the sentences at `indices` (repeats allowed) from statistics cached
by one run of the metric, so no model runs again. A statistic may also offer `batch(indices_2d) -> scores` that
scores every resample at once; `SentenceMean` and `GreedyReferences` do, with numpy.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Protocol, Sequence

import numpy as np

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345


class CorpusStatistic(Protocol):
    """A metric's corpus score of the sentences at `indices` (a 1-D integer array, repeats allowed)."""

    def __call__(self, indices: np.ndarray) -> float: ...


def resample_indices(n: int, n_samples: int = DEFAULT_SAMPLES, seed: int | None = DEFAULT_SEED) -> np.ndarray:
    """`(n_samples, n)` sentence indices drawn with replacement, as sacrebleu draws them (None: unseeded)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"`n` (the number of sentences) must be an integer >= 1, got {n!r}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"`n_samples` must be an integer >= 1, got {n_samples!r}")
    return np.random.default_rng(seed).choice(n, size=(n_samples, n), replace=True)


def resampled_scores(statistic: CorpusStatistic, indices: np.ndarray) -> np.ndarray:
    """The statistic on every row of `indices` (through its `batch` method when it has one)."""
    indices = np.asarray(indices)
    if indices.ndim != 2:
        raise ValueError(f"`indices` must be 2-D (resamples × sentences), got shape {indices.shape}")
    batch: Callable[[np.ndarray], Any] | None = getattr(statistic, "batch", None)
    scores = np.asarray(batch(indices) if batch is not None else [statistic(row) for row in indices], dtype=float)
    if scores.shape != (len(indices),):
        raise ValueError(f"the statistic returned shape {scores.shape} for {len(indices)} resamples")
    return scores


def estimate_ci(scores: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Mean of the resampled scores and the half-width of their 95% interval (sacrebleu's `estimate_ci`)."""
    ordered = np.sort(np.asarray(scores, dtype=float))
    n = len(ordered)
    if n == 0:
        raise ValueError("no resampled scores")
    lower = n // 40
    upper = n - lower - 1
    return float(ordered.mean()), float(0.5 * (ordered[upper] - ordered[lower]))


def p_value(null_statistics: np.ndarray, observed: float) -> float:
    """(number of null statistics strictly above `observed` + 1) / (number + 1)."""
    return (int(np.sum(np.asarray(null_statistics) > observed)) + 1) / (len(null_statistics) + 1)


@dataclass(frozen=True)
class Interval:
    """A corpus score, the mean of its bootstrap resamples and the 95% half-width (`mean ± ci`)."""

    score: float
    mean: float
    ci: float
    n_samples: int
    seed: int | None

    @property
    def low(self) -> float:
        """`mean - ci`."""
        return self.mean - self.ci

    @property
    def high(self) -> float:
        """`mean + ci`."""
        return self.mean + self.ci

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python fields plus `low` and `high`."""
        return {**asdict(self), "low": self.low, "high": self.high}


@dataclass(frozen=True)
class PairedResult:
    """Paired bootstrap test of `system` against `baseline` on the same resampled index sets."""

    baseline: Interval
    system: Interval
    difference: float
    p_value: float

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python fields."""
        return {"baseline": self.baseline.as_dict(), "system": self.system.as_dict(), "difference": self.difference,
                "p_value": self.p_value}


def signature_suffix(n_samples: int, seed: int | None) -> str:
    """`bs:N|rs:SEED`, appended to a result's signature as sacrebleu does."""
    return f"bs:{n_samples}|rs:{'none' if seed is None else seed}"


def _full(n: int) -> np.ndarray:
    return np.arange(n)


def confidence_interval(statistic: CorpusStatistic, n: int, *, n_samples: int = DEFAULT_SAMPLES,
                        seed: int | None = DEFAULT_SEED) -> Interval:
    """The corpus score of all `n` sentences with the mean and 95% half-width of its bootstrap resamples."""
    scores = resampled_scores(statistic, resample_indices(n, n_samples, seed))
    mean, ci = estimate_ci(scores)
    return Interval(float(statistic(_full(n))), mean, ci, int(n_samples), seed)


def paired_bootstrap(baseline: CorpusStatistic, system: CorpusStatistic, n: int, *,
                     n_samples: int = DEFAULT_SAMPLES, seed: int | None = DEFAULT_SEED) -> PairedResult:
    """Paired bootstrap test: is `system`'s score different from `baseline`'s beyond resampling noise?

    Both statistics are scored on the same resampled index sets; each gets its interval from them.
    """
    indices = resample_indices(n, n_samples, seed)
    base_scores = resampled_scores(baseline, indices)
    sys_scores = resampled_scores(system, indices)
    base_score, sys_score = float(baseline(_full(n))), float(system(_full(n)))
    diffs = np.abs(sys_scores - base_scores)
    p = p_value(diffs - diffs.mean(), abs(sys_score - base_score))
    intervals = [Interval(score, *estimate_ci(scores), int(n_samples), seed)
                 for score, scores in ((base_score, base_scores), (sys_score, sys_scores))]
    return PairedResult(intervals[0], intervals[1], sys_score - base_score, p)


# ---------------------------------------------------------------------------------------------------
# Corpus statistics


class SentenceMean:
    """Corpus score = mean of per-sentence scores (IMPARA, SentM², SentERRANT, sentence-level CLEME)."""

    def __init__(self, values: Sequence[float]) -> None:
        self.values = np.asarray(values, dtype=float)
        if self.values.ndim != 1 or not len(self.values):
            raise ValueError("`values` must be a non-empty list of sentence scores")

    def __call__(self, indices: np.ndarray) -> float:
        return float(self.values[np.asarray(indices)].mean())

    def batch(self, indices: np.ndarray) -> np.ndarray:
        """Means of every row of `indices`."""
        return self.values[np.asarray(indices)].mean(axis=1)


class Aggregate:
    """Corpus score = `rule(items at indices)` for any pure Python corpus rule over per-sentence items."""

    def __init__(self, items: Sequence[Any], rule: Callable[[list[Any]], float]) -> None:
        self.items = list(items)
        self.rule = rule

    def __call__(self, indices: np.ndarray) -> float:
        return float(self.rule([self.items[i] for i in np.asarray(indices).tolist()]))


Key = Callable[[np.ndarray, np.ndarray], Sequence[np.ndarray]]


class GreedyReferences:
    """Corpus score with a greedy, order-dependent reference choice, vectorised over resamples.

    `counts[i][r]` is the vector of additive statistics (e.g. TP, FP, FN) of sentence i against reference r
    (references may differ in number). Sentence by sentence, the reference with the lexicographically largest
    `key(running, candidates)` is added to the running total (a later reference must be strictly larger: the
    first wins ties); `score(totals)` scores the totals. `key` gets the running totals `(B, 1, k)` and the
    candidates `(B, R, k)` and returns a tuple of `(B, R)` arrays; `score` maps `(B, k)` to `(B,)`.
    """

    def __init__(self, counts: Sequence[Sequence[Sequence[float]]], key: Key,
                 score: Callable[[np.ndarray], np.ndarray]) -> None:
        if not len(counts):
            raise ValueError("`counts` is empty; expected one list of reference counts per sentence")
        width = max(len(refs) for refs in counts)
        for i, refs in enumerate(counts):
            if not len(refs):
                raise ValueError(f"`counts[{i}]` is empty; every sentence needs at least one reference")
        k = len(counts[0][0])
        self.counts = np.zeros((len(counts), width, k))
        self.valid = np.zeros((len(counts), width), dtype=bool)
        for i, refs in enumerate(counts):
            self.counts[i, :len(refs)] = np.asarray(refs, dtype=float).reshape(len(refs), k)
            self.valid[i, :len(refs)] = True
        self.key = key
        self.score = score

    def __call__(self, indices: np.ndarray) -> float:
        return float(self.batch(np.asarray(indices)[None, :])[0])

    def batch(self, indices: np.ndarray) -> np.ndarray:
        """Scores of every row of `indices`, one greedy pass over all rows at once."""
        return np.asarray(self.score(self._greedy(np.asarray(indices))[1]), dtype=float)

    def choose(self) -> tuple[list[int], np.ndarray]:
        """The corpus as given: the reference chosen for every sentence, in order, and the resulting totals.

        This is the metric's own corpus rule (its scalar results come from here), not a copy of it."""
        chosen, totals = self._greedy(np.arange(len(self.counts))[None, :])
        return chosen[0].tolist(), totals[0]

    def _greedy(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.arange(len(indices))
        running = np.zeros((len(indices), self.counts.shape[2]))
        chosen = np.zeros(indices.shape, dtype=int)
        for t in range(indices.shape[1]):
            candidates = self.counts[indices[:, t]]
            if self.counts.shape[1] > 1:
                chosen[:, t] = first_best(self.key(running[:, None, :], candidates), self.valid[indices[:, t]])
            running = running + candidates[rows, chosen[:, t]]
        return chosen, running


def first_best(keys: Sequence[np.ndarray], valid: np.ndarray) -> np.ndarray:
    """Per row, the column with the lexicographically largest key among valid columns; the first wins ties.

    Comparisons follow Python's tuple order (a NaN component is neither larger nor smaller).
    """
    keys = [np.asarray(k) for k in keys]
    rows = np.arange(valid.shape[0])
    best = np.zeros(valid.shape[0], dtype=int)
    for r in range(1, valid.shape[1]):
        better = np.zeros(valid.shape[0], dtype=bool)
        decided = np.zeros(valid.shape[0], dtype=bool)
        for k in keys:
            new, old = k[:, r], k[rows, best]
            differs = ~decided & (new != old)
            better |= differs & (new > old)
            decided |= differs
        best = np.where(better & valid[:, r], r, best)
    return best
