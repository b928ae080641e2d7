"""PT-M2 / PT-ERRANT degenerate sentences and robust mode: truncated texts, zero-weight edits, inconsistent M²
counts, empty predictions, the signature, and that robust mode leaves every unflagged sentence as it was."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gecscore import registry
from gecscore.common.m2io import parse_m2
from gecscore.common.results import EMPTY_PREDICTION, INCONSISTENT_COUNTS, TRUNCATED, ZERO_WEIGHT_EDITS
from gecscore.pt_m2 import metric as pt_m2
from gecscore.pt_m2.lattice import AnnotatorEdits, GoldEdit, SysEdit
from test_pt_m2 import OverlapSimilarity  # the same stand-in for BERTScore

SELF = {"scorer": "self"}
#: A gold insertion of "the" written twice by one annotator: one system "the" matches both (P = 2 in plain M²).
DOUBLE = "S the cat are here .\nA 2 2|||M:DET|||the|||REQUIRED|||-NONE-|||0\nA 2 2|||M:DET|||the|||REQUIRED|||-NONE-|||0\n"
#: A gold edit with two alternatives; the system picks the second one.
ALTERNATIVES = "S he go to school .\nA 1 2|||R:VERB|||goes||went|||REQUIRED|||-NONE-|||0\n"
PLAIN = "S he go to school .\nA 1 2|||R:VERB|||goes|||REQUIRED|||-NONE-|||0\n"
LONG = " ".join(["the cat"] * 70) + " ."  # 141 words, 143 tokens with [CLS]/[SEP] for the tiny WordPiece model


def run(sources, predictions, gold=None, references=None, **options):
    """The registry's result and the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = registry.run("pt_m2", sources, predictions, references, gold_m2=gold, **options)
    return result, [w for w in caught if type(w.message).__name__ == "DegenerateOutputWarning"]


def reasons(result, index=None):
    return [r["reason"] for r in result.details["degenerate_sentences"] if index is None or r["index"] == index]


# ---------------------------------------------------------------------------------------------------
# Robust M² counts: correct ≤ proposed and correct ≤ gold

def test_robust_counts_count_a_system_edit_once():
    the = SysEdit(2, 2, "", "the")
    a = AnnotatorEdits(0, (the,), (the, the), (GoldEdit(2, 2, "", ("the",)),) * 2)
    assert a.counts() == (2, 1, 2)  # the official scorer's count: P = 2
    assert a.counts({the: 0.3}, robust=True) == (0.3, 0.3, 0.6)
    assert a.counts(robust=True) == (1.0, 1.0, 2.0)


def test_robust_counts_weigh_a_gold_edit_as_the_alternative_matched():
    went, goes = SysEdit(1, 2, "go", "went"), SysEdit(1, 2, "go", "goes")
    a = AnnotatorEdits(0, (went,), (went,), (GoldEdit(1, 2, "go", ("goes", "went")),))
    weights = {went: 0.5, goes: 0.1}
    assert a.counts(weights) == (0.5, 0.5, 0.1)  # R = 5
    assert a.counts(weights, robust=True) == (0.5, 0.5, 0.5)


def test_inconsistent_counts_flagged_and_bounded_by_robust():
    sources, predictions = ["the cat are here ."], ["the cat the are here ."]
    published, warned = run(sources, predictions, DOUBLE, **SELF)
    assert published.scores["precision"] == 2.0 and published.score > 1
    [record] = published.details["degenerate_sentences"]
    assert record == {"index": 0, "reason": INCONSISTENT_COUNTS, "annotator": 0, "counts": [2.0, 1.0, 2.0],
                      "robust_counts": [1.0, 1.0, 2.0]}
    assert len(warned) == 1 and INCONSISTENT_COUNTS in str(warned[0].message)
    robust, _ = run(sources, predictions, DOUBLE, robust=True, **SELF)
    assert robust.details["degenerate_sentences"] == [record]
    assert (robust.scores["precision"], robust.scores["recall"]) == (1.0, 0.5)
    for variant in ("m2", "sentm2"):
        assert 0.0 <= run(sources, predictions, DOUBLE, robust=True, variant=variant, **SELF)[0].score <= 1.0


class TableSimilarity:
    """F(candidate, reference) from a table of candidates (every text distinct)."""

    def __init__(self, table):
        self.table = table

    def __call__(self, candidates, references):
        return np.array([self.table[c] for c in candidates])

    def canonical(self, texts):
        return list(texts)


def test_alternative_with_another_weight_is_flagged_and_robust_stays_in_range():
    # w(goes) = 0.3 (the first alternative, what the published gold count uses), w(went) = 0.5: R = 5/3.
    sim = TableSimilarity({"he go to school .": 0.7, "he goes to school .": 1.0, "he went to school .": 0.2})
    score = lambda **kw: pt_m2.score_m2(["he go to school ."], ["he went to school ."], parse_m2(ALTERNATIVES),
                                        similarity=sim, **kw)
    for variant in ("m2", "sentm2"):
        result, fixed = score(variant=variant), score(variant=variant, robust=True)
        assert result.recall == pytest.approx(5 / 3) and result.f > 1
        [record] = result.degenerate
        assert record["reason"] == INCONSISTENT_COUNTS and record["counts"] == pytest.approx([0.5, 0.5, 0.3])
        assert record["robust_counts"] == pytest.approx([0.5, 0.5, 0.5])
        assert fixed.degenerate == result.degenerate
        assert (fixed.precision, fixed.recall, fixed.f) == (1.0, 1.0, 1.0)
    # The first alternative chosen: nothing to flag, the same numbers in both modes.
    plain = pt_m2.score_m2(["he go to school ."], ["he goes to school ."], parse_m2(ALTERNATIVES), similarity=sim)
    assert plain.degenerate == () and plain.f == 1.0


# ---------------------------------------------------------------------------------------------------
# Robust mode changes flagged sentences only

def test_robust_leaves_unflagged_sentences_exactly_as_published():
    gold = parse_m2(PLAIN + "\n" + DOUBLE + "\n" + "S I like it .\nA 3 3|||M|||very much|||REQUIRED|||-NONE-|||0\n"
                    + "\n" + "S a b c\nA 1 2|||U|||-NONE-|||REQUIRED|||-NONE-|||0\n")
    sources = ["he go to school .", "the cat are here .", "I like it .", "a b c"]
    predictions = ["he goes to school .", "the cat the are here .", "I like it much .", ""]
    for variant in ("sentm2", "m2"):
        published, _ = run(sources, predictions, gold, variant=variant, sentence_scores=True, **SELF)
        robust, _ = run(sources, predictions, gold, variant=variant, sentence_scores=True, robust=True, **SELF)
        flagged = {r["index"] for r in published.details["degenerate_sentences"]}
        assert flagged == {1, 3} and reasons(published, 3) == [EMPTY_PREDICTION]
        for i in set(range(4)) - flagged:
            assert robust.sentences[i] == published.sentences[i], (variant, i)
        assert all(0.0 <= s["f0.5"] <= 1.0 for s in robust.sentences) and 0.0 <= robust.score <= 1.0


def test_empty_prediction_scores_as_the_unchanged_source_in_robust_mode():
    gold = "S He go to to school .\nA 1 2|||Vt|||went|||REQUIRED|||-NONE-|||0\nA 3 4|||Rloc-|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    source = ["He go to to school ."]
    for variant in ("sentm2", "m2"):
        published, warned = run(source, [""], gold, variant=variant, **SELF)
        assert published.score > 0.0  # the deletion of "to" is credited: more than doing nothing
        assert reasons(published) == [EMPTY_PREDICTION] and len(warned) == 1
        robust, _ = run(source, ["  "], gold, variant=variant, robust=True, **SELF)
        unchanged, _ = run(source, source, gold, variant=variant, robust=True, **SELF)
        assert robust.score == unchanged.score == 0.0
        assert reasons(robust) == [EMPTY_PREDICTION]


def test_signature_records_robust_once():
    for robust in (False, True):
        result, _ = run(["he go to school ."], ["he goes to school ."], PLAIN, robust=robust, **SELF)
        assert result.signature.count("|robust:") == 1 and f"|robust:{robust}" in result.signature


# ---------------------------------------------------------------------------------------------------
# Zero-weight edits (BERTScore cannot see them)

def test_zero_weight_edits_name_the_edits_and_the_uniform_rule():
    gold = parse_m2("S a b c\nA 1 2|||R|||X|||REQUIRED|||-NONE-|||0\n")
    result = pt_m2.score_m2(["a b c"], ["a B c"], gold, similarity=OverlapSimilarity(), variant="m2")
    # (the M² lattice makes the case change one edit spanning the unchanged words around it)
    assert result.degenerate == ({"index": 0, "reason": ZERO_WEIGHT_EDITS, "annotator": 0,
                                  "edits": [{"start": 0, "end": 3, "orig": "a b c", "corr": "a B c", "system": True}]},)
    only_invisible = parse_m2("S a b c\nA 1 2|||R|||B|||REQUIRED|||-NONE-|||0\n")
    sent = pt_m2.score_m2(["a b c"], ["a B c"], only_invisible, similarity=OverlapSimilarity(), variant="sentm2")
    [record] = sent.degenerate
    assert record["uniform"] is True and record["edits"][0]["corr"] == "B"
    assert pt_m2.score_m2(["a b c"], ["a X c"], gold, similarity=OverlapSimilarity()).degenerate == ()
    assert pt_m2.score_m2(["a b c"], ["a B c"], gold).degenerate == ()  # unit weights: nothing is invisible


def test_zero_weight_edits_in_the_errant_variants(nlp):
    result = pt_m2.score_errant(["he go to school ."], ["He goes to school ."], [["he goes to school ."]],
                                extractor=pt_m2.default_extractor(), similarity=OverlapSimilarity(), variant="errant")
    [record] = result.degenerate
    assert record["reason"] == ZERO_WEIGHT_EDITS and record["reference"] == 0
    assert record["edits"] == [{"start": 0, "end": 1, "orig": "he", "corr": "He", "system": True}]


def test_case_edit_is_invisible_to_an_uncased_model(tiny_bert):
    result, warned = run(["he go to school ."], ["He go to school ."], PLAIN, model=str(tiny_bert), layer=1)
    assert reasons(result) == [ZERO_WEIGHT_EDITS] and len(warned) == 1
    assert result.details["degenerate_sentences"][0]["edits"][0]["corr"].startswith("He")
    assert 0.0 <= result.score <= 1.0
    robust, _ = run(["he go to school ."], ["He go to school ."], PLAIN, model=str(tiny_bert), layer=1, robust=True)
    assert robust.score == result.score  # the published rule (weight 0) is kept: already in [0, 1]


# ---------------------------------------------------------------------------------------------------
# Truncation at the BERTScore window

def test_long_texts_are_flagged_truncated(tiny_bert):
    source = LONG.replace(" .", " he go .")
    gold = f"S {source}\nA 141 142|||R:VERB|||goes|||REQUIRED|||-NONE-|||0\n"
    short = PLAIN
    result, warned = run([source, "he go to school ."], [source.replace("he go", "he goes"), "he goes to school ."],
                         gold + "\n" + short, model=str(tiny_bert), layer=1, return_edits=True, variant="m2")
    records = [r for r in result.details["degenerate_sentences"] if r["reason"] == TRUNCATED]
    assert {r["text"] for r in records} == {"source", "reference", "edited source"}
    assert all(r["index"] == 0 and r["limit"] == 128 and r["tokens"] > 128 for r in records)
    assert next(r for r in records if r["text"] == "reference")["annotator"] == 0
    # the edit lies beyond the window: BERTScore cannot see it, so it weighs 0 and is flagged as such too
    assert ZERO_WEIGHT_EDITS in reasons(result, 0) and reasons(result, 1) == []
    assert result.details["edits"][0]["candidates"][0]["system_edits"][0]["weight"] == 0.0
    assert len(warned) == 1 and "truncated: 1 [0]" in str(warned[0].message)


def test_errant_variant_flags_truncated_references(tiny_bert, nlp):
    result, _ = run(["he go to school ."], ["he goes to school ."], references=[["he goes to school . " + LONG]],
                    variant="errant", model=str(tiny_bert), layer=1)
    [record] = [r for r in result.details["degenerate_sentences"] if r["reason"] == TRUNCATED and
                r["text"] == "reference"]
    assert record["reference"] == 0 and record["tokens"] > record["limit"] == 128


def test_unit_weights_flag_no_truncation(tiny_bert):
    gold = f"S {LONG}\nA 0 1|||R|||a|||REQUIRED|||-NONE-|||0\n"
    result, warned = run([LONG], ["a" + LONG[3:]], gold, **SELF)
    assert result.details["degenerate_sentences"] == [] and warned == []
