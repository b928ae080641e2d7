"""SOME scoring as gec-metrics 0.1.1 computes it (docs/reference-behaviour.md, section "SOME").

Three one-logit BERT regressors rate a correction on the 1-4 scale of their training data: grammaticality and
fluency read the prediction, meaning preservation reads the (source, prediction) pair. Each rating r is normalised
to (r − 1) / 3, and a sentence's score is `weight_f·f + weight_g·g + weight_m·m` (the paper's weights 0.43, 0.55,
0.02); the corpus score is the mean of the sentence scores.

Exactness: the regressors run as gec-metrics runs them, in corpus-order batches of `batch_size` texts padded to
`max_length` with the fluency model's tokenizer, and the normalisation, weighting and mean are Python float
arithmetic in the same order, so the scores are the reference's floats on the same machine. Inputs longer than
`max_length` tokens are truncated, as there, and flagged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.common.bootstrap import Aggregate
from gecscore.common.encoders import cannot_load, check_loadable, check_model_path, resolve_model, select_device, \
    shared_model, usable_length
from gecscore.common.progress import progress_bar
from gecscore.common.results import TRUNCATED, MetricResult, flag, merge, sentence_core
from gecscore.common.signature import make_signature
from gecscore.common.statistics import Statistics
from gecscore.common.workers import capped_torch_threads
from gecscore.some import SPEC

#: The aspects in the order of the options (`model_g`, `model_f`, `model_m`) and their record names.
ASPECTS = {"g": "grammaticality", "f": "fluency", "m": "meaning"}
#: The rating scale the regressors were trained on, normalised to [0, 1].
RATING_MIN, RATING_MAX = 1, 4
#: The settings that change the numbers, in signature order.
SETTINGS = ("model_g", "model_f", "model_m", "weight_g", "weight_f", "weight_m", "max_length", "tokenize", "robust")
REGRESSOR_ALTERNATIVE = ("model_g, model_f and model_m set to local copies of the three regressors (one-logit "
                         "sequence classifiers)")


# ---------------------------------------------------------------------------------------------------
# Pure core


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class SOMEStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): every sentence's three normalised ratings."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("grammaticality", "fluency", "meaning")

    grammaticality: tuple[float, ...]
    fluency: tuple[float, ...]
    meaning: tuple[float, ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now, without loading weights, the error a run with `options` would raise loading a regressor."""
    opts = SPEC.resolve(options)
    for aspect in ASPECTS:
        check_loadable(opts[f"model_{aspect}"], role="the SOME regressor", alternative=REGRESSOR_ALTERNATIVE)


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Any = None, *,
                       progress: bool = False, **options: Any) -> dict[str, SOMEStatistics]:
    """Every system's three ratings per sentence (reference-free: the registry refuses references before this runs)."""
    opts = SPEC.resolve(options)
    device = resolve_device(opts["device"], opts["no_cuda"])
    regressors = Regressors({aspect: opts[f"model_{aspect}"] for aspect in ASPECTS}, device, opts["max_length"])
    signature = make_signature("some", {k: opts[k] for k in SETTINGS})
    out = {}
    for name, predictions in systems.items():
        single, pairs = regressors.lengths(sources, predictions)
        limit = opts["max_length"]
        degenerate = merge(
            [flag(i, TRUNCATED, text="prediction", estimator="grammaticality and fluency", tokens=n, limit=limit)
             for i, n in enumerate(single) if n > limit],
            [flag(i, TRUNCATED, text="source and prediction", estimator="meaning", tokens=n, limit=limit)
             for i, n in enumerate(pairs) if n > limit])
        ratings = regressors.ratings(sources, predictions, batch_size=opts["batch_size"], progress=progress)
        out[name] = SOMEStatistics(settings=opts, signature=signature, degenerate=tuple(degenerate),
                                   **{ASPECTS[a]: tuple(values) for a, values in ratings.items()})
    return out


def score(stats: SOMEStatistics) -> MetricResult:
    """Each sentence's weighted rating (clipped with robust=True) and the corpus mean."""
    weights = {aspect: stats.settings[f"weight_{aspect}"] for aspect in ASPECTS}
    robust = bool(stats.settings.get("robust", False))
    sentences, values = [], []
    for g, f, m in zip(stats.grammaticality, stats.fluency, stats.meaning):
        if robust:
            g, f, m = clipped(g), clipped(f), clipped(m)
        value = weighted(g, f, m, weights)
        value = clipped(value) if robust else value
        record = sentence_core(value, None, [])
        record.update(some=value, grammaticality=g, fluency=f, meaning=m)
        sentences.append(record)
        values.append(value)
    return MetricResult("some", {"some": mean_in_order(values)}, "some", sentences, Aggregate(values, mean_in_order),
                        stats.signature, {"degenerate_sentences": [dict(d) for d in stats.degenerate]},
                        sentence_output=values)


# ---------------------------------------------------------------------------------------------------
# Helpers


def normalise(rating: float) -> float:
    """A 1-4 rating min-max normalised to [0, 1] (outside it when the regressor leaves the scale)."""
    return (rating - RATING_MIN) / (RATING_MAX - RATING_MIN)


def weighted(grammaticality: float, fluency: float, meaning: float, weights: Mapping[str, float]) -> float:
    """A sentence's SOME score, summed in gec-metrics' order (fluency, grammaticality, meaning)."""
    return weights["f"] * fluency + weights["g"] * grammaticality + weights["m"] * meaning


def clipped(value: float) -> float:
    """`value` within [0, 1] (robust mode)."""
    return min(1.0, max(0.0, value))


def mean_in_order(values: list[float]) -> float:
    """The corpus rule: the sentence scores summed left to right, over their count (gec-metrics' float)."""
    return sum(values) / len(values)


# ---------------------------------------------------------------------------------------------------
# Models


def check_regressor(config: Any, name: str, missing_keys: Sequence[str] = ()) -> None:
    """Raise unless `config` (and the missing keys of a load) describe a trained one-logit sequence classifier."""
    architectures = getattr(config, "architectures", None) or []
    if not any(a.endswith("ForSequenceClassification") for a in architectures) or config.num_labels != 1:
        raise ValueError(f"checkpoint {name!r} is not a one-logit sequence classifier (architectures="
                         f"{architectures}, num_labels={config.num_labels}); SOME needs its regressors")
    head = [k for k in missing_keys if "classifier" in k or k.startswith("head.")]
    if head:
        raise ValueError(f"checkpoint {name!r} lacks the weights of its regression head: {head}")


def load_regressor(name_or_path: str, device: str) -> tuple[Any, Any]:
    """(model, tokenizer) of one regressor, loaded once per process through the shared model service."""
    def load() -> tuple[Any, Any]:
        from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

        path = resolve_model(name_or_path)
        check_model_path(path, role="the SOME regressor", alternative=REGRESSOR_ALTERNATIVE)
        try:
            check_regressor(AutoConfig.from_pretrained(path), name_or_path)
            model, info = AutoModelForSequenceClassification.from_pretrained(path, output_loading_info=True)
            tokenizer = AutoTokenizer.from_pretrained(path)
        except OSError as error:
            raise cannot_load(name_or_path, error, role="the SOME regressor",
                              alternative=REGRESSOR_ALTERNATIVE) from error
        check_regressor(model.config, name_or_path, info.get("missing_keys", ()))
        return model.to(device).eval(), tokenizer

    return shared_model("some_regressor", (resolve_model(name_or_path), device), load)


def resolve_device(device: str | None, no_cuda: bool) -> str:
    """The device the regressors run on: the CPU with `no_cuda`, else `device` or CUDA when available."""
    if no_cuda:
        if device not in (None, "cpu"):
            raise ValueError(f"no_cuda=True asks for the CPU but device={device!r}; give one of them")
        return "cpu"
    return select_device(device)


class Regressors:
    """The three loaded regressors and the fluency model's tokenizer, which gec-metrics uses for all three."""

    def __init__(self, names: Mapping[str, str], device: str, max_length: int) -> None:
        self.names = dict(names)
        loaded = {aspect: load_regressor(name, device) for aspect, name in self.names.items()}
        self.models = {aspect: model for aspect, (model, _) in loaded.items()}
        self.tokenizer = loaded["f"][1]
        for aspect, model in self.models.items():
            limit = usable_length(model, self.tokenizer)
            if limit is not None and max_length > limit:
                raise ValueError(f"`max_length`={max_length} is more than the {ASPECTS[aspect]} regressor "
                                 f"{self.names[aspect]!r} can read ({limit} tokens, special tokens included); pass "
                                 f"max_length={limit} or less")
        self.max_length = max_length

    def lengths(self, sources: Sequence[str], predictions: Sequence[str]) -> tuple[list[int], list[int]]:
        """The untruncated token counts (special tokens included) of each prediction and each (source, prediction)
        pair."""
        single = self.tokenizer(list(predictions), verbose=False)["input_ids"]
        pairs = self.tokenizer(list(sources), list(predictions), verbose=False)["input_ids"]
        return [len(ids) for ids in single], [len(ids) for ids in pairs]

    def ratings(self, sources: Sequence[str], predictions: Sequence[str], *, batch_size: int,
                progress: bool = False) -> dict[str, list[float]]:
        """Each aspect's normalised rating of every sentence, batch by batch in corpus order as gec-metrics runs."""
        import torch

        encode = dict(max_length=self.max_length, padding="max_length", truncation=True, return_tensors="pt")
        out: dict[str, list[float]] = {aspect: [] for aspect in ASPECTS}
        starts = progress_bar(range(0, len(predictions), batch_size), desc="SOME", disable=not progress)
        for start in starts:
            hyps = list(predictions[start:start + batch_size])
            srcs = list(sources[start:start + batch_size])
            single = self.tokenizer(hyps, **encode)  # gec-metrics encodes it twice, identically
            inputs = {"g": single, "f": single, "m": self.tokenizer(srcs, hyps, **encode)}
            with torch.no_grad(), capped_torch_threads(str(next(iter(self.models.values())).device)):
                for aspect, model in self.models.items():
                    batch = {k: v.to(model.device) for k, v in inputs[aspect].items()}
                    out[aspect] += [normalise(r) for r in model(**batch).logits.view(-1).tolist()]
        for aspect, values in out.items():
            bad = [i for i, v in enumerate(values) if not np.isfinite(v)]
            if bad:
                raise ValueError(f"the {ASPECTS[aspect]} regressor {self.names[aspect]!r} returned "
                                 f"{values[bad[0]]} for `predictions[{bad[0]}]`")
        return out


# ---------------------------------------------------------------------------------------------------
# The metric


