"""The three Spaces whose models cannot be had offline (SOME's and Scribendi's are on the Hub only; LLM-S/E's judge
is an endpoint) at the same bar as the others: each launched on 127.0.0.1 and driven through gradio_client and
headless Chromium, with the seeded tiny models of tests/golden_some_scribendi and the stub judge of
tests/llm_stub.py standing in. Their scores are compared with the metric modules' own on the same input; their
screenshots (`make screenshots`) show the page working, not the published models' numbers.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gecscore import registry
from gecscore.spaces.loading import METRIC_PATH_ENV
from llm_stub import stub_server
from test_spaces import (CHROMIUM, CHROMIUM_ARGS, REPO, assert_message, launch_local, lines, load_app,
                         save_screenshot, upload)
from test_spaces import modules  # noqa: F401 (the fixture, used by name)

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden_some_scribendi"))
import tiny_models  # noqa: E402

NAMES = ("some", "scribendi", "llm_kobayashi24")


@dataclass
class Served:
    name: str
    app: Any
    client: Any
    url: str
    settings: list[Any]  # the page's settings, in its order
    options: dict[str, Any]  # the same as compute options


def _settings(name: str, stack: contextlib.ExitStack, folder: Path) -> tuple[list[Any], dict[str, Any]]:
    if name == "llm_kobayashi24":
        server = stack.enter_context(stub_server())
        judge = {"model": "stub-judge", "base_url": server.base_url, "api_key": "stub-key", "timeout": 30.0}
        return ["sent", *judge.values()], {"variant": "sent", **judge}
    paths = tiny_models.build_all(folder)
    if name == "some":
        models = {f"model_{k}": str(paths[p]) for k, p in (("g", "grammer"), ("f", "fluency"), ("m", "meaning"))}
        weights = {"weight_g": 0.55, "weight_f": 0.43, "weight_m": 0.02}
        return [*models.values(), *weights.values()], {**models, **weights}
    return [str(paths["lm"]), 0.8], {"model": str(paths["lm"]), "threshold": 0.8}


@pytest.fixture(scope="module", params=NAMES)
def served(request, tmp_path_factory):
    from gradio_client import Client

    name = request.param
    with contextlib.ExitStack() as stack:
        settings, options = _settings(name, stack, tmp_path_factory.mktemp(name))
        patch = stack.enter_context(pytest.MonkeyPatch.context())
        patch.setenv(METRIC_PATH_ENV, str(REPO / "metrics"))
        app = load_app(name)
        demo = app.build_demo()
        demo.queue(default_concurrency_limit=1)
        url = launch_local(demo)
        stack.callback(demo.close)
        yield Served(name, app, Client(url, verbose=False), url, settings, options)


def test_sentence_mode_matches_the_module(served, modules):
    source, hypotheses = served.app.PAGE.sentence_examples[0][:2]
    hyps = hypotheses.splitlines()
    status, *results = served.client.predict(source, hypotheses, *served.settings, api_name="/score_sentence")
    assert status.startswith("\u2713"), status
    raw = results[-1]
    if served.name == "llm_kobayashi24":  # the corrections judged together in one prompt, as systems
        expected = registry.run_systems(served.name, [source], {str(k + 1): [h] for k, h in enumerate(hyps)},
                                        **served.options)
        assert [raw[str(k + 1)]["score"] for k in range(len(hyps))] == [expected[str(k + 1)].score
                                                                        for k in range(len(hyps))]
        assert raw["1"]["signature"] == expected["1"].signature and "stub-key" not in raw["1"]["signature"]
        return
    expected = modules(served.name).compute(sources=[source] * len(hyps), predictions=hyps, sentence_scores=True,
                                           **served.options)
    assert raw["sentence_scores"] == pytest.approx(expected["sentence_scores"], rel=1e-9, abs=1e-12)
    assert raw["signature"] == expected["signature"]


def test_corpus_mode_matches_the_module(served, modules):
    status, scores, table, _ = served.client.predict(upload("source.txt"), upload("hypothesis.txt"),
                                                     *served.settings, api_name="/score_corpus")
    assert status.startswith("\u2713 Scored 8 sentences"), status
    expected = modules(served.name).compute(sources=lines("source.txt"), predictions=lines("hypothesis.txt"),
                                           **served.options)
    main = {"some": "some", "scribendi": "scribendi", "llm_kobayashi24": "score"}[served.name]
    assert scores[main] == pytest.approx(expected[main], rel=1e-9, abs=1e-12)
    assert len(table["data"]) == 8 and table["headers"][:4] == ["index", "line", "source", "hypothesis"]


def test_empty_source_is_a_message(served):
    hypotheses = served.app.PAGE.sentence_examples[0][1]
    assert_message(served, "", hypotheses, *served.settings, needles=("Source is empty",),
                   api_name="/score_sentence")


def _model_fields(served: Served) -> dict[str, str]:
    """The page's model fields (label -> what to type) for the tiny models or the stub judge."""
    if served.name == "some":
        return dict(zip(("Grammaticality model", "Fluency model", "Meaning model"), served.settings[:3]))
    if served.name == "scribendi":
        return {"Language model": served.settings[0]}
    return {"Model": served.options["model"], "Base URL": served.options["base_url"],
            "API key": served.options["api_key"]}


@pytest.mark.browser
def test_browser_renders_the_example(served):
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (make test installs it: tests/ensure_chromium.sh)")
    from playwright.sync_api import expect, sync_playwright

    source, hypotheses = served.app.PAGE.sentence_examples[0][:2]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(served.url)
            boxes = {"Source": source, served.app.PAGE.hypothesis_label: hypotheses}
            for label, text in boxes.items():
                page.get_by_label(label, exact=True).fill(text)
            for label, value in _model_fields(served).items():  # the tiny models or the stub, typed in
                # a field with help text has it in its label too; the LLM page's "Model" is matched whole
                page.get_by_label(label, exact=label == "Model").first.fill(value)
            expect(page.get_by_label("Source", exact=True)).to_have_value(source, timeout=30_000)
            page.get_by_role("button", name="Score sentence").click()
            page.wait_for_selector("text=\u2713", timeout=180_000)
            page.wait_for_selector("text=Ranking (best first)", timeout=30_000)
            save_screenshot(page, served.name)
        finally:
            browser.close()
