"""Every metric's statistics: its `score` is its whole corpus rule, so the resamplable corpus statistic of a result
is `score` of the resampled statistics, concatenated parts score as the whole, and statistics that depend on the
whole corpus refuse to concatenate by their reason."""

import dataclasses
import warnings

import numpy as np
import pytest

from gecscore import registry
from gecscore.common.bootstrap import resampled_scores
from gecscore.common.statistics import NotShardableError, Statistics

from conftest import build_tiny_model
from test_some_scribendi import tiny_reference_free

SOURCES = ["I has a apple .", "He go to school yesterday .", "This is fine .", "She like cats and dog .",
           "They was happy .", "We goes home now ."]
PREDICTIONS = ["I have an apple .", "He went to the school yesterday .", "This is fine .", "She likes cats and dog .",
               "They were very happy .", "We goes to home now ."]
REFERENCES = [["I have an apple .", "I had an apple ."], ["He went to school yesterday ."], ["This is fine ."],
              ["She likes cats and dogs .", "She likes cats and a dog ."], ["They were happy ."],
              ["We go home now .", "We went home now ."]]

RUNS = [
    ("errant", {}),
    ("errant", {"convention": "errant_compare", "return_types": 3}),
    ("m2", {}),
    ("sentm2", {}),
    ("pt_m2", {"variant": "errant", "scorer": "self", "return_types": 2}),
    ("senterrant", {}),
    ("cleme2", {"weighting": "none"}),
    ("cleme2", {"weighting": "none", "level": "sentence"}),
    ("cleme", {"weighting": "none"}),
    ("gleu", {}),
    ("gleu", {"variant": "gec-metrics"}),
    ("gotoscorer", {"return_types": 1}),
    ("green", {}),
    ("green", {"unit": "char", "beta": 0.5}),
    ("cleme", {}),
]


def gather(name, options, references=REFERENCES):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return registry.statistics_systems(name, SOURCES, {"system": PREDICTIONS}, references, **options)["system"]


def plain(result):
    return result.scores, result.sentences, result.details, result.signature


@pytest.mark.parametrize("name, options", RUNS, ids=lambda v: v if isinstance(v, str) else
                         ",".join(f"{k}={x}" for k, x in v.items()))
def test_the_corpus_statistic_is_score_of_the_resampled_statistics(nlp, name, options):
    stats = gather(name, options)
    result = registry.score(name, stats)
    assert plain(result) == plain(registry.run(name, SOURCES, PREDICTIONS, REFERENCES, **options))
    rows = np.random.default_rng(0).integers(0, len(stats), size=(8, len(stats)))
    for row in rows:
        assert result.statistic(row) == registry.score(name, stats.take(row)).score
    assert list(resampled_scores(result.statistic, rows)) == [registry.score(name, stats.take(r)).score for r in rows]


@pytest.mark.parametrize("name, options", RUNS[:-1], ids=lambda v: v if isinstance(v, str) else
                         ",".join(f"{k}={x}" for k, x in v.items()))
def test_concatenated_parts_score_as_the_whole(nlp, name, options):
    stats = gather(name, options)
    parts = [stats.take(range(0, 2)), stats.take(range(2, 3)), stats.take(range(3, len(stats)))]
    assert plain(registry.score(name, type(stats).concat(parts))) == plain(registry.score(name, stats))


def test_model_statistics_take_and_concat(nlp, tiny_bert, tmp_path):
    qe = build_tiny_model(tmp_path / "qe", "bert", num_labels=1)
    for name, options, references in (("uot_errant", {"model": str(tiny_bert)}, REFERENCES),
                                      ("pt_m2", {"model": str(tiny_bert), "layer": 1}, REFERENCES),
                                      ("impara_ged", {"model": str(qe)}, None),
                                      *tiny_reference_free(tmp_path),
                                      ("bertscore", {"model": str(tiny_bert), "layer": 1,
                                                     "rescale_with_baseline": False}, REFERENCES)):
        stats = gather(name, options, references)
        whole = registry.score(name, stats)
        halves = type(stats).concat([stats.take(range(3)), stats.take(range(3, len(stats)))])
        assert plain(registry.score(name, halves)) == plain(whole), name
        row = np.array([5, 0, 0, 3, 2, 2])
        assert whole.statistic(row) == registry.score(name, stats.take(row)).score, name


def test_take_keeps_the_degenerate_records_of_the_sentences_taken(nlp):
    stats = gather("errant", {})
    flagged = dataclasses.replace(stats, degenerate=({"index": 1, "reason": "x"}, {"index": 4, "reason": "y"}))
    taken = flagged.take([4, 0, 4])
    assert taken.degenerate == ({"index": 0, "reason": "y"},)
    assert len(taken) == 3 and taken.typed == (stats.typed[4], stats.typed[0], stats.typed[4])
    joined = type(stats).concat([flagged.take([0, 1]), flagged.take([2, 3, 4])])
    assert joined.degenerate == flagged.degenerate


def test_statistics_that_depend_on_the_corpus_or_differ_in_settings_refuse_to_concatenate(nlp):
    stats = gather("cleme2", {"weighting": "none"})
    refused = dataclasses.replace(stats, unshardable="because the corpus mean")
    with pytest.raises(NotShardableError, match="because the corpus mean"):
        type(stats).concat([stats, refused])
    other = gather("cleme2", {"weighting": "none", "assumption": "independent"})
    with pytest.raises(ValueError, match="different settings"):
        type(stats).concat([stats, other])
    with pytest.raises(TypeError, match="cannot concatenate"):
        Statistics.concat([stats, gather("errant", {})])


def test_robust_noise_weights_make_cleme_statistics_unshardable():
    from gecscore.cleme2.chunks import samples_from_m2
    from gecscore.cleme2.metric import ROBUST_NOISE_UNSHARDABLE, ClemeConfig, sample_statistics
    from test_cleme2 import m2
    from test_cleme2_degenerate import SRC, Lookalike

    samples = samples_from_m2(m2(SRC, [(1, 2, "x")]) + m2(SRC, [(0, 1, "q")]),
                              m2(SRC, [(1, 2, "x")]) + m2(SRC, [(0, 1, "q")]))
    similarity = Lookalike({"x": "b"})  # the edit b → x weighs float noise
    robust = sample_statistics(samples, ClemeConfig(weighting="similarity", robust=True), similarity=similarity)
    assert robust.unshardable == ROBUST_NOISE_UNSHARDABLE
    plain = sample_statistics(samples, ClemeConfig(weighting="similarity"), similarity=similarity)
    assert plain.unshardable is None and [d["index"] for d in plain.degenerate] == [0]
