"""The abstract `evaluate.Metric` base of the four metric scripts.

It fixes three `evaluate` pitfalls (see `../shared/spec/hf-ecosystem.md`): init kwargs given to
`evaluate.load(...)` are kept instead of dropped; a bare string reference becomes a one-element list
before Arrow encoding (mixing strings and lists otherwise corrupts data silently); and bad entries are
rejected with the argument and position instead of being JSON-mangled. The class is abstract, so
`evaluate`'s loader never picks it instead of the concrete metric in a script.
"""

from __future__ import annotations

import abc
from typing import Any, Mapping

import datasets
import evaluate

from gecscore.common.validation import check_references, check_same_length, check_texts

_EVALUATE_INIT_ARGS = frozenset({
    "config_name", "keep_in_memory", "cache_dir", "num_process", "process_id", "seed", "experiment_id",
    "hash", "max_concurrent_cache_files", "timeout",
})
#: Names that all ask for per-sentence scores; each metric maps them to its own option (`SENTENCE_OPTION`).
SENTENCE_SCORE_NAMES = ("return_sentence_scores", "sentence_scores", "sentences")


def text_features(with_references: bool = True) -> datasets.Features:
    """`sources`, `predictions` (strings) and, when reference-based, `references` (list of strings)."""
    columns = {"sources": datasets.Value("string"), "predictions": datasets.Value("string")}
    if with_references:
        columns["references"] = datasets.Sequence(datasets.Value("string"))
    return datasets.Features(columns)


def metric_info(description: str, citation: str, inputs_description: str, *, with_references: bool,
                codebase_urls: list[str], reference_urls: list[str], homepage: str = "") -> evaluate.MetricInfo:
    """The `MetricInfo` of a gecscore metric: text features (see `text_features`), Apache-2.0."""
    return evaluate.MetricInfo(
        description=description, citation=citation, inputs_description=inputs_description,
        features=text_features(with_references=with_references), homepage=homepage,
        codebase_urls=codebase_urls, reference_urls=reference_urls, license="Apache-2.0")


class GECMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base for gecscore metrics: option handling, reference normalisation and input checks."""

    #: Every option the metric accepts, with its default (init kwargs and compute kwargs alike).
    DEFAULTS: Mapping[str, Any] = {}
    #: Whether the metric takes references.
    REFERENCE_BASED: bool = True
    #: The metric's own option for per-sentence scores; every name in `SENTENCE_SCORE_NAMES` is an alias of it.
    SENTENCE_OPTION: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        options = self._canonical({k: kwargs.pop(k) for k in list(kwargs) if k not in _EVALUATE_INIT_ARGS})
        self._check_option_names(options)
        self.init_options = options
        self._added = 0
        super().__init__(*args, **kwargs)

    @abc.abstractmethod
    def _info(self) -> evaluate.MetricInfo:
        """Module metadata (subclasses describe themselves)."""

    def options(self, compute_kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults, overridden by init kwargs, overridden by compute kwargs."""
        compute_kwargs = self._canonical(compute_kwargs)
        self._check_option_names(compute_kwargs)
        return {**self.DEFAULTS, **self.init_options, **compute_kwargs}

    def _canonical(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Options with every per-sentence-scores alias renamed to `SENTENCE_OPTION`."""
        out: dict[str, Any] = {}
        for key, value in options.items():
            name = self.SENTENCE_OPTION if self.SENTENCE_OPTION and key in SENTENCE_SCORE_NAMES else key
            if name in out and out[name] != value:
                raise TypeError(f"{type(self).__name__} got conflicting values for `{name}` and its aliases "
                                f"{list(SENTENCE_SCORE_NAMES)}")
            out[name] = value
        return out

    def _check_option_names(self, options: Mapping[str, Any]) -> None:
        unknown = sorted(set(options) - set(self.DEFAULTS))
        if unknown:
            raise TypeError(
                f"{type(self).__name__} got unknown option(s) {unknown}; known options: {sorted(self.DEFAULTS)}"
            )

    def _normalise_batch(self, sources: Any, predictions: Any, references: Any) -> dict[str, Any]:
        where = f" (batch starting at example {self._added})" if self._added else ""
        try:
            sources = check_texts("sources", sources)
            predictions = check_texts("predictions", predictions)
            n = check_same_length(sources=sources, predictions=predictions)
            batch: dict[str, Any] = {"sources": sources, "predictions": predictions}
            if self.REFERENCE_BASED:
                batch["references"] = check_references(references, n)
            elif references is not None:
                raise TypeError(f"{type(self).__name__} is reference-free; do not pass `references`")
        except (TypeError, ValueError) as error:
            raise type(error)(f"{error}{where}") from None
        self._added += n
        return batch

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of examples; a reference given as a string counts as a one-element list.

        """
        batch = self._normalise_batch(kwargs.pop("sources", None), predictions, references)
        return super().add_batch(**batch, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example; a reference given as a string counts as a one-element list.

        """
        source = kwargs.pop("source", kwargs.pop("sources", None))
        references = None if reference is None else [reference]
        batch = self._normalise_batch([source], [prediction], references)
        if self.REFERENCE_BASED:
            kwargs["references"] = batch["references"]
        return super().add_batch(sources=batch["sources"], predictions=batch["predictions"], **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score everything added so far plus the given examples; returns a dict of scores and a signature.

        """
        sources = kwargs.pop("sources", None)
        inputs = [v for v in (sources, predictions, references) if v is not None]
        if inputs:
            self.add_batch(sources=sources, predictions=predictions, references=references)
        elif self._added == 0:
            raise ValueError("nothing to score: pass `sources`, `predictions` (and `references`) or add examples first")
        self._added = 0
        return super().compute(**kwargs)
