"""GoToScorer's chunks and their judgement, as gec-metrics 0.1.1 defines them (docs/reference-behaviour.md).

A sentence's source is cut into chunks against one target: every ERRANT edit is one chunk (its source span and
correction), every source token outside the edits is a chunk of its own (kept as is), and an empty "dummy"
insertion chunk sits before every chunk that is not itself preceded by an insertion, plus one at the end, so that a
hypothesis insertion anywhere has a reference chunk to be judged against. Each reference chunk is judged against
the hypothesis chunks: correct or not, and whether the hypothesis tried to edit it; with its weight, that makes it
a true or false positive, a false negative or a true negative under its error type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from gecscore.common.edits import Edit

#: The type of a chunk that is no edit: a kept token or an empty insertion slot.
DUMMY = "DUMMY:DUMMY"
Outcome = Literal["tp", "fp", "fp+fn", "fn", "tn"]
#: The counts an outcome adds its chunk's weight to.
COUNTED: dict[str, tuple[str, ...]] = {"tp": ("tp",), "fp": ("fp",), "fp+fn": ("fp", "fn"), "fn": ("fn",),
                                       "tn": ("tn",)}


@dataclass(frozen=True)
class Chunk:
    """Source tokens [o_start, o_end) and what the target makes of them; `edited` when an edit made the chunk."""

    o_start: int
    o_end: int
    c_str: str
    type: str
    edited: bool

    @property
    def span(self) -> tuple[int, int]:
        return (self.o_start, self.o_end)

    @property
    def insertion(self) -> bool:
        return self.o_start == self.o_end


def chunk_sequence(edits: Sequence[Edit], tokens: Sequence[str]) -> list[Chunk]:
    """The chunks of a source (`tokens`, split on single spaces) under `edits` (ERRANT's, in order), with the dummy
    insertion slots: gec-metrics' `GoToScorer.generate_chunks`."""
    chunks: list[Chunk] = []
    pending = list(edits)
    position = 0
    while position < len(tokens):
        if pending and pending[0].o_start == position:
            edit = pending.pop(0)
            chunks.append(Chunk(edit.o_start, edit.o_end, edit.c_str, edit.type, True))
            position = edit.o_end  # an insertion stays at its position: a token or another edit follows
        else:
            chunks.append(Chunk(position, position + 1, tokens[position], DUMMY, False))
            position += 1
    if edits and edits[-1].o_start == len(tokens):  # an insertion after the last token
        last = edits[-1]
        chunks.append(Chunk(last.o_start, last.o_end, last.c_str, last.type, True))
    slotted: list[Chunk] = []
    after_insertion = False
    for chunk in chunks:
        if not chunk.insertion and not after_insertion:
            slotted.append(Chunk(chunk.o_start, chunk.o_start, "", DUMMY, False))
        slotted.append(chunk)
        after_insertion = chunk.insertion
    if not after_insertion:
        slotted.append(Chunk(chunks[-1].o_end, chunks[-1].o_end, "", DUMMY, False))
    return slotted


def judge(reference: Chunk, hypothesis: Sequence[Chunk]) -> tuple[bool, bool]:
    """(correct, tried) of a reference chunk: gec-metrics' `GoToScorer.annotate`.

    The first hypothesis chunk with the same span decides both: correct when its correction is the reference's,
    tried when it is an edit. Without one, an insertion slot is correct and untried (no hypothesis chunk can
    overlap an empty span); any other chunk is incorrect, and tried when a hypothesis edit overlaps it (starts
    inside it, or contains its start)."""
    for chunk in hypothesis:
        if chunk.span == reference.span:
            return chunk.c_str == reference.c_str, chunk.edited
    if reference.insertion:
        return bool(hypothesis), False
    tried = any(chunk.edited and (reference.o_start <= chunk.o_start < reference.o_end
                                  or chunk.o_start <= reference.o_start < chunk.o_end) for chunk in hypothesis)
    return False, tried


def judge_gts(reference: Chunk, hypothesis: Sequence[Chunk]) -> tuple[bool, bool]:
    """(correct, tried) of a reference chunk as the original GoToScorer judges it (gotutiyan/GTS 1.1,
    `alignmenter.update_evaluation`), which looks at every hypothesis chunk in order.

    A chunk with the reference's span and correction makes it correct, tried when that chunk is an edit, and ends
    the search. Every other hypothesis chunk with the same span, or (for a reference chunk that is not an
    insertion slot) starting inside it or containing its start, makes it incorrect and tried when any of them is
    an edit; so an edit inserted right before a token counts as an attempt on that token. A reference chunk no
    hypothesis chunk touches is correct exactly when it is no edit."""
    touched = tried = False
    for chunk in hypothesis:
        if chunk.span == reference.span:
            if chunk.c_str == reference.c_str:
                return True, chunk.edited
        elif reference.insertion or not (reference.o_start <= chunk.o_start < reference.o_end
                                         or chunk.o_start <= reference.o_start < chunk.o_end):
            continue
        touched, tried = True, tried or chunk.edited
    return (False, tried) if touched else (not reference.edited, False)


#: The judgement of each rule set (the `rules` option).
JUDGES = {"gec-metrics": judge, "gts": judge_gts}


def outcome(reference: Chunk, hypothesis: Sequence[Chunk], rules: str = "gec-metrics") -> Outcome:
    """What a reference chunk counts as under `rules`: a tried chunk is a TP when correct, else an FP (and also an
    FN when the reference edits it); an untried one is a TN when correct, else an FN (both rule sets count so)."""
    correct, tried = JUDGES[rules](reference, hypothesis)
    if tried:
        return "tp" if correct else ("fp+fn" if reference.edited else "fp")
    return "tn" if correct else "fn"


def typed_counts(references: Sequence[Chunk], outcomes: Sequence[Outcome], weights: Sequence[float]
                 ) -> dict[str, list[float]]:
    """{type: [tp, fp, fn, tn]}: every reference chunk's weight added, in chunk order, to its outcome's counts under
    its type (types in order of first appearance, as gec-metrics adds them)."""
    out: dict[str, list[float]] = {}
    for chunk, result, weight in zip(references, outcomes, weights):
        counts = out.setdefault(chunk.type, [0.0, 0.0, 0.0, 0.0])
        for name in COUNTED[result]:
            counts[("tp", "fp", "fn", "tn").index(name)] += weight
    return out
