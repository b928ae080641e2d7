"""Bootstrap confidence intervals and paired significance tests over per-sentence sufficient statistics.

The procedures are sacrebleu's (`sacrebleu/significance.py`), seed 12345 by default:

* bootstrap: `n_samples` (1000) resamples of the sentence indices drawn with replacement by
  `numpy.random.default_rng(seed).choice`; sacrebleu's interval is the mean of the resampled corpus scores ± half
  the width between the 2.5% and 97.5% order statistics (`Interval.mean`, `Interval.ci`). The paired test scores
  both systems on the same index sets, centres the absolute score differences on their mean and counts those that
  exceed the observed absolute difference.
* approximate randomisation: `n_samples` (10000) trials; one `default_rng(seed).integers(2, size=(n_samples, n),
  dtype=bool)` mask says, per trial and sentence, whether the first pseudo-system takes the baseline's sentence
  (and the second the system's) or the other way round; the test counts the trials whose absolute score
  difference of the two pseudo-systems exceeds the observed one (no centring).

Both give p = (count + 1) / (n_samples + 1), with a strict `>`.

The interval shown and returned (`Interval.low`, `Interval.high`) is the *percentile* bootstrap interval: the 2.5th
and 97.5th percentiles of the same resampled corpus scores (`numpy.percentile`, linear interpolation). Unlike
mean ± half-width, it never leaves the range the resampled scores keep (a near-perfect system's F0.5 interval ends
at or below 1); sacrebleu's `mean` and `ci` stay in the result for parity.

A *corpus statistic* is any callable `statistic(indices) -> float` that re-applies a metric's corpus rule (mean of
sentence scores, greedy best reference, ...) to the sentences at `indices` (repeats allowed) from statistics cached
by one run of the metric, so no model runs again. A statistic may also offer `batch(indices_2d) -> scores` that
scores every resample at once; `SentenceMean` and `GreedyReferences` do, with numpy. Approximate randomisation
scores corpora that mix two systems sentence by sentence, so it needs statistics that `join`: the statistics of
this module join another of their kind into one over both systems' sentences (the first's, then the second's),
and a mixed corpus is the index row `arange(n) + n * take_second`.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass
from typing import Any, Callable, Literal, Protocol, Sequence, cast

import numpy as np

DEFAULT_SAMPLES = 1000
DEFAULT_AR_SAMPLES = 10000
DEFAULT_SEED = 12345
# Approximate randomisation scores its trials in chunks of about this many (trial, sentence) indices.
_CHUNK_INDICES = 1 << 22


class CorpusStatistic(Protocol):
    """A metric's corpus score of the sentences at `indices` (a 1-D integer array, repeats allowed)."""

    def __call__(self, indices: np.ndarray) -> float: ...


class JoinableStatistic(CorpusStatistic, Protocol):
    """A corpus statistic of `len(self)` sentences that joins another of its metric (approximate randomisation)."""

    def __len__(self) -> int: ...

    def join(self, other: Any) -> JoinableStatistic: ...


def _check_sizes(n: int, n_samples: int) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"`n` (the number of sentences) must be an integer >= 1, got {n!r}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
        raise ValueError(f"`n_samples` must be an integer >= 1, got {n_samples!r}")


def resample_indices(n: int, n_samples: int = DEFAULT_SAMPLES, seed: int | None = DEFAULT_SEED) -> np.ndarray:
    """`(n_samples, n)` sentence indices drawn with replacement, as sacrebleu draws them (None: unseeded)."""
    _check_sizes(n, n_samples)
    return np.random.default_rng(seed).choice(n, size=(n_samples, n), replace=True)


def swap_masks(n: int, n_samples: int = DEFAULT_AR_SAMPLES, seed: int | None = DEFAULT_SEED) -> np.ndarray:
    """`(n_samples, n)` booleans of approximate randomisation, as sacrebleu draws them (None: unseeded).

    True: the first pseudo-system takes the baseline's sentence and the second the system's; False: the reverse."""
    _check_sizes(n, n_samples)
    return np.random.default_rng(seed).integers(2, size=(n_samples, n), dtype=bool)


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


#: How `Interval.low` and `Interval.high` are computed, as the outputs name it.
INTERVAL_METHOD = "percentile"
#: The percentiles of the resampled corpus scores that bound the 95% interval.
PERCENTILES = (2.5, 97.5)


def percentile_interval(scores: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the resampled scores: a 95% interval inside their range."""
    values = np.asarray(scores, dtype=float)
    if not len(values):
        raise ValueError("no resampled scores")
    low, high = np.percentile(values, PERCENTILES)
    return float(low), float(high)


@dataclass(frozen=True)
class Interval:
    """A corpus score, its 95% percentile-bootstrap interval `[low, high]` and sacrebleu's `mean ± ci`.

    `low`/`high` are what users see: percentiles of the resampled scores, so they respect the metric's range.
    `mean`/`ci` are sacrebleu's `estimate_ci` of the same resamples, kept so that our numbers can be checked
    against sacrebleu's; `mean ± ci` can leave the range and is not printed as the interval."""

    score: float
    low: float
    high: float
    mean: float
    ci: float
    n_samples: int
    seed: int | None
    method: str = INTERVAL_METHOD

    @classmethod
    def of(cls, score: float, scores: Sequence[float] | np.ndarray, n_samples: int, seed: int | None) -> Interval:
        """The interval of `score` from its resampled corpus `scores`."""
        return cls(float(score), *percentile_interval(scores), *estimate_ci(scores), int(n_samples), seed)

    def as_dict(self) -> dict[str, Any]:
        """The interval as JSON: `low` and `high` are its only bounds and `method` says how they were made;
        sacrebleu's mean and half-width are named for what they are (`sacrebleu_mean`, `sacrebleu_half_width`),
        so that nobody reads `mean ± ci`, which can leave [0, 1], as the interval."""
        return {"score": self.score, "low": self.low, "high": self.high, "method": self.method,
                "sacrebleu_mean": self.mean, "sacrebleu_half_width": self.ci, "n_samples": self.n_samples,
                "seed": self.seed}


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


@dataclass(frozen=True)
class ARResult:
    """Paired approximate randomisation test of `system` against `baseline` (`difference` = system − baseline)."""

    baseline_score: float
    system_score: float
    difference: float
    p_value: float
    n_samples: int
    seed: int | None

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python fields."""
        return asdict(self)


def signature_suffix(n_samples: int, seed: int | None, test: Literal["bs", "ar"] = "bs") -> str:
    """`bs:N|rs:SEED` (bootstrap) or `ar:N|rs:SEED` (approximate randomisation), as sacrebleu signs them."""
    if test not in ("bs", "ar"):
        raise ValueError(f"`test` must be 'bs' or 'ar', got {test!r}")
    return f"{test}:{n_samples}|rs:{'none' if seed is None else seed}"


def _full(n: int) -> np.ndarray:
    return np.arange(n)


def confidence_interval(statistic: CorpusStatistic, n: int, *, n_samples: int = DEFAULT_SAMPLES,
                        seed: int | None = DEFAULT_SEED) -> Interval:
    """The corpus score of all `n` sentences with the 95% interval of its bootstrap resamples (`Interval`)."""
    scores = resampled_scores(statistic, resample_indices(n, n_samples, seed))
    return Interval.of(statistic(_full(n)), scores, n_samples, seed)


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
    intervals = [Interval.of(score, scores, n_samples, seed)
                 for score, scores in ((base_score, base_scores), (sys_score, sys_scores))]
    return PairedResult(intervals[0], intervals[1], sys_score - base_score, p)


def joined(first: CorpusStatistic, second: CorpusStatistic) -> JoinableStatistic:
    """One statistic over `first`'s sentences followed by `second`'s, under `first`'s corpus rule."""
    join: Callable[[Any], JoinableStatistic] | None = getattr(first, "join", None)
    if join is None:
        raise TypeError(f"a {type(first).__name__} cannot be joined with another corpus statistic (approximate "
                        "randomisation needs one with a `join` method: SentenceMean, Aggregate, GreedyReferences)")
    return join(second)


def paired_approximate_randomization(baseline: CorpusStatistic, system: CorpusStatistic, n: int, *,
                                     n_samples: int = DEFAULT_AR_SAMPLES,
                                     seed: int | None = DEFAULT_SEED) -> ARResult:
    """Paired approximate randomisation test: is `system`'s score different from `baseline`'s beyond chance?

    Every trial swaps the two systems' sentences under a random mask and scores both pseudo-systems; the p-value
    counts the trials whose absolute difference exceeds the observed one.
    """
    _check_sizes(n, n_samples)
    pair = joined(baseline, system)
    for name, statistic in (("baseline", baseline), ("system", system)):
        size = len(cast(JoinableStatistic, statistic))
        if size != n:
            raise ValueError(f"the {name} statistic covers {size} sentences, not n = {n}")
    rows = np.arange(n)
    masks = swap_masks(n, n_samples, seed)
    step = max(1, _CHUNK_INDICES // n)
    null = np.concatenate([
        np.abs(resampled_scores(pair, rows + n * ~chunk) - resampled_scores(pair, rows + n * chunk))
        for chunk in (masks[start:start + step] for start in range(0, n_samples, step))
    ])
    base_score, sys_score = float(baseline(_full(n))), float(system(_full(n)))
    return ARResult(base_score, sys_score, sys_score - base_score, p_value(null, abs(sys_score - base_score)),
                    int(n_samples), seed)


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

    def __len__(self) -> int:
        return len(self.values)

    def join(self, other: SentenceMean) -> SentenceMean:
        """This statistic's sentences followed by `other`'s."""
        _check_joinable(self, other)
        return SentenceMean(np.concatenate([self.values, other.values]))

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

    def __len__(self) -> int:
        return len(self.items)

    def join(self, other: Aggregate) -> Aggregate:
        """This statistic's items followed by `other`'s, under this statistic's rule."""
        _check_joinable(self, other, self.rule, other.rule)
        return Aggregate(self.items + other.items, self.rule)


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

    def __len__(self) -> int:
        return len(self.counts)

    def join(self, other: GreedyReferences) -> GreedyReferences:
        """This statistic's sentences followed by `other`'s, under this statistic's rule (padding the fewer
        references)."""
        _check_joinable(self, other, self.key, other.key)
        _check_joinable(self, other, self.score, other.score)
        if other.counts.shape[2] != self.counts.shape[2]:
            raise TypeError(f"cannot join GreedyReferences of {self.counts.shape[2]} and {other.counts.shape[2]} "
                            "counts per reference: they come from different metrics")
        width = max(self.counts.shape[1], other.counts.shape[1])
        out = copy.copy(self)
        out.counts = np.concatenate([np.pad(s.counts, ((0, 0), (0, width - s.counts.shape[1]), (0, 0)))
                                     for s in (self, other)])
        out.valid = np.concatenate([np.pad(s.valid, ((0, 0), (0, width - s.valid.shape[1]))) for s in (self, other)])
        return out

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
        # A step whose sentences' valid candidates are all equal has equal keys, so the first is chosen: no key.
        same = np.all((self.counts == self.counts[:, :1]) | ~self.valid[..., None], axis=(1, 2))
        decide = (~same[indices].all(axis=0)).tolist() if self.counts.shape[1] > 1 else [False] * indices.shape[1]
        for t in range(indices.shape[1]):
            candidates = self.counts[indices[:, t]]
            if decide[t]:
                chosen[:, t] = first_best(self.key(running[:, None, :], candidates), self.valid[indices[:, t]])
            running = running + candidates[rows, chosen[:, t]]
        return chosen, running


def _check_joinable(first: Any, second: Any, *rules: Callable[..., Any]) -> None:
    """TypeError unless `second` is of `first`'s class and the two rules (if given) are the same Python function.

    Rules built by the same factory (`errant_greedy`, `m2_greedy`, ...) share their code whatever their parameters
    (β, α), which the caller matches (the signatures of the two runs)."""
    if type(second) is not type(first):
        raise TypeError(f"cannot join a {type(first).__name__} with a {type(second).__name__}")
    codes = [getattr(rule, "__code__", None) for rule in rules]
    if None not in codes and len(set(codes)) > 1:
        raise TypeError(f"cannot join {type(first).__name__}s of different corpus rules "
                        f"({', '.join(rule.__qualname__ for rule in rules)})")


def first_best_of(keys: Sequence[Any]) -> int:
    """Index of the largest of `keys` (tuples in Python's order); a later key must be strictly larger to win, so the
    first wins ties. The scalar form of `first_best`, for one sentence's references."""
    best = 0
    for r, key in enumerate(keys):
        if key > keys[best]:
            best = r
    return best


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
