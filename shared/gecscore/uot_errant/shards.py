"""UOT-ERRANT and ERRANT in shards (`gecscore.common.shards`): the greedy corpus references over all sentences."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from gecscore.common.errant_scoring import Counts
from gecscore.common.error_types import chosen_type_table
from gecscore.common.results import MetricResult
from gecscore.uot_errant import SPEC

PER_SENTENCE_DETAILS = ("alignments",)


def needs(name: str, resolved: Mapping[str, Any], references: Sequence[Any] | None) -> dict[str, str]:
    """Nothing beyond the sentence records: they hold every reference's counts and per-type counts."""
    return {}


def refusal(name: str, resolved: Mapping[str, Any], result: MetricResult) -> str | None:
    """Every shard merges exactly."""
    return None


def merge(name: str, resolved: Mapping[str, Any], result: MetricResult) -> None:
    """Greedy corpus references over all sentences (`errant_greedy`); errant_compare's `corpus_ref` follows."""
    from gecscore.uot_errant.metric import UOTConfig

    config = UOTConfig(**{k: v for k, v in resolved.items() if k in SPEC.names("setting")})
    compare = config.variant == "errant" and config.convention == "errant_compare"
    rule = config.compare_settings.rule if compare else config.rule
    chosen, totals = result.statistic.choose()  # type: ignore[attr-defined]
    counts = Counts(*(float(x) for x in totals))
    p, r, f = rule.prf(counts)
    result.scores = {"precision": p, "recall": r, config.f_name: f, "tp": counts.tp, "fp": counts.fp,
                     "fn": counts.fn}
    if compare:
        for record, k in zip(result.sentences, chosen):
            record["corpus_ref"] = record["coders"][k][1]
    if "types" in result.details:
        result.details["types"] = chosen_type_table([s["per_ref_types"][k] for s, k in zip(result.sentences, chosen)],
                                                    resolved["return_types"], rule, config.f_name)
