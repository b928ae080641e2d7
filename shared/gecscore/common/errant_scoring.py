"""ERRANT-family scoring: (weighted) TP/FP/FN counts, F_β, best reference per sentence and per corpus.

The greedy corpus rule is implemented once, in numpy (`errant_greedy`): `FScore.aggregate` runs it on the corpus as
given, the bootstrap on resamples.

The per-sentence, per-reference `Counts` are the sufficient statistics of every metric of the family
(ERRANT, PT-ERRANT, UOT-ERRANT): sentence scores, the corpus score and the choice of references all come
from them. Conventions follow gec-metrics (`docs/reference-behaviour.md`, sections "Common conventions" and
"UOT-ERRANT"):

* references are compared on the list `(F, TP, -FP, -FN)` (lexicographic, strict `<`: the first reference
  wins ties);
* a sentence keeps its best reference on its own counts; the corpus adds, sentence by sentence, the reference
  whose counts maximise the running total plus that reference (ERRANT's greedy accumulation);
* the zero-division rule differs per metric: `"errant"` gives P = 1 when FP == 0 (R = 1 when FN == 0),
  `"denominator"` gives P = 1 when TP + FP == 0 (R = 1 when TP + FN == 0), as UOT-ERRANT does; both are
  conventions of `gecscore.common.fbeta`, where the formulas live.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, NamedTuple, Sequence

import numpy as np

from gecscore.common.bootstrap import GreedyReferences, first_best_of
from gecscore.common.edits import Edit
from gecscore.common.fbeta import f_beta, prf

ZeroDivision = Literal["errant", "denominator", "zero"]
#: The conventions of `gecscore.common.fbeta` that score TP/FP/FN counts.
ZERO_DIVISION_RULES: tuple[str, ...] = ("errant", "denominator", "zero")


@dataclass(frozen=True)
class Counts:
    """True positives, false positives and false negatives (floats: they may be weighted or transported mass)."""

    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0

    def __add__(self, other: Counts) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def as_dict(self) -> dict[str, float]:
        """`{"tp", "fp", "fn"}` (a sentence record's statistics)."""
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn}


class PRF(NamedTuple):
    """Precision, recall and F_β."""

    p: float
    r: float
    f: float


def total(counts: Iterable[Counts]) -> Counts:
    """Sum of counts in the given order (gec-metrics adds the per-type counts in insertion order)."""
    out = Counts()
    for c in counts:
        out = out + c
    return out


@dataclass(frozen=True)
class FScore:
    """F_β with one zero-division rule; compares and aggregates `Counts` the way gec-metrics does."""

    beta: float = 0.5
    zero_division: ZeroDivision = "errant"
    #: Round F to this many decimals before references are compared (`errant_compare` rounds to 4; None: exact).
    decimals: int | None = None

    def __post_init__(self) -> None:
        if self.zero_division not in ZERO_DIVISION_RULES:
            raise ValueError(f"`zero_division` must be one of {ZERO_DIVISION_RULES}, got {self.zero_division!r}")
        if not isinstance(self.beta, (int, float)) or isinstance(self.beta, bool) or not self.beta >= 0:
            raise ValueError(f"`beta` must be a number >= 0, got {self.beta!r}")

    def precision(self, c: Counts) -> float:
        """TP / (TP + FP), with this rule's value 1.0 on zero division."""
        return self.prf(c).p

    def recall(self, c: Counts) -> float:
        """TP / (TP + FN), with this rule's value 1.0 on zero division."""
        return self.prf(c).r

    def f_from(self, p: float, r: float) -> float:
        """(1+β²)PR / (β²P + R); 0.0 when P + R == 0 (and 1.0 if only the denominator vanishes, as UOT-ERRANT)."""
        return f_beta(p, r, self.beta, self.zero_division)

    def prf(self, c: Counts) -> PRF:
        """Precision, recall and F_β of `c`."""
        return PRF(*prf(c.tp, c.fp, c.fn, self.beta, self.zero_division))

    def key(self, c: Counts) -> tuple[float, float, float, float]:
        """Comparison key `(F, TP, -FP, -FN)`: a larger key is a better reference (F rounded with `decimals`)."""
        f = self.prf(c).f
        return (f if self.decimals is None else round(float(f), self.decimals), c.tp, -c.fp, -c.fn)

    def best_reference(self, per_ref: Sequence[Counts], offset: Counts | None = None) -> int:
        """Index of the best reference (strictly greater key replaces; the first wins ties).

        With `offset` (a running corpus total) the references are compared on `offset + counts`.
        """
        if not per_ref:
            raise ValueError("`per_ref` is empty; every sentence needs at least one reference")
        return first_best_of([self.key(counts if offset is None else offset + counts) for counts in per_ref])

    def aggregate(self, per_sentence: Sequence[Sequence[Counts]]) -> Aggregate:
        """Sentence-level best references and the greedy corpus-level choice and total (`errant_greedy`, the one
        implementation of the corpus rule, also used for resampling)."""
        sentence_refs = [self.best_reference(refs) for refs in per_sentence]
        corpus_refs, totals = errant_greedy(per_sentence, self).choose() if per_sentence else ([], np.zeros(3))
        return Aggregate(
            sentence_refs=sentence_refs,
            sentence_counts=[refs[i] for refs, i in zip(per_sentence, sentence_refs)],
            corpus_refs=corpus_refs,
            corpus=Counts(*(float(x) for x in totals)),
        )


@dataclass(frozen=True)
class Aggregate:
    """Best references per sentence (sentence level), the greedy corpus choice and the corpus total."""

    sentence_refs: list[int]
    sentence_counts: list[Counts]
    corpus_refs: list[int]
    corpus: Counts


# ---------------------------------------------------------------------------------------------------
# The corpus rule over per-sentence counts, vectorised over resamples (`gecscore.common.bootstrap`)


def errant_prf(counts: np.ndarray, rule: FScore) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and F_β of `(..., 3)` arrays of TP, FP, FN under `rule`."""
    return prf(counts[..., 0], counts[..., 1], counts[..., 2], rule.beta, rule.zero_division)


_ROUND = np.frompyfunc(lambda x, decimals: round(float(x), decimals), 2, 1)  # numpy's own round differs


def errant_greedy(per_sentence: Sequence[Sequence[Counts]], rule: FScore) -> GreedyReferences:
    """Corpus F_β with ERRANT's greedy reference accumulation (`FScore.aggregate`) on resamples."""
    def key(running: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, ...]:
        local = running + candidates
        f = errant_prf(local, rule)[2]
        if rule.decimals is not None:  # Python's exact decimal rounding, as errant_compare's `round(f, 4)`
            f = _ROUND(f, rule.decimals).astype(float)
        return f, local[..., 0], -local[..., 1], -local[..., 2]

    return GreedyReferences([[(c.tp, c.fp, c.fn) for c in refs] for refs in per_sentence], key,
                            lambda totals: errant_prf(totals, rule)[2])


# ---------------------------------------------------------------------------------------------------
# Plain ERRANT edit matching


def typed_edit_counts(hyp_edits: Sequence[Edit], ref_edits: Sequence[Edit]) -> dict[str, Counts]:
    """ERRANT counts per error type: a hypothesis edit whose key is among the reference keys is a TP (else FP)
    under its own type; a reference edit whose key no hypothesis edit has is a FN under the reference type.

    Every occurrence counts (duplicated edits count twice); dict order = first appearance, hypothesis first.
    """
    ref_keys = {e.key for e in ref_edits}
    hyp_keys = {e.key for e in hyp_edits}
    by_type: dict[str, Counts] = {}
    for e in hyp_edits:
        hit = e.key in ref_keys
        by_type[e.type] = by_type.get(e.type, Counts()) + Counts(tp=float(hit), fp=float(not hit))
    for e in ref_edits:
        if e.key not in hyp_keys:
            by_type[e.type] = by_type.get(e.type, Counts()) + Counts(fn=1.0)
    return by_type


def edit_counts(hyp_edits: Sequence[Edit], ref_edits: Sequence[Edit]) -> Counts:
    """ERRANT TP/FP/FN of one sentence against one reference (summed over error types)."""
    return total(typed_edit_counts(hyp_edits, ref_edits).values())


def errant_counts(hyp_edits: Sequence[Sequence[Edit]], ref_edits: Sequence[Sequence[Sequence[Edit]]]
                  ) -> list[list[Counts]]:
    """Per-sentence, per-reference ERRANT counts; `ref_edits[i][r]` are the edits of reference r of sentence i."""
    if len(hyp_edits) != len(ref_edits):
        raise ValueError(f"`hyp_edits` has {len(hyp_edits)} sentences but `ref_edits` has {len(ref_edits)}")
    return [[edit_counts(hyp, ref) for ref in refs] for hyp, refs in zip(hyp_edits, ref_edits)]

