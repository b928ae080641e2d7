"""Paired approximate randomisation and the paired bootstrap equal sacrebleu's own code on our statistics; joins.

sacrebleu's corpus rule sums the sentence statistics, so the comparisons use the statistics that are sums: the
mean of sentence scores (statistics `[score, 1]`) and the greedy rules with one reference per sentence. The
multi-reference greedy rules are compared with sacrebleu's procedure written out trial by trial.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.base import Metric, Score
from sacrebleu.significance import PairedTest

from gecscore.cleme2.metric import HEUO, ChunkCounts, heuo_greedy
from gecscore.common import bootstrap
from gecscore.common.bootstrap import (
    DEFAULT_AR_SAMPLES, DEFAULT_SAMPLES, DEFAULT_SEED, Aggregate, ARResult, GreedyReferences, SentenceMean, joined,
    paired_approximate_randomization, paired_bootstrap, signature_suffix, swap_masks,
)
from gecscore.common.errant_scoring import Counts, FScore, errant_greedy
from gecscore.pt_m2.lattice import M2Counts, m2_greedy
from test_bootstrap import errant_oracle, heuo_oracle, m2_oracle, random_counts

F05 = FScore(0.5, "errant")


class Given(Metric):
    """A sacrebleu metric whose sentence statistics are ours (hypotheses name the system) and whose corpus rule
    scores their sum with ours."""

    def __init__(self, stats: dict[str, np.ndarray], score):
        super().__init__()
        self.stats, self.score, self.num_refs = stats, score, 1

    def _extract_corpus_statistics(self, hypotheses, references):
        return self.stats[hypotheses[0]].tolist()

    def _aggregate_and_compute(self, stats):
        return self._compute_score_from_stats(np.asarray(stats, dtype=float).sum(0))

    def _compute_score_from_stats(self, stats):
        return Score("F", float(self.score(np.asarray(stats, dtype=float))))

    def _preprocess_segment(self, sent):
        raise NotImplementedError

    def _extract_reference_info(self, refs):
        raise NotImplementedError

    def _compute_segment_statistics(self, hypothesis, ref_kwargs):
        raise NotImplementedError


def sacrebleu_test(test_type, base_stats, sys_stats, score, n_samples=0):
    """sacrebleu's `PairedTest` (its defaults when `n_samples` is 0): signature, baseline and system results."""
    n = len(base_stats)
    metric = Given({"baseline": base_stats, "system": sys_stats}, score)
    signatures, results = PairedTest([("baseline", ["baseline"] * n), ("system", ["system"] * n)], {"F": metric},
                                     None, test_type=test_type, n_samples=n_samples)()
    return signatures["F"].format(short=True), results["F"][0], results["F"][1]


def two_systems(seed, n):
    """Integer TP, FP, FN of a baseline and of a system that redraws about a third of its sentences alike."""
    rng = np.random.default_rng(seed)
    base = np.stack([rng.integers(0, 3, n), rng.integers(0, 3, n), rng.integers(0, 4, n)], axis=1).astype(float)
    redraw = np.stack([rng.integers(0, 3, n), rng.integers(0, 3, n), rng.integers(0, 4, n)], axis=1).astype(float)
    return base, np.where(rng.random(n)[:, None] < 0.3, redraw, base)


def single_reference(kind, stats):
    """The metric's corpus statistic with one reference per sentence, and its sacrebleu sufficient statistics."""
    if kind == "errant":
        return errant_greedy([[Counts(*row)] for row in stats], F05), stats
    m2 = np.stack([stats[:, 0], stats[:, 0] + stats[:, 1], stats[:, 0] + stats[:, 2]], axis=1)
    return m2_greedy([[M2Counts(*row)] for row in m2], 0.5), m2


def sentence_means(seed, n):
    """Sentence scores in 1/64 steps (so that float32 sums, as sacrebleu's bootstrap takes them, are exact)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 65, n)
    system = np.clip(base + rng.integers(-8, 10, n) * (rng.random(n) < 0.4), 0, 64)
    return base / 64, system / 64


def with_ones(values):
    """Sentence statistics `[score, 1]`: their sum's ratio is the mean."""
    return np.stack([values, np.ones_like(values)], axis=1)


def ratio(stats):
    return stats[0] / stats[1]


CASES = [(12345, 50), (1, 137), (7, 400), (2024, 233)]


@pytest.fixture(params=CASES, ids=lambda c: f"seed{c[0]}-n{c[1]}")
def case(request, monkeypatch):
    seed, n = request.param
    if seed == DEFAULT_SEED:
        monkeypatch.delenv("SACREBLEU_SEED", raising=False)  # sacrebleu's own default
    else:
        monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    return seed, n


@pytest.mark.parametrize("kind", ["errant", "m2"])
def test_ar_of_single_reference_greedy_is_sacrebleus(case, kind):
    seed, n = case
    base_counts, sys_counts = two_systems(seed, n)
    (base, base_stats), (system, sys_stats) = single_reference(kind, base_counts), single_reference(kind, sys_counts)
    signature, theirs_base, theirs = sacrebleu_test("ar", base_stats, sys_stats, base.score)
    ours = paired_approximate_randomization(base, system, n, seed=seed)
    assert (ours.p_value, ours.baseline_score, ours.system_score) == (theirs.p_value, theirs_base.score, theirs.score)
    assert f"|{signature_suffix(ours.n_samples, ours.seed, 'ar')}|" in signature
    assert ours.n_samples == DEFAULT_AR_SAMPLES


def test_ar_of_sentence_means_is_sacrebleus(case):
    seed, n = case
    base, system = sentence_means(seed, n)
    signature, theirs_base, theirs = sacrebleu_test("ar", with_ones(base), with_ones(system), ratio)
    ours = paired_approximate_randomization(SentenceMean(base), SentenceMean(system), n, seed=seed)
    assert (ours.p_value, ours.baseline_score, ours.system_score) == (theirs.p_value, theirs_base.score, theirs.score)
    assert f"|{signature_suffix(DEFAULT_AR_SAMPLES, seed, 'ar')}|" in signature


def test_ar_of_a_python_rule_is_sacrebleus(case):
    seed, n = case
    base_counts, sys_counts = two_systems(seed, n)
    rule = errant_greedy([[Counts()]], F05).score
    statistics = [Aggregate(list(map(tuple, counts)), lambda xs: rule(np.sum(xs, axis=0)))
                  for counts in (base_counts, sys_counts)]
    _, _, theirs = sacrebleu_test("ar", base_counts, sys_counts, rule, n_samples=500)
    assert paired_approximate_randomization(*statistics, n, n_samples=500, seed=seed).p_value == theirs.p_value


@pytest.mark.parametrize("kind", ["errant", "m2", "mean"])
def test_paired_bootstrap_is_sacrebleus(case, kind):
    seed, n = case
    if kind == "mean":
        values = sentence_means(seed, n)
        base, system = map(SentenceMean, values)
        base_stats, sys_stats = map(with_ones, values)
        score = ratio
    else:
        (base, base_stats), (system, sys_stats) = (single_reference(kind, c) for c in two_systems(seed, n))
        score = base.score
    signature, theirs_base, theirs = sacrebleu_test("bs", base_stats, sys_stats, score)
    ours = paired_bootstrap(base, system, n, seed=seed)
    assert ours.p_value == theirs.p_value
    for interval, result in ((ours.baseline, theirs_base), (ours.system, theirs)):
        assert (interval.score, interval.mean, interval.ci) == (result.score, result.mean, result.ci)
    assert f"|{signature_suffix(DEFAULT_SAMPLES, seed)}|" in signature


def test_p_values_are_not_all_extreme():
    """The sacrebleu comparisons above are informative: their systems are neither identical nor far apart."""
    p = [paired_approximate_randomization(*(single_reference("errant", c)[0] for c in two_systems(seed, n)), n,
                                          n_samples=1000, seed=seed).p_value for seed, n in CASES]
    assert all(0.05 < x < 0.95 for x in p), p


# ---------------------------------------------------------------------------------------------------
# Several references: sacrebleu's procedure written out, trial by trial, over the scalar oracles


def ar_loop(base, system, corpus_score, n_samples, seed):
    """sacrebleu's `_paired_ar_test` with a plain Python corpus rule over lists of sentence items."""
    pos_sel = np.random.default_rng(seed).integers(2, size=(n_samples, len(base)), dtype=bool)
    observed = abs(corpus_score(base) - corpus_score(system))
    count = 0
    for row in pos_sel.tolist():
        shuf_a = [b if pos else s for b, s, pos in zip(base, system, row)]
        shuf_b = [s if pos else b for b, s, pos in zip(base, system, row)]
        count += abs(corpus_score(shuf_a) - corpus_score(shuf_b)) > observed
    return (count + 1) / (n_samples + 1)


def multi_reference(kind, seed, n, max_refs):
    counts = random_counts(seed, n=n, max_refs=max_refs, k=5 if kind == "heuo" else 3, high=4)
    if kind == "errant":
        items = [[Counts(*c) for c in refs] for refs in counts]
        return errant_greedy(items, F05), items, lambda xs: errant_oracle(xs, F05)
    if kind == "m2":
        items = [[M2Counts(c, c + p, c + g) for c, p, g in refs] for refs in counts]
        return m2_greedy(items, 0.5), items, lambda xs: m2_oracle(xs, 0.5)
    scorer = HEUO()
    items = [[ChunkCounts(tp, ne + un, ne, un, fn, tn) for tp, ne, un, fn, tn in refs] for refs in counts]
    return heuo_greedy(items, scorer.alpha), items, lambda xs: heuo_oracle(xs, scorer)


@pytest.mark.parametrize("kind", ["errant", "m2", "heuo"])
@pytest.mark.parametrize(("seed", "n"), [(3, 40), (11, 75)])
def test_ar_of_multi_reference_greedy_is_the_procedure_written_out(kind, seed, n):
    # the system has fewer references per sentence than the baseline: the join pads them
    base, base_items, corpus_score = multi_reference(kind, seed, n, max_refs=4)
    system, sys_items, _ = multi_reference(kind, seed + 100, n, max_refs=2)
    ours = paired_approximate_randomization(base, system, n, n_samples=300, seed=seed)
    assert ours.p_value == ar_loop(base_items, sys_items, corpus_score, 300, seed)
    assert (ours.baseline_score, ours.system_score) == (corpus_score(base_items), corpus_score(sys_items))


def test_ar_does_not_depend_on_the_chunking(monkeypatch):
    base, system = (single_reference("errant", c)[0] for c in two_systems(5, 90))
    whole = paired_approximate_randomization(base, system, 90, n_samples=250)
    monkeypatch.setattr(bootstrap, "_CHUNK_INDICES", 7 * 90 + 13)
    assert paired_approximate_randomization(base, system, 90, n_samples=250) == whole


def test_ar_result_and_sacrebleus_quirks():
    values = np.random.default_rng(0).random(30)
    # a system against itself: no trial differs by more than 0, so p is the smallest possible (sacrebleu's `>`)
    same = paired_approximate_randomization(SentenceMean(values), SentenceMean(values), 30, n_samples=99)
    assert same.p_value == 0.01 and same.difference == 0.0
    result = paired_approximate_randomization(SentenceMean(values), SentenceMean(values[::-1]), 30, n_samples=50,
                                              seed=None)
    assert isinstance(result, ARResult) and result.as_dict() == {
        "baseline_score": result.baseline_score, "system_score": result.system_score,
        "difference": result.system_score - result.baseline_score,
        "p_value": result.p_value, "n_samples": 50, "seed": None}
    assert signature_suffix(10000, 12345, "ar") == "ar:10000|rs:12345"
    assert signature_suffix(10, None, "ar") == "ar:10|rs:none"
    np.testing.assert_array_equal(swap_masks(4, 3, 9), np.random.default_rng(9).integers(2, size=(3, 4), dtype=bool))


def test_statistics_that_cannot_be_joined():
    mean = SentenceMean([0.5, 1.0])
    with pytest.raises(TypeError, match="a function cannot be joined"):
        paired_approximate_randomization(lambda indices: 0.0, mean, 2)
    with pytest.raises(TypeError, match="cannot join a SentenceMean with a GreedyReferences"):
        joined(mean, errant_greedy([[Counts()], [Counts()]], F05))
    with pytest.raises(TypeError, match="different corpus rules"):
        joined(errant_greedy([[Counts()]], F05), m2_greedy([[M2Counts(0, 0, 0)]], 0.5))
    key, score = (lambda running, candidates: (candidates[..., 0],)), (lambda totals: totals[..., 0])
    with pytest.raises(TypeError, match="2 and 3 counts per reference"):
        joined(GreedyReferences([[(1, 2)]], key, score), GreedyReferences([[(1, 2, 3)]], key, score))
    with pytest.raises(TypeError, match="different corpus rules"):
        joined(Aggregate([1], lambda xs: 1.0), Aggregate([2], lambda xs: 0.0))
    with pytest.raises(ValueError, match="system statistic covers 3 sentences, not n = 2"):
        paired_approximate_randomization(mean, SentenceMean([0.0, 0.5, 1.0]), 2)
    with pytest.raises(ValueError, match="`n_samples`"):
        paired_approximate_randomization(mean, mean, 2, n_samples=0)


# ---------------------------------------------------------------------------------------------------
# The join is the statistic of the concatenated sentences

sentence_refs = st.lists(st.tuples(*[st.integers(0, 3)] * 3), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(first=st.lists(sentence_refs, min_size=1, max_size=12), second=st.lists(sentence_refs, min_size=1, max_size=12),
       data=st.data())
def test_join_is_the_statistic_of_the_concatenation(first, second, data):
    both = first + second
    width, height = data.draw(st.integers(1, 15)), data.draw(st.integers(1, 4))
    rows = np.array(data.draw(st.lists(st.integers(0, len(both) - 1), min_size=width * height,
                                       max_size=width * height))).reshape(height, width)
    as_errant = [[[Counts(*c) for c in refs] for refs in part] for part in (first, second, both)]
    as_m2 = [[[M2Counts(c, c + p, c + g) for c, p, g in refs] for refs in part] for part in (first, second, both)]
    means = [[float(sum(refs[0])) for refs in part] for part in (first, second, both)]
    pairs = [[errant_greedy(part, F05) for part in as_errant], [m2_greedy(part, 0.5) for part in as_m2],
             [SentenceMean(part) for part in means],
             [Aggregate(part, lambda xs: errant_oracle(xs, F05)) for part in as_errant]]
    for a, b, concatenation in pairs:
        join = joined(a, b)
        assert type(join) is type(concatenation) and len(join) == len(both)
        np.testing.assert_array_equal(bootstrap.resampled_scores(join, rows),
                                      bootstrap.resampled_scores(concatenation, rows))
