"""Our metrics where people already evaluate: `Seq2SeqTrainer.compute_metrics` and `evaluate.combine`.

* `seq2seq_compute_metrics(tokenizer, metrics, sources=None, **options)` builds a `compute_metrics` for
  `Seq2SeqTrainer(..., predict_with_generate=True)`: it replaces -100 in predictions, labels and inputs by the pad
  id before decoding, takes the sources from `eval_pred.inputs` (`include_for_metrics=["inputs"]`) or from a list,
  runs our metrics and returns scalars only (`<metric>_<key>`; the Trainer adds `eval_`). It also accepts
  `compute_result` (`batch_eval_metrics=True`): batches are decoded as they come and scored on the last one.
  Under several processes (`torchrun`, `accelerate launch`) each rank scores one shard of the evaluation set and
  every rank gets the merged numbers (`gecscore.sharding`); `shard=False` scores everything on every rank.
* `combine(modules)` is `evaluate.combine` whose `compute` hands each module only the inputs it declares and the
  options it takes. `evaluate.combine` itself forwards every keyword to every module, so
  `compute(sources=..., ...)` or a metric option breaks a standard metric such as exact_match (`TypeError`); it
  does work when options go to `evaluate.load(...)` and the inputs to `add_batch(...)` before a bare `compute()`.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any, Callable, Iterable, Mapping, Sequence

import evaluate
import numpy as np

from gecscore.evaluate_module import GECMetric
from gecscore import registry, sharding


def accepts(module: Any, key: str) -> bool:
    """Does an evaluate module take compute option `key`? (ours: its `DEFAULTS`; others: `_compute`'s signature)"""
    if isinstance(module, GECMetric):
        return key in module.DEFAULTS
    parameters = inspect.signature(module._compute).parameters.values()
    return any(p.kind is p.VAR_KEYWORD or p.name == key for p in parameters)


def scalars(result: Mapping[str, Any] | None, prefix: str = "") -> dict[str, float]:
    """The numeric entries of a result as floats (strings, lists and dicts dropped), keys prefixed."""
    return {f"{prefix}{k}": float(v) for k, v in (result or {}).items()
            if isinstance(v, numbers.Real) and not isinstance(v, bool)}


# ---------------------------------------------------------------------------------------------------
# evaluate.combine


class CombinedEvaluations(evaluate.CombinedEvaluations):
    """`evaluate.combine` whose `compute` routes inputs and options per module (`add`/`add_batch` are evaluate's)."""

    def compute(self, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """Compute every module on the inputs it declares with the options it takes; an option that no module
        takes is a `TypeError`. Returns None off the main process, as evaluate does."""
        modules = self.evaluation_modules
        features = set().union(*(m._feature_names() for m in modules))
        given = {"predictions": predictions, "references": references,
                 **{k: v for k, v in kwargs.items() if k in features}}
        options = {k: v for k, v in kwargs.items() if k not in features}
        unused = sorted(k for k in options if not any(accepts(m, k) for m in modules))
        if unused:
            raise TypeError(f"no combined module takes option(s) {unused} (modules: {self.evaluation_module_names})")
        results = []
        for module in modules:
            inputs = {k: given[k] for k in module._feature_names() if given.get(k) is not None}
            results.append(module.compute(**inputs, **{k: v for k, v in options.items() if accepts(module, k)}))
        if any(result is None for result in results):
            return None
        return self._merge_results(results)


def combine(evaluations: Sequence[Any] | Mapping[str, Any], force_prefix: bool = False) -> CombinedEvaluations:
    """Like `evaluate.combine(evaluations, force_prefix)` (modules or paths), with per-module routing in `compute`."""
    return CombinedEvaluations(evaluations, force_prefix=force_prefix)


# ---------------------------------------------------------------------------------------------------
# Seq2SeqTrainer


MetricChoice = Any  # a metric name, or a loaded evaluate module


class Seq2SeqMetrics:
    """The `compute_metrics` callable made by `seq2seq_compute_metrics`."""

    def __init__(self, tokenizer: Any, metrics: Iterable[MetricChoice] | Mapping[str, Mapping[str, Any]],
                 sources: Sequence[str] | None = None, decode_kwargs: Mapping[str, Any] | None = None,
                 robust: bool = True, shard: bool = True, **options: Any) -> None:
        if getattr(tokenizer, "pad_token_id", None) is None:
            raise ValueError("the tokenizer has no pad token; -100 cannot be replaced before decoding")
        self.tokenizer = tokenizer
        self.sources = None if sources is None else list(sources)
        self.shard = shard
        self.decode_kwargs = {"skip_special_tokens": True, "clean_up_tokenization_spaces": False,
                              **(decode_kwargs or {})}
        self.metrics = _resolve(metrics, options)
        for prefix, (module, opts) in self.metrics.items():  # robust unless a metric's own options say otherwise
            takes = accepts(module, "robust") if module is not None else "robust" in registry.allowed_options(prefix)
            if takes:
                opts.setdefault("robust", robust)
        check_models(self.metrics)
        self._texts: dict[str, list[str]] = {"sources": [], "predictions": [], "references": []}

    def __call__(self, eval_pred: Any, compute_result: bool = True) -> dict[str, float]:
        """Decode this evaluation's (or batch's) outputs; score everything seen so far when `compute_result`."""
        predictions = _ids(eval_pred.predictions, "predictions")
        if predictions.ndim == 3:
            raise ValueError("predictions are logits (3-D); use Seq2SeqTrainingArguments(predict_with_generate=True)")
        labels = _ids(eval_pred.label_ids, "label_ids")
        batch = {"predictions": self._decode(predictions), "references": self._decode(labels)}
        batch["sources"] = self._sources(eval_pred, len(batch["predictions"]))
        for prefix, (module, _) in self.metrics.items():
            if module is not None:
                module.add_batch(**{k: batch[k] for k in module._feature_names()})
        for key, texts in batch.items():
            self._texts[key] += texts
        if not compute_result:
            return {}
        texts, self._texts = self._texts, {"sources": [], "predictions": [], "references": []}
        out: dict[str, float] = {}
        for prefix, (module, opts) in self.metrics.items():
            if module is not None:
                out.update(scalars(module.compute(**opts), f"{prefix}_"))
                continue
            references = None if registry.spec(prefix).reference_free else [[r] for r in texts["references"]]
            if self.shard:  # one shard per rank under torch.distributed (all ranks call compute_metrics)
                run = sharding.run_sharded(prefix, texts["sources"], texts["predictions"], references,
                                           fallback=True, **opts)
            else:
                run = registry.run(prefix, texts["sources"], texts["predictions"], references, **opts)
            out.update(scalars(run.scores, f"{prefix}_"))
        return out

    def _decode(self, ids: np.ndarray) -> list[str]:
        ids = np.where(ids != -100, ids, self.tokenizer.pad_token_id)
        return [text.strip() for text in self.tokenizer.batch_decode(ids.tolist(), **self.decode_kwargs)]

    def _sources(self, eval_pred: Any, n: int) -> list[str]:
        if self.sources is not None:
            start = len(self._texts["predictions"])
            if start + n > len(self.sources):
                raise ValueError(f"`sources` has {len(self.sources)} sentences but the evaluation has at least "
                                 f"{start + n} predictions")
            return self.sources[start:start + n]
        inputs = getattr(eval_pred, "inputs", None)
        if inputs is None:
            raise ValueError("no sources: pass `sources=` or set include_for_metrics=['inputs'] in the training "
                             "arguments")
        if isinstance(inputs, Mapping):  # batch_eval_metrics hands over the whole input batch
            inputs = inputs["input_ids"]
        return self._decode(_ids(inputs, "inputs"))


def _ids(value: Any, name: str) -> np.ndarray:
    """Token ids as a numpy array (tensors moved to the CPU; a tuple's first element)."""
    if isinstance(value, tuple):
        value = value[0]
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    array = np.asarray(value)
    if array.ndim not in (2, 3):
        raise ValueError(f"`{name}` must be a 2-D array of token ids, got shape {array.shape}")
    return array


def _resolve(metrics: Iterable[MetricChoice] | Mapping[str, Mapping[str, Any]],
             options: Mapping[str, Any]) -> dict[str, tuple[Any, dict[str, Any]]]:
    """prefix → (evaluate module or None for our metric names, options it gets); `options` go to every metric
    that takes them, a mapping's own options win."""
    items = list(metrics.items()) if isinstance(metrics, Mapping) else [(m, {}) for m in metrics]
    if not items:
        raise ValueError("`metrics` is empty; name at least one metric")
    resolved: dict[str, tuple[Any, dict[str, Any]]] = {}
    used: set[str] = set()
    for spec, own in items:
        if isinstance(spec, str):
            prefix, module = spec, None
            shared = {k: v for k, v in options.items() if k in registry.allowed_options(spec)}
            registry.check_options(spec, {**shared, **own})
        elif isinstance(spec, evaluate.EvaluationModule):
            prefix, module = spec.name, spec
            shared = {k: v for k, v in options.items() if accepts(spec, k)}
        else:
            raise TypeError(f"a metric must be a name {list(registry.NAMES)} or a loaded evaluate module, got {spec!r}")
        if prefix in resolved:
            raise ValueError(f"metric {prefix!r} is given twice")
        used |= set(shared)
        resolved[prefix] = (module, {**shared, **own})
    unused = sorted(set(options) - used)
    if unused:
        raise TypeError(f"no metric takes option(s) {unused}")
    return resolved


def check_models(metrics: Mapping[str, tuple[Any, dict[str, Any]]]) -> None:
    """Raise, for every model the metrics will load (ours by name, and our loaded evaluate modules), the error its
    loading would raise, without loading weights: a misconfigured hook fails when it is built, not at the first
    `evaluate()` after a training epoch. Other evaluate modules are left to themselves."""
    for prefix, (module, opts) in metrics.items():
        if module is None:
            registry.runner(prefix).check_models(registry.check_options(prefix, opts))
        elif isinstance(module, GECMetric):
            registry.runner(module.NAME).check_models(module.options(opts))


def seq2seq_compute_metrics(tokenizer: Any, metrics: Iterable[MetricChoice] | Mapping[str, Mapping[str, Any]] = (
        "uot_errant",), sources: Sequence[str] | None = None, *, decode_kwargs: Mapping[str, Any] | None = None,
        robust: bool = True, shard: bool = True, **metric_options: Any) -> Callable[..., dict[str, float]]:
    """A `compute_metrics` for `Seq2SeqTrainer` with `predict_with_generate=True`.

    `metrics`: our metric names (`uot_errant`, `pt_m2`, `cleme2`, `impara_ged`, `errant`), loaded evaluate
    modules, or a mapping name → its own options. `metric_options` go to every metric that takes them. Labels are
    the single reference of each example; sources come from `sources` (in evaluation order) or, decoded, from
    `eval_pred.inputs` (`include_for_metrics=["inputs"]`). Decoding skips special tokens and keeps the tokenizer's
    spaces (`clean_up_tokenization_spaces=False`: "school ." stays tokenised); `decode_kwargs` overrides that. For
    detokenised text pass `tokenize=True` where the metric offers it. Returns `{"<metric>_<key>": float}`.

    `robust=True` (the default here, unlike the evaluate modules): a model in training must not be rewarded for
    degenerate outputs — an empty generation scores as the unchanged source and every score stays in [0, 1]
    (`gecscore.common.results`). Pass `robust=False` for the published metrics' numbers.

    `shard=True` (the default): when the Trainer runs several processes (an initialised `torch.distributed`
    group), each rank parses and encodes only its shard of the evaluation set and all ranks get the merged scores,
    the numbers of one process (`gecscore.sharding.run_sharded`; a metric that cannot be merged exactly, such as
    CLEME's length weighting, is scored whole on every rank). Every rank must call the hook, as the Trainer does.
    Without a process group it changes nothing. Loaded evaluate modules are not sharded.

    Every model the metrics load is checked when the hook is built (`check_models`: a local path, an alias's
    package, a Hub id's config in the cache or on the Hub), so a misconfigured hook fails here, not at the first
    evaluation.
    """
    return Seq2SeqMetrics(tokenizer, metrics, sources, decode_kwargs, robust=robust, shard=shard, **metric_options)
