"""The one result protocol: what every metric's runner returns and every entry point reads.

A `MetricResult` holds one system's corpus scalars, one record per sentence (its score, the reference it was
scored against and its sufficient statistics), the corpus statistic that re-applies the metric's corpus rule to
any resample of those sentences (`gecscore.common.bootstrap`), non-scalar details and the signature. The evaluate
modules return `as_dict(...)`; the CLI, bootstrap, the Trainer hook and the meta-evaluation read the same object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gecscore.common.bootstrap import CorpusStatistic


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


@dataclass
class MetricResult:
    """One system's result: scalars, the headline key, sentence records, corpus statistic, details, signature.

    `sentence_output` is what the metric's evaluate module returns under `sentence_key` when per-sentence scores
    are asked for (each module keeps the shape its card documents).
    """

    metric: str
    scores: dict[str, float]
    main: str
    sentences: list[dict[str, Any]]
    statistic: CorpusStatistic = field(repr=False)
    signature: str
    details: dict[str, Any] = field(default_factory=dict)
    sentence_key: str = "sentence_scores"
    sentence_output: list[Any] | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        """Number of sentences."""
        return len(self.sentences)

    @property
    def score(self) -> float:
        """The headline corpus score."""
        return self.scores[self.main]

    def sentence_scores(self) -> list[float]:
        """The headline score of every sentence."""
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
