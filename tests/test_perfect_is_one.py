"""Perfect is 1: in robust mode, a prediction identical to a reference scores exactly 1 against it with every
reference-based metric (as ERRANT does), and no flag fires on its sentence; in the published mode the number stays
the reference implementation's and each flag on a perfect correction says so in a note."""

from __future__ import annotations

import warnings

import pytest

from gecscore import registry
from gecscore.cleme2.metric import ALPHA_SENTENCE

N = 40


@pytest.fixture(scope="module")
def seeda(shared_data):
    """40 SEEDA sentences, references REF0 / REF1, and REF0 as the system's predictions."""
    def lines(rel):
        return (shared_data / rel).read_text(encoding="utf-8").split("\n")[:N]

    references = [list(r) for r in zip(lines("SEEDA/derived/REF0.txt"), lines("SEEDA/derived/REF1.txt"))]
    return lines("SEEDA/outputs/subset/INPUT.txt"), lines("SEEDA/derived/REF0.txt"), references


def _run(name, seeda, **options):
    sources, perfect, references = seeda
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return registry.run(name, sources, perfect, references, **options)


MODEL_FREE = [("errant", {}), ("m2", {}), ("sentm2", {}), ("senterrant", {}), ("cleme", {}),
              ("cleme2", {"weighting": "none"}), ("cleme2", {"weighting": "none", "level": "sentence"}),
              ("gotoscorer", {}), ("green", {}), ("green", {"unit": "char", "beta": 0.5})]


@pytest.mark.parametrize("name, options", MODEL_FREE)
def test_model_free_metrics_score_a_perfect_system_one(seeda, name, options):
    result = _run(name, seeda, robust=True, **options)
    assert result.score == 1.0 and set(result.sentence_scores()) == {1.0}
    assert result.details["degenerate_sentences"] == []


def test_cleme2_published_rule_keeps_its_number_for_nothing_to_correct(seeda):
    """CLEME2.0's published rule gives a sentence with nothing to correct, left unchanged, hit 0 (com 1 − α_hit);
    robust mode scores it 1 and only those sentences change."""
    published = _run("cleme2", seeda, weighting="none", level="sentence")
    robust = _run("cleme2", seeda, weighting="none", level="sentence", robust=True)
    changed = [i for i, (a, b) in enumerate(zip(published.sentence_scores(), robust.sentence_scores())) if a != b]
    assert changed and all(published.sentences[i]["statistics"]["TN"] > 0 and
                           not any(published.sentences[i]["statistics"][k] for k in ("TP", "FP", "FN"))
                           for i in changed)
    assert all(published.sentence_scores()[i] == pytest.approx(1 - ALPHA_SENTENCE[0]) for i in changed)
    assert all(robust.sentence_scores()[i] == 1.0 for i in changed)


@pytest.mark.real_model
@pytest.mark.parametrize("name, options", [("uot_errant", {"model": "minilm"}),
                                           ("pt_m2", {"model": "minilm", "layer": 6}),
                                           ("pt_m2", {"model": "minilm", "layer": 6, "variant": "errant"}),
                                           ("cleme2", {"model": "minilm", "layer": 6})])
def test_neural_metrics_score_a_perfect_system_one(seeda, name, options):
    result = _run(name, seeda, robust=True, **options)
    assert result.score == 1.0 and set(result.sentence_scores()) == {1.0}
    assert result.details["degenerate_sentences"] == []


@pytest.mark.real_model
def test_published_uot_flags_on_perfect_corrections_say_so(seeda):
    result = _run("uot_errant", seeda, model="minilm")
    assert result.score < 1.0  # the reference implementation's number, kept
    flagged = result.details["degenerate_sentences"]
    assert flagged and all(record["perfect_reference"] == 0 for record in flagged)
    record = flagged[0]
    score = result.sentences[record["index"]]["score"]
    assert record["note"].startswith("the prediction equals reference 0 (a perfect correction); the published "
                                     f"metric scores this sentence {score:.4f}")


def test_tiny_uot_perfect_is_one_in_robust_mode(tiny_bert):
    sources, perfect, references = ["He go to school .", "She like cats ."], ["He goes to school .", "x"], \
        [["He goes to school ."], ["She likes cats ."]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robust = registry.run("uot_errant", sources, perfect, references, model=str(tiny_bert), robust=True)
    assert robust.sentence_scores()[0] == 1.0
    assert all(record["index"] != 0 for record in robust.details["degenerate_sentences"])
