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

Values are the metric's sentence scores mapped onto [0, 1] (`gecscore.sentence_scorer`). Candidates are read as
the rewards read completions (`gecscore.sentence_scorer.MODEL_OUTPUT_DEFAULTS`: raw, detokenised text, spaCy-
tokenised with the sources; normalised; robust, so a candidate equal to its pseudo-reference scores 1), each
default an option the user may turn off; the signature records them. Every pair of a source is scored in one
batch: each candidate's ERRANT edits and encoder outputs are computed once and reused by every pair that holds it
(the process's caches), and identical pairs are scored once.

A candidate nobody could score (not a string, a control character, invalid Unicode, too long; or refused by the
metric) gets value 0, never serves as a pseudo-reference, is listed, and is never chosen while a scorable candidate
of its source exists. Under MBR a candidate's expected utility is over the other scorable candidates; a candidate
with none (the only scorable one) takes its utility against itself, so every value is a number. Among equal values
the earlier candidate wins. A setup mistake (options, models, untokenised sources with `tokenize=False`) is an
error before or at the call, never a batch of refusals (`gecscore.sentence_scorer`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from gecscore import registry
from gecscore.common.inputs import check_references, check_texts
from gecscore.common.results import REFUSED
from gecscore.sentence_scorer import MODEL_OUTPUT_DEFAULTS, SentenceScorer, options_with

__all__ = ["METHODS", "RERANK_DEFAULTS", "RerankResult", "check_method", "rerank"]

METHODS = ("reference_free", "mbr", "reference")
#: What reranking sets unless the user does: candidates are model output, read as the rewards read completions.
RERANK_DEFAULTS = MODEL_OUTPUT_DEFAULTS


@dataclass
class RerankResult:
    """The choice per source (`choice`: candidate index, `chosen`: its text), every candidate's value (`scores`:
    its score, expected utility or score against the references, in [0, 1]; 0 for a refused candidate), the MBR
    utility matrices (`utility[i][j][k]`, NaN on the diagonal, except for a source's only scorable candidate,
    scored against itself, and for refused candidates), the degenerate records (`source`, `candidate`, `reason`,
    ...) and the metric's signature."""

    method: str
    choice: list[int]
    chosen: list[str]
    scores: list[list[float]]
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
    check_method(metric, method, references is not None)
    sources, candidates, unreadable = _check(sources, candidates)
    refs = None if references is None else check_references(references, len(sources))
    scorer = SentenceScorer(metric, lenient=True, **options_with(RERANK_DEFAULTS, metric, options))
    if method == "mbr":
        return _mbr(scorer, sources, candidates, unreadable)
    rows = [(i, j) for i, group in enumerate(candidates) for j in range(len(group))]
    batch = scorer.score([sources[i] for i, _ in rows], [candidates[i][j] for i, j in rows],
                         None if refs is None else [refs[i] for i, _ in rows],
                         refused={r: unreadable[row] for r, row in enumerate(rows) if row in unreadable})
    scores: list[list[float]] = [[0.0] * len(group) for group in candidates]
    for (i, j), value in zip(rows, batch.values):
        scores[i][j] = value
    degenerate = [{"source": rows[r["index"]][0], "candidate": rows[r["index"]][1],
                   **{k: v for k, v in r.items() if k != "index"}} for r in batch.degenerate]
    refused = {rows[r["index"]] for r in batch.degenerate if r["reason"] == REFUSED}
    return _result(method, candidates, scores, None, scorer, degenerate, refused)


def check_method(metric: str, method: str, has_references: bool, *, cli: bool = False) -> None:
    """Raise when `method`, the metric and the presence of references do not go together, before any work; `cli`:
    the message spells the command's flags (`--method`, `--references`), else the keyword arguments."""
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {list(METHODS)}, got {method!r}")

    def spelt(value: str) -> str:
        return f"--method {value}" if cli else f"method={value!r}"

    refs = "--references" if cli else "`references`"
    reference_free = registry.spec(metric).reference_free
    if method == "reference_free" and not reference_free:
        raise ValueError(f"{spelt('reference_free')} needs a reference-free metric; {metric} needs references (use "
                         f"{spelt('mbr')}, or {spelt('reference')} with {refs})")
    if method != "reference_free" and reference_free:
        raise ValueError(f"{metric} is reference-free: use {spelt('reference_free')}")
    if method == "reference" and not has_references:
        raise ValueError(f"{spelt('reference')} needs {refs}" + (" FILE [FILE ...]" if cli else ""))
    if method != "reference" and has_references:
        raise ValueError(f"{spelt(method)} takes no {refs} ({spelt('reference')} scores against them)")


def _mbr(scorer: SentenceScorer, sources: list[str], candidates: list[list[str]],
         unreadable: dict[tuple[int, int], str]) -> RerankResult:
    texts = [[" ".join(c.split()) for c in group] for group in candidates]  # as the scorer reads predictions
    refused = dict(unreadable)
    refused.update({(i, j): why for i, group in enumerate(texts) for j, text in enumerate(group)
                    if (i, j) not in refused and (why := scorer.refusal(sources[i], text)) is not None})
    before = dict(refused)
    scorable = [[j for j in range(len(group)) if (i, j) not in refused] for i, group in enumerate(texts)]
    pairs = [(i, j, k) for i, group in enumerate(scorable) for j in group for k in group
             if j != k or len(group) == 1]  # the only scorable candidate: its utility against itself
    if not pairs:
        scorer.check_reasons(list(refused.values()), len({(sources[i], texts[i][j]) for i, j in refused}))
    batch = scorer.score([sources[i] for i, _, _ in pairs], [texts[i][j] for i, j, _ in pairs],
                         [[texts[i][k]] for i, _, k in pairs])
    failed = {r["index"] for r in batch.degenerate if r["reason"] == REFUSED}
    utility = [np.full((len(group), len(group)), np.nan) for group in texts]
    for r, ((i, j, k), value) in enumerate(zip(pairs, batch.values)):
        if r not in failed:
            utility[i][j, k] = value
    scores: list[list[float]] = []
    for i, group in enumerate(texts):
        row: list[float] = []
        for j in range(len(group)):
            own = utility[i][j][~np.isnan(utility[i][j])]
            if not len(own):  # refused before scoring, or by the metric against every pseudo-reference
                refused.setdefault((i, j), "the metric refused it against every pseudo-reference")
            row.append(float(own.mean()) if len(own) else 0.0)
        scores.append(row)
    degenerate = [{"source": i, "candidate": j, "reason": REFUSED, "why": why} for (i, j), why in before.items()]
    degenerate += [{"source": pairs[r["index"]][0], "candidate": pairs[r["index"]][1],
                    "pseudo_reference": pairs[r["index"]][2], **{k: v for k, v in r.items() if k != "index"}}
                   for r in batch.degenerate]
    return _result("mbr", candidates, scores, utility, scorer, degenerate, set(refused))


def _result(method: str, candidates: list[list[str]], scores: list[list[float]], utility: list[np.ndarray] | None,
            scorer: SentenceScorer, degenerate: list[dict[str, Any]], refused: set[tuple[int, int]]
            ) -> RerankResult:
    """The choice per source: the highest value among its scorable candidates (the earliest among equals), the
    first candidate only when none is scorable."""
    choice = []
    for i, row in enumerate(scores):
        allowed = [j for j in range(len(row)) if (i, j) not in refused] or [0]
        choice.append(max(allowed, key=lambda j: (row[j], -j)))
    degenerate.sort(key=lambda r: (r["source"], r["candidate"]))
    return RerankResult(method, choice, [group[j] for group, j in zip(candidates, choice)], scores, utility,
                        f"rerank:{method}|{scorer.signature or scorer.metric}", degenerate)


def _check(sources: Any, candidates: Any) -> tuple[list[str], list[list[str]], dict[tuple[int, int], str]]:
    """The sources (data: anything wrong is an error), the candidates (model output: a candidate that is not a
    string is refused, keyed by (source, candidate)) and those refusals."""
    sources = check_texts("sources", sources)
    if isinstance(candidates, str) or not isinstance(candidates, Sequence) or len(candidates) != len(sources):
        raise ValueError(f"`candidates` must hold one list of candidates per source ({len(sources)} sources)")
    out: list[list[str]] = []
    unreadable: dict[tuple[int, int], str] = {}
    for i, group in enumerate(candidates):
        if isinstance(group, str) or not isinstance(group, Sequence) or not group:
            raise ValueError(f"`candidates[{i}]` must be a non-empty list of strings")
        out.append([])
        for j, text in enumerate(group):
            if not isinstance(text, str):
                unreadable[i, j] = f"`candidates[{i}][{j}]` is not text ({type(text).__name__})"
                text = ""
            out[-1].append(text)
    return sources, out, unreadable
