"""Import stub for `ltp` (a Chinese tokenizer CLEME imports at package import; never used for English)."""

from __future__ import annotations


class LTP:
    """Refuses to run: the benchmark scores English only."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError("ltp is a stub in the benchmark environment (English only)")
