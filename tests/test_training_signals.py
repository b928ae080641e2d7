"""Our metrics as training signals: TRL rewards (a real GRPOTrainer run on a tiny causal LM), hostile completions,
n-best reranking and MBR against brute force, and whole datasets (`score_dataset` equal to `compute`, resumed from
the datasets cache, and under two torchrun ranks)."""

from __future__ import annotations

import json
import math
import os
import re
import textwrap
import warnings

import numpy as np
import pytest

from conftest import build_tiny_model
from gecscore import registry
from gecscore.rewards import GECReward, completion_text, reward_function
from gecscore.sentence_scorer import MODEL_OUTPUT_DEFAULTS, SentenceScorer, options_with
from test_some_scribendi import tiny_reference_free

SOURCES = ["he go to school yesterday .", "i has a apple .", "she buyed some apples .", "the cat are here ."]
REFERENCES = [["he went to school yesterday ."], ["i have an apple .", "i had an apple ."],
              ["she bought some apples ."], ["the cat is here .", "the cats are here ."]]
# Raw model output for SOURCES[0]: clean, empty, whitespace, very long, invalid Unicode, a control character,
# replacement characters, chat debris, an explanation after the answer, and a repeat.
HOSTILE = ["He went to school yesterday.", "", "   \n\t ", "he went to school yesterday . " * 300,
           "he went \ud800 to school", "he \x00 went to school", "\ufffd\ufffd\ufffd", "<|im_end|> ### ]] >>",
           "He went to school yesterday.\n\nExplanation: 'go' must be in the past tense.",
           "He went to school yesterday."]
REFUSED = {3, 4, 5}  # too long, lone surrogate, control character


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, tiny_bert):
    """Options of every sentence-level metric with tiny random models (and none for the model-free ones)."""
    folder = tmp_path_factory.mktemp("signals")
    qe = build_tiny_model(folder / "qe", "bert", num_labels=1)
    free = dict((name, options) for name, options, _ in tiny_reference_free(folder))
    return {
        "errant": {}, "senterrant": {}, "sentm2": {}, "cleme2": {"weighting": "none", "level": "sentence"},
        "gleu": {}, "sentgleu": {}, "green": {}, "gotoscorer": {},
        "uot_errant": {"model": str(tiny_bert)}, "pt_m2": {"model": str(tiny_bert), "layer": 1},
        "bertscore": {"model": str(tiny_bert), "layer": 1, "rescale_with_baseline": False},
        # rewards gate IMPARA-GED by similarity (its training default, variant='impara'): a tiny estimator here too
        "impara_ged": {"model": str(qe), "se_model": str(tiny_bert)},
        "some": free["some"], "scribendi": free["scribendi"],
    }


def columns(n: int, source: int = 0) -> dict[str, list]:
    return {"source": [SOURCES[source]] * n, "references": [REFERENCES[source]] * n}


# ---------------------------------------------------------------------------------------------------
# Rewards


METRICS = ["errant", "senterrant", "sentm2", "cleme2", "gleu", "sentgleu", "green", "gotoscorer", "uot_errant",
           "pt_m2", "bertscore", "impara_ged", "some", "scribendi"]


@pytest.mark.parametrize("metric", METRICS)
def test_every_reward_is_finite_and_in_range_for_hostile_completions(metric, tiny):
    reward = reward_function(metric, **tiny[metric])
    logged: dict[str, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either: the reward reports through TRL's log
        values = reward(prompts=["p"] * len(HOSTILE), completions=HOSTILE, **columns(len(HOSTILE)),
                        log_metric=logged.__setitem__)
    assert len(values) == len(HOSTILE)
    assert all(isinstance(v, float) and math.isfinite(v) and 0.0 <= v <= 1.0 for v in values)
    refused = {r["index"] for r in reward.last_degenerate if r["reason"] == "refused"}
    assert refused == REFUSED and all(values[i] == 0.0 for i in REFUSED)
    assert values[0] == values[-1]  # a repeat scores as its first occurrence
    assert logged[f"gecscore/{metric}/refused"] == pytest.approx(len(REFUSED) / len(HOSTILE))
    assert logged[f"gecscore/{metric}/degenerate"] >= len(REFUSED) / len(HOSTILE)


def test_rewards_are_the_metrics_sentence_scores_mapped_onto_0_1(tiny):
    predictions = ["he went to school yesterday .", "i have a apple .", "she buyed some apples .", "the cats is here ."]
    for metric in ("errant", "gleu", "green", "scribendi"):
        options = {**tiny[metric], "robust": True, "tokenize": True, "normalize": True}
        references = None if registry.spec(metric).reference_free else REFERENCES
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = registry.run(metric, SOURCES, predictions, references, **options).sentence_scores()
        low, high = registry.spec(metric).sentence_range(True)
        got = reward_function(metric, **tiny[metric])(completions=predictions, source=SOURCES, references=REFERENCES)
        assert got == [(s - low) / (high - low) for s in expected], metric


def test_plain_and_conversational_completions_get_the_same_rewards(tiny):
    reward = reward_function("gleu")
    texts = ["He went to school yesterday.", "he goes to school yesterday .", ""]
    messages = [[{"role": "assistant", "content": text}] for text in texts]
    parts = [[{"role": "assistant", "content": [{"type": "text", "text": text}]}] for text in texts]
    plain = reward(prompts=["p"] * 3, completions=texts, **columns(3))
    assert reward(prompts=[[{"role": "user", "content": "p"}]] * 3, completions=messages, **columns(3)) == plain
    assert reward(completions=parts, **columns(3)) == plain
    assert completion_text([{"role": "assistant", "content": "a"}, {"role": "tool", "content": "x"},
                            {"role": "assistant", "content": "b"}]) == "a b"


def test_a_missing_or_misnamed_column_is_an_error_naming_it():
    reward = reward_function("errant")
    with pytest.raises(ValueError, match=r"no column 'source' \(columns passed to the reward: \['references', 'src'\]"):
        reward(prompts=["p"], completions=["a ."], src=["a ."], references=[["a ."]])
    with pytest.raises(ValueError, match=r"no column 'references'.*references=COLUMN"):
        reward(prompts=["p"], completions=["a ."], source=["a ."], refs=[["a ."]])
    with pytest.raises(ValueError, match=r"`references\[1\]` is an empty list"):
        reward(completions=["a .", "b ."], source=["a .", "b ."], references=[["a ."], []])
    with pytest.raises(ValueError, match=r"`source\[0\]` is None"):
        reward(completions=["a ."], source=[None], references=["a ."])
    with pytest.raises(ValueError, match=r"`sources\[1\]` has control character U\+0007"):  # data, not output
        reward(completions=["a .", "b ."], source=["a .", "b \x07 ."], references=["a .", "b ."])
    assert reward_function("errant", source="src", references="refs")(
        completions=["a ."], src=["a ."], refs=["a ."]) == [1.0]  # a plain string is one reference


def test_configuration_errors_raise_when_the_reward_is_built(tmp_path):
    with pytest.raises(ValueError, match="unknown metric 'erant'.*did you mean 'errant'"):
        reward_function("erant")
    with pytest.raises(TypeError, match="unknown option.*'bta'"):
        reward_function("errant", bta=0.5)
    with pytest.raises(ValueError, match="corpus-wide mean chunk length.*batch by batch"):
        reward_function("cleme")
    with pytest.raises(ValueError, match="weights='systems' takes its numbers from several systems"):
        reward_function("gotoscorer", weights="systems")
    (tmp_path / "empty").mkdir()
    with pytest.raises(Exception, match="empty"):
        reward_function("impara_ged", model=str(tmp_path / "empty"))


@pytest.mark.timeout(300)
def test_a_grpo_trainer_trains_two_steps_with_gecscore_rewards(tmp_path):
    trl = pytest.importorskip("trl")
    import transformers
    from datasets import Dataset

    from ecosystem_helpers import tiny_causal_lm

    path = tiny_causal_lm(tmp_path / "lm")
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    seen: dict[str, list[list[float]]] = {"gleu": [], "errant": []}

    class Recording(GECReward):
        def __call__(self, *args, **kwargs):
            values = super().__call__(*args, **kwargs)
            seen[self.metric].append(values)
            return values

    dataset = Dataset.from_dict({"prompt": [f"correct : {s}" for s in SOURCES], "source": SOURCES,
                                 "references": REFERENCES})
    args = trl.GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
                          max_steps=2, max_completion_length=8, logging_steps=1, report_to=[], use_cpu=True,
                          save_strategy="no", seed=0, disable_tqdm=True)
    trainer = trl.GRPOTrainer(model=str(path), processing_class=tokenizer, train_dataset=dataset, args=args,
                              reward_funcs=[Recording("gleu"), Recording("errant")])
    trainer.train()
    logs = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert len(logs) == 2 and [len(v) for v in seen.values()] == [2, 2]
    for step, entry in enumerate(logs):
        for metric, values in seen.items():
            assert len(values[step]) == 4 and all(0.0 <= v <= 1.0 for v in values[step])
            assert entry[f"rewards/gecscore_{metric}/mean"] == pytest.approx(np.mean(values[step]), abs=1e-6)
            assert f"gecscore/{metric}/degenerate" in entry
        assert entry["reward"] == pytest.approx(np.mean(seen["gleu"][step]) + np.mean(seen["errant"][step]), abs=1e-5)


def test_a_sources_parses_and_encodings_are_reused_across_completions_and_calls(tiny):
    from gecscore.common import encoders

    reward = reward_function("uot_errant", **tiny["uot_errant"])
    texts = ["He went to school yesterday.", "He goes to school yesterday.", "He went to school.", "He go home."]
    reward(completions=texts, **columns(4))
    before = sum(getattr(model, "forward_count", 0) for model in encoders._LOADED.values())
    assert reward(completions=texts, **columns(4)) == reward(completions=texts, **columns(4))
    assert sum(getattr(model, "forward_count", 0) for model in encoders._LOADED.values()) == before  # all from the caches


# ---------------------------------------------------------------------------------------------------
# Reranking and MBR


CANDIDATES = [["he went to school yesterday .", "he goes to school yesterday .", "he went to school yesterday .",
               "he go to school yesterday ."],
              ["i have an apple .", "i has a apple .", "i had a apple ."],
              ["she bought some apples ."],
              ["the cat is here .", "the cats are here .", "", "the cat is here ."]]


def brute_force_utility(metric, options, source, candidates):
    """U[j, k]: candidate j scored alone against candidate k, one registry run per pair, with reranking's defaults
    for model output; a lone candidate against itself."""
    matrix = np.full((len(candidates), len(candidates)), np.nan)
    low, high = registry.spec(metric).sentence_range(True)
    for j, hyp in enumerate(candidates):
        for k, ref in enumerate(candidates):
            if j != k or len(candidates) == 1:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    score = registry.run(metric, [source], [hyp], [[ref]],
                                         **options_with(MODEL_OUTPUT_DEFAULTS, metric, options)).sentence_scores()[0]
                matrix[j, k] = (score - low) / (high - low)
    return matrix


@pytest.mark.parametrize("metric", ["errant", "gleu", "green", "sentm2", "uot_errant"])
def test_mbr_equals_brute_force(metric, tiny):
    from gecscore import rerank

    options = tiny[metric]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rerank(SOURCES, CANDIDATES, metric=metric, method="mbr", **options)
    for i, (source, group) in enumerate(zip(SOURCES, CANDIDATES)):
        expected = brute_force_utility(metric, options, source, [" ".join(c.split()) for c in group])
        tolerance = 1e-6 if "model" in options else 0.0
        np.testing.assert_allclose(result.utility[i], expected, atol=tolerance, rtol=0)
        means = [np.nanmean(row) for row in expected]
        np.testing.assert_allclose(result.scores[i], means, atol=tolerance, rtol=0)
        assert result.choice[i] == int(np.argmax(means))  # the earliest among equals, as argmax
        if len(group) == 1:  # a lone candidate's utility is against itself: a number, 1 when robust
            assert result.scores[i] == [1.0]
        assert result.chosen[i] == group[result.choice[i]]
    assert {(r["source"], r["candidate"]) for r in result.degenerate if r["reason"] == "empty prediction"} == {(3, 2)}


def test_reference_free_and_reference_reranking_equal_brute_force(tiny):
    from gecscore import rerank

    for metric, method, references in (("impara_ged", "reference_free", None), ("gleu", "reference", REFERENCES)):
        result = rerank(SOURCES, CANDIDATES, references, metric=metric, method=method, **tiny[metric])
        for i, group in enumerate(CANDIDATES):
            refs = None if references is None else [references[i]] * len(group)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = [registry.run(metric, [SOURCES[i]], [c], None if refs is None else [refs[0]],
                                         **options_with(MODEL_OUTPUT_DEFAULTS, metric, tiny[metric])
                                         ).sentence_scores()[0] for c in group]
            np.testing.assert_allclose(result.scores[i], expected, atol=1e-6, rtol=0)
            assert result.choice[i] == int(np.argmax(expected))


def test_rerank_errors_name_what_is_wrong():
    from gecscore import rerank

    with pytest.raises(ValueError, match="needs a reference-free metric"):
        rerank(SOURCES, CANDIDATES, metric="errant", method="reference_free")
    with pytest.raises(ValueError, match="reference-free: use method='reference_free'"):
        rerank(SOURCES, CANDIDATES, metric="impara_ged", method="mbr")
    with pytest.raises(ValueError, match="one list of candidates per source"):
        rerank(SOURCES, CANDIDATES[:2], metric="errant")
    with pytest.raises(ValueError, match=r"`candidates\[2\]` must be a non-empty list"):
        rerank(SOURCES, [*CANDIDATES[:2], [], CANDIDATES[3]], metric="errant")
    with pytest.raises(ValueError, match="`method` must be one of"):
        rerank(SOURCES, CANDIDATES, metric="errant", method="best")
    with pytest.raises(TypeError, match=r"`sources\[1\]` must be a string, got int"):
        rerank([SOURCES[0], 7], CANDIDATES[:2], metric="errant")
    # a candidate is model output: one that is not text is refused on its row, never an error
    result = rerank(SOURCES[:1], [["a .", b"b ."]], metric="errant")
    assert result.choice == [0] and result.scores[0][1] == 0.0
    assert [(r["candidate"], r["reason"]) for r in result.degenerate] == [(1, "refused")]
    assert "`candidates[0][1]` is not text (bytes)" in result.degenerate[0]["why"]


def test_a_candidate_nobody_can_score_is_chosen_last_and_listed():
    from gecscore import rerank

    result = rerank(SOURCES[:1], [["he \x07 went", "he went to school yesterday .", "he went to school yesterday ."]],
                    metric="errant")
    assert result.choice == [1] and result.scores[0][0] == 0.0 and np.isnan(result.utility[0][0]).all()
    assert result.degenerate[0]["reason"] == "refused" and "control character" in result.degenerate[0]["why"]


def test_cli_rerank_prints_the_choice_and_json(tmp_path, capsys):
    from gecscore import rerank
    from gecscore.cli import main

    (tmp_path / "src.txt").write_text("\n".join(SOURCES[:2]) + "\n")
    files = []
    for k in range(3):
        files.append(tmp_path / f"cand{k}.txt")
        files[-1].write_text("\n".join(CANDIDATES[i][k] for i in range(2)) + "\n")
    assert main(["rerank", "errant", "--sources", str(tmp_path / "src.txt"), "--candidates", *map(str, files)]) == 0
    expected = rerank(SOURCES[:2], [c[:3] for c in CANDIDATES[:2]], metric="errant")
    assert capsys.readouterr().out.splitlines() == expected.chosen
    assert main(["rerank", "errant", "--sources", str(tmp_path / "src.txt"), "--candidates", *map(str, files),
                 "--json", "--output", str(tmp_path / "chosen.txt")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["choice"] == expected.choice and out["utility"][0][0][0] is None
    assert (tmp_path / "chosen.txt").read_text().splitlines() == expected.chosen
    (tmp_path / "short.txt").write_text(SOURCES[0] + "\n")
    assert main(["rerank", "errant", "--sources", str(tmp_path / "src.txt"), "--candidates",
                 str(files[0]), str(tmp_path / "short.txt")]) == 2
    assert "short.txt has 1 lines but sources has 2" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------
# Whole datasets


def seeda_rows(shared_data, n=30):
    def lines(rel):
        return (shared_data / rel).read_text(encoding="utf-8").split("\n")[:n]

    return {"source": lines("SEEDA/outputs/subset/INPUT.txt"), "prediction": lines("SEEDA/outputs/subset/BART.txt"),
            "ref0": lines("SEEDA/derived/REF0.txt"), "ref1": lines("SEEDA/derived/REF1.txt")}


def expected_scores(rows, metric, **options):
    references = None if registry.spec(metric).reference_free else [list(r) for r in zip(rows["ref0"], rows["ref1"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return registry.run(metric, rows["source"], rows["prediction"], references, **options)


@pytest.mark.parametrize("metric", ["errant", "gleu", "impara_ged"])
def test_score_dataset_equals_compute(metric, shared_data, tiny):
    from datasets import Dataset

    from gecscore import score_dataset

    rows = seeda_rows(shared_data)
    references = None if metric == "impara_ged" else ["ref0", "ref1"]
    options = {**tiny[metric], "variant": "impara"} if metric == "impara_ged" else tiny[metric]  # compute's defaults
    expected = expected_scores(rows, metric, **options)
    for dataset in (Dataset.from_dict(rows), Dataset.from_dict(rows).to_iterable_dataset(num_shards=3)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scored = score_dataset(dataset, metric, references=references, batch_size=7, **options)
            scored = list(scored)
        assert [row[metric] for row in scored] == expected.sentence_scores()
        flagged = {r["index"] for r in expected.details["degenerate_sentences"]}
        assert {i for i, row in enumerate(scored) if row[f"{metric}_degenerate"]} == flagged
        assert [row["prediction"] for row in scored] == rows["prediction"]  # the rows kept, in order


def test_score_dataset_resumes_from_the_datasets_cache(shared_data, tmp_path, monkeypatch):
    from datasets import Dataset, load_from_disk

    from gecscore import score_dataset

    rows = seeda_rows(shared_data)
    Dataset.from_dict(rows).save_to_disk(tmp_path / "data")
    dataset = load_from_disk(tmp_path / "data")
    calls: list[int] = []
    stop = {"after": 15}
    original = SentenceScorer.score

    def counting(self, sources, predictions, references=None):
        if stop["after"] is not None and sum(calls) >= stop["after"]:
            raise KeyboardInterrupt
        calls.append(len(predictions))
        return original(self, sources, predictions, references)

    monkeypatch.setattr(SentenceScorer, "score", counting)
    run = dict(references=["ref0", "ref1"], batch_size=5, chunk_size=10)
    with pytest.raises(KeyboardInterrupt):
        score_dataset(dataset, "errant", **run)
    assert calls == [5, 5, 5]  # interrupted in the second chunk: chunk [0, 10) finished and cached
    stop["after"] = None
    calls.clear()
    resumed = score_dataset(dataset, "errant", **run)
    assert sum(calls) == 20  # only the chunks [10, 20) and [20, 30)
    assert list(resumed["errant"]) == expected_scores(rows, "errant").sentence_scores()
    calls.clear()
    assert list(score_dataset(dataset, "errant", **run)["errant"]) == list(resumed["errant"]) and calls == []


def test_score_dataset_rescores_when_a_model_is_replaced_in_place(tmp_path, monkeypatch):
    from datasets import Dataset, load_from_disk

    from gecscore import score_dataset
    from gecscore.common import encoders

    qe = build_tiny_model(tmp_path / "qe", "bert", num_labels=1)
    predictions = [group[0] for group in REFERENCES]
    Dataset.from_dict({"source": SOURCES, "prediction": predictions}).save_to_disk(tmp_path / "data")
    dataset = load_from_disk(tmp_path / "data")
    calls: list[int] = []
    original = SentenceScorer.score

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SentenceScorer, "score", counting)

    def rerun():
        encoders.release_models()  # as a new process would: the estimator loaded from its folder as it is now
        calls.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(score_dataset(dataset, "impara_ged", model=str(qe), batch_size=2)["impara_ged"])

    old = rerun()
    assert calls
    assert rerun() == old and calls == []  # nothing changed: read back from the datasets cache
    build_tiny_model(qe, "bert", seed=1, num_labels=1)  # a retrained estimator saved over the old one
    new = rerun()
    assert calls  # scored again, not read back
    assert all(abs(a - b) > 1e-6 for a, b in zip(new, old))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = registry.run("impara_ged", SOURCES, predictions, model=str(qe)).sentence_scores()
    np.testing.assert_allclose(new, expected, atol=1e-6, rtol=0)  # the new estimator's numbers


def test_score_dataset_fingerprints_pin_what_an_alias_or_hub_id_loads(tmp_path, monkeypatch):
    import huggingface_hub.constants

    from gecscore.dataset_scoring import _models
    from gecscore.impara_ged.embedded import installed_asset_dir, minilm_path

    embedded = _models("impara_ged", {"model": "embedded"})["embedded"]
    assert [i["path"] for i in embedded] == [os.path.realpath(installed_asset_dir()), os.path.realpath(minilm_path())]
    assert {"qe_delta.safetensors", "model.safetensors"} <= {name for i in embedded for name, _, _ in i["files"]}
    assert [i["path"] for i in _models("bertscore", {"model": "minilm", "layer": 6})["minilm"]] == \
        [os.path.realpath(minilm_path())]
    repo = tmp_path / "hub" / "models--org--qe"
    for commit in ("aaa", "bbb"):
        (repo / "snapshots" / commit).mkdir(parents=True)
        (repo / "snapshots" / commit / "config.json").write_text("{}")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("aaa")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    assert _models("impara_ged", {"model": "org/qe"}) == {"org/qe": [{"hub": "org/qe", "commits": {"main": "aaa"}}]}
    (repo / "refs" / "main").write_text("bbb")  # the Hub model updated: main now resolves to another snapshot
    assert _models("impara_ged", {"model": "org/qe", "revision": "aaa"}) == \
        {"org/qe": [{"hub": "org/qe", "commits": {"main": "bbb", "aaa": "aaa"}}]}
    assert _models("impara_ged", {"model": "other/qe"}) == {}  # not cached: its name in the options is all there is


def test_score_dataset_errors_name_the_column_or_the_rows(shared_data):
    from datasets import Dataset

    from gecscore import score_dataset

    rows = seeda_rows(shared_data, 12)
    dataset = Dataset.from_dict(rows)
    with pytest.raises(ValueError, match=r"no column 'hyp' \(`prediction`\)"):
        score_dataset(dataset, "errant", prediction="hyp", references=["ref0"])
    with pytest.raises(ValueError, match="needs references"):
        score_dataset(dataset, "errant")
    with pytest.raises(ValueError, match="already has a column 'ref0'"):
        score_dataset(dataset, "errant", references=["ref1"], column="ref0")
    with pytest.raises(ValueError, match="batch by batch"):
        score_dataset(dataset, "cleme", references=["ref0"])
    bad = dict(rows, prediction=[*rows["prediction"][:9], "a \x07 bell", *rows["prediction"][10:]])
    with pytest.raises(ValueError, match=r"dataset rows 8-11: `predictions\[1\]` has control character"):
        score_dataset(Dataset.from_dict(bad), "errant", references=["ref0"], batch_size=4)


def test_score_dataset_on_a_stream_of_unknown_columns_names_a_misnamed_column():
    from datasets import IterableDataset

    from gecscore import score_dataset

    def rows():
        yield from ({"source": s, "prediction": r[0], "ref": r[0]} for s, r in zip(SOURCES, REFERENCES))

    stream = IterableDataset.from_generator(rows)
    assert stream.column_names is None  # nothing to check before the first batch
    columns = re.escape("; its columns: ['source', 'prediction', 'ref']")
    for run, message in [(dict(prediction="hyp", references="ref"), r"no column 'hyp' \(`prediction`\)" + columns),
                         (dict(references=["ref", "ref1"]), r"no column 'ref1' \(`references`\)" + columns),
                         (dict(references="ref", column="source"), "already has a column 'source'")]:
        scored = score_dataset(stream, "errant", **run)
        with pytest.raises(ValueError, match=message):
            next(iter(scored))


DATASET_WORKER = textwrap.dedent('''
    """One rank: score_dataset under torch.distributed; every rank writes the columns it gets back."""
    import datetime, json, sys, warnings
    from pathlib import Path

    import torch.distributed as dist
    from datasets import Dataset

    warnings.simplefilter("ignore")
    out, data, qe = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=300))
    from gecscore import registry, score_dataset
    from gecscore.common import encoders
    from test_training_signals import seeda_rows

    dataset = Dataset.from_dict(seeda_rows(data))
    errant = score_dataset(dataset, "errant", references=["ref0", "ref1"], batch_size=4)
    impara = score_dataset(dataset, "impara_ged", model=qe, batch_size=4)
    def forwards():
        return sum(getattr(model, "forward_count", 0) for model in encoders._LOADED.values())

    encoded = forwards()
    encoders.release_models()
    rows = seeda_rows(data)
    registry.run("impara_ged", rows["source"], rows["prediction"], model=qe)  # the whole corpus, in this process
    (out / f"rank{dist.get_rank()}.json").write_text(json.dumps({
        "errant": list(errant["errant"]), "impara_ged": list(impara["impara_ged"]),
        "flags": list(errant["errant_degenerate"]), "prediction": list(errant["prediction"]), "encoded": encoded,
        "whole": forwards()}))
    dist.destroy_process_group()
''')


@pytest.mark.timeout(600)
def test_score_dataset_under_two_torchrun_ranks_equals_one_process(shared_data, tiny, tmp_path):
    from ecosystem_helpers import run_torchrun

    script = tmp_path / "worker.py"
    script.write_text(DATASET_WORKER)
    run_torchrun(script, [str(tmp_path), str(shared_data), tiny["impara_ged"]["model"]], tmp_path)
    rows = seeda_rows(shared_data)
    errant = expected_scores(rows, "errant")
    impara = expected_scores(rows, "impara_ged", model=tiny["impara_ged"]["model"])
    flagged = {r["index"] for r in errant.details["degenerate_sentences"]}
    for rank in (0, 1):
        got = json.loads((tmp_path / f"rank{rank}.json").read_text())
        assert got["prediction"] == rows["prediction"] and got["errant"] == errant.sentence_scores()
        np.testing.assert_allclose(got["impara_ged"], impara.sentence_scores(), atol=1e-6, rtol=0)
        assert {i for i, f in enumerate(got["flags"]) if f} == flagged
        assert 0 < got["encoded"] < got["whole"]  # each rank encoded its part only


def test_a_sentence_is_scored_as_it_is_alone_whatever_its_batch(shared_data):
    """Corpus-level CLEME2.0 chooses a sentence's reference given the sentences before it; a sentence scorer scores
    each row as a corpus of its own, so its value is the same in any batch (the full run's records differ)."""
    rows = seeda_rows(shared_data, 60)
    references = [list(r) for r in zip(rows["ref0"], rows["ref1"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = registry.run("cleme2", rows["source"], rows["prediction"], references, weighting="none")
        alone = [registry.run("cleme2", [s], [p], [r], weighting="none").sentence_scores()[0]
                 for s, p, r in zip(rows["source"], rows["prediction"], references)]
    assert alone != full.sentence_scores()  # the greedy choice at work
    scorer = SentenceScorer("cleme2", weighting="none")
    assert scorer.score(rows["source"], rows["prediction"], references).scores == alone
    assert scorer.score(rows["source"][::-1], rows["prediction"][::-1], references[::-1]).scores == alone[::-1]


@pytest.mark.parametrize("metric", ["llm-s", "llm-e"])
def test_llm_judge_rewards_against_a_stub_endpoint(metric):
    from llm_stub import stub_server

    kept = [i for i in range(len(HOSTILE)) if i not in REFUSED]
    with stub_server() as server:
        endpoint = {"base_url": server.base_url, "api_key": "stub-key"}
        reward = reward_function(metric, **endpoint)
        values = reward(completions=HOSTILE, **columns(len(HOSTILE)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = registry.run(metric, [SOURCES[0]] * len(kept), [" ".join(HOSTILE[i].split()) for i in kept],
                                    robust=True, tokenize=True, normalize=True, **endpoint).sentence_scores()
    assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in values)
    assert [values[i] for i in kept] == expected and all(values[i] == 0.0 for i in REFUSED)


def test_a_row_the_metric_refuses_is_refused_with_its_copies(monkeypatch):
    """A row that only the metric refuses (here: any row holding 'boom') gets 0 and a record, and so do its
    duplicates; the batch's other rows are scored as usual."""
    from gecscore.sentence_scorer import SentenceScorer as Scorer

    original = registry.statistics_systems

    def refusing(name, sources, systems, references=None, **options):
        if any("boom" in text for texts in systems.values() for text in texts):
            raise ValueError("`predictions[0]` is refused by the metric")
        return original(name, sources, systems, references, **options)

    monkeypatch.setattr(registry, "statistics_systems", refusing)
    batch = Scorer("errant", lenient=True).score([SOURCES[0]] * 3, ["boom .", SOURCES[0], "boom ."],
                                                 [REFERENCES[0]] * 3)
    assert [r["index"] for r in batch.degenerate if r["reason"] == "refused"] == [0, 2]
    assert "refused by the metric" in batch.degenerate[0]["why"] and batch.values[0] == batch.values[2] == 0.0
    assert batch.scores[1] is not None
