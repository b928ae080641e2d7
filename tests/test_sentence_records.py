"""Every metric's sentence records follow the one schema of docs/sentence-records.md (common keys first, then the
keys its SPEC declares), in every variant, unsharded and merged from shards, and the document lists them all."""

import math
import warnings
from pathlib import Path

import pytest

from gecscore import registry, sharding
from gecscore.common.results import SENTENCE_KEYS, MetricResult

from conftest import build_tiny_model
from test_some_scribendi import tiny_reference_free

DOC = Path(__file__).resolve().parents[1] / "docs" / "sentence-records.md"

SOURCES = ["I has a apple .", "He go to school yesterday .", "This is fine .", "She like cats and dog ."]
PREDICTIONS = ["I have an apple .", "He went to the school yesterday .", "This is fine .", "She likes cats and dog ."]
REFERENCES = [["I have an apple .", "I had an apple ."], ["He went to school yesterday ."], ["This is fine ."],
              ["She likes cats and dogs .", "She likes cats and a dog .", "She liked cats and dogs ."]]

MODEL_FREE = [
    ("uot_errant", {"variant": "errant"}),
    ("uot_errant", {"variant": "errant", "convention": "errant_compare", "return_types": 3}),
    ("pt_m2", {"scorer": "self"}),
    ("pt_m2", {"scorer": "self", "variant": "m2", "beta": 1.0}),
    ("pt_m2", {"scorer": "self", "variant": "errant"}),
    ("pt_m2", {"scorer": "self", "variant": "senterrant"}),
    ("cleme2", {"weighting": "none"}),
    ("cleme2", {"weighting": "none", "level": "sentence", "assumption": "independent"}),
    ("cleme2", {"variant": "cleme", "weighting": "none"}),
    ("cleme2", {"variant": "cleme", "level": "sentence"}),
    ("gleu", {}),
    ("gleu", {"iterations": 20, "seed_step": 7}),
    ("gleu", {"variant": "gec-metrics", "unit": "char"}),
    ("gotoscorer", {}),
    ("gotoscorer", {"beta": 1.0, "return_types": 2}),
    ("green", {}),
    ("green", {"unit": "char", "beta": 0.5}),
]


def declared(name: str, result: MetricResult) -> set[str]:
    """The keys a record of `name` may hold: the common ones and the SPEC's (`f{beta}` is the F key, e.g. `f0.5`,
    the headline of the metrics that declare it)."""
    own = {key.replace("f{beta}", result.main) for key, _ in registry.spec(name).sentence_fields}
    return set(SENTENCE_KEYS) | own


def check_records(name: str, result: MetricResult, references: list[list[str]] | None) -> None:
    spec = registry.spec(name)
    assert result.n == len(SOURCES)
    allowed = declared(name, result)
    for i, record in enumerate(result.sentences):
        where = f"{name} sentence {i}"
        assert list(record)[:len(SENTENCE_KEYS)] == list(SENTENCE_KEYS), where
        assert set(record) <= allowed, f"{where}: undeclared keys {set(record) - allowed}"
        assert isinstance(record["score"], float) and math.isfinite(record["score"]), where
        assert record["score"] == record[result.main], where
        if spec.reference_free:
            assert record["reference"] is None and record["statistics"] == {} and record["per_reference"] == []
            continue
        assert len(record["per_reference"]) == len(references[i]), where
        assert isinstance(record["reference"], int) and 0 <= record["reference"] < len(references[i]), where
        assert record["statistics"] == record["per_reference"][record["reference"]], where
        for stats in record["per_reference"]:
            assert tuple(stats) == spec.statistics, where
            assert all(isinstance(v, float) for v in stats.values()), where


@pytest.mark.parametrize("name, options", MODEL_FREE,
                         ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()))
def test_model_free_records_follow_the_schema_unsharded_and_sharded(nlp, name, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_records(name, registry.run(name, SOURCES, PREDICTIONS, REFERENCES, **options), REFERENCES)
        if options.get("weighting", "length") == "length" and options.get("variant") == "cleme":
            return  # CLEME's length weights depend on the whole corpus: refused in shards (test_sharded.py)
        check_records(name, sharding.run_in_shards(name, SOURCES, PREDICTIONS, REFERENCES, shards=2, **options),
                      REFERENCES)


def test_model_records_follow_the_schema(nlp, tiny_bert, tmp_path):
    qe = build_tiny_model(tmp_path / "qe", "bert", num_labels=1)
    runs = [("uot_errant", {"model": str(tiny_bert)}, REFERENCES),
            ("pt_m2", {"model": str(tiny_bert), "layer": 1}, REFERENCES),
            ("pt_m2", {"model": str(tiny_bert), "layer": 1, "variant": "errant"}, REFERENCES),
            ("cleme2", {"model": str(tiny_bert), "layer": 1}, REFERENCES),
            ("impara_ged", {"model": str(qe)}, None), *tiny_reference_free(tmp_path),
            ("bertscore", {"model": str(tiny_bert), "layer": 1, "rescale_with_baseline": False}, REFERENCES)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, options, references in runs:
            check_records(name, registry.run(name, SOURCES, PREDICTIONS, references, **options), references)


def test_a_record_out_of_schema_is_caught():
    result = registry.run("uot_errant", SOURCES, PREDICTIONS, REFERENCES, variant="errant")
    result.sentences[0]["reference"] = 1 - result.sentences[0]["reference"]
    with pytest.raises(AssertionError):
        check_records("uot_errant", result, REFERENCES)
    result = registry.run("cleme2", SOURCES, PREDICTIONS, REFERENCES, weighting="none")
    result.sentences[1]["extra"] = 1.0
    with pytest.raises(AssertionError, match="undeclared"):
        check_records("cleme2", result, REFERENCES)


@pytest.mark.parametrize("name", list(registry.SPECS))
def test_the_document_lists_every_declared_key(name):
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## {registry.spec(name).title}\n", 1)
    assert len(section) == 2, f"docs/sentence-records.md has no section '## {registry.spec(name).title}'"
    body = section[1].split("\n## ", 1)[0]
    for key in SENTENCE_KEYS:
        assert f"`{key}`" in text.split("\n## ", 1)[0], key
    for stat in registry.spec(name).statistics:
        assert f"`{stat}`" in body, f"{name}: statistic {stat!r} not documented"
    for key, _ in registry.spec(name).sentence_fields:
        assert f"`{key}`" in body, f"{name}: key {key!r} not documented"
