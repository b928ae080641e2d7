"""Reading what a Space user typed or uploaded: required fields, one sentence per line, M2 files, line counts."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gecscore.common.inputs import BOM, control_character, decode_utf8, split_lines
from gecscore.common.m2io import M2Sentence, m2_target, parse_m2


class InputError(ValueError):
    """A problem with the user's input; its message is shown in the page as it is."""


def required_text(label: str, value: str | None) -> str:
    """The stripped text of a single-sentence field, or an error naming the empty field."""
    text = (value or "").strip()
    if not text:
        raise InputError(f"{label} is empty: type a sentence (or pick an example below).")
    if "\n" in text:
        raise InputError(f"{label} must be one sentence on one line; use the Corpus tab for several sentences.")
    return text


def text_lines(label: str, value: str | None) -> list[str]:
    """The non-blank lines of a multi-line field (one sentence per line), at least one."""
    lines = [line.strip() for line in split_lines(value or "") if line.strip()]
    if not lines:
        raise InputError(f"{label} is empty: give at least one sentence, one per line.")
    return lines


def _path(file: object) -> Path:
    """The local path of an uploaded file (a path, or a Gradio file object whose `.name` is its path)."""
    return Path(file if isinstance(file, (str, os.PathLike)) else getattr(file, "name"))


def file_name(file: object) -> str:
    """The base name of an uploaded file, for messages."""
    return _path(file).name


def read_upload(label: str, file: object | None) -> str:
    """The UTF-8 text of an uploaded file; an error names the field when it is missing, empty or not text."""
    if file is None:
        raise InputError(f"{label}: no file uploaded.")
    path = _path(file)
    try:
        text, bad_line = decode_utf8(path.read_bytes())
    except OSError as error:
        raise InputError(f"{label} ({path.name}) cannot be read: {error.strerror or error}.") from None
    if text is None:
        raise InputError(f"{label} ({path.name}), line {bad_line}: not UTF-8 text.")
    text = text.removeprefix(BOM)
    if not text.strip():
        raise InputError(f"{label} ({path.name}) is empty.")
    for number, line in enumerate(split_lines(text), 1):
        found = control_character(line)
        if found is not None:
            raise InputError(f"{label} ({path.name}), line {number}, column {found[0]}: control character "
                             f"{found[1]}.")
    return text




def is_m2(text: str) -> bool:
    """Whether a file is M2 (its first non-blank line is an `S ` source line)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.startswith("S ")


def parse_upload_m2(label: str, text: str) -> list[M2Sentence]:
    """Parse an uploaded M2 file; a format error names the file."""
    try:
        return parse_m2(text)
    except ValueError as error:
        raise InputError(f"{label} is not valid M2: {error}.") from None


def check_line_counts(counts: Sequence[tuple[str, int]]) -> int:
    """Check that every named input has as many sentences as the first one; return that number."""
    expected = counts[0][1]
    wrong = [(name, n) for name, n in counts if n != expected]
    if wrong:
        detail = ", ".join(f"{name}: {n}" for name, n in counts)
        raise InputError(f"the files must have one sentence per line and the same number of sentences; got {detail}.")
    return expected


@dataclass
class Corpus:
    """A corpus read from uploads: sources, hypotheses and either reference texts or an M2 annotation."""

    sources: list[str]
    predictions: list[str]
    references: list[list[str]] | None = None
    reference_m2: str | None = None
    hypothesis_m2: str | None = None

    def __len__(self) -> int:
        return len(self.predictions)


def read_corpus(source_file: object | None, hypothesis_file: object | None,
                reference_files: Sequence[object] | object | None = None, *, with_references: bool = True,
                m2_references: bool = False, m2_hypothesis: bool = False) -> Corpus:
    """Read the corpus uploads and check that they line up.

    Plain-text references (one file per reference set) become one list of references per sentence. With
    `m2_references`, a single M2 reference file is kept as text (`reference_m2`) and the sources may come from it;
    with `m2_hypothesis` the hypothesis may be M2 as well (then both are M2 and kept as text).
    """
    refs = [] if reference_files is None else (
        list(reference_files) if isinstance(reference_files, (list, tuple)) else [reference_files])
    ref_texts = [(file_name(f), read_upload(f"Reference file {i + 1}", f)) for i, f in enumerate(refs)]
    m2_refs = [name for name, text in ref_texts if is_m2(text)]
    if m2_refs and not m2_references:
        raise InputError(f"{m2_refs[0]} is an M2 file; this metric takes references as plain text, "
                         "one corrected sentence per line (one file per reference set).")
    if m2_refs and len(ref_texts) > 1:
        raise InputError("upload either one M2 reference file (all annotators in it) or plain-text reference files, "
                         "not several files including M2.")
    if with_references and not ref_texts:
        raise InputError("Reference files: no file uploaded (one file per reference set, one sentence per line"
                         + (", or one M2 file" if m2_references else "") + ").")
    gold = ref_texts[0][1] if m2_refs else None
    gold_blocks = parse_upload_m2(f"Reference file {m2_refs[0]}", gold) if gold is not None else None

    hyp_text = read_upload("Hypothesis file", hypothesis_file)
    if is_m2(hyp_text):
        if not (m2_hypothesis and gold_blocks is not None):
            raise InputError("the hypothesis file is M2; give the corrected sentences as plain text, one per line"
                             + (" (an M2 hypothesis needs an M2 reference file too)" if m2_hypothesis else "") + ".")
        hyp_blocks = parse_upload_m2(f"Hypothesis file {file_name(hypothesis_file)}", hyp_text)
        check_line_counts([("hypothesis M2 blocks", len(hyp_blocks)), ("reference M2 blocks", len(gold_blocks))])
        predictions = [m2_target(b, b.annotators[0] if b.annotators else 0) for b in hyp_blocks]
        return Corpus(sources=[b.source for b in gold_blocks], predictions=predictions, reference_m2=gold,
                      hypothesis_m2=hyp_text)
    predictions = split_lines(hyp_text)

    if source_file is None and gold_blocks is not None:
        sources = [b.source for b in gold_blocks]
    else:
        sources = split_lines(read_upload("Source file", source_file))
    counts = [("source", len(sources)), ("hypothesis", len(predictions))]
    if gold_blocks is not None:
        counts.append((f"reference M2 {m2_refs[0]} (blocks)", len(gold_blocks)))
    else:
        counts += [(f"reference {name}", len(split_lines(text))) for name, text in ref_texts]
    check_line_counts(counts)
    references = None
    if gold is None and ref_texts:
        columns = [split_lines(text) for _, text in ref_texts]
        references = [list(row) for row in zip(*columns)]
    return Corpus(sources=sources, predictions=predictions, references=references, reference_m2=gold)
