"""Our evaluate modules under `num_process=2` / `process_id` in two real processes equal one process."""

import multiprocessing
import os

import evaluate

from conftest import REPO

N = 24
SPLIT = 10  # process 0 adds the first SPLIT sentences, process 1 the rest (evaluate concatenates in rank order)


def load_data(shared_data):
    """Sources, hypotheses and the gold M2 text of the first N CoNLL-2014 sentences (PT-M2's data)."""
    from gecscore.common.m2io import format_m2, read_m2

    data = shared_data / "CoNLL-2014" / "PT-M2" / "data"
    gold = read_m2(data / "reference.m2")[:N]
    hypotheses = (data / "hypothesis").read_text(encoding="utf-8").split("\n")[:N]
    return [block.source for block in gold], hypotheses, format_m2(gold)


def modules(qe_model, **distributed):
    """PT-M2 (unit weights) and IMPARA-GED (a tiny QE) with the given evaluate process settings."""
    return {
        "pt_m2": evaluate.load(str(REPO / "metrics" / "pt_m2"), scorer="self", variant="m2", **distributed),
        "impara_ged": evaluate.load(str(REPO / "metrics" / "impara_ged"), model=qe_model, **distributed),
    }


def worker(rank, shared_data, qe_model, cache_dir, env, queue):
    """One process: add its half in two batches, compute; only rank 0 gets results."""
    os.environ.update(env)
    sources, hypotheses, gold = load_data(shared_data)
    rows = slice(0, SPLIT) if rank == 0 else slice(SPLIT, N)
    results = {}
    for name, module in modules(qe_model, num_process=2, process_id=rank, experiment_id="gecscore-two-process",
                                cache_dir=cache_dir, timeout=120).items():
        src, hyp = sources[rows], hypotheses[rows]
        module.add_batch(sources=src[:3], predictions=hyp[:3])
        module.add_batch(sources=src[3:], predictions=hyp[3:])
        results[name] = module.compute(gold_m2=gold) if name == "pt_m2" else module.compute(sentence_scores=True)
    queue.put((rank, results))


def test_two_processes_equal_one(shared_data, tiny_modernbert, tmp_path):
    from gecscore.common.encoders import release_models

    sources, hypotheses, gold = load_data(shared_data)
    release_models()  # cold, as in the fresh processes: outputs cached by earlier tests would change the QE's batches
    single = modules(str(tiny_modernbert))
    expected = {
        "pt_m2": single["pt_m2"].compute(sources=sources, predictions=hypotheses, gold_m2=gold),
        "impara_ged": single["impara_ged"].compute(sources=sources, predictions=hypotheses, sentence_scores=True),
    }
    env = {k: v for k, v in os.environ.items() if k.startswith(("HF_", "TRANSFORMERS_", "TOKENIZERS_"))}
    context = multiprocessing.get_context("forkserver")  # fresh processes; the imports happen once, in the server
    context.set_forkserver_preload(["evaluate", "torch", "transformers", "gecscore.impara_ged.metric"])
    queue = context.Queue()
    processes = [context.Process(target=worker, args=(rank, shared_data, str(tiny_modernbert), str(tmp_path / "cache"),
                                                      env, queue)) for rank in (0, 1)]
    for process in processes:
        process.start()
    results = dict(queue.get(timeout=300) for _ in processes)
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert results[1] == {"pt_m2": None, "impara_ged": None}
    assert results[0] == expected
    assert len(results[0]["impara_ged"]["sentence_scores"]) == N
    assert 0 < expected["pt_m2"]["f0.5"] < 1
