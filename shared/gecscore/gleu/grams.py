"""k-gram counting shared by the GLEU variants (they differ in how they split a text and what they do with the
counts)."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

#: A text as GLEU sees it: its length in tokens and its k-gram counts for k = 1..n.
Grams = tuple[int, list[Counter[tuple[str, ...]]]]


def ngram_counts(tokens: Sequence[str], k: int) -> Counter[tuple[str, ...]]:
    """The k-grams of `tokens` with their counts."""
    return Counter(zip(*(tokens[i:] for i in range(k))))
