"""Agreement with humans broken down by system pair (UOT-ERRANT, Goto et al., Figure 6).

`pair_agreement` is the paper's analysis: SEEDA's sentence-level pairwise agreement (`correlate.sentence_agreement`,
same pairs and tie rules) counted separately for every pair of systems. `system_pair_agreement` asks the same
of the system scores: does the metric order each pair of systems as the human scores do? `rank_pair_agreement` is
gec-metrics' `pairwise_analysis`: the same sentence-level agreement counted per pair of human ranks (rank 1 against
rank 2, 1 against 3, ...), which shows whether a metric separates clear cases better than close ones.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from gecscore.meta_eval.correlate import human_pairs
from gecscore.meta_eval.data import RankingItem


@dataclass(frozen=True)
class PairAgreementMatrix:
    """Sentence-level agreements and non-tied human pairs of each system pair (symmetric, zero diagonal)."""

    systems: tuple[str, ...]
    agree: np.ndarray
    total: np.ndarray

    @property
    def rates(self) -> np.ndarray:
        """Agreement rate of each pair; NaN where the humans never compared the two (and on the diagonal)."""
        return np.where(self.total > 0, self.agree / np.maximum(self.total, 1), np.nan)

    @property
    def accuracy(self) -> float:
        """Agreement over every pair: `sentence_agreement`'s accuracy."""
        total = int(self.total.sum()) // 2
        if total == 0:
            raise ValueError(f"no non-tied human pairs among systems {list(self.systems)}")
        return int(self.agree.sum()) // 2 / total


def pair_agreement(items: Sequence[RankingItem], sentence_scores: Mapping[str, Sequence[float]],
                   systems: Sequence[str]) -> PairAgreementMatrix:
    """Per system pair, how often the sentence scores order it as the annotator did (`sentence_agreement` rules)."""
    index = {s: i for i, s in enumerate(systems)}
    agree = np.zeros((len(systems), len(systems)), dtype=np.int64)
    total = np.zeros_like(agree)
    for sentence, a, b, human in human_pairs(items, systems):
        metric = 1 if sentence_scores[a][sentence] > sentence_scores[b][sentence] else -1
        i, j = index[a], index[b]
        total[i, j] += 1
        total[j, i] += 1
        if metric == human:
            agree[i, j] += 1
            agree[j, i] += 1
    return PairAgreementMatrix(tuple(systems), agree, total)


@dataclass(frozen=True)
class SystemPairAgreement:
    """System-level order of each pair: +1 the metric orders it as the humans, -1 not, 0 humans tied (skipped)."""

    systems: tuple[str, ...]
    matrix: np.ndarray
    agree: int
    total: int

    @property
    def accuracy(self) -> float:
        """Share of the pairs the humans separate that the metric orders the same way."""
        return self.agree / self.total


def system_pair_agreement(metric: Mapping[str, float], human: Mapping[str, float],
                          systems: Sequence[str]) -> SystemPairAgreement:
    """Each pair's order under the metric against the humans' (human ties skipped, metric ties disagree)."""
    missing = [s for s in systems if s not in metric or s not in human]
    if missing:
        raise ValueError(f"no score for systems {missing}")
    matrix = np.zeros((len(systems), len(systems)), dtype=np.int8)
    agree = total = 0
    for (i, a), (j, b) in itertools.combinations(enumerate(systems), 2):
        human_order = np.sign(human[a] - human[b])
        if human_order == 0:
            continue
        same = int(np.sign(metric[a] - metric[b]) == human_order)
        matrix[i, j] = matrix[j, i] = 1 if same else -1
        agree += same
        total += 1
    if total == 0:
        raise ValueError(f"the human scores tie on every pair of {list(systems)}")
    return SystemPairAgreement(tuple(systems), matrix, agree, total)


@dataclass(frozen=True)
class RankPairAgreement:
    """Sentence-level agreements and non-tied human pairs per pair of human ranks `(better, worse)`, in rank order."""

    pairs: tuple[tuple[int, int], ...]
    agree: tuple[int, ...]
    total: tuple[int, ...]

    @property
    def rates(self) -> list[float]:
        """Agreement rate of each rank pair, aligned with `pairs`."""
        return [a / t for a, t in zip(self.agree, self.total)]

    @property
    def accuracy(self) -> float:
        """Agreement over every pair: `sentence_agreement`'s accuracy."""
        return sum(self.agree) / sum(self.total)


def rank_pair_agreement(items: Sequence[RankingItem], sentence_scores: Mapping[str, Sequence[float]],
                        systems: Sequence[str]) -> RankPairAgreement:
    """Per pair of human ranks, how often the sentence scores order the two systems as the annotator did
    (`sentence_agreement`'s pairs and tie rules; gec-metrics' `pairwise_analysis`)."""
    agree: dict[tuple[int, int], int] = {}
    total: dict[tuple[int, int], int] = {}
    for item in items:
        for sentence, a, b, human in human_pairs([item], systems):
            pair = (min(item.ranks[a], item.ranks[b]), max(item.ranks[a], item.ranks[b]))
            metric = 1 if sentence_scores[a][sentence] > sentence_scores[b][sentence] else -1
            total[pair] = total.get(pair, 0) + 1
            agree[pair] = agree.get(pair, 0) + (metric == human)
    if not total:
        raise ValueError(f"no non-tied human pairs among systems {list(systems)}")
    pairs = tuple(sorted(total))
    return RankPairAgreement(pairs, tuple(agree[p] for p in pairs), tuple(total[p] for p in pairs))
