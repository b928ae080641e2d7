"""Plain ERRANT with `convention='errant_compare'`: ERRANT's official scorer on sentences or on M2 files.

From sentences, the edits are extracted as `errant_parallel` writes them (`UNK` edits kept for detection; a
reference equal to its source is a `noop` line of its coder, one that differs yet yields no edit has no line), then
scored by `gecscore.common.errant_compare`. From M2 files (`hyp_m2`, `ref_m2`) no parser runs at all.
"""

from __future__ import annotations

from typing import Any, Sequence

from gecscore.common import errant_compare as ec
from gecscore.common.edits import Edit
from gecscore.common.m2io import read_m2_input


def coder_lines(source: str, target: str, edits: Sequence[Edit], coder: int) -> list[ec.CompareEdit]:
    """The `A` lines `errant_parallel` writes for one corrected sentence."""
    if " ".join(source.split()) == target.strip():
        return [ec.CompareEdit(-1, -1, ec.NOOP, ec.NOOP_EDIT_CORRECTION, coder)]
    return [ec.CompareEdit(e.o_start, e.o_end, e.type, e.c_str, coder) for e in edits]


def score_sentences(sources: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]],
                    hyp_edits: Sequence[Sequence[Edit]], ref_edits: Sequence[Sequence[Sequence[Edit]]],
                    settings: ec.CompareSettings) -> ec.CompareResult:
    """One system from extracted edits (`UNK` included)."""
    hyp = [coder_lines(s, h, e, 0) for s, h, e in zip(sources, predictions, hyp_edits)]
    ref = [[line for r, (text, e) in enumerate(zip(refs, edits)) for line in coder_lines(s, text, e, r)]
           for s, refs, edits in zip(sources, references, ref_edits)]
    return ec.score_corpus(hyp, ref, settings)


def same_width_folded(a: str, b: str) -> bool:
    """Whether two token strings are equal once full-width forms are folded (NFKC), token for token."""
    import unicodedata

    fold = lambda text: [unicodedata.normalize("NFKC", t) for t in text.split()]
    return len(a.split()) == len(b.split()) and fold(a) == fold(b)


def score_m2(hyp_m2: Any, ref_m2: Any, settings: ec.CompareSettings) -> ec.CompareResult:
    """One system from a hypothesis M2 and a reference M2, as `errant_compare -hyp HYP -ref REF`."""
    hyp, ref = read_m2_input(hyp_m2, "hyp_m2"), read_m2_input(ref_m2, "ref_m2")
    if hyp is None or ref is None:
        raise ValueError("give both `hyp_m2` and `ref_m2`")
    if len(hyp) != len(ref):
        raise ValueError(f"`hyp_m2` has {len(hyp)} sentences but `ref_m2` has {len(ref)}")
    for i, (h, r) in enumerate(zip(hyp, ref)):
        if settings.language == "zh" and same_width_folded(h.source, r.source):
            continue  # ChERRANT's demo: the same sentence with a full-width ':' on one side
        if h.source.split() != r.source.split():
            raise ValueError(f"`hyp_m2` sentence {i} (S line) differs from `ref_m2` sentence {i}: "
                             f"{h.source[:60]!r} vs {r.source[:60]!r}")
    return ec.score_corpus([ec.from_m2(b) for b in hyp], [ec.from_m2(b) for b in ref], settings)
