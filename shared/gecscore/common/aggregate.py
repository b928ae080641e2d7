"""System scores from sentence scores: pairwise outcomes, TrueSkill and Expected Wins (gec-metrics semantics), for
the meta-evaluation and the leaderboard's `aggregation="trueskill"`; TrueSkill also from pairwise tables that leave
some pairs uncompared (LLM-S/E's judge, `trueskill_ratings`)."""

from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np

AGGREGATIONS = ("default", "trueskill", "expected_wins")

#: TrueSkill settings of gec-metrics `MetricBase.run_trueskill` (`docs/meta-evaluation.md`, section "System level").
TRUESKILL_SETTINGS = {"mu": 0.0, "sigma": 0.5, "beta": 0.25, "tau": 0.0, "draw_probability": 0.25}
#: trueskill's `DELTA`: the truncation loop stops once a pass changes the difference by no more than this.
DELTA = 0.0001


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
    """Final TrueSkill `mu` of each system, rating every pair (i < j) sentence by sentence, in order, by the
    outcomes of their sentence scores (`pairwise_outcomes`; `trueskill_ratings` rates them)."""
    outcomes = pairwise_outcomes(scores)
    return trueskill_ratings(outcomes.tolist(), outcomes.shape[1])


def trueskill_ratings(tables: Sequence[Sequence[Sequence[int | None]]], systems: int) -> list[float]:
    """Final TrueSkill `mu` of each of `systems` systems from per-sentence pairwise tables (`tables[s][i][j]`: +1
    system i wins, -1 it loses, 0 a draw, None not compared), as gec-metrics' `MetricBase.run_trueskill`: every
    sentence in order, every pair i < j in system order, a None pair skipped (LLM-S/E's corrections the judge did
    not see); a system never compared keeps the initial `mu` 0.

    Same settings, order and outcomes as gec-metrics, but with a private `trueskill.TrueSkill` environment: the
    package's global environment is never touched. Each match is `TrueSkill.rate` of two one-player teams,
    computed by `rate_1vs1` bit for bit (a SEEDA table rates some 26,000 matches).
    """
    import trueskill

    if systems < 2:
        raise ValueError(f"need at least two systems to compare, got {systems}")
    for s, table in enumerate(tables):
        if len(table) != systems or any(len(row) != systems for row in table):
            raise ValueError(f"pairwise table {s} is not {systems} x {systems} (one row and column per system)")
    env = trueskill.TrueSkill(**TRUESKILL_SETTINGS)
    first = env.create_rating()
    ratings = [(first.pi, first.tau)] * systems
    margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    for s, table in enumerate(tables):
        for i, j in itertools.combinations(range(systems), 2):
            outcome = table[i][j]
            if outcome is None:  # not compared: gec-metrics' `continue`
                continue
            if outcome not in (-1, 0, 1):
                raise ValueError(f"pairwise table {s}, systems {i} and {j}: outcome {outcome!r} is not 1, -1, 0 "
                                 "or None")
            if outcome < 0:  # `rate` sorts the teams by rank: the winner comes first
                ratings[j], ratings[i] = rate_1vs1(env, ratings[j], ratings[i], False, margin)
            else:
                ratings[i], ratings[j] = rate_1vs1(env, ratings[i], ratings[j], outcome == 0, margin)
    return [float(_mean(pi, tau)) for pi, tau in ratings]


Precision = tuple[float, float]  # a Gaussian as the trueskill package keeps it: (precision pi, pi * mean)


def _mean(pi: float, tau: float) -> float:
    """`trueskill.Gaussian.mu`."""
    return pi and tau / pi


def _div_mean(pi: float, tau: float) -> tuple[float, float]:
    """(mean, 1 / precision) of a message quotient, as `trueskill.factorgraph.SumFactor.update` adds them up."""
    return (pi and tau / pi), 1 / float(pi)


def rate_1vs1(env, first: Precision, second: Precision, draw: bool, margin: float) -> tuple[Precision, Precision]:
    """`env.rate([(first,), (second,)], ranks=(0, 0) if draw else (0, 1))` of trueskill 0.4.5, each rating as
    `(pi, tau)`: the same message schedule over its factor graph (prior, performance, team sum, difference,
    truncation) and the same float operations in the same order, with plain floats in place of the graph's
    objects, so the ratings are identical (`tests/test_meta_eval.py` holds them to the package's own `rate`).
    The v/w functions are the environment's own, so their errors (FloatingPointError) are the package's too."""
    beta2, dynamic2 = env.beta ** 2, env.tau ** 2
    v_func, w_func = (env.v_draw, env.w_draw) if draw else (env.v_win, env.w_win)

    def down(rating: Precision) -> tuple[Precision, Precision, Precision]:
        """Prior, performance and team-performance values of one player (the graph's downward pass)."""
        pi, tau = rating
        sigma = math.sqrt(1 / pi) if pi else math.inf
        prior_sigma = math.sqrt(sigma ** 2 + dynamic2)
        prior_pi = prior_sigma ** -2
        prior = (prior_pi, prior_pi * _mean(pi, tau))
        a = 1. / (1. + beta2 * prior[0])
        perf = (a * prior[0], a * prior[1])
        mean, inverse = _div_mean(*perf)
        team_pi = 1. / inverse
        return prior, perf, (team_pi, team_pi * mean)

    prior1, perf1, team1 = down(first)
    prior2, perf2, team2 = down(second)
    mean1, inverse1 = _div_mean(*team1)
    mean2, inverse2 = _div_mean(*team2)
    sum_pi = 1. / (inverse1 + inverse2)
    sum_msg = (sum_pi, sum_pi * (mean1 - mean2))  # difference factor -> difference variable
    diff, old_sum, trunc_msg = (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)
    for _ in range(10):
        diff = ((diff[0] - old_sum[0]) + sum_msg[0], (diff[1] - old_sum[1]) + sum_msg[1])
        old_sum = sum_msg
        cavity = (diff[0] - trunc_msg[0], diff[1] - trunc_msg[1])
        sqrt_pi = math.sqrt(cavity[0])
        args = (cavity[1] / sqrt_pi, margin * sqrt_pi)
        v, w = v_func(*args), w_func(*args)
        denom = 1. - w
        value = (cavity[0] / denom, (cavity[1] + sqrt_pi * v) / denom)
        trunc_msg = ((value[0] + trunc_msg[0]) - diff[0], (value[1] + trunc_msg[1]) - diff[1])
        pi_delta = abs(diff[0] - value[0])
        delta = 0. if pi_delta == math.inf else max(abs(diff[1] - value[1]), math.sqrt(pi_delta))
        diff = value
        if delta <= DELTA:
            break
    # difference -> first team, then -> second team (which already sees the first team's new message)
    d_mean, d_inverse = _div_mean(diff[0] - sum_msg[0], diff[1] - sum_msg[1])
    up_pi = 1. / (d_inverse + inverse2)
    up1 = (up_pi, up_pi * (d_mean + mean2))
    team1_new = (team1[0] + up1[0], team1[1] + up1[1])
    c_mean, c_inverse = _div_mean(team1_new[0] - up1[0], team1_new[1] - up1[1])
    up_pi = 1. / (c_inverse + d_inverse)
    team2_new = (team2[0] + up_pi, team2[1] + up_pi * (c_mean - d_mean))

    def up(prior: Precision, perf: Precision, team: Precision, team_new: Precision) -> Precision:
        """Team performance -> performance -> rating of one player, then the `Rating` the package returns."""
        mean, inverse = _div_mean(team_new[0] - team[0], team_new[1] - team[1])
        pi = 1. / inverse
        perf_new = (perf[0] + pi, perf[1] + pi * mean)
        msg = (perf_new[0] - perf[0], perf_new[1] - perf[1])
        a = 1. / (1. + beta2 * msg[0])
        rating = (prior[0] + a * msg[0], prior[1] + a * msg[1])
        sigma = math.sqrt(1 / rating[0]) if rating[0] else math.inf
        out_pi = sigma ** -2
        return out_pi, out_pi * _mean(*rating)

    return up(prior1, perf1, team1, team1_new), up(prior2, perf2, team2, team2_new)


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
