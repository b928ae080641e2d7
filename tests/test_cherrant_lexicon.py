"""`zh_lexicon="cherrant"`: ChERRANT's lexicons fetched once, checked against pinned digests and read from the cache.

GitHub is not reachable from the tests, so a stub server on 127.0.0.1 serves two small files in ChERRANT's formats
and the pinned digests are set to theirs; the real digests are those of MuCGEC's commit (`cherrant_lexicon.FILES`).
"""

from __future__ import annotations

import hashlib
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from gecscore import registry
from gecscore.common import chinese_edits, cherrant_lexicon

CILIN = "Dk01B01= 书 书本\nHj08A01= 去 往\n".encode("gbk")
CONFUSION = "书 殊 输\n去 趣\n".encode("utf-8")


@contextmanager
def file_server(files: dict[str, bytes]) -> Iterator[tuple[str, list[str]]]:
    """A stub server of `files` on a free local port (its base URL and the paths asked), stopped on exit."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            asked.append(self.path)
            body = files.get(self.path.rsplit("/", 1)[-1])
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/data/", asked
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """The stub serving the two files, the pinned digests set to theirs, an empty cache, nothing loaded yet."""
    files = {"cilin.txt": CILIN, "confusion_dict.txt": CONFUSION}
    monkeypatch.setattr(cherrant_lexicon, "FILES", {k: hashlib.sha256(v).hexdigest() for k, v in files.items()})
    monkeypatch.setenv("GECSCORE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv(chinese_edits.LEXICON_ENV, raising=False)
    chinese_edits._load.cache_clear()
    with file_server(files) as (url, asked):
        monkeypatch.setenv(cherrant_lexicon.URL_ENV, url)
        yield url, asked
    chinese_edits._load.cache_clear()


def test_cherrant_fetches_the_files_once_and_reads_them_as_chERRANTs_folder(stub, tmp_path: Path) -> None:
    _, asked = stub
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "cilin.txt").write_bytes(CILIN)
    (folder / "confusion_dict.txt").write_bytes(CONFUSION)
    fetched = chinese_edits.load_lexicon("cherrant")
    assert fetched.semantic == chinese_edits.load_lexicon(str(folder)).semantic
    assert fetched.digest == chinese_edits.load_lexicon(str(folder)).digest
    assert sorted(p.rsplit("/", 1)[-1] for p in asked) == ["cilin.txt", "confusion_dict.txt"]
    chinese_edits._load.cache_clear()
    assert chinese_edits.load_lexicon("cherrant").digest == fetched.digest
    assert len(asked) == 2  # the second process-level load reads the cache: no request
    assert sorted(p.name for p in cherrant_lexicon.cache_folder().iterdir()) == ["cilin.txt", "confusion_dict.txt"]


def test_a_changed_cached_file_is_fetched_again(stub) -> None:
    _, asked = stub
    chinese_edits.load_lexicon("cherrant")
    (cherrant_lexicon.cache_folder() / "cilin.txt").write_bytes(b"Aa01A01= x\n")
    chinese_edits._load.cache_clear()
    assert chinese_edits.load_lexicon("cherrant").semantic["书"] == "Dk01B01="
    assert [p.rsplit("/", 1)[-1] for p in asked].count("cilin.txt") == 2


def test_a_file_that_is_not_the_pinned_one_is_refused_and_not_kept(stub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cherrant_lexicon.FILES, "confusion_dict.txt", "0" * 64)
    with pytest.raises(ValueError, match="is not ChERRANT's confusion_dict.txt"):
        chinese_edits.load_lexicon("cherrant")
    assert not (cherrant_lexicon.cache_folder() / "confusion_dict.txt").exists()
    assert [p.name for p in cherrant_lexicon.cache_folder().iterdir()] == ["cilin.txt"]  # no half-written file


def test_an_unreachable_server_is_an_error_naming_the_option_at_once(stub, monkeypatch: pytest.MonkeyPatch) -> None:
    with file_server({}) as (url, _):
        pass  # stopped: nothing listens on its port any more
    monkeypatch.setenv(cherrant_lexicon.URL_ENV, url)
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"zh_lexicon='cherrant' fetches ChERRANT's lexicons.*--zh-lexicon"):
        registry.run("errant", ["他很喜欢看书书。"], ["他很喜欢看书。"], [["他很喜欢看书。"]],
                     convention="errant_compare", language="zh", zh_lexicon="cherrant")
    assert time.monotonic() - start < 5


def test_scoring_with_the_fetched_lexicon_equals_the_folder_and_records_its_digest(
        stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = (["他很喜欢看书书。", "我明天公园。"], ["他很喜欢看书。", "我明天公园。"], [["他很喜欢看书。"], ["我明天去公园。"]])
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "cilin.txt").write_bytes(CILIN)
    (folder / "confusion_dict.txt").write_bytes(CONFUSION)
    monkeypatch.setenv(chinese_edits.LEXICON_ENV, "cherrant")  # the environment variable takes the name too
    fetched = registry.run("errant", *texts, convention="errant_compare", language="zh")
    local = registry.run("errant", *texts, convention="errant_compare", language="zh", zh_lexicon=str(folder))
    assert fetched.scores == local.scores
    assert f"zh_lexicon:{chinese_edits.load_lexicon(str(folder)).digest}" in fetched.signature
    assert fetched.signature == local.signature
