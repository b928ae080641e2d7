"""BERTScore as gec-metrics 0.1.1's `bertscore` computes it: each hypothesis against its references, the mean of
the sentence scores.

A sentence's score is one measure (`score_type`: P, R or F) of BERTScore against the best of its references for
that measure, rescaled with bert_score's baseline by default, as bert_score's multi-reference `score` gives it; the
corpus score is the mean over sentences. The sources are not read (gec-metrics' metric is source-free); the input
layer still checks them. Every number comes from the shared core, `gecscore.common.bertscore`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.bertscore import SPEC
from gecscore.common.bertscore import BERTScorer
from gecscore.common.bootstrap import SentenceMean
from gecscore.common.inputs import check_references, check_same_length, check_texts
from gecscore.common.results import MetricResult, TRUNCATED, flag, merge, sentence_core, truncated
from gecscore.common.signature import make_signature
from gecscore.common.statistics import Statistics

#: Where each measure sits in a row of per-reference values.
MEASURES = {"p": 0, "r": 1, "f": 2}


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class BERTScoreStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, a (references, 3) array of P, R, F
    against each reference, and the first reference the prediction equals (−1: none), which robust mode scores
    1."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("values", "perfect")

    values: tuple[np.ndarray, ...]
    perfect: tuple[int, ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now, without loading weights, the error a run with `options` would raise loading its encoder (the
    Trainer hook asks every metric when it is built)."""
    from gecscore.common.encoders import check_loadable

    check_loadable(SPEC.resolve(options)["model"])


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                       references: Sequence[Any] | None = None, *, progress: bool = False,
                       **options: Any) -> dict[str, BERTScoreStatistics]:
    """Every system's P, R, F against every reference (each unique text embedded once, through the encoder
    cache); texts longer than the encoder's window are truncated, as bert_score does, and flagged."""
    opts = SPEC.resolve(options)
    sources = check_texts("sources", sources)
    groups = check_references(references, len(sources))
    systems = {name: check_texts("predictions", texts) for name, texts in systems.items()}
    for texts in systems.values():
        check_same_length(sources=sources, predictions=texts)
    if opts["tokenize"]:
        from gecscore.common.inputs import spacy_tokenize

        flat = iter(spacy_tokenize([r for g in groups for r in g]))
        groups = [[next(flat) for _ in g] for g in groups]
        systems = {name: spacy_tokenize(texts) for name, texts in systems.items()}
    scorer = scorer_for(opts)
    signature = make_signature("bertscore", settings_of(scorer, opts))
    long_references = reference_flags(scorer, groups)
    out = {}
    for name, predictions in systems.items():
        flags = truncated(scorer.token_lengths(predictions), scorer.window, text="prediction")
        out[name] = BERTScoreStatistics(
            settings=opts, signature=signature, degenerate=tuple(merge(flags, long_references)),
            values=tuple(scorer.score_each(predictions, groups, idf=opts["idf"])),
            perfect=tuple(next((k for k, r in enumerate(g) if r == h), -1) for h, g in zip(predictions, groups)))
    return out


def score(stats: BERTScoreStatistics) -> MetricResult:
    """The mean over sentences of each sentence's best reference for the chosen measure; the record's
    statistics are P, R, F against that reference."""
    score_type, robust = stats.settings["score_type"], bool(stats.settings["robust"])
    sentences, scores = [], []
    for values, perfect in zip(stats.values, stats.perfect):
        chosen = sentence_values(values, score_type, perfect, robust)
        best = int(np.argmax(chosen))
        per_reference = [dict(zip(SPEC.statistics, map(float, row))) for row in values]
        record = sentence_core(float(chosen[best]), best, per_reference)
        record["bertscore"] = record["score"]
        sentences.append(record)
        scores.append(record["score"])
    mean = float(np.mean(np.asarray(scores, dtype=np.float64)))
    return MetricResult("bertscore", {"bertscore": mean}, "bertscore", sentences, SentenceMean(scores),
                        stats.signature, {"degenerate_sentences": [dict(d) for d in stats.degenerate]},
                        sentence_output=scores)


# ---------------------------------------------------------------------------------------------------
# Helpers


def sentence_values(values: np.ndarray, score_type: str, perfect: int, robust: bool) -> np.ndarray:
    """The chosen measure against each reference; in robust mode a perfect correction's reference scores 1."""
    chosen = np.array(values[:, MEASURES[score_type]], dtype=np.float64)
    if robust and perfect >= 0:
        chosen[perfect] = 1.0
    return chosen


def scorer_for(opts: Mapping[str, Any]) -> BERTScorer:
    """The shared BERTScore core with the run's model, layer and baseline."""
    return BERTScorer(opts["model"], layer=opts["layer"], rescale_with_baseline=opts["rescale_with_baseline"],
                      baseline=opts["baseline_path"], device=opts["device"], batch_size=opts["batch_size"])


def settings_of(scorer: BERTScorer, opts: Mapping[str, Any]) -> dict[str, Any]:
    """Everything that determines the scores, in signature order."""
    rescaled = scorer.baseline is not None
    return {"model": opts["model"], "layer": scorer.layer, "score_type": opts["score_type"],
            "rescale": rescaled, "baseline": (opts["baseline_path"] or "bert_score") if rescaled else "none",
            "idf": opts["idf"], "tokenize": opts["tokenize"], "robust": opts["robust"]}


def reference_flags(scorer: BERTScorer, groups: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """TRUNCATED records of the references longer than the encoder's window (bert_score truncates them too)."""
    lengths = iter(scorer.token_lengths([r for g in groups for r in g]))
    found = [(i, k, next(lengths)) for i, g in enumerate(groups) for k in range(len(g))]
    return [flag(i, TRUNCATED, text=f"reference {k}", tokens=int(n), limit=scorer.window)
            for i, k, n in found if n > scorer.window]


