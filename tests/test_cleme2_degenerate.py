"""CLEME2.0 degenerate sentences and robust mode: float-noise weights, truncation, empty predictions, tokenize,
options that do not apply (the card's "Degenerate sentences and robust mode")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gecscore import registry, script_path
from gecscore.cleme2.metric import ClemeConfig, cleme_score
from gecscore.cleme2.weights import NOISE_LEVEL, LLMRater, check_causal_lm
from gecscore.common.results import EMPTY_PREDICTION, NOISE_WEIGHTS, TRUNCATED, DegenerateOutputWarning
from test_cleme2 import m2  # the same M2 block builder

SRC = "a b c d"


class Lookalike:
    """A stand-in similarity: the share of reference tokens found in the candidate, where the tokens of `same`
    look like another token ("x" like "b"): an edit b → x is invisible to it, as a case change is to an uncased
    model."""

    def __init__(self, same: dict[str, str]) -> None:
        self.same = same

    def _tokens(self, text: str) -> list[str]:
        return [self.same.get(t, t) for t in text.split()]

    def __call__(self, candidates, references):
        out = []
        for c, r in zip(candidates, references):
            cand, ref = self._tokens(c), self._tokens(r)
            out.append(sum(t in cand for t in ref) / max(len(ref), 1) * (1 - 0.01 * abs(len(cand) - len(ref))))
        return np.array(out)

    def canonical(self, texts):
        return [tuple(self._tokens(t)) for t in texts]


def score_m2(hyps: list[str], refs: list[str], **settings) -> dict:
    return cleme_score(hyp_m2="".join(hyps), ref_m2="".join(refs), similarity=Lookalike({"x": "b", "y": "b"}),
                       sentences=True, return_chunks=True, **settings)


# ---------------------------------------------------------------------------------------------------
# float-noise weights (model-free: a stand-in similarity that cannot tell "x" from "b")

@pytest.mark.parametrize("hyp, published, robust", [
    ([(1, 2, "x")], 0.65, 1.0),   # the right edit, invisible: 0/0 → 1 − α_hit; unit weights: a hit
    ([], 0.65, 0.45),             # the needed edit missed: 0/0 → 1 − α_hit; unit weights: under-correction
])
def test_noise_weights_are_flagged_and_robust_uses_unit_weights(hyp, published, robust):
    h, r = [m2(SRC, hyp)], [m2(SRC, [(1, 2, "x")])]
    out = score_m2(h, r, level="sentence")
    assert out["score"] == pytest.approx(published)
    assert out["degenerate_sentences"] == [{"index": 0, "reason": NOISE_WEIGHTS, "reference": 0, "total": 0.0}]
    fixed = score_m2(h, r, level="sentence", robust=True)
    assert fixed["score"] == pytest.approx(robust) and 0.0 <= fixed["score"] <= 1.0
    assert fixed["degenerate_sentences"] == out["degenerate_sentences"]
    assert "robust:True" in fixed["signature"] and "robust:False" in out["signature"]


def test_robust_changes_only_flagged_sentences():
    hyps = [m2(SRC, [(1, 2, "x")]), m2(SRC, [(0, 1, "q")]), m2(SRC, []), m2(SRC, [(2, 3, "z")])]
    refs = [m2(SRC, [(1, 2, "x")]), m2(SRC, [(0, 1, "q")], [(3, 4, "w")]), m2(SRC, [(2, 3, "z")]),
            m2(SRC, [(2, 3, "z")], [(1, 2, "y")])]
    plain, fixed = score_m2(hyps, refs, level="sentence"), score_m2(hyps, refs, level="sentence", robust=True)
    flagged = {d["index"] for d in plain["degenerate_sentences"]}
    assert flagged == {0} and [d["reason"] for d in plain["degenerate_sentences"]] == [NOISE_WEIGHTS]
    for i, (a, b) in enumerate(zip(plain["sentences"], fixed["sentences"])):
        if i not in flagged:
            assert a == b and plain["chunks"][i] == fixed["chunks"][i]
    assert plain["sentences"][0]["score"] == pytest.approx(0.65) and fixed["sentences"][0]["score"] == 1.0
    assert all(0.0 <= s["score"] <= 1.0 for s in fixed["sentences"])
    # corpus totals: the flagged chunk weighs the mean non-TN weight of the other pairs, not 1.0
    corpus = score_m2(hyps, refs, robust=True)
    others = [w for i, table in enumerate(corpus["chunks"]) if i != 0 for row in table["chunks"]
              for label, w in zip(row["labels"], row["weights"]) if label != "TN"]
    (row,) = [row for row in corpus["chunks"][0]["chunks"] if row["labels"] != ["TN"]]
    assert row["weights"] == [pytest.approx(np.mean(others))] and 0 < row["weights"][0] < 1


def test_without_flagged_sentences_robust_is_the_published_metric():
    hyps, refs = [m2(SRC, [(0, 1, "q")]), m2(SRC, [])], [m2(SRC, [(0, 1, "q")]), m2(SRC, [(3, 4, "w")])]
    for level in ("corpus", "sentence"):
        plain, fixed = score_m2(hyps, refs, level=level), score_m2(hyps, refs, level=level, robust=True)
        assert plain["degenerate_sentences"] == [] == fixed["degenerate_sentences"]
        assert {k: v for k, v in plain.items() if k != "signature"} == \
            {k: v for k, v in fixed.items() if k != "signature"}


def test_real_weights_are_not_noise():
    assert NOISE_LEVEL == 1e-6
    out = score_m2([m2(SRC, [(0, 1, "q")])], [m2(SRC, [(0, 1, "q")])])
    assert out["degenerate_sentences"] == []


@pytest.mark.parametrize("weighting", ["none", "length"])
def test_other_weightings_flag_no_weights(weighting):
    out = cleme_score(hyp_m2=m2(SRC, [(1, 2, "x")]), ref_m2=m2(SRC, [(1, 2, "x")]), weighting=weighting)
    assert out["degenerate_sentences"] == []


# ---------------------------------------------------------------------------------------------------
# truncation past the encoder window (tiny local BERT, 128 tokens)

def test_texts_past_the_encoder_window_are_flagged(tiny_bert):
    from gecscore.common.edit_impact import BERTScoreSimilarity

    source = "he go to school . " + " ".join(["the cat"] * 80)  # 165 words, 167 tokens with [CLS] and [SEP]
    n = len(source.split())
    hyp, ref = m2(source, [(1, 2, "goes")]), m2(source, [(1, 2, "goes")], [(n - 1, n, "dogs")])
    similarity = BERTScoreSimilarity(str(tiny_bert), layer=1, device="cpu")
    out = cleme_score(hyp_m2=hyp + m2(SRC, []), ref_m2=ref + m2(SRC, []), similarity=similarity,
                      model=str(tiny_bert), layer=1, sentences=True, return_chunks=True)
    truncated = [d for d in out["degenerate_sentences"] if d["reason"] == TRUNCATED]
    assert [(d["index"], d["text"], d.get("reference")) for d in truncated] == [
        (0, "source", None), (0, "prediction", None), (0, "reference", 0), (0, "reference", 1)]
    assert [(d["limit"], d["tokens"]) for d in truncated] == [(128, 167)] * 4
    # the edit past the window is invisible: its FN chunk weighs exactly 0 against reference 1
    last = out["chunks"][0]["chunks"][-1]
    assert last["labels"][1] == "FN" and last["weights"][1] == 0.0


# ---------------------------------------------------------------------------------------------------
# options that do not apply, LLM weighting with an encoder

@pytest.mark.parametrize("settings, name", [
    (dict(weighting="none", model="minilm"), "model"),
    (dict(weighting="none", layer=6), "layer"),
    (dict(variant="cleme", model="minilm"), "model"),
    (dict(weighting="length", layer=3), "layer"),
    (dict(weighting="llm", model="gpt2", layer=3), "layer"),
])
def test_options_that_do_not_apply_are_errors(settings, name):
    with pytest.raises(ValueError, match=f"`{name}` does not apply"):
        ClemeConfig(**settings)
    with pytest.raises(ValueError, match=f"`{name}` does not apply"):
        registry.run("cleme2", ["a b ."], ["a b ."], [["a b ."]], **settings)


def test_llm_weighting_with_an_encoder_is_an_error_before_scoring(tiny_bert, monkeypatch):
    def no_loading(*args, **kwargs):
        raise AssertionError("the model must not be loaded")

    monkeypatch.setattr("gecscore.cleme2.weights.load_model", no_loading)
    with pytest.raises(ValueError, match=r"needs `model` to be a causal LM.*is an encoder"):
        cleme_score(hyp_m2=m2(SRC, [(1, 2, "x")]), ref_m2=m2(SRC, []), weighting="llm", model=str(tiny_bert))
    with pytest.raises(ValueError, match="causal LM"):
        registry.run("cleme2", ["a b ."], ["a c ."], [["a c ."]], weighting="llm", model=str(tiny_bert))
    with pytest.raises(ValueError, match="causal LM"):
        LLMRater(str(tiny_bert))
    with pytest.raises(ValueError, match="model type 'bert'"):
        check_causal_lm(str(tiny_bert))


def test_tokenize_does_not_apply_to_m2():
    with pytest.raises(ValueError, match="`tokenize` does not apply"):
        cleme_score(hyp_m2=m2(SRC, []), ref_m2=m2(SRC, []), weighting="none", tokenize=True)


@pytest.mark.parametrize("argument, sources, predictions, references", [
    ("sources", ["He goes home."], ["He went home ."], [["He went home ."]]),
    ("predictions", ["He goes home ."], ["He went home."], [["He went home ."]]),
    ("references", ["He goes home ."], ["He went home ."], [["He went home."]]),
])
def test_untokenised_text_without_tokenize_is_an_error(argument, sources, predictions, references):
    with pytest.raises(ValueError, match=rf"`{argument}\[0\]` does not look whitespace-tokenised.*tokenize=True"):
        registry.run("cleme2", sources, predictions, references, weighting="none")


# ---------------------------------------------------------------------------------------------------
# real models: spaCy (ERRANT, tokenize) and MiniLM (similarity weights)

RAW = (["He go to school yesterday.", "It's a nice weather, isn't it?"],
       ["He goes to school yesterday.", "It's nice weather, isn't it?"],
       [["He went to school yesterday."], ["It's nice weather, isn't it?", "The weather is nice, isn't it?"]])
TOKENISED = (["He go to school yesterday .", "It 's a nice weather , is n't it ?"],
             ["He goes to school yesterday .", "It 's nice weather , is n't it ?"],
             [["He went to school yesterday ."], ["It 's nice weather , is n't it ?",
                                                 "The weather is nice , is n't it ?"]])


@pytest.mark.real_model
@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_tokenize_scores_raw_text_like_tokenised_text(level):
    raw = registry.run("cleme2", *RAW, weighting="none", level=level, tokenize=True, return_chunks=True)
    tokenised = registry.run("cleme2", *TOKENISED, weighting="none", level=level, return_chunks=True)
    assert raw.scores == tokenised.scores and raw.sentences == tokenised.sentences
    assert raw.details["chunks"] == tokenised.details["chunks"]
    assert "tokenize:spacy" in raw.signature and "tokenize:none" in tokenised.signature


SOURCES = ["He go to school yesterday .", "It is a nice weather .", "She like apple ."]
REFERENCES = [["He went to school yesterday ."], ["It is nice weather ."], ["She likes apples ."]]
MINILM = dict(model="minilm", layer=6)


@pytest.mark.real_model
@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_empty_prediction_is_flagged_and_robust_scores_the_unchanged_source(minilm, level):
    predictions = ["He went to school yesterday .", "", "She like apple ."]
    unchanged = ["He went to school yesterday .", SOURCES[1], "She like apple ."]
    with pytest.warns(DegenerateOutputWarning, match="empty prediction: 1 \\[1\\]"):
        published = registry.run("cleme2", SOURCES, predictions, REFERENCES, level=level, **MINILM)
    assert {(d["index"], d["reason"]) for d in published.details["degenerate_sentences"]} == {
        (1, EMPTY_PREDICTION), (1, NOISE_WEIGHTS)}
    # the published metric: the empty prediction's one chunk weighs 0, so it scores 1 − α_hit, more than
    # leaving the sentence alone
    assert published.sentences[1]["score"] == pytest.approx(0.65 if level == "sentence" else 0.55)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        source = registry.run("cleme2", SOURCES, unchanged, REFERENCES, level=level, **MINILM)
    assert source.sentences[1]["score"] < published.sentences[1]["score"]
    with pytest.warns(DegenerateOutputWarning, match="robust=True handled them"):
        robust = registry.run("cleme2", SOURCES, predictions, REFERENCES, level=level, robust=True, **MINILM)
    assert robust.details["degenerate_sentences"] == [{"index": 1, "reason": EMPTY_PREDICTION}]
    assert robust.scores == source.scores and robust.sentences == source.sentences
    assert "robust:True" in robust.signature and "robust:False" in source.signature
    # sentences not flagged score the same in both modes
    assert [s for i, s in enumerate(published.sentences) if i != 1] == \
        [s for i, s in enumerate(robust.sentences) if i != 1]


@pytest.mark.real_model
def test_case_only_edit_under_an_uncased_model_is_noise(minilm):
    sources, references = ["i live in paris ."] * 2, [["i live in Paris ."]] * 2
    predictions = ["i live in paris .", "i live in Paris ."]
    with pytest.warns(DegenerateOutputWarning, match="float-noise weights: 2"):
        published = registry.run("cleme2", sources, predictions, references, level="sentence", **MINILM)
    assert [s["score"] for s in published.sentences] == pytest.approx([0.65, 0.65])
    with pytest.warns(DegenerateOutputWarning):
        robust = registry.run("cleme2", sources, predictions, references, level="sentence", robust=True, **MINILM)
    assert [s["score"] for s in robust.sentences] == pytest.approx([0.45, 1.0])


@pytest.mark.real_model
def test_evaluate_module_reports_degenerate_sentences_and_robust():
    import evaluate

    metric = evaluate.load(script_path("cleme2"), weighting="none", level="sentence")
    inputs = dict(sources=SOURCES, predictions=["He went to school yesterday .", "", SOURCES[2]],
                  references=REFERENCES)
    with pytest.warns(DegenerateOutputWarning):
        out = metric.compute(**inputs, robust=True, sentences=True)
    assert out["degenerate_sentences"] == [{"index": 1, "reason": EMPTY_PREDICTION}]
    same = metric.compute(**{**inputs, "predictions": ["He went to school yesterday .", SOURCES[1], SOURCES[2]]},
                          sentences=True)
    assert out["score"] == same["score"] and "robust:True" in out["signature"]
    with pytest.raises(ValueError, match="`model` does not apply"):
        metric.compute(**inputs, model="minilm")
