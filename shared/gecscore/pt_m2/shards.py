"""PT-M2, M², PT-ERRANT and their sentence variants in shards (`gecscore.common.shards`)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from gecscore.common.errant_scoring import FScore, total
from gecscore.common.error_types import chosen_type_table, from_lists
from gecscore.common.results import MetricResult, sentence_core
from gecscore.pt_m2 import lattice

PER_SENTENCE_DETAILS = ("edits",)


def needs(name: str, resolved: Mapping[str, Any], references: Sequence[Any] | None) -> dict[str, str]:
    """M² and SentM²: the edit records, which carry the annotator id of every candidate."""
    if resolved["variant"] in ("m2", "sentm2") and not resolved["return_edits"]:
        return {"return_edits": "edits"}
    return {}


def refusal(name: str, resolved: Mapping[str, Any], result: MetricResult) -> str | None:
    """Every shard merges exactly."""
    return None


def merge(name: str, resolved: Mapping[str, Any], result: MetricResult) -> None:
    """M²: greedy annotators (`m2_greedy`); PT-ERRANT: greedy references on the exact per-type counts; the sentence
    variants: means of the sentence values. A sentence's chosen candidate and P/R/F follow the corpus choice."""
    variant, beta = resolved["variant"], resolved["beta"]
    f_key = f"f{beta:g}"
    who = "annotator" if variant in ("m2", "sentm2") else "reference"
    records = result.sentences
    edits = result.details.get("edits")
    ids = ([[c[who] for c in e["candidates"]] for e in edits] if edits is not None
           else [list(range(len(s["counts"]))) for s in records])
    if variant in ("m2", "errant"):
        if variant == "m2":
            chosen, totals = result.statistic.choose()  # type: ignore[attr-defined]
            p, r, f = lattice.prf(lattice.M2Counts(*(float(x) for x in totals)), beta)
            sentence_prf = [lattice.prf(lattice.M2Counts(*s["counts"][k]), beta) for s, k in zip(records, chosen)]
        else:  # the metric's own counts, summed over types (the statistic holds (TP, TP+FP, TP+FN))
            fscore = FScore(beta, "errant")
            per_sentence = [[total(from_lists(t).values()) for t in s["types"]] for s in records]
            aggregate = fscore.aggregate(per_sentence)
            chosen = aggregate.corpus_refs
            p, r, f = fscore.prf(aggregate.corpus)
            sentence_prf = [fscore.prf(counts[k]) for counts, k in zip(per_sentence, chosen)]
        for i, (record, k, (sp, sr, sf)) in enumerate(zip(records, chosen, sentence_prf)):
            record.update({**sentence_core(sf, k, record["per_reference"]), f_key: sf, "precision": sp, "recall": sr,
                           who: ids[i][k]})
            if edits is not None:
                candidate = edits[i]["candidates"][k]
                edits[i].update({who: ids[i][k], "precision": sp, "recall": sr, "f": sf,
                                 **{key: candidate[key] for key in ("correct", "proposed", "gold")}})
    else:
        n = len(records)
        p, r, f = (sum(s[key] for s in records) / n for key in ("precision", "recall", f_key))
        chosen = [row.index(s[who]) for s, row in zip(records, ids)]
    result.scores = {"precision": p, "recall": r, f_key: f, "score": f}
    result.sentence_output = [s[f_key] for s in records]
    if "types" in result.details:
        result.details["types"] = chosen_type_table([s["types"][k] for s, k in zip(records, chosen)],
                                                    resolved["return_types"], FScore(beta, "errant"), f_key)
