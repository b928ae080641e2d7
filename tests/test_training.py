"""The IMPARA-GED training recipe: GED labels, QE pairs, resumable fine-tuning, the embedded export, the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import build_tiny_model

from gecscore.cli import main as cli_main
from gecscore.common.edits import Edit
from gecscore.impara_ged.metric import Impara, QualityEstimator
from gecscore.training import GEDOptions, PairOptions, QEOptions, train_impara, train_qe
from gecscore.training.corpora import load_corpus, overlap, subsample
from gecscore.training.ged import ged_scores, length_batches
from gecscore.training.labels import LABEL_SETS, edit_label, token_labels
from gecscore.training.qe_data import draw_subsets, edit_impacts, sentence_pairs, without_each
from gecscore.training.runs import Stage, freeze_lower_layers

TRAIN = [("he go to school yesterday .", "he went to school yesterday ."),
         ("the cat are here .", "the cat is here ."),
         ("i buyed some apple .", "i bought some apples ."),
         ("this is a sentence .", "this is a sentence ."),
         ("she have a dogs", "she has a dog .")]
PAIRS = [("he go to school .", "he goes to school ."), ("the cat are here .", "the cat is here ."),
         ("i buyed apple .", "i bought apples ."), ("she have dog", "she has a dog ."),
         ("they was here .", "they were here ."), ("we is cats .", "we are cats .")]


def _e(o_start, o_end, o_str, c_str, type_):
    return Edit(o_start, o_end, o_str, 0, 0, c_str, type_)


# ---------------------------------------------------------------------------------------------------
# GED labels

def test_label_sets_have_the_papers_sizes():
    assert {n: len(labels) for n, labels in LABEL_SETS.items()} == {2: 2, 4: 4, 25: 25, 55: 55}
    assert all(labels[0] == "CORRECT" and len(set(labels)) == len(labels) for labels in LABEL_SETS.values())
    assert "R:NOUN:NUM" in LABEL_SETS[55] and "M:NOUN:NUM" not in LABEL_SETS[55]
    assert "UNK" not in LABEL_SETS[25]


def test_edit_label_mapping():
    assert [edit_label("R:VERB:SVA", n) for n in (2, 4, 25, 55)] == ["INCORRECT", "R", "VERB:SVA", "R:VERB:SVA"]
    assert edit_label("M:DET", 55) == "M:DET"
    assert edit_label("M:NOUN:NUM", 55) == "M:OTHER"  # not an ERRANT combination
    with pytest.raises(ValueError, match="num_classes"):
        edit_label("R:DET", 3)
    with pytest.raises(ValueError, match="ERRANT edit type"):
        edit_label("DET", 2)


def test_token_labels_spans_missing_and_overlap():
    source = "he go to the school"
    edits = [_e(1, 2, "go", "goes", "R:VERB:SVA"), _e(3, 4, "the", "", "U:DET"),
             _e(5, 5, "", ".", "M:PUNCT"), _e(0, 0, "", "So", "M:OTHER")]
    assert token_labels(source, edits, 4) == ["M", "R", "CORRECT", "U", "M"]
    assert token_labels(source, edits, 55) == ["M:OTHER", "R:VERB:SVA", "CORRECT", "U:DET", "M:PUNCT"]
    assert token_labels(source, edits[:1] + [_e(1, 3, "go to", "went", "R:VERB:TENSE")], 25) == \
        ["CORRECT", "VERB:SVA", "VERB:TENSE", "CORRECT", "CORRECT"]
    assert token_labels("", [], 2) == []
    with pytest.raises(ValueError, match="outside"):
        token_labels("a b", [_e(2, 3, "c", "d", "R:NOUN")], 2)


def test_ged_scores_binary_and_macro():
    gold = [[0, 1, 0, 1], [0, 0]]
    pred = [[0, 1, 1, 0], [0, 0]]
    s = ged_scores(gold, pred, 2)
    assert (s["precision"], s["recall"]) == (0.5, 0.5)
    assert s["f0.5"] == pytest.approx(0.5)
    assert s["macro_precision"] == pytest.approx((3 / 4 + 1 / 2) / 2)
    assert s["selection"] == s["f0.5"]
    assert ged_scores(gold, pred, 4)["selection"] == s["macro_f0.5"]
    with pytest.raises(ValueError, match="words"):
        ged_scores(gold, [[0]], 2)


# ---------------------------------------------------------------------------------------------------
# QE pairs

def test_without_each_and_impacts():
    source = "he go to school"
    edits = [_e(1, 2, "go", "goes", "R:VERB:SVA"), _e(4, 4, "", ".", "M:PUNCT")]
    assert without_each(source, edits) == ["he go to school .", "he goes to school"]
    table = {"he goes to school .": [1.0, 0.0], "he go to school .": [0.0, 1.0], "he goes to school": [1.0, 0.1]}
    impacts = edit_impacts(lambda texts: np.array([table[t] for t in texts]), ["he goes to school ."],
                           [without_each(source, edits)])
    assert impacts[0][0] == pytest.approx(1.0) and impacts[0][1] == pytest.approx(1 - 1 / np.sqrt(1.01))


def test_draw_subsets_follow_impara():
    rng = random.Random(0)
    for n in (1, 2, 5):
        for _ in range(200):
            first, second = draw_subsets(n, rng)
            assert 1 <= len(first) <= n and first == sorted(set(first))
            assert set(second) <= set(range(n)) and second == sorted(set(second))
    # with one edit the flip probability is 1: the pair is (no edit, the edit)
    assert draw_subsets(1, random.Random(3)) == ([0], [])


def test_sentence_pairs_rank_by_total_impact():
    source = "he go to school"
    edits = [_e(1, 2, "go", "goes", "R:VERB:SVA"), _e(4, 4, "", ".", "M:PUNCT")]
    pairs = sentence_pairs(source, edits, np.array([0.9, 0.1]), 50, random.Random(1))
    assert pairs and len(pairs) == len(set(pairs))
    rank = {"he go to school": 0.0, "he goes to school": 0.9, "he go to school .": 0.1, "he goes to school .": 1.0}
    assert all(rank[worse] < rank[better] for worse, better in pairs)
    assert pairs == sentence_pairs(source, edits, np.array([0.9, 0.1]), 50, random.Random(1))  # seeded
    equal = sentence_pairs(source, edits, np.array([0.5, 0.5]), 50, random.Random(1))
    assert not {("he goes to school", "he go to school ."), ("he go to school .", "he goes to school")} & set(equal)


def test_corpus_specs_and_subsample(shared_data, tmp_path):
    jfleg = load_corpus("jfleg:dev:2", shared_data)
    assert len(jfleg) == 754 and all(isinstance(s, str) for pair in jfleg for s in pair)
    cweb = load_corpus("cweb:S.dev:1", shared_data)
    assert len(cweb) == 2862
    src, trg = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_text("a  b\nc\n")
    trg.write_text("a b\nd\n")
    assert load_corpus(f"parallel:{src},{trg}") == [("a b", "a b"), ("c", "d")]
    kept = subsample(load_corpus(f"parallel:{src},{trg}"), max_unchanged=0)
    assert kept == [("c", "d")]
    assert overlap(jfleg, [jfleg[3][0] + "  "]) == 1
    for bad in ("jfleg", "jfleg:train", "cweb:X.dev", "zip:a", "parallel:a"):
        with pytest.raises(ValueError):
            load_corpus(bad, shared_data)


# ---------------------------------------------------------------------------------------------------
# fine-tuning: resumable, frozen layers, seeds

def test_stage_refuses_other_options(tmp_path):
    Stage(tmp_path, "QE", {"lr": 1e-5})
    Stage(tmp_path, "QE", {"lr": 1e-5})
    with pytest.raises(ValueError, match="lr differ"):
        Stage(tmp_path, "QE", {"lr": 2e-5})


def test_more_epochs_continue_and_fewer_stop(tiny_bert, tmp_path):
    from dataclasses import replace

    out = tmp_path / "qe"
    one = QEOptions(epochs=1, batch_size=3, lr=1e-3, train_layers=1)
    train_qe(PAIRS, PAIRS[:2], out, init_model=str(tiny_bert), options=one, progress=False)
    train_qe(PAIRS, PAIRS[:2], out, init_model=str(tiny_bert), options=replace(one, epochs=2), progress=False)
    state = json.loads((out / "state.json").read_text())
    assert state["epochs_done"] == 2 and state["finished"] and len(state["history"]) == 2
    best = train_qe(PAIRS, PAIRS[:2], out, init_model=str(tiny_bert), options=one, progress=False)
    assert best == out / "best" and json.loads((out / "state.json").read_text())["epochs_done"] == 2
    with pytest.raises(ValueError, match="lr differ"):
        train_qe(PAIRS, PAIRS[:2], out, init_model=str(tiny_bert), options=replace(one, lr=1.0), progress=False)


def test_freeze_lower_layers(tiny_bert):
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(tiny_bert, num_labels=1)
    frozen = freeze_lower_layers(model, 1)
    assert any("embeddings" in n for n in frozen) and any("layer.0." in n for n in frozen)
    assert not any("layer.1." in n or "classifier" in n for n in frozen)
    with pytest.raises(ValueError, match="train_layers"):
        freeze_lower_layers(model, 3)


def test_qe_training_resumes_exactly(tiny_bert, tmp_path, monkeypatch):
    from gecscore.training import qe as qe_module

    options = QEOptions(epochs=3, batch_size=2, lr=1e-3, train_layers=1)
    straight = train_qe(PAIRS, PAIRS[:3], tmp_path / "straight", init_model=str(tiny_bert), options=options,
                        progress=False)
    calls = {"n": 0}
    original = qe_module.evaluate_pairs

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(qe_module, "evaluate_pairs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train_qe(PAIRS, PAIRS[:3], tmp_path / "resumed", init_model=str(tiny_bert), options=options,
                 progress=False)
    assert json.loads((tmp_path / "resumed" / "state.json").read_text())["epochs_done"] == 1
    monkeypatch.setattr(qe_module, "evaluate_pairs", original)
    resumed = train_qe(PAIRS, PAIRS[:3], tmp_path / "resumed", init_model=str(tiny_bert), options=options,
                       progress=False)
    a = json.loads((tmp_path / "straight" / "state.json").read_text())
    b = json.loads((tmp_path / "resumed" / "state.json").read_text())
    assert [h["loss"] for h in a["history"]] == pytest.approx([h["loss"] for h in b["history"]], abs=1e-6)
    texts = [t for pair in PAIRS for t in pair]
    assert np.allclose(QualityEstimator.load(str(straight)).logits(texts),
                       QualityEstimator.load(str(resumed)).logits(texts), atol=1e-6)
    # frozen layers did not move
    from transformers import AutoModel, AutoModelForSequenceClassification

    base = AutoModel.from_pretrained(tiny_bert).state_dict()
    trained = AutoModelForSequenceClassification.from_pretrained(straight).state_dict()
    assert torch.equal(base["encoder.layer.0.attention.self.query.weight"],
                       trained["bert.encoder.layer.0.attention.self.query.weight"])
    assert not torch.equal(base["encoder.layer.1.attention.self.query.weight"],
                           trained["bert.encoder.layer.1.attention.self.query.weight"])


def test_full_recipe_with_tiny_model(tiny_bert, nlp, tmp_path):
    from gecscore.common.edits import EditExtractor

    extractor = EditExtractor(nlp)
    out = tmp_path / "run"
    kwargs = dict(model=str(tiny_bert), ged=GEDOptions(num_classes=4, epochs=2, batch_size=4, lr=1e-3),
                  qe=QEOptions(epochs=2, batch_size=4, lr=1e-3), pairs=PairOptions(n_try=10, max_devtest=20),
                  seeds=(1, 2), devtest=TRAIN[:3], extractor=extractor, progress=False)
    best = train_impara(TRAIN * 2, TRAIN, out, **kwargs)
    assert best == out / "qe" / "best"
    labels = [json.loads(line) for line in (out / "ged" / "labels.dev.jsonl").read_text().splitlines()]
    assert labels[1] == {"words": "the cat are here .".split(), "labels": ["CORRECT", "CORRECT", "R", "CORRECT",
                                                                           "CORRECT"]}
    assert json.loads((out / "ged" / "best" / "config.json").read_text())["id2label"] == \
        {"0": "CORRECT", "1": "M", "2": "R", "3": "U"}
    for split in ("train", "dev", "devtest"):
        assert (out / "qe_data" / f"pairs.{split}.tsv").read_text().strip()
    chosen = json.loads((best / "chosen.json").read_text())
    assert chosen["seed"] in (1, 2) and set(chosen["devtest_loss"]) == {"1", "2"}
    scorer = Impara(str(best))
    assert scorer.qe.pooling == "mean_wrapper"
    assert scorer.score(["a"], ["he go to school ."]).score == pytest.approx(
        float(1 / (1 + np.exp(-scorer.qe.logits(["he go to school ."])[0]))))
    state = (out / "qe" / "seed1" / "state.json").read_text()
    assert train_impara(TRAIN * 2, TRAIN, out, **kwargs) == best  # finished stages are skipped
    assert (out / "qe" / "seed1" / "state.json").read_text() == state
    with pytest.raises(ValueError, match="devtest"):
        train_impara(TRAIN, TRAIN, tmp_path / "x", model=str(tiny_bert), seeds=(1, 2), progress=False)


def test_cli_train_impara_without_ged(tiny_bert, nlp, tmp_path, capsys):
    src, trg = tmp_path / "src.txt", tmp_path / "trg.txt"
    src.write_text("\n".join(s for s, _ in TRAIN) + "\n")
    trg.write_text("\n".join(t for _, t in TRAIN) + "\n")
    spec = f"parallel:{src},{trg}"
    code = cli_main(["train-impara", "--train", spec, "--dev", spec, "--model", str(tiny_bert), "--out",
                     str(tmp_path / "out"), "--no-ged", "--epochs", "1", "--batch-size", "2", "--train-layers", "1",
                     "--max-pairs", "20", "10", "0", "--no-progress"])
    assert code == 0
    best = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert (best / "model.safetensors").exists() and not (tmp_path / "out" / "ged").exists()
    code = cli_main(["train-ged", "--train", spec, "--dev", spec, "--model", str(tiny_bert), "--out",
                     str(tmp_path / "ged"), "--epochs", "1", "--classes", "55", "--no-progress"])
    assert code == 0
    assert len(json.loads((tmp_path / "ged" / "best" / "config.json").read_text())["id2label"]) == 55
    assert cli_main(["train-ged", "--train", "jfleg:dev", "--dev", spec, "--out", str(tmp_path / "y")]) == 2


# ---------------------------------------------------------------------------------------------------
# embedded export

def test_export_and_load_embedded_roundtrip(tiny_bert, tmp_path):
    from gecscore.impara_ged.embedded import export_embedded, load_embedded

    best = train_qe(PAIRS, PAIRS[:3], tmp_path / "qe", init_model=str(tiny_bert),
                    options=QEOptions(epochs=1, batch_size=2, lr=1e-3, train_layers=1), progress=False)
    meta = export_embedded(best, tmp_path / "asset", base_dir=tiny_bert)
    assert meta["parameters"] and all(".layer.0." not in p and "embeddings" not in p for p in meta["parameters"])
    assert "classifier.weight" in meta["parameters"]
    model, tokenizer = load_embedded(tmp_path / "asset", base_dir=tiny_bert)
    qe = QualityEstimator(model, tokenizer, name="embedded-test")
    texts = [t for pair in PAIRS for t in pair]
    assert np.allclose(qe.logits(texts), QualityEstimator.load(str(best)).logits(texts), atol=2e-3)
    other = build_tiny_model(tmp_path / "other", "bert", seed=5)
    with pytest.raises(ValueError, match="not the ones"):
        load_embedded(tmp_path / "asset", base_dir=other)
    with pytest.raises(FileNotFoundError, match="missing"):
        load_embedded(tmp_path / "nothing", base_dir=tiny_bert)
    with pytest.raises(ValueError, match="bytes"):
        export_embedded(best, tmp_path / "small", base_dir=tiny_bert, max_bytes=10)


def test_length_batches_cover_every_index_once_longest_first():
    lengths = [3, 9, 1, 9, 5]
    batches = length_batches(lengths, 2)
    assert sorted(i for b in batches for i in b) == list(range(5))
    assert batches[0] == [1, 3] and all(len(b) <= 2 for b in batches)
    with pytest.raises(ValueError, match="batch_size"):
        length_batches(lengths, 0)
