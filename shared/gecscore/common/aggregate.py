"""System scores from sentence scores: pairwise outcomes, TrueSkill and Expected Wins (gec-metrics semantics), for
the meta-evaluation and the leaderboard's `aggregation="trueskill"`."""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

AGGREGATIONS = ("default", "trueskill", "expected_wins")

#: TrueSkill settings of gec-metrics `MetricBase.run_trueskill` (`docs/meta-evaluation.md`, section "System level").
TRUESKILL_SETTINGS = {"mu": 0.0, "sigma": 0.5, "beta": 0.25, "tau": 0.0, "draw_probability": 0.25}


def _matrix(scores: Sequence[Sequence[float]]) -> np.ndarray:
    """(num_systems, num_sentences) float matrix, checking the shape."""
    if len(scores) < 2:
        raise ValueError(f"need at least two systems to compare, got {len(scores)}")
    lengths = {len(row) for row in scores}
    if len(lengths) != 1:
        raise ValueError(f"every system needs one score per sentence; got lengths {sorted(lengths)}")
    matrix = np.asarray(scores, dtype=float)
    if np.isnan(matrix).any():
        system, sentence = np.argwhere(np.isnan(matrix))[0]
        raise ValueError(f"scores[{system}][{sentence}] is NaN")
    return matrix


def pairwise_outcomes(scores: Sequence[Sequence[float]]) -> np.ndarray:
    """(num_sentences, num_systems, num_systems) of +1 (row system wins), -1 (loses), 0 (equal scores)."""
    by_sentence = _matrix(scores).T
    row, column = by_sentence[:, :, None], by_sentence[:, None, :]
    return (row > column).astype(np.int8) - (row < column).astype(np.int8)


def trueskill_scores(scores: Sequence[Sequence[float]]) -> list[float]:
    """Final TrueSkill `mu` of each system, rating every pair (i < j) sentence by sentence, in order.

    Same settings, order and win/loss/draw outcomes as gec-metrics, but with a private `trueskill.TrueSkill`
    environment: the package's global environment is never touched.
    """
    import trueskill

    outcomes = pairwise_outcomes(scores)
    env = trueskill.TrueSkill(**TRUESKILL_SETTINGS)
    ratings = [env.create_rating() for _ in range(outcomes.shape[1])]
    ranks_of = {1: (0, 1), -1: (1, 0), 0: (0, 0)}
    for table in outcomes:
        for i, j in itertools.combinations(range(len(ratings)), 2):
            (ratings[i],), (ratings[j],) = env.rate([(ratings[i],), (ratings[j],)], ranks=ranks_of[int(table[i, j])])
    return [float(r.mu) for r in ratings]


def expected_wins(scores: Sequence[Sequence[float]], systems: Sequence[str] | None = None) -> list[float]:
    """Bojar et al. (2011) Expected Wins: mean over j != i of wins(i, j) / (wins(i, j) + wins(j, i)); ties ignored."""
    outcomes = pairwise_outcomes(scores)
    wins = (outcomes == 1).sum(axis=0)
    n = wins.shape[0]
    names = list(systems) if systems is not None else [str(i) for i in range(n)]
    result = []
    for i in range(n):
        total = 0.0
        for j in range(n):
            if i == j:
                continue
            decided = wins[i, j] + wins[j, i]
            if decided == 0:
                raise ValueError(
                    f"Expected Wins is undefined: systems {names[i]!r} and {names[j]!r} tie on every sentence"
                )
            total += wins[i, j] / decided
        result.append(total / (n - 1))
    return result


def aggregate_scores(aggregation: str, sentence_scores: Sequence[Sequence[float]],
              corpus_scores: Sequence[float] | None = None, systems: Sequence[str] | None = None) -> list[float]:
    """System scores by `aggregation`: `default` (each system's corpus score), `trueskill` or `expected_wins`."""
    if aggregation == "default":
        if corpus_scores is None:
            raise ValueError("aggregation 'default' needs the metric's corpus scores")
        return [float(s) for s in corpus_scores]
    if aggregation == "trueskill":
        return trueskill_scores(sentence_scores)
    if aggregation == "expected_wins":
        return expected_wins(sentence_scores, systems)
    raise ValueError(f"unknown aggregation {aggregation!r}; choose from {list(AGGREGATIONS)}")
