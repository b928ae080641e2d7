"""GoToScorer's difficulty weights: estimated from many systems' outputs, or read from / written to gec-metrics'
weight file (the JSON `gecmetrics-gen-gotoscorer-weight` writes: per sentence, `evaluations` (chunk × system, 0/1)
and `weights`, one per reference chunk).

A chunk's weight is 1 − the share of systems that got it right, so a chunk every system corrects weighs nothing and
one no system corrects weighs 1. By default "right" is gec-metrics 0.1.1's test, kept exactly: some chunk of the
system's chunk sequence has the reference chunk's correction string, wherever it is (its span comparison compares
the reference chunk with itself). Kept tokens and insertion slots are therefore almost always "right" and weigh 0.
Under the original GoToScorer's rules (`rules='gts'`, gotutiyan/GTS 1.1 with its default a = 1, b = 0, c = 0 in
a − (n + b) / (N + c)) a system is right on a chunk as its score judges it: the same span and correction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from gecscore.gotoscorer.chunks import Chunk, judge_gts


def evaluations(reference: Sequence[Chunk], systems: Sequence[Sequence[Chunk]], rules: str = "gec-metrics"
                ) -> list[list[int]]:
    """Per reference chunk, per system: 1 when the system got the chunk right. gec-metrics: one of the system's
    chunks has the chunk's correction string, wherever it is; the original GoToScorer (`rules='gts'`): the system
    gets it right as its score judges it (`chunks.judge_gts`: the same span and correction)."""
    if rules == "gts":
        return [[int(judge_gts(chunk, chunks)[0]) for chunks in systems] for chunk in reference]
    corrections = [{chunk.c_str for chunk in chunks} for chunks in systems]
    return [[int(chunk.c_str in found) for found in corrections] for chunk in reference]


def difficulty(evaluated: Sequence[Sequence[int]]) -> list[float]:
    """Each chunk's weight: 1 − (systems right) / (systems), in gec-metrics' float operations."""
    return [1 - sum(row) / len(row) for row in evaluated]


def write_weight_file(path: str | Path, evaluated: Sequence[Sequence[Sequence[int]]],
                      weights: Sequence[Sequence[float]]) -> None:
    """gec-metrics' weight file: the same JSON, byte for byte, that its generator writes for these values."""
    data = [{"evaluations": [list(row) for row in e], "weights": list(w)} for e, w in zip(evaluated, weights)]
    with open(path, "w") as fp:
        json.dump(data, fp, indent=2)


def read_weight_file(path: str | Path, chunk_counts: Sequence[int]) -> list[list[float]]:
    """The weights of a gec-metrics weight file, checked against the corpus: one entry per sentence, one weight per
    reference chunk (`chunk_counts`); errors name the file and the sentence."""
    try:
        data: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"`weights`: {path} is not a JSON weight file ({error})") from None
    if not isinstance(data, list) or len(data) != len(chunk_counts):
        found = f"{len(data)} sentences" if isinstance(data, list) else f"a {type(data).__name__}"
        raise ValueError(f"`weights`: {path} holds {found}, the corpus has {len(chunk_counts)} (a weight file is "
                         "made for one corpus and reference)")
    out = []
    for i, (entry, count) in enumerate(zip(data, chunk_counts)):
        weights = entry.get("weights") if isinstance(entry, dict) else None
        if not isinstance(weights, list) or not all(isinstance(w, (int, float)) and not isinstance(w, bool)
                                                    for w in weights):
            raise ValueError(f"`weights`: {path}, sentence {i}: no list of numbers under 'weights'")
        if len(weights) != count:
            raise ValueError(f"`weights`: {path}, sentence {i}: {len(weights)} weights for {count} reference chunks "
                             "(was the file made with this reference and `ref_id`?)")
        out.append([float(w) for w in weights])
    return out
