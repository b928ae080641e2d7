"""Worker processes for the CPU stages (`gecscore.common.workers`): the user's number, and ERRANT's edit extraction
split across processes giving the same edits as one process, pair for pair."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gecscore.common import workers


def test_the_number_comes_from_the_user_else_the_environment_else_every_core(monkeypatch):
    monkeypatch.delenv(workers.WORKERS_ENV, raising=False)
    monkeypatch.setattr(workers, "available_cores", lambda: 4)
    monkeypatch.setattr(workers, "can_start_workers", lambda: True)
    assert workers.cpu_workers() == 4 and not workers.user_chose_workers()
    monkeypatch.setattr(workers, "can_start_workers", lambda: False)  # an unguarded script, a worker, a thread
    assert workers.cpu_workers() == 1
    monkeypatch.setenv(workers.WORKERS_ENV, "3")
    assert workers.cpu_workers() == 3 and workers.user_chose_workers()
    with workers.using_workers(2):
        assert workers.cpu_workers() == 2
        with workers.using_workers(0):
            assert workers.cpu_workers() == 4
        assert workers.cpu_workers() == 2
    assert workers.cpu_workers() == 3
    monkeypatch.setenv(workers.WORKERS_ENV, "many")
    with pytest.raises(ValueError, match="`GECSCORE_WORKERS` must be a whole number"):
        workers.cpu_workers()
    for bad in (-1, 1.5, True, "2.0"):
        with pytest.raises(ValueError, match="`workers` must be a whole number"):
            workers.set_workers(bad)
    workers.set_workers(None)


def test_the_cores_this_process_may_use(monkeypatch, tmp_path):
    """The affinity, capped by a cgroup v2 quota (rounded up), shared among a launcher's local ranks."""
    monkeypatch.setattr(workers.os, "sched_getaffinity", lambda pid: set(range(8)))
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    quota = tmp_path / "cpu.max"
    monkeypatch.setattr(workers, "CGROUP_CPU_MAX", quota)
    assert workers.available_cores() == 8  # no file: no limit
    for text, cores in (("max 100000\n", 8), ("250000 100000\n", 3), ("50000 100000\n", 1), ("junk\n", 8)):
        quota.write_text(text)
        assert workers.available_cores() == cores, text
    quota.write_text("400000 100000\n")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert workers.available_cores() == 2
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "16")
    assert workers.available_cores() == 1


def test_the_lines_under_a_main_guard(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import os\n"                    # 1
                      "def f():\n"                     # 2
                      "    return 1\n"                 # 3
                      "if __name__ == '__main__':\n"   # 4
                      "    f()\n"                      # 5
                      "    print(\n"                   # 6
                      "        f())\n"                 # 7
                      "if '__main__' == __name__:\n"   # 8
                      "    f()\n"                      # 9
                      "if __name__ != '__main__':\n"   # 10
                      "    f()\n")                     # 11
    assert workers.guarded_lines(str(script)) == {5, 6, 7, 9}
    assert workers.guarded_lines(str(tmp_path / "missing.py")) == frozenset()


def test_queued_pieces_go_to_the_free_worker_and_come_back_in_the_order_of_the_items():
    pool = workers.WorkerPool(2)
    try:
        items, seen = list(range(103)), []
        assert pool.run_queued(list, items, pieces=5, on_done=seen.append) == items  # `list(piece)`: the piece
        assert seen.count(11) == 9 and sorted(seen)[0] == 4 and sum(seen) == 103  # 10 pieces of ceil(103 / 10)
        assert pool.run_queued(list, []) == []
        with pytest.raises(TypeError):  # a worker's error reaches the caller
            pool.run_queued(dict, [1, 2])
    finally:
        pool.shutdown(wait=True)


@pytest.mark.real_model
def test_the_default_uses_workers_only_where_a_script_can_be_imported_again(tmp_path):
    """With nothing set, a script calling from under its main guard (or `python -c`) gets a worker per core and
    the same edits; the same call at a script's top level stays in one process and works (no second run of the
    script); so does a call from another thread. With the workers, this process loads no spaCy pipeline."""
    body = ("import sys\nfrom gecscore.common import edits, workers\n"
            "edits.PARALLEL_MIN_PAIRS = edits.POOL_START_PAIRS = 1\n"
            "def run():\n"
            "    found = edits.EditExtractor().extract(['He go .', 'She like it .'], ['He goes .', 'She likes it .'])\n"
            "    print(workers.cpu_workers(), workers.pool_running(workers.cpu_workers()), 'spacy' in sys.modules,\n"
            "          [[(e.o_str, e.c_str, e.type) for e in f] for f in found])\n")
    env = {k: v for k, v in os.environ.items() if k != workers.WORKERS_ENV}
    edits = "[[('go', 'goes', 'R:VERB:SVA')], [('like', 'likes', 'R:VERB:SVA')]]"
    cases = {"guarded": (body + "if __name__ == '__main__':\n    run()\n", f"2 True False {edits}"),
             "unguarded": (body + "run()\n", f"1 False True {edits}"),
             "thread": (body + "import threading\nt = threading.Thread(target=run)\nt.start(); t.join()\n",
                        f"1 False True {edits}")}
    for name, (code, printed) in cases.items():
        script = tmp_path / f"{name}.py"
        script.write_text("from gecscore.common import workers\n"
                          "workers.available_cores = lambda: 2  # as on a 2-core machine, whatever this one has\n"
                          + code)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, (name, done.stderr[-2000:])
        assert done.stdout.strip() == printed, name
    done = subprocess.run([sys.executable, "-c", "from gecscore.common import workers\n"
                           "workers.available_cores = lambda: 2\nprint(workers.cpu_workers())"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.stdout.strip() == "2"


@pytest.mark.real_model
def test_m2_from_references_starts_the_pool_for_the_references_where_its_lattices_would(tmp_path):
    """The references' edits come first and are too few here to start workers themselves; the lattices that follow
    would start them, so the pool is started before the references' edits, which run on it: the calling process
    loads no spaCy pipeline, and the score is one process's."""
    code = ("import sys\nfrom gecscore.common import edits, workers\nfrom gecscore.pt_m2 import lattice\n"
            "from gecscore import registry\n"
            "workers.available_cores = lambda: 2\n"
            "edits.PARALLEL_MIN_PAIRS, edits.POOL_START_PAIRS = 1, 10**9  # the references alone: no pool\n"
            "lattice.PARALLEL_MIN_SENTENCES = lattice.POOL_START_SENTENCES = 2  # the lattices: a pool\n"
            "sources = ['He go to school .', 'She like it .', 'They was here .']\n"
            "hyps = ['He goes to school .', 'She like it .', 'They were here .']\n"
            "refs = [['He goes to school .'], ['She likes it .'], ['They were here .']]\n"
            "if __name__ == '__main__':\n"
            "    if sys.argv[1] == '1':\n"
            "        workers.set_workers(1)\n"
            "    score = registry.run('m2', sources, hyps, refs).score\n"
            "    print(workers.cpu_workers(), workers.pool_running(2), 'spacy' in sys.modules, repr(score))\n")
    script = tmp_path / "m2_pool.py"
    script.write_text(code)
    env = {k: v for k, v in os.environ.items() if k != workers.WORKERS_ENV}
    printed = {}
    for count in ("1", "default"):
        done = subprocess.run([sys.executable, str(script), count], capture_output=True, text=True, timeout=300,
                              env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        printed[count] = done.stdout.split()
    assert printed["default"][:3] == ["2", "True", "False"] and printed["1"][:3] == ["1", "False", "True"]
    assert printed["default"][3] == printed["1"][3]


@pytest.mark.real_model
def test_edits_from_two_processes_equal_one_process(shared_data, monkeypatch):
    """SEEDA outputs against their sources (over PARALLEL_MIN_PAIRS changed pairs): the extraction split across
    two spawned processes returns the same edits, types and order as one process, and fills the same cache."""
    from gecscore.common.edits import PARALLEL_MIN_PAIRS, EditExtractor
    from gecscore.common.inputs import load_spacy

    monkeypatch.delenv(workers.WORKERS_ENV, raising=False)
    subset = shared_data / "SEEDA" / "outputs" / "subset"
    sources = (subset / "INPUT.txt").read_text(encoding="utf-8").splitlines()
    pairs = [(s, t) for name in ("BART", "T5", "GPT-3.5") for s, t in
             zip(sources, (subset / f"{name}.txt").read_text(encoding="utf-8").splitlines())]
    assert sum(s.split() != t.split() for s, t in pairs) >= PARALLEL_MIN_PAIRS
    srcs, trgs = [s for s, _ in pairs], [t for _, t in pairs]
    nlp = load_spacy()
    one = EditExtractor(nlp).extract(srcs, trgs, keep_unk=True)
    parallel = EditExtractor(nlp)
    with workers.using_workers(2):
        two = parallel.extract(srcs, trgs, keep_unk=True)
    assert two == one
    assert parallel.extract(srcs, trgs, keep_unk=True) == one  # now read from the cache the workers filled


@given(calls=st.lists(st.lists(st.sampled_from("abcdefg"), max_size=60), min_size=1, max_size=3),
       count=st.integers(1, 5))
def test_each_source_goes_to_one_worker_and_back_to_it(calls, count):
    """Every pair once, positions ascending; all pairs of a source on one worker (it is parsed once, not once per
    worker); no worker above the slack over an even share unless one source's pairs alone take it there; and a
    source of an earlier call goes back to its worker (whose parse cache holds it) whenever that stays in bounds."""
    from gecscore.common.edits import AFFINITY_SLACK
    from gecscore.common.sharing import LRU

    home: LRU[str, int] = LRU(100)
    for sources in calls:
        before = {s: home.get(s) for s in set(sources) if s in home}
        pairs = [(s, f"{s} {k}") for k, s in enumerate(sources)]
        groups: dict[str, list[int]] = {}
        for k, (s, _) in enumerate(pairs):
            groups.setdefault(s, []).append(k)
        share = workers.balanced_shares(list(groups.items()), count, home, AFFINITY_SLACK)
        assert len(share) == count and sorted(k for p in share for k in p) == list(range(len(pairs)))
        assert all(p == sorted(p) for p in share)
        owner = {pairs[k][0]: w for w, p in enumerate(share) for k in p}
        assert all(owner[pairs[k][0]] == w for w, p in enumerate(share) for k in p)
        largest = max((sources.count(s) for s in set(sources)), default=0)
        assert all(len(p) <= max(AFFINITY_SLACK * len(pairs) / count, len(pairs) / count + largest) for p in share)
        load = [0] * count  # replayed in order of first appearance: a source left its worker only when full
        for source in dict.fromkeys(sources):
            group = sources.count(source)
            if source in before and owner[source] != before[source]:
                assert load[before[source]] + group > AFFINITY_SLACK * len(pairs) / count
            load[owner[source]] += group
        assert all(home.get(s) == owner[s] for s in owner)


def test_cli_workers_flag_is_checked_and_named():
    done = subprocess.run([sys.executable, "-m", "gecscore.cli", "score", "errant", "--workers", "some",
                           "--sources", "x", "--predictions", "y"], capture_output=True, text=True)
    assert done.returncode == 2 and "--workers" in done.stderr and "whole number" in done.stderr


@pytest.mark.real_model
@pytest.mark.skipif(not os.environ.get("GECSCORE_TEST_WORKERS"), reason="CI's run of the parity files on workers "
                    "(GECSCORE_TEST_WORKERS) only")
def test_the_parity_run_on_workers_splits_every_extraction(monkeypatch):
    """The files run with GECSCORE_TEST_WORKERS prove something only if their extractions really ran on workers."""
    from gecscore.common import edits
    from gecscore.common.inputs import load_spacy

    calls = []
    real = edits.parallel_annotate
    monkeypatch.setattr(edits, "parallel_annotate", lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    found = edits.EditExtractor(load_spacy()).extract(["He go to school ."], ["He goes to school ."])
    assert workers.cpu_workers() == int(os.environ["GECSCORE_TEST_WORKERS"]) >= 2
    assert calls == [workers.cpu_workers()]
    assert [(e.o_str, e.c_str, e.type) for e in found[0]] == [("go", "goes", "R:VERB:SVA")]


@pytest.mark.real_model
def test_a_script_without_a_main_guard_gets_an_error_that_says_so(tmp_path):
    """Spawned workers import the starting script again; without the guard they fail, and the user is told why."""
    script = tmp_path / "unguarded.py"
    script.write_text("from gecscore.common import edits, workers\n"
                      "edits.PARALLEL_MIN_PAIRS = 1\n"
                      "workers.set_workers(2)\n"
                      "edits.EditExtractor().extract(['He go .'], ['He goes .'])\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "RuntimeError: ERRANT's 2 worker processes stopped" in done.stderr
    assert 'if __name__ == "__main__":' in done.stderr


def test_a_datasets_worker_keeps_to_one_process():
    """`datasets`' `map(num_proc=...)` already uses the cores: its forked children (whose stack still shows this
    process's main guard) must not start a pool of their own."""
    datasets = pytest.importorskip("datasets")
    rows = datasets.Dataset.from_dict({"x": [0, 1, 2, 3]})
    seen = rows.map(lambda row: {"child": workers.in_child_process(), "start": workers.can_start_workers()},
                    num_proc=2)
    assert all(seen["child"]) and not any(seen["start"])
    assert not workers.in_child_process()


def test_when_an_extraction_goes_to_the_workers(monkeypatch):
    """Enough changed pairs and a pipeline a worker can load by name; by default a pool not yet running starts only
    for POOL_START_PAIRS (its start costs every core a spaCy load), for PARALLEL_MIN_PAIRS once it runs or when the
    user chose the number."""
    from gecscore.common import edits

    monkeypatch.setattr(edits, "cpu_workers", lambda: 2)
    chose, running = [False], [False]
    monkeypatch.setattr(edits, "user_chose_workers", lambda: chose[0])
    monkeypatch.setattr(workers, "pool_running", lambda count: running[0])
    start, least = edits.POOL_START_PAIRS, edits.PARALLEL_MIN_PAIRS
    assert [edits.use_workers(n, "en") for n in (least, start - 1, start)] == [1, 1, 2]
    assert edits.use_workers(start, None) == 1  # a pipeline given as an object cannot be loaded again
    for flag in (chose, running):
        flag[0] = True
        assert [edits.use_workers(n, "en") for n in (least - 1, least)] == [1, 2]
        flag[0] = False
    monkeypatch.setattr(edits, "cpu_workers", lambda: 1)
    assert edits.use_workers(10 * start, "en") == 1


@pytest.mark.real_model
def test_m2_on_two_processes_equals_one_process(shared_data, monkeypatch):
    """M² and SentM² of AMU's CoNLL-2014 outputs against the gold M2 (1,312 sentences, over the lattice's
    PARALLEL_MIN_SENTENCES), in published and robust mode: with the lattices and the unit-weight candidates made on
    two spawned processes, every sentence record, degenerate record and corpus score equals one process's."""
    from gecscore import registry
    from gecscore.common.m2io import read_m2

    monkeypatch.delenv(workers.WORKERS_ENV, raising=False)
    pools = []
    real = workers.worker_pool
    monkeypatch.setattr(workers, "worker_pool", lambda n: pools.append(n) or real(n))
    root = shared_data / "CoNLL-2014" / "PT-M2" / "data"
    gold = read_m2(root / "reference.m2")
    sources = [b.source for b in gold]
    hypotheses = (root / "hypothesis").read_text(encoding="utf-8").splitlines()[:len(gold)]
    for variant, robust in (("m2", False), ("sentm2", True)):
        def run():
            result = registry.run("pt_m2", sources, hypotheses, gold_m2=gold, variant=variant, scorer="self",
                                  robust=robust, return_types=3)
            return result.score, result.sentences, result.details

        with workers.using_workers(1):
            one = run()
        assert pools == []
        with workers.using_workers(2):
            two = run()
        assert pools == [2]
        pools.clear()
        assert two == one, (variant, robust)


def test_a_chosen_number_of_workers_caps_the_encoders_torch_threads(monkeypatch, tiny_bert):
    """`workers` is the cores gecscore may use, the encoder's included: a CPU forward under a chosen number runs with
    at most that many torch threads (torch's own setting again afterwards, after an error too); the default, a GPU
    device and a cap above torch's setting leave torch alone; the embeddings do not change."""
    import torch

    from gecscore.common.encoders import Encoder

    monkeypatch.delenv(workers.WORKERS_ENV, raising=False)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with workers.capped_torch_threads("cpu"):
            assert torch.get_num_threads() == 2  # the default: torch's own setting
        with workers.using_workers(1):
            with workers.capped_torch_threads("cuda:0"):
                assert torch.get_num_threads() == 2
            with pytest.raises(RuntimeError, match="inside"):
                with workers.capped_torch_threads("cpu"):
                    assert torch.get_num_threads() == 1
                    raise RuntimeError("inside")
            assert torch.get_num_threads() == 2
        with workers.using_workers(4), workers.capped_torch_threads("cpu"):
            assert torch.get_num_threads() == 2  # a cap above torch's setting adds no threads
        encoder = Encoder(str(tiny_bert), cache_bytes=0)
        seen: list[int] = []
        hook = encoder.model.register_forward_pre_hook(lambda *_: seen.append(torch.get_num_threads()))
        texts = ["he go to school .", "she goes to school ."]
        try:
            free = encoder.embed(texts, pooling="mean")
            with workers.using_workers(1):
                capped = encoder.embed(texts, pooling="mean")
        finally:
            hook.remove()
        assert seen == [2, 1] and torch.get_num_threads() == 2
        assert all((a == b).all() for a, b in zip(free, capped))
    finally:
        torch.set_num_threads(before)
