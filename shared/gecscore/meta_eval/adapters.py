"""Built-in `SentenceMetric` adapters: the ERRANT and M² baselines and our metrics' Python cores."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from tqdm.auto import tqdm

from .metrics import SentenceMetric, SystemScores

if TYPE_CHECKING:
    from ..m2io import M2Sentence


def _check_options(name: str, options: dict[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(f"metric {name!r} got unknown option(s) {unknown}; known options: {sorted(allowed)}")


def _m2_from_references(sources: Sequence[str], references: Sequence[Sequence[str]],
                        progress: bool = False) -> list[M2Sentence]:
    """Gold M2 built from raw references with ERRANT edits (one annotator per reference, as `errant_parallel`)."""
    from ..edits import get_extractor
    from ..m2io import edits_to_m2

    pairs = [(s, r) for s, refs in zip(sources, references) for r in refs]
    edits = get_extractor().extract([p[0] for p in pairs], [p[1] for p in pairs], progress=progress)
    out, k = [], 0
    for source, refs in zip(sources, references):
        out.append(edits_to_m2(source, edits[k:k + len(refs)]))
        k += len(refs)
    return out


class M2Baseline:
    """M² (MaxMatch, official scorer 3.2) and SentM² (mean of sentence F_β) over a gold M2.

    The gold is the reference set's own M2 when it has one (CoNLL-2014 Official); otherwise it is built from
    the raw references with ERRANT, one annotator per reference. Sentence scores are each sentence's F_β with
    its best annotator; the corpus score is M²'s greedy corpus F_β (M²) or the sentence mean (SentM²).
    """

    def __init__(self, *, sentence_average: bool = False, beta: float = 0.5, max_unchanged_words: int = 2) -> None:
        if beta <= 0:
            raise ValueError(f"beta must be > 0, got {beta}")
        self.name = "sentm2" if sentence_average else "m2"
        self.sentence_average = sentence_average
        self.beta = float(beta)
        self.max_unchanged_words = int(max_unchanged_words)

    def settings(self) -> dict[str, Any]:
        """Options that change scores."""
        return {"beta": self.beta, "max_unchanged_words": self.max_unchanged_words}

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """M² counts per sentence and annotator, then corpus and sentence F_β."""
        from ..m2 import corpus_m2, extract_edits, gold_edits, sentence_m2

        gold = list(gold_m2) if gold_m2 is not None else _m2_from_references(sources, references, progress)
        if len(gold) != len(sources):
            raise ValueError(f"gold_m2 has {len(gold)} sentences but there are {len(sources)} sources")
        counts = []
        rows = zip(sources, hypotheses, gold)
        for i, (source, hypothesis, block) in enumerate(tqdm(rows, total=len(gold), desc="M2", disable=not progress,
                                                             leave=False)):
            if block.source.split() != source.split():
                raise ValueError(f"gold_m2[{i}] is for another source sentence: {block.source[:60]!r}")
            per_annotator = extract_edits(source.split(), hypothesis.split(), gold_edits(block),
                                          max_unchanged_words=self.max_unchanged_words)
            counts.append([a.counts() for a in per_annotator])
        sentence = sentence_m2(counts, self.beta)
        corpus = sentence.f if self.sentence_average else corpus_m2(counts, self.beta).f
        return SystemScores([s.f for s in sentence.sentence_scores], corpus)


def _factory(cls: Callable[..., SentenceMetric], name: str, allowed: Sequence[str],
             **fixed: Any) -> Callable[..., SentenceMetric]:
    def build(**options: Any) -> SentenceMetric:
        _check_options(name, options, allowed)
        return cls(**fixed, **options)
    return build


BUILTIN: dict[str, Callable[..., SentenceMetric]] = {
    "m2": _factory(M2Baseline, "m2", ("beta", "max_unchanged_words"), sentence_average=False),
    "sentm2": _factory(M2Baseline, "sentm2", ("beta", "max_unchanged_words"), sentence_average=True),
}
