"""How many processes gecscore's CPU stages may use: the user's say, once for the whole process.

ERRANT's edit extraction (spaCy's parse, then ERRANT's alignment and classification) is most of the CPU time of
ERRANT, UOT-ERRANT, PT-ERRANT, CLEME and LLM-E, and it runs pair by pair, each pair on its own. With more than one
worker, a large extraction is split into chunks that worker processes run, each with its own spaCy pipeline
(`gecscore.common.edits.EditExtractor`); the edits are the same as in one process, pair for pair, so the scores
and signatures do not depend on the number of workers.

The number comes from `set_workers(n)` (or the `using_workers(n)` block), else from `$GECSCORE_WORKERS`, else 1:
gecscore never takes cores it was not given. `0` means every core this process may run on.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

WORKERS_ENV = "GECSCORE_WORKERS"
_CHOSEN: int | None = None


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_workers(value: object, name: str = "workers") -> int:
    """A number of workers: an int >= 0 (0: every available core), or its decimal text; an error names `name`."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"`{name}` must be a whole number of processes >= 1 (0: every available core), got "
                         f"{value!r}")
    return available_cores() if value == 0 else value


def set_workers(n: int | None) -> None:
    """Use `n` processes for the CPU stages from now on in this process (None: back to `$GECSCORE_WORKERS`)."""
    global _CHOSEN
    _CHOSEN = None if n is None else check_workers(n)


def cpu_workers() -> int:
    """The number of worker processes the CPU stages may use now."""
    if _CHOSEN is not None:
        return _CHOSEN
    value = os.environ.get(WORKERS_ENV)
    return 1 if value is None or not value.strip() else check_workers(value, WORKERS_ENV)


@contextmanager
def using_workers(n: int) -> Iterator[None]:
    """Inside the block, the CPU stages use `n` processes."""
    global _CHOSEN
    before = _CHOSEN
    set_workers(n)
    try:
        yield
    finally:
        _CHOSEN = before
