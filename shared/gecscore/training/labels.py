"""Token-level GED labels from ERRANT edits in the 2-, 4-, 25- and 55-class settings (Yuan et al. 2021).

Labels sit on source tokens. A replacement or unnecessary-token edit labels every source token it spans; a
missing-token edit (empty source span) labels the source token right after the gap, or the last token when the
gap is at the end. Where edits overlap on a token, the first edit wins. `UNK` edits are dropped by the extractor,
so their tokens stay CORRECT (as in `ged_baselines`, whose 25-class set has no UNK).
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from gecscore.common.edits import Edit

CORRECT = "CORRECT"
_OPS = ("M", "R", "U")
# ERRANT's 24 main categories (Bryant et al. 2017, Table 2) without UNK.
_TYPES_ALL_OPS = ("ADJ", "ADV", "CONJ", "CONTR", "DET", "NOUN", "NOUN:POSS", "OTHER", "PART", "PREP", "PRON",
                  "PUNCT", "VERB", "VERB:FORM", "VERB:TENSE")
_TYPES_R_ONLY = ("ADJ:FORM", "MORPH", "NOUN:INFL", "NOUN:NUM", "ORTH", "SPELL", "VERB:INFL", "VERB:SVA", "WO")
MAIN_TYPES = tuple(sorted(_TYPES_ALL_OPS + _TYPES_R_ONLY))

LABEL_SETS: dict[int, tuple[str, ...]] = {
    2: (CORRECT, "INCORRECT"),
    4: (CORRECT, "M", "R", "U"),
    25: (CORRECT,) + MAIN_TYPES,
    55: (CORRECT,) + tuple(sorted([f"{op}:{t}" for op in _OPS for t in _TYPES_ALL_OPS]
                                  + [f"R:{t}" for t in _TYPES_R_ONLY])),
}


def label_set(num_classes: int) -> tuple[str, ...]:
    """The label names of a setting (CORRECT first)."""
    if num_classes not in LABEL_SETS:
        raise ValueError(f"num_classes must be one of {sorted(LABEL_SETS)}, got {num_classes!r}")
    return LABEL_SETS[num_classes]


def edit_label(edit_type: str, num_classes: int) -> str:
    """The label an ERRANT type ('R:NOUN:NUM') gets; an unlisted combination becomes the OTHER of its operation."""
    labels = label_set(num_classes)
    op, _, main = edit_type.partition(":")
    if op not in _OPS or not main:
        raise ValueError(f"not an ERRANT edit type: {edit_type!r}")
    if num_classes == 2:
        return "INCORRECT"
    if num_classes == 4:
        return op
    label = main if num_classes == 25 else edit_type
    if label in labels:
        return label
    return "OTHER" if num_classes == 25 else f"{op}:OTHER"


def token_labels(source: str, edits: Sequence[Edit], num_classes: int) -> list[str]:
    """One label per whitespace token of `source`."""
    n = len(source.split())
    labels = [CORRECT] * n
    for edit in edits:
        if edit.o_start < 0 or n == 0:
            continue
        label = edit_label(edit.type, num_classes)
        span = range(edit.o_start, edit.o_end) if edit.o_end > edit.o_start else [min(edit.o_start, n - 1)]
        for i in span:
            if i >= n:
                raise ValueError(f"edit {edit} is outside the {n}-token source {source!r}")
            if labels[i] == CORRECT:
                labels[i] = label
    return labels


def label_counts(label_lists: Sequence[Sequence[str]]) -> dict[str, int]:
    """How often each label occurs (for the run log)."""
    return dict(Counter(label for labels in label_lists for label in labels).most_common())
