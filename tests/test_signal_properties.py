"""The property that guards the whole training-signal surface (issue 39): for every sentence-level registry metric
(tiny models where one is needed; LLM-S/E against a stub endpoint on 127.0.0.1), hypothesis draws options (valid and invalid), completions (text, empty, None,
garbage, conversational, nested) and reference cells (strings, lists, dicts, numbers, nested lists). Whatever it
draws, either building the reward or calling it raises an error that names the option, the column or the row, or
every reward is a finite float in [0, 1], a completion equal to its reference gets 1 (robust mode), and a refused
row is flagged with its index. The default suite draws a few examples per metric; the slow tier many more."""

from __future__ import annotations

import math
import os
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gecscore import registry
from gecscore.rewards import reward_function
from test_training_signals import METRICS, tiny  # noqa: F401  (the fixture: every metric's options, tiny models)

SOURCE = "He go to school yesterday ."
REFERENCE = "He went to school yesterday ."
#: Examples per metric: a few in the default suite, many in the slow tier (GECSCORE_PROPERTY_EXAMPLES overrides).
EXAMPLES = int(os.environ.get("GECSCORE_PROPERTY_EXAMPLES", 8))
SLOW_EXAMPLES = 60

GARBAGE = [None, -1, 0, float("nan"), float("inf"), "garbage", "", 10 ** 9, [], {"a": 1}, True, 0.5]
COMPLETIONS = st.one_of(
    st.sampled_from([REFERENCE, SOURCE, "", "   \n", None, 7, 3.5, b"bytes", {"role": "user"},
                     [{"role": "assistant", "content": REFERENCE}], [[{"role": "assistant", "content": REFERENCE}]],
                     [{"role": "assistant", "content": None}], "He \x00 went", "He went \ud800 .",
                     "He went to school yesterday . " * 40, "<|im_end|> ]] >>"]),
    st.text(max_size=40),
)
VALID_CELLS = st.sampled_from([REFERENCE, [REFERENCE], [REFERENCE, SOURCE], (REFERENCE,)])
BAD_CELLS = st.sampled_from([{"text": REFERENCE}, 5, [[REFERENCE]], [], None, [REFERENCE, None], [3], b"x"])


def option_changes(metric: str) -> st.SearchStrategy[dict]:
    """None, one or two options set to a drawn value: the metric's own values (defaults, choices) or garbage, or an
    option that does not exist."""
    options = [o for o in registry.spec(registry.PRESETS[metric].metric if metric in registry.PRESETS else metric
                                        ).options if o.kind != "output"]
    allowed = set(registry.allowed_options(metric))
    options = [o for o in options if o.name in allowed and o.name not in ("device", "model", "model_g", "model_f",
                                                                          "model_m", "revision", "variant",
                                                                          "base_url")]
    names = st.sampled_from([o.name for o in options] + ["bta", "robustness"])

    def values(name: str) -> st.SearchStrategy:
        own = [o for o in options if o.name == name]
        choices = list(own[0].choices or own[0].suggested) + [own[0].default] if own else []
        return st.sampled_from(choices + GARBAGE) if choices else st.sampled_from(GARBAGE)

    change = names.flatmap(lambda name: values(name).map(lambda value: {name: value}))
    return st.lists(change, max_size=2).map(lambda changes: {k: v for c in changes for k, v in c.items()})


def names_something(error: Exception, words: list[str]) -> bool:
    """Does the error's message name one of `words` (an option, a column, a row)?"""
    text = str(error)
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])", text) for word in words)


def check(metric: str, base: dict, changes: dict, completions: list, cells: list) -> None:
    """The property, for one draw."""
    options = {**base, **changes}
    reference_free = registry.spec(registry.PRESETS[metric].metric if metric in registry.PRESETS else metric
                                   ).reference_free
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            reward = reward_function(metric, **options)
        except (ValueError, TypeError, OSError) as error:
            assert changes, f"{metric}: the valid options failed: {error}"
            assert names_something(error, list(changes)), f"{metric}{changes}: {error!r} names no option"
            return
        columns = {"source": [SOURCE] * len(completions)}
        if not reference_free:
            columns["references"] = cells
        try:
            values = reward(prompts=["p"] * len(completions), completions=completions, **columns)
        except (ValueError, TypeError) as error:
            words = ["references", "source", *list(changes)] + [f"row {i}" for i in range(len(completions))]
            assert names_something(error, words) or "every row of the batch" in str(error), \
                f"{metric}{changes}: {error!r} names no option, column or row"
            return
    assert len(values) == len(completions)
    assert all(isinstance(v, float) and math.isfinite(v) and 0.0 <= v <= 1.0 for v in values), values
    refused = {r["index"] for r in reward.last_degenerate if r["reason"] == "refused"}
    for i, completion in enumerate(completions):
        if not isinstance(completion, (str, list, dict)):
            assert i in refused, f"{metric}: completion {i} ({completion!r}) is not text but was not refused"
        if i in refused:
            assert values[i] == 0.0
    robust = changes.get("robust", True) is True
    if not reference_free and robust:
        for i, completion in enumerate(completions):
            cell = cells[i]
            refs = [cell] if isinstance(cell, str) else list(cell)
            if completion in refs and i not in refused:
                assert values[i] == pytest.approx(1.0, abs=1e-6), f"{metric}{changes}: a perfect completion got " \
                                                                   f"{values[i]}"


def draws(metric: str):
    return st.tuples(option_changes(metric), st.lists(COMPLETIONS, min_size=1, max_size=4).flatmap(
        lambda completions: st.tuples(st.just(completions), st.lists(
            st.one_of(VALID_CELLS, VALID_CELLS, VALID_CELLS, BAD_CELLS), min_size=len(completions),
            max_size=len(completions)))))


def run_property(metric: str, base: dict, examples: int) -> None:
    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(draws(metric))
    def prop(draw):
        changes, (completions, cells) = draw
        check(metric, base, changes, completions, cells)

    prop()


@pytest.mark.parametrize("metric", METRICS)
def test_every_reward_either_errs_naming_the_cause_or_gives_honest_numbers(metric, tiny):  # noqa: F811
    run_property(metric, tiny[metric], EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS)
def test_the_reward_property_holds_over_many_draws(metric, tiny):  # noqa: F811
    run_property(metric, tiny[metric], SLOW_EXAMPLES)


@pytest.mark.parametrize("metric", ["llm-s", "llm-e"])
@pytest.mark.parametrize("examples", [pytest.param(EXAMPLES, id="few"),
                                      pytest.param(SLOW_EXAMPLES, id="many", marks=pytest.mark.slow)])
def test_the_llm_judges_rewards_hold_the_property_against_a_stub_endpoint(metric, examples):
    from llm_stub import stub_server

    with stub_server() as server:
        run_property(metric, {"base_url": server.base_url, "api_key": "stub-key"}, examples)
