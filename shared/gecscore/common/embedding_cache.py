"""Opt-in on-disk cache of encoder outputs, so that a second process over the same texts starts warm.

One SQLite file per model identity (`<folder>/<model>-<hash of the identity>.sqlite`): the resolved model (a Hub id
with the commit the weights came from, or a local folder's absolute path with the name, size and modification time
of each of its files), the revision, dtype, device type and the torch and transformers versions. Inside it a row per
(kind, text), where the kind is what the encoder computed: `["embed", pooling, layer, max_length]` or
`["tokens", layer, max_length]`. A row holds the float32 array exactly as the forward returned it (little-endian
bytes and its shape) and a CRC-32 of both, checked on every read.

Concurrency: WAL journal, a busy timeout and `INSERT OR IGNORE` in one transaction per write, so several processes
can read and write one file at once; a reader sees a row whole or not at all. A file SQLite cannot read, or a row
whose checksum fails, raises `EmbeddingCacheError` naming the file: never a silently wrong number. A write that fails
for want of room or permission only warns (the run's numbers are right; they are just not kept).

No torch here: the module is imported by `gecscore.common.encoders` at start-up.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import random
import re
import sqlite3
import threading
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar, Union

import numpy as np

from gecscore.common.caller import warn

#: The environment variable that turns the cache on for encoders created without `disk_cache`: a folder, or `1` for
#: `default_directory()`; `0` (or unset) leaves it off.
EMBEDDING_CACHE_ENV = "GECSCORE_EMBEDDING_CACHE"
#: Bumped when the file layout or the meaning of a row changes; part of the identity, so old files are not read.
FORMAT = 1
#: Seconds a process waits for another one's write transaction before giving up.
BUSY_TIMEOUT_S = 120.0
#: Texts looked up per query (SQLite's limit of bound parameters is 999 in old builds).
_CHUNK = 500
_ON = {"1", "true", "yes", "on"}
_OFF = {"0", "false", "no", "off"}

DiskCacheSetting = Union[str, os.PathLike, bool, None]
T = TypeVar("T")


class EmbeddingCacheError(OSError):
    """An embedding cache file that cannot be used (unreadable, corrupt, or another model's)."""


def default_directory() -> Path:
    """`$XDG_CACHE_HOME/gecscore/embeddings`, with `~/.cache` when XDG_CACHE_HOME is unset."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gecscore" / "embeddings"


def requested(disk_cache: DiskCacheSetting) -> DiskCacheSetting:
    """What is asked: `disk_cache` when given, else `$GECSCORE_EMBEDDING_CACHE` when set, else None (no request)."""
    if disk_cache is not None:
        return disk_cache
    return os.environ.get(EMBEDDING_CACHE_ENV, "").strip() or None


def cache_directory(setting: DiskCacheSetting) -> Path | None:
    """The folder a setting names: True or `1`/`true`/`yes`/`on` the default one, a path that path, and None, False
    or `0`/`false`/`no`/`off` none (the cache off)."""
    if setting is None or setting is False:
        return None
    if setting is True:
        return default_directory()
    if not isinstance(setting, (str, os.PathLike)):
        raise TypeError(f"`disk_cache` must be a folder, True or False, got {setting!r}")
    word = os.fspath(setting).strip()
    if word.lower() in _ON:
        return default_directory()
    if word.lower() in _OFF or not word:
        return None
    return Path(os.path.expanduser(word)).absolute()


def folder_files(model: str) -> list[tuple[str, int, int]] | None:
    """(name, size, modification time in ns) of every file directly in the model folder `model` (weights, config and
    tokenizer alike), or None when `model` is not a local folder (a Hub id)."""
    if not os.path.isdir(model):
        return None
    return sorted((entry.name, entry.stat().st_size, entry.stat().st_mtime_ns)
                  for entry in os.scandir(model) if entry.is_file())


def model_identity(model: str, *, files: list[tuple[str, int, int]] | None, revision: str | None,
                   commit: str | None, dtype: str, device: str) -> dict[str, Any] | None:
    """What the outputs of a loaded model depend on besides its input, or None when its weights cannot be pinned.

    A local folder is pinned by `files` (`folder_files` taken before loading; copying or rewriting a file gives a
    new identity, at worst a needless miss), a Hub model by the commit its files came from."""
    if files is None and commit is None:
        return None
    if files is not None:
        model = os.path.realpath(model)
    return {"format": FORMAT, "model": model, "revision": revision, "commit": commit, "files": files,
            "dtype": dtype, "device": str(device).split(":")[0],
            "torch": importlib.metadata.version("torch"), "transformers": importlib.metadata.version("transformers")}


def cache_file(directory: Path, name: str, identity: dict[str, Any]) -> Path:
    """`<directory>/<readable model name>-<16 hex digits of the identity's hash>.sqlite`."""
    local = os.path.isdir(os.path.expanduser(name))
    readable = os.path.basename(os.path.normpath(name)) if local else name.replace("/", "--")
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", readable)[-60:] or "model"
    digest = hashlib.sha256(_canonical(identity).encode()).hexdigest()[:16]
    return directory / f"{readable}-{digest}.sqlite"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _text_key(text: str) -> bytes:
    """The text as stored: UTF-8 bytes (lone surrogates kept), so any Python string is a key of its own."""
    return text.encode("utf-8", "surrogatepass")


def _checksum(shape: str, data: bytes) -> int:
    return zlib.crc32(data, zlib.crc32(shape.encode()))


class EmbeddingCache:
    """One model's on-disk outputs: `load(kind, texts)` what is stored, `save(kind, outputs)` what was computed."""

    def __init__(self, directory: Path, name: str, identity: dict[str, Any]) -> None:
        self.directory = Path(directory)
        self.identity = identity
        self.path = cache_file(self.directory, name, identity)
        self.writable = True  # False after a write failed for want of room or permission (warned once)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = -1
        with self._guard():
            self._connect()

    def load(self, kind: Sequence[Any], texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored outputs of `kind` for those of `texts` that have one, bit for bit as they were saved."""
        label, found = _canonical(list(kind)), {}
        with self._guard():
            connection = self._connect()
            for start in range(0, len(texts), _CHUNK):
                chunk = [_text_key(text) for text in texts[start:start + _CHUNK]]
                rows = _retry_busy(lambda: connection.execute(
                    f"SELECT text, shape, data, checksum FROM outputs WHERE kind = ? AND text IN "
                    f"({', '.join('?' * len(chunk))})", [label, *chunk]).fetchall())
                for key, shape, data, checksum in rows:
                    found[key.decode("utf-8", "surrogatepass")] = self._decode(shape, data, checksum)
        return found

    def save(self, kind: Sequence[Any], outputs: dict[str, np.ndarray]) -> None:
        """Store `outputs` (text -> float32 array) of `kind`; rows already there (another process's) are kept."""
        if not outputs or not self.writable:
            return
        label = _canonical(list(kind))
        rows = [(label, _text_key(text), *self._encode(value)) for text, value in outputs.items()]
        try:
            with self._guard(writing=True):
                connection = self._connect()
                connection.execute("BEGIN IMMEDIATE")
                connection.executemany("INSERT OR IGNORE INTO outputs (kind, text, shape, data, checksum) "
                                       "VALUES (?, ?, ?, ?, ?)", rows)
                connection.execute("COMMIT")
        except _Unwritable as failure:
            self.writable = False
            warn(f"embedding cache file {self.path} cannot be written ({failure.__cause__}); outputs are "
                 "computed as usual but no longer stored", RuntimeWarning)

    def close(self) -> None:
        """Close this process's connection (reopened on next use)."""
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None

    @staticmethod
    def _encode(value: np.ndarray) -> tuple[str, bytes, int]:
        if value.dtype != np.float32:
            raise TypeError(f"the embedding cache stores float32 outputs, got {value.dtype}")
        shape, data = _canonical(list(value.shape)), np.ascontiguousarray(value, dtype="<f4").tobytes()
        return shape, data, _checksum(shape, data)

    def _decode(self, shape: str, data: bytes, checksum: int) -> np.ndarray:
        if not isinstance(shape, str) or not isinstance(data, bytes) or _checksum(shape, data) != checksum:
            raise self._error("a stored output fails its checksum (the file is corrupt)")
        dims = json.loads(shape)
        if int(np.prod(dims)) * 4 != len(data):
            raise self._error(f"a stored output of shape {dims} has {len(data)} bytes (the file is corrupt)")
        return np.frombuffer(data, dtype="<f4").astype(np.float32).reshape(dims)  # astype: a writable copy

    def _connect(self) -> sqlite3.Connection:
        """This process's connection, opened (and the file created and checked) on first use; a connection
        inherited through fork is never used: SQLite forbids it."""
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        self._connection = None
        self.directory.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                     check_same_thread=False)
        try:
            stored = _retry_busy(lambda: self._set_up(connection))
        except BaseException:
            connection.close()
            raise
        if stored is None or stored[0] != _canonical(self.identity):
            connection.close()
            raise self._error("it holds the outputs of another model or setting")
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _set_up(self, connection: sqlite3.Connection) -> tuple[str] | None:
        """Turn on WAL, create the tables and the identity row if they are missing; the stored identity row."""
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # with WAL: a crash may lose the last write, never tear
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            connection.execute("CREATE TABLE IF NOT EXISTS outputs (kind TEXT NOT NULL, text BLOB NOT NULL, "
                               "shape TEXT NOT NULL, data BLOB NOT NULL, checksum INTEGER NOT NULL, "
                               "PRIMARY KEY (kind, text))")
            connection.execute("INSERT OR IGNORE INTO meta VALUES ('identity', ?)", [_canonical(self.identity)])
            stored = connection.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
            connection.execute("COMMIT")
        except sqlite3.Error:
            if connection.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    connection.rollback()
            raise
        return stored

    @contextlib.contextmanager
    def _guard(self, writing: bool = False) -> Iterator[None]:
        """Hold the lock; turn SQLite's errors into `EmbeddingCacheError` naming the file, or for a write that could
        not be done (room, permission, time) into `_Unwritable`."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as error:
                connection = self._connection
                if connection is not None and self._pid == os.getpid() and connection.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        connection.rollback()
                if writing and isinstance(error, sqlite3.OperationalError):
                    raise _Unwritable() from error
                raise self._error(f"{type(error).__name__}: {error}") from error

    def _error(self, problem: str) -> EmbeddingCacheError:
        return EmbeddingCacheError(
            f"embedding cache file {self.path} cannot be used: {problem}. Delete it (with its -wal and -shm files) "
            f"to start it afresh, or turn the cache off (unset {EMBEDDING_CACHE_ENV}, disk_cache=False)")


def _busy(error: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY: another connection holds the lock (the code where Python reports it, else SQLite's message)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code == 5 if code is not None else "database is locked" in str(error)


def _retry_busy(step: Callable[[], T]) -> T:
    """`step`, again after a short sleep while it fails with SQLITE_BUSY, for at most BUSY_TIMEOUT_S.

    Why: SQLite answers BUSY at once, without waiting its busy timeout, where waiting could deadlock: two fresh
    connections that both turn a new file to WAL, or both escalate a read lock. One of them must back off."""
    deadline, pause = time.monotonic() + BUSY_TIMEOUT_S, 0.002
    while True:
        try:
            return step()
        except sqlite3.OperationalError as error:
            if not _busy(error) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 2, 0.25)


class _Unwritable(Exception):
    """A write that failed for want of room, permission or time (SQLite's OperationalError); nothing is wrong."""
