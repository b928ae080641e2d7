"""Python's cyclic garbage collector during a metric's work: full collections made rare, young ones kept.

A metric call builds hundreds of thousands of long-lived objects (edits, candidates, sentence records), and
CPython (before 3.13) runs a full collection each time the objects that survived the young generations grow by a
quarter: four or five passes over the whole heap in one M² call over 5,865 SEEDA sentences, 0.9 s of the main
process's 2 s there (a spaCy pipeline and torch in memory make every pass longer). Those objects are freed by
reference counting; a full pass finds nothing to collect in them. `rare_full_collections` raises the oldest
generation's threshold for the duration of the call, so that a full pass runs at most once per
`FULL_EVERY` young-generation passes (about 700,000 surviving allocations); young generations are collected as
usual, so short-lived cycles still go. The thresholds are restored afterwards; the next full pass then runs in
the caller's time, once.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

#: During a metric call: a full collection at most once per this many collections of the middle generation.
FULL_EVERY = 100

_LOCK = threading.Lock()
_DEPTH = 0
_SAVED: tuple[int, ...] = ()


@contextlib.contextmanager
def rare_full_collections() -> Iterator[None]:
    """Within: the oldest generation's threshold at least `FULL_EVERY` (nested and threaded uses share one
    setting, restored when the outermost ends, unless something else changed it meanwhile)."""
    global _DEPTH, _SAVED
    with _LOCK:
        if _DEPTH == 0:
            _SAVED = gc.get_threshold()
            if len(_SAVED) == 3 and _SAVED[2] < FULL_EVERY:
                gc.set_threshold(_SAVED[0], _SAVED[1], FULL_EVERY)
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and len(_SAVED) == 3 and gc.get_threshold() == (_SAVED[0], _SAVED[1], FULL_EVERY):
                gc.set_threshold(*_SAVED)
