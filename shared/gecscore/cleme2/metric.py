"""CLEME and CLEME2.0, top-down: inputs → chunks → labels → chunk weights → sufficient statistics → scores.

`cleme_score` is what the evaluate module, the Space, the CLI and the benchmark call. This file holds the
pipeline and the scoring (counts, CLEME v1's length-weighted P/R/F, CLEME2.0's hit / wrong / under /
over-correction); the chunk partition and labels live in `gecscore.cleme2.chunks`, the similarity and LLM chunk
weights in `gecscore.cleme2.weights`.

Scoring conventions of the reference code (`docs/reference-behaviour.md`, section "CLEME scoring"):

* the statistics of a sentence are, for every reference, the (weighted) sums TP, FP, FP_ne, FP_un, FN, TN of its
  hypothesis chunks, summed in chunk order; a TN chunk weighs 1;
* corpus level: references are chosen sentence by sentence, greedily, by the key
  `[score(total + this), tp, -fp, -fn, tn]` (strictly greater replaces: the first reference wins ties);
* sentence level: best reference per sentence, then the mean of the per-sentence scores;
* CLEME v1: P, R, F (and accuracy) rounded to 4 decimals — the rounded F is what the comparisons see;
  sentence-level keys `[F, P, R, Acc]` (2025 code) or `[F, P, R, -Acc]` with the mean rounded (2023 release);
* HEUO: `hit = tp/ne`, `err = fp_ne/ne`, `und = fn/ne` with `ne = tp + fp_ne + fn`, `ove = fp_un/(tp + fp)`
  (0 when a denominator is 0), `com = α·(hit, 1-err, 1-und, 1-ove)`; sentence key `[com, hit, -err, -und, -ove]`.

Degenerate sentences (`gecscore.common.results`): with similarity weights, a sentence and reference whose chunk
weights are all float noise, and texts past the encoder window, are returned in `degenerate_sentences` (never
warned about here: the registry emits one warning); `robust=True` scores the former with unit chunk weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Callable, ClassVar, Literal, Mapping, Sequence

import numpy as np

from gecscore.cleme2.chunks import FN, FP_NE, FP_UN, TN, TP, Chunk, Sample, label_chunks, \
    partition_sample, samples_from_m2, samples_from_text
from gecscore.cleme2.weights import LLM_ALTERNATIVE, LLMRater, Weights, check_causal_lm, llm_weights, noise_pairs, \
    similarity_weights, uniform_noise_weights
from gecscore.cleme2 import SPEC
from gecscore.common.bootstrap import Aggregate, CorpusStatistic, GreedyReferences, SentenceMean, first_best_of
from gecscore.common.chinese_edits import check_lexicon_option
from gecscore.common.edit_impact import BERTScoreSimilarity, Similarity
from gecscore.common.encoders import check_loadable, select_device, shared_model
from gecscore.common.fbeta import prf
from gecscore.common.guarded import Value, choose, ratio
from gecscore.common.inputs import metric_texts, prepare
from gecscore.common.results import Deferred, MetricResult, NOISE_WEIGHTS, TRUNCATED, flag, merge, sentence_core
from gecscore.common.plain_edits import extractor_for
from gecscore.common.signature import language_setting, make_signature
from gecscore.common.statistics import Statistics

_DEFAULTS = SPEC.defaults
DEFAULT_WEIGHTING = {"cleme2": "similarity", "cleme": "length"}
DEFAULT_SIMILARITY_MODEL = "bert-base-uncased"
_COUNT_NAMES = {"tp": "TP", "fp": "FP", "fp_ne": "FP_ne", "fp_un": "FP_un", "fn": "FN", "tn": "TN"}
_PRF_NAMES = {"f": "score", "p": "precision", "r": "recall", "acc": "accuracy"}
_HEUO_NAMES = {"com": "score", "hit": "hit", "err": "err", "und": "und", "ove": "ove"}


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class ClemeStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, the weighted and unweighted chunk
    counts against every reference and the references' ids; with `return_chunks`, the chunk tables."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("counts", "reference_ids", "chunks")

    counts: tuple[SentenceStats, ...]
    reference_ids: tuple[tuple[int, ...], ...]
    chunks: tuple[Mapping[str, Any], ...] | None = None


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now, without loading weights, the error a run with `options` would raise loading its similarity model
    or LLM rater (an LLM rater's configuration is checked too)."""
    config = config_of(SPEC.resolve(options))
    if config.weighting == "similarity":
        check_loadable(str(config.model))
    if config.weighting == "llm":
        check_loadable(str(config.model), alternative=LLM_ALTERNATIVE)  # MiniLM is no rater
        check_causal_lm(str(config.model))


def statistics_systems(sources: Sequence[str] | None, systems: Mapping[str, Sequence[str] | None],
                       references: Sequence[Sequence[str]] | None = None, *, progress: bool = False,
                       **options: Any) -> dict[str, ClemeStatistics]:
    """Every system's statistics (sentences, or `hyp_m2` + `ref_m2`); `score` turns each into its result."""
    opts = SPEC.resolve(options)
    config = config_of(opts)
    if config.weighting == "llm":
        check_causal_lm(str(config.model))
    return {name: sample_statistics(
        text_samples(sources, predictions, references, opts["hyp_m2"], opts["ref_m2"], config, progress=progress),
        config, settings=opts, device=opts["device"], return_chunks=opts["return_chunks"], progress=progress,
        max_tokens=opts["max_tokens"]) for name, predictions in systems.items()}


def score(stats: ClemeStatistics) -> MetricResult:
    """The result of one system's statistics: the reference of every sentence (the greedy corpus choice at corpus
    level, each sentence's best at sentence level), the score and its indicators, the counts of the chosen
    references, the sentence records and the corpus rule as a resamplable statistic."""
    return _scored(stats)[0]


# ---------------------------------------------------------------------------------------------------
# Helpers


@dataclass(frozen=True)
class ClemeConfig:
    """Every setting that changes a CLEME / CLEME2.0 score (None = the variant's or level's default): the options
    of kind `setting` in `SPEC`, with their defaults, each checked by its option (type, choices, range); this class
    adds only the rules between options and the defaults that depend on other options."""

    variant: str = _DEFAULTS["variant"]
    level: str = _DEFAULTS["level"]
    assumption: str = _DEFAULTS["assumption"]
    weighting: str | None = _DEFAULTS["weighting"]
    alpha: tuple[float, float, float, float] | None = _DEFAULTS["alpha"]
    beta: float = _DEFAULTS["beta"]
    release: str = _DEFAULTS["release"]
    model: str | None = _DEFAULTS["model"]
    layer: int | None = _DEFAULTS["layer"]
    tokenize: bool = _DEFAULTS["tokenize"]
    robust: bool = _DEFAULTS["robust"]
    language: str = _DEFAULTS["language"]
    zh_lexicon: str | None = _DEFAULTS["zh_lexicon"]

    def __post_init__(self) -> None:
        for setting in fields(self):
            SPEC.option(setting.name).check(getattr(self, setting.name))
        check_lexicon_option(self.language, self.zh_lexicon)
        weighting = self.weighting or DEFAULT_WEIGHTING[self.variant]
        object.__setattr__(self, "weighting", weighting)
        default_alpha = ALPHA_CORPUS if self.level == "corpus" else ALPHA_SENTENCE
        object.__setattr__(self, "alpha", check_alpha(self.alpha if self.alpha is not None else default_alpha))
        if weighting in ("none", "length"):
            for name, role in (("model", "the model of weighting='similarity' or 'llm'"),
                               ("layer", "the BERTScore layer of weighting='similarity'")):
                if getattr(self, name) is not None:
                    raise ValueError(f"`{name}` does not apply to weighting={weighting!r} (it is {role}); drop "
                                     f"`{name}` or change `weighting`")
        if weighting == "llm" and self.layer is not None:
            raise ValueError("`layer` does not apply to weighting='llm' (it is the BERTScore layer of "
                             "weighting='similarity'); drop `layer`")
        if weighting == "similarity" and self.model is None:
            object.__setattr__(self, "model", DEFAULT_SIMILARITY_MODEL)
        if weighting == "llm" and not self.model:
            raise ValueError("weighting='llm' needs `model`: a Hugging Face causal LM id or local path")

    @property
    def scorer(self) -> HEUO | ChunkPRF:
        """HEUO (CLEME2.0) or ChunkPRF (CLEME v1)."""
        return HEUO(self.alpha, self.robust) if self.variant == "cleme2" else ChunkPRF(self.beta, self.release)

    def signature_settings(self) -> dict[str, Any]:
        """The settings written into the version signature (only those that apply)."""
        out: dict[str, Any] = {"variant": self.variant, "level": self.level, "assumption": self.assumption,
                               "weighting": self.weighting}
        if self.variant == "cleme2":
            out["alpha"] = self.alpha
        else:
            out.update(beta=self.beta, release=self.release)
        if self.weighting == "similarity":
            out.update(model=self.model, layer="default" if self.layer is None else self.layer)
        elif self.weighting == "llm":
            out["model"] = self.model
        out.update(language_setting({"language": self.language, "zh_lexicon": self.zh_lexicon}, edits=True))
        out.update(tokenize="spacy" if self.tokenize else "none", robust=self.robust)
        return out


def chunk_weights(config: ClemeConfig, samples: Sequence[Sample], chunked: Sequence[Sequence[Sequence[Chunk]]],
                  labels: Sequence[Sequence[Sequence[str]]], *, similarity: Similarity | None = None,
                  rater: LLMRater | None = None, device: str | None = None,
                  progress: bool = False, max_tokens: int | None = None) -> Weights | None:
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
        return similarity_weights(samples, chunked, labels, similarity, max_tokens=max_tokens)
    if rater is None:
        rater = shared_model("llm_rater", (str(config.model), select_device(device)),
                             lambda: LLMRater(str(config.model), device=device))
    return llm_weights(samples, chunked, labels, rater, progress=progress)


def _counts(c: ChunkCounts) -> dict[str, float]:
    return {_COUNT_NAMES[k]: v for k, v in c.as_dict().items()}


def _named(config: ClemeConfig, values: dict[str, float]) -> dict[str, float]:
    names = _HEUO_NAMES if config.variant == "cleme2" else _PRF_NAMES
    return {names[k]: v for k, v in values.items()}


def sentence_entry(config: ClemeConfig, reference_ids: Sequence[int], weighted: Sequence[ChunkCounts],
                   unweighted: Sequence[ChunkCounts], chosen: int) -> dict[str, Any]:
    """One sentence's record against reference position `chosen`, from its counts against every reference (the
    entries of the other references under `per_ref`)."""
    scorer = config.scorer
    per_ref = [
        {"ref": ref_id, **_named(config, scorer.indicators(w)), "counts": _counts(w), "unweighted_counts": _counts(u)}
        for ref_id, w, u in zip(reference_ids, weighted, unweighted)
    ]
    core = sentence_core(per_ref[chosen]["score"], chosen, [entry["counts"] for entry in per_ref])
    return {**core, **per_ref[chosen], "per_ref": per_ref}


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


def degenerate_weights(samples: Sequence[Sample], labels: Sequence[Sequence[Sequence[str]]], weights: Weights,
                       similarity: Similarity) -> list[dict[str, Any]]:
    """The degenerate records of similarity weighting, sorted by sentence.

    NOISE_WEIGHTS: one per sentence and reference whose non-TN chunk weights are all float noise
    (`gecscore.cleme2.weights.NOISE_LEVEL`; `reference` counts the references left after empty ones are dropped,
    as `ref` does). TRUNCATED: one per source, prediction or reference text longer than the encoder window (only
    for a similarity with an encoder, e.g. `BERTScoreSimilarity`): the chunks past the window weigh 0.
    """
    records = [flag(i, NOISE_WEIGHTS, reference=r, total=total) for i, r, total in noise_pairs(labels, weights)]
    encoder = getattr(getattr(similarity, "scorer", None), "encoder", None)
    if encoder is not None:
        texts = [(i, "source", None, s.source) for i, s in enumerate(samples)]
        texts += [(i, "prediction", None, s.hypothesis.text) for i, s in enumerate(samples)]
        texts += [(i, "reference", r, ref.text) for i, s in enumerate(samples) for r, ref in enumerate(s.references)]
        limit = encoder.model_limit
        lengths = encoder.token_lengths([text.strip() for *_, text in texts])
        for (i, role, r, _), n in zip(texts, lengths):
            if n > limit:
                records.append(flag(i, TRUNCATED, text=role, tokens=n, limit=limit,
                                    **({} if r is None else {"reference": r})))
    return merge(records)


#: The settings of `ClemeConfig`, registry option names.
CONFIG_FIELDS = tuple(setting.name for setting in fields(ClemeConfig))
ROBUST_NOISE_UNSHARDABLE = ("robust=True gave chunks with float-noise weights the corpus-wide mean chunk weight, "
                            "which no shard knows; score unsharded, or with robust=False")


def config_of(settings: Mapping[str, Any]) -> ClemeConfig:
    """The `ClemeConfig` of registry settings."""
    return ClemeConfig(**{k: settings[k] for k in CONFIG_FIELDS})


def sample_statistics(samples: Sequence[Sample], config: ClemeConfig, *, settings: Mapping[str, Any] | None = None,
                      similarity: Similarity | None = None, rater: LLMRater | None = None,
                      device: str | None = None, return_chunks: bool = False, progress: bool = False,
                      max_tokens: int | None = None) -> ClemeStatistics:
    """Chunks, labels, weights and counts of prepared samples (`settings`: the registry options, by default
    `config`'s).

    With similarity weighting, the degenerate records list the NOISE_WEIGHTS and TRUNCATED sentences
    (`degenerate_weights`); with `config.robust`, the non-TN chunks of a NOISE_WEIGHTS sentence and reference get
    one common weight (`uniform_noise_weights`: unit weights within the sentence), which makes these statistics
    depend on the whole corpus. Other weightings have none.
    """
    if not samples:
        raise ValueError("nothing to score: no sentences")
    chunked = [partition_sample(s) for s in samples]
    labels = [label_chunks(c, config.assumption) for c in chunked]
    if config.weighting == "similarity" and similarity is None:
        similarity = BERTScoreSimilarity(str(config.model), layer=config.layer, device=device)
    weights = chunk_weights(config, samples, chunked, labels, similarity=similarity, rater=rater, device=device,
                            progress=progress, max_tokens=max_tokens)
    degenerate: list[dict[str, Any]] = []
    unshardable = None
    if config.weighting == "similarity" and weights is not None and similarity is not None:
        degenerate = degenerate_weights(samples, labels, weights, similarity)
        if config.robust:
            pairs = [(d["index"], d["reference"], d["total"]) for d in degenerate if d["reason"] == NOISE_WEIGHTS]
            weights = uniform_noise_weights(labels, weights, pairs) if pairs else weights
            unshardable = ROBUST_NOISE_UNSHARDABLE if pairs else None
    tables = None
    if return_chunks:
        tables = tuple(chunk_table(sample, c, ls, None if weights is None else weights[i])
                       for i, (sample, c, ls) in enumerate(zip(samples, chunked, labels)))
    return ClemeStatistics(
        settings={k: getattr(config, k) for k in CONFIG_FIELDS} if settings is None else settings,
        signature=make_signature(config.variant, config.signature_settings()), degenerate=tuple(degenerate),
        unshardable=unshardable,
        counts=tuple(sentence_stats(ls, None if weights is None else weights[i]) for i, ls in enumerate(labels)),
        reference_ids=tuple(tuple(sample.reference_ids) for sample in samples), chunks=tables)


def _scored(stats: ClemeStatistics) -> tuple[MetricResult, Callable[[], list[dict[str, Any]]]]:
    """`score`'s result, and a function that builds every sentence's entry with its entries against each reference
    (`per_ref`). The records are built when first read (`Deferred`): the corpus score, the resampled statistic
    and `sentence_scores()` need only the chosen references' indicators, which the aggregation computed already,
    while a record holds every reference's indicators and counts (most of a meta-evaluation CLEME run's time)."""
    config = config_of(stats.settings)
    scorer = config.scorer
    weighted = [s.weighted for s in stats.counts]
    result = scorer.corpus(weighted) if config.level == "corpus" else scorer.sentence(weighted)
    unweighted_total = ChunkCounts()
    for s, r in zip(stats.counts, result.chosen):
        unweighted_total = unweighted_total + s.unweighted[r]
    details: dict[str, Any] = {"counts": _counts(result.total), "unweighted_counts": _counts(unweighted_total)}
    if stats.chunks is not None:
        details["chunks"] = [dict(table) for table in stats.chunks]
    details["degenerate_sentences"] = [dict(d) for d in stats.degenerate]
    scores = [float(v[scorer.SCORE]) for v in result.per_sentence]  # each record's "score"

    def entries() -> list[dict[str, Any]]:
        return [sentence_entry(config, ids, s.weighted, s.unweighted, r)
                for ids, s, r in zip(stats.reference_ids, stats.counts, result.chosen)]

    def records() -> list[dict[str, Any]]:
        built = entries()
        for entry in built:
            del entry["per_ref"]
        return built

    statistic = corpus_statistic(config, weighted, scores)
    return MetricResult("cleme2", _named(config, result.values), "score", Deferred(records, len(scores), scores),
                        statistic, stats.signature, details, sentence_key="sentences"), entries


def as_output(result: MetricResult, entries: Callable[[], list[dict[str, Any]]], *, sentences: bool
              ) -> dict[str, Any]:
    """The plain dict `cleme_score` returns: scores, counts, the sentence records with every reference's entry
    (`per_ref`, from `entries`) when asked, details and the signature."""
    out: dict[str, Any] = {**result.scores, "counts": result.details["counts"],
                           "unweighted_counts": result.details["unweighted_counts"]}
    if sentences:
        out["sentences"] = entries()
    out.update({k: v for k, v in result.details.items() if k not in out})
    out["signature"] = result.signature
    return out


def evaluate_samples(samples: Sequence[Sample], config: ClemeConfig, *, similarity: Similarity | None = None,
                     rater: LLMRater | None = None, device: str | None = None, sentences: bool = False,
                     return_chunks: bool = False, progress: bool = False,
                     max_tokens: int | None = None) -> dict[str, Any]:
    """Score prepared samples: the score, its indicators, counts of the chosen references, signature (and details);
    `score(sample_statistics(...))` as a plain dict."""
    stats = sample_statistics(samples, config, similarity=similarity, rater=rater, device=device,
                              return_chunks=return_chunks, progress=progress, max_tokens=max_tokens)
    result, entries = _scored(stats)
    return as_output(result, entries, sentences=sentences)


def text_samples(sources: Sequence[str] | None, predictions: Sequence[str] | None,
                 references: Sequence[Sequence[str]] | None, hyp_m2: str | Path | None, ref_m2: str | Path | None,
                 config: ClemeConfig, *, progress: bool = False) -> list[Sample]:
    """The samples of sentences as the input layer hands them (whitespace-tokenised, `robust`'s empty predictions
    already replaced; edits by ERRANT) or of M2 files (`hyp_m2` + `ref_m2`)."""
    if hyp_m2 is not None or ref_m2 is not None:
        if hyp_m2 is None or ref_m2 is None:
            raise ValueError("M2 input needs both `hyp_m2` and `ref_m2`")
        if any(x is not None for x in (sources, predictions, references)):
            raise ValueError("give either `sources`/`predictions`/`references` or `hyp_m2`/`ref_m2`, not both")
        if config.tokenize:
            raise ValueError("`tokenize` does not apply to M2 input (`hyp_m2`, `ref_m2` are tokenised already); "
                             "drop `tokenize`")
        if config.language != "en":
            raise ValueError("`language` applies to text, whose edits it extracts; M2 input (`hyp_m2`, `ref_m2`) "
                             "has its tokens and edits already: drop `language`")
        return samples_from_m2(hyp_m2, ref_m2)
    if config.language == "zh":  # CLEME's Chinese mode reads ChERRANT's char-level M2: written here from the text
        from gecscore.common.chinese_edits import aligner_for, load_lexicon

        aligner = aligner_for(load_lexicon(config.zh_lexicon))
        return samples_from_m2(aligner.m2(sources, [[p] for p in predictions]), aligner.m2(sources, references))
    return samples_from_text(sources, predictions, references, extractor_for(config.language), progress=progress)


def cleme_score(sources: Sequence[str] | None = None, predictions: Sequence[str] | None = None,
                references: Sequence[Sequence[str]] | None = None, *, hyp_m2: str | Path | None = None,
                ref_m2: str | Path | None = None, similarity: Similarity | None = None,
                rater: LLMRater | None = None, device: str | None = None, sentences: bool = False,
                return_chunks: bool = False, progress: bool = False, max_tokens: int | None = None,
                **settings: Any) -> dict[str, Any]:
    """CLEME2.0 / CLEME on whitespace-tokenised sentences (edits by ERRANT) or on M2 (`hyp_m2` + `ref_m2`).

    `settings` are the fields of `ClemeConfig` (variant, level, assumption, weighting, alpha, beta, release,
    model, layer, tokenize, robust). `similarity` / `rater` replace the model-based weighers (tests, custom models).
    Sentences are spaCy-tokenised first with `tokenize=True`; otherwise clearly untokenised text is an error.
    `robust=True` also scores an empty prediction as its unchanged source (the registry does this, and flags
    it, before the metric runs).
    """
    config = ClemeConfig(**settings)
    if config.weighting == "llm" and rater is None:
        check_causal_lm(str(config.model))
    if hyp_m2 is None and ref_m2 is None:  # the input layer's door, as the registry's runs pass it
        if references is None:
            raise ValueError("CLEME needs `references` (one list of references per sentence), or `hyp_m2` and "
                             "`ref_m2`")
        prepared = prepare(sources, {"system": predictions}, references, robust=config.robust,
                           language=config.language)
        sources, systems, references = metric_texts(SPEC.text_form, prepared.sources, prepared.systems,
                                                    prepared.references, tokenize=config.tokenize,
                                                    language=config.language)
        predictions = systems["system"]
    samples = text_samples(sources, predictions, references, hyp_m2, ref_m2, config, progress=progress)
    return evaluate_samples(samples, config, similarity=similarity, rater=rater, device=device, sentences=sentences,
                            return_chunks=return_chunks, progress=progress, max_tokens=max_tokens)


def corpus_statistic(config: ClemeConfig, per_ref: Sequence[Sequence[ChunkCounts]],
                     scores: Sequence[float]) -> CorpusStatistic:
    """The corpus rule over the per-sentence counts: CLEME2.0's greedy reference choice (corpus level), the mean
    of sentence scores (sentence level), or CLEME v1's own rounded rule re-applied resample by resample."""
    if config.variant == "cleme2" and config.level == "corpus":
        return heuo_greedy(per_ref, config.alpha, config.robust)
    if config.variant == "cleme2":
        return SentenceMean(list(scores))
    level = config.scorer.corpus if config.level == "corpus" else config.scorer.sentence
    return Aggregate(per_ref, partial(_level_score, level))


# ----------------------------------------------------------------------------------------------------
# Scoring: sufficient statistics, CLEME v1 and CLEME2.0

Level = Literal["corpus", "sentence"]
Release = Literal["2023", "2025"]
ALPHA_CORPUS = (0.45, 0.35, 0.15, 0.05)
ALPHA_SENTENCE = (0.35, 0.25, 0.20, 0.20)


@dataclass(frozen=True)
class ChunkCounts:
    """(Weighted) chunk counts of one sentence against one reference, or a sum of them."""

    tp: float = 0.0
    fp: float = 0.0
    fp_ne: float = 0.0
    fp_un: float = 0.0
    fn: float = 0.0
    tn: float = 0.0

    def __add__(self, other: ChunkCounts) -> ChunkCounts:
        if not isinstance(other, ChunkCounts):
            return NotImplemented
        return ChunkCounts(self.tp + other.tp, self.fp + other.fp, self.fp_ne + other.fp_ne,
                           self.fp_un + other.fp_un, self.fn + other.fn, self.tn + other.tn)

    def as_dict(self) -> dict[str, float]:
        """The six counts by name (in field order; written out, as `dataclasses.asdict` deep-copies and was a sixth
        of a meta-evaluation CLEME run)."""
        return {"tp": self.tp, "fp": self.fp, "fp_ne": self.fp_ne, "fp_un": self.fp_un, "fn": self.fn, "tn": self.tn}


def count_chunks(labels: Sequence[str], weights: Sequence[float] | None = None) -> ChunkCounts:
    """Sum chunk weights (1 each when `weights` is None) per label, in chunk order; FP = FP_ne + FP_un chunks."""
    sums = {TP: 0.0, "FP": 0.0, FP_NE: 0.0, FP_UN: 0.0, FN: 0.0, TN: 0.0}
    for i, label in enumerate(labels):
        w = 1.0 if weights is None else weights[i]
        sums[label] += w
        if label in (FP_NE, FP_UN):
            sums["FP"] += w
    return ChunkCounts(sums[TP], sums["FP"], sums[FP_NE], sums[FP_UN], sums[FN], sums[TN])


@dataclass(frozen=True)
class SentenceStats:
    """Per-reference weighted and unweighted counts of one sentence (the sufficient statistics)."""

    weighted: tuple[ChunkCounts, ...]
    unweighted: tuple[ChunkCounts, ...]


def sentence_stats(labels: Sequence[Sequence[str]], weights: Sequence[Sequence[float]] | None) -> SentenceStats:
    """Statistics from the labels (and chunk weights) of each reference; `weights=None` means unit weights."""
    unweighted = tuple(count_chunks(ls) for ls in labels)
    if weights is None:
        return SentenceStats(unweighted, unweighted)
    if len(weights) != len(labels):
        raise ValueError(f"{len(labels)} references but {len(weights)} weight lists")
    return SentenceStats(tuple(count_chunks(ls, ws) for ls, ws in zip(labels, weights)), unweighted)


# ---------------------------------------------------------------------------------------------------
# Length weighting (CLEME v1)


@dataclass(frozen=True)
class Sigmoid:
    """`α / (1 + (α-1)·exp(bias - ℓ))` (or `exp(ℓ - bias)` reversed, for FP), clipped to [min_value, max_value]."""

    alpha: float
    min_value: float
    max_value: float

    def __call__(self, length: int, bias: float, reverse: bool) -> float:
        return _sigmoid(self.alpha, self.min_value, self.max_value, length, bias, reverse)


@lru_cache(maxsize=1 << 16)
def _sigmoid(a: float, min_value: float, max_value: float, length: int, bias: float, reverse: bool) -> float:
    """`Sigmoid`'s value, computed once per (settings, length, bias, direction): a corpus has a few dozen chunk
    lengths and one bias, and numpy's scalar `exp` and `clip` cost microseconds a chunk."""
    if reverse:
        weight = a * (1 / (1 + (a - 1) * np.exp(length - bias)))
    else:
        weight = a * (1 / (1 + (a - 1) * np.exp(-length + bias)))
    return float(np.clip(weight, min_value, max_value))


@dataclass(frozen=True)
class LengthWeights:
    """The three sigmoids of CLEME's length weighting (TN chunks weigh 1)."""

    tp: Sigmoid
    fp: Sigmoid
    fn: Sigmoid


LENGTH_CORPUS = LengthWeights(Sigmoid(2.0, 0.75, 1.25), Sigmoid(2.0, 0.75, 1.25), Sigmoid(2.0, 0.75, 1.25))
LENGTH_SENTENCE_DEPENDENT = LengthWeights(Sigmoid(10.0, 1.0, 10.0), Sigmoid(10.0, 0.25, 1.0), Sigmoid(10.0, 1.0, 1.0))
LENGTH_SENTENCE_INDEPENDENT = LengthWeights(Sigmoid(10.0, 2.5, 10.0), Sigmoid(10.0, 0.25, 1.0),
                                            Sigmoid(10.0, 1.0, 1.0))


def length_config(level: Level, assumption: str, release: Release = "2023") -> LengthWeights:
    """The published configuration; the 2025 code ignores its sentence-level weights and uses the corpus ones."""
    if level == "corpus" or release == "2025":
        return LENGTH_CORPUS
    return LENGTH_SENTENCE_DEPENDENT if assumption == "dependent" else LENGTH_SENTENCE_INDEPENDENT


def chunk_length(chunk: Chunk) -> int:
    """`max(len(source tokens), len(target tokens))`."""
    return max(len(chunk.src), len(chunk.tgt))


def length_bias(chunked: Sequence[Sequence[Sequence[Chunk]]]) -> float:
    """Mean length of the marked reference chunks of the whole corpus (0.0 if no reference edits anything)."""
    lengths = [chunk_length(c) for chunks in chunked for ref in chunks[1:] for c in ref if c.marked]
    return float(np.average(lengths)) if lengths else 0.0


def length_weights(hyp: Sequence[Chunk], labels: Sequence[str], config: LengthWeights, bias: float) -> list[float]:
    """Weight of each hypothesis chunk from its length and label (the FN weight, too, uses the hypothesis chunk)."""
    out = []
    for chunk, label in zip(hyp, labels, strict=True):
        n = chunk_length(chunk)
        if label == TP:
            out.append(config.tp(n, bias, reverse=False))
        elif label in (FP_NE, FP_UN):
            out.append(config.fp(n, bias, reverse=True))
        elif label == FN:
            out.append(config.fn(n, bias, reverse=False))
        else:
            out.append(1.0)
    return out


# ---------------------------------------------------------------------------------------------------
# Aggregation


@dataclass(frozen=True)
class LevelResult:
    """A corpus- or sentence-level result: the score, its indicators, the chosen references and their counts."""

    score: float
    values: dict[str, float]
    chosen: list[int]
    total: ChunkCounts
    per_sentence: list[dict[str, float]] = field(repr=False)


Key = Callable[[ChunkCounts, ChunkCounts], tuple]


def greedy_choice(per_sentence: Sequence[Sequence[ChunkCounts]], key: Key) -> tuple[list[int], ChunkCounts]:
    """Pick references sentence by sentence, maximising `key(running total, candidate)`; first wins ties."""
    total = ChunkCounts()
    chosen = []
    for i, refs in enumerate(per_sentence):
        if not refs:
            raise ValueError(f"sentence {i} has no reference")
        best = first_best_of([key(total, c) for c in refs])
        chosen.append(best)
        total = total + refs[best]
    return chosen, total


def best_per_sentence(per_sentence: Sequence[Sequence[ChunkCounts]],
                      key: Callable[[ChunkCounts], tuple]) -> list[int]:
    """Index of the best reference of each sentence under `key`; first wins ties."""
    for i, refs in enumerate(per_sentence):
        if not refs:
            raise ValueError(f"sentence {i} has no reference")
    return [first_best_of([key(c) for c in refs]) for refs in per_sentence]


def _sum(counts: Sequence[ChunkCounts]) -> ChunkCounts:
    total = ChunkCounts()
    for c in counts:
        total = total + c
    return total


class _Levels:
    """Corpus- and sentence-level aggregation shared by HEUO and ChunkPRF (`SCORE` names the main indicator)."""

    SCORE = ""
    MEANS: tuple[str, ...] = ()

    def indicators(self, c: ChunkCounts) -> dict[str, float]:
        raise NotImplementedError

    def sentence_key(self, v: dict[str, float]) -> tuple:
        """How the references of one sentence compare (larger is better)."""
        raise NotImplementedError

    def round_means(self, values: dict[str, float]) -> dict[str, float]:
        """Hook for rounding the sentence-level means."""
        return values

    def corpus(self, per_sentence: Sequence[Sequence[ChunkCounts]]) -> LevelResult:
        """Greedy corpus choice on `[score(total + this), tp, -fp, -fn, tn]`; indicators of the total."""
        def key(total: ChunkCounts, c: ChunkCounts) -> tuple:
            return (self.indicators(total + c)[self.SCORE], c.tp, -c.fp, -c.fn, c.tn)

        chosen, total = greedy_choice(per_sentence, key)
        values = self.indicators(total)
        per = [self.indicators(refs[r]) for refs, r in zip(per_sentence, chosen)]
        return LevelResult(values[self.SCORE], values, chosen, total, per)

    def sentence(self, per_sentence: Sequence[Sequence[ChunkCounts]]) -> LevelResult:
        """Best reference per sentence on `sentence_key`; means of the sentence indicators."""
        chosen = best_per_sentence(per_sentence, lambda c: self.sentence_key(self.indicators(c)))
        per = [self.indicators(refs[r]) for refs, r in zip(per_sentence, chosen)]
        values = self.round_means({name: float(np.mean([v[name] for v in per])) for name in self.MEANS})
        total = _sum([refs[r] for refs, r in zip(per_sentence, chosen)])
        return LevelResult(values[self.SCORE], values, chosen, total, per)


# ---------------------------------------------------------------------------------------------------
# CLEME2.0: HEUO


def check_alpha(alpha: Sequence[float]) -> tuple[float, float, float, float]:
    """Four trade-off factors in [0, 1] that sum to 1 (±1e-5), as (hit, err, und, ove)."""
    try:
        values = tuple(float(a) for a in alpha)
    except (TypeError, ValueError):
        raise TypeError(f"`alpha` must be four numbers (hit, err, und, ove), got {alpha!r}") from None
    if len(values) != 4:
        raise ValueError(f"`alpha` must have four factors (hit, err, und, ove), got {len(values)}")
    for name, a in zip(("hit", "err", "und", "ove"), values):
        if not 0.0 <= a <= 1.0:
            raise ValueError(f"`alpha` factor {name} must be in [0, 1], got {a}")
    if abs(sum(values) - 1.0) > 1e-5:
        raise ValueError(f"`alpha` factors must sum to 1, got {values} (sum {sum(values)})")
    return values  # type: ignore[return-value]


@dataclass(frozen=True)
class HEUO(_Levels):
    """CLEME2.0's hit / err / und / ove indicators and their weighted combination `com`.

    Sentence level compares references on `[com, hit, -err, -und, -ove]`. `robust`: nothing to correct and
    nothing changed is a perfect hit (`heuo_indicators`).
    """

    alpha: tuple[float, float, float, float] = ALPHA_CORPUS
    robust: bool = False
    SCORE = "com"
    MEANS = ("com", "hit", "err", "und", "ove")

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", check_alpha(self.alpha))

    def indicators(self, c: ChunkCounts) -> dict[str, float]:
        """`hit`, `err`, `und`, `ove` and `com` of counts `c` (fp taken as fp_ne + fp_un, as the reference)."""
        return heuo_indicators(float(c.tp), float(c.fp_ne), float(c.fp_un), float(c.fn), self.alpha, self.robust)

    def sentence_key(self, v: dict[str, float]) -> tuple:
        return (v["com"], v["hit"], -v["err"], -v["und"], -v["ove"])

    def corpus(self, per_sentence: Sequence[Sequence[ChunkCounts]]) -> LevelResult:
        """Greedy corpus choice (`heuo_greedy`: the one implementation of the rule, also used for resampling)."""
        for i, refs in enumerate(per_sentence):
            if not refs:
                raise ValueError(f"sentence {i} has no reference")
        chosen, totals = heuo_greedy(per_sentence, self.alpha, self.robust).choose()
        total = ChunkCounts(**dict(zip(("tp", "fp", "fp_ne", "fp_un", "fn", "tn"), (float(x) for x in totals))))
        values = self.indicators(total)
        per = [self.indicators(refs[r]) for refs, r in zip(per_sentence, chosen)]
        return LevelResult(values[self.SCORE], values, chosen, total, per)


# ---------------------------------------------------------------------------------------------------
# CLEME v1: P / R / F


@dataclass(frozen=True)
class ChunkPRF(_Levels):
    """CLEME v1's precision, recall, F_β and accuracy (each rounded to 4 decimals, as the reference).

    Sentence level compares references on `[F, P, R, Acc]` (2025 code) or `[F, P, R, -Acc]` (2023 release);
    the 2023 release also rounds the means to 4 decimals.
    """

    beta: float = 0.5
    release: Release = "2023"
    SCORE = "f"
    MEANS = ("f", "p", "r", "acc")

    def __post_init__(self) -> None:
        if not isinstance(self.beta, (int, float)) or isinstance(self.beta, bool) or not self.beta > 0:
            raise ValueError(f"`beta` must be a number > 0, got {self.beta!r}")
        SPEC.option("release").check(self.release)

    def indicators(self, c: ChunkCounts) -> dict[str, float]:
        """`f`, `p`, `r`, `acc` of counts `c` (P = 1 if tp + fp == 0, R = 1 if tp + fn == 0, F = 0 if P + R == 0)."""
        tp, fp, fn, tn = c.tp, c.fp, c.fn, c.tn
        p, r, f = prf(float(tp), fp, fn, self.beta, "denominator")
        n = tp + fp + fn + tn
        acc = float(tp + tn) / n if n else 0.0
        return {"f": round(f, 4), "p": round(p, 4), "r": round(r, 4), "acc": round(acc, 4)}

    def sentence_key(self, v: dict[str, float]) -> tuple:
        return (v["f"], v["p"], v["r"], -v["acc"] if self.release == "2023" else v["acc"])

    def round_means(self, values: dict[str, float]) -> dict[str, float]:
        return {name: round(v, 4) for name, v in values.items()} if self.release == "2023" else values


def heuo_indicators(tp: Value, fp_ne: Value, fp_un: Value, fn: Value, alpha: Sequence[Any],
                    robust: bool = False) -> dict[str, Value]:
    """CLEME2.0's `hit`, `err`, `und`, `ove` (0 on an empty denominator) and their combination `com`, of floats or
    of arrays (`gecscore.common.guarded`: the one formula for a sentence, a resample and an α grid).

    The published rule gives a sentence with nothing to correct that is left unchanged hit = 0, so com = 1 − α_hit
    (0.55 at sentence level): a perfect correction below 1. `robust=True` counts it as a perfect hit (hit = 1,
    com = 1); it is the only case it changes, since any chunk to correct or any change makes a count non-zero."""
    ne = tp + fp_ne + fn
    proposed = tp + (fp_ne + fp_un)
    hit = ratio(tp, ne, ne == 0, 0.0)
    if robust:
        hit = choose((ne == 0) & (fp_un == 0), 1.0, hit)
    err = ratio(fp_ne, ne, ne == 0, 0.0)
    und = ratio(fn, ne, ne == 0, 0.0)
    ove = ratio(fp_un, proposed, proposed == 0, 0.0)
    a_hit, a_err, a_und, a_ove = alpha
    com = a_hit * hit + a_err * (1 - err) + a_und * (1 - und) + a_ove * (1 - ove)
    return {"com": com, "hit": hit, "err": err, "und": und, "ove": ove}


def heuo(counts: np.ndarray, alpha: Sequence[Any], robust: bool = False) -> np.ndarray:
    """CLEME2.0's `com` of `(..., 6)` arrays of TP, FP, FP_ne, FP_un, FN, TN (`heuo_indicators`)."""
    return heuo_indicators(counts[..., 0], counts[..., 2], counts[..., 3], counts[..., 4], alpha, robust)["com"]


def heuo_greedy(per_sentence: Sequence[Sequence[ChunkCounts]], alpha: Sequence[float],
                robust: bool = False) -> GreedyReferences:
    """Corpus CLEME2.0 with its greedy reference choice (`HEUO.corpus`: `[com(total + c), tp, -fp, -fn, tn]` of
    the candidate `c`) on resamples."""
    return GreedyReferences([[(c.tp, c.fp, c.fp_ne, c.fp_un, c.fn, c.tn) for c in refs] for refs in per_sentence],
                            partial(_heuo_key, tuple(alpha), robust), partial(_heuo_com, tuple(alpha), robust))


# Module-level (with `partial`), not closures, so that a result and its statistic can be pickled.
def _heuo_key(alpha: Sequence[float], robust: bool, running: np.ndarray, candidates: np.ndarray
              ) -> tuple[np.ndarray, ...]:
    return (heuo(running + candidates, alpha, robust), candidates[..., 0], -candidates[..., 1],
            -candidates[..., 4], candidates[..., 5])


def _heuo_com(alpha: Sequence[float], robust: bool, totals: np.ndarray) -> np.ndarray:
    return heuo(totals, alpha, robust)


def _level_score(level: Callable[[Sequence[Sequence[ChunkCounts]]], LevelResult],
                 counts: Sequence[Sequence[ChunkCounts]]) -> float:
    return level(counts).score
