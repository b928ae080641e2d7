"""Progress bars: tqdm, optionally held back until a stage has run a few seconds.

`gecscore score` turns progress on by default on a terminal; `shown_after(seconds)` makes its bars appear only for
stages that take longer, so a quick run stays quiet. Asked for explicitly (`progress=True`, `--progress`), bars
show at once.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from tqdm.auto import tqdm

_DELAY = {"seconds": 0.0}


def progress_bar(iterable: Any = None, **kwargs: Any) -> Any:
    """`tqdm(iterable, **kwargs)`, shown once the stage has run the current delay (none unless `shown_after`)."""
    return tqdm(iterable, delay=_DELAY["seconds"], **kwargs)


@contextlib.contextmanager
def shown_after(seconds: float) -> Iterator[None]:
    """Within the block, bars appear only after `seconds` (restored afterwards)."""
    before = _DELAY["seconds"]
    _DELAY["seconds"] = float(seconds)
    try:
        yield
    finally:
        _DELAY["seconds"] = before


def progress_write(text: str) -> None:
    """Print `text` without breaking an open bar."""
    tqdm.write(text)
