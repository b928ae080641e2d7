"""GoToScorer under the original GoToScorer's rules (`rules='gts'`) equals gotutiyan/GTS 1.1, run as published on
SEEDA (`tests/golden_gotoscorer_gts/`): how many systems get each chunk right, and every system's weighted and
unweighted corpus counts and P/R/F0.5, float for float."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from gecscore import registry
from gecscore.gotoscorer import Chunk, judge, judge_gts

GOLDEN = json.loads((Path(__file__).parent / "golden_gotoscorer_gts" / "gts_golden.json").read_text("utf-8"))
SUBSET = "data/SEEDA/outputs/subset/"


def lines(parent: Path, relative: str) -> list[str]:
    """A file's sentences as the golden's maker read them."""
    return (parent / relative).read_text(encoding="utf-8").rstrip().split("\n")


@pytest.fixture(scope="module")
def seeda(shared_data):
    parent = shared_data.parent
    return (lines(parent, GOLDEN["src"]), [[r] for r in lines(parent, GOLDEN["ref"])],
            {name: lines(parent, f"{SUBSET}{name}.txt") for name in GOLDEN["systems"]})


def run(seeda, **options):
    sources, references, systems = seeda
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return registry.run_systems("gotoscorer", sources, systems, references, rules="gts", **options)


@pytest.mark.parametrize("weights", ["systems", "none"])
def test_equals_the_original_gotoscorer(seeda, weights, tmp_path):
    saved = tmp_path / "weights.json"
    results = run(seeda, weights=weights, **({"save_weights": str(saved)} if weights == "systems" else {}))
    label = "weighted" if weights == "systems" else "no_weight"
    for name in GOLDEN["systems"]:
        expected, result = GOLDEN["scores"][name][label], results[name]
        assert [result.scores[k] for k in ("tp", "fp", "fn", "tn")] == [expected[k] for k in ("tp", "fp", "fn", "tn")]
        assert (result.scores["precision"], result.scores["recall"], result.score) == (
            expected["precision"], expected["recall"], expected["f0.5"]), name
        assert "rules:gts" in result.signature
    if weights == "systems":  # the weight file GTS writes: the number of systems, then right-answer counts per chunk
        counts = [" ".join(str(sum(row)) for row in sentence["evaluations"])
                  for sentence in json.loads(saved.read_text(encoding="utf-8"))]
        assert [str(len(GOLDEN["systems"]))] + counts == GOLDEN["weight_file"]


def test_an_insertion_before_a_token_is_an_attempt_on_it_only_under_gts():
    token = Chunk(2, 3, "dog", "DUMMY:DUMMY", False)
    hypothesis = [Chunk(2, 2, "the", "M:DET", True), Chunk(2, 3, "cat", "R:NOUN", True)]
    assert judge(token, hypothesis[1:]) == judge(token, hypothesis) == (False, True)
    kept = [Chunk(2, 2, "the", "M:DET", True), Chunk(2, 3, "dog", "DUMMY:DUMMY", False)]
    edited = Chunk(2, 3, "dogs", "R:NOUN:NUM", True)
    assert judge(edited, kept) == (False, False)  # gec-metrics: the same-span chunk decides (untried): FN
    assert judge_gts(edited, kept) == (False, True)  # GTS: the insertion touches it (tried): FP and FN
    assert judge_gts(token, kept) == (True, False)  # the same span and correction wins
    slot = Chunk(4, 4, "a", "M:DET", True)
    assert judge_gts(slot, [Chunk(3, 5, "x", "R:OTHER", True)]) == (False, False)  # nothing at the slot: missed
    assert judge(slot, [Chunk(3, 5, "x", "R:OTHER", True)]) == (True, False)


def test_default_rules_and_english_signatures_do_not_move(seeda):
    sources, references, systems = seeda
    first = GOLDEN["systems"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = registry.run("gotoscorer", sources[:20], systems[first][:20], references[:20])
        named = registry.run("gotoscorer", sources[:20], systems[first][:20], references[:20], rules="gec-metrics")
    assert default.scores == named.scores and default.signature == named.signature
    assert "rules" not in default.signature
