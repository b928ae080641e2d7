"""IMPARA-GED / IMPARA degenerate sentences and robust mode: truncation at `max_length`, `max_length` beyond the
model, tokenisation (tokenize=True, the warning for untokenised text), empty predictions, the signature."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import build_tiny_model

from gecscore import registry
from gecscore.common.inputs import UntokenisedTextWarning
from gecscore.common.results import EMPTY_PREDICTION, TRUNCATED
from gecscore.impara_ged.metric import Impara

LONG = " ".join(["the cat"] * 70) + " ."  # 143 tokens with [CLS] and [SEP] for the tiny WordPiece tokenizer
SOURCES = ["he go to school yesterday .", "she has some apples .", "the cat is here ."]
PREDICTIONS = ["he went to school yesterday .", "she has some apples .", "the cat is here ."]


@pytest.fixture(scope="module")
def tiny_bert_qe(tmp_path_factory) -> Path:
    """A tiny random BertForSequenceClassification with one logit (tokenizer limit 128)."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-bert-qe-degenerate"), "bert", num_labels=1)


@pytest.fixture(scope="module")
def wide_bert_qe(tmp_path_factory) -> Path:
    """The same kind of QE with a tokenizer limit of 256 (its 256 positions), wider than the tiny similarity model."""
    path = build_tiny_model(tmp_path_factory.mktemp("wide-bert-qe"), "bert", num_labels=1, seed=1)
    config = path / "tokenizer_config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "model_max_length": 256}))
    return path


def run(sources, predictions, **options):
    """The registry's result and the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = registry.run("impara_ged", sources, predictions, **options)
    return result, caught


def names(caught):
    return [type(w.message).__name__ for w in caught]


# ---------------------------------------------------------------------------------------------------
# max_length: truncation is flagged, a max_length the model cannot read is an error

def test_long_prediction_is_flagged_truncated(tiny_modernbert):
    result, caught = run(["x", "y"], [LONG, "the cat is here ."], model=str(tiny_modernbert))
    assert result.details["degenerate_sentences"] == [
        {"index": 0, "reason": TRUNCATED, "text": "prediction", "estimator": "quality", "tokens": 143, "limit": 128}]
    assert names(caught).count("DegenerateOutputWarning") == 1
    shorter, _ = run(["x", "y"], ["the cat is here .", "the cat is here ."], model=str(tiny_modernbert), max_length=5)
    assert [r["index"] for r in shorter.details["degenerate_sentences"]] == [0, 1]
    assert shorter.details["degenerate_sentences"][0]["tokens"] == 7


def test_impara_variant_flags_what_its_similarity_estimator_truncates(wide_bert_qe, tiny_bert):
    result, _ = run([LONG, "he go ."], [LONG.replace("cat", "dog"), "he went ."], variant="impara",
                    model=str(wide_bert_qe), se_model=str(tiny_bert), max_length=128)
    records = result.details["degenerate_sentences"]
    assert {(r["text"], r["estimator"]) for r in records} == {
        ("prediction", "quality"), ("source", "similarity"), ("prediction", "similarity")}
    assert all(r["index"] == 0 and r["tokens"] == 143 and r["limit"] == 128 for r in records)


def test_max_length_beyond_the_model_is_an_error_before_scoring(tiny_modernbert, wide_bert_qe, tiny_bert):
    with pytest.raises(ValueError, match=r"`max_length`=129 is more than the quality estimator .* \(128 tokens"):
        Impara(str(tiny_modernbert), max_length=129)
    with pytest.raises(ValueError, match="max_length"):
        registry.run("impara_ged", ["x"], ["y"], model=str(tiny_modernbert), max_length=4096)
    Impara(str(wide_bert_qe), max_length=256)  # its tokenizer and positions allow 256
    scorer = Impara(str(wide_bert_qe), variant="impara", se_model=str(tiny_bert), max_length=200)
    before = scorer.qe.forward_count
    with pytest.raises(ValueError, match=r"`max_length`=200 is more than the similarity estimator"):
        scorer.score(["he go ."], ["he went ."])
    assert scorer.qe.forward_count == before  # nothing was scored


# ---------------------------------------------------------------------------------------------------
# Tokenisation

def test_tokenize_true_scores_spacy_tokens(tiny_modernbert, nlp):
    raw = ["He went to school yesterday.", "She has apples, pears and plums."]
    tokenised = ["He went to school yesterday .", "She has apples , pears and plums ."]
    result, caught = run(raw, raw, model=str(tiny_modernbert), tokenize=True)
    expected, _ = run(tokenised, tokenised, model=str(tiny_modernbert))
    assert result.sentence_scores() == expected.sentence_scores()
    assert "UntokenisedTextWarning" not in names(caught)
    assert "|tokenize:True|" in result.signature and "|tokenize:False|" in expected.signature


def test_untokenised_text_is_scored_with_a_warning(tiny_modernbert):
    raw = ["He went to school yesterday.", "She has apples, pears and plums."]
    result, caught = run(PREDICTIONS[:2], raw, model=str(tiny_modernbert))
    [warning] = [w for w in caught if isinstance(w.message, UntokenisedTextWarning)]
    message = str(warning.message)
    assert "`predictions[0]`" in message and "tokenize=True" in message and "'yesterday.'" in message
    assert all(0.0 <= s <= 1.0 for s in result.sentence_scores())
    _, quiet = run(raw, PREDICTIONS[:2], model=str(tiny_modernbert))  # impara_ged does not read the sources
    assert not any(isinstance(w.message, UntokenisedTextWarning) for w in quiet)


def test_impara_variant_also_checks_the_sources(tiny_bert_qe, tiny_bert):
    raw = ["He go to school yesterday.", "She have apples, pears and plums."]
    _, caught = run(raw, PREDICTIONS[:2], variant="impara", model=str(tiny_bert_qe), se_model=str(tiny_bert))
    [warning] = [w for w in caught if isinstance(w.message, UntokenisedTextWarning)]
    assert "`sources[0]`" in str(warning.message)


# ---------------------------------------------------------------------------------------------------
# Empty predictions, robust mode, the signature

def test_empty_prediction_is_flagged_and_robust_scores_the_source(tiny_modernbert):
    predictions = ["", PREDICTIONS[1], "  "]
    published, caught = run(SOURCES, predictions, model=str(tiny_modernbert))
    robust, _ = run(SOURCES, predictions, model=str(tiny_modernbert), robust=True)
    unchanged, _ = run(SOURCES, SOURCES, model=str(tiny_modernbert))
    for result in (published, robust):
        assert [(r["index"], r["reason"]) for r in result.details["degenerate_sentences"]] == [
            (0, EMPTY_PREDICTION), (2, EMPTY_PREDICTION)]
    assert names(caught).count("DegenerateOutputWarning") == 1
    empty = Impara(str(tiny_modernbert)).score(["x"], [""]).sentence_scores[0]
    assert published.sentence_scores()[0] == pytest.approx(empty)  # σ(R("")): the published number
    assert robust.sentence_scores()[0] == pytest.approx(unchanged.sentence_scores()[0])
    assert robust.sentence_scores()[2] == pytest.approx(unchanged.sentence_scores()[2])
    # unflagged: unchanged (up to float rounding, the two batches are padded to different widths)
    assert robust.sentence_scores()[1] == pytest.approx(published.sentence_scores()[1], rel=0, abs=1e-6)
    assert all(0.0 <= s <= 1.0 for s in (*published.sentence_scores(), *robust.sentence_scores()))


def test_robust_through_the_scorer_directly(tiny_modernbert):
    robust = Impara(str(tiny_modernbert), robust=True).score(SOURCES, ["", *PREDICTIONS[1:]])
    plain = Impara(str(tiny_modernbert)).score(SOURCES, [SOURCES[0], *PREDICTIONS[1:]])
    assert np.allclose(robust.sentence_scores, plain.sentence_scores, atol=1e-6)


def test_signature_records_tokenize_and_robust_once(tiny_modernbert):
    for robust in (False, True):
        result, _ = run(SOURCES, PREDICTIONS, model=str(tiny_modernbert), robust=robust)
        assert result.signature.count("|robust:") == 1 and f"|robust:{robust}|" in result.signature
        assert result.signature.count("|tokenize:") == 1


def test_a_nan_logit_is_an_error_not_a_score(tiny_modernbert, monkeypatch):
    scorer = Impara(str(tiny_modernbert))
    monkeypatch.setattr(scorer.qe, "logits", lambda texts, **kw: np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match=r"NaN for `predictions\[1\]`"):
        scorer.score(["a", "b"], ["a", "b"])


@pytest.mark.real_model
def test_embedded_empty_prediction_score():
    from test_impara import _embedded_available

    if not _embedded_available():
        pytest.fail("the embedded QE asset or the PyPI MiniLM is missing")
    result, _ = run(["He go to school every days ."], [""], model="embedded")
    assert result.score == pytest.approx(0.5695, abs=1e-4)
    assert result.details["degenerate_sentences"] == [{"index": 0, "reason": EMPTY_PREDICTION}]
