"""No pair of bounds in `gecscore score --json` can be misread as the confidence interval (issue 42).

The bootstrap's percentile interval is the one confidence interval: `low`, `high` and `"method": "percentile"`, under
`bootstrap` (one system, and `predictions2`) or a leaderboard row's `interval`. Any other pair of bounds is an
object of its own with its `method`, named for what it is (GLEU's `script_interval`, the official script's mean ±
1.96 × std over its reference draws); a bare `[low, high]` list is refused, except a score's declared scale
(`*_range`, LLM-S/E's `score_range` [1, 5]: a constant of the metric, not an estimate). Every registry name is run
(every metric and preset, read from the registry), on five sentences with tiny local models or the stub endpoint.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from ecosystem_helpers import tiny_causal_lm
from gecscore import registry
from gecscore.cli import main
from gecscore.common.bootstrap import INTERVAL_METHOD
from llm_stub import stub_server

SOURCES = ["He go to school .", "She like apples .", "They is here .", "I has a cat .", "We was late ."]
PREDICTIONS = ["He goes to school .", "She likes apple .", "They is here .", "I have a cat .", "We was late ."]
REFERENCES = (["He goes to school .", "She likes apples .", "They are here .", "I have a cat .", "We were late ."],
              ["He went to school .", "She likes apples .", "They are here .", "I have cats .", "We were late ."])
#: Keys that hold one bound of an interval.
BOUND_KEYS = {"low", "high", "lower", "upper"}
#: Names that say "an interval": such a key must hold an object with its bounds and `method`.
INTERVAL_NAME = re.compile(r"interval|confidence|(^|_)ci($|_)|bounds?$")
#: Where the bootstrap's interval is: the one-system JSON's `bootstrap`, a leaderboard row's `interval`.
BOOTSTRAP_KEYS = {"bootstrap", "interval"}
#: A score's declared scale, a constant of the metric, not an estimate (`gecscore.common.trust.declared_bounds`).
SCALE_NAME = re.compile(r"_range$")
RESAMPLES = "20"


def bounds_problems(node: Any, key: str = "$", path: str = "$") -> list[str]:
    """Every pair of bounds under `node` that is not an object with `low`, `high` and a `method`, named as the rules
    of this file say (the bootstrap's percentile interval under a bootstrap key, any other under a name of its
    own); every value of an interval's name that is not such an object; every bare two-number list but a scale."""
    problems = []
    if isinstance(node, dict):
        if BOUND_KEYS & set(node) or INTERVAL_NAME.search(key):
            method = node.get("method")
            if not ({"low", "high"} <= set(node) and isinstance(method, str) and method):
                problems.append(f"{path}: bounds without `low`, `high` and a `method`: {sorted(node)}")
            elif (method == INTERVAL_METHOD) != (key in BOOTSTRAP_KEYS):
                problems.append(f"{path}: the method {method!r} under `{key}`: the bootstrap's percentile interval "
                                f"belongs under {sorted(BOOTSTRAP_KEYS)}, any other interval under a name of its own")
        for name, value in node.items():
            if INTERVAL_NAME.search(str(name)) and not isinstance(value, dict):
                problems.append(f"{path}.{name}: {value!r} is not an object with `low`, `high` and `method`")
            else:
                problems += bounds_problems(value, str(name), f"{path}.{name}")
    elif isinstance(node, list):
        numbers = [v for v in node if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if len(node) == 2 and len(numbers) == 2 and not SCALE_NAME.search(key):
            problems.append(f"{path}: a bare pair {node}: bounds must be an object with `low`, `high` and `method`")
        for i, value in enumerate(node):
            problems += bounds_problems(value, key, f"{path}[{i}]")
    return problems


def test_the_rules_refuse_what_could_be_misread():
    """The old GLEU output (a top-level `interval` list), an object without its method, the bootstrap's method
    under another name and another method under the bootstrap's name are each refused; the new output passes."""
    boot = {"low": 0.0, "high": 0.5, "method": INTERVAL_METHOD}
    script = {"low": -0.1, "high": 0.8, "method": "the official GLEU script's normal interval"}
    assert bounds_problems({"gleu": 0.3, "script_interval": script, "bootstrap": boot, "score_range": [1.0, 5.0]}) == []
    assert bounds_problems({"systems": [{"interval": boot, "details": {"script_interval": script}}]}) == []
    for bad in ({"interval": [-0.1, 0.8]}, {"spread": [-0.1, 0.8]}, {"script_interval": {"low": -0.1, "high": 0.8}},
                {"script_interval": boot}, {"bootstrap": script}, {"interval": script}, {"x": {"lower": 0, "upper": 1}},
                {"ci": 0.3}):
        assert bounds_problems(bad), bad


@pytest.fixture(scope="module")
def cheap_options(tiny_bert, tiny_modernbert, tmp_path_factory) -> dict[str, dict[str, str]]:
    """Per metric, the options that make it run here in a second: tiny local models (a one-logit classifier for a
    quality estimator or regressor, a random GPT-2 for a language model), the stub chat endpoint, no rescaling
    baseline, one reference for GoToScorer. A model-based metric without an entry fails on its default model."""
    lm = tiny_causal_lm(tmp_path_factory.mktemp("json-bounds-lm"))
    return {
        "uot_errant": {"model": str(tiny_bert)},
        "pt_m2": {"model": str(tiny_bert), "layer": "1"},
        "cleme2": {"weighting": "none"},
        "impara_ged": {"model": str(tiny_modernbert), "se_model": str(tiny_bert)},
        "gotoscorer": {"ref_id": "0"},
        "some": {name: str(tiny_modernbert) for name in ("model_g", "model_f", "model_m")},
        "scribendi": {"model": str(lm)},
        "bertscore": {"model": str(tiny_bert), "layer": "1", "rescale_with_baseline": "false"},
        "llm_kobayashi24": {"model": "stub-judge", "api_key": "stub-key"},
    }


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    """The stub chat-completions endpoint of the LLM judges."""
    with stub_server() as server:
        yield server.base_url


def _files(tmp_path: Path) -> dict[str, Path]:
    files = {}
    for name, texts in (("src", SOURCES), ("hyp", PREDICTIONS), ("ref0", REFERENCES[0]), ("ref1", REFERENCES[1])):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(texts) + "\n", encoding="utf-8")
    return files


@pytest.mark.parametrize("name", [*registry.SPECS, *registry.PRESETS])
def test_every_pair_of_bounds_in_the_json_is_named_with_its_method(name, cheap_options, endpoint, tmp_path,
                                                                    capsys):
    """One system with a second tested against it (`--predictions2`), and a two-system leaderboard: the
    bootstrap's interval is there, and no pair of bounds breaks the rules."""
    preset = registry.PRESETS.get(name)
    base = preset.metric if preset else name
    spec = registry.spec(base)
    variant = dict(preset.fixed if preset else {}).get("variant", spec.variants[0] if spec.variants else None)
    accepted = {*registry.allowed_options(name), *spec.names("output", "input", "text")}
    given = {**cheap_options.get(base, {}), **({"base_url": endpoint} if "base_url" in spec.names() else {})}
    options = [arg for key, value in given.items()
               if key in accepted and (not spec.option(key).variants or variant in spec.option(key).variants)
               for arg in ("-o", f"{key}={value}")]
    files = _files(tmp_path)
    references = [] if spec.reference_free else ["--references", str(files["ref0"]),
                                                 *([] if base == "gotoscorer" else [str(files["ref1"])])]
    common = ["score", name, "--sources", str(files["src"]), *references, "--bootstrap", RESAMPLES, *options]
    assert main([*common, "--predictions", str(files["hyp"]), "--predictions2", str(files["src"]), "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["bootstrap"]["method"] == one["predictions2"]["bootstrap"]["method"] == INTERVAL_METHOD
    assert main([*common, "--predictions", str(files["hyp"]), str(files["src"]), "--format", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert [system["interval"]["method"] for system in board["systems"]] == [INTERVAL_METHOD] * 2
    assert bounds_problems(one) + bounds_problems(board) == []
