"""Trainer `compute_metrics` (a real Seq2SeqTrainer run on a tiny BART) and `combine` next to a standard metric."""

import warnings

import evaluate
import numpy as np
import pytest

from conftest import REPO
from gecscore.integrations import combine, seq2seq_compute_metrics
from gecscore.registry import run as score
from ecosystem_helpers import SOURCES, TARGETS, tiny_seq2seq, toy_dataset, write_exact_match

PREDICTIONS = ["he went to school yesterday .", "i have a apple .", "she buyed some apples .", "the cat is here .",
               "they were at school .", "he has dog ."]


@pytest.fixture(scope="module")
def seq2seq(tmp_path_factory):
    return tiny_seq2seq(tmp_path_factory.mktemp("tiny-bart"))


def padded(tokenizer, texts, width):
    """Token ids right-padded with -100 (as the Trainer pads across batches)."""
    ids = tokenizer(texts)["input_ids"]
    return np.array([row + [-100] * (width - len(row)) for row in ids])


def eval_prediction(tokenizer, with_inputs=True):
    from transformers import EvalPrediction

    inputs = padded(tokenizer, SOURCES, 16) if with_inputs else None
    return EvalPrediction(predictions=padded(tokenizer, PREDICTIONS, 14), label_ids=padded(tokenizer, TARGETS, 15),
                          inputs=inputs)


def test_compute_metrics_decodes_with_minus_100_everywhere(seq2seq, nlp):
    tokenizer = seq2seq[1]
    metrics = seq2seq_compute_metrics(tokenizer, ("errant", "cleme2"), weighting="none")
    out = metrics(eval_prediction(tokenizer))
    errant = score("errant", SOURCES, PREDICTIONS, [[t] for t in TARGETS]).scores
    cleme = score("cleme2", SOURCES, PREDICTIONS, [[t] for t in TARGETS], weighting="none").scores
    assert out == {**{f"errant_{k}": v for k, v in errant.items()}, **{f"cleme2_{k}": v for k, v in cleme.items()}}
    assert 0 < out["errant_f0.5"] < 1 and all(type(v) is float for v in out.values())
    given = seq2seq_compute_metrics(tokenizer, ["errant"], sources=SOURCES)(eval_prediction(tokenizer, False))
    assert given == {k: v for k, v in out.items() if k.startswith("errant_")}


def test_batch_eval_metrics_equals_one_call(seq2seq, nlp):
    import torch
    from transformers import EvalPrediction

    tokenizer = seq2seq[1]
    module = evaluate.load(str(REPO / "metrics" / "pt_m2"), scorer="self", variant="errant")
    metrics = seq2seq_compute_metrics(tokenizer, ["errant", module])
    whole = metrics(eval_prediction(tokenizer))
    assert {"errant_f0.5", "pt_m2_f0.5", "pt_m2_score"} <= set(whole)
    full = eval_prediction(tokenizer)
    for start, stop in ((0, 4), (4, 6)):
        batch = EvalPrediction(predictions=torch.tensor(full.predictions[start:stop]),
                               label_ids=torch.tensor(full.label_ids[start:stop]),
                               inputs={"input_ids": torch.tensor(full.inputs[start:stop])})
        out = metrics(batch, compute_result=stop == 6)
    assert out == whole


def test_compute_metrics_errors(seq2seq):
    from transformers import EvalPrediction

    tokenizer = seq2seq[1]
    with pytest.raises(TypeError, match=r"no metric takes option\(s\) \['reg'\]"):
        seq2seq_compute_metrics(tokenizer, ["impara_ged"], reg=0.1)
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['layer'\]"):
        seq2seq_compute_metrics(tokenizer, {"errant": {"layer": 3}})
    with pytest.raises(ValueError, match="unknown metric 'bleu'"):
        seq2seq_compute_metrics(tokenizer, ["bleu"])
    metrics = seq2seq_compute_metrics(tokenizer, ["errant"])
    with pytest.raises(ValueError, match="include_for_metrics"):
        metrics(eval_prediction(tokenizer, with_inputs=False))
    logits = EvalPrediction(predictions=np.zeros((2, 3, 5)), label_ids=np.zeros((2, 3), int))
    with pytest.raises(ValueError, match="predict_with_generate=True"):
        metrics(logits)
    with pytest.raises(ValueError, match="`sources` has 2 sentences"):
        seq2seq_compute_metrics(tokenizer, ["errant"], sources=SOURCES[:2])(eval_prediction(tokenizer, False))


def test_seq2seq_trainer_evaluate_returns_our_metrics(seq2seq, tmp_path, tiny_electra, tiny_modernbert, nlp):
    pytest.importorskip("accelerate", reason="transformers' Trainer needs accelerate")
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    model, tokenizer = seq2seq
    data = toy_dataset(tokenizer)
    metrics = {"uot_errant": {"model": str(tiny_electra)}, "impara_ged": {"model": str(tiny_modernbert)}}
    results = []
    for batch_eval_metrics in (False, True):
        args = Seq2SeqTrainingArguments(
            output_dir=str(tmp_path / "out"), per_device_train_batch_size=3, per_device_eval_batch_size=4,
            max_steps=2, learning_rate=1e-3, predict_with_generate=True, include_for_metrics=["inputs"],
            batch_eval_metrics=batch_eval_metrics, report_to=[], use_cpu=True, save_strategy="no",
            logging_strategy="no", disable_tqdm=True,
        )
        trainer = Seq2SeqTrainer(
            model=model, args=args, train_dataset=data, eval_dataset=data, processing_class=tokenizer,
            data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
            compute_metrics=seq2seq_compute_metrics(tokenizer, metrics, tokenize=True),
        )
        if not batch_eval_metrics:
            trainer.train()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(trainer.evaluate())
    expected = {"eval_uot_errant_f0.5", "eval_uot_errant_precision", "eval_uot_errant_recall", "eval_uot_errant_tp",
                "eval_impara_ged_score"}
    assert expected <= set(results[0])
    assert all(type(results[0][k]) is float for k in expected)
    assert not any("signature" in k for k in results[0])
    ours = {k: v for k, v in results[0].items() if k.startswith(("eval_uot", "eval_impara"))}
    assert ours == {k: v for k, v in results[1].items() if k in ours}


# ---------------------------------------------------------------------------------------------------
# combine

@pytest.fixture()
def exact_match(tmp_path):
    return evaluate.load(str(write_exact_match(tmp_path)))


def test_combine_with_a_standard_metric(exact_match, nlp):
    errant = evaluate.load(str(REPO / "metrics" / "uot_errant"), variant="errant")
    cleme = evaluate.load(str(REPO / "metrics" / "cleme2"))
    inputs = {"sources": SOURCES, "predictions": PREDICTIONS, "references": TARGETS}
    e, c = errant.compute(**inputs), cleme.compute(**inputs, weighting="none")
    alone = {**e, **c, **exact_match.compute(predictions=PREDICTIONS, references=TARGETS),
             "uot_errant_signature": e["signature"], "cleme2_signature": c["signature"],
             "uot_errant_degenerate_sentences": [], "cleme2_degenerate_sentences": []}
    del alone["signature"], alone["degenerate_sentences"]

    # evaluate.combine forwards every keyword to every module: `sources=` reaches exact_match's _compute.
    with pytest.raises(TypeError, match="sources"):
        evaluate.combine([errant, exact_match]).compute(**inputs)
    # It works with options at load time, inputs through add_batch and a bare compute().
    cleme_none = evaluate.load(str(REPO / "metrics" / "cleme2"), weighting="none")
    plain = evaluate.combine([errant, cleme_none, exact_match])
    plain.add_batch(**inputs)
    assert plain.compute() == alone

    # gecscore.combine routes inputs and options per module.
    ours = combine([errant, cleme, exact_match])
    assert ours.compute(**inputs, weighting="none") == alone
    with pytest.raises(TypeError, match=r"no combined module takes option\(s\) \['nope'\]"):
        ours.compute(**inputs, nope=1)
    ours.add_batch(**inputs)
    assert ours.compute(weighting="none") == alone


def test_combine_reference_free_module_gets_no_references(tiny_modernbert, exact_match):
    impara = evaluate.load(str(REPO / "metrics" / "impara_ged"), model=str(tiny_modernbert))
    out = combine({"qe": impara, "em": exact_match}, force_prefix=True).compute(
        sources=SOURCES, predictions=PREDICTIONS, references=TARGETS, sentence_scores=True)
    assert out["em_exact_match"] == pytest.approx(3 / 6)
    assert out["qe_score"] == pytest.approx(np.mean(out["qe_sentence_scores"]))


def test_compute_metrics_is_robust_by_default(seq2seq, nlp):
    tokenizer = seq2seq[1]
    empty = eval_prediction(tokenizer)
    ids = np.array(empty.predictions)
    ids[1] = -100  # the model generated nothing for the second example
    from transformers import EvalPrediction

    empty = EvalPrediction(predictions=ids, label_ids=empty.label_ids, inputs=empty.inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        robust = seq2seq_compute_metrics(tokenizer, ["errant"])(empty)
        published = seq2seq_compute_metrics(tokenizer, ["errant"], robust=False)(empty)
        unchanged = [SOURCES[1] if i == 1 else p for i, p in enumerate(PREDICTIONS)]
        expected = score("errant", SOURCES, unchanged, [[t] for t in TARGETS]).scores
    assert robust == {f"errant_{k}": v for k, v in expected.items()}
    assert published != robust
