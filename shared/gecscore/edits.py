"""Edits between whitespace-tokenised sentences: the `Edit` value and its application to a source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Edit:
    """One edit: source tokens [o_start, o_end) replaced by `c_str` (target tokens [c_start, c_end))."""

    o_start: int
    o_end: int
    o_str: str
    c_start: int
    c_end: int
    c_str: str
    type: str = ""

    @property
    def key(self) -> tuple[int, int, str]:
        """Identity used for matching (ERRANT's `(o_start, o_end, c_str)`)."""
        return (self.o_start, self.o_end, self.c_str)


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """Apply edits left to right in the given order, as the reference `apply_edits` does.

    Tokens come from splitting on single spaces; edits with `o_start == -1` (noop) are skipped;
    the offsets of later edits shift by the length change of earlier ones.
    """
    tokens = source.split(" ") if source else []
    shift = 0
    for edit in edits:
        if edit.o_start == -1:
            continue
        replacement = edit.c_str.split(" ") if edit.c_str else []
        start, end = edit.o_start + shift, edit.o_end + shift
        tokens[start:end] = replacement
        shift += len(replacement) - (edit.o_end - edit.o_start)
    return " ".join(tokens)
