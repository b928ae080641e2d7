"""CLEME (v1) with its length-weighting sigmoids given explicitly, as a meta-evaluation metric.

CLEME's length weighting gives each hypothesis chunk a weight from its length through one sigmoid per label (TP, FP,
FN; `gecscore.cleme2.metric.Sigmoid`), with published settings per level and assumption. UOT-ERRANT (TACL 2026)
ran CLEME's `IndependentChunkMetric` with the sentence scorer and TP α=10 [2.5, 10], FP α=10 [0.25, 1], but
FN α=2 [0.75, 1.25] — not the published sentence-level FN sigmoid α=10 [1, 1] (`docs/reference-behaviour.md`
§2.4). `LengthWeightedCleme` scores with any three sigmoids and otherwise the CLEME (v1) pipeline unchanged:
our ERRANT chunks, the corpus length bias, the 2023 release's rounded P / R / F and reference choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from gecscore.cleme2 import ChunkCounts, ChunkPRF, LengthWeights, Sample, Sigmoid, label_chunks, length_bias, \
    length_weights, partition_sample, samples_from_text, sentence_stats
from gecscore.common.results import robust_predictions
from gecscore.meta_eval.protocol import SystemScores

if TYPE_CHECKING:
    from gecscore.common.m2io import M2Sentence

Sigma = tuple[float, float, float]
UOT_ERRANT_FN: Sigma = (2.0, 0.75, 1.25)


@dataclass(frozen=True)
class LengthWeightedCleme:
    """CLEME (v1) at one level and assumption with explicit (α, min, max) sigmoids for TP, FP and FN chunks."""

    assumption: str = "independent"
    level: str = "sentence"
    tp: Sigma = (10.0, 2.5, 10.0)
    fp: Sigma = (10.0, 0.25, 1.0)
    fn: Sigma = UOT_ERRANT_FN
    release: str = "2023"
    robust: bool = False
    name: str = "cleme-length"

    def settings(self) -> dict[str, Any]:
        """Everything that changes a score (the cache key)."""
        return {"assumption": self.assumption, "level": self.level, "tp": list(self.tp), "fp": list(self.fp),
                "fn": list(self.fn), "release": self.release, "robust": self.robust}

    def weights(self) -> LengthWeights:
        """The three sigmoids."""
        return LengthWeights(Sigmoid(*self.tp), Sigmoid(*self.fp), Sigmoid(*self.fn))

    def weighted_counts(self, samples: Sequence[Sample]) -> list[list[ChunkCounts]]:
        """Length-weighted chunk counts of every sample against every reference (bias from these samples)."""
        chunked = [partition_sample(s) for s in samples]
        bias, config = length_bias(chunked), self.weights()
        out = []
        for chunks in chunked:
            labels = label_chunks(chunks, self.assumption)
            out.append(list(sentence_stats(labels, [length_weights(chunks[0], ls, config, bias)
                                                    for ls in labels]).weighted))
        return out

    def score_samples(self, samples: Sequence[Sample]) -> SystemScores:
        """Sentence F (rounded, best reference each) and the level's own system score."""
        per_ref = self.weighted_counts(samples)
        scorer = ChunkPRF(0.5, self.release)
        sentence = scorer.sentence(per_ref)
        system = sentence if self.level == "sentence" else scorer.corpus(per_ref)
        return SystemScores([v["f"] for v in sentence.per_sentence], system.score)

    def score_system(self, sources: Sequence[str], hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     *, gold_m2: Sequence[M2Sentence] | None = None, progress: bool = False) -> SystemScores:
        """`score_samples` of the sentences, edits by our ERRANT (with `robust`, an empty hypothesis is scored as
        its unchanged source: `gecscore.common.results.robust_predictions`)."""
        if self.robust:
            hypotheses = robust_predictions(sources, hypotheses)
        return self.score_samples(samples_from_text(sources, hypotheses, references, progress=progress))
