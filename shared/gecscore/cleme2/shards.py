"""CLEME2.0 and CLEME in shards (`gecscore.common.shards`): corpus level re-chooses references over all sentences,
sentence level takes the means; length weights and robust noise weights depend on the whole corpus and refuse."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from gecscore.cleme2 import metric as cleme
from gecscore.cleme2.metric import ChunkCounts, ClemeConfig, count_chunks
from gecscore.common.degenerate import NOISE_WEIGHTS
from gecscore.common.results import MetricResult, sentence_core
from gecscore.common.shards import NotShardableError

PER_SENTENCE_DETAILS = ("chunks",)


def _config(resolved: Mapping[str, Any]) -> ClemeConfig:
    return ClemeConfig(**{k: resolved[k] for k in ("variant", "level", "assumption", "weighting", "alpha", "beta",
                                                   "release", "model", "layer", "tokenize", "robust")})


def needs(name: str, resolved: Mapping[str, Any], references: Sequence[Any] | None) -> dict[str, str]:
    """Corpus level with several references: the chunk tables, to rebuild a re-chosen reference's entry."""
    config = _config(resolved)
    if config.weighting == "length":
        raise NotShardableError(f"{name}: weighting='length' weighs every chunk by the corpus-wide mean chunk "
                                "length, which no shard knows; use weighting='none', 'similarity' or 'llm', or "
                                "score unsharded")
    several = references is None or any(not isinstance(r, str) and len(list(r)) > 1 for r in references)
    if config.level == "corpus" and several and not resolved["return_chunks"]:
        return {"return_chunks": "chunks"}
    return {}


def refusal(name: str, resolved: Mapping[str, Any], result: MetricResult) -> str | None:
    """Robust mode gives float-noise weights the corpus-wide mean chunk weight, which no shard knows."""
    if resolved["robust"] and any(r["reason"] == NOISE_WEIGHTS
                                  for r in result.details.get("degenerate_sentences", ())):
        return (f"{name}: robust=True gave chunks with float-noise weights the corpus-wide mean chunk weight, "
                "which no shard knows; score unsharded, or with robust=False")
    return None


def merge(name: str, resolved: Mapping[str, Any], result: MetricResult) -> None:
    """Corpus level: the greedy reference choice over all sentences (a re-chosen sentence's entry rebuilt from its
    chunk table); sentence level: the means of the sentence values."""
    config = _config(resolved)
    scorer = config.scorer
    entries = result.sentences
    names = cleme._HEUO_NAMES if config.variant == "cleme2" else cleme._PRF_NAMES

    def counts_of(named: Mapping[str, float]) -> ChunkCounts:
        return ChunkCounts(**{cleme._FIELD_NAMES[k]: v for k, v in named.items()})

    if config.level == "corpus":
        per_ref = _per_reference(result.statistic, ChunkCounts)
        level = scorer.corpus(per_ref)
        chunks = result.details.get("chunks")
        for i, (entry, k) in enumerate(zip(entries, level.chosen)):
            if len(per_ref[i]) == 1:
                continue
            if chunks is None:
                raise NotShardableError(f"{name}: several references but no chunk tables to "
                                        "re-choose from")
            table = chunks[i]
            if entry["ref"] == table["reference_ids"][k]:
                continue
            labels = [row["labels"][k] for row in table["chunks"]]
            weighted = count_chunks(labels, [row["weights"][k] for row in table["chunks"]])
            if weighted != per_ref[i][k]:
                raise NotShardableError(f"{name}: the chunk table of sentence {i} does not give its "
                                        "counts")
            values = cleme._named(config, scorer.indicators(weighted))
            entries[i] = {**sentence_core(values["score"], k, entry["per_reference"]), "ref": table["reference_ids"][k],
                          **values, "counts": cleme._counts(weighted),
                          "unweighted_counts": cleme._counts(count_chunks(labels))}
        values, weighted_total = level.values, level.total
    else:
        per = [{key: entry[named] for key, named in names.items()} for entry in entries]
        values = scorer.round_means({key: float(np.mean([v[key] for v in per])) for key in scorer.MEANS})
        weighted_total = cleme._sum([counts_of(entry["counts"]) for entry in entries])
    unweighted_total = cleme._sum([counts_of(entry["unweighted_counts"]) for entry in entries])
    result.scores = cleme._named(config, values)
    result.details["counts"] = cleme._counts(weighted_total)
    result.details["unweighted_counts"] = cleme._counts(unweighted_total)


def _per_reference(statistic: Any, kind: Callable[..., Any]) -> list[list[Any]]:
    """Every sentence's per-reference counts held by a greedy statistic (exact: float64 of the counts) or an
    `Aggregate` over them."""
    if hasattr(statistic, "items"):
        return [list(refs) for refs in statistic.items]
    return [[kind(*(float(x) for x in row)) for row, ok in zip(refs, valid) if ok]
            for refs, valid in zip(statistic.counts, statistic.valid)]
