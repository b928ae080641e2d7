"""Sharded scoring (`gecscore.sharding`): shards merged in one process, and two CPU processes (gloo) launched by
`torchrun`, equal one process; each rank encodes about half the texts; the Trainer hook shards under torchrun."""

import contextlib
import json
import textwrap
import warnings

import numpy as np
import pytest

from conftest import REPO, build_tiny_model
from gecscore import registry, sharding

N = 40

# name, options, exact: bit-identical to one process (no model, or batch_size=1); otherwise equal to the float
# rounding that an encoder's batch composition causes (as when `batch_size` changes).
TWO_RANKS = [
    ("errant", {}, True),
    ("errant", {"convention": "errant_compare", "return_types": 2}, True),
    ("m2", {"return_types": 3}, True),
    ("cleme2", {"weighting": "none"}, True),
    ("uot_errant", {"model": "$bert", "batch_size": 1, "return_types": 1}, True),
    ("impara_ged", {"model": "$qe", "batch_size": 1}, True),
    ("uot_errant", {"model": "$bert"}, False),
]
ENCODED = {4, 5, 6}  # the configurations above that run an encoder


def seeda(shared_data, n=N):
    """Sources, BART's outputs and the two references of the first `n` SEEDA-subset sentences."""
    seeda = shared_data / "SEEDA"

    def lines(path):
        return path.read_text(encoding="utf-8").split("\n")[:n]

    sources = lines(seeda / "outputs" / "subset" / "INPUT.txt")
    predictions = lines(seeda / "outputs" / "subset" / "BART.txt")
    references = [list(pair) for pair in zip(lines(seeda / "derived" / "REF0.txt"),
                                             lines(seeda / "derived" / "REF1.txt"))]
    return sources, predictions, references


def plain(result):
    """A result as the JSON a rank writes (tuples as lists), for exact comparison."""
    return json.loads(json.dumps({
        "scores": result.scores, "sentences": result.sentences, "details": result.details,
        "signature": result.signature, "sentence_output": result.sentence_output,
        "statistic": float(result.statistic(np.arange(len(result.sentences)))),
    }))


def same_result(one, sharded):
    """Scores, sentence records, details, signature, sentence output and corpus statistic all identical."""
    assert sharded.scores == one.scores
    assert plain(sharded) == plain(one)
    assert len(sharded.statistic) == len(one.statistic)
    rows = np.random.default_rng(0).integers(0, one.n, size=(20, one.n))
    assert [sharded.statistic(r) for r in rows] == [one.statistic(r) for r in rows]


@contextlib.contextmanager
def one_thread():
    """Torch on one thread, as each rank runs (`OMP_NUM_THREADS=1`): much faster for batch_size=1 on a busy
    machine, and the same kernels as the ranks."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


# ---------------------------------------------------------------------------------------------------
# Shards merged in one process


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name, options", [
    ("errant", {}),
    ("errant", {"convention": "errant_compare", "return_types": 3}),
    ("m2", {"return_types": 2}),
    ("sentm2", {}),
    ("senterrant", {}),
    ("pt_m2", {"variant": "errant", "scorer": "self", "return_types": 2, "return_edits": True}),
    ("pt_m2", {"variant": "m2", "scorer": "self", "return_edits": True, "robust": True}),
    ("cleme2", {"weighting": "none"}),
    ("cleme2", {"weighting": "none", "level": "sentence"}),
    ("cleme", {"weighting": "none", "return_chunks": True}),
    ("cleme", {"weighting": "none", "level": "sentence"}),
], ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()))
def test_shards_merged_in_one_process_equal_one_run(shared_data, nlp, name, options):
    sources, predictions, references = seeda(shared_data)
    one = registry.run(name, sources, predictions, references, **options)
    same_result(one, sharding.run_in_shards(name, sources, predictions, references, shards=3, **options))


@pytest.mark.timeout(300)
def test_model_metrics_merged_exactly_with_batch_size_one(shared_data, nlp, tiny_bert, tmp_path):
    from gecscore.common.encoders import release_models

    sources, predictions, references = seeda(shared_data, 16)
    qe = build_tiny_model(tmp_path / "qe", "bert", num_labels=1)
    for name, options, refs in (("uot_errant", {"model": str(tiny_bert), "batch_size": 1}, references),
                                ("impara_ged", {"model": str(qe), "batch_size": 1}, None)):
        with one_thread(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release_models()  # no vector cached by one run may serve the other
            one = registry.run(name, sources, predictions, refs, **options)
            release_models()
            sharded = sharding.run_in_shards(name, sources, predictions, refs, shards=2, **options)
        same_result(one, sharded)


def test_refused_metrics_and_helpers(shared_data):
    sources, predictions, references = seeda(shared_data, 4)
    with pytest.raises(sharding.NotShardableError, match="corpus-wide mean chunk length"):
        sharding.run_in_shards("cleme", sources, predictions, references)
    with pytest.raises(sharding.NotShardableError, match="M2-file input"):
        sharding.plan("errant", {"convention": "errant_compare", "hyp_m2": "x", "ref_m2": "y"})
    assert sharding.shard_bounds(5, 2) == [(0, 2), (2, 5)]
    assert sharding.shard_bounds(40, 3) == [(0, 13), (13, 26), (26, 40)]
    assert sharding.rank_and_world() == (0, 1)  # no process group in this process


def test_run_sharded_without_a_process_group_is_one_run(shared_data, nlp):
    sources, predictions, references = seeda(shared_data, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = registry.run("cleme", sources, predictions, references)  # not shardable: irrelevant here
        alone = sharding.run_sharded("cleme", sources, predictions, references)
    same_result(one, alone)


# ---------------------------------------------------------------------------------------------------
# Two processes: torchrun --nproc_per_node=2, gloo

WORKER = textwrap.dedent('''
    """One rank: sharded scoring of every configuration, then a Seq2SeqTrainer evaluation with the hook."""
    import datetime, json, os, sys, warnings
    from pathlib import Path

    import torch.distributed as dist

    warnings.simplefilter("ignore")
    out, tests, data, bert, qe, bart = (Path(a) for a in sys.argv[1:7])
    sys.path.insert(0, str(tests))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=300))
    rank = dist.get_rank()

    from gecscore import sharding
    from gecscore.common import encoders
    from test_sharded import TWO_RANKS, plain, seeda

    def forwards():
        return sum(getattr(model, "forward_count", 0) for model in encoders._LOADED.values())

    sources, predictions, references = seeda(data)
    results = []
    for name, options, _ in TWO_RANKS:
        options = {k: {"$bert": str(bert), "$qe": str(qe)}.get(v, v) for k, v in options.items()}
        encoders.release_models()
        before = forwards()
        refs = None if name == "impara_ged" else references
        result = sharding.run_sharded(name, sources, predictions, refs, **options)
        results.append({"result": plain(result), "encoded": forwards() - before})
    (out / f"rank{rank}.json").write_text(json.dumps(results))

    # Errors: raised on every rank, whichever rank meets them.
    errors = {}
    bad = list(predictions[:8])
    bad[6] = "a control \x07 character ."  # in rank 1's shard [4, 8)
    cases = {"bad_input": lambda: sharding.run_sharded("errant", sources[:8], bad, references[:8]),
             "length": lambda: sharding.run_sharded("cleme", sources[:8], predictions[:8], references[:8]),
             "differ": lambda: sharding.run_sharded("errant", sources[:8], predictions[rank:rank + 8], references[:8]),
             "fallback": lambda: sharding.run_sharded("cleme", sources[:8], predictions[:8], references[:8],
                                                      fallback=True, all_ranks=False)}
    for case, call in cases.items():
        try:
            outcome = call()
            errors[case] = None if outcome is None else outcome.score
        except Exception as error:
            errors[case] = [type(error).__name__, str(error), getattr(error, "__notes__", [])]
    (out / f"errors{rank}.json").write_text(json.dumps(errors))

    # The Trainer hook: a Seq2SeqTrainer evaluation under the two processes, sharded and not.
    from transformers import (AutoTokenizer, BartForConditionalGeneration, DataCollatorForSeq2Seq, Seq2SeqTrainer,
                              Seq2SeqTrainingArguments)
    from ecosystem_helpers import toy_dataset
    from gecscore.integrations import seq2seq_compute_metrics

    model = BartForConditionalGeneration.from_pretrained(bart)
    tokenizer = AutoTokenizer.from_pretrained(bart)
    metrics = {"errant": {}, "impara_ged": {"model": str(qe), "batch_size": 1}, "cleme": {}}
    sharded = seq2seq_compute_metrics(tokenizer, metrics)
    whole = seq2seq_compute_metrics(tokenizer, metrics, shard=False)
    record = {}

    def compute_metrics(eval_pred):
        encoders.release_models()  # the QE caches its outputs: each run starts without the other's
        record["sharded"] = sharded(eval_pred)
        record["sharded_encoded"] = forwards()
        encoders.release_models()
        record["whole"] = whole(eval_pred)
        record.update(whole_encoded=forwards(), n=len(eval_pred.predictions))
        return record["sharded"]

    args = Seq2SeqTrainingArguments(output_dir=str(out / "trainer"), per_device_eval_batch_size=3,
                                    predict_with_generate=True, include_for_metrics=["inputs"], report_to=[],
                                    use_cpu=True, save_strategy="no", logging_strategy="no", disable_tqdm=True)
    trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=toy_dataset(tokenizer), processing_class=tokenizer,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
                             compute_metrics=compute_metrics)
    record["evaluate"] = trainer.evaluate()
    record["world"] = dist.get_world_size()
    (out / f"trainer{rank}.json").write_text(json.dumps(record))
    dist.destroy_process_group()
''')


@pytest.fixture(scope="module")
def two_ranks(shared_data, tiny_bert, tmp_path_factory):
    """Run the worker on two CPU ranks under torchrun; the ranks' JSON outputs and the models' paths."""
    pytest.importorskip("accelerate", reason="transformers' Trainer needs accelerate")
    tmp = tmp_path_factory.mktemp("two-ranks")
    qe = build_tiny_model(tmp / "qe", "bert", num_labels=1)
    from ecosystem_helpers import run_torchrun, tiny_seq2seq

    model, tokenizer = tiny_seq2seq(tmp / "bart-build")
    model.save_pretrained(tmp / "bart")
    tokenizer.save_pretrained(tmp / "bart")
    script = tmp / "worker.py"
    script.write_text(WORKER)
    out = tmp / "out"
    out.mkdir()
    run_torchrun(script, [str(out), str(REPO / "tests"), str(shared_data), str(tiny_bert), str(qe),
                          str(tmp / "bart")], tmp)
    return {"ranks": [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)],
            "trainer": [json.loads((out / f"trainer{r}.json").read_text()) for r in (0, 1)],
            "errors": [json.loads((out / f"errors{r}.json").read_text()) for r in (0, 1)],
            "models": {"$bert": str(tiny_bert), "$qe": str(qe)}}


@pytest.mark.timeout(600)
def test_two_ranks_equal_one_process(two_ranks, shared_data, nlp):
    from gecscore.common import encoders

    sources, predictions, references = seeda(shared_data)
    rank0, rank1 = two_ranks["ranks"]
    for k, (name, options, exact) in enumerate(TWO_RANKS):
        options = {key: two_ranks["models"].get(v, v) for key, v in options.items()}
        encoders.release_models()
        before = sum(getattr(m, "forward_count", 0) for m in encoders._LOADED.values())
        with one_thread(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one = registry.run(name, sources, predictions, None if name == "impara_ged" else references, **options)
        encoded = sum(getattr(m, "forward_count", 0) for m in encoders._LOADED.values()) - before
        label = f"{name} {options}"
        assert rank0[k]["result"] == rank1[k]["result"], label  # every rank gets the merged result
        got = rank0[k]["result"]
        if exact:
            assert got == plain(one), label
        else:  # an encoder's batches differ between the shards and one process: float rounding only
            assert got["scores"] == pytest.approx(one.scores, rel=1e-4, abs=1e-6), label
            assert got["signature"] == one.signature
            assert len(got["sentences"]) == N
        if k in ENCODED:
            shares = [rank0[k]["encoded"] / encoded, rank1[k]["encoded"] / encoded]
            assert all(0.3 < share < 0.7 for share in shares), (label, encoded, shares)
            assert sum(shares) >= 1.0, (label, shares)  # nothing skipped (a text in both shards counts twice)
        else:
            assert encoded == rank0[k]["encoded"] == rank1[k]["encoded"] == 0


@pytest.mark.timeout(600)
def test_trainer_hook_shards_under_two_ranks(two_ranks):
    for rank, record in enumerate(two_ranks["trainer"]):
        assert record["world"] == 2 and record["n"] == 6  # each rank got the gathered evaluation set
        assert record["sharded"] == record["whole"], rank
        assert {"errant_f0.5", "impara_ged_score", "cleme_score"} <= set(record["sharded"])
        assert record["evaluate"]["eval_errant_f0.5"] == record["sharded"]["errant_f0.5"]
        assert 0 < record["sharded_encoded"] < record["whole_encoded"], rank  # the QE saw only this rank's shard
    first, second = two_ranks["trainer"]
    assert first["sharded"] == second["sharded"]
    assert first["sharded_encoded"] + second["sharded_encoded"] >= first["whole_encoded"]


@pytest.mark.timeout(600)
def test_errors_are_raised_on_every_rank(two_ranks, shared_data, nlp):
    first, second = two_ranks["errors"]
    for errors in (first, second):
        kind, message, notes = errors["bad_input"]  # met by rank 1 only (its shard holds the sentence)
        assert kind == "ValueError" and "control" in message, message
        assert "rank 1" in notes[0] and "[4, 8)" in notes[0], notes
        assert errors["length"][0] == "NotShardableError" and "chunk length" in errors["length"][1]
        assert errors["differ"][0] == "ValueError" and "same inputs" in errors["differ"][1]
    sources, predictions, references = seeda(shared_data, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert first["fallback"] == registry.run("cleme", sources, predictions, references).score
    assert second["fallback"] is None  # all_ranks=False: rank 0 scores the unshardable metric whole, alone


@pytest.mark.timeout(300)
def test_gold_m2_annotators_merged_exactly(shared_data, nlp):
    from gecscore.common.m2io import format_m2, read_m2

    data = shared_data / "CoNLL-2014" / "PT-M2" / "data"
    gold = read_m2(data / "reference.m2")[:60]
    sources = [block.source for block in gold]
    hypotheses = (data / "hypothesis").read_text(encoding="utf-8").split("\n")[:60]
    assert any(len({e.annotator for e in block.edits}) > 1 for block in gold)  # greedy choices to make
    for name, options in (("m2", {"return_types": 3}), ("sentm2", {}), ("errant", {"return_types": 2})):
        one = registry.run(name, sources, hypotheses, gold_m2=format_m2(gold), **options)
        same_result(one, sharding.run_in_shards(name, sources, hypotheses, gold_m2=format_m2(gold), shards=3,
                                                **options))
