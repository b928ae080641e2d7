"""The one registry: the scripts' spelled-out options, config names, validation before work, presets."""

import dataclasses
import importlib.util
import inspect
import typing
from pathlib import Path

import evaluate
import pytest

from gecscore import registry
from gecscore.common.statistics import MetricRunner
from gecscore.cleme2.metric import ClemeConfig
from gecscore.impara_ged.metric import Impara
from gecscore.pt_m2.metric import Variant as PtVariant
from gecscore.uot_errant.metric import UOTConfig

METRICS = Path(__file__).resolve().parents[1] / "metrics"
INPUTS = ("self", "sources", "predictions", "references")


def script_class(name):
    spec = importlib.util.spec_from_file_location(f"script_{name}", METRICS / name / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return next(v for v in vars(module).values() if inspect.isclass(v) and getattr(v, "NAME", "") == name)


@pytest.mark.parametrize("name", list(registry.SPECS))
def test_script_parameters_are_the_registry_schema(name):
    parameters = inspect.signature(script_class(name)._compute).parameters
    spelled = {k: p.default for k, p in parameters.items() if k not in INPUTS}
    assert spelled == registry.SPECS[name].defaults


@pytest.mark.parametrize("name", list(registry.SPECS))
def test_script_docstring_lists_every_option(name):
    doc = script_class(name).__doc__
    for option in registry.SPECS[name].options:
        assert f"    {option.name} ({option.type_doc}): {option.doc}" in doc


def test_cores_take_the_registry_settings():
    uot = registry.SPECS["uot_errant"]
    assert {f.name for f in dataclasses.fields(UOTConfig)} == set(uot.names("setting"))
    assert {f.name: f.default for f in dataclasses.fields(UOTConfig)} == {k: uot.defaults[k] for k in
                                                                         uot.names("setting")}
    impara = registry.SPECS["impara_ged"]
    # every setting, and whether the texts come from the input layer already (the registry's runs)
    assert set(inspect.signature(Impara).parameters) == set(impara.names("setting")) | {"from_input_layer"}
    cleme = registry.SPECS["cleme2"]
    # every setting but where the encoder runs, which changes no CLEME score
    assert {f.name for f in dataclasses.fields(ClemeConfig)} == set(cleme.names("setting")) - {"device"}
    assert typing.get_args(PtVariant) == registry.SPECS["pt_m2"].variants


def test_config_name_selects_the_variant():
    metric = evaluate.load(str(METRICS / "pt_m2"), "m2", scorer="self")
    out = metric.compute(sources=["He go to school ."], predictions=["He goes to school ."],
                         references=[["He goes to school ."]])
    assert "variant:m2" in out["signature"]
    with pytest.raises(ValueError, match="unknown config name 'bogus'"):
        evaluate.load(str(METRICS / "pt_m2"), "bogus")


def test_bad_option_fails_before_the_added_examples_are_used():
    metric = evaluate.load(str(METRICS / "cleme2"), weighting="none")
    metric.add_batch(sources=["He go to school ."], predictions=["He goes to school ."],
                     references=[["He goes to school ."]])
    with pytest.raises(ValueError, match="`level` must be one of"):
        metric.compute(level="paragraph")
    with pytest.raises(TypeError, match="`beta` must be a number"):
        metric.compute(beta="high")
    assert metric.compute()["score"] == 1.0


@pytest.mark.parametrize("name, options, error", [
    ("uot_errant", {"reg": 0}, "`reg` must be > 0"),
    ("uot_errant", {"robust": "yes"}, "`robust` must be True or False"),
    ("pt_m2", {"max_unchanged_words": -1}, "`max_unchanged_words` must be >= 0"),
    ("cleme2", {"alpha": [0.5, 0.5]}, "`alpha` must be 4 numbers"),
    ("pt_m2", {"device": "bogus"}, "`device` must be 'cpu', 'cuda', 'cuda:N' or 'mps'"),
    ("pt_m2", {"layer": "x"}, "`layer` must be an integer"),
    ("errant", {"model": "minilm"}, r"unknown option\(s\) \['model'\]"),
    ("bleu", {}, "unknown metric 'bleu'"),
])
def test_options_are_checked_against_the_schema(name, options, error):
    with pytest.raises((TypeError, ValueError), match=error):
        registry.check_options(name, options)


def test_preset_fixes_its_options():
    assert registry.check_options("errant", {"beta": 1.0}) == {"beta": 1.0, "variant": "errant"}
    assert registry.spec("errant") is registry.SPECS["uot_errant"]


@pytest.mark.parametrize("name", list(registry.SPECS))
def test_card_option_tables_are_generated_from_the_schema(name):
    from gecscore.cards import options_block

    card = (METRICS / name / "README.md").read_text(encoding="utf-8")
    assert options_block(name) in card, f"run `make generate` to refresh the card of {name}"


@pytest.mark.parametrize("name, options, error", [
    ("uot_errant", {"variant": "errant", "model": "minilm"}, "option `model` does not apply to variant 'errant'"),
    ("cleme2", {"beta": 2.0}, "option `beta` does not apply to variant 'cleme2'"),
    ("cleme", {"alpha": [0.25] * 4}, "option `alpha` does not apply to variant 'cleme'"),
    ("pt_m2", {"variant": "errant", "max_unchanged_words": 3}, "`max_unchanged_words` does not apply"),
    ("impara_ged", {"threshold": 0.5}, "option `threshold` does not apply to variant 'impara_ged'"),
])
def test_an_option_that_does_not_apply_is_an_error(name, options, error):
    with pytest.raises(ValueError, match=error):
        registry.check_options(name, options)


def test_inapplicable_option_fails_in_the_module_before_the_examples_are_used():
    metric = evaluate.load(str(METRICS / "cleme2"), weighting="none")
    metric.add_batch(sources=["He go to school ."], predictions=["He goes to school ."],
                     references=[["He goes to school ."]])
    with pytest.raises(ValueError, match="`beta` does not apply"):
        metric.compute(beta=1.0)
    assert metric.compute(variant="cleme", beta=1.0)["score"] == 1.0


@pytest.mark.parametrize("name", sorted(registry.SPECS))
def test_every_runner_implements_the_protocol(name):
    """What the generic callers (CLI, leaderboard, sharding, the Trainer hook) call on every metric's runner."""
    runner = registry.runner(name)
    for function in ("statistics_systems", "score", "check_models"):
        assert callable(getattr(runner, function, None)), f"{name}: its runner has no {function}"
    assert isinstance(runner, MetricRunner)
    gather = inspect.signature(runner.statistics_systems).parameters
    assert list(gather)[:3] == ["sources", "systems", "references"]
    assert gather["progress"].kind is inspect.Parameter.KEYWORD_ONLY
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in gather.values())
    assert len(inspect.signature(runner.score).parameters) == 1
    assert len(inspect.signature(runner.check_models).parameters) == 1


def test_a_runner_without_the_protocol_is_an_error_naming_what_it_lacks(monkeypatch):
    monkeypatch.setitem(registry.SPECS, "gleu", dataclasses.replace(registry.SPECS["gleu"],
                                                                    runner="gecscore.gleu.counting"))
    with pytest.raises(TypeError, match=r"gecscore.gleu.counting, the runner of 'gleu', does not provide "
                                        r"\['check_models', 'statistics_systems', 'score'\]"):
        registry.runner("gleu")


def test_the_readme_table_of_metrics_is_generated_from_the_registry():
    from gecscore.cards import metrics_block

    readme = (METRICS.parent / "README.md").read_text(encoding="utf-8")
    assert metrics_block() in readme, "run `make generate` to refresh the README's table"
