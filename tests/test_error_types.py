"""Per-error-type breakdown (`return_types`) of ERRANT and UOT-ERRANT: the categories add up to the corpus counts
the metric returns, and the three levels merge consistently."""

from __future__ import annotations

import json
import math
import warnings

import pytest

from gecscore import registry
from gecscore.common.results import DegenerateOutputWarning

import float_noise

SOURCES = ["He go to school every days .", "She have two cat and a dogs .", "I am agree with you .",
           "This are a books .", "We was happy ."]
PREDICTIONS = ["He goes to school every day .", "She has two cats and a dog .", "I agree with you .",
               "This is a book .", "We was happy !"]
REFERENCES = [["He goes to school every day .", "He went to school every day ."],
              ["She has two cats and a dog .", "She has two cats and dogs ."], ["I agree with you ."],
              ["This is a book .", "These are books ."], ["We were happy ."]]


def _sums(rows: dict) -> tuple[float, float, float]:
    return tuple(math.fsum(r[k] for r in rows.values()) for k in ("tp", "fp", "fn"))


def _by_level(name: str, **options) -> dict[int, dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateOutputWarning)
        return {level: registry.run(name, SOURCES, PREDICTIONS, REFERENCES, return_types=level, **options)
                for level in (1, 2, 3)}


@pytest.mark.parametrize("convention", ["gec-metrics", "errant_compare"])
def test_errant_types_add_up_exactly(nlp, convention):
    runs = _by_level("errant", convention=convention)
    for level, result in runs.items():
        rows = result.details["types"]["rows"]
        assert result.details["types"]["level"] == level
        assert _sums(rows) == (result.scores["tp"], result.scores["fp"], result.scores["fn"])
    assert set(runs[1].details["types"]["rows"]) <= {"M", "R", "U", "UNK"}
    full = runs[3].details["types"]["rows"]
    assert "R:VERB:SVA" in full and "VERB:SVA" in runs[2].details["types"]["rows"]
    for operation, row in runs[1].details["types"]["rows"].items():
        assert row["tp"] == sum(r["tp"] for t, r in full.items() if t[0] == operation)


def test_uot_types_add_up_to_the_transported_counts(tiny_bert, nlp):
    """Transported mass per type sums to the corpus counts up to float summation order (types are summed over
    sentences, the corpus counts over types first), hence the relative 1e-12."""
    runs = _by_level("uot_errant", model=str(tiny_bert))
    for result in runs.values():
        for ours, total in zip(_sums(result.details["types"]["rows"]), (result.scores[k] for k in ("tp", "fp", "fn"))):
            assert math.isclose(ours, total, rel_tol=1e-12, abs_tol=1e-12)
    rows = runs[3].details["types"]["rows"]
    row = rows["R:VERB:SVA"]
    assert row["precision"] == pytest.approx(row["tp"] / (row["tp"] + row["fp"]))
    assert any(not float(r["tp"]).is_integer() for r in rows.values())  # transported mass, not edit counts


def test_no_types_unless_asked(nlp):
    result = registry.run("errant", SOURCES, PREDICTIONS, REFERENCES)
    assert "types" not in result.details and "per_ref_types" in result.sentences[0]
    with pytest.raises(ValueError, match="`return_types` must be one of"):
        registry.run("errant", SOURCES, PREDICTIONS, REFERENCES, return_types=4)


@pytest.mark.real_model
def test_seeda_uot_types_add_up_and_golden_counts_are_unchanged(golden, shared_data, minilm, nlp):
    cases = {s: json.loads((golden / "uot_errant" / f"uot_{s}.json").read_text()) for s in ("BART", "T5")}
    first = cases["BART"]["inputs"]

    def lines(path: str) -> list[str]:
        return [line.rstrip() for line in (shared_data / path).read_text().rstrip().split("\n")]

    references = [list(r) for r in zip(*(lines(p) for p in first["references"]))]
    systems = {s: lines(c["inputs"]["hypotheses"]) for s, c in cases.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateOutputWarning)
        results = registry.run_systems("uot_errant", lines(first["sources"]), systems, references, model=str(minilm),
                                       return_types=2)
    for system, result in results.items():
        corpus = cases[system]["corpus"]  # the golden parity test's corpus tolerance (docs/tolerances.md)
        float_noise.check([result.scores[k] for k in ("precision", "recall", "f0.5")],
                          [corpus[k] for k in ("p", "r", "score")], 5e-4, f"{system} corpus")
        for ours, total in zip(_sums(result.details["types"]["rows"]), (result.scores[k] for k in ("tp", "fp", "fn"))):
            assert math.isclose(ours, total, rel_tol=1e-12)
