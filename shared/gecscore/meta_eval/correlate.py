"""Agreement with humans: system-level Pearson/Spearman, sentence-level pairwise accuracy/Kendall, windows."""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Iterator, Mapping, Sequence

from gecscore.meta_eval.data import RankingItem


@dataclass(frozen=True)
class Correlation:
    """Pearson r and Spearman rho of metric against human system scores (NaN when undefined)."""

    pearson: float
    spearman: float


@dataclass(frozen=True)
class PairwiseAgreement:
    """Sentence-level agreement over the non-tied human pairs (SEEDA convention)."""

    accuracy: float
    kendall: float
    agree: int
    disagree: int
    total: int


@dataclass(frozen=True)
class WindowCorrelation:
    """Correlation on systems ranked `start`..`end` (0-based, inclusive) by the human score."""

    start: int
    end: int
    systems: tuple[str, ...]
    pearson: float
    spearman: float


def system_correlation(metric_scores: Sequence[float], human_scores: Sequence[float]) -> Correlation:
    """SciPy `pearsonr` and `spearmanr` of two aligned score lists."""
    from scipy.stats import pearsonr, spearmanr

    if len(metric_scores) != len(human_scores):
        raise ValueError(f"{len(metric_scores)} metric scores but {len(human_scores)} human scores")
    if len(metric_scores) < 2:
        raise ValueError("need at least two systems to correlate")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: SciPy warns and returns NaN, which we report
        pearson = float(pearsonr(metric_scores, human_scores)[0])
        spearman = float(spearmanr(metric_scores, human_scores)[0])
    return Correlation(pearson, spearman)


def correlate_systems(metric: Mapping[str, float], human: Mapping[str, float], systems: Sequence[str]) -> Correlation:
    """`system_correlation` over `systems` taken from two name → score mappings."""
    missing = [s for s in systems if s not in metric or s not in human]
    if missing:
        raise ValueError(f"no score for systems {missing}")
    return system_correlation([metric[s] for s in systems], [human[s] for s in systems])


def human_pairs(items: Sequence[RankingItem], systems: Sequence[str]) -> Iterator[tuple[int, str, str, int]]:
    """(sentence, system_i, system_j, +1 if i ranked better else -1) for every item and pair i < j in `systems`
    order with both systems ranked and their ranks different."""
    for item in items:
        for a, b in itertools.combinations(systems, 2):
            rank_a, rank_b = item.ranks.get(a), item.ranks.get(b)
            if rank_a is None or rank_b is None or rank_a == rank_b:
                continue
            yield item.sentence, a, b, (1 if rank_a < rank_b else -1)


def sentence_agreement(items: Sequence[RankingItem], sentence_scores: Mapping[str, Sequence[float]],
                       systems: Sequence[str]) -> PairwiseAgreement:
    """Pairwise accuracy and Kendall tau; a metric tie counts as 'the second system is better' (SEEDA)."""
    agree = disagree = 0
    for sentence, a, b, human in human_pairs(items, systems):
        metric = 1 if sentence_scores[a][sentence] > sentence_scores[b][sentence] else -1
        if metric == human:
            agree += 1
        else:
            disagree += 1
    total = agree + disagree
    if total == 0:
        raise ValueError(f"no non-tied human pairs among systems {list(systems)}")
    return PairwiseAgreement(agree / total, (agree - disagree) / total, agree, disagree, total)


def window_correlations(metric: Mapping[str, float], human: Mapping[str, float], systems: Sequence[str],
                        window: int = 4) -> list[WindowCorrelation]:
    """Correlations on every run of `window` consecutive systems when sorted by human score (best first)."""
    if not 2 <= window <= len(systems):
        raise ValueError(f"window must be between 2 and {len(systems)}, got {window}")
    ordered = sorted(systems, key=lambda s: human[s], reverse=True)
    out = []
    for start in range(len(ordered) - window + 1):
        names = tuple(ordered[start:start + window])
        corr = system_correlation([metric[s] for s in names], [human[s] for s in names])
        out.append(WindowCorrelation(start, start + window - 1, names, corr.pearson, corr.spearman))
    return out


def finite_or_none(value: float) -> float | None:
    """JSON-friendly float: NaN becomes None."""
    return None if math.isnan(value) else value
