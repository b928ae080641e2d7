"""PT-M2 / PT-ERRANT per-error-type breakdown (`return_types`): the types add up to the counts the metric scores,
levels merge consistently, M²'s attribution of unclassified system edits, the registry's `details["types"]`.

Unit weights (`scorer="self"`) give integer counts, so every sum is exact; weighted counts (the BERTScore
stand-in, MiniLM) are the same numbers added in another order (per type, then over types), so they agree to a
few ulps: `math.isclose` with rel_tol 1e-12.
"""

from __future__ import annotations

import json
import math
from typing import Mapping

import pytest

from gecscore import registry
from gecscore.common.errant_compare import category_of
from gecscore.common.errant_scoring import Counts, FScore, total
from gecscore.common.error_types import from_lists
from gecscore.common.m2io import read_m2
from gecscore.pt_m2 import metric as pt_m2
from gecscore.pt_m2.lattice import UNTYPED, AnnotatorEdits, GoldEdit, SysEdit, match_sequence

import float_noise
from test_pt_m2 import SEEDA_PTM2, OverlapSimilarity  # the same stand-in for BERTScore

SOURCES = ["She go to the school every days .", "I like it .", "He have a apple ."]
PREDICTIONS = ["She goes to school every day .", "I like it very much .", "He has a apple ."]
REFERENCES = [["She goes to school every day .", "She went to the school every day ."], ["I like it ."],
              ["He has an apple .", "He had an apple ."]]


def close(a: float, b: float) -> bool:
    """Equal up to float summation order (exact for unit weights)."""
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def as_counts(types: Mapping[str, Counts]) -> tuple[float, float, float]:
    """Correct / proposed / gold (TP, TP + FP, TP + FN) summed over the types."""
    t = total(types.values())
    return t.tp, t.tp + t.fp, t.tp + t.fn


def chosen_counts(result: pt_m2.PTResult) -> tuple[float, float, float]:
    """The corpus correct / proposed / gold: each sentence's chosen annotator or reference, added up."""
    return tuple(sum(s.counts[k] for s in result.sentences) for k in range(3))  # type: ignore[return-value]


def assert_levels_merge(tables: Mapping[int, Mapping]) -> None:
    """The level-1 and level-2 rows are the level-3 rows added up by category (exact: unit weights)."""
    assert [t["level"] for t in tables.values()] == [1, 2, 3]
    for level in (1, 2):
        merged: dict[str, list[float]] = {}
        for name, row in tables[3]["rows"].items():
            sums = merged.setdefault(category_of(name, level), [0.0, 0.0, 0.0])
            for k, key in enumerate(("tp", "fp", "fn")):
                sums[k] += row[key]
        assert {name: [row["tp"], row["fp"], row["fn"]] for name, row in tables[level]["rows"].items()} == merged


def assert_types_add_up(result: pt_m2.PTResult, exact: bool) -> None:
    """Every candidate's types add up to its counts, and the corpus table's rows to the corpus counts."""
    same = (lambda a, b: a == b) if exact else close
    for s in result.sentences:
        for c in s.candidates:
            assert all(map(same, as_counts(c.types), c.counts)), (s, c)
    rows = pt_m2.types_table(result, 3, 0.5)["rows"]
    summed = as_counts({name: Counts(r["tp"], r["fp"], r["fn"]) for name, r in rows.items()})
    assert all(map(same, summed, chosen_counts(result)))


# ---------------------------------------------------------------------------------------------------
# M²: gold types, attribution of system edits

#: 0 He 1 go 2 to 3 school 4 every 5 day 6 and 7 buy 8 a 9 apple 10 .
GOLD = (GoldEdit(1, 2, "go", ("goes",)), GoldEdit(7, 8, "buy", ("buys", "bought")), GoldEdit(8, 9, "a", ("an",)))
TYPES = ["R:VERB:SVA", "R:VERB:FORM", "R:DET"]
GOES, BUYING = SysEdit(1, 2, "go", "goes"), SysEdit(7, 8, "buy", "buying")
TODAY, EVERY = SysEdit(10, 10, "", "today"), SysEdit(4, 5, "every", "")


def annotator(*edits: SysEdit) -> AnnotatorEdits:
    seq = tuple(reversed(edits))  # the lattice lists edits right to left
    return AnnotatorEdits(0, seq, tuple(match_sequence(seq, GOLD)), GOLD)


def test_m2_matches_and_misses_count_under_the_gold_type():
    a = annotator(GOES, BUYING, TODAY, EVERY)
    assert pt_m2.typed_m2_counts(a.typed_counts(TYPES)) == {
        "R:VERB:SVA": Counts(1, 0, 0),
        "R:VERB:FORM": Counts(0, 1, 1),  # "buying" where the gold has "buys": the error it attempted
        "R:DET": Counts(0, 0, 1),
        f"U:{UNTYPED}": Counts(0, 1, 0),  # touching no gold edit: the operation from the edit's shape
        f"M:{UNTYPED}": Counts(0, 1, 0),
    }
    assert as_counts(pt_m2.typed_m2_counts(a.typed_counts(TYPES))) == tuple(a.counts())


def test_m2_system_edits_count_under_the_first_gold_edit_they_touch():
    merged = SysEdit(6, 8, "and buy", "and buying")  # M² merges edits with up to 2 unchanged words
    before_a = SysEdit(8, 8, "", "one")  # an insertion touches the token on its right
    types = annotator(merged, before_a).typed_counts(TYPES)
    assert types == {"R:VERB:FORM": (0, 1, 1), "R:DET": (0, 1, 1), "R:VERB:SVA": (0, 0, 1)}
    wide = SysEdit(7, 9, "buy a", "buys an")  # touches gold edits 1 and 2: the first one
    assert annotator(wide).typed_counts(TYPES) == {"R:VERB:FORM": (0, 1, 1), "R:VERB:SVA": (0, 0, 1),
                                                   "R:DET": (0, 0, 1)}


def test_m2_weighted_types_add_up_to_the_weighted_counts():
    a = annotator(GOES, BUYING, TODAY, EVERY)
    weights = {GOES: 0.3, BUYING: 0.125, TODAY: 0.7, EVERY: 0.01, GOLD[1].first: 0.2, GOLD[2].first: 0.05}
    types = a.typed_counts(TYPES, weights)
    assert types["R:VERB:SVA"] == (0.3, 0.3, 0.3) and types["R:VERB:FORM"] == (0.0, 0.125, 0.2)
    assert all(map(close, as_counts(pt_m2.typed_m2_counts(types)), a.counts(weights)))


def test_m2_inconsistent_counts_keep_their_sums_and_robust_mode_bounds_them():
    the = SysEdit(2, 2, "", "the")
    double = AnnotatorEdits(0, (the,), (the, the), (GoldEdit(2, 2, "", ("the",)),) * 2)
    types = ["M:DET", "M:DET"]
    assert double.typed_counts(types) == {"M:DET": (2, 1, 2)} == {"M:DET": double.counts()}
    assert double.typed_counts(types, robust=True) == {"M:DET": double.counts(robust=True)}
    went, goes = SysEdit(1, 2, "go", "went"), SysEdit(1, 2, "go", "goes")
    alternative = AnnotatorEdits(0, (went,), (went,), (GoldEdit(1, 2, "go", ("goes", "went")),))
    weights = {went: 0.5, goes: 0.1}
    for robust in (False, True):
        assert alternative.typed_counts(["R:VERB"], weights, robust=robust) == {
            "R:VERB": alternative.counts(weights, robust=robust)}


@pytest.mark.parametrize("variant", ["m2", "sentm2"])
@pytest.mark.parametrize("robust", [False, True])
def test_m2_types_add_up_on_the_seeda_subset(golden, variant, robust):
    """NUCLE-typed gold M2 (two annotators, 391 sentences): exact with unit weights, to float order weighted."""
    root = golden / SEEDA_PTM2
    gold = read_m2(root / "reference.m2")
    sources = (root / "source").read_text().split("\n")[:len(gold)]
    hypotheses = [line.strip() for line in (root / "hyp_T5").read_text().splitlines()]
    for similarity in (None, OverlapSimilarity()):
        result = pt_m2.score_m2(sources, hypotheses, gold, variant=variant, similarity=similarity, robust=robust)
        assert_types_add_up(result, exact=similarity is None)
        if variant == "m2" and similarity is None:  # the corpus P/R are those of the added counts
            c, p, g = chosen_counts(result)
            assert (result.precision, result.recall) == (c / p, c / g)


M2_GOLD = ("S He go to school .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
           "A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1\n\n"
           "S I like it .\nA 3 3|||M:ADV|||very much|||REQUIRED|||-NONE-|||0\n")


def test_m2_details_and_sentence_records_through_the_registry():
    args = (["He go to school .", "I like it ."], ["He went to school .", "I like it a lot ."])
    tables = {level: registry.run("pt_m2", *args, gold_m2=M2_GOLD, scorer="self", variant="m2",
                                  return_types=level).details["types"] for level in (1, 2, 3)}
    assert_levels_merge(tables)
    assert list(tables[1]["rows"]) == ["M", "R"] and list(tables[2]["rows"]) == ["ADV", "VERB:TENSE"]
    out = registry.run("pt_m2", *args, gold_m2=M2_GOLD, scorer="self", variant="m2", return_types=3)
    assert out.details["types"] == {"level": 3, "rows": {
        "M:ADV": {"tp": 0.0, "fp": 1.0, "fn": 1.0, "precision": 0.0, "recall": 0.0, "f0.5": 0.0},
        "R:VERB:TENSE": {"tp": 1.0, "fp": 0.0, "fn": 0.0, "precision": 1.0, "recall": 1.0, "f0.5": 1.0}}}
    first = out.sentences[0]  # against annotator 0, M² extracts "He go -> He went", which touches "go -> goes"
    assert first["annotator"] == 1 and first["types"] == [{"R:VERB:SVA": [0.0, 1.0, 1.0]},
                                                           {"R:VERB:TENSE": [1.0, 0.0, 0.0]}]
    # M² merges the insertion with the next token (". -> a lot ."), which the gold insertion touches too
    assert out.sentences[1]["types"] == [{"M:ADV": [0.0, 1.0, 1.0]}]


def test_m2_levels_need_errant_types():
    nucle = "S He go to school .\nA 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0\n"
    args = (["He go to school ."], ["He goes to school ."])
    for level in (1, 2):
        with pytest.raises(ValueError, match="merges ERRANT error types.*'SVA'.*return_types=3"):
            registry.run("pt_m2", *args, gold_m2=nucle, scorer="self", return_types=level)
    rows = registry.run("pt_m2", *args, gold_m2=nucle, scorer="self", return_types=3).details["types"]["rows"]
    assert list(rows) == ["SVA"]


def test_return_types_is_an_output_option_checked_like_the_others():
    args = (["He go to school ."], ["He goes to school ."])
    plain = registry.run("pt_m2", *args, gold_m2=M2_GOLD.split("\n\n")[0], scorer="self")
    assert "types" not in plain.details and plain.sentences[0]["types"]
    with pytest.raises(ValueError, match="return_types"):
        registry.run("pt_m2", *args, gold_m2=M2_GOLD.split("\n\n")[0], scorer="self", return_types=4)
    typed = registry.run("pt_m2", *args, gold_m2=M2_GOLD.split("\n\n")[0], scorer="self", return_types=1)
    assert typed.signature == plain.signature and typed.scores == plain.scores


# ---------------------------------------------------------------------------------------------------
# PT-ERRANT

@pytest.fixture(scope="module")
def errant_results(nlp) -> dict[tuple[str, bool], pt_m2.PTResult]:
    """PT-ERRANT of the small corpus per variant, with unit weights (False) and the stand-in (True)."""
    return {(variant, weighted): pt_m2.score_errant(SOURCES, PREDICTIONS, REFERENCES,
                                                    extractor=pt_m2.default_extractor(), variant=variant,
                                                    similarity=OverlapSimilarity() if weighted else None)
            for variant in ("errant", "senterrant") for weighted in (False, True)}


@pytest.mark.parametrize("variant", ["errant", "senterrant"])
@pytest.mark.parametrize("weighted", [False, True])
def test_errant_types_add_up_to_the_counts(errant_results, variant, weighted):
    result = errant_results[variant, weighted]
    for s in result.sentences:  # the metric's own sums: the same numbers added in the same order, so exact
        for c in s.candidates:
            t = total(c.types.values())
            assert (t.tp, t.tp + t.fp, t.tp + t.fn) == c.counts
    assert_types_add_up(result, exact=not weighted)


def test_errant_chosen_reference_per_variant(errant_results):
    """`errant` sums the greedy corpus choice, `senterrant` each sentence's own best reference."""
    rule = FScore(0.5, "errant")
    for weighted in (False, True):
        per_sentence = [[total(c.types.values()) for c in s.candidates]
                        for s in errant_results["errant", weighted].sentences]
        aggregate = rule.aggregate(per_sentence)
        assert [s.chosen for s in errant_results["errant", weighted].sentences] == aggregate.corpus_refs
        assert [s.chosen for s in errant_results["senterrant", weighted].sentences] == aggregate.sentence_refs


def test_errant_types_of_the_small_corpus(errant_results):
    result = errant_results["errant", False]
    assert [dict(s.types) for s in result.sentences] == [
        {"R:VERB:SVA": Counts(1, 0, 0), "U:DET": Counts(1, 0, 0), "R:NOUN:NUM": Counts(1, 0, 0)},
        {"M:ADV": Counts(0, 1, 0)},
        {"R:VERB:SVA": Counts(1, 0, 0), "R:DET": Counts(0, 0, 1)},
    ]


@pytest.mark.parametrize("variant", ["errant", "senterrant"])
def test_errant_details_through_the_registry_and_levels_merge(nlp, variant):
    results = {level: registry.run("pt_m2", SOURCES, PREDICTIONS, REFERENCES, variant=variant, scorer="self",
                                   return_types=level) for level in (1, 2, 3)}
    tables = {level: r.details["types"] for level, r in results.items()}
    assert_levels_merge(tables)
    full = tables[3]["rows"]
    assert list(tables[1]["rows"]) == ["M", "R", "U"] and list(tables[2]["rows"]) == ["ADV", "DET", "NOUN:NUM",
                                                                                       "VERB:SVA"]
    assert set(full["R:VERB:SVA"]) == {"tp", "fp", "fn", "precision", "recall", "f0.5"}
    records = results[3].sentences
    for s in records:  # per reference, aligned with `counts`
        assert len(s["types"]) == len(s["counts"])
        for types, counts in zip(s["types"], s["counts"]):
            t = total(from_lists(types).values())
            assert [t.tp, t.tp + t.fp, t.tp + t.fn] == counts
    tp, fp = (sum(row[k] for row in full.values()) for k in ("tp", "fp"))
    if variant == "errant":  # the corpus precision is that of the added rows
        assert results[3].scores["precision"] == tp / (tp + fp)


# ---------------------------------------------------------------------------------------------------
# MiniLM on the SEEDA subset (the golden PT-ERRANT setup of test_pt_m2)

@pytest.mark.real_model
@pytest.mark.slow
def test_pt_errant_minilm_types_add_up_on_seeda(golden, shared_data, nlp, minilm):
    expected = json.loads((golden / "pt_errant" / "pterrant_BART.json").read_text())
    read = lambda p: [line.rstrip() for line in (shared_data / p).read_text().rstrip().split("\n")]
    inputs = expected["inputs"]
    sources, hypotheses = read(inputs["sources"]), read(inputs["hypotheses"])
    references = [list(r) for r in zip(*map(read, inputs["references"]))]
    out = registry.run("pt_m2", sources, hypotheses, references, variant="errant", model="minilm", layer=6,
                       return_types=3)
    rows = out.details["types"]["rows"]
    tp, fp, fn = (math.fsum(row[k] for row in rows.values()) for k in ("tp", "fp", "fn"))
    chosen = [s["counts"][s["reference"]] for s in out.sentences]
    correct, proposed, gold = (math.fsum(c[k] for c in chosen) for k in range(3))
    assert close(tp, correct) and close(tp + fp, proposed) and close(tp + fn, gold)
    assert close(out.scores["precision"], tp / (tp + fp)) and close(out.scores["recall"], tp / (tp + fn))
    want = expected["corpus"]
    # weights agree to 1e-5 (test_pt_m2's parity), so their corpus sums to 1e-4
    float_noise.check((tp, fp, fn), (want["tp"], want["fp"], want["fn"]), 1e-4, "corpus tp, fp, fn")
