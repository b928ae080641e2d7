"""Bounded stores for work worth keeping: an LRU mapping, and one that is kept only inside a `with` block.

ERRANT's parses and edits are kept per extractor (`LRU`); the M² lattices and CLEME's chunk partitions are kept
only while the meta-evaluation scores the same outputs under many configurations (`SharedWithin`), so a single
scoring never holds memory it will not reuse. While such stores are large, `deferring_full_collections` keeps the
garbage collector from walking them again and again.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from contextlib import contextmanager
from typing import Callable, Generic, Hashable, Iterator, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A bounded mapping that forgets the least recently used entry first: at most `size` entries, or with
    `weight`, entries whose weights add up to at most `size` (bytes, say); size 0 keeps nothing, and an entry
    heavier than the whole size is not kept."""

    def __init__(self, size: int, weight: Callable[[V], int] | None = None) -> None:
        self.size = size
        self.weight = weight
        self.used = 0
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def __contains__(self, key: K) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: K) -> V | None:
        """The value kept for `key` (None: none), now the most recently used."""
        entry = self._data.get(key)
        if entry is None:
            return None
        self._data.move_to_end(key)
        return entry[0]

    def put(self, key: K, value: V) -> None:
        """Keep `value` for `key`, dropping the least recently used entries beyond the size."""
        weight = 1 if self.weight is None else self.weight(value)
        old = self._data.pop(key, None)
        if old is not None:
            self.used -= old[1]
        if weight > self.size:
            return
        self._data[key] = (value, weight)
        self.used += weight
        while self.used > self.size:
            self.used -= self._data.popitem(last=False)[1][1]

    def clear(self) -> None:
        """Forget every entry."""
        self._data.clear()
        self.used = 0


class SharedWithin(Generic[K, V]):
    """Values computed once per key inside a `scope()` block and computed afresh outside any; nested blocks share
    the outermost one's store, whose size bounds it."""

    def __init__(self) -> None:
        self._store: LRU[K, V] | None = None

    @property
    def active(self) -> bool:
        """Whether a `scope()` block is open."""
        return self._store is not None

    @contextmanager
    def scope(self, size: int) -> Iterator[None]:
        """Keep up to `size` values until the block ends (inside an open block: that block's store)."""
        if self._store is not None:
            yield
            return
        self._store = LRU(size)
        try:
            yield
        finally:
            self._store = None

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value for `key`: kept inside a block, else `make()` every time."""
        if self._store is None:
            return make()
        value = self._store.get(key)
        if value is None:
            value = make()
            self._store.put(key, value)
        return value


#: The oldest generation's threshold inside `deferring_full_collections`: a count of young collections no run reaches.
NO_FULL_COLLECTION = 2**31 - 1
#: How deep `deferring_full_collections` blocks are nested now, and the thresholds the outermost one found.
_deferring_depth = 0
_saved_thresholds: tuple[int, ...] = ()


@contextmanager
def deferring_full_collections() -> Iterator[None]:
    """Inside the block, the cyclic garbage collector's full passes (its oldest generation) wait until the block
    ends; young objects are collected as usual, and whatever is freed by reference counting (nearly everything
    here) is freed at once.

    Why: the stores kept for the meta-evaluation (M² lattices, CLEME partitions, memoised runs) are millions of
    long-lived objects, and every full pass walks all of them without finding garbage: on CoNLL-2014 about a third
    of the meta-evaluation's M² time went to such passes. The thresholds are the process's, so other threads'
    full passes wait too; nested blocks share the outermost one, which restores the thresholds it found."""
    global _deferring_depth, _saved_thresholds
    if _deferring_depth == 0:
        _saved_thresholds = gc.get_threshold()
        gc.set_threshold(*_saved_thresholds[:2], NO_FULL_COLLECTION)
    _deferring_depth += 1
    try:
        yield
    finally:
        _deferring_depth -= 1
        if _deferring_depth == 0:
            gc.set_threshold(*_saved_thresholds)
