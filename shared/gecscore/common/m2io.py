"""M2 files: parsing, writing and reconstructing each annotator's corrected sentence.

An M2 block is one `S <tokens>` line followed by `A <start> <end>|||<type>|||<corrections>|||<required>|||
<comment>|||<annotator>` lines and a blank line. Corrections are `||`-separated alternatives; `-NONE-` means
"delete" (stored as ''). `noop` lines (`A -1 -1|||noop|||-NONE-|||...`) say "this annotator changed nothing"
and are kept, with type 'noop' and offsets -1.

ChERRANT's (Chinese, char-level) M2 also writes each annotator's target before its edits: `T<k>-A<j> <target>`
for alignment j of annotator k (one annotator may have several equally cheap alignments, each with its own edits),
or `T<k> <text>` for the markers 没有错误 (no error) and 无法标注 (cannot be annotated). They are kept
(`M2Sentence.targets`, each edit's `alignment`) and written back in place.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from gecscore.common.edits import Edit

NONE = "-NONE-"
NOOP = "noop"
#: ChERRANT's type for a 无法标注 (cannot be annotated) reference: `A -1 -1|||NA|||-NONE-|||...`.
NOT_ANNOTATABLE = "NA"
_TARGET = re.compile(r"T(\d+)(?:-A(\d+))?(?: (.*))?")


@dataclass(frozen=True)
class M2Edit:
    """One `A` line: source tokens [o_start, o_end) get `corrections[0]` (or another alternative)."""

    o_start: int
    o_end: int
    type: str
    corrections: tuple[str, ...]
    annotator: int
    required: str = "REQUIRED"
    comment: str = NONE
    # The corrections field as written in the file, so `-NONE-` versus '' round-trips exactly.
    raw_corrections: str | None = field(default=None, compare=False, repr=False)
    # ChERRANT: the alignment (`T<k>-A<j>`) of its annotator that this line belongs to (0 elsewhere).
    alignment: int = field(default=0, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.corrections, tuple) or not self.corrections:
            raise ValueError(f"M2Edit.corrections must be a non-empty tuple of strings, got {self.corrections!r}")

    @property
    def is_noop(self) -> bool:
        """True for the annotator-made-no-change line (`A -1 -1|||noop|||...`)."""
        return self.type == NOOP or self.o_start == -1

    @property
    def correction(self) -> str:
        """The first alternative."""
        return self.corrections[0] if self.corrections else ""

    def to_line(self) -> str:
        """The `A ...` line for this edit."""
        raw = self.raw_corrections
        if raw is None or _split_corrections(raw) != self.corrections:
            raw = _join_corrections(self.corrections, self.is_noop)
        fields = (f"A {self.o_start} {self.o_end}", self.type, raw, self.required, self.comment, str(self.annotator))
        return "|||".join(fields)


@dataclass
class M2Sentence:
    """One M2 block: the whitespace-tokenised source and the edits of every annotator, in file order."""

    source: str
    edits: list[M2Edit] = field(default_factory=list)
    # Whether a blank line follows the block in the file (only the last block of a file may lack one).
    blank_line_after: bool = field(default=True, compare=False, repr=False)
    #: ChERRANT's target lines in file order: (annotator, alignment or None for a `T<k> <text>` marker, text).
    targets: list[tuple[int, int | None, str]] = field(default_factory=list, compare=False, repr=False)

    @property
    def annotators(self) -> list[int]:
        """Sorted ids of the annotators that have at least one line (noop included)."""
        return sorted({e.annotator for e in self.edits})

    def edits_of(self, annotator: int) -> list[M2Edit]:
        """The lines of one annotator in file order (noop lines included; see `M2Edit.is_noop`)."""
        return [e for e in self.edits if e.annotator == annotator]

    def to_block(self) -> str:
        """The block's lines joined by newlines (no trailing newline); ChERRANT's target lines in place."""
        head = f"S {self.source}" if self.source else "S"
        if not self.targets:
            return "\n".join([head] + [e.to_line() for e in self.edits])
        lines, placed = [head], set()
        for annotator, alignment, text in self.targets:
            name = f"T{annotator}" if alignment is None else f"T{annotator}-A{alignment}"
            lines.append(f"{name} {text}" if text else name)
            for k, e in enumerate(self.edits):
                if k not in placed and e.annotator == annotator and e.alignment == (alignment or 0):
                    lines.append(e.to_line())
                    placed.add(k)
        return "\n".join(lines + [e.to_line() for k, e in enumerate(self.edits) if k not in placed])


def _join_corrections(corrections: tuple[str, ...], noop: bool) -> str:
    """Write '' as `-NONE-` for noop lines and among alternatives (a bare '' there would merge with `|||`)."""
    if noop and corrections in ((), ("",)):
        return NONE
    if len(corrections) == 1:
        return corrections[0]  # a single deletion is written empty, as ERRANT and the CoNLL-2014 gold do
    return "||".join(alt or NONE for alt in corrections)


def _split_corrections(raw: str) -> tuple[str, ...]:
    return tuple("" if alt == NONE else alt for alt in raw.split("||"))


def _parse_edit(line: str, lineno: int, alignment: int = 0) -> M2Edit:
    fields = line.split("|||")
    if len(fields) != 6:
        raise ValueError(f"M2 line {lineno}: expected 6 '|||'-separated fields, found {len(fields)}: {line!r}")
    span, etype, raw, required, comment, annotator = fields
    parts = span.split()
    if len(parts) != 3 or parts[0] != "A":
        raise ValueError(f"M2 line {lineno}: expected 'A <start> <end>' before the first '|||', got {span!r}")
    try:
        o_start, o_end, ann = int(parts[1]), int(parts[2]), int(annotator)
    except ValueError:
        raise ValueError(f"M2 line {lineno}: offsets and annotator id must be integers: {line!r}") from None
    if not (o_start == o_end == -1 or 0 <= o_start <= o_end):
        raise ValueError(f"M2 line {lineno}: bad span {o_start} {o_end}")
    return M2Edit(o_start, o_end, etype, _split_corrections(raw), ann, required, comment, raw, alignment)


def parse_m2(text: str) -> list[M2Sentence]:
    """Parse M2 text (blocks separated by blank lines; CRLF and trailing whitespace tolerated)."""
    if not isinstance(text, str):
        raise TypeError(f"`text` must be a str, got {type(text).__name__}")
    sentences: list[M2Sentence] = []
    current: M2Sentence | None = None
    alignment = 0
    body = text[:-1] if text.endswith("\n") else text  # a final newline ends the last line; it is no blank line
    for lineno, line in enumerate(body.split("\n"), start=1):
        line = line.rstrip()
        if not line:
            current = None
            continue
        target = _TARGET.fullmatch(line) if line.startswith("T") else None
        if line == "S" or line.startswith("S "):
            if current is not None:
                raise ValueError(f"M2 line {lineno}: 'S' line without a blank line before it")
            current = M2Sentence(line[2:])
            sentences.append(current)
            alignment = 0
        elif target is not None:
            if current is None:
                raise ValueError(f"M2 line {lineno}: 'T' line outside a block (no 'S' line before it)")
            alignment = int(target.group(2)) if target.group(2) is not None else 0
            current.targets.append((int(target.group(1)), None if target.group(2) is None else alignment,
                                    target.group(3) or ""))
        elif line.startswith("A "):
            if current is None:
                raise ValueError(f"M2 line {lineno}: 'A' line outside a block (no 'S' line before it)")
            edit = _parse_edit(line, lineno, alignment)
            if edit.o_end > len(current.source.split()):
                raise ValueError(
                    f"M2 line {lineno}: span {edit.o_start} {edit.o_end} is beyond the "
                    f"{len(current.source.split())} source tokens"
                )
            current.edits.append(edit)
        else:
            raise ValueError(f"M2 line {lineno}: expected an 'S', 'T', 'A' or blank line, got {line[:60]!r}")
    if sentences and current is not None:
        current.blank_line_after = False  # the file ended right after the last block's lines
    return sentences


def read_m2(path: str | Path) -> list[M2Sentence]:
    """Parse an M2 file (UTF-8)."""
    return parse_m2(Path(path).read_text(encoding="utf-8"))


def format_m2(sentences: Iterable[M2Sentence]) -> str:
    """M2 text: each block followed by a blank line (the last one only if it had one when parsed)."""
    sentences = list(sentences)
    if not sentences:
        return ""
    text = "\n\n".join(s.to_block() for s in sentences) + "\n"
    return text + "\n" if sentences[-1].blank_line_after else text


def m2_target(sentence: M2Sentence, annotator: int) -> str:
    """The annotator's corrected sentence: the source with the first alternative of each edit applied.

    Noop lines are skipped; an annotator without lines leaves the source unchanged (gec-metrics convention).
    Offsets refer to the source tokens, so edits are applied by position whatever their order in the file.
    """
    tokens = sentence.source.split()
    edits = sorted((e for e in sentence.edits_of(annotator) if not e.is_noop), key=lambda e: (e.o_start, e.o_end))
    out: list[str] = []
    pos = 0
    for e in edits:
        if e.o_start < pos:
            raise ValueError(
                f"annotator {annotator}: edit {e.o_start} {e.o_end} overlaps an earlier edit in {sentence.source!r}"
            )
        out.extend(tokens[pos:e.o_start])
        out.extend(e.correction.split())
        pos = e.o_end
    out.extend(tokens[pos:])
    return " ".join(out)


def edits_to_m2(source: str, edit_lists: Sequence[Sequence[Edit]]) -> M2Sentence:
    """An M2 block for ERRANT edits, one edit list per annotator (as `errant_parallel`: a noop line when empty)."""
    block = M2Sentence(source)
    for annotator, edits in enumerate(edit_lists):
        if not edits:
            block.edits.append(M2Edit(-1, -1, NOOP, ("",), annotator))
        for e in edits:
            block.edits.append(M2Edit(e.o_start, e.o_end, e.type, (e.c_str,), annotator))
    return block


def m2_references(gold: Sequence[M2Sentence]) -> list[list[str]]:
    """Every annotator's corrected sentence, for all annotators of the file (the source where one has no
    line: the gec-metrics convention), as references for the ERRANT variants."""
    annotators = sorted({a for block in gold for a in block.annotators})
    return [[m2_target(block, a) for a in annotators] or [block.source] for block in gold]


def read_m2_input(value: Any, name: str) -> list[M2Sentence] | None:
    """M2 given as text, a file path or parsed sentences (None stays None); errors name the argument."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return list(value)
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"`{name}` must be M2 text or a path, got {type(value).__name__}")
    text = os.fspath(value)
    if "\n" not in text and not text.startswith("S ") and os.path.isfile(text):
        return read_m2(text)
    if not text.lstrip().startswith("S"):
        raise ValueError(f"`{name}` is neither M2 text (starting with 'S ') nor an existing file: {text[:80]!r}")
    return parse_m2(text)
