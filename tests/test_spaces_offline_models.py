"""The three Spaces whose models cannot be had offline (SOME's and Scribendi's are on the Hub only; LLM-S/E's judge
is an endpoint) at the same bar as the others: each launched on 127.0.0.1 and driven through gradio_client and
headless Chromium, with the seeded tiny models of tests/golden_some_scribendi and the stub judge of
tests/llm_stub.py standing in. Their scores are compared with the metric modules' own on the same input; their
screenshots (`make screenshots`) show the page working, not the published models' numbers.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gecscore import registry
from gecscore.llm_kobayashi24.backends import API_KEY_ENV
from gecscore.spaces import generic
from gecscore.spaces.loading import METRIC_PATH_ENV
from llm_stub import stub_server
import test_spaces
from test_spaces import (REPO, browser_page, assert_message, launch_local, lines, load_app,
                         save_screenshot, upload)

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden_some_scribendi"))
import tiny_models  # noqa: E402

modules = test_spaces.modules  # the fixture, used by name (an assignment: no unused import to flag)

NAMES = ("some", "scribendi", "llm_kobayashi24")


@dataclass
class Served:
    name: str
    app: Any
    client: Any
    url: str
    settings: list[Any]  # the page's settings, in its order
    options: dict[str, Any]  # the same as compute options
    judge: Any = None  # LLM-S/E's stub endpoint (its `requests`), None for the other two


def _settings(name: str, stack: contextlib.ExitStack, folder: Path) -> tuple[list[Any], dict[str, Any], Any]:
    if name == "llm_kobayashi24":
        server = stack.enter_context(stub_server())
        judge = {"model": "stub-judge", "base_url": server.base_url, "api_key": "stub-key", "timeout": 30.0}
        return ["sent", *judge.values()], {"variant": "sent", **judge}, server
    paths = tiny_models.build_all(folder)
    if name == "some":
        models = {f"model_{k}": str(paths[p]) for k, p in (("g", "grammer"), ("f", "fluency"), ("m", "meaning"))}
        weights = {"weight_g": 0.55, "weight_f": 0.43, "weight_m": 0.02}
        return [*models.values(), *weights.values()], {**models, **weights}, None
    return [str(paths["lm"]), 0.8], {"model": str(paths["lm"]), "threshold": 0.8}, None


@pytest.fixture(scope="module", params=NAMES)
def served(request, tmp_path_factory):
    from gradio_client import Client

    name = request.param
    with contextlib.ExitStack() as stack:
        settings, options, judge = _settings(name, stack, tmp_path_factory.mktemp(name))
        patch = stack.enter_context(pytest.MonkeyPatch.context())
        patch.setenv(METRIC_PATH_ENV, str(REPO / "metrics"))
        app = load_app(name)
        demo = app.build_demo()
        demo.queue(default_concurrency_limit=1)
        url = launch_local(demo)
        stack.callback(demo.close)
        yield Served(name, app, Client(url, verbose=False), url, settings, options, judge)


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


# --- bad input: clear messages, no traceback, no model loaded and no request to the judge -------------------------

@contextlib.contextmanager
def _judge_not_asked(served: Served):
    """LLM-S/E: the stub judge receives no request while the block runs (a bad input costs no API call)."""
    before = None if served.judge is None else len(served.judge.requests)
    yield
    if served.judge is not None:
        assert len(served.judge.requests) == before, "the judge was asked about a bad input"


def _hypothesis_field(served: Served) -> str:
    """The hypotheses box's name as the page labels it ("Hypotheses", LLM-S/E's "Corrections")."""
    return served.app.PAGE.hypothesis_label.split()[0]


def test_empty_source_is_a_message(served):
    hypotheses = served.app.PAGE.sentence_examples[0][1]
    with _judge_not_asked(served):
        assert_message(served, "", hypotheses, *served.settings, needles=("Source is empty",),
                       api_name="/score_sentence")


def test_empty_hypothesis_is_a_message(served):
    source = served.app.PAGE.sentence_examples[0][0]
    with _judge_not_asked(served):
        assert_message(served, source, "  \n \n", *served.settings,
                       needles=(f"{_hypothesis_field(served)} is empty",), api_name="/score_sentence")


def test_line_count_mismatch_is_a_message(served, tmp_path):
    short = tmp_path / "hypothesis.txt"
    short.write_text("\n".join(lines("hypothesis.txt")[:-1]) + "\n", encoding="utf-8")
    with _judge_not_asked(served):
        assert_message(served, upload("source.txt"), upload(short), *served.settings,
                       needles=("source: 8", "hypothesis: 7"), api_name="/score_corpus")


@pytest.mark.parametrize("missing, field", [(0, "Source file"), (1, "Hypothesis file")])
def test_missing_file_is_a_message(served, missing, field):
    uploads = [upload("source.txt"), upload("hypothesis.txt")]
    uploads[missing] = None
    with _judge_not_asked(served):
        assert_message(served, *uploads, *served.settings, needles=(field, "no file uploaded"),
                       api_name="/score_corpus")


def test_unloadable_model_is_a_message(served, monkeypatch):
    """SOME and Scribendi with the page's own defaults, the published Hub models (not cached, offline): the message
    names the model. LLM-S/E's model is behind its endpoint: without an API key (the page's starts empty) the
    message says so and nothing is sent; a base URL where nothing listens is named."""
    source, hypotheses = served.app.PAGE.sentence_examples[0][:2]
    if served.name != "llm_kobayashi24":
        defaults = generic.default_settings(served.name)
        message = assert_message(served, source, hypotheses, *defaults, needles=("cannot load", repr(defaults[0])),
                                 api_name="/score_sentence")
        assert "offline" in message or "Hub" in message
        return
    variant, model, base_url, key, timeout = served.settings
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    with _judge_not_asked(served):
        assert_message(served, source, hypotheses, variant, model, base_url, "", timeout,
                       needles=("needs an API key", API_KEY_ENV), api_name="/score_sentence")
    with socket.socket() as closed:  # bound, not listening: a connection is refused at once
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
        assert_message(served, source, hypotheses, variant, model, url, key, timeout,
                       needles=(f"cannot reach {url}",), api_name="/score_sentence")


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
    from playwright.sync_api import expect

    source, hypotheses = served.app.PAGE.sentence_examples[0][:2]
    with browser_page(served.url) as page:
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


@pytest.mark.browser
@pytest.mark.parametrize("served", ["some"], indirect=True)
def test_browser_shows_an_error_in_the_page(served):
    """A bad input (the source box starts empty) is shown to the user in the page, with the message, before any
    model is loaded (the page's model fields keep their Hub defaults, which cannot be loaded offline)."""
    from playwright.sync_api import expect

    with browser_page(served.url) as page:
        page.get_by_label(served.app.PAGE.hypothesis_label, exact=True).fill(
            served.app.PAGE.sentence_examples[0][1])
        page.get_by_role("button", name="Score sentence").click()
        expect(page.get_by_text("Could not score: Source is empty").first).to_be_visible(timeout=30_000)
        assert page.locator("text=Traceback").count() == 0
