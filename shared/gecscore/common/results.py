"""The one result protocol: what every metric's runner returns and every entry point reads.

A `MetricResult` holds one system's corpus scalars, one record per sentence (its score, the reference it was
scored against and its sufficient statistics), the corpus statistic that re-applies the metric's corpus rule to
any resample of those sentences (`gecscore.common.bootstrap`), non-scalar details and the signature. The evaluate
modules return `as_dict(...)`; the CLI, bootstrap, the Trainer hook and the meta-evaluation read the same object.

**Degenerate sentences** are the ones whose score a metric computes but cannot vouch for, in one record format.

Every metric returns `degenerate_sentences`: one record per flagged (sentence, reason), `{"index": i, "reason":
REASON, ...details}`, sorted by index, and `report` emits one `DegenerateOutputWarning` per run that
summarises them, system by system. The reasons are the constants below; a metric adds details (which reference,
which edits, how many tokens).

`robust=True` means the same for every metric: scores stay in [0, 1]; an empty (or whitespace-only) prediction of
a non-empty source is scored as the unchanged source (`robust_predictions`), so it can never score above leaving
the sentence alone; edits the metric cannot see (zero-mass UOT edits, CLEME2.0 chunks whose weights are float
noise) are handled by the metric's explicit rule, which its card states; and a prediction identical to a
reference is a perfect correction, scoring exactly 1 against it with no flag on its sentence (UOT-ERRANT's plan
and CLEME2.0's empty hit otherwise score it below 1). Without `robust`, the published metric's number is returned
and the sentence is only flagged (a flag on a perfect correction says so in a `note`). Sentences that are neither
flagged nor perfect score the same in both modes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from gecscore.common.bootstrap import CorpusStatistic
from gecscore.common.caller import warn

EMPTY_PREDICTION = "empty prediction"
TRUNCATED = "truncated"
DEGENERATE_TRANSPORT = "degenerate transport"
NOISE_WEIGHTS = "float-noise weights"
ZERO_WEIGHT_EDITS = "zero-weight edits"
OVER_TRANSPORT = "over-transport"
INCONSISTENT_COUNTS = "inconsistent counts"  # more correct edits than proposed or gold ones (PT-M2, M²)
UNREADABLE_JUDGEMENT = "unreadable judgement"  # an LLM judge's answer without the scores asked for (LLM-S/E)
NOT_JUDGED = "not judged"  # a correction left out of the five an LLM judge scores together (LLM-S/E)
# Only where sentence scores are rewards or utilities (`gecscore.sentence_scorer`, lenient): model output the input
# layer or the metric would refuse, scored 0 instead of stopping a training run.
REFUSED = "refused"
CLIPPED = "clipped"  # a sentence score outside its metric's declared interval, clipped into it
NO_SCORE = "no score"  # a sentence the metric gave no finite score (None or NaN), valued 0
# ChERRANT: a reference marked 无法标注 (cannot be annotated); the scorer skips the sentence (it adds 0/0/0).
NOT_ANNOTATABLE = "not annotatable"
REASONS = (EMPTY_PREDICTION, TRUNCATED, DEGENERATE_TRANSPORT, OVER_TRANSPORT, NOISE_WEIGHTS, ZERO_WEIGHT_EDITS,
           INCONSISTENT_COUNTS, UNREADABLE_JUDGEMENT, NOT_JUDGED, REFUSED, CLIPPED, NO_SCORE, NOT_ANNOTATABLE)


class DegenerateOutputWarning(UserWarning):
    """Some sentences are degenerate for the metric (see the result's `degenerate_sentences`)."""


def flag(index: int, reason: str, **details: Any) -> dict[str, Any]:
    """One degenerate-sentence record."""
    if reason not in REASONS:
        raise AssertionError(f"unknown degenerate reason {reason!r}")
    return {"index": int(index), "reason": reason, **details}


def empty_predictions(sources: Sequence[str], predictions: Sequence[str]) -> list[dict[str, Any]]:
    """Records for predictions that are empty or whitespace while their source has text."""
    return [flag(i, EMPTY_PREDICTION) for i, (src, hyp) in enumerate(zip(sources, predictions))
            if not hyp.strip() and src.strip()]


def robust_predictions(sources: Sequence[str], predictions: Sequence[str]) -> list[str]:
    """The predictions with every empty prediction of a non-empty source replaced by its source (robust mode)."""
    return [src if not hyp.strip() and src.strip() else hyp for src, hyp in zip(sources, predictions)]


def truncated(lengths: Iterable[int], limit: int, **details: Any) -> list[dict[str, Any]]:
    """Records for the sentences whose token count (special tokens included) exceeds the encoder's `limit`."""
    return [flag(i, TRUNCATED, tokens=int(n), limit=int(limit), **details)
            for i, n in enumerate(lengths) if n > limit]


def merge(*groups: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """All records, sorted by sentence index (stable within a sentence)."""
    return sorted((r for group in groups for r in group), key=lambda r: r["index"])


def report(metric: str, records: Mapping[str, Sequence[dict[str, Any]]], *, robust: bool) -> None:
    """One warning for a run, attributed to the user's call: per reason, each system's count of flagged sentences
    and their first 0-based indices (the full lists are in each result's `degenerate_sentences`); nothing when no
    sentence is flagged. A run of one system does not name it."""
    by_reason: dict[str, dict[str, list[int]]] = {}
    for system, system_records in records.items():
        for record in system_records:
            by_reason.setdefault(record["reason"], {}).setdefault(system, []).append(record["index"])
    if not by_reason:
        return
    parts = []
    for reason, systems in by_reason.items():
        counts = []
        for system, indices in systems.items():
            distinct = sorted(set(indices))
            shown = ", ".join(map(str, distinct[:8])) + (", ..." if len(distinct) > 8 else "")
            counts.append(("" if len(records) == 1 else f"{system} ") + f"{len(distinct)} [{shown}]")
        parts.append(f"{reason}: {', '.join(counts)}")
    mode = ("robust=True handled them by the rules in the card" if robust else
            "their scores follow the published metric; pass robust=True for the card's safe rules")
    warn(f"{metric}: degenerate sentences (0-based indices) — {'; '.join(parts)}. See each result's "
         f"`degenerate_sentences`; {mode}.", DegenerateOutputWarning)


#: The keys every sentence record starts with, whatever the metric (docs/sentence-records.md).
SENTENCE_KEYS = ("score", "reference", "statistics", "per_reference")


def sentence_core(score: float, reference: int | None, per_reference: Sequence[Mapping[str, float]]
                  ) -> dict[str, Any]:
    """The common part of a sentence record: its headline score, the position of the reference (or gold annotator)
    it was scored against (None: reference-free), the metric's sufficient statistics against that reference, and
    the same statistics against every reference in order (what a corpus rule re-chooses from)."""
    return {"score": float(score), "reference": reference,
            "statistics": {} if reference is None else dict(per_reference[reference]),
            "per_reference": [dict(stats) for stats in per_reference]}


class Deferred:
    """Sentence records built when first read: a metric whose records cost more than its corpus score (GLEU's
    sentence GLEU against every reference) gives `MetricResult` `Deferred(build, n)`, and `build()` runs once,
    the first time `sentences` is read, so a call that wants the corpus score alone never builds them. `scores`:
    each record's headline score where the metric knows it without building the records (CLEME's chosen
    references), so that `sentence_scores()` builds nothing either."""

    __slots__ = ("build", "n", "scores")

    def __init__(self, build: Callable[[], list[dict[str, Any]]], n: int,
                 scores: Sequence[float] | None = None) -> None:
        if scores is not None and len(scores) != n:
            raise ValueError(f"{len(scores)} headline scores for {n} deferred records")
        self.build, self.n, self.scores = build, n, None if scores is None else tuple(scores)


class _Records:
    """`MetricResult.sentences`: the records as given, or a `Deferred`'s, built on first read and kept."""

    def __get__(self, result: Any, owner: type | None = None) -> list[dict[str, Any]]:
        if result is None:  # no class-level value: the dataclass field stays one without a default
            raise AttributeError("sentences")
        value = result.__dict__["sentences"]
        if isinstance(value, Deferred):
            value = result.__dict__["sentences"] = value.build()
        return value

    def __set__(self, result: Any, value: list[dict[str, Any]] | Deferred) -> None:
        result.__dict__["sentences"] = value


@dataclass
class MetricResult:
    """One system's result: scalars, the headline key, sentence records, corpus statistic, details, signature.

    `sentence_output` is what the metric's evaluate module returns under `sentence_key` when per-sentence scores
    are asked for (each module keeps the shape its card documents).
    """

    metric: str
    scores: dict[str, float]
    main: str
    sentences: list[dict[str, Any]] = _Records()  # type: ignore[assignment]  # given as a list or a `Deferred`
    statistic: CorpusStatistic = field(repr=False)
    signature: str
    details: dict[str, Any] = field(default_factory=dict)
    sentence_key: str = "sentence_scores"
    sentence_output: list[Any] | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        """Number of sentences (records not yet built stay so)."""
        value = self.__dict__["sentences"]
        return value.n if isinstance(value, Deferred) else len(value)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with its records built (a `Deferred`'s function may not pickle)."""
        return {**self.__dict__, "sentences": self.sentences}

    @property
    def score(self) -> float:
        """The headline corpus score."""
        return self.scores[self.main]

    def sentence_scores(self) -> list[float]:
        """The headline score of every sentence (from a `Deferred`'s scores while its records are not built)."""
        value = self.__dict__["sentences"]
        if isinstance(value, Deferred) and value.scores is not None:
            return list(value.scores)
        return [float(s[self.main]) for s in self.sentences]

    def as_dict(self, *, sentence_scores: bool = False) -> dict[str, Any]:
        """Scalars, details, per-sentence output when asked, and the signature (the evaluate module's result)."""
        out: dict[str, Any] = {**self.scores, **self.details}
        if sentence_scores:
            out[self.sentence_key] = self.sentences if self.sentence_output is None else self.sentence_output
        out["signature"] = self.signature
        return out


def split_output(out: dict[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
    """An evaluate-style result (signature and sentence entries already taken out) as its corpus scalars and the
    rest (counts tables, degenerate sentences, alignments, ...)."""
    scores = {k: float(v) for k, v in out.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return scores, {k: v for k, v in out.items() if k not in scores}


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table (floats to 4 decimals): the pages' score summaries and explanations."""
    cell = lambda value: f"{value:.4f}" if isinstance(value, float) else str(value)  # noqa: E731
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
