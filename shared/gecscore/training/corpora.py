"""Parallel training data: (source, target) pairs of whitespace-tokenised sentences.

Corpus specs (for the command line and `load_corpus`):

* ``parallel:SRC_FILE,TRG_FILE`` — two aligned, tokenised text files;
* ``m2:FILE[:ANNOTATOR]`` — an M2 file, the annotator's corrected sentence as target (default annotator 0);
* ``jfleg:SPLIT[:REF]`` — JFLEG `dev` or `test` under a data directory (`JFLEG/`), reference 0–3 (default 0);
* ``cweb:DOMAIN.SPLIT[:ANNOTATOR]`` — CWEB `G` or `S`, `dev` or `test`, from its M2 files (default annotator 0).

JFLEG and CWEB are CC BY-NC-SA 4.0: models trained on them inherit the non-commercial, share-alike terms.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Iterable, Sequence

from gecscore.common.inputs import check_same_length

Pair = tuple[str, str]


def _normalise(text: str) -> str:
    return " ".join(text.split())


def read_parallel(source_file: str | Path, target_file: str | Path) -> list[Pair]:
    """Pairs from two aligned files (whitespace normalised)."""
    sources = Path(source_file).read_text(encoding="utf-8").splitlines()
    targets = Path(target_file).read_text(encoding="utf-8").splitlines()
    check_same_length(**{str(source_file): sources, str(target_file): targets})
    return [(_normalise(s), _normalise(t)) for s, t in zip(sources, targets)]


def read_m2_pairs(path: str | Path, annotator: int = 0) -> list[Pair]:
    """Pairs (source, the annotator's correction) from an M2 file; a block without that annotator keeps its source."""
    from gecscore.common.m2io import m2_target, read_m2

    return [(_normalise(s.source), _normalise(m2_target(s, annotator))) for s in read_m2(path)]


def load_corpus(spec: str, data_dir: str | Path | None = None) -> list[Pair]:
    """Pairs named by a corpus spec (see the module docstring)."""
    kind, _, rest = spec.partition(":")
    if not rest:
        raise ValueError(f"corpus spec {spec!r} lacks ':'; expected e.g. 'jfleg:dev' or 'parallel:src.txt,trg.txt'")
    if kind == "parallel":
        files = rest.split(",")
        if len(files) != 2:
            raise ValueError(f"corpus spec {spec!r}: expected 'parallel:SRC_FILE,TRG_FILE'")
        return read_parallel(*files)
    if kind == "m2":
        path, _, annotator = rest.partition(":")
        return read_m2_pairs(path, int(annotator or 0))
    if data_dir is None:
        raise ValueError(f"corpus spec {spec!r} needs a data directory (the one holding JFLEG/ and CWEB/)")
    root = Path(data_dir)
    if kind == "jfleg":
        split, _, ref = rest.partition(":")
        if split not in ("dev", "test") or ref not in ("", "0", "1", "2", "3"):
            raise ValueError(f"corpus spec {spec!r}: expected 'jfleg:dev|test[:0-3]'")
        base = root / "JFLEG" / split / split
        return read_parallel(f"{base}.src", f"{base}.ref{ref or 0}")
    if kind == "cweb":
        name, _, annotator = rest.partition(":")
        domain, _, split = name.partition(".")
        if domain not in ("G", "S") or split not in ("dev", "test") or annotator not in ("", "0", "1"):
            raise ValueError(f"corpus spec {spec!r}: expected 'cweb:G|S.dev|test[:0|1]'")
        return read_m2_pairs(root / "CWEB" / "data" / "m2" / f"CWEB-{domain}.{split}.m2", int(annotator or 0))
    raise ValueError(f"unknown corpus kind {kind!r} in {spec!r}; expected parallel, m2, jfleg or cweb")


def load_corpora(specs: Iterable[str], data_dir: str | Path | None = None) -> list[Pair]:
    """The concatenation of several corpus specs."""
    return [pair for spec in specs for pair in load_corpus(spec, data_dir)]


def subsample(pairs: Sequence[Pair], *, max_unchanged: int | None = None, max_pairs: int | None = None,
              seed: int = 1) -> list[Pair]:
    """Keep every changed pair and at most `max_unchanged` unchanged ones, then at most `max_pairs` (seeded)."""
    rng = random.Random(seed)
    changed = [p for p in pairs if p[0].split() != p[1].split()]
    unchanged = [p for p in pairs if p[0].split() == p[1].split()]
    if max_unchanged is not None and len(unchanged) > max_unchanged:
        unchanged = rng.sample(unchanged, max_unchanged)
    kept = changed + unchanged
    rng.shuffle(kept)
    return kept if max_pairs is None else kept[:max_pairs]


def overlap(pairs: Sequence[Pair], sentences: Iterable[str]) -> int:
    """How many pairs have a source among `sentences` (whitespace normalised): a guard against test leakage."""
    banned = {_normalise(s) for s in sentences}
    return sum(1 for source, _ in pairs if source in banned)
