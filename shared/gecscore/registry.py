"""The one registry: every metric by name, its option schema and its runner; read by the evaluate scripts, the CLI,
the Trainer hook, `combine`, the meta-evaluation and the Spaces.

`run("pt_m2", sources, predictions, references, variant="m2", scorer="self")` checks every option against the
metric's schema before any work, runs the input layer, gathers the metric's statistics (`statistics_systems`) and
returns their `score`, a `MetricResult`; sharding and the meta-evaluation call the two halves apart. A preset is a
metric with some options fixed (`errant` = `uot_errant` with `variant="errant"`, `m2` = `pt_m2` with
`variant="m2", scorer="self"`), for the places where users expect the classic name (`gecscore score errant`,
`gecscore meta-eval --metric m2`).
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from gecscore.common.collection import rare_full_collections
from gecscore.common.inputs import check_reference_index, metric_texts, prepare
from gecscore.common.m2io import m2_references, read_m2_input
from gecscore.common.options import MetricSpec, did_you_mean, input_options
from gecscore.common.results import MetricResult, merge, report
from gecscore.common.statistics import MetricRunner, Statistics

#: The metric packages, in the order every table lists them. A metric is registered by its line here; everything
#: else about it is read from its package's SPEC (`make generate` writes the files that repeat it). A metric
#: packaged outside gecscore registers itself with one entry point instead (`ENTRY_POINTS`).
METRIC_PACKAGES: tuple[str, ...] = (
    "uot_errant",
    "pt_m2",
    "cleme2",
    "impara_ged",
    "gleu",
    "gotoscorer",
    "some",
    "scribendi",
    "green",
    "bertscore",
    "llm_kobayashi24",
)
#: The entry-point group through which another distribution adds a metric: `<name> = "<package with a SPEC>"`
#: (in pyproject.toml, `[project.entry-points."gecscore.metrics"]`). Its metrics follow ours, by name.
ENTRY_POINTS = "gecscore.metrics"


def _registered() -> dict[str, MetricSpec]:
    """Our metric packages' SPECs, then those of the entry points; two metrics of one name are an error."""
    from importlib.metadata import entry_points

    modules = [f"gecscore.{package}" for package in METRIC_PACKAGES]
    modules += [point.value for point in sorted(entry_points(group=ENTRY_POINTS), key=lambda p: p.name)]
    specs: dict[str, MetricSpec] = {}
    for module in modules:
        spec_ = getattr(importlib.import_module(module), "SPEC", None)
        if not isinstance(spec_, MetricSpec):
            raise TypeError(f"{module} is registered as a gecscore metric but has no SPEC (a MetricSpec)")
        if spec_.name in specs:
            raise ValueError(f"two metrics are named {spec_.name!r}: {module} and an earlier registration")
        specs[spec_.name] = spec_
    return specs


SPECS: dict[str, MetricSpec] = _registered()


@dataclass(frozen=True)
class Preset:
    """A registry name for a metric with some options fixed; `options_allowed` (default: every other setting) may
    be set on top, and the options every metric shares (`robust`, `tokenize`, `normalize`, `max_tokens`) always
    may."""

    metric: str
    title: str
    fixed: Mapping[str, Any]
    doc: str
    options_allowed: tuple[str, ...] | None = None


PRESETS: dict[str, Preset] = {
    "errant": Preset("uot_errant", "ERRANT", {"variant": "errant"},
                     "plain ERRANT F-beta (uot_errant, variant='errant'); convention='errant_compare' scores as "
                     "ERRANT's errant_compare (with language='zh', as ChERRANT: char-level edits from text, or its M2 files)",
                     ("beta", "convention", "evaluation", "edit_size", "filter_types", "language", "zh_lexicon")),
    "senterrant": Preset("pt_m2", "SentERRANT", {"variant": "senterrant", "scorer": "self"},
                         "mean of sentence ERRANT F-beta (pt_m2, variant='senterrant', scorer='self')",
                         ("beta", "language", "zh_lexicon")),
    "m2": Preset("pt_m2", "M²", {"variant": "m2", "scorer": "self"}, "MaxMatch M² F-beta (pt_m2, variant='m2', "
                 "scorer='self')", ("beta", "max_unchanged_words", "language", "zh_lexicon")),
    "sentm2": Preset("pt_m2", "SentM²", {"variant": "sentm2", "scorer": "self"}, "mean of sentence M² F-beta (pt_m2, "
                     "variant='sentm2', scorer='self')", ("beta", "max_unchanged_words", "language",
                                                                     "zh_lexicon")),
    "cleme": Preset("cleme2", "CLEME", {"variant": "cleme"}, "CLEME v1 chunk P/R/F (cleme2, variant='cleme')"),
    "impara": Preset("impara_ged", "IMPARA", {"variant": "impara"},
                     "the original IMPARA (impara_ged, variant='impara')"),
    "sentgleu": Preset("gleu", "SentGLEU", {"level": "sentence"}, "mean of the sentences' SentGLEU (gleu, "
                       "level='sentence'), GLEU's sentence-level system score", ("variant", "n", "unit", "language")),
    "llm-s": Preset("llm_kobayashi24", "LLM-S", {"variant": "sent"},
                    "an LLM judges whole corrected sentences (llm_kobayashi24, variant='sent')"),
    "llm-e": Preset("llm_kobayashi24", "LLM-E", {"variant": "edit"},
                    "an LLM judges the corrections' edits (llm_kobayashi24, variant='edit')"),
}
#: Every name `run` accepts: the metrics, then the presets.
NAMES: tuple[str, ...] = (*SPECS, *PRESETS)


def spec(name: str) -> MetricSpec:
    """The schema of a metric or of a preset's metric."""
    name = _check_name(name)
    return SPECS[PRESETS[name].metric if name in PRESETS else name]


def package(name: str) -> str:
    """The package that declares metric `name` (its runner module's package: `gecscore.gleu` for GLEU)."""
    return SPECS[name].runner.rpartition(".")[0]


def title(name: str) -> str:
    """How warnings and tables name `name`: the metric's title, or the preset's own (`errant` is ERRANT)."""
    name = _check_name(name)
    return PRESETS[name].title if name in PRESETS else SPECS[name].title


def config_names(metric: str) -> dict[str, dict[str, Any]]:
    """`evaluate.load(path, name)`'s config names for `metric`, each with the options it fixes.

    A registry name means one computation wherever it appears (registry, CLI, evaluate config, signature): a preset
    of this metric is a config name fixing the preset's options (`evaluate.load(".../pt_m2", "m2")` is the plain
    M² of `gecscore score m2`), and a variant is one under its own name unless that name is a registry name of
    another computation, then under the metric's `config_prefix` (PT-M2's BERTScore-weighted `m2` is `pt-m2`)."""
    spec_ = SPECS[metric]
    names = {name: dict(preset.fixed) for name, preset in PRESETS.items() if preset.metric == metric}
    for variant in spec_.variants:
        fixed = {"variant": variant}
        if variant not in NAMES or _meaning(variant) == (metric, fixed):
            names.setdefault(variant, fixed)
        elif not spec_.config_prefix:
            raise AssertionError(f"{metric}: variant {variant!r} is a registry name of another computation; "
                                 "declare a config_prefix")
        else:
            names[spec_.config_prefix + variant] = fixed
    return names


def _meaning(name: str) -> tuple[str, dict[str, Any]]:
    """The metric and fixed options a registry name stands for (a metric: its default variant)."""
    if name in PRESETS:
        return PRESETS[name].metric, dict(PRESETS[name].fixed)
    return name, {"variant": SPECS[name].option("variant").default} if SPECS[name].variants else {}


def allowed_options(name: str) -> tuple[str, ...]:
    """The options a user may give for `name` (a preset's fixed ones excluded)."""
    name = _check_name(name)
    settings = spec(name).names("setting", "text")
    if name not in PRESETS:
        return settings
    preset = PRESETS[name]
    if preset.options_allowed is None:
        return tuple(o for o in settings if o not in preset.fixed)
    shared = tuple(o.name for o in input_options() if o.name not in preset.options_allowed and o.name in settings)
    return preset.options_allowed + shared


def check_options(name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` checked for `name` (names, types, ranges) and a preset's fixed options added; raises first."""
    name = _check_name(name)
    unknown = sorted(set(options) - set(allowed_options(name)) - set(spec(name).names("output", "input", "text")))
    if unknown:
        raise TypeError(f"metric {name!r} got unknown option(s) {unknown}"
                        f"{did_you_mean(unknown, allowed_options(name))}; known options: "
                        f"{sorted(allowed_options(name))}")
    fixed = PRESETS[name].fixed if name in PRESETS else {}
    checked = spec(name).validate({**options, **fixed})
    spec(name).check_applicable(checked)
    return checked


def runner(name: str) -> MetricRunner:
    """The module with the metric's `check_models`, `statistics_systems` and `score` (`MetricRunner`), imported on
    first use so that looking up a schema loads no model code."""
    module = importlib.import_module(spec(name).runner)
    if not isinstance(module, MetricRunner):
        missing = [f for f in ("check_models", "statistics_systems", "score") if not callable(getattr(module, f, None))]
        raise TypeError(f"{module.__name__}, the runner of {name!r}, does not provide {missing} (MetricRunner)")
    return module


@dataclass(frozen=True)
class _Prepared:
    """A call's checked options and its sentences after the input layer."""

    metric: MetricSpec
    sources: Sequence[str] | None
    systems: Mapping[str, Sequence[str] | None]
    references: Sequence[Any] | None
    options: dict[str, Any]  # the metric's options (text options taken out, `max_tokens` kept)
    text: dict[str, Any]  # the input layer's options
    flags: dict[str, list[dict[str, Any]]]  # the input layer's degenerate records per system


def _prepare(name: str, sources: Sequence[str] | None, systems: Mapping[str, Sequence[str] | None],
             references: Sequence[Any] | None, gold_m2: Any, options: dict[str, Any]) -> _Prepared:
    options = check_options(name, options)
    metric = spec(name)
    if not systems:
        raise ValueError("`systems` is empty; give at least one system's predictions")
    replaced = any(options.get(o) is not None for o in metric.replaces_sentences)
    if metric.reference_free:
        if references is not None or gold_m2 is not None:
            raise ValueError(f"{name} is reference-free; give no references or gold M2")
    elif references is None and gold_m2 is None and not replaced:
        raise ValueError(f"{name} needs references: pass `references` (one string or list of strings per example)"
                         + (" or `gold_m2`" if "gold_m2" in metric.names("input") else ""))
    if "gold_m2" in metric.names("input"):  # the metric scores against the M2 itself
        options["gold_m2"] = gold_m2
    elif gold_m2 is not None and references is None:
        references = m2_references(read_m2_input(gold_m2, "gold_m2"))
    text = {k: options.pop(k, metric.option(k).default) for k in metric.names("text")}
    options["max_tokens"] = text["max_tokens"]  # the metrics also bound their encoder work by it
    flags: dict[str, list[dict[str, Any]]] = {system: [] for system in systems}
    if not (replaced and sources is None):
        prepared = prepare(sources, systems, references, robust=options.get("robust", False),
                           language=options.get("language", "en"), **text)  # what an empty reference is
        sources, systems, references, flags = (prepared.sources, prepared.systems, prepared.references,
                                               prepared.flags)
    if metric.reference_option is not None:
        option = metric.reference_option
        check_reference_index(references, option, options.get(option, metric.option(option).default), metric.title)
    return _Prepared(metric, sources, systems, references, options, text, flags)


def _metric_texts(call: _Prepared) -> tuple[Any, Mapping[str, Any], Any]:
    """The sentences in the form the metric takes them (`MetricSpec.text_form`; None: as the input layer left
    them, for the metric to prepare)."""
    if call.metric.text_form is None or call.sources is None:
        return call.sources, call.systems, call.references
    tokenize = call.options.get("tokenize", call.metric.option("tokenize").default)
    language = call.options.get("language", "en")
    if language == "zh" and call.options.get("unit") == "char":
        raise ValueError("`unit='char'` does not apply to language='zh', whose tokens are characters already; drop "
                         "`unit`")
    return metric_texts(call.metric.text_form, call.sources, call.systems, call.references, tokenize=tokenize,
                        language=language, read_sources=call.metric.reads_sources(
                            call.options.get("variant", call.metric.variants[0] if call.metric.variants else None)))


def statistics_systems(name: str, sources: Sequence[str] | None, systems: Mapping[str, Sequence[str] | None],
                       references: Sequence[Any] | None = None, *, gold_m2: Any = None, progress: bool = False,
                       **options: Any) -> dict[str, Statistics]:
    """The first half of `run_systems`: options checked and the input layer run, then every system's statistics
    (`gecscore.common.statistics`), the input layer's degenerate records among them. `score` finishes the run."""
    with rare_full_collections():  # the work builds many long-lived objects (gecscore.common.collection)
        call = _prepare(name, sources, systems, references, gold_m2, dict(options))
        module = runner(name)
        gathered = module.statistics_systems(*_metric_texts(call), progress=progress, **call.options)
    robust = bool(call.options.get("robust", False))
    return {system: dataclasses.replace(stats, settings={**stats.settings, **call.text}, degenerate=tuple(merge(
        call.flags.get(system, []),
        _perfect_flags(stats.degenerate, perfect_references(call.systems.get(system), call.references), robust))))
            for system, stats in gathered.items()}


def perfect_references(predictions: Sequence[str] | None, references: Sequence[Any] | None) -> dict[int, int]:
    """Sentence index → the first reference its prediction equals (a perfect correction), after the input layer."""
    if predictions is None or references is None:
        return {}
    return {i: next(k for k, ref in enumerate(refs) if ref == hyp)
            for i, (hyp, refs) in enumerate(zip(predictions, references))
            if not isinstance(refs, str) and hyp in refs}


def _perfect_flags(records: Sequence[dict[str, Any]], perfect: Mapping[int, int],
                   robust: bool) -> list[dict[str, Any]]:
    """A metric's flags on perfect corrections: none in robust mode (which scores them 1); in the published mode
    kept, marked with the reference the prediction equals (`score` adds a note with the sentence's score)."""
    if robust:
        return [r for r in records if r["index"] not in perfect]
    return [r if r["index"] not in perfect else {**r, "perfect_reference": perfect[r["index"]]} for r in records]


def _perfect_notes(result: MetricResult) -> None:
    """Each flag on a perfect correction says what happened, in a user's terms."""
    for record in result.details.get("degenerate_sentences", []):
        if "perfect_reference" in record:
            score = result.sentences[record["index"]]["score"]
            record["note"] = (f"the prediction equals reference {record['perfect_reference']} (a perfect "
                              f"correction); the published metric scores this sentence {score:.4f}"
                              + ("" if score == 1 else " instead of 1") + "; robust=True scores it 1, unflagged")


def score(name: str, stats: Statistics) -> MetricResult:
    """The second half of `run_systems`: the metric's `score` of one system's statistics (any concatenation or
    selection of them), its signature completed with the input layer's settings. Reports nothing."""
    with rare_full_collections():
        result = runner(name).score(stats)
    _perfect_notes(result)
    robust, normalize = bool(stats.settings.get("robust", False)), bool(stats.settings["normalize"])
    result.signature = _with_input_settings(named(name, result.signature), robust, normalize)
    return result


def named(name: str, signature: str) -> str:
    """`signature` led by the name the user asked for (`errant|…`, not `uot_errant|…`)."""
    metric, _, rest = signature.partition("|")
    return f"{name}|{rest}" if metric in SPECS and name in PRESETS else signature


def run_systems(name: str, sources: Sequence[str] | None, systems: Mapping[str, Sequence[str] | None],
                references: Sequence[Any] | None = None, *, gold_m2: Any = None, progress: bool = False,
                **options: Any) -> dict[str, MetricResult]:
    """Score several systems on the same sources; `gold_m2` (path, M2 text or parsed sentences) may stand in for
    the references (its annotators' corrections; PT-M2 uses the M2 itself).

    Options are checked, then every sentence goes through the input layer (`gecscore.common.inputs`: control
    characters and over-long sentences refused, invisible / non-NFC text reported or normalised, empty
    predictions flagged), all before any work. Each result lists its `degenerate_sentences`, one warning
    summarises them, and the signature records `robust` and `normalize`.
    """
    gathered = statistics_systems(name, sources, systems, references, gold_m2=gold_m2, progress=progress, **options)
    results = {system: score(name, stats) for system, stats in gathered.items()}
    report(title(name), {system: result.details["degenerate_sentences"] for system, result in results.items()},
           robust=any(bool(stats.settings.get("robust", False)) for stats in gathered.values()))
    return results


def run(name: str, sources: Sequence[str], predictions: Sequence[str], references: Sequence[Any] | None = None,
        **kwargs: Any) -> MetricResult:
    """Score one system (see `run_systems`)."""
    return run_systems(name, sources, {"system": predictions}, references, **kwargs)["system"]


def _with_input_settings(signature: str, robust: bool, normalize: bool) -> str:
    """`signature` with the input layer's settings that change numbers (each once)."""
    if "|robust:" not in signature:
        signature += f"|robust:{robust}"
    return signature + f"|normalize:{'nfc' if normalize else 'none'}"


def _check_name(name: str) -> str:
    if name not in SPECS and name not in PRESETS:
        raise ValueError(f"unknown metric {name!r}{did_you_mean([name], NAMES)}; choose one of {list(NAMES)}")
    return name
