"""CLEME chunks: the joint partition of a source, its hypothesis and its references, and chunk labels.

Behaviour follows the CLEME reference code (`docs/reference-behaviour.md`, section "CLEME chunks"):

* every target (hypothesis first, then the references) comes with its edits; edits of all targets that overlap
  **or touch** (`start <= end` of the previous interval) are merged into one shared source interval;
* the source is cut into unchanged chunks, corrected chunks (a shared interval) and dummy chunks (an insertion
  that touches nothing); all targets share these cuts, and each target's tokens for a chunk come from its edit
  widened to the interval, or from its token mapping where it did not edit;
* a chunk is *marked* for a target when that target has an edit there (even one that leaves the tokens as they
  are, e.g. ERRANT `UNK`); two chunks are equal when their target tokens are equal;
* labels of the hypothesis chunks: TP, FP_ne (a wrong edit where a reference edits), FP_un (an edit where no
  reference edits), FN, TN — per reference (dependent) or against all references at once (independent).

Inputs come from M2 text (CLEME's reader semantics, `samples_from_m2`) or from whitespace-tokenised sentences
through ERRANT (`samples_from_text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ContextManager, Literal, Sequence

from gecscore.common.edits import Edit
from gecscore.common.inputs import check_references, check_same_length, check_texts
from gecscore.common.m2io import M2Edit, M2Sentence, parse_m2
from gecscore.common.sharing import SharedWithin

if TYPE_CHECKING:
    from gecscore.common.edits import EditExtractor

Assumption = Literal["dependent", "independent"]
ASSUMPTIONS: tuple[str, ...] = ("dependent", "independent")
TP, FP_NE, FP_UN, FN, TN = "TP", "FP_ne", "FP_un", "FN", "TN"
LABELS: tuple[str, ...] = (TP, FP_NE, FP_UN, FN, TN)


@dataclass(frozen=True)
class Target:
    """One corrected sentence (tokens joined by single spaces) and the edits from the source to it."""

    text: str
    edits: tuple[Edit, ...] = ()

    @property
    def tokens(self) -> list[str]:
        """The whitespace tokens of `text`."""
        return self.text.split()


@dataclass(frozen=True)
class Sample:
    """A source sentence with its hypothesis and references, ready to be chunked.

    `reference_ids` are the positions of the kept references among those given (empty ones are dropped).
    """

    source: str
    hypothesis: Target
    references: tuple[Target, ...]
    reference_ids: tuple[int, ...]


@dataclass(frozen=True)
class Chunk:
    """Source tokens [o_start, o_end) of chunk `index` and one target's tokens for them."""

    index: int
    o_start: int
    o_end: int
    src: tuple[str, ...]
    tgt: tuple[str, ...]
    types: tuple[str, ...] = ()

    @property
    def marked(self) -> bool:
        """Whether the target edits this chunk."""
        return bool(self.types)


# ---------------------------------------------------------------------------------------------------
# Partition


def token_mapping(n_source: int, edits: Sequence[Edit]) -> dict[int, int]:
    """Source position → target position: 1:1 outside edits, edit bounds to their target bounds, up to n_source."""
    mapping: dict[int, int] = {}
    src_idx = tgt_idx = 0
    for edit in edits:
        mapping[edit.o_start] = edit.c_start
        mapping[edit.o_end] = edit.c_end
        while src_idx < edit.o_start:
            mapping[src_idx] = tgt_idx
            src_idx += 1
            tgt_idx += 1
        src_idx, tgt_idx = edit.o_end, edit.c_end
    while src_idx <= n_source:
        mapping[src_idx] = tgt_idx
        src_idx += 1
        tgt_idx += 1
    return mapping


def shared_intervals(edit_lists: Sequence[Sequence[Edit]]) -> list[tuple[int, int]]:
    """Source intervals of the pooled edits, overlapping and touching ones merged (CLEME `merge_distance=0`)."""
    intervals: list[list[int]] = []
    for edit in sorted((e for edits in edit_lists for e in edits), key=lambda e: e.o_start):
        if intervals and edit.o_start <= intervals[-1][1]:
            intervals[-1][1] = max(intervals[-1][1], edit.o_end)
        else:
            intervals.append([edit.o_start, edit.o_end])
    return [(a, b) for a, b in intervals]


def chunk_bounds(n_source: int, intervals: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Cut [0, n_source) into unchanged chunks, the shared intervals and zero-length dummy chunks."""
    bounds: list[tuple[int, int]] = []
    pos = 0
    for start, end in intervals:
        if pos < start:
            bounds.append((pos, start))
        bounds.append((start, end))
        pos = max(pos, end)
    if pos < n_source:
        bounds.append((pos, n_source))
    return bounds


def partition(source: Sequence[str], targets: Sequence[Sequence[str]],
              edit_lists: Sequence[Sequence[Edit]]) -> list[list[Chunk]]:
    """Chunk sequences of every target (same cuts for all), from the source tokens, target tokens and edits."""
    if len(targets) != len(edit_lists):
        raise ValueError(f"{len(targets)} targets but {len(edit_lists)} edit lists")
    source = list(source)
    n = len(source)
    for t, edits in enumerate(edit_lists):
        for e in edits:
            if not 0 <= e.o_start <= e.o_end <= n:
                raise ValueError(f"target {t}: edit span {e.o_start} {e.o_end} is outside the {n} source tokens")
    sorted_lists = [sorted(edits, key=lambda e: e.o_start) for edits in edit_lists]
    intervals = shared_intervals(sorted_lists)
    bounds = chunk_bounds(n, intervals)
    out = []
    for tokens, edits in zip(targets, sorted_lists):
        tokens = list(tokens)
        mapping = token_mapping(n, edits)
        widened: dict[tuple[int, int], list[str]] = {}  # interval → types, in edit order
        for e in edits:
            interval = next(iv for iv in intervals if iv[0] <= e.o_start and e.o_end <= iv[1])
            widened.setdefault(interval, []).append(e.type)
        chunks = []
        for index, (start, end) in enumerate(bounds):
            if (start, end) in widened:
                tgt_start = 0 if start == 0 else mapping[start - 1] + 1
                tgt_end = mapping[end]
                types = tuple(widened[(start, end)])
            else:
                tgt_start = mapping[start]
                tgt_end = mapping[end - 1] + 1 if end != 0 else 0
                types = ()
            chunks.append(Chunk(index, start, end, tuple(source[start:end]), tuple(tokens[tgt_start:tgt_end]), types))
        out.append(chunks)
    return out


def partition_sample(sample: Sample) -> list[list[Chunk]]:
    """Chunks of `[hypothesis] + references` of one sample (inside `sharing_partitions`, computed once)."""
    if not _PARTITIONS.active:
        return _partition_sample(sample)
    chunked = _PARTITIONS.get(sample, lambda: tuple(tuple(chunks) for chunks in _partition_sample(sample)))
    return [list(chunks) for chunks in chunked]  # fresh lists of the (frozen) chunks: callers own what they get


def _partition_sample(sample: Sample) -> list[list[Chunk]]:
    targets = (sample.hypothesis,) + sample.references
    return partition(sample.source.split(), [t.tokens for t in targets], [t.edits for t in targets])


#: The partitions kept inside `sharing_partitions`: sample → its chunks.
_PARTITIONS: SharedWithin[Sample, tuple[tuple[Chunk, ...], ...]] = SharedWithin()


def sharing_partitions(max_samples: int = 60_000) -> ContextManager[None]:
    """Inside the block, each sample is partitioned once and its chunks reused (up to `max_samples` samples, the
    least recently used dropped first; about 10 KiB each on CoNLL-2014 with two references). The partition
    depends only on the sample's texts and edits, never on the assumption, weighting or level, so CLEME and
    CLEME2.0 under every configuration of one system share it. Off by default (a single scoring never meets a
    sample twice); the meta-evaluation, which scores the same outputs under many configurations, turns it on.
    Nested blocks share the outer one's partitions."""
    return _PARTITIONS.scope(max_samples)


# ---------------------------------------------------------------------------------------------------
# Labels


def label_dependent(hyp: Sequence[Chunk], ref: Sequence[Chunk]) -> list[str]:
    """Labels of the hypothesis chunks against one reference."""
    labels = []
    for h, r in zip(hyp, ref, strict=True):
        if h.marked:
            labels.append(TP if h.tgt == r.tgt else (FP_NE if r.marked else FP_UN))
        else:
            labels.append(FN if h.tgt != r.tgt else TN)
    return labels


def label_independent(hyp: Sequence[Chunk], refs: Sequence[Sequence[Chunk]]) -> list[str]:
    """Labels of the hypothesis chunks against all references at once (TP if any matches, FN if all edit)."""
    labels = []
    for i, h in enumerate(hyp):
        column = [ref[i] for ref in refs]
        if h.marked:
            if any(h.tgt == r.tgt for r in column):
                labels.append(TP)
            else:
                labels.append(FP_NE if any(r.marked for r in column) else FP_UN)
        else:
            labels.append(FN if all(r.marked for r in column) else TN)
    return labels


def label_chunks(chunks: Sequence[Sequence[Chunk]], assumption: Assumption) -> list[list[str]]:
    """Labels of the hypothesis chunks (`chunks[0]`) for each reference (`chunks[1:]`).

    Under the independent assumption every reference gets the same labels (as the reference code does).
    """
    hyp, refs = chunks[0], chunks[1:]
    if not refs:
        raise ValueError("a sample needs at least one reference")
    if assumption == "dependent":
        return [label_dependent(hyp, ref) for ref in refs]
    if assumption == "independent":
        labels = label_independent(hyp, refs)
        return [list(labels) for _ in refs]
    raise ValueError(f"`assumption` must be one of {ASSUMPTIONS}, got {assumption!r}")


# ---------------------------------------------------------------------------------------------------
# Inputs


def _sample(source: str, hypothesis: Target, refs: list[Target]) -> Sample:
    """A sample without its empty references (the first one is kept if all are empty, as CLEME)."""
    ids = [i for i, r in enumerate(refs) if r.text] or [0]
    return Sample(source, hypothesis, tuple(refs[i] for i in ids), tuple(ids))


def m2_blocks(sentence: M2Sentence) -> list[list[M2Edit]]:
    """The lines of each target as CLEME's M2 reader groups them.

    A new target starts only at a line whose annotator id is the previous target's id + 1 (the first target
    at id 0); other lines join the current target. A block without lines is one unchanged target. Of ChERRANT's
    several alignments of one annotator (`T0-A0`, `T0-A1`, ...) only the first is read, as CLEME's reader skips
    the lines of the others.
    """
    blocks: list[list[M2Edit]] = []
    current: list[M2Edit] = []
    target_id = -1
    for edit in sentence.edits:
        if edit.alignment > 0:
            continue
        if edit.annotator == target_id + 1:
            if current:
                blocks.append(current)
            current, target_id = [], edit.annotator
        current.append(edit)
    blocks.append(current)
    return blocks


def apply_m2_lines(source_tokens: Sequence[str], lines: Sequence[M2Edit], where: str) -> Target:
    """Apply one target's lines in file order (noop lines skipped) and return the target with its edits."""
    tokens = list(source_tokens)
    edits = []
    shift = 0
    last_end = 0
    for line in lines:
        if line.is_noop:
            continue
        if len(line.corrections) != 1:
            raise ValueError(f"{where}: CLEME takes one correction per M2 line, got alternatives {line.corrections}")
        if line.o_start < last_end:
            raise ValueError(f"{where}: edit {line.o_start} {line.o_end} overlaps the previous edit of its target")
        last_end = line.o_end
        correction = line.correction.split()
        c_start = line.o_start + shift
        tokens[c_start:line.o_end + shift] = correction
        shift += len(correction) - (line.o_end - line.o_start)
        edits.append(Edit(line.o_start, line.o_end, " ".join(source_tokens[line.o_start:line.o_end]),
                          c_start, c_start + len(correction), " ".join(correction), line.type))
    return Target(" ".join(tokens), tuple(edits))


def _m2_text(value: str | Path, name: str) -> str:
    """M2 content from a path or a string holding the M2 text itself."""
    if isinstance(value, Path):
        return value.read_text(encoding="utf-8")
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be M2 text or a path, got {type(value).__name__}")
    if "\n" not in value and not value.startswith("S ") and Path(value).is_file():
        return Path(value).read_text(encoding="utf-8")
    if "\n" not in value and not value.startswith("S "):
        raise ValueError(f"`{name}` is neither an existing file nor M2 text: {value[:80]!r}")
    return value


def samples_from_m2(hyp_m2: str | Path, ref_m2: str | Path) -> list[Sample]:
    """Samples from a hypothesis M2 (one target per block) and a reference M2 (all annotators), as CLEME reads them.

    Each argument is a path or the M2 text itself. Sources must agree block by block and be non-empty; empty
    references are dropped (at least one kept).
    """
    hyp_blocks = parse_m2(_m2_text(hyp_m2, "hyp_m2"))
    ref_blocks = parse_m2(_m2_text(ref_m2, "ref_m2"))
    if len(hyp_blocks) != len(ref_blocks):
        raise ValueError(f"`hyp_m2` has {len(hyp_blocks)} sentences but `ref_m2` has {len(ref_blocks)}")
    samples = []
    for i, (hyp, ref) in enumerate(zip(hyp_blocks, ref_blocks)):
        source = hyp.source.split()
        if not source:
            raise ValueError(f"`hyp_m2` sentence {i}: empty source (CLEME needs a non-empty source)")
        if ref.source.split() != source:
            raise ValueError(f"sentence {i}: sources differ between `hyp_m2` and `ref_m2`: "
                             f"{hyp.source[:60]!r} vs {ref.source[:60]!r}")
        hyp_targets = m2_blocks(hyp)
        if len(hyp_targets) != 1:
            raise ValueError(f"`hyp_m2` sentence {i}: {len(hyp_targets)} targets; a hypothesis M2 has one")
        hyp_target = apply_m2_lines(source, hyp_targets[0], f"`hyp_m2` sentence {i}")
        refs = [apply_m2_lines(source, lines, f"`ref_m2` sentence {i}") for lines in m2_blocks(ref)]
        samples.append(_sample(" ".join(source), hyp_target, refs))
    return samples


def samples_from_text(sources: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]],
                      extractor: EditExtractor | None = None, *, progress: bool = False) -> list[Sample]:
    """Samples from whitespace-tokenised sentences, edits by ERRANT (UNK kept, as `errant_parallel` writes them).

    `references[i]` is a string or a list of strings; empty references are dropped (at least one kept);
    an empty source raises `ValueError`.
    """
    sources = check_texts("sources", sources)
    predictions = check_texts("predictions", predictions)
    n = check_same_length(sources=sources, predictions=predictions)
    references = check_references(references, n)
    for i, source in enumerate(sources):
        if not source.split():
            raise ValueError(f"`sources[{i}]` is empty; CLEME needs a non-empty source")
    norm = [" ".join(s.split()) for s in sources]
    hyps = [" ".join(p.split()) for p in predictions]
    refs = [[" ".join(r.split()) for r in rs] for rs in references]
    if extractor is None:
        from gecscore.common.edits import get_extractor

        extractor = get_extractor()
    pair_src = norm + [s for s, rs in zip(norm, refs) for _ in rs]
    pair_trg = hyps + [r for rs in refs for r in rs]
    edits = extractor.extract(pair_src, pair_trg, keep_unk=True, progress=progress)
    hyp_edits, ref_edits = edits[:n], iter(edits[n:])
    samples = []
    for source, hyp, h_edits, rs in zip(norm, hyps, hyp_edits, refs):
        targets = [Target(r, tuple(next(ref_edits))) for r in rs]
        samples.append(_sample(source, Target(hyp, tuple(h_edits)), targets))
    return samples
