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


def range_text(key: str, bounds: Mapping[str, Sequence[float]] | None = None) -> str:
    """`[0, 1]` or `>= 0`: the key's range in words (`bounds` as in `out_of_range`)."""
    low, high = (bounds or {}).get(key) or key_range(key) or (-math.inf, math.inf)
    return f"[{low:g}, {high:g}]" if math.isfinite(high) else f">= {low:g}"


def out_of_range(scores: Mapping[str, Any], bounds: Mapping[str, Sequence[float]] | None = None) -> dict[str, str]:
    """Each bounded key whose value is NaN or outside its range → why (`outside [0, 1]`, `NaN`); `bounds`: ranges a
    result declares for its own keys (`details["score_range"]` of its headline: LLM-S/E's published 1-5 mean),
    which take the place of the range the key's name implies."""
    found = {}
    for key, value in scores.items():
        bounds_of = (bounds or {}).get(key) or key_range(key)
        if bounds_of is None or not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        if math.isnan(value):
            found[key] = "NaN"
        elif not bounds_of[0] - 1e-9 <= value <= bounds_of[1] + 1e-9:
            found[key] = f"outside {range_text(key, bounds)}"
    return found


def declared_bounds(main: str, details: Mapping[str, Any]) -> dict[str, Sequence[float]]:
    """The headline's range a result declares (`details["score_range"]`), keyed by the headline's key."""
    declared = details.get("score_range")
    return {} if declared is None else {main: declared}


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
