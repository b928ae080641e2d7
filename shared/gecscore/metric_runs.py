"""Run one of our metrics on plain lists and keep what resampling needs (CLI, Trainer hook, bootstrap).

`score_systems(metric, sources, {name: predictions}, references, gold_m2=..., **options)` returns, per system,
the corpus scalars as the metric's evaluate module names them, the signature, one record per sentence and a
corpus statistic of the headline score (`gecscore.common.bootstrap`) built from the per-sentence sufficient statistics
of this one run: counts against every reference for the greedy ERRANT / M² / CLEME corpus rules, sentence scores
for the averaged ones. UOT-ERRANT, ERRANT, CLEME2.0 and IMPARA-GED run through their cores (what their modules
call); PT-M2 through its evaluate module (`metrics/pt_m2`), which holds its input dispatch.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from gecscore.common.bootstrap import Aggregate, CorpusStatistic, SentenceMean

METRICS: tuple[str, ...] = ("uot_errant", "pt_m2", "cleme2", "impara_ged", "errant")
REFERENCE_FREE: frozenset[str] = frozenset({"impara_ged"})

#: Options each metric takes here (its evaluate module's options, less output switches and input channels).
OPTIONS: dict[str, tuple[str, ...]] = {
    "uot_errant": ("model", "variant", "beta", "vectorize", "mass", "cost", "reg", "reg_m", "max_length",
                   "batch_size", "device", "robust", "tokenize"),
    "errant": ("beta", "tokenize"),
    "pt_m2": ("variant", "scorer", "model", "layer", "beta", "max_unchanged_words", "tokenize", "device"),
    "cleme2": ("variant", "level", "assumption", "weighting", "alpha", "beta", "release", "model", "layer",
               "device"),
    "impara_ged": ("model", "variant", "pooling", "max_length", "batch_size", "device", "fp16", "revision",
                   "se_model", "threshold"),
}

METRICS_DIR_ENV = "GECSCORE_METRICS_DIR"


@dataclass
class SystemRun:
    """One system's result: corpus scalars, the headline key, signature, sentence records and a corpus statistic."""

    scores: dict[str, float]
    main: str
    signature: str
    sentences: list[dict[str, Any]]
    statistic: CorpusStatistic = field(repr=False)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of sentences."""
        return len(self.sentences)

    def as_dict(self) -> dict[str, Any]:
        """Scalars, non-scalar details and the signature, as the evaluate module returns them."""
        return {**self.scores, **self.details, "signature": self.signature}


def check_options(metric: str, options: Mapping[str, Any]) -> None:
    """Raise `TypeError` naming options `metric` does not take."""
    if metric not in OPTIONS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {list(METRICS)}")
    unknown = sorted(set(options) - set(OPTIONS[metric]))
    if unknown:
        raise TypeError(f"metric {metric!r} got unknown option(s) {unknown}; known options: {sorted(OPTIONS[metric])}")


def score_systems(metric: str, sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                  references: Sequence[Sequence[str]] | None = None, *, gold_m2: Any = None, progress: bool = False,
                  **options: Any) -> dict[str, SystemRun]:
    """Score several systems on the same sources; `gold_m2` (path, M2 text or parsed sentences) may stand in for
    the references (its annotators' corrections; PT-M2 uses the M2 itself)."""
    check_options(metric, options)
    if not systems:
        raise ValueError("`systems` is empty; give at least one system's predictions")
    if metric in REFERENCE_FREE:
        if references is not None or gold_m2 is not None:
            raise ValueError(f"{metric} is reference-free; give no references or gold M2")
    elif references is None and gold_m2 is None:
        raise ValueError(f"{metric} needs references or a gold M2")
    if metric == "pt_m2":
        return {name: _pt_m2(sources, preds, references, gold_m2, progress, options)
                for name, preds in systems.items()}
    if references is None and gold_m2 is not None:
        references = _m2_references(gold_m2)
    if metric in ("uot_errant", "errant"):
        return _uot(sources, systems, references, progress, {**options, "variant": "errant"}
                    if metric == "errant" else options)
    runner = _cleme2 if metric == "cleme2" else _impara
    return {name: runner(sources, preds, references, progress, options) for name, preds in systems.items()}


def score(metric: str, sources: Sequence[str], predictions: Sequence[str],
          references: Sequence[Sequence[str]] | None = None, **kwargs: Any) -> SystemRun:
    """Score one system (see `score_systems`)."""
    return score_systems(metric, sources, {"system": predictions}, references, **kwargs)["system"]


def _split(out: dict[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
    """Scalar results and the rest (signature and per-sentence lists excluded)."""
    scalars = {k: float(v) for k, v in out.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    rest = {k: v for k, v in out.items() if k not in scalars and k != "signature"}
    return scalars, rest


# ---------------------------------------------------------------------------------------------------
# Per metric


def _uot(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
         progress: bool, options: dict[str, Any]) -> dict[str, SystemRun]:
    from gecscore.common.corpus_rules import errant_greedy
    from gecscore.uot_errant.metric import UOTConfig, UOTErrant

    config = UOTConfig(**options)
    results = UOTErrant(config, progress=progress).score_systems(sources, systems, references)
    runs = {}
    for name, result in results.items():
        out = result.as_dict(sentence_scores=True)
        sentences = out.pop("sentence_scores")
        scores, details = _split(out)
        statistic = errant_greedy([s.per_ref for s in result.sentences], config.rule)
        runs[name] = SystemRun(scores, config.f_name, out["signature"], sentences, statistic, details)
    return runs


def _pt_m2(sources: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]] | None,
           gold_m2: Any, progress: bool, options: dict[str, Any]) -> SystemRun:
    from gecscore.common.corpus_rules import errant_greedy, m2_greedy
    from gecscore.common.errant_scoring import Counts, FScore
    from gecscore.pt_m2.lattice import Counts as M2Counts

    kwargs = {"references": references} if references is not None else {}
    out = load_module("pt_m2").compute(sources=list(sources), predictions=list(predictions), gold_m2=gold_m2,
                                       return_edits=True, sentence_scores=True, progress=progress, **options,
                                       **kwargs)
    records = out.pop("edits")
    sentence_f = out.pop("sentence_scores")
    scores, details = _split(out)
    variant, beta = options.get("variant", "sentm2"), options.get("beta", 0.5)
    who = "annotator" if variant in ("m2", "sentm2") else "reference"
    f_key = f"f{beta:g}"
    sentences = [{f_key: f, "precision": r["precision"], "recall": r["recall"], who: r[who]}
                 for f, r in zip(sentence_f, records)]
    statistic: CorpusStatistic
    if variant == "m2":
        statistic = m2_greedy([[M2Counts(c["correct"], c["proposed"], c["gold"]) for c in r["candidates"]]
                               for r in records], beta)
    elif variant == "errant":
        # The records keep (TP, TP+FP, TP+FN); FP and FN are recovered by subtraction (exact for unit weights).
        statistic = errant_greedy([[Counts(c["correct"], c["proposed"] - c["correct"], c["gold"] - c["correct"])
                                    for c in r["candidates"]] for r in records], FScore(beta, "errant"))
    else:
        statistic = SentenceMean(sentence_f)
    return SystemRun(scores, "score", out["signature"], sentences, statistic, details)


def _cleme2(sources: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]],
            progress: bool, options: dict[str, Any]) -> SystemRun:
    from gecscore.cleme2.metric import ChunkCounts
    from gecscore.cleme2.metric import ClemeConfig, cleme_score
    from gecscore.common.corpus_rules import heuo_greedy

    settings = dict(options)
    device = settings.pop("device", None)
    if settings.get("alpha") is not None:
        settings["alpha"] = tuple(settings["alpha"])
    config = ClemeConfig(**settings)
    out = cleme_score(sources, predictions, references, device=device, sentences=True, progress=progress,
                      **settings)
    entries = out.pop("sentences")
    scores, details = _split(out)
    per_ref = [[ChunkCounts(**{_CHUNK_FIELDS[k]: v for k, v in ref["counts"].items()}) for ref in entry["per_ref"]]
               for entry in entries]
    statistic: CorpusStatistic
    if config.variant == "cleme2" and config.level == "corpus":
        statistic = heuo_greedy(per_ref, config.alpha)
    elif config.variant == "cleme2":
        statistic = SentenceMean([entry["score"] for entry in entries])
    else:  # CLEME v1 rounds its indicators: its own Python rule, resample by resample
        level = config.scorer.corpus if config.level == "corpus" else config.scorer.sentence
        statistic = Aggregate(per_ref, lambda counts: level(counts).score)
    sentences = [{k: v for k, v in entry.items() if k != "per_ref"} for entry in entries]
    return SystemRun(scores, "score", out["signature"], sentences, statistic, details)


_CHUNK_FIELDS = {"TP": "tp", "FP": "fp", "FP_ne": "fp_ne", "FP_un": "fp_un", "FN": "fn", "TN": "tn"}


def _impara(sources: Sequence[str], predictions: Sequence[str], references: Any, progress: bool,
            options: dict[str, Any]) -> SystemRun:
    from gecscore.impara_ged.metric import Impara

    result = Impara(**options).score(sources, predictions, progress=progress)
    values = [float(x) for x in result.sentence_scores]
    return SystemRun({"score": result.score}, "score", result.signature, [{"score": v} for v in values],
                     SentenceMean(values))


def _m2_references(gold_m2: Any) -> list[list[str]]:
    """Every annotator's correction per sentence (`gecscore.pt_m2.metric.m2_references`) from a path, text or parsed M2."""
    from gecscore.common.m2io import parse_m2, read_m2
    from gecscore.pt_m2.metric import m2_references

    if isinstance(gold_m2, (str, os.PathLike)):
        text = os.fspath(gold_m2)
        gold_m2 = parse_m2(text) if "\n" in text else read_m2(text)
    return m2_references(list(gold_m2))


# ---------------------------------------------------------------------------------------------------
# Evaluate modules of the working tree


_MODULES: dict[str, Any] = {}


def metrics_dir() -> Path:
    """`metrics/` of the checkout (or `$GECSCORE_METRICS_DIR`), where the evaluate scripts live."""
    configured = os.environ.get(METRICS_DIR_ENV)
    path = Path(configured) if configured else Path(__file__).resolve().parents[2] / "metrics"
    if not path.is_dir():
        raise FileNotFoundError(f"no evaluate scripts at {path}; set ${METRICS_DIR_ENV} to the `metrics/` directory")
    return path


def load_module(name: str) -> Any:
    """The evaluate module `metrics/<name>` (loaded once per process, in memory)."""
    if name not in _MODULES:
        import evaluate

        _MODULES[name] = evaluate.load(str(metrics_dir() / name), keep_in_memory=True)
    return _MODULES[name]


def core_options(metric: str) -> tuple[str, ...]:
    """The options the metric's core or module declares (for checking `OPTIONS` against the code)."""
    if metric in ("uot_errant", "errant"):
        from gecscore.uot_errant.metric import UOTConfig

        names = tuple(f.name for f in dataclasses.fields(UOTConfig))
        return names if metric == "uot_errant" else ("beta", "tokenize")
    if metric == "cleme2":
        from gecscore.cleme2.metric import ClemeConfig

        return (*(f.name for f in dataclasses.fields(ClemeConfig)), "device")
    if metric == "impara_ged":
        from gecscore.impara_ged.metric import Impara

        return tuple(inspect.signature(Impara).parameters)
    defaults = type(load_module("pt_m2")).DEFAULTS
    return tuple(k for k in defaults if k not in ("gold_m2", "sentence_scores", "return_edits", "progress"))
