"""Reading sentences from text, the same way in the CLI and the Spaces: one sentence per line.

A leading UTF-8 byte-order mark is dropped (editors on Windows write one; kept, it glues itself to the first word
and changes that sentence's edits), CRLF and lone CR end a line like LF, one final line break does not start another
sentence (further blank lines are kept: an empty prediction is data, not padding), and each line loses its
right-hand whitespace, as gec-metrics reads its files. Control characters other than the tab are refused with the
line and column, because no metric can say what they mean.
"""

from __future__ import annotations

import re

BOM = "\ufeff"
#: Refused inside a sentence: control characters except the tab (a line break would start another sentence; in a
#: file, line ends are split off before the check) and the Unicode line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """The sentences of `text`, one per line (see the module docstring for the rules)."""
    lines = text.removeprefix(BOM).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


def control_character(line: str) -> tuple[int, str] | None:
    """(1-based column, `U+XXXX`) of the first refused control character in `line` (tab allowed), else None."""
    match = _CONTROL.search(line)
    return None if match is None else (match.start() + 1, f"U+{ord(match.group()):04X}")


def decode_utf8(raw: bytes) -> tuple[str | None, int]:
    """The text of UTF-8 bytes, or (None, 1-based line of the first undecodable byte)."""
    try:
        return raw.decode("utf-8"), 0
    except UnicodeDecodeError as error:
        return None, raw[:error.start].count(b"\n") + 1
