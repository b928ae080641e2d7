"""Every model-based metric, through every option that names a model: a Hub id that is not cached, with the Hub
unreachable and HF_HUB_OFFLINE unset, fails at once with an error naming that model, before any Hub request.

Issue 42: CLEME2 with weighting='llm' asked the Hub for the model's configuration before checking the model, and
the Hub client retried for about 50 s before any error; every other metric failed within 2 s. The cases are read
from the registry's SPECs, so a new metric, or a new option naming a model, is covered without editing this file.
"""

from __future__ import annotations

import re
import socket
import time
from typing import Any, Iterator

import pytest

from gecscore import registry
from gecscore.common.options import Option

#: The settings under which a model option is used, beyond the variant its `Option.variants` names (which the
#: cases set themselves): without them the metric loads no model from that option (None: an option not given). An
#: entry is needed only for an option read under some setting other than the variant; the test fails until it is.
USED_WHEN: dict[tuple[str, str], tuple[dict[str, Any], ...]] = {
    ("cleme2", "model"): ({"weighting": "similarity"}, {"weighting": "llm", "layer": None}),
    ("llm_kobayashi24", "model"): ({"backend": "local"},),
}
#: The options a user gives with a model of their own, where the metric takes them (a BERTScore layer has no
#: default for an unknown model: a setup error raised, rightly, before the model is looked for).
WITH_A_MODEL = {"layer": 1}
#: What documents an option as a model id or path; every such option must be one `names_a_model` finds.
MODEL_DOC = re.compile(r"hub id|local (directory|path)|checkpoint|causal LM|encoder|regressor|estimator|the judge",
                       re.IGNORECASE)
#: Seconds a failing run may take: the check's one connection attempt and imports, not the Hub client's retries.
FAST_SECONDS = 5.0
SOURCES = ["He go to school yesterday ."]
PREDICTIONS = ["He went to school yesterday ."]
REFERENCES = [["He went to school yesterday ."]]


def names_a_model(option: Option) -> bool:
    """An option that names a model: a string option called `model`, `*_model` or `model_*`."""
    return option.type == "str" and "model" in option.name.split("_")


def _cases() -> list[Any]:
    """(metric, option, settings) for every model option of every registered metric, under each setting that uses it."""
    cases = []
    for name, spec in registry.SPECS.items():
        for option in filter(names_a_model, spec.options):
            variant = {"variant": option.variants[0]} if option.variants else {}
            for used in USED_WHEN.get((name, option.name), ({},)):
                settings = {**variant, **used}
                label = "-".join([name, option.name, *map(str, used.values())])
                cases.append(pytest.param(name, option.name, settings, id=label))
    return cases


CASES = _cases()


def test_the_cases_cover_every_model_option_of_the_registry():
    """Every option documented as a model is found by `names_a_model`, and `USED_WHEN` names only real options."""
    found = {(name, o.name) for name, spec in registry.SPECS.items() for o in spec.options if names_a_model(o)}
    documented = {(name, o.name) for name, spec in registry.SPECS.items() for o in spec.options
                  if o.type == "str" and not o.choices and o.kind == "setting" and MODEL_DOC.search(o.doc)}
    assert documented - found == set(), "options documented as models that names_a_model misses"
    assert set(USED_WHEN) <= found
    assert {name for name, _ in found} >= {"uot_errant", "pt_m2", "cleme2", "impara_ged", "some", "scribendi",
                                           "bertscore", "llm_kobayashi24"}


@pytest.fixture
def unreachable_hub(monkeypatch) -> Iterator[list[str]]:
    """The Hub at a local port nobody listens on, offline mode off, and every Hub request recorded (the list) and
    refused at once, so that a request fails the test instead of waiting out the Hub client's retries."""
    import httpx2
    from huggingface_hub import constants
    from huggingface_hub.utils import _http

    from gecscore.common import encoders

    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{port}")
    asked: list[str] = []

    def refuse(request: Any) -> Any:
        asked.append(f"{request.method} {request.url}")
        raise httpx2.ConnectError("the test's Hub cannot be reached", request=request)

    monkeypatch.setattr(_http, "_GLOBAL_CLIENT_FACTORY", lambda: httpx2.Client(transport=httpx2.MockTransport(refuse)))
    monkeypatch.setattr(_http, "_GLOBAL_CLIENT", None)
    monkeypatch.setattr(_http.time, "sleep", lambda seconds: asked.append(f"a retry's wait of {seconds} s"))
    encoders.hub_reachable.cache_clear()
    yield asked
    encoders.hub_reachable.cache_clear()


@pytest.mark.parametrize("metric,option,settings", CASES)
def test_a_model_that_is_not_cached_fails_at_once_when_the_hub_cannot_be_reached(metric, option, settings,
                                                                                 tiny_modernbert, unreachable_hub):
    """The registry's run (the library, the evaluate module and the CLI) and the runner's `check_models` (the
    Trainer hook, the sentence scorer) both raise within seconds, before any request to the Hub, naming the missing
    model and the option. The metric's other model options name a local one-logit classifier (what a quality
    estimator or a regressor is), so that the error is this option's."""
    spec = registry.spec(metric)
    missing = f"org/not-cached-{option.replace('_', '-')}"
    variant = settings.get("variant", spec.variants[0] if spec.variants else None)
    others = {o.name: str(tiny_modernbert) for o in spec.options
              if names_a_model(o) and o.name != option and (not o.variants or variant in o.variants)}
    given = {name: value for name, value in WITH_A_MODEL.items() if name in spec.names()}
    options = {name: value for name, value in {**given, **settings, **others, option: missing}.items()
               if value is not None}
    references = None if spec.reference_free else REFERENCES
    registry.runner(metric)  # its imports are not what this test times
    calls = {"run": lambda: registry.run(metric, SOURCES, PREDICTIONS, references, **options),
             "check_models": lambda: registry.runner(metric).check_models(registry.check_options(metric, options))}
    unnamed = []
    for path, call in calls.items():
        start = time.perf_counter()
        with pytest.raises(OSError, match=rf"cannot load .*'{re.escape(missing)}'.*cannot be reached") as raised:
            call()
        assert time.perf_counter() - start < FAST_SECONDS, path
        assert unreachable_hub == [], f"{path}: the Hub was asked (or a retry waited) before the error"
        assert "HF_HUB_OFFLINE=1" in str(raised.value), path
        if not re.search(rf"(?<![\w-]){option}(?![\w-])", str(raised.value)):
            unnamed.append(f"{path}: {raised.value}")
    assert not unnamed, f"`{option}` is not named: {unnamed}"
