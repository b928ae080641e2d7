"""The opt-in on-disk embedding cache: off by default, bit-identical round trip, a second process starts warm, every
part of the key separates, two processes writing at once, and a corrupt file is an error naming it."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gecscore.common import embedding_cache, encoders
from gecscore.common.embedding_cache import EMBEDDING_CACHE_ENV, EmbeddingCache, EmbeddingCacheError
from gecscore.common.encoders import Encoder

from conftest import REPO, build_tiny_model

TEXTS = ["the cat is here .", "he go to school yesterday and buyed some apple .", "a dog", "there are some cats ."]
OTHER = ["my dog has an apple .", "they were at school .", "the cat is here .", "we will go there ."]

# A worker process: embeds `texts` (one call per text unless BATCH) with the cache that $GECSCORE_EMBEDDING_CACHE
# names, waits for the file `go` first when it is given, and saves the vectors and its counters.
WORKER = """
import json, sys, time
from pathlib import Path
import numpy as np
from gecscore.common.encoders import Encoder

model, out, go, texts, batch = sys.argv[1], Path(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]
encoder = Encoder(model)
while go and not Path(go).exists():
    time.sleep(0.005)
if batch == "1":
    vectors = encoder.embed(texts, max_length=64)
else:
    vectors = np.stack([encoder.embed([text], max_length=64)[0] for text in texts])
np.save(out, vectors)
print(json.dumps({"forward_count": encoder.forward_count, "disk_hits": encoder.disk_hits,
                  "path": str(encoder.disk_cache.path) if encoder.disk_cache else None}))
"""


def _worker(model: Path, out: Path, texts: list[str], cache: Path, *, go: Path | None = None,
            batch: bool = True) -> subprocess.Popen:
    env = {**os.environ, EMBEDDING_CACHE_ENV: str(cache), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-c", WORKER, str(model), str(out), str(go or ""), json.dumps(texts),
                             "1" if batch else "0"], env=env, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(process: subprocess.Popen) -> dict:
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr[-3000:]
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.fixture(autouse=True)
def _no_cache_from_the_environment(monkeypatch, tmp_path):
    """No cache unless a test asks, and the default folder (XDG_CACHE_HOME, HOME) inside tmp_path."""
    monkeypatch.delenv(EMBEDDING_CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.exists() else []


def _databases(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.sqlite"))


def _rows(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]


# ---------------------------------------------------------------------------------------------------
# Where it lives, and off by default

def test_the_setting_names_a_folder_the_default_one_or_none(tmp_path, monkeypatch):
    default = tmp_path / "xdg" / "gecscore" / "embeddings"
    assert embedding_cache.default_directory() == default
    for on in (True, "1", "true", " ON "):
        assert embedding_cache.cache_directory(on) == default
    for off in (None, False, "0", "off", ""):
        assert embedding_cache.cache_directory(off) is None
    assert embedding_cache.cache_directory(tmp_path / "here") == tmp_path / "here"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert embedding_cache.default_directory() == tmp_path / "home" / ".cache" / "gecscore" / "embeddings"
    with pytest.raises(TypeError, match="disk_cache"):
        embedding_cache.cache_directory(3)


def test_off_by_default_nothing_is_written(tiny_bert, tmp_path):
    encoder = Encoder(str(tiny_bert))
    encoder.embed(TEXTS)
    encoder.token_states(TEXTS)
    assert encoder.disk_cache is None and encoder.disk_hits == 0
    assert _files(tmp_path) == []


def test_true_and_the_environment_use_the_default_folder(tiny_bert, tmp_path, monkeypatch):
    default = tmp_path / "xdg" / "gecscore" / "embeddings"
    Encoder(str(tiny_bert), disk_cache=True).embed(TEXTS)
    assert len(_databases(default)) == 1
    monkeypatch.setenv(EMBEDDING_CACHE_ENV, "1")
    warm = Encoder(str(tiny_bert))
    warm.embed(TEXTS)
    assert warm.disk_cache.path.parent == default and warm.forward_count == 0 and warm.disk_hits == len(TEXTS)
    assert Encoder(str(tiny_bert), disk_cache=False).disk_cache is None  # the argument wins over the environment


# ---------------------------------------------------------------------------------------------------
# Round trip

def test_round_trip_is_bit_identical_and_fills_the_memory_cache(tiny_bert, tmp_path):
    cold = Encoder(str(tiny_bert), disk_cache=tmp_path / "cache")
    outputs = [cold.embed(TEXTS), cold.embed(TEXTS, pooling="cls", layer=1), *cold.token_states(TEXTS, layer=2)]
    assert cold.forward_count == 3 * len(TEXTS) and cold.disk_hits == 0

    warm = Encoder(str(tiny_bert), disk_cache=tmp_path / "cache")
    again = [warm.embed(TEXTS), warm.embed(TEXTS, pooling="cls", layer=1), *warm.token_states(TEXTS, layer=2)]
    assert warm.forward_count == 0 and warm.disk_hits == 3 * len(TEXTS)
    for before, after in zip(outputs, again):
        assert after.dtype == np.float32 and after.shape == before.shape
        assert after.tobytes() == before.tobytes()
        assert after.flags.writeable
    assert warm.cache_entries == 3 * len(TEXTS)  # what came from disk is in memory too
    warm.embed(TEXTS)
    assert warm.disk_hits == 3 * len(TEXTS) and warm.cache_hits == len(TEXTS) and warm.forward_count == 0


def test_any_string_is_a_key_of_its_own(tmp_path):
    cache = EmbeddingCache(tmp_path, "m", {"model": "m"})
    rng = np.random.default_rng(0)
    outputs = {text: rng.standard_normal((i + 1, 3)).astype(np.float32)
               for i, text in enumerate(["", "a\x00b", "a", "\udcff", "é", " a"])}
    cache.save(["tokens", None, 8], outputs)
    cache.save(["embed", "mean", None, 8], {"a": np.ones(3, np.float32)})
    loaded = EmbeddingCache(tmp_path, "m", {"model": "m"}).load(["tokens", None, 8], [*outputs, "b"])
    assert set(loaded) == set(outputs)
    assert all(loaded[text].tobytes() == value.tobytes() and loaded[text].shape == value.shape
               for text, value in outputs.items())
    with pytest.raises(TypeError, match="float32"):
        cache.save(["embed", "mean", None, 8], {"b": np.ones(3)})


def test_a_warm_run_differs_from_a_cold_one_only_by_float_rounding(tiny_bert, tmp_path):
    Encoder(str(tiny_bert), disk_cache=tmp_path / "cache").token_states(TEXTS)  # batched with TEXTS
    warm = Encoder(str(tiny_bert), disk_cache=tmp_path / "cache")
    mixed = warm.token_states(OTHER)  # "the cat is here ." from disk, the rest batched without it
    cold = Encoder(str(tiny_bert)).token_states(OTHER)
    assert warm.disk_hits == 1 and warm.forward_count == len(OTHER) - 1
    assert max(float(np.abs(a - b).max()) for a, b in zip(mixed, cold)) <= 1e-6


# ---------------------------------------------------------------------------------------------------
# A second process

@pytest.mark.timeout(300)
def test_a_second_process_starts_warm_with_the_same_values(tiny_bert, tmp_path):
    cold = Encoder(str(tiny_bert), disk_cache=tmp_path / "cache")
    vectors = cold.embed(TEXTS, max_length=64)
    counts = _finish(_worker(tiny_bert, tmp_path / "warm.npy", TEXTS, tmp_path / "cache"))
    assert counts == {"forward_count": 0, "disk_hits": len(TEXTS), "path": str(cold.disk_cache.path)}
    assert np.load(tmp_path / "warm.npy").tobytes() == vectors.tobytes()


@pytest.mark.timeout(300)
def test_two_processes_writing_at_once_leave_a_consistent_cache(tiny_bert, tmp_path):
    words = "the a cat dog is are here there school apple".split()
    texts = [f"{a} {b} {c} ." for a in words for b in words[:4] for c in words[::3]][:60]
    shares = [texts[:40], texts[20:]]  # 20 texts both write
    go = tmp_path / "go"
    workers = [_worker(tiny_bert, tmp_path / f"w{i}.npy", share, tmp_path / "cache", go=go, batch=False)
               for i, share in enumerate(shares)]
    time.sleep(1)
    go.touch()  # both start writing together, one transaction per text
    counts = [_finish(worker) for worker in workers]
    path = Path(counts[0]["path"])
    assert sum(c["forward_count"] + c["disk_hits"] for c in counts) == 80
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert _rows(path) == len(texts)
    stored = EmbeddingCache(tmp_path / "cache", str(tiny_bert), Encoder(str(tiny_bert)).identity).load(
        ["embed", "mean", None, 64], texts)
    for i, share in enumerate(shares):  # one text per forward: every process computed the same bits
        own = np.load(tmp_path / f"w{i}.npy")
        assert all(stored[text].tobytes() == own[j].tobytes() for j, text in enumerate(share))


def _open_at_once(folder: str, barrier) -> None:
    barrier.wait()
    EmbeddingCache(Path(folder), "model", {"model": "m"})


def test_many_processes_opening_one_new_file_at_once_all_open_it(tmp_path):
    # SQLite answers BUSY without waiting where two fresh connections both turn a new file to WAL; about one open in
    # a hundred failed so before the cache retried it: 8 processes on each of 25 new files make that failure certain.
    context = multiprocessing.get_context("fork")
    failures = 0
    for trial in range(25):
        barrier = context.Barrier(8)
        workers = [context.Process(target=_open_at_once, args=(str(tmp_path / str(trial)), barrier))
                   for _ in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
        failures += sum(worker.exitcode != 0 for worker in workers)
    assert failures == 0


def test_busy_is_waited_out_and_any_other_error_raised_at_once(monkeypatch):
    attempts = []

    def step(errors: list[str]):
        def run():
            attempts.append(1)
            if errors:
                raise sqlite3.OperationalError(errors.pop(0))
            return "done"
        return run

    assert embedding_cache._retry_busy(step(["database is locked"] * 3)) == "done" and len(attempts) == 4
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        embedding_cache._retry_busy(step(["disk I/O error", "database is locked"]))
    monkeypatch.setattr(embedding_cache, "BUSY_TIMEOUT_S", 0.05)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        embedding_cache._retry_busy(step(["database is locked"] * 1000))


# ---------------------------------------------------------------------------------------------------
# The key

def test_layer_pooling_max_length_and_kind_are_separate_entries(tiny_bert, tmp_path):
    Encoder(str(tiny_bert), disk_cache=tmp_path).embed(TEXTS, max_length=64)
    calls = [lambda e: e.embed(TEXTS, max_length=32), lambda e: e.embed(TEXTS, max_length=64, pooling="cls"),
             lambda e: e.embed(TEXTS, max_length=64, layer=1), lambda e: e.token_states(TEXTS, max_length=64)]
    for call in calls:
        encoder = Encoder(str(tiny_bert), disk_cache=tmp_path)
        call(encoder)
        assert encoder.disk_hits == 0 and encoder.forward_count == len(TEXTS)
    assert _rows(encoder.disk_cache.path) == 5 * len(TEXTS)


def test_another_model_revision_or_changed_weights_use_another_file(tiny_bert, tmp_path):
    own = build_tiny_model(tmp_path / "bert", "bert")
    other = build_tiny_model(tmp_path / "other", "bert", seed=1)
    first = Encoder(str(own), disk_cache=tmp_path / "cache")
    first.embed(TEXTS)
    for encoder in (Encoder(str(other), disk_cache=tmp_path / "cache"),
                    Encoder(str(own), revision="v2", disk_cache=tmp_path / "cache")):
        encoder.embed(TEXTS)
        assert encoder.disk_hits == 0 and encoder.disk_cache.path != first.disk_cache.path
    weights = own / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 1))
    touched = Encoder(str(own), disk_cache=tmp_path / "cache")
    touched.embed(TEXTS)
    assert touched.disk_hits == 0 and touched.disk_cache.path != first.disk_cache.path
    assert len(_databases(tmp_path / "cache")) == 4


def test_a_folder_that_changes_while_loading_is_not_cached(tiny_bert, tmp_path, monkeypatch):
    stats = iter([[("model.safetensors", 1, 1)], [("model.safetensors", 2, 2)]])
    monkeypatch.setattr(encoders, "folder_files", lambda _path: next(stats))
    with pytest.warns(RuntimeWarning, match="cannot be pinned"):
        encoder = Encoder(str(tiny_bert), disk_cache=tmp_path)
    encoder.embed(TEXTS)
    assert encoder.identity is None and encoder.disk_cache is None and _files(tmp_path) == []


def test_the_shared_instance_takes_the_setting_when_it_is_given(tiny_bert, tmp_path, monkeypatch):
    shared = Encoder.get(str(tiny_bert), disk_cache=False)
    try:
        assert Encoder.get(str(tiny_bert)).disk_cache is None
        monkeypatch.setenv(EMBEDDING_CACHE_ENV, str(tmp_path / "env"))
        assert Encoder.get(str(tiny_bert)).disk_cache.directory == tmp_path / "env"
        assert Encoder.get(str(tiny_bert), disk_cache=tmp_path / "arg").disk_cache.directory == tmp_path / "arg"
        monkeypatch.delenv(EMBEDDING_CACHE_ENV)
        assert Encoder.get(str(tiny_bert)).disk_cache.directory == tmp_path / "arg"  # nothing asked: kept
        assert Encoder.get(str(tiny_bert)) is shared
    finally:
        Encoder.get(str(tiny_bert), disk_cache=False)
    assert shared.disk_cache is None


# ---------------------------------------------------------------------------------------------------
# A corrupt file

def test_a_file_that_is_not_a_database_is_an_error_naming_it(tiny_bert, tmp_path):
    cache = Encoder(str(tiny_bert), disk_cache=tmp_path).disk_cache
    cache.close()  # the last connection: the write-ahead log goes into the file, which is then overwritten
    path = cache.path
    path.write_bytes(b"not a database at all" * 300)
    with pytest.raises(EmbeddingCacheError, match=f"{path}.*Delete it"):
        Encoder(str(tiny_bert), disk_cache=tmp_path)


def test_a_truncated_file_is_an_error_naming_it(tiny_bert, tmp_path):
    encoder = Encoder(str(tiny_bert), disk_cache=tmp_path)
    texts = [f"{text} {i}" for text in TEXTS for i in range(200)]
    encoder.token_states(texts)
    encoder.disk_cache.close()
    data = encoder.disk_cache.path.read_bytes()
    encoder.disk_cache.path.write_bytes(data[: len(data) // 2])
    with pytest.raises(EmbeddingCacheError, match=str(encoder.disk_cache.path)):
        Encoder(str(tiny_bert), disk_cache=tmp_path).token_states(texts)


def test_a_damaged_row_is_an_error_not_a_wrong_number(tiny_bert, tmp_path):
    encoder = Encoder(str(tiny_bert), disk_cache=tmp_path)
    encoder.embed(TEXTS)
    with sqlite3.connect(encoder.disk_cache.path) as connection:  # one bit of one float flipped
        data = bytearray(connection.execute("SELECT data FROM outputs LIMIT 1").fetchone()[0])
        data[5] ^= 1
        connection.execute("UPDATE outputs SET data = ? WHERE rowid = (SELECT MIN(rowid) FROM outputs)", [data])
    with pytest.raises(EmbeddingCacheError, match=f"{encoder.disk_cache.path}.*checksum"):
        Encoder(str(tiny_bert), disk_cache=tmp_path).embed(TEXTS)


def test_a_file_of_another_identity_is_an_error(tmp_path):
    path = EmbeddingCache(tmp_path, "m", {"model": "a"}).path
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE meta SET value = '{\"model\":\"b\"}'")
    with pytest.raises(EmbeddingCacheError, match="another model"):
        EmbeddingCache(tmp_path, "m", {"model": "a"})


# ---------------------------------------------------------------------------------------------------
# The command line

@pytest.mark.timeout(300)
def test_score_embedding_cache_flag(tiny_bert, tmp_path, nlp, capsys):
    from gecscore.cli import main

    sources, predictions = ["he go to school .", "the cat are here ."], ["he goes to school .", "the cat is here ."]
    references = ["he went to school .", "the cats are here ."]
    for name, lines in (("src", sources), ("hyp", predictions), ("ref", references)):
        (tmp_path / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["score", "uot_errant", "--sources", str(tmp_path / "src.txt"), "--predictions", str(tmp_path / "hyp.txt"),
            "--references", str(tmp_path / "ref.txt"), "--model", str(tiny_bert), "--json"]
    try:
        _score_with_and_without_the_cache(main, argv, tmp_path, capsys)
    finally:  # the shared encoder (uot_errant's) leaves this test without a cache
        Encoder.get(str(tiny_bert), disk_cache=False)


def _score_with_and_without_the_cache(main, argv: list[str], tmp_path: Path, capsys) -> None:
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    assert _files(tmp_path / "xdg") == []
    Encoder.get(argv[argv.index("--model") + 1]).clear_cache()  # else every text is a memory hit
    assert main(argv + ["--embedding-cache", str(tmp_path / "cache")]) == 0
    cached = json.loads(capsys.readouterr().out)
    assert EMBEDDING_CACHE_ENV not in os.environ  # set only while the command ran
    files = _databases(tmp_path / "cache")
    assert len(files) == 1 and _rows(files[0]) > 0
    assert cached["f0.5"] == pytest.approx(plain["f0.5"], abs=1e-6)
    assert main(argv[:2] + ["--embedding-cache"] + argv[2:]) == 0  # bare flag: the default folder
    capsys.readouterr()
    assert len(_databases(tmp_path / "xdg" / "gecscore" / "embeddings")) == 1
