"""The CLEME / CLEME2.0 pipeline: inputs → chunks → labels → chunk weights → scores, chunk tables, signature.

`cleme_score` is what the evaluate module, the Space and the benchmark call; the pure pieces live in
`gecscore.chunks` (partition, labels, inputs), `gecscore.cleme` (counts and scoring) and
`gecscore.cleme_weights` (similarity and LLM weights).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from gecscore.chunks import ASSUMPTIONS, Chunk, Sample, label_chunks, partition_sample, samples_from_m2, \
    samples_from_text
from gecscore.cleme import ALPHA_CORPUS, ALPHA_SENTENCE, HEUO, LEVELS, PRF, RELEASES, ChunkCounts, SentenceStats, \
    check_alpha, length_bias, length_config, length_weights, sentence_stats
from gecscore.cleme_weights import LLMRater, Weights, llm_weights, similarity_weights
from gecscore.edit_impact import BERTScoreSimilarity, Similarity
from gecscore.signature import make_signature

VARIANTS: tuple[str, ...] = ("cleme2", "cleme")
WEIGHTINGS: tuple[str, ...] = ("similarity", "none", "llm", "length")
DEFAULT_WEIGHTING = {"cleme2": "similarity", "cleme": "length"}
DEFAULT_SIMILARITY_MODEL = "bert-base-uncased"
_COUNT_NAMES = {"tp": "TP", "fp": "FP", "fp_ne": "FP_ne", "fp_un": "FP_un", "fn": "FN", "tn": "TN"}
_PRF_NAMES = {"f": "score", "p": "precision", "r": "recall", "acc": "accuracy"}
_HEUO_NAMES = {"com": "score", "hit": "hit", "err": "err", "und": "und", "ove": "ove"}
_RATERS: dict[tuple[str, str | None], LLMRater] = {}


@dataclass(frozen=True)
class ClemeConfig:
    """Every setting that changes a CLEME / CLEME2.0 score (None = the variant's or level's default)."""

    variant: str = "cleme2"
    level: str = "corpus"
    assumption: str = "dependent"
    weighting: str | None = None
    alpha: tuple[float, float, float, float] | None = None
    beta: float = 0.5
    release: str = "2023"
    model: str | None = None
    layer: int | None = None

    def __post_init__(self) -> None:
        for name, value, allowed in (("variant", self.variant, VARIANTS), ("level", self.level, LEVELS),
                                     ("assumption", self.assumption, ASSUMPTIONS),
                                     ("release", self.release, RELEASES)):
            if value not in allowed:
                raise ValueError(f"`{name}` must be one of {allowed}, got {value!r}")
        weighting = self.weighting or DEFAULT_WEIGHTING[self.variant]
        if weighting not in WEIGHTINGS:
            raise ValueError(f"`weighting` must be one of {WEIGHTINGS}, got {weighting!r}")
        object.__setattr__(self, "weighting", weighting)
        default_alpha = ALPHA_CORPUS if self.level == "corpus" else ALPHA_SENTENCE
        object.__setattr__(self, "alpha", check_alpha(self.alpha if self.alpha is not None else default_alpha))
        if weighting == "similarity" and self.model is None:
            object.__setattr__(self, "model", DEFAULT_SIMILARITY_MODEL)
        if weighting == "llm" and not self.model:
            raise ValueError("weighting='llm' needs `model`: a Hugging Face causal LM id or local path")
        if self.layer is not None and (not isinstance(self.layer, int) or isinstance(self.layer, bool)
                                       or self.layer < 0):
            raise ValueError(f"`layer` must be a layer number >= 0, got {self.layer!r}")

    @property
    def scorer(self) -> HEUO | PRF:
        """HEUO (CLEME2.0) or PRF (CLEME v1)."""
        return HEUO(self.alpha) if self.variant == "cleme2" else PRF(self.beta, self.release)

    def signature_settings(self) -> dict[str, Any]:
        """The settings written into the version signature (only those that apply)."""
        out: dict[str, Any] = {"variant": self.variant, "level": self.level, "assumption": self.assumption,
                               "weighting": self.weighting}
        if self.variant == "cleme2":
            out["alpha"] = self.alpha
        else:
            out.update(beta=self.beta, release=self.release)
        if self.weighting in ("similarity", "llm"):
            out.update(model=self.model, layer="default" if self.layer is None else self.layer)
        return out


def chunk_weights(config: ClemeConfig, samples: Sequence[Sample], chunked: Sequence[Sequence[Sequence[Chunk]]],
                  labels: Sequence[Sequence[Sequence[str]]], *, similarity: Similarity | None = None,
                  rater: LLMRater | None = None, device: str | None = None,
                  progress: bool = False) -> Weights | None:
    """Chunk weights per sentence, reference and chunk for `config.weighting` (None for unit weights)."""
    if config.weighting == "none":
        return None
    if config.weighting == "length":
        lengths = length_config(config.level, config.assumption, config.release)
        bias = length_bias(chunked)
        return [[length_weights(chunks[0], ls, lengths, bias) for ls in sample_labels]
                for chunks, sample_labels in zip(chunked, labels)]
    if config.weighting == "similarity":
        if similarity is None:
            similarity = BERTScoreSimilarity(str(config.model), layer=config.layer, device=device)
        return similarity_weights(samples, chunked, labels, similarity)
    if rater is None:
        key = (str(config.model), device)
        rater = _RATERS.get(key) or _RATERS.setdefault(key, LLMRater(str(config.model), device=device))
    return llm_weights(samples, chunked, labels, rater, progress=progress)


def _counts(c: ChunkCounts) -> dict[str, float]:
    return {_COUNT_NAMES[k]: v for k, v in c.as_dict().items()}


def _named(config: ClemeConfig, values: dict[str, float]) -> dict[str, float]:
    names = _HEUO_NAMES if config.variant == "cleme2" else _PRF_NAMES
    return {names[k]: v for k, v in values.items()}


def _sentence_entry(config: ClemeConfig, sample: Sample, stats: SentenceStats, chosen: int) -> dict[str, Any]:
    scorer = config.scorer
    per_ref = [
        {"ref": ref_id, **_named(config, scorer.indicators(w)), "counts": _counts(w), "unweighted_counts": _counts(u)}
        for ref_id, w, u in zip(sample.reference_ids, stats.weighted, stats.unweighted)
    ]
    return {**per_ref[chosen], "per_ref": per_ref}


def chunk_table(sample: Sample, chunks: Sequence[Sequence[Chunk]], labels: Sequence[Sequence[str]],
                weights: Sequence[Sequence[float]] | None) -> dict[str, Any]:
    """One sentence's chunks: tokens of the source, hypothesis and each reference, edit marks, labels, weights."""
    rows = []
    for j, hyp_chunk in enumerate(chunks[0]):
        rows.append({
            "index": j,
            "source": list(hyp_chunk.src),
            "hypothesis": list(hyp_chunk.tgt),
            "references": [list(ref[j].tgt) for ref in chunks[1:]],
            "marked": [c[j].marked for c in chunks],
            "labels": [ls[j] for ls in labels],
            "weights": [1.0] * len(labels) if weights is None else [ws[j] for ws in weights],
        })
    return {"source": sample.source, "hypothesis": sample.hypothesis.text,
            "references": [r.text for r in sample.references], "reference_ids": list(sample.reference_ids),
            "chunks": rows}


def evaluate_samples(samples: Sequence[Sample], config: ClemeConfig, *, similarity: Similarity | None = None,
                     rater: LLMRater | None = None, device: str | None = None, sentences: bool = False,
                     return_chunks: bool = False, progress: bool = False) -> dict[str, Any]:
    """Score prepared samples: the score, its indicators, counts of the chosen references, signature (and details)."""
    if not samples:
        raise ValueError("nothing to score: no sentences")
    chunked = [partition_sample(s) for s in samples]
    labels = [label_chunks(c, config.assumption) for c in chunked]
    weights = chunk_weights(config, samples, chunked, labels, similarity=similarity, rater=rater, device=device,
                            progress=progress)
    stats = [sentence_stats(ls, None if weights is None else weights[i]) for i, ls in enumerate(labels)]
    scorer = config.scorer
    weighted = [s.weighted for s in stats]
    result = scorer.corpus(weighted) if config.level == "corpus" else scorer.sentence(weighted)
    unweighted_total = ChunkCounts()
    for s, r in zip(stats, result.chosen):
        unweighted_total = unweighted_total + s.unweighted[r]
    out: dict[str, Any] = {
        **_named(config, result.values),
        "counts": _counts(result.total),
        "unweighted_counts": _counts(unweighted_total),
    }
    if sentences:
        out["sentences"] = [_sentence_entry(config, sample, s, r)
                            for sample, s, r in zip(samples, stats, result.chosen)]
    if return_chunks:
        out["chunks"] = [chunk_table(sample, c, ls, None if weights is None else weights[i])
                         for i, (sample, c, ls) in enumerate(zip(samples, chunked, labels))]
    out["signature"] = make_signature(config.variant, config.signature_settings())
    return out


def cleme_score(sources: Sequence[str] | None = None, predictions: Sequence[str] | None = None,
                references: Sequence[Sequence[str]] | None = None, *, hyp_m2: str | Path | None = None,
                ref_m2: str | Path | None = None, similarity: Similarity | None = None,
                rater: LLMRater | None = None, device: str | None = None, sentences: bool = False,
                return_chunks: bool = False, progress: bool = False, **settings: Any) -> dict[str, Any]:
    """CLEME2.0 / CLEME on whitespace-tokenised sentences (edits by ERRANT) or on M2 (`hyp_m2` + `ref_m2`).

    `settings` are the fields of `ClemeConfig` (variant, level, assumption, weighting, alpha, beta, release,
    model, layer). `similarity` / `rater` replace the model-based weighers (tests, custom models).
    """
    config = ClemeConfig(**settings)
    if hyp_m2 is not None or ref_m2 is not None:
        if hyp_m2 is None or ref_m2 is None:
            raise ValueError("M2 input needs both `hyp_m2` and `ref_m2`")
        if any(x is not None for x in (sources, predictions, references)):
            raise ValueError("give either `sources`/`predictions`/`references` or `hyp_m2`/`ref_m2`, not both")
        samples = samples_from_m2(hyp_m2, ref_m2)
    else:
        samples = samples_from_text(sources, predictions, references, progress=progress)
    return evaluate_samples(samples, config, similarity=similarity, rater=rater, device=device, sentences=sentences,
                            return_chunks=return_chunks, progress=progress)
