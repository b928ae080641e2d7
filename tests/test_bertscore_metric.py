"""The `bertscore` metric equals gec-metrics 0.1.1's `bertscore` (golden files made by tests/golden_bertscore/
make_golden.py), through the CLI, in shards, with sentence records and clear errors.

Tolerance (float kernels): gec-metrics runs bert_score, which computes the similarities in float32 in batches
padded to the longest sentence; our core computes them per sentence pair (float32 embeddings, float64 sums). On the
golden data the unrescaled sentence scores differ by at most 2.4e-7 (about two float32 ulps near 1) and the corpus
means by at most 5e-8; rescaling `(x - b) / (1 - b)` multiplies a difference by 1 / (1 - b) (up to 8.9e-7 measured
with b = 0.75). The `idf=True` cases (bert_score's idf over the references, issue 42) measured the same on the build
machine: at most 2.9e-7 unrescaled, 1.2e-6 rescaled (b = 0.75; the cases without idf there: 2.6e-7, 1.1e-6), corpus
means at most 6e-8. `RAW_TOLERANCE` = 1e-6, about four times the largest unrescaled difference, scaled by 1 / (1 - b)
for rescaled scores: far below a score's last reported digit (1e-4) and far above float noise.
"""

import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from gecscore import registry, sharding
from gecscore.bertscore.metric import sentence_values
from gecscore.common.bertscore import read_baseline
from gecscore.cli import main

from conftest import build_tiny_model

GOLDEN_DIR = Path(__file__).resolve().parent / "golden_bertscore"
GOLDEN = json.loads((GOLDEN_DIR / "bertscore_golden.json").read_text(encoding="utf-8"))
RAW_TOLERANCE = 1e-6

SOURCES = ["I has a apple .", "He go to school yesterday .", "This is fine .", "She like cats and dog ."]
PREDICTIONS = ["I have an apple .", "He went to the school yesterday .", "This is fine .", "She likes cats and dog ."]
REFERENCES = [["I have an apple .", "I had an apple ."], ["He went to school yesterday ."], ["This is fine ."],
              ["She likes cats and dogs .", "She likes cats and a dog .", "She liked cats and dogs ."]]


def lines(parent: Path, name: str) -> list[str]:
    return (parent / name).read_text(encoding="utf-8").rstrip("\n").split("\n")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The golden files' tiny random BERT (the conftest builder, seed 0)."""
    return build_tiny_model(tmp_path_factory.mktemp("golden-tiny-bert"), "bert")


def options_of(case: dict, model: str) -> dict:
    baseline = str(GOLDEN_DIR / "minilm_baseline.tsv") if case["rescale"] else None
    return {"model": model, "layer": case["layer"], "score_type": case["score_type"],
            "rescale_with_baseline": case["rescale"], "baseline_path": baseline, "idf": case.get("idf", False)}


@pytest.mark.real_model
@pytest.mark.parametrize("index", range(len(GOLDEN["cases"])))
def test_equals_gec_metrics(shared_data, minilm, tiny, index):
    case = GOLDEN["cases"][index]
    data = GOLDEN["data"]
    keep = data["kept"]
    n = case.get("sentences", len(keep))
    rows = keep[:n]
    sources = [lines(shared_data.parent, data["sources"])[i] for i in rows]
    refs = [lines(shared_data.parent, path) for path in data["references"]]
    chosen = case.get("references", range(len(refs)))
    references = [[refs[r][i] for r in chosen] for i in rows]
    systems = {name: [lines(shared_data.parent, path)[i] for i in rows] for name, path in data["systems"].items()}
    model = "minilm" if case["model"] == "minilm" else str(tiny)
    tolerance = RAW_TOLERANCE
    if case["rescale"]:
        baseline = read_baseline(GOLDEN_DIR / "minilm_baseline.tsv", case["layer"])
        tolerance /= 1 - baseline["prf".index(case["score_type"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = registry.run_systems("bertscore", sources, systems, references, max_tokens=None,
                                       **options_of(case, model))
    for name, expected in case["systems"].items():
        result = results[name]
        assert len(result.sentences) == len(expected["sentence"]) == n
        np.testing.assert_allclose([s["score"] for s in result.sentences], expected["sentence"], atol=tolerance,
                                   rtol=0)
        assert result.score == pytest.approx(expected["corpus"], abs=tolerance, rel=0)


def test_sentence_is_the_best_reference_per_measure(tiny_bert):
    result = registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, model=str(tiny_bert), layer=1,
                          rescale_with_baseline=False, score_type="r")
    for record in result.sentences:
        recalls = [stats["recall"] for stats in record["per_reference"]]
        assert record["score"] == max(recalls) == record["statistics"]["recall"]
        assert record["reference"] == int(np.argmax(recalls))
    assert result.score == pytest.approx(np.mean([r["score"] for r in result.sentences]), abs=1e-15)
    assert "score_type:r" in result.signature and f"model:{tiny_bert}" in result.signature


def test_robust_scores_a_perfect_correction_one(tiny_bert):
    options = dict(model=str(tiny_bert), layer=2, rescale_with_baseline=False)
    faithful = registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, **options)
    robust = registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, robust=True, **options)
    assert [r["score"] for r in robust.sentences][::2] == [1.0, 1.0]  # predictions 0 and 2 equal a reference
    assert robust.sentences[1]["score"] == faithful.sentences[1]["score"]
    assert sentence_values(np.array([[0.5, 0.4, 0.3], [0.9, 0.8, 0.7]]), "p", 0, True).tolist() == [1.0, 0.9]
    assert sentence_values(np.array([[0.5, 0.4, 0.3]]), "f", 0, False).tolist() == [0.3]


def test_shards_merge_into_the_full_run(tiny_bert):
    options = dict(model=str(tiny_bert), layer=2, rescale_with_baseline=False)
    full = registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, **options)
    merged = sharding.run_in_shards("bertscore", SOURCES, PREDICTIONS, REFERENCES, shards=3, **options)
    assert merged.score == full.score and merged.sentences == full.sentences


def test_idf_weighs_by_the_corpus_references_and_is_refused_where_a_corpus_is_not_known(tiny_bert):
    """`idf=True` is bert_score's idf over every reference of the run (parity: test_bertscore.py); shards and
    sentence-level signals cannot know the corpus, so they refuse it before any work (issue 42)."""
    from gecscore.common.bertscore import BERTScorer
    from gecscore.rewards import reward_function

    options = dict(model=str(tiny_bert), layer=1, rescale_with_baseline=False)
    result = registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, idf=True, **options)
    expected = BERTScorer(str(tiny_bert), layer=1).score(PREDICTIONS, REFERENCES, idf=True).f1
    assert [r["score"] for r in result.sentences] == pytest.approx(expected.tolist(), abs=1e-12)
    assert "idf:True" in result.signature
    with pytest.raises(sharding.NotShardableError, match="idf=True weighs tokens by their idf"):
        sharding.run_in_shards("bertscore", SOURCES, PREDICTIONS, REFERENCES, shards=2, idf=True, **options)
    with pytest.raises(ValueError, match="idf=True weighs tokens.*cannot be computed batch by batch"):
        reward_function("bertscore", idf=True, **options)


def test_cli_prints_the_corpus_score(tiny_bert, tmp_path, capsys):
    paths = {}
    for name, texts in (("src", SOURCES), ("hyp", PREDICTIONS), ("ref0", [r[0] for r in REFERENCES]),
                        ("ref1", [r[-1] for r in REFERENCES])):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(texts) + "\n", encoding="utf-8")
    code = main(["score", "bertscore", "--sources", str(paths["src"]), "--predictions", str(paths["hyp"]),
                 "--references", str(paths["ref0"]), str(paths["ref1"]), "-o", f"model={tiny_bert}", "-o", "layer=1",
                 "-o", "rescale_with_baseline=false", "--json"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    expected = registry.run("bertscore", SOURCES, PREDICTIONS, [[r[0], r[-1]] for r in REFERENCES],
                            model=str(tiny_bert), layer=1, rescale_with_baseline=False)
    assert printed["bertscore"] == expected.score


def test_bad_input_is_refused_with_its_name(tiny_bert):
    options = dict(model=str(tiny_bert), layer=1, rescale_with_baseline=False)
    with pytest.raises(ValueError, match="needs references"):
        registry.run("bertscore", SOURCES, PREDICTIONS, **options)
    with pytest.raises(ValueError, match=r"references\[1\]"):
        registry.run("bertscore", SOURCES, PREDICTIONS, [["a"], [], ["b"], ["c"]], **options)
    with pytest.raises(ValueError, match="score_type"):
        registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, score_type="x", **options)
    with pytest.raises(ValueError, match="pass layer="):
        registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, model=str(tiny_bert))


@pytest.mark.parametrize("bert_score_installed", [True, False])
def test_a_missing_baseline_names_the_options_that_give_one(bert_score_installed, tiny_bert, monkeypatch):
    """bert_score ships no rescaling baseline for a tiny model (nor any when it is not installed): the error names
    the metric's own options to pass, not `baseline=(P, R, F)`, a keyword the metric does not take."""
    if not bert_score_installed:
        monkeypatch.setitem(sys.modules, "bert_score", None)  # `import bert_score` raises ImportError
    with pytest.raises(ValueError) as error:
        registry.run("bertscore", SOURCES, PREDICTIONS, REFERENCES, model=str(tiny_bert), layer=1)
    named = set(re.findall(r"\b([a-z_]+)=", str(error.value)))
    assert named == {"baseline_path", "rescale_with_baseline"}
    assert named <= set(registry.spec("bertscore").names())


def test_empty_prediction_is_flagged(tiny_bert):
    predictions = [*PREDICTIONS[:3], ""]
    with pytest.warns(UserWarning):
        result = registry.run("bertscore", SOURCES, predictions, REFERENCES, model=str(tiny_bert), layer=1,
                              rescale_with_baseline=False)
    assert [r["index"] for r in result.details["degenerate_sentences"]] == [3]
    assert result.sentences[3]["score"] == 0.0
