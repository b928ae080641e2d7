"""How much one edit changes a sentence's similarity to a reference: the edit weights of PT-M² and CLEME2.0.

A `Similarity` scores candidates against references (BERTScore F1 by default); `edit_weights` turns it into
|F(source with one edit, ref) − F(source, ref)| for batches of pseudo sentences, in one similarity call.
"""

from __future__ import annotations

from typing import Hashable, NamedTuple, Protocol, Sequence

import numpy as np


class Similarity(Protocol):
    """F1 of each candidate against the reference at the same position, and which texts it cannot tell apart.

    A similarity may also have `window` (the most tokens it reads) and `token_lengths(texts)`, as
    `BERTScoreSimilarity` does; PT-M² then flags the texts it truncates.
    """

    def __call__(self, candidates: Sequence[str], references: Sequence[str]) -> np.ndarray: ...

    def canonical(self, texts: Sequence[str]) -> list[Hashable]:
        """A key per text; texts with equal keys get equal scores (e.g. equal token ids)."""


class WeightRequest(NamedTuple):
    """The pseudo sentences of one sentence and reference, each to be weighed against `source`."""

    source: str
    reference: str
    pseudo: tuple[str, ...]


def edit_weights(requests: Sequence[WeightRequest], similarity: Similarity | None) -> list[list[float]]:
    """|F(pseudo, ref) − F(source, ref)| for every pseudo sentence, or 1.0 each without a similarity.

    All distinct (candidate, reference) pairs go through one `similarity` call. Candidates that the model
    cannot tell apart (same canonical key, e.g. "family-related" and "family - related" for a WordPiece
    model) share one score, so an edit invisible to the model weighs exactly 0, as in the reference, which
    scores every pair alone; this matters for PT-M²'s "weights sum to 0" rule.
    """
    if similarity is None:
        return [[1.0] * len(r.pseudo) for r in requests]
    texts = list(dict.fromkeys(t for r in requests if r.pseudo for t in (r.source, *r.pseudo)))
    if not texts:
        return [[] for _ in requests]
    key = dict(zip(texts, similarity.canonical(texts)))
    pairs: dict[tuple[Hashable, str], int] = {}
    chosen: list[tuple[str, str]] = []
    for r in requests:
        for candidate in (r.source, *r.pseudo) if r.pseudo else ():
            if (key[candidate], r.reference) not in pairs:
                pairs[(key[candidate], r.reference)] = len(chosen)
                chosen.append((candidate, r.reference))
    candidates, references = zip(*chosen)
    f = np.asarray(similarity(list(candidates), list(references)), dtype=np.float64)
    if f.shape != (len(chosen),):
        raise ValueError(f"the similarity function returned shape {f.shape}, expected ({len(chosen)},)")
    out = []
    for r in requests:
        if not r.pseudo:
            out.append([])
            continue
        base = float(f[pairs[(key[r.source], r.reference)]])
        out.append([abs(float(f[pairs[(key[p], r.reference)]]) - base) for p in r.pseudo])
    return out


class BERTScoreSimilarity:
    """BERTScore F1 through `gecscore.common.bertscore.BERTScorer` (idf off, no baseline rescaling: a positive linear
    rescaling cancels in every PT-M² ratio); texts are canonical by their token ids."""

    def __init__(self, model: str = "bert-base-uncased", *, layer: int | None = None,
                 device: str | None = None) -> None:
        from gecscore.common.bertscore import BERTScorer

        self.model = model
        self.scorer = BERTScorer(model, layer=layer, device=device)
        self.layer = self.scorer.layer

    def __call__(self, candidates: Sequence[str], references: Sequence[str]) -> np.ndarray:
        return np.asarray(self.scorer.score(list(candidates), list(references)).f1)

    def canonical(self, texts: Sequence[str]) -> list[Hashable]:
        return [tuple(ids) for ids in self.scorer.encoder.token_ids([t.strip() for t in texts])]

    @property
    def window(self) -> int:
        """The most tokens of a text BERTScore sees (longer texts are truncated, so edits beyond weigh 0)."""
        return self.scorer.window

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Untruncated token counts (special tokens included), to compare with `window`."""
        return self.scorer.token_lengths(texts)
