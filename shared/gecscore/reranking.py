"""N-best reranking and minimum Bayes risk (MBR) decoding with our metrics: `gecscore.rerank`.

`rerank(sources, candidates, references=None, metric=..., method=...)` picks one candidate per source:

* `method="reference_free"`: the candidate a reference-free metric (IMPARA-GED, SOME, Scribendi, LLM-S/E) scores
  highest;
* `method="mbr"`: the candidate of highest expected utility against the others: with K candidates, utility
  U[j, k] is candidate j's sentence score with candidate k as its one reference, and candidate j's expected utility
  is the mean of U[j, k] over the other candidates k (each candidate a pseudo-reference of equal weight, as in
  sampling-based MBR; duplicates count as often as they occur);
* `method="reference"`: the candidate the metric scores highest against the given references (an oracle choice:
  the upper bound of a reranker).

Values are the metric's sentence scores mapped onto [0, 1] (`gecscore.sentence_scorer`), robust by default (a
candidate equal to its pseudo-reference scores 1), ties go to the earlier candidate. Every pair of a source is
scored in one batch: each candidate's ERRANT edits and encoder outputs are computed once and reused by every pair
that holds it (the process's caches), and identical pairs are scored once. A candidate nobody could score (a
control character, invalid Unicode, too long) gets value 0, never serves as a pseudo-reference and is listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from gecscore import registry
from gecscore.common.validation import check_references, check_texts
from gecscore.sentence_scorer import SentenceScorer, options_with

__all__ = ["METHODS", "RERANK_DEFAULTS", "RerankResult", "rerank"]

METHODS = ("reference_free", "mbr", "reference")
#: What reranking sets unless the user does: decoding must not prefer a degenerate candidate.
RERANK_DEFAULTS = {"robust": True}


@dataclass
class RerankResult:
    """The choice per source (`choice`: candidate index, `chosen`: its text), every candidate's value (`scores`:
    its score, expected utility or score against the references, in [0, 1]; None for a candidate of a single-
    candidate source under MBR), the MBR utility matrices (`utility[i][j][k]`, NaN on the diagonal and for refused
    candidates), the degenerate records (`source`, `candidate`, `reason`, ...) and the metric's signature."""

    method: str
    choice: list[int]
    chosen: list[str]
    scores: list[list[float | None]]
    utility: list[np.ndarray] | None
    signature: str
    degenerate: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain data (the CLI's JSON)."""
        return {"method": self.method, "choice": self.choice, "chosen": self.chosen, "scores": self.scores,
                "utility": None if self.utility is None else
                [[[None if np.isnan(v) else float(v) for v in row] for row in matrix] for matrix in self.utility],
                "degenerate": self.degenerate, "signature": self.signature}


def rerank(sources: Sequence[str], candidates: Sequence[Sequence[str]], references: Sequence[Any] | None = None,
           *, metric: str, method: str = "mbr", **options: Any) -> RerankResult:
    """One candidate per source by `method` (see the module docstring) with `metric` and its `options`."""
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {list(METHODS)}, got {method!r}")
    spec = registry.spec(metric)
    if method == "reference_free" and not spec.reference_free:
        raise ValueError(f"method='reference_free' needs a reference-free metric; {metric} needs references "
                         "(use method='mbr', or 'reference' with references)")
    if method != "reference_free" and spec.reference_free:
        raise ValueError(f"{metric} is reference-free: use method='reference_free'")
    if method == "reference" and references is None:
        raise ValueError("method='reference' needs `references`")
    if method != "reference" and references is not None:
        raise ValueError(f"method={method!r} takes no `references` (method='reference' scores against them)")
    sources, candidates = _check(sources, candidates)
    refs = None if references is None else check_references(references, len(sources))
    scorer = SentenceScorer(metric, lenient=True, **options_with(RERANK_DEFAULTS, metric, options))
    if method == "mbr":
        return _mbr(scorer, sources, candidates)
    rows = [(i, j) for i, group in enumerate(candidates) for j in range(len(group))]
    batch = scorer.score([sources[i] for i, _ in rows], [candidates[i][j] for i, j in rows],
                         None if refs is None else [refs[i] for i, _ in rows])
    scores: list[list[float | None]] = [[0.0] * len(group) for group in candidates]
    for (i, j), value in zip(rows, batch.values):
        scores[i][j] = value
    degenerate = [{"source": rows[r["index"]][0], "candidate": rows[r["index"]][1],
                   **{k: v for k, v in r.items() if k != "index"}} for r in batch.degenerate]
    return _result(method, candidates, scores, None, scorer, degenerate)


def _mbr(scorer: SentenceScorer, sources: list[str], candidates: list[list[str]]) -> RerankResult:
    texts = [[" ".join(c.split()) for c in group] for group in candidates]  # as the scorer reads predictions
    refused = {(i, j): why for i, group in enumerate(texts) for j, text in enumerate(group)
               if (why := scorer.refusal(sources[i], text)) is not None}
    pairs = [(i, j, k) for i, group in enumerate(texts) for j in range(len(group)) for k in range(len(group))
             if j != k and (i, j) not in refused and (i, k) not in refused]
    batch = scorer.score([sources[i] for i, _, _ in pairs], [texts[i][j] for i, j, _ in pairs],
                         [[texts[i][k]] for i, _, k in pairs])
    utility = [np.full((len(group), len(group)), np.nan) for group in texts]
    for (i, j, k), value in zip(pairs, batch.values):
        utility[i][j, k] = value
    scores: list[list[float | None]] = []
    for i, group in enumerate(texts):
        row: list[float | None] = []
        for j in range(len(group)):
            others = utility[i][j][~np.isnan(utility[i][j])]
            row.append(0.0 if (i, j) in refused else float(others.mean()) if len(others) else None)
        scores.append(row)
    degenerate = [{"source": i, "candidate": j, "reason": "refused", "why": why} for (i, j), why in refused.items()]
    degenerate += [{"source": pairs[r["index"]][0], "candidate": pairs[r["index"]][1],
                    "pseudo_reference": pairs[r["index"]][2], **{k: v for k, v in r.items() if k != "index"}}
                   for r in batch.degenerate]
    return _result("mbr", candidates, scores, utility, scorer, degenerate)


def _result(method: str, candidates: list[list[str]], scores: list[list[float | None]],
            utility: list[np.ndarray] | None, scorer: SentenceScorer, degenerate: list[dict[str, Any]]
            ) -> RerankResult:
    choice = [int(np.argmax([-np.inf if v is None else v for v in row])) for row in scores]
    degenerate.sort(key=lambda r: (r["source"], r["candidate"]))
    return RerankResult(method, choice, [group[j] for group, j in zip(candidates, choice)], scores, utility,
                        f"rerank:{method}|{scorer.signature or scorer.metric}", degenerate)


def _check(sources: Any, candidates: Any) -> tuple[list[str], list[list[str]]]:
    sources = check_texts("sources", sources)
    if isinstance(candidates, str) or not isinstance(candidates, Sequence) or len(candidates) != len(sources):
        raise ValueError(f"`candidates` must hold one list of candidates per source ({len(sources)} sources)")
    out = []
    for i, group in enumerate(candidates):
        if isinstance(group, str) or not isinstance(group, Sequence) or not group:
            raise ValueError(f"`candidates[{i}]` must be a non-empty list of strings")
        out.append(check_texts(f"candidates[{i}]", group))
    return sources, out
