"""Per-error-type breakdown of the ERRANT family (ERRANT, PT-ERRANT, UOT-ERRANT, M² where the gold is typed).

Every sentence record keeps its counts per error type against each reference (the sufficient statistics); the
corpus breakdown adds, sentence by sentence, the types of the reference the corpus rule chose there, merges them to
the asked level (`errant_compare -cat`: 1 = operation M/R/U, 2 = main type, 3 = full type; `UNK` stays `UNK`) and
scores each category with the metric's own F_β rule. The categories' counts add up to the corpus counts (exactly
for integer counts; weighted or transported counts up to float summation order).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from gecscore.common.errant_compare import categories
from gecscore.common.errant_scoring import Counts, FScore

LEVELS: tuple[int, ...] = (0, 1, 2, 3)


def corpus_types(chosen: Sequence[Mapping[str, Counts]]) -> dict[str, Counts]:
    """Counts per full error type over the corpus (each sentence's chosen reference, in corpus order)."""
    out: dict[str, Counts] = {}
    for types in chosen:
        for t, c in types.items():
            out[t] = out[t] + c if t in out else c
    return out


def type_table(types: Mapping[str, Counts], level: int, rule: FScore, f_key: str) -> dict[str, Any]:
    """`{"level": level, "rows": {category: {tp, fp, fn, precision, recall, <f_key>}}}`, categories sorted."""
    rows = {}
    for name, c in categories(types, level).items():
        p, r, f = rule.prf(c)
        rows[name] = {"tp": c.tp, "fp": c.fp, "fn": c.fn, "precision": p, "recall": r, f_key: f}
    return {"level": level, "rows": rows}


def as_lists(types: Mapping[str, Counts]) -> dict[str, list[float]]:
    """`{type: [tp, fp, fn]}` for JSON-friendly sentence records."""
    return {t: [c.tp, c.fp, c.fn] for t, c in types.items()}


def from_lists(types: Mapping[str, Sequence[float]]) -> dict[str, Counts]:
    """The inverse of `as_lists`."""
    return {t: Counts(*map(float, c)) for t, c in types.items()}


def chosen_type_table(chosen: Sequence[Mapping[str, Sequence[float]]], level: int, rule: FScore,
                      f_key: str) -> dict[str, Any]:
    """The corpus per-type table of each sentence's chosen candidate, given as `{type: [tp, fp, fn]}` records."""
    return type_table(corpus_types([from_lists(types) for types in chosen]), level, rule, f_key)
