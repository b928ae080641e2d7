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


def test_the_number_comes_from_the_user_else_the_environment_else_one(monkeypatch):
    monkeypatch.delenv(workers.WORKERS_ENV, raising=False)
    assert workers.cpu_workers() == 1
    monkeypatch.setenv(workers.WORKERS_ENV, "3")
    assert workers.cpu_workers() == 3
    with workers.using_workers(2):
        assert workers.cpu_workers() == 2
        with workers.using_workers(0):
            assert workers.cpu_workers() == workers.available_cores()
        assert workers.cpu_workers() == 2
    assert workers.cpu_workers() == 3
    monkeypatch.setenv(workers.WORKERS_ENV, "many")
    with pytest.raises(ValueError, match="`GECSCORE_WORKERS` must be a whole number"):
        workers.cpu_workers()
    for bad in (-1, 1.5, True, "2.0"):
        with pytest.raises(ValueError, match="`workers` must be a whole number"):
            workers.set_workers(bad)
    workers.set_workers(None)


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


@given(sources=st.lists(st.sampled_from("abcdefg"), max_size=60), count=st.integers(1, 9))
def test_the_chunks_keep_each_source_in_one_worker(sources, count):
    """Every pair once, in input order within a chunk; all pairs of a source in one chunk (it is parsed once, not
    once per worker); chunks no larger than an even share unless one source alone is larger, and (two consecutive
    chunks together always exceed a share) at most twice as many as asked."""
    from gecscore.common.edits import source_chunks

    pairs = [(s, f"{s} {k}") for k, s in enumerate(sources)]
    chunks = source_chunks(pairs, count)
    assert sorted(k for c in chunks for k in c) == list(range(len(pairs)))
    assert all(c == sorted(c) for c in chunks)
    owner = {pairs[k][0]: i for i, c in enumerate(chunks) for k in c}
    assert all(owner[pairs[k][0]] == i for i, c in enumerate(chunks) for k in c)
    share = -(-len(pairs) // count) if pairs else 1
    largest = max((sources.count(s) for s in set(sources)), default=0)
    assert all(len(c) <= max(share, largest) for c in chunks) and len(chunks) <= 2 * count


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
