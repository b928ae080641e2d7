"""ERRANT-family counts, zero-division rules, best reference and greedy corpus choice; ERRANT golden parity."""

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gecscore.common.edits import Edit
from gecscore.common.errant_scoring import Counts, FScore, edit_counts, errant_counts, total, typed_edit_counts

ERRANT = FScore(0.5, "errant")
UOT = FScore(0.5, "denominator")


def edit(o_start, o_end, c_str, etype="R:OTHER"):
    return Edit(o_start, o_end, "x", o_start, o_start + len(c_str.split()), c_str, etype)


def test_counts_add_and_total():
    assert Counts(1, 2, 3) + Counts(0.5, 0, 1) == Counts(1.5, 2, 4)
    assert total([Counts(1, 0, 0), Counts(0, 1, 0), Counts(0, 0, 1)]) == Counts(1, 1, 1)
    assert total([]) == Counts()


@pytest.mark.parametrize("counts, errant_prf, uot_prf", [
    (Counts(0, 0, 0), (1.0, 1.0, 1.0), (1.0, 1.0, 1.0)),      # nothing to do, nothing done
    (Counts(0, 0, 3), (1.0, 0.0, 0.0), (1.0, 0.0, 0.0)),      # hypothesis made no edits
    (Counts(0, 2, 0), (0.0, 1.0, 0.0), (0.0, 1.0, 0.0)),      # reference made no edits
    (Counts(2, 0, 0), (1.0, 1.0, 1.0), (1.0, 1.0, 1.0)),
    (Counts(1, 1, 3), (0.5, 0.25, 5 / 12), (0.5, 0.25, 5 / 12)),
])
def test_zero_division_rules(counts, errant_prf, uot_prf):
    assert tuple(ERRANT.prf(counts)) == pytest.approx(errant_prf)
    assert tuple(UOT.prf(counts)) == pytest.approx(uot_prf)


def test_rules_differ_on_negative_mass():
    # UOT can transport more than the available mass: FP < 0 and TP + FP == 0 only under float cancellation.
    c = Counts(tp=2.0, fp=-2.0, fn=0.5)
    assert UOT.precision(c) == 1.0                       # TP + FP == 0
    with pytest.raises(ZeroDivisionError):
        ERRANT.precision(c)
    assert UOT.prf(Counts(2.0, -1.0, 0.0)).p == 2.0      # precision above 1 is kept


def test_f_beta_and_validation():
    assert FScore(1.0).f_from(0.5, 1.0) == pytest.approx(2 / 3)
    assert FScore(2.0).f_from(0.5, 1.0) == pytest.approx(5 * 0.5 / (4 * 0.5 + 1))
    assert ERRANT.f_from(0.0, 0.0) == 0.0
    with pytest.raises(ValueError, match="zero_division"):
        FScore(0.5, "m2")
    with pytest.raises(ValueError, match="beta"):
        FScore(-1)


def test_best_reference_key_order_and_first_wins_ties():
    a, b = Counts(1, 1, 1), Counts(2, 2, 2)          # same F; b has more TP
    assert ERRANT.best_reference([a, b]) == 1
    c, d = Counts(1, 1, 1), Counts(1, 1, 1)
    assert ERRANT.best_reference([c, d]) == 0         # exact tie: first
    e, f = Counts(1, 1, 2), Counts(1, 1, 1)           # same TP and FP, fewer FN wins (and higher F)
    assert ERRANT.best_reference([e, f]) == 1
    g, h = Counts(0, 0, 0), Counts(0, 0, 0)
    assert UOT.best_reference([g, h]) == 0
    with pytest.raises(ValueError, match="at least one reference"):
        ERRANT.best_reference([])


def test_corpus_choice_is_greedy_on_running_total():
    # Sentence 0: only one reference. Sentence 1: alone, ref 0 is better (F 1.0 vs 0.833),
    # but added to the running total ref 1 (more TP) gives the higher corpus F.
    per_sentence = [[Counts(0, 4, 0)], [Counts(1, 0, 0), Counts(5, 0, 1)]]
    agg = ERRANT.aggregate(per_sentence)
    assert agg.sentence_refs == [0, 0]
    assert agg.corpus_refs == [0, 1]
    assert agg.corpus == Counts(5, 4, 1)
    assert agg.sentence_counts == [Counts(0, 4, 0), Counts(1, 0, 0)]


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=5))
def test_best_reference_is_first_maximum(triples):
    refs = [Counts(*map(float, t)) for t in triples]
    keys = [ERRANT.key(c) for c in refs]
    assert ERRANT.best_reference(refs) == keys.index(max(keys))


def test_typed_edit_counts_follow_errant():
    hyp = [edit(1, 1, "the", "M:DET"), edit(3, 4, "went", "R:VERB:TENSE"), edit(5, 6, "", "U:PREP")]
    ref = [edit(1, 1, "the", "M:DET"), edit(3, 4, "goes", "R:VERB:SVA"), edit(7, 8, "dog", "R:NOUN")]
    by_type = typed_edit_counts(hyp, ref)
    assert list(by_type) == ["M:DET", "R:VERB:TENSE", "U:PREP", "R:VERB:SVA", "R:NOUN"]
    assert by_type["M:DET"] == Counts(1, 0, 0)
    assert by_type["R:VERB:TENSE"] == Counts(0, 1, 0)
    assert by_type["R:VERB:SVA"] == Counts(0, 0, 1)
    assert edit_counts(hyp, ref) == Counts(1, 2, 2)
    # identity is (o_start, o_end, c_str): a different type still matches
    assert edit_counts([edit(3, 4, "goes", "R:VERB")], [edit(3, 4, "goes", "R:VERB:SVA")]) == Counts(1, 0, 0)
    # duplicates count once per occurrence
    assert edit_counts([edit(1, 1, "a")] * 2, [edit(1, 1, "a")]) == Counts(2, 0, 0)
    assert edit_counts([], []) == Counts()
    with pytest.raises(ValueError, match="sentences"):
        errant_counts([[]], [])


def _read_lines(path):
    return [line.rstrip() for line in path.read_text().rstrip().split("\n")]


@pytest.mark.real_model
@pytest.mark.parametrize("system", ["BART", "INPUT", "T5"])
def test_errant_golden_exact(system, golden, shared_data, nlp):
    from gecscore.common.edits import get_extractor

    case = json.loads((golden / "errant" / f"errant_{system}.json").read_text())
    sources = _read_lines(shared_data / case["inputs"]["sources"])
    hypotheses = _read_lines(shared_data / case["inputs"]["hypotheses"])
    references = [_read_lines(shared_data / p) for p in case["inputs"]["references"]]
    extractor = get_extractor(nlp)
    hyp_edits = extractor.extract(sources, hypotheses)
    ref_edits = [extractor.extract(sources, refs) for refs in references]
    per_sentence = errant_counts(hyp_edits, [list(r) for r in zip(*ref_edits)])
    rule = FScore(case["config"]["beta"], "errant")
    agg = rule.aggregate(per_sentence)

    corpus = case["corpus"]
    assert (agg.corpus.tp, agg.corpus.fp, agg.corpus.fn) == (corpus["tp"], corpus["fp"], corpus["fn"])
    assert tuple(rule.prf(agg.corpus)) == (corpus["p"], corpus["r"], corpus["score"])
    assert agg.corpus_refs == corpus["chosen_refs"]
    for i, expected in enumerate(case["sentences"]):
        got = agg.sentence_counts[i]
        assert [[e.o_start, e.o_end, e.o_str, e.c_str, e.type] for e in hyp_edits[i]] == expected["hyp_edits"]
        assert agg.sentence_refs[i] == expected["chosen_ref"], i
        assert (got.tp, got.fp, got.fn) == (expected["tp"], expected["fp"], expected["fn"]), i
        assert tuple(rule.prf(got)) == (expected["p"], expected["r"], expected["score"]), i
        for r, per_ref in enumerate(expected["per_ref"]):
            c = per_sentence[i][r]
            assert (c.tp, c.fp, c.fn, *rule.prf(c)) == tuple(per_ref[k] for k in ("tp", "fp", "fn", "p", "r", "f"))
    mean = sum(rule.prf(c).f for c in agg.sentence_counts) / len(agg.sentence_counts)
    assert math.isclose(mean, case["sentence_mean"], rel_tol=0, abs_tol=1e-12)
