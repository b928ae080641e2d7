"""Plain ERRANT with `convention='errant_compare'`: ERRANT's official scorer on sentences or on M2 files.

From sentences, the edits are extracted as `errant_parallel` writes them (`UNK` edits kept for detection; a
reference equal to its source is a `noop` line of its coder, one that differs yet yields no edit has no line), then
scored by `gecscore.common.errant_compare`. From M2 files (`hyp_m2`, `ref_m2`) no parser runs at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from gecscore.common import errant_compare as ec
from gecscore.common.edits import Edit
from gecscore.common.errant_scoring import errant_greedy
from gecscore.common.error_types import as_lists, type_table
from gecscore.common.m2io import read_m2_input
from gecscore.common.results import MetricResult, sentence_core


@dataclass(frozen=True)
class Output:
    """What the result carries besides the counts: F's key, the signature and the `return_types` level."""

    f_name: str
    signature: str
    levels: int


def coder_lines(source: str, target: str, edits: Sequence[Edit], coder: int) -> list[ec.CompareEdit]:
    """The `A` lines `errant_parallel` writes for one corrected sentence."""
    if " ".join(source.split()) == target.strip():
        return [ec.CompareEdit(-1, -1, ec.NOOP, ec.NOOP_EDIT_CORRECTION, coder)]
    return [ec.CompareEdit(e.o_start, e.o_end, e.type, e.c_str, coder) for e in edits]


def score_sentences(sources: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]],
                    hyp_edits: Sequence[Sequence[Edit]], ref_edits: Sequence[Sequence[Sequence[Edit]]],
                    settings: ec.CompareSettings, output: Output) -> MetricResult:
    """One system from extracted edits (`UNK` included)."""
    hyp = [coder_lines(s, h, e, 0) for s, h, e in zip(sources, predictions, hyp_edits)]
    ref = [[line for r, (text, e) in enumerate(zip(refs, edits)) for line in coder_lines(s, text, e, r)]
           for s, refs, edits in zip(sources, references, ref_edits)]
    return result(ec.score_corpus(hyp, ref, settings), output)


def score_m2(hyp_m2: Any, ref_m2: Any, settings: ec.CompareSettings, output: Output) -> MetricResult:
    """One system from a hypothesis M2 and a reference M2, as `errant_compare -hyp HYP -ref REF`."""
    hyp, ref = read_m2_input(hyp_m2, "hyp_m2"), read_m2_input(ref_m2, "ref_m2")
    if hyp is None or ref is None:
        raise ValueError("give both `hyp_m2` and `ref_m2`")
    if len(hyp) != len(ref):
        raise ValueError(f"`hyp_m2` has {len(hyp)} sentences but `ref_m2` has {len(ref)}")
    for i, (h, r) in enumerate(zip(hyp, ref)):
        if h.source.split() != r.source.split():
            raise ValueError(f"`hyp_m2` sentence {i} (S line) differs from `ref_m2` sentence {i}: "
                             f"{h.source[:60]!r} vs {r.source[:60]!r}")
    return result(ec.score_corpus([ec.from_m2(b) for b in hyp], [ec.from_m2(b) for b in ref], settings), output)


def result(scored: ec.CompareResult, output: Output) -> MetricResult:
    """The one result protocol: corpus P/R/F and counts, per-sentence records with every coder pair's counts."""
    rule, f_name = scored.settings.rule, output.f_name
    sentences = []
    for cands, corpus_k in zip(scored.sentences, scored.chosen):
        per_ref = [c.counts for c in cands]
        k = rule.best_reference(per_ref)
        p, r, f = rule.prf(per_ref[k])
        sentences.append({
            **sentence_core(f, k, [x.as_dict() for x in per_ref]),
            "precision": p, "recall": r, f_name: f, "tp": per_ref[k].tp, "fp": per_ref[k].fp, "fn": per_ref[k].fn,
            "chosen_ref": cands[k].ref_coder, "corpus_ref": cands[corpus_k].ref_coder,
            "coders": [[c.hyp_coder, c.ref_coder] for c in cands], "per_ref": [[x.tp, x.fp, x.fn] for x in per_ref],
            "types": as_lists(cands[k].types), "per_ref_types": [as_lists(c.types) for c in cands],
        })
    p, r, f = rule.prf(scored.counts)
    scores = {"precision": p, "recall": r, f_name: f, "tp": scored.counts.tp, "fp": scored.counts.fp,
              "fn": scored.counts.fn}
    details: dict[str, Any] = {"degenerate_sentences": []}
    if output.levels:
        details["types"] = type_table(scored.types, output.levels, rule, f_name)
    statistic = errant_greedy([[c.counts for c in cands] for cands in scored.sentences], rule)
    return MetricResult("uot_errant", scores, f_name, sentences, statistic, output.signature, details)
