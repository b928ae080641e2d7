"""The abstract `evaluate.Metric` base of the four metric scripts: the evaluate glue, driven by the registry.

A script names its metric (`NAME`), describes itself in `_info` and spells out its `_compute` parameters (a test
checks them against the registry's schema); everything else happens here. It fixes three `evaluate` pitfalls
(`docs/evaluate-pitfalls.md`): init kwargs given to `evaluate.load(...)` are kept instead of dropped; a bare string
reference becomes a one-element list before Arrow encoding (mixing strings and lists otherwise corrupts data
silently); and bad entries are rejected with the argument and position instead of being JSON-mangled. Options are
checked before any data is consumed, so a `compute` that fails on a bad option keeps the added examples.
`evaluate.load(path, "<name>")` selects a computation through `config_name`: a registry name means what it
means everywhere (`registry.config_names`). The class is abstract, so
`evaluate`'s loader never picks it instead of the concrete metric in a script.
"""

from __future__ import annotations

import abc
import re
import time
from typing import Any, Mapping

import datasets
import evaluate

from gecscore import registry
from gecscore.common.inputs import check_references, check_same_length, check_texts
from gecscore.common.options import MetricSpec

_EVALUATE_INIT_ARGS = frozenset({
    "config_name", "keep_in_memory", "cache_dir", "num_process", "process_id", "seed", "experiment_id",
    "hash", "max_concurrent_cache_files", "timeout",
})
_INPUTS = ("self", "sources", "predictions", "references")


def text_features(with_references: bool = True) -> datasets.Features:
    """`sources`, `predictions` (strings) and, when reference-based, `references` (list of strings)."""
    columns = {"sources": datasets.Value("string"), "predictions": datasets.Value("string")}
    if with_references:
        columns["references"] = datasets.Sequence(datasets.Value("string"))
    return datasets.Features(columns)


def kwargs_description(name: str, *, inputs: str, returns: str, examples: str) -> str:
    """An evaluate `_KWARGS_DESCRIPTION` whose `Args:` options are generated from the registry's schema."""
    return (f"\nArgs:\n{inputs.rstrip()}\n{registry.SPECS[name].args_doc()}\nReturns:\n{returns.rstrip()}\n"
            f"Examples:\n{examples.rstrip()}\n\n")


class GECMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base for gecscore metrics: options from the registry, reference normalisation, input checks."""

    #: The metric's registry name (`uot_errant`, ...).
    NAME: str = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        options = {k: kwargs.pop(k) for k in list(kwargs) if k not in _EVALUATE_INIT_ARGS}
        self._config_name = kwargs.get("config_name")
        self.fixed = self._config(self._config_name)
        self._check_fixed(options)
        self.init_options = self.spec.validate({**options, **self.fixed})
        self._added = 0
        super().__init__(*args, **kwargs)

    def _config(self, config_name: str | None) -> dict[str, Any]:
        """The options a config name fixes (`registry.config_names`: one meaning per name everywhere)."""
        if config_name in (None, "default"):
            return {}
        names = registry.config_names(self.NAME)
        if config_name in names:
            return names[config_name]
        hint = ""
        if config_name in registry.NAMES:
            metric = registry.PRESETS[config_name].metric if config_name in registry.PRESETS else config_name
            hint = (f"; {config_name!r} is the registry's {registry.title(config_name)}, a config of "
                    f"metrics/{metric}")
            prefixed = self.spec.config_prefix + config_name
            if prefixed in names:
                hint += f" (this metric's variant {config_name!r} is the config {prefixed!r})"
        raise ValueError(f"{self.NAME}: unknown config name {config_name!r}; choose one of {list(names)}{hint}")

    def _check_fixed(self, options: Mapping[str, Any]) -> None:
        """Refuse an option that contradicts what the config name fixes (never a silent override)."""
        clash = {k: v for k, v in options.items() if k in self.fixed and v != self.fixed[k]}
        if clash:
            raise ValueError(f"{self.NAME}: config {self._config_name!r} fixes {self.fixed}; got {clash} — load "
                             f"another config instead: {list(registry.config_names(self.NAME))}")

    @property
    def spec(self) -> MetricSpec:
        """The metric's option schema."""
        return registry.SPECS[self.NAME]

    @property
    def DEFAULTS(self) -> dict[str, Any]:  # noqa: N802 - read by integrations as on any module
        """Every option with its default."""
        return self.spec.defaults

    @abc.abstractmethod
    def _info(self) -> evaluate.MetricInfo:
        """Module metadata (subclasses describe themselves)."""

    def metric_info(self, description: str, citation: str, inputs_description: str, *, codebase_urls: list[str],
                    reference_urls: list[str], homepage: str = "") -> evaluate.MetricInfo:
        """The `MetricInfo` of a gecscore metric: text features (see `text_features`), Apache-2.0."""
        return evaluate.MetricInfo(
            description=description, citation=citation, inputs_description=inputs_description,
            features=text_features(with_references=not self.spec.reference_free), homepage=homepage,
            codebase_urls=codebase_urls, reference_urls=reference_urls, license="Apache-2.0")

    def options(self, compute_kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """Init options overridden by compute options, all checked (defaults not filled in)."""
        self._check_fixed(compute_kwargs)
        given = {**self.init_options, **self.spec.validate(compute_kwargs)}
        self.spec.check_applicable(given)
        return given

    def score(self, sources: Any, predictions: Any, references: Any, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Run the metric on `_compute`'s arguments (its `locals()`) and return the evaluate result."""
        options = {k: v for k, v in arguments.items() if k not in _INPUTS}
        sentence_scores = options[self.spec.sentence_option]
        progress = options.pop("progress")
        if self.spec.reference_free:
            references = None
        elif references is not None and not any(references):
            references = None  # an input option (a gold M2) stands in for them
        gold_m2 = options.pop("gold_m2", None)
        replaced = any(options.get(name) is not None for name in self.spec.replaces_sentences)
        defaults = self.spec.defaults  # `compute` checked what was given; defaults need no second check
        options = {k: v for k, v in options.items() if k == "variant" or v != defaults[k]}
        if replaced and not predictions:
            sources = predictions = None
        result = registry.run(self.NAME, sources, predictions, references, gold_m2=gold_m2, progress=progress,
                              **options)
        if self._config_name in registry.PRESETS:  # the signature names the metric the user asked for
            result.signature = registry.named(self._config_name, result.signature)
        return result.as_dict(sentence_scores=sentence_scores)

    def _normalise_batch(self, sources: Any, predictions: Any, references: Any) -> dict[str, Any]:
        where = f" (batch starting at example {self._added})" if self._added else ""
        try:
            sources = check_texts("sources", sources)
            predictions = check_texts("predictions", predictions)
            n = check_same_length(sources=sources, predictions=predictions)
            batch: dict[str, Any] = {"sources": sources, "predictions": predictions}
            if self.spec.reference_free:
                if references is not None:
                    raise TypeError(f"{type(self).__name__} is reference-free; do not pass `references`")
            elif references is None and self.spec.names("input"):
                batch["references"] = [[] for _ in range(n)]  # given through an input option instead
            else:
                batch["references"] = check_references(references, n)
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
        if "references" in batch:
            kwargs["references"] = batch["references"]
        return super().add_batch(sources=batch["sources"], predictions=batch["predictions"], **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score everything added so far plus the given examples; returns a dict of scores and a signature.

        Options are checked first, so a bad option leaves the added examples in place. Without sentences, an
        input option that replaces them (CLEME's `hyp_m2` + `ref_m2`) is scored directly.
        """
        sources = kwargs.pop("sources", None)
        options = self.options(kwargs)
        inputs = [v for v in (sources, predictions, references) if v is not None]
        replaced = any(options.get(name) is not None for name in self.spec.replaces_sentences)
        if not inputs and not self._added and replaced:
            merged = {**self.spec.defaults, **options}
            return self.score(None, None, None, merged)
        if inputs:
            self.add_batch(sources=sources, predictions=predictions, references=references)
        elif self._added == 0:
            raise ValueError("nothing to score: pass `sources`, `predictions` (and `references`) or add examples first")
        self._added = 0
        return super().compute(**options)

    # evaluate's distributed rendez-vous fails with a lock-file message; say which process never arrived instead.
    def _check_all_processes_locks(self) -> None:
        self._rendez_vous(super()._check_all_processes_locks)

    def _check_rendez_vous(self) -> None:
        self._rendez_vous(super()._check_rendez_vous)

    def _get_all_cache_files(self) -> Any:
        return self._rendez_vous(super()._get_all_cache_files)

    def _rendez_vous(self, step: Any) -> Any:
        start = time.monotonic()
        try:
            return step()
        except ValueError as error:
            match = re.search(r"-(\d+)\.arrow", str(error))
            if match is None:
                raise
            raise ValueError(
                f"{self.NAME}: distributed evaluation with num_process={self.num_process}: process {match.group(1)} "
                f"never arrived; process {self.process_id} waited {time.monotonic() - start:.0f} s (timeout="
                f"{self.timeout}). Every process must load the metric with the same num_process and experiment_id "
                "and call compute; raise `timeout` for slow peers.") from None
