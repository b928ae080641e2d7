"""Bootstrap intervals and paired tests (sacrebleu's procedure) and the resamplable corpus rules."""

import numpy as np
import pytest

from gecscore.common.bootstrap import (
    Aggregate, GreedyReferences, SentenceMean, confidence_interval, estimate_ci, first_best, paired_bootstrap,
    resample_indices, resampled_scores, signature_suffix,
)
from gecscore.cleme2.metric import HEUO, ChunkCounts, greedy_choice, heuo_greedy
from gecscore.common.errant_scoring import Counts, FScore, errant_greedy
from gecscore.pt_m2.lattice import M2Counts
from gecscore.pt_m2.lattice import choose_annotator, corpus_m2, m2_greedy, prf


# Scalar oracles of the three greedy corpus rules, written with the scalar per-step comparisons that the library
# keeps for the sentence level; the numpy rules (the only corpus implementations) must agree with them exactly.

def errant_oracle(per_sentence, rule):
    running = Counts()
    for refs in per_sentence:
        running = running + refs[rule.best_reference(refs, offset=running)]
    return rule.prf(running).f


def m2_oracle(per_sentence, beta):
    totals = M2Counts(0, 0, 0)
    for candidates in per_sentence:
        totals = totals + candidates[choose_annotator(candidates, totals, beta)]
    return prf(totals, beta).f


def heuo_oracle(per_sentence, scorer):
    _, total = greedy_choice(per_sentence, lambda t, c: (scorer.indicators(t + c)["com"], c.tp, -c.fp, -c.fn, c.tn))
    return scorer.indicators(total)["com"]


def sacrebleu_paired(stats_a, stats_b, score, n_samples, seed):
    """sacrebleu 2.x's paired bootstrap written out sentence by sentence: resample, score, centre, count."""
    rng = np.random.default_rng(seed)
    idxs = rng.choice(len(stats_a), size=(n_samples, len(stats_a)), replace=True)
    a = np.array([score(stats_a[row].sum(0)) for row in idxs])
    b = np.array([score(stats_b[row].sum(0)) for row in idxs])
    observed = abs(score(stats_b.sum(0)) - score(stats_a.sum(0)))
    diffs = np.abs(b - a)
    centred = diffs - diffs.mean()
    p = (np.sum(centred > observed) + 1) / (n_samples + 1)
    lo = n_samples // 40
    ordered = np.sort(b)
    return p, b.mean(), 0.5 * (ordered[n_samples - lo - 1] - ordered[lo])


class Summed:
    """An additive statistic (accuracy = Σ correct / Σ total), scored one resample at a time."""

    def __init__(self, stats):
        self.stats = stats

    def __call__(self, indices):
        total = self.stats[indices].sum(0)
        return total[0] / total[1]


def test_paired_bootstrap_is_sacrebleus():
    rng = np.random.default_rng(0)
    totals = rng.integers(5, 20, 60)
    a = np.stack([rng.binomial(totals, 0.5), totals], axis=1).astype(float)
    b = np.stack([rng.binomial(totals, 0.6), totals], axis=1).astype(float)
    result = paired_bootstrap(Summed(a), Summed(b), 60, n_samples=300, seed=7)
    p, mean, ci = sacrebleu_paired(a, b, lambda t: t[0] / t[1], 300, 7)
    assert result.p_value == p
    assert result.system.mean == pytest.approx(mean, abs=1e-12) and result.system.ci == pytest.approx(ci, abs=1e-12)
    assert result.difference == pytest.approx(b[:, 0].sum() / b[:, 1].sum() - a[:, 0].sum() / a[:, 1].sum())
    # what is shown is the percentile interval of the same resamples, not sacrebleu's mean ± ci
    indices = np.random.default_rng(7).choice(60, size=(300, 60), replace=True)
    resampled = [b[row, 0].sum() / b[row, 1].sum() for row in indices]
    shown = result.as_dict()["system"]
    assert (shown["low"], shown["high"], shown["method"]) == (*np.percentile(resampled, [2.5, 97.5]), "percentile")


def test_paired_bootstrap_separates_real_differences_from_noise():
    rng = np.random.default_rng(1)
    base = rng.random(400)
    better = SentenceMean(np.clip(base + 0.1 + rng.normal(0, 0.05, 400), 0, 1))
    noisy = SentenceMean(base + rng.normal(0, 0.05, 400))
    assert paired_bootstrap(SentenceMean(base), better, 400).p_value < 0.01
    assert paired_bootstrap(SentenceMean(base), noisy, 400).p_value > 0.05
    # sacrebleu's count is strict: a system against itself gets the smallest p, (0 + 1) / (n + 1).
    assert paired_bootstrap(SentenceMean(base), SentenceMean(base), 400, n_samples=99).p_value == 0.01


def test_interval_is_seeded_and_covers_the_mean():
    rng = np.random.default_rng(2)
    values = rng.random(500)
    ci = confidence_interval(SentenceMean(values), 500)
    assert ci == confidence_interval(SentenceMean(values), 500)
    assert ci != confidence_interval(SentenceMean(values), 500, seed=1)
    assert (ci.score, ci.n_samples, ci.seed) == (values.mean(), 1000, 12345)
    # the bootstrap half-width of a mean is about 1.96 standard errors
    assert ci.ci == pytest.approx(1.96 * values.std() / np.sqrt(500), rel=0.15)
    assert ci.low < ci.score < ci.high
    assert signature_suffix(1000, 12345) == "bs:1000|rs:12345"
    np.testing.assert_array_equal(resample_indices(5, 3, 4), np.random.default_rng(4).choice(5, size=(3, 5)))


def test_percentile_interval_follows_the_resamples_without_clipping():
    # an unbounded statistic (UOT-ERRANT's published scores can leave [0, 1]): the interval is not clipped
    values = np.array([0.5, 1.5, 2.0, 3.0])
    ci = confidence_interval(SentenceMean(values), 4, n_samples=200, seed=3)
    means = values[np.random.default_rng(3).choice(4, size=(200, 4), replace=True)].mean(axis=1)
    assert (ci.low, ci.high) == tuple(np.percentile(means, [2.5, 97.5]))
    assert ci.high > 1 and ci.method == "percentile"
    assert (ci.mean, ci.ci) == estimate_ci(means)  # sacrebleu's numbers stay available


def test_estimate_ci_uses_sacrebleus_order_statistics():
    mean, ci = estimate_ci(np.arange(80, dtype=float)[::-1])
    assert mean == 39.5
    assert ci == 0.5 * (77 - 2)  # n // 40 = 2 from each end


def test_bad_arguments():
    with pytest.raises(ValueError, match="`n` .* >= 1"):
        resample_indices(0)
    with pytest.raises(ValueError, match="`n_samples`"):
        resample_indices(3, 0)
    with pytest.raises(ValueError, match="2-D"):
        resampled_scores(SentenceMean([1.0]), np.zeros(3, int))
    with pytest.raises(ValueError, match="non-empty"):
        SentenceMean([])
    with pytest.raises(ValueError, match=r"`counts\[1\]` is empty"):
        GreedyReferences([[(1, 0, 0)], []], lambda r, c: (c[..., 0],), lambda t: t[:, 0])


def random_counts(seed, n=40, max_refs=4, k=3, high=3):
    """Small integer counts (so that keys tie often) with 1..max_refs references per sentence."""
    rng = np.random.default_rng(seed)
    return [[tuple(float(x) for x in rng.integers(0, high, k)) for _ in range(rng.integers(1, max_refs + 1))]
            for _ in range(n)]


@pytest.mark.parametrize("zero_division", ["errant", "denominator"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_errant_greedy_equals_the_scalar_oracle(seed, zero_division):
    rule = FScore(0.5, zero_division)
    per_sentence = [[Counts(*c) for c in refs] for refs in random_counts(seed)]
    fast = errant_greedy(per_sentence, rule)
    slow = Aggregate(per_sentence, lambda xs: errant_oracle(xs, rule))
    indices = resample_indices(len(per_sentence), 50, seed)
    np.testing.assert_array_equal(resampled_scores(fast, indices), resampled_scores(slow, indices))
    assert fast(np.arange(len(per_sentence))) == slow(np.arange(len(per_sentence)))


@pytest.mark.parametrize("seed", [0, 1])
def test_m2_greedy_equals_the_scalar_oracle(seed):
    per_sentence = [[M2Counts(c, c + p, c + g) for c, p, g in refs] for refs in random_counts(seed)]
    fast = m2_greedy(per_sentence, 0.5)
    slow = Aggregate(per_sentence, lambda xs: m2_oracle(xs, 0.5))
    indices = resample_indices(len(per_sentence), 50, seed)
    np.testing.assert_array_equal(resampled_scores(fast, indices), resampled_scores(slow, indices))
    assert corpus_m2(per_sentence, 0.5).f == m2_oracle(per_sentence, 0.5)


@pytest.mark.parametrize("seed", [0, 1])
def test_heuo_greedy_equals_the_scalar_oracle(seed):
    scorer = HEUO()
    per_sentence = [[ChunkCounts(tp, fp_ne + fp_un, fp_ne, fp_un, fn, tn) for tp, fp_ne, fp_un, fn, tn in refs]
                    for refs in random_counts(seed, k=5)]
    fast = heuo_greedy(per_sentence, scorer.alpha)
    slow = Aggregate(per_sentence, lambda xs: heuo_oracle(xs, scorer))
    indices = resample_indices(len(per_sentence), 50, seed)
    np.testing.assert_array_equal(resampled_scores(fast, indices), resampled_scores(slow, indices))
    assert scorer.corpus(per_sentence).score == heuo_oracle(per_sentence, scorer)


def test_greedy_asks_the_key_only_where_the_candidates_differ():
    """A sentence whose valid candidates are all equal takes the first without its key (equal keys: the first
    wins); the choice and the totals are the scalar oracle's."""
    per_sentence = ([[M2Counts(1, 2, 3)] * 2] * 5 + [[M2Counts(0, 1, 2), M2Counts(1, 1, 1)]]
                    + [[M2Counts(0, 0, 0)] * 3] * 4 + [[M2Counts(2, 2, 2)]])
    greedy, calls = m2_greedy(per_sentence, 0.5), []
    key = greedy.key
    greedy.key = lambda running, candidates: calls.append(len(candidates)) or key(running, candidates)
    chosen, totals = greedy.choose()
    assert calls == [1] and chosen == [0] * 5 + [1] + [0] * 5
    assert greedy(np.arange(len(per_sentence))) == m2_oracle(per_sentence, 0.5) == corpus_m2(per_sentence, 0.5).f
    assert list(totals) == [8, 13, 18]
    calls.clear()
    assert greedy.batch(np.array([[5, 0], [0, 1]])).shape == (2,) and calls == [2]  # a step with one that differs


def test_first_best_keeps_the_first_of_equal_keys_and_skips_padding():
    keys = (np.array([[1.0, 1.0, 2.0], [0.5, 0.7, 0.7], [np.nan, 1.0, 1.0]]),
            np.array([[0.0, 1.0, 9.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    valid = np.array([[True, True, False], [True, True, True], [True, True, True]])
    np.testing.assert_array_equal(first_best(keys, valid), [1, 1, 0])  # NaN is never beaten, as in Python


@pytest.mark.parametrize(("metric", "options"), [
    ("errant", {}), ("pt_m2", {"variant": "m2"}), ("pt_m2", {"variant": "errant"}), ("pt_m2", {"variant": "sentm2"}),
    ("cleme2", {"weighting": "none"}), ("cleme2", {"weighting": "length", "variant": "cleme"}),
])
def test_statistics_of_real_runs_give_the_metric_score(metric, options, shared_data, nlp):
    from gecscore.common.m2io import read_m2
    from gecscore.registry import run as score

    data = shared_data / "CoNLL-2014" / "PT-M2" / "data"
    gold = read_m2(data / "reference.m2")[:30]
    sources = [block.source for block in gold]
    hypotheses = (data / "hypothesis").read_text(encoding="utf-8").split("\n")[:30]
    kwargs = {"gold_m2": gold, "scorer": "self"} if metric == "pt_m2" else {"gold_m2": gold}
    run = score(metric, sources, hypotheses, **kwargs, **options)
    assert run.statistic(np.arange(30)) == pytest.approx(run.scores[run.main], abs=1e-12)
    assert 0 < run.scores[run.main] < 1
