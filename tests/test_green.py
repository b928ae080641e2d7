"""GREEN equals gec-metrics 0.1.1's `green` (golden files of `tests/golden_green/`, made by running it) float for
float, corpus and sentence level; the n-gram categories by hand; the CLI, the leaderboard with a baseline, sharding,
resampling, the Trainer hook, bad input, degenerate sentences and perfect corrections."""

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from cli_cases import leaderboard_with_a_baseline
from gecscore import registry, sharding
from gecscore.cli import main
from gecscore.common.bootstrap import confidence_interval, paired_approximate_randomization
from gecscore.common.results import DegenerateOutputWarning
from gecscore.green import SummedCounts, green, sentence_counts, text_tokens

GOLDEN = json.loads((Path(__file__).parent / "golden_green" / "green_golden.json").read_text(encoding="utf-8"))


def lines(parent: Path, relative: str) -> list[str]:
    """A one-sentence-a-line file as the golden generator reads it."""
    return (parent / relative).read_text(encoding="utf-8").rstrip("\n").split("\n")


def corpus(parent: Path, case: dict) -> tuple[list[str], list[list[str]]]:
    """The sources and the references (one list per sentence) of a golden case."""
    return lines(parent, case["src"]), [list(refs) for refs in zip(*(lines(parent, r) for r in case["refs"]))]


def case_id(case: dict) -> str:
    return case["name"] + "".join(f",{k}={v}" for k, v in case["config"].items())


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=case_id)
def test_corpus_and_sentences_equal_gec_metrics(shared_data, case):
    sources, references = corpus(shared_data.parent, case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateOutputWarning)
        results = registry.run_systems("green", sources, {h: lines(shared_data.parent, h) for h in case["hyps"]},
                                       references, sentences=True, **case["config"])
    for hyp in case["hyps"]:
        assert results[hyp].score == case["corpus"][hyp], hyp
        assert results[hyp].sentence_scores() == case["sentence"][hyp], hyp


def test_the_golden_files_cover_seeda_and_jfleg():
    seeda = [c for c in GOLDEN["cases"] if c["name"] == "seeda"]
    assert {len(c["hyps"]) for c in seeda} == {15} and len(seeda) == 3
    assert {c["name"] for c in GOLDEN["cases"]} == {"seeda", "jfleg", "jfleg-ref0"}
    assert {"unit": "char", "beta": 0.5} in [c["config"] for c in GOLDEN["cases"]]


def test_categories_by_hand():
    # the cat sat → the cat sits, reference "a cat sits": sat deleted and sits inserted as the reference does (TD,
    # TI), cat kept (TK), "the" kept where the reference drops it (UD), "a" not inserted (UI); no false change.
    counts = sentence_counts("the cat sat", "the cat sits", ["a cat sits"], 2)
    assert counts.tolist() == [[[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 0, 1, 1]]]
    f, precision, recall = green(counts[0].tolist(), 2.0)
    assert (precision, recall) == (1.0, pytest.approx(math.sqrt(3 / 5 * 2 / 4), abs=1e-15))
    assert f == pytest.approx(5 * recall / (4 + recall), abs=1e-15)
    # a b → a c against "a b": b deleted where the reference keeps it (OD), c inserted where it has none (OI)
    assert sentence_counts("a b", "a c", ["a b"], 1).tolist() == [[[0, 0, 1, 1, 1, 0, 0]]]
    # nothing in source and reference: every hypothesis n-gram is an over-insertion
    assert sentence_counts("", "a b", ["", " "], 2).tolist() == [[[0, 0, 0, 0, 2, 0, 0], [0, 0, 0, 0, 1, 0, 0]]] * 2


def test_tokens_are_split_at_single_spaces_after_strip():
    assert list(text_tokens("  a  b c ", "word")) == ["a", "", "b", "c"]
    assert list(text_tokens("a\tb", "word")) == ["a\tb"]
    assert list(text_tokens(" ab ", "char")) == ["a", "b"]
    assert list(text_tokens("   ", "word")) == [] and list(text_tokens("", "char")) == []
    # the empty token of a doubled space is an n-gram like any other: "a  b" and "a b" differ
    doubled = sentence_counts("a  b", "a b", ["a b"], 2)
    assert doubled.tolist() == [[[1, 0, 2, 0, 0, 0, 0], [2, 1, 0, 0, 0, 0, 0]]]


def test_the_first_of_equally_good_references_is_chosen():
    result = registry.run("green", ["a b c ."], ["a b c ."], [["a b d .", "a b e ."]], sentences=True)
    record = result.sentences[0]
    assert record["per_reference_green"][0] == record["per_reference_green"][1]
    assert record["reference"] == 0 and record["statistics"] == record["per_reference"][0]


def test_sentence_record_holds_per_order_precision_and_recall():
    result = registry.run("green", ["the cat sat"], ["the cat sits"], [["a cat sat", "a cat sits"]], n=2,
                          sentences=True)
    record = result.sentences[0]
    assert record["reference"] == 1 and record["green"] == record["score"] == max(record["per_reference_green"])
    assert record["precision"] == [1.0, 1.0] and record["recall"] == [3 / 5, 2 / 4]
    assert result.details["per_order"][0] == {"order": 1, "true": 3, "false": 0, "missed": 2, "precision": 1.0,
                                              "recall": 3 / 5}


def test_cli_prints_the_corpus_score(shared_data, capsys):
    case = GOLDEN["cases"][0]
    hyp = case["hyps"][4]
    code = main(["score", "green", "--sources", str(shared_data.parent / case["src"]), "--predictions",
                 str(shared_data.parent / hyp), "--references", *(str(shared_data.parent / r) for r in case["refs"]),
                 "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["green"] == case["corpus"][hyp]


def test_leaderboard_with_a_baseline(shared_data, tmp_path, capsys):
    case = GOLDEN["cases"][0]
    files = {"src": case["src"], "gpt": case["hyps"][4], "ref0": case["refs"][0], "ref1": case["refs"][1]}
    leaderboard_with_a_baseline("green", shared_data.parent, files, tmp_path, capsys)


SOURCES = ["I has a apple .", "He go to school yesterday .", "This is fine .", "She like cats and dog ."]
PREDICTIONS = ["I have an apple .", "He went to the school yesterday .", "This is fine .", "She likes cats and dog ."]
REFERENCES = [["I have an apple .", "I had an apple ."], ["He went to school yesterday ."], ["This is fine ."],
              ["She likes cats and dogs .", "She likes cats and a dog .", "She liked cats and dogs ."]]


@pytest.mark.parametrize("options", [{}, {"unit": "char", "beta": 0.5}])
def test_shards_merge_into_the_full_run(options):
    full = registry.run("green", SOURCES, PREDICTIONS, REFERENCES, sentences=True, **options)
    merged = sharding.run_in_shards("green", SOURCES, PREDICTIONS, REFERENCES, shards=2, sentences=True, **options)
    assert merged.scores == full.scores and merged.sentences == full.sentences
    assert merged.details == full.details


def test_the_resampled_statistic_is_the_corpus_rule_on_the_resample():
    stats = registry.statistics_systems("green", SOURCES, {"s": PREDICTIONS}, REFERENCES)["s"]
    result = registry.score("green", stats)
    statistic = result.statistic
    assert isinstance(statistic, SummedCounts) and statistic(np.arange(4)) == result.score
    rows = np.array([[0, 1, 2, 3], [3, 3, 1, 0], [2, 2, 2, 2], [3, 0, 3, 0]])
    assert statistic.batch(rows).tolist() == [registry.score("green", stats.take(r)).score for r in rows]
    interval = confidence_interval(statistic, 4, n_samples=50)
    assert interval.score == result.score and interval.low <= interval.high
    other = registry.run("green", SOURCES, SOURCES, REFERENCES).statistic
    test = paired_approximate_randomization(other, statistic, 4, n_samples=50)
    assert test.system_score == result.score and 0 < test.p_value <= 1
    with pytest.raises(TypeError, match="same n and beta"):
        statistic.join(registry.run("green", SOURCES, SOURCES, REFERENCES, beta=0.5).statistic)


def test_trainer_hook_returns_green(tmp_path):
    pytest.importorskip("transformers")
    from transformers import EvalPrediction

    from ecosystem_helpers import SOURCES as HOOK_SOURCES, TARGETS, tiny_seq2seq
    from gecscore.integrations import seq2seq_compute_metrics

    tokenizer = tiny_seq2seq(tmp_path)[1]
    predictions = ["he went to school yesterday .", "i have a apple .", "she buyed some apples .",
                   "the cat is here .", "they were at school .", "he has dog ."]

    def ids(texts, width):
        rows = tokenizer(texts)["input_ids"]
        return np.array([row + [-100] * (width - len(row)) for row in rows])

    hook = seq2seq_compute_metrics(tokenizer, ["green"], sources=HOOK_SOURCES)
    out = hook(EvalPrediction(predictions=ids(predictions, 14), label_ids=ids(TARGETS, 15)))
    expected = registry.run("green", HOOK_SOURCES, predictions, [[t] for t in TARGETS]).scores
    assert out == {f"green_{k}": v for k, v in expected.items()} and 0 < out["green_green"] < 1


@pytest.mark.parametrize("call, message", [
    (lambda: registry.run("green", [], [], []), "`sources` is empty"),
    (lambda: registry.run("green", ["a ."], ["a .", "b ."], [["a ."]]), "has 2 sentences but `sources` has 1"),
    (lambda: registry.run("green", ["a .", "b ."], ["a .", "b ."], [["a ."]]), "`references` has 1 entries"),
    (lambda: registry.run("green", ["a ."], ["a ."], [[]]), r"`references\[0\]` is an empty list"),
    (lambda: registry.run("green", ["a ."], ["a ."], [["a ."]], unit="token"), "`unit` must be one of"),
    (lambda: registry.run("green", ["a ."], ["a ."], [["a ."]], beta=0), "`beta` must be > 0"),
    (lambda: registry.run("green", ["a ."], ["a ."]), "green needs references"),
])
def test_bad_input_is_refused_by_the_shared_layer(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_an_empty_prediction_is_flagged_and_robust_scores_it_as_the_source():
    sources, predictions = ["He go home .", "It is ok ."], ["", "It is ok ."]
    references = [["He goes home ."], ["It is ok ."]]
    with pytest.warns(DegenerateOutputWarning, match="empty prediction"):
        published = registry.run("green", sources, predictions, references, sentences=True)
    assert [d["index"] for d in published.details["degenerate_sentences"]] == [0]
    with pytest.warns(DegenerateOutputWarning):
        robust = registry.run("green", sources, predictions, references, robust=True, sentences=True)
    unchanged = registry.run("green", sources, sources, references, sentences=True)
    assert robust.sentence_scores() == unchanged.sentence_scores() != published.sentence_scores()
    assert robust.score == unchanged.score and "robust:True" in robust.signature


@pytest.mark.parametrize("robust", [False, True])
def test_a_perfect_correction_scores_1_unflagged_in_both_modes(robust):
    result = registry.run("green", ["He go home ."], ["He goes home ."], [["He went home .", "He goes home ."]],
                          robust=robust, sentences=True)
    assert result.score == 1.0 and result.sentences[0]["score"] == 1.0 and result.sentences[0]["reference"] == 1
    assert result.details["degenerate_sentences"] == []


@pytest.mark.slow
def test_published_green_rows_of_the_meta_evaluation(shared_data, run_dir):
    """IMPARA-GED (Findings of ACL 2025) Table 2, GREEN row: SEEDA Base, Official references, TrueSkill aggregation,
    r / ρ against SEEDA-S .855 / .846 and SEEDA-E .912 / .965 (also UOT-ERRANT Table 1, Official), sentence accuracy
    / τ .600 / .199 (SEEDA-S) and .574 / .148 (SEEDA-E); UOT-ERRANT Table 1, GMEG-Data wiki: .871 / .786."""
    from gecscore.meta_eval import ScoreCache, get_metric, meta_evaluate
    from gecscore.meta_eval.data import load_gmeg, load_seeda

    # The run's shared score cache (empty when the run starts), which test_meta_cells' whole-table parts fill too.
    cache, metric = ScoreCache(run_dir / "meta_eval"), get_metric("green")

    def rounded(*values):
        return tuple(round(v, 3) for v in values)

    seeda = meta_evaluate(metric, load_seeda(shared_data), system_set="base", aggregation="trueskill", cache=cache)
    assert rounded(seeda.system["ts_sent"].pearson, seeda.system["ts_sent"].spearman) == (0.855, 0.846)
    assert rounded(seeda.system["ts_edit"].pearson, seeda.system["ts_edit"].spearman) == (0.912, 0.965)
    assert rounded(seeda.sentence["sent"].accuracy, seeda.sentence["sent"].kendall) == (0.600, 0.199)
    assert rounded(seeda.sentence["edit"].accuracy, seeda.sentence["edit"].kendall) == (0.574, 0.148)
    gmeg = meta_evaluate(metric, load_gmeg(shared_data), system_set="all", aggregation="trueskill", cache=cache)
    assert rounded(gmeg.system["score"].pearson, gmeg.system["score"].spearman) == (0.871, 0.786)
