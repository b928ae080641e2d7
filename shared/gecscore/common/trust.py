"""What a table cannot vouch for: the sentences a score rests on that were flagged as degenerate (per reason), and
scores outside their metric's own range.

Every printer (the leaderboard in each format, single-system output, per-type tables) marks numbers with these, so
a broken number is never read as a sane one: a published-mode UOT-ERRANT F0.5 of 3479.45 or a recall of -173.9 is
shown as outside [0, 1] and ranked apart, not first.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

#: Rates: precision, recall, F-beta, headline scores, CLEME2.0's four correction rates.
_RATES = frozenset({"precision", "recall", "score", "accuracy", "hit", "err", "und", "ove"})
#: Counts or weights of edits: never negative.
_COUNTS = frozenset({"tp", "fp", "fn"})
_F_BETA = re.compile(r"f\d+(\.\d+)?")


def key_range(key: str) -> tuple[float, float] | None:
    """The range a score key's value must lie in (None: unbounded or not a score)."""
    if key in _RATES or _F_BETA.fullmatch(key):
        return 0.0, 1.0
    if key in _COUNTS:
        return 0.0, math.inf
    return None


def range_text(key: str) -> str:
    """`[0, 1]` or `>= 0`: the key's range in words."""
    low, high = key_range(key) or (-math.inf, math.inf)
    return f"[{low:g}, {high:g}]" if math.isfinite(high) else f">= {low:g}"


def out_of_range(scores: Mapping[str, Any]) -> dict[str, str]:
    """Each bounded key whose value is NaN or outside its range → why (`outside [0, 1]`, `NaN`)."""
    found = {}
    for key, value in scores.items():
        bounds = key_range(key)
        if bounds is None or not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if math.isnan(value):
            found[key] = "NaN"
        elif not bounds[0] - 1e-9 <= value <= bounds[1] + 1e-9:
            found[key] = f"outside {range_text(key)}"
    return found


def flag_counts(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Distinct flagged sentences per reason, most frequent first."""
    by_reason: dict[str, set[int]] = {}
    for record in records:
        by_reason.setdefault(record["reason"], set()).add(int(record["index"]))
    return dict(sorted(((r, len(s)) for r, s in by_reason.items()), key=lambda item: -item[1]))


def flagged_sentences(records: Sequence[Mapping[str, Any]]) -> int:
    """How many distinct sentences are flagged (a sentence may have several reasons)."""
    return len({int(record["index"]) for record in records})


def flag_note(records: Sequence[Mapping[str, Any]]) -> str:
    """`12 (over-transport 9, degenerate transport 3)`, or an empty string when nothing is flagged."""
    if not records:
        return ""
    counts = flag_counts(records)
    return f"{flagged_sentences(records)} (" + ", ".join(f"{reason} {n}" for reason, n in counts.items()) + ")"
