"""The Gradio Spaces: each app launched on 127.0.0.1 and driven through gradio_client (and headless Chromium).

Scores coming back from the apps are compared with the metric modules' own `compute` on the same input. Tests with
tiny models run by default; those with the offline defaults (MiniLM, the embedded QE, spaCy) are `real_model`; the
Chromium ones are `browser` and save `build/screenshots/<name>/screenshot.png` (`make screenshots`: `spaces/<name>/`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from gecscore import __version__, script_path
from gecscore.common.m2io import M2Sentence, format_m2, m2_target, parse_m2
from gecscore.spaces.inputs import InputError, read_corpus
from gecscore.spaces.layout import BERTSCORE_LAYERS
from gecscore.spaces.loading import METRIC_PATH_ENV, metric_location
from gecscore.spaces.messages import describe, guarded
from gecscore.registry import SPECS as METRICS
from gecscore.spaces_build import (EXAMPLE_EXTRAS, build_space, constraint_pins, main as build_main,
                                   pinned_requirements, split_card)

#: Paths of this repository that no built Hub card may name (Hub readers have none of them).
REPOSITORY_PATHS = ("metrics/", "spaces/", "../shared", "shared/gecscore", "tests/")
HUB_ORG = "someorg"

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "spaces" / "examples"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: Where the browser tests save `<name>/screenshot.png`; `make screenshots` sets it to spaces/ (the committed ones).
SCREENSHOTS = Path(os.environ.get("GECSCORE_SCREENSHOTS") or REPO / "build" / "screenshots")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


@dataclass
class Case:
    """How a test drives one Space: its settings with the offline defaults, the matching compute options, the
    settings with the paper's (not cached, so unloadable) model, the keys to compare, what the page shows."""

    settings: list[Any]
    options: dict[str, Any]
    unloadable: list[Any]
    keys: tuple[str, ...]
    visual: str


CASES = {
    "uot_errant": Case(["minilm", "uot", 0.5, False, False, "en"], {"model": "minilm"},
                       ["google/electra-base-discriminator", "uot", 0.5, False, False, "en"],
                       ("precision", "recall", "f0.5", "tp", "fp", "fn"), "img[src^='data:image']"),
    "pt_m2": Case(["sentm2", "bertscore", "minilm", 6, 0.5, False, "en"], {"model": "minilm", "layer": 6},
                  ["sentm2", "bertscore", "bert-base-uncased", 9, 0.5, False, "en"],
                  ("precision", "recall", "f0.5"), "text=Do → Does"),
    "cleme2": Case(["cleme2", "corpus", "dependent", "default", "minilm", 6, 0.5, "en"],
                   {"model": "minilm", "layer": 6},
                   ["cleme2", "corpus", "dependent", "default", "bert-base-uncased", 9, 0.5, "en"],
                   ("score", "hit", "err", "und", "ove"), "text=FP_ne"),
    "impara_ged": Case(["embedded", "impara_ged"], {"model": "embedded"}, ["naist-nlp/IMPARA-GED", "impara_ged"],
                       ("score",), "text=Ranking (best first)"),
    "gleu": Case(["official", 500, 101, 4, "en"], {}, [], ("gleu", "std"), "text=SentGLEU"),
    "gotoscorer": Case([0.5, 0, "en"], {}, [], ("f0.5", "precision", "recall", "tp", "fp", "fn", "tn"),
                       "text=Reference chunks"),
    "green": Case([4, 2.0, "word", "en"], {}, [], ("green", "precision", "recall"), "text=missed"),
    "bertscore": Case(["minilm", 6, "f", False], {"model": "minilm", "layer": 6, "rescale_with_baseline": False},
                      ["bert-base-uncased", 9, "f", True], ("bertscore",), "text=BERTScore"),
}


def load_app(name: str) -> Any:
    """Import `spaces/<name>/app.py` under a unique module name."""
    spec = importlib.util.spec_from_file_location(f"space_app_{name}", REPO / "spaces" / name / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Served:
    name: str
    app: Any
    url: str
    client: Any
    case: Case


@pytest.fixture(scope="module", params=list(CASES))
def served(request):
    """One launched app (the working-tree metric via $GECSCORE_METRIC_PATH) and a gradio_client on it."""
    from gradio_client import Client

    name = request.param
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(METRIC_PATH_ENV, str(REPO / "metrics"))
        app = load_app(name)
        demo = app.build_demo()
        demo.queue(default_concurrency_limit=1)
        url = launch_local(demo)
        try:
            yield Served(name, app, url, Client(url, verbose=False), CASES[name])
        finally:
            demo.close()


@pytest.fixture(scope="module")
def modules():
    """The working-tree metric modules, loaded once."""
    import evaluate

    loaded: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in loaded:
            loaded[name] = evaluate.load(str(REPO / "metrics" / name), keep_in_memory=True)
        return loaded[name]
    return get


def launch_local(demo: Any, attempts: int = 3) -> str:
    """Launch `demo` on 127.0.0.1 at a free port and return its URL. Gradio checks that the server answers with a
    single HEAD request of 3 s, which a loaded 2-core CI machine can miss (the server is up a moment later): such a
    refused start is closed and tried again, at most `attempts` times."""
    for attempt in range(attempts):
        try:
            _, url, _ = demo.launch(server_name="127.0.0.1", server_port=free_port(), prevent_thread_lock=True,
                                    quiet=True)
            return url
        except ValueError as error:
            if "localhost is not accessible" not in str(error) or attempt == attempts - 1:
                raise
            demo.close()
    raise AssertionError("unreachable")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def upload(*names: str) -> Any:
    from gradio_client import handle_file

    files = [handle_file(str(name if Path(name).is_absolute() else EXAMPLES / name)) for name in names]
    return files if len(files) > 1 else files[0]


def lines(name: str) -> list[str]:
    return (EXAMPLES / name).read_text(encoding="utf-8").splitlines()


def assert_message(served: Served, *args: Any, needles: tuple[str, ...], api_name: str) -> str:
    """The call raises in `gradio_client` (not an HTML string in a result) with a message that says what is wrong,
    and no traceback; returns the message."""
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as raised:
        served.client.predict(*args, api_name=api_name)
    message = str(raised.value)
    assert "Could not score: " in message
    for needle in needles:
        assert needle in message
    assert "Traceback" not in message and 'File "' not in message
    return message


def sentence_inputs(served: Served) -> tuple[list[str], dict[str, Any]]:
    """The app's first example and the compute inputs it stands for."""
    example = served.app.PAGE.sentence_examples[0]
    if served.name == "impara_ged":
        hyps = example[1].splitlines()
        return example, {"sources": [example[0]] * len(hyps), "predictions": hyps}
    return example, {"sources": [example[0]], "predictions": [example[1]], "references": [example[2].splitlines()]}


def corpus_uploads(served: Served) -> list[Any]:
    if served.name == "impara_ged":
        return [upload("source.txt"), upload("hypothesis.txt")]
    return [upload("source.txt"), upload("hypothesis.txt"), [upload("ref0.txt"), upload("ref1.txt")]]


def corpus_inputs(served: Served) -> dict[str, Any]:
    inputs = {"sources": lines("source.txt"), "predictions": lines("hypothesis.txt")}
    if served.name != "impara_ged":
        inputs["references"] = [list(r) for r in zip(lines("ref0.txt"), lines("ref1.txt"))]
    return inputs


# --- bad input: clear messages, no traceback (no model is loaded) ------------------------------------------------

def test_empty_source_is_a_message(served):
    example = served.app.PAGE.sentence_examples[0]
    assert_message(served, "", *example[1:], *served.case.settings, needles=("Source is empty",),
                   api_name="/score_sentence")


def test_empty_hypothesis_is_a_message(served):
    example = served.app.PAGE.sentence_examples[0]
    assert_message(served, example[0], "  ", *example[2:], *served.case.settings, needles=("Hypothes", "empty"),
                   api_name="/score_sentence")


def test_line_count_mismatch_is_a_message(served, tmp_path):
    short = tmp_path / "hypothesis.txt"
    short.write_text("\n".join(lines("hypothesis.txt")[:-1]) + "\n", encoding="utf-8")
    uploads = corpus_uploads(served)
    uploads[1] = upload(short)
    assert_message(served, *uploads, *served.case.settings, needles=("source: 8", "hypothesis: 7"),
                   api_name="/score_corpus")


def test_missing_file_is_a_message(served):
    uploads = corpus_uploads(served)
    uploads[0] = None
    assert_message(served, *uploads, *served.case.settings, needles=("Source file", "no file uploaded"),
                   api_name="/score_corpus")


# --- fast end-to-end runs with tiny models or no model ----------------------------------------------------------

@pytest.mark.parametrize("served", ["pt_m2"], indirect=True)
def test_pt_m2_corpus_with_gold_m2_matches_the_module(served, modules, tiny_bert):
    settings = ["m2", "bertscore", str(tiny_bert), 1, 0.5, False, "en"]
    status, scores, table, download = served.client.predict(
        upload("source.txt"), upload("hypothesis.txt"), [upload("gold.m2")], *settings, api_name="/score_corpus")
    assert status.startswith("\u2713 Scored 8 sentences"), status
    expected = modules("pt_m2").compute(sources=lines("source.txt"), predictions=lines("hypothesis.txt"),
                                        gold_m2=(EXAMPLES / "gold.m2").read_text(encoding="utf-8"), variant="m2",
                                        model=str(tiny_bert), layer=1)
    for key in ("precision", "recall", "f0.5"):
        assert scores[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12)
    assert len(table["data"]) == 8
    saved = json.loads(Path(download).read_text(encoding="utf-8"))
    assert saved["corpus"]["f0.5"] == scores["f0.5"] and len(saved["details"]["edits"]) == 8


@pytest.mark.parametrize("served", ["cleme2"], indirect=True)
def test_cleme2_corpus_from_m2_matches_the_module(served, modules, tmp_path):
    gold = parse_m2((EXAMPLES / "gold.m2").read_text(encoding="utf-8"))
    hyp = [M2Sentence(s.source, [e for e in s.edits if e.annotator == 0]) for s in gold]  # annotator 0 as system
    (tmp_path / "hyp.m2").write_text(format_m2(hyp), encoding="utf-8")
    settings = ["cleme2", "sentence", "dependent", "none", "minilm", 6, 0.5, "en"]
    status, scores, table, _ = served.client.predict(
        None, upload(tmp_path / "hyp.m2"), [upload("gold.m2")], *settings, api_name="/score_corpus")
    assert status.startswith("\u2713 Scored 8 sentences"), status
    expected = modules("cleme2").compute(hyp_m2=str(tmp_path / "hyp.m2"), ref_m2=str(EXAMPLES / "gold.m2"),
                                         level="sentence", weighting="none")
    for key in ("score", "hit", "err", "und", "ove"):
        assert scores[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12)
    column = table["headers"].index("hypothesis")
    assert [row[column] for row in table["data"]] == [m2_target(s, 0) for s in gold]


@pytest.mark.parametrize("served", ["impara_ged"], indirect=True)
def test_impara_with_a_local_checkpoint_matches_the_module(served, modules, tiny_modernbert):
    example, inputs = sentence_inputs(served)
    status, summary, bars, ranking, raw = served.client.predict(*example, str(tiny_modernbert), "impara_ged",
                                                                api_name="/score_sentence")
    expected = modules("impara_ged").compute(**inputs, model=str(tiny_modernbert), sentence_scores=True)
    assert status.startswith("\u2713 Scored 5 hypotheses"), status
    assert raw["sentence_scores"] == pytest.approx(expected["sentence_scores"], rel=1e-9)
    ranked = [row[2] for row in ranking["data"]]
    order = sorted(range(5), key=lambda i: -expected["sentence_scores"][i])
    assert ranked == [inputs["predictions"][i] for i in order]
    assert len(bars["confidences"]) == 5


@pytest.mark.parametrize("served", ["gleu"], indirect=True)
def test_gleu_space_scores_chinese_and_french(served, modules):
    """The Language setting: raw Chinese on characters, French words, and Finnish, a code typed in (not among the
    suggested ones); the page's numbers are the module's."""
    cases = {"zh": ("他很喜欢看书书。", "他很喜欢看书。", "他很喜欢看书。\n他非常喜欢看书。"),
             "fr": ("Je suis allé à l' école hier .", "Je suis allée à l' école hier .",
                    "Je suis allée à l' école hier ."),
             "fi": ("Hän meni kouluun eilen .", "Hän meni koulu eilen .", "Hän meni kouluun eilen .")}
    for language, (source, hypothesis, references) in cases.items():
        status, *results = served.client.predict(source, hypothesis, references, "official", 500, 101, 4, language,
                                                 api_name="/score_sentence")
        assert status.startswith("\u2713"), status
        expected = modules("gleu").compute(sources=[source], predictions=[hypothesis],
                                           references=[references.splitlines()], language=language)
        assert results[-1]["gleu"] == expected["gleu"] and f"language:{language}" in results[-1]["signature"]


@pytest.mark.parametrize("served", ["gotoscorer"], indirect=True)
def test_gotoscorer_space_scores_french_with_plain_edits(served, modules):
    """An edit-based Space in another language: the page's numbers and signature are the module's."""
    source, hypothesis, reference = ("Je suis allé à l' école hier .", "Je suis allée à l' école .",
                                     "Je suis allée à l' école hier .")
    status, view, raw = served.client.predict(source, hypothesis, reference, 0.5, 0, "fr", api_name="/score_sentence")
    assert status.startswith("\u2713"), status
    expected = modules("gotoscorer").compute(sources=[source], predictions=[hypothesis], references=[[reference]],
                                             language="fr")
    assert raw["f0.5"] == expected["f0.5"] and "language:fr|edits:plain" in raw["signature"]
    assert "| allé | allée | R |" in view  # the chunk typed by its operation


#: The Spaces that show examples in other languages (`setting_examples`), each set to its language.
LANGUAGE_SPACES = ["gleu", "green", "gotoscorer", "pt_m2", "uot_errant", "cleme2"]


def language_rows(app: Any) -> list[list[Any]]:
    """The rows of a page's "Examples in other languages", as a click puts them into the inputs."""
    import gradio as gr

    demo = app.build_demo()
    found = [block.raw_samples for block in demo.blocks.values()
             if isinstance(block, gr.Dataset) and (block.label or "").startswith("Examples in other languages")]
    assert len(found) == 1, "the page shows no examples in other languages"
    return found[0]


@pytest.mark.parametrize("served", LANGUAGE_SPACES, indirect=True)
def test_each_language_example_scores_in_its_language_as_the_module(served, modules, tmp_path, monkeypatch):
    """Clicking an example in another language sets the Language setting (and a Chinese encoder where the metric
    needs one); scored as clicked, the page's numbers and signature are the module's with those settings. Chinese
    edits read the test lexicon here (a hosted Space fetches ChERRANT's, `layout.serve`); the Hub's
    bert-base-chinese becomes a tiny random model whose vocabulary holds the example's characters."""
    from conftest import build_tiny_model
    from gecscore.common.examples import CHINESE
    from gecscore.spaces import generic

    monkeypatch.setenv("GECSCORE_ZH_LEXICON", str(REPO / "tests" / "zh_lexicon" / "mucgec_dev.json"))
    tiny = str(build_tiny_model(tmp_path / "tiny-chinese-bert", "bert", extra_tokens=tuple("".join(CHINESE))))
    rows = language_rows(served.app)
    languages = set()
    for row in rows:
        row = [tiny if value == "bert-base-chinese" else value for value in row]
        if tiny in row and row.index(tiny) + 1 < len(row) and isinstance(row[row.index(tiny) + 1], int):
            row[row.index(tiny) + 1] = 2  # the tiny model's last layer
        texts, settings = row[:3], row[3:]
        status, *results = served.client.predict(*row, api_name="/score_sentence")
        assert status.startswith("\u2713"), status
        options = (served.app.options(*settings) if hasattr(served.app, "options")
                   else generic.options(served.name, settings))
        language = options["language"]
        languages.add(language)
        expected = modules(served.name).compute(sources=[texts[0]], predictions=[texts[1]],
                                                references=[texts[2].splitlines()], **options)
        for key in served.case.keys:
            assert results[-1][key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), (language, key)
        assert results[-1]["signature"] == expected["signature"] and f"language:{language}" in expected["signature"]
    assert languages == {"zh", "fr"}


# --- the offline defaults: every Space against its module --------------------------------------------------------

@pytest.mark.real_model
def test_sentence_mode_matches_the_module(served, modules):
    example, inputs = sentence_inputs(served)
    status, *results = served.client.predict(*example, *served.case.settings, api_name="/score_sentence")
    assert status.startswith("\u2713"), status
    raw = results[-1]
    expected = modules(served.name).compute(**inputs, **served.case.options)
    for key in served.case.keys:
        assert raw[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key
    assert raw["signature"] == expected["signature"]
    explanation = results[1]
    if served.name == "uot_errant":
        assert explanation["data"][0][0] == "hypothesis" and results[2]["type"] == "matplotlib"
    elif served.name == "pt_m2":
        assert {t["class_or_confidence"] for t in explanation} >= {"matched"}
    elif served.name == "cleme2":
        assert "chunk 0" in explanation and "#8fd18f" in explanation  # a TP chunk, coloured
    elif served.name == "gleu":
        assert "SentGLEU" in results[0]
    elif served.name == "gotoscorer":
        chunks = results[0].split("Reference chunks")[1]
        assert chunks.count("| tp |") == 3  # sentence, contains, a
    elif served.name == "green":
        assert "| n | true | false | missed |" in results[0]
    elif served.name == "bertscore":
        assert "BERTScore" in results[0]
    else:
        assert explanation["label"].startswith("4. ")  # GECToR-BERT's line is the best of the five


@pytest.mark.real_model
def test_corpus_mode_matches_the_module(served, modules):
    status, scores, table, download = served.client.predict(*corpus_uploads(served), *served.case.settings,
                                                            api_name="/score_corpus")
    assert status.startswith("\u2713 Scored 8 sentences"), status
    expected = modules(served.name).compute(**corpus_inputs(served), **served.case.options)
    for key in served.case.keys:
        assert scores[key] == pytest.approx(expected[key], rel=1e-9, abs=1e-12), key
    assert len(table["data"]) == 8 and table["headers"][:4] == ["index", "line", "source", "hypothesis"]
    saved = json.loads(Path(download).read_text(encoding="utf-8"))
    assert saved["metric"] == served.name and saved["corpus"] == scores and len(saved["sentences"]) == 8


@pytest.mark.real_model
def test_unloadable_model_is_a_message(served):
    if not served.case.unloadable:
        pytest.skip(f"{served.name} loads no model")
    example = served.app.PAGE.sentence_examples[0]
    model = next(s for s in served.case.unloadable if s in ("google/electra-base-discriminator", "bert-base-uncased",
                                                           "naist-nlp/IMPARA-GED"))
    message = assert_message(served, *example, *served.case.unloadable, needles=(model,), api_name="/score_sentence")
    assert "offline" in message or "Hub" in message


@pytest.mark.real_model
@pytest.mark.parametrize("served", ["uot_errant"], indirect=True)
def test_m2_references_are_refused_where_the_metric_takes_text(served):
    assert_message(served, upload("source.txt"), upload("hypothesis.txt"), [upload("gold.m2")],
                   *served.case.settings, needles=("gold.m2 is an M2 file",), api_name="/score_corpus")


# --- headless Chromium: the page renders the explanation --------------------------------------------------------

@pytest.mark.browser
@pytest.mark.real_model
def test_browser_renders_the_example(served):
    from playwright.sync_api import expect

    example = served.app.PAGE.sentence_examples[0]
    with browser_page(served.url) as page:
        page.get_by_text(example[0][:30]).first.click()  # the first example row fills the inputs
        expect(page.get_by_label(served.app.PAGE.source_label, exact=True)).to_have_value(example[0], timeout=30_000)
        page.get_by_role("button", name="Score sentence").click()
        page.wait_for_selector("text=\u2713", timeout=180_000)
        page.wait_for_selector(served.case.visual, timeout=30_000)
        save_screenshot(page, served.name)


@pytest.mark.browser
@pytest.mark.parametrize("served", ["gleu"], indirect=True)
def test_browser_example_in_another_language_sets_the_language(served):
    """Clicking the Chinese example fills the texts and sets Language to zh; the score's signature says so."""
    from playwright.sync_api import expect

    from gecscore.common.examples import CHINESE

    with browser_page(served.url) as page:
        page.get_by_text(CHINESE[0][:8]).first.click()
        expect(page.get_by_label(served.app.PAGE.source_label, exact=True)).to_have_value(CHINESE[0], timeout=30_000)
        expect(page.get_by_label("Language", exact=True)).to_have_value("zh", timeout=30_000)
        page.get_by_role("button", name="Score sentence").click()
        page.wait_for_selector("text=\u2713", timeout=120_000)
        expect(page.get_by_text("language:zh").first).to_be_attached(timeout=30_000)
        assert page.locator("text=Traceback").count() == 0


@contextmanager
def browser_page(url: str) -> Iterator[Any]:
    """A headless Chromium page open at `url`, closed on exit, on a failure too (the test is skipped where chromium
    is missing)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (make test installs it: tests/ensure_chromium.sh)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            yield page
        finally:
            browser.close()


def save_screenshot(page: Any, name: str) -> None:
    """After a scored example: no traceback in the page, then the whole page saved as `<name>/screenshot.png`."""
    assert page.locator("text=Traceback").count() == 0
    page.wait_for_timeout(500)
    target = SCREENSHOTS / name / "screenshot.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target), full_page=True)


@pytest.mark.browser
@pytest.mark.parametrize("served", ["uot_errant"], indirect=True)
def test_browser_shows_an_error_in_the_page(served):
    """A handler's gr.Error is shown to the user in the page, with the message."""
    from playwright.sync_api import expect

    with browser_page(served.url) as page:
        page.get_by_role("button", name="Score sentence").click()  # the source box starts empty
        expect(page.get_by_text("Could not score: Source is empty").first).to_be_visible(timeout=30_000)
        assert page.locator("text=Traceback").count() == 0


# --- startup time -----------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", METRICS)
def test_app_starts_offline(name):
    """`python app.py` serves its page offline. The wall bound is a hang guard, not a speed claim (tests time
    nothing that depends on the CPU); the start-up time and CPU are printed for the log."""
    port = free_port()
    env = {**os.environ, METRIC_PATH_ENV: str(REPO / "metrics"), "GRADIO_SERVER_NAME": "127.0.0.1",
           "GRADIO_SERVER_PORT": str(port), "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(REPO / "spaces" / name / "app.py")], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            assert process.poll() is None, "the app exited"
            wall = time.perf_counter() - start
            assert wall < 300, "not serving after 300 s"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/gradio_api/info", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    finally:
        process.terminate()
        process.wait(timeout=30)
    print(f"{name}: serving after {wall:.1f} s wall, {cpu:.1f} s CPU")


# --- the pieces ---------------------------------------------------------------------------------------------------

def test_metric_location_order(tmp_path, monkeypatch):
    monkeypatch.delenv(METRIC_PATH_ENV, raising=False)
    assert metric_location("pt_m2", REPO / "spaces" / "pt_m2" / "app.py") == script_path("pt_m2")
    assert metric_location("bleu") == "gecscore/bleu"
    (tmp_path / "pt_m2.py").write_text("")
    assert metric_location("pt_m2", tmp_path / "app.py") == str(tmp_path)
    monkeypatch.setenv(METRIC_PATH_ENV, str(REPO / "metrics"))
    assert metric_location("pt_m2", tmp_path / "app.py") == str(REPO / "metrics" / "pt_m2")
    monkeypatch.setenv(METRIC_PATH_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="nowhere"):
        metric_location("pt_m2")


def test_read_corpus_lines_up_references_and_rejects_misfits(tmp_path):
    corpus = read_corpus(EXAMPLES / "source.txt", EXAMPLES / "hypothesis.txt",
                         [EXAMPLES / "ref0.txt", EXAMPLES / "ref1.txt"])
    assert corpus.references[2] == [lines("ref0.txt")[2], lines("ref1.txt")[2]] and len(corpus) == 8
    with pytest.raises(InputError, match="M2 file"):
        read_corpus(EXAMPLES / "source.txt", EXAMPLES / "hypothesis.txt", [EXAMPLES / "gold.m2"])
    gold = read_corpus(None, EXAMPLES / "hypothesis.txt", [EXAMPLES / "gold.m2"], m2_references=True)
    assert gold.sources == lines("source.txt") and gold.references is None
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        read_corpus(EXAMPLES / "source.txt", tmp_path / "latin1.txt", [EXAMPLES / "ref0.txt"])
    (tmp_path / "bad.m2").write_text("S a b\nA 0 9|||R|||c|||REQUIRED|||-NONE-|||0\n")
    with pytest.raises(InputError, match="not valid M2"):
        read_corpus(None, EXAMPLES / "hypothesis.txt", [tmp_path / "bad.m2"], m2_references=True)
    with pytest.raises(InputError, match="Reference files: no file"):
        read_corpus(EXAMPLES / "source.txt", EXAMPLES / "hypothesis.txt", [])


def test_guarded_turns_any_error_into_a_gradio_error():
    import gradio as gr

    @guarded
    def boom(x):
        return {}["missing"]

    @guarded
    def bad(x):
        raise InputError("Source is empty")

    with pytest.raises(gr.Error) as raised:
        boom(1)
    assert raised.value.message == "Could not score: KeyError: 'missing'"
    with pytest.raises(gr.Error) as raised:
        bad(1)
    assert raised.value.message == "Could not score: Source is empty"  # a user error keeps its own words
    assert describe(ValueError("x " * 1000)).endswith("\u2026")


def test_every_space_has_its_files_and_front_matter():
    pins = constraint_pins(REPO / "constraints.txt")
    for name in METRICS:
        folder = REPO / "spaces" / name
        meta, _ = split_card((folder / "README.md").read_text(encoding="utf-8"))
        assert meta["sdk"] == "gradio" and meta["app_file"] == "app.py" and meta["license"]
        assert f"gradio=={meta['sdk_version']}" == pins["gradio"]
        assert meta["tags"] == ["evaluate", "metric", "grammatical-error-correction"]
        assert len(meta["short_description"]) <= 60
        requirements = (folder / "requirements.txt").read_text(encoding="utf-8").split()
        assert gecscore_lines(requirements) == [requirements[0]]  # bump with the package version
        assert pins["evaluate"] in requirements and pins["gradio"] in requirements
        assert 'if __name__ == "__main__":' in (folder / "app.py").read_text(encoding="utf-8")


def test_transport_labels_draw_chinese_with_an_installed_chinese_font(monkeypatch):
    """UOT-ERRANT's heatmap labels fall back, glyph by glyph, to an installed font with Chinese glyphs (the Space
    installs WenQuanYi Zen Hei, its packages.txt), and name no font that is missing."""
    from matplotlib import font_manager

    from gecscore.uot_errant.plot import LABEL_FONTS, label_fonts, plot_transport

    assert "fonts-wqy-zenhei" in (REPO / "spaces" / "uot_errant" / "packages.txt").read_text().split()
    dejavu = next(f for f in font_manager.fontManager.ttflist if f.name == "DejaVu Sans")
    monkeypatch.setattr(font_manager.fontManager, "ttflist", [dejavu])
    assert label_fonts() == ["DejaVu Sans"]
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [dejavu, font_manager.FontEntry(fname=dejavu.fname, name="WenQuanYi Zen Hei")])
    assert label_fonts() == ["DejaVu Sans", "WenQuanYi Zen Hei"] and "WenQuanYi Zen Hei" in LABEL_FONTS
    alignment = {"hyp_edits": [[5, 6, "书", "", "R"]], "hyp_masses": [0.5], "chosen_ref": 0,
                 "references": [{"edits": [[5, 6, "书", "去", "R"]], "masses": [0.4], "plan": [0.3]}]}
    label = plot_transport(alignment).axes[0].get_xticklabels()[0]
    assert label.get_text().startswith('[5, 6, "去"]') and label.get_fontfamily() == label_fonts()


def gecscore_lines(requirements: list[str]) -> list[str]:
    """The requirement lines that pin gecscore (extras allowed) to this version."""
    return [line for line in requirements if re.fullmatch(rf"gecscore(\[[a-z,]+\])?=={re.escape(__version__)}", line)]


def embedded_extra() -> bool:
    """Whether setup.cfg declares the `embedded` extra (the separate IMPARA-GED model distribution)."""
    import configparser

    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg", encoding="utf-8")
    return "embedded" in config["options.extras_require"]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """`make hub ORG=someorg` into a temporary folder."""
    out = tmp_path_factory.mktemp("hub")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(METRIC_PATH_ENV, raising=False)
        assert build_main(["--out", str(out), "--org", HUB_ORG, "--constraints", str(REPO / "constraints.txt")]) == 0
    return out


def test_make_hub_builds_complete_folders(hub, monkeypatch):
    monkeypatch.delenv(METRIC_PATH_ENV, raising=False)
    pins = constraint_pins(REPO / "constraints.txt")
    for name in METRICS:
        folder = hub / name
        own = ["packages.txt"] if (REPO / "spaces" / name / "packages.txt").is_file() else []
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            ["README.md", "app.py", "examples", "requirements.txt", f"{name}.py", *own])
        for extra in own:
            assert (folder / extra).read_bytes() == (REPO / "spaces" / name / extra).read_bytes()
        assert (folder / f"{name}.py").read_bytes() == (REPO / "metrics" / name / f"{name}.py").read_bytes()
        assert (folder / "app.py").read_bytes() == (REPO / "spaces" / name / "app.py").read_bytes()
        assert {p.name for p in (folder / "examples").iterdir()} >= {"source.txt", "hypothesis.txt", "ref0.txt",
                                                                     "ref1.txt", "gold.m2"}
        meta, body = split_card((folder / "README.md").read_text(encoding="utf-8"))
        space_meta, _ = split_card((REPO / "spaces" / name / "README.md").read_text(encoding="utf-8"))
        card_meta, card_body = split_card((REPO / "metrics" / name / "README.md").read_text(encoding="utf-8"))
        assert meta == {**space_meta, **{k: v for k, v in card_meta.items() if k not in space_meta}}
        # The card as Hub readers need it: the install line before the first example, which loads <org>/<name>;
        # every line without a repository path is kept.
        install = body.index("```bash\npip install gecscore\n")
        assert install < body.index("```python") and f'evaluate.load("{HUB_ORG}/{name}"' in body
        kept = set(body.splitlines())
        assert [line for line in card_body.splitlines() if line not in kept and not any(
            p in line for p in ("metrics/", "benchmarks/", "docs/"))] == []
        requirements = (folder / "requirements.txt").read_text(encoding="utf-8").split()
        assert gecscore_lines(requirements) == [requirements[0]]
        assert pins["evaluate"] in requirements and pins["gradio"] in requirements
        # The built Space loads its own copy of the script (evaluate.load("<org>/<name>") loads the same file).
        assert metric_location(name, folder / "app.py") == str(folder)


def test_built_cards_name_no_repository_paths(hub):
    for name in METRICS:
        for path in (hub / name / "README.md", hub / name / "examples" / "README.md"):
            hits = [line for line in path.read_text(encoding="utf-8").splitlines()
                    if any(p in line for p in REPOSITORY_PATHS)]
            assert hits == [], f"{path.relative_to(hub)} names repository paths"
        card = (hub / name / "README.md").read_text(encoding="utf-8")
        links = re.findall(r"\]\(([^)\s]+)\)", card)
        assert [t for t in links if not t.startswith(("https://", "http://", "#"))] == []  # none into the repo
        if name not in EXAMPLE_EXTRAS:  # a model-free metric: no extra to install
            assert "pip install \"gecscore[" not in card.split("```python", 1)[0]
            continue
        extra = '"gecscore[embedded]"' if name == "impara_ged" and embedded_extra() else '"gecscore[models]"'
        assert f"pip install {extra}" in card.split("```python", 1)[0]


def test_built_requirements_name_gecscore_from_the_index(hub):
    for name in METRICS:
        requirements = (hub / name / "requirements.txt").read_text(encoding="utf-8").split()
        assert all("/" not in r and "\\" not in r and "@" not in r and not r.startswith(("-", ".")) and
                   "==" in r for r in requirements), requirements  # a Space build sees only this file
        assert len(gecscore_lines(requirements)) == 1
        wanted = f"gecscore[embedded]=={__version__}" if name == "impara_ged" and embedded_extra() \
            else f"gecscore=={__version__}"
        assert wanted in requirements


def test_requirements_from_a_path_are_refused():
    for line in ("../shared/gecscore", "./dist/gecscore-0.1.0-py3-none-any.whl", "-e .", "gecscore @ file:///x",
                 "--extra-index-url https://example.org/simple"):
        with pytest.raises(ValueError, match="not a requirement from a package index"):
            pinned_requirements([line], {})


@pytest.mark.parametrize("name, variant", [("uot_errant", "errant"), ("pt_m2", "m2"), ("cleme2", "cleme"),
                                           ("impara_ged", "impara")])
def test_built_folder_selects_a_variant_by_config_name(hub, name, variant):
    import evaluate

    module = evaluate.load(str(hub / name), variant, keep_in_memory=True)
    assert module.config_name == variant and module.init_options["variant"] == variant
    if name == "pt_m2":  # model-free and spaCy-free: the M2 lattice with unit weights
        gold = ("S He go to school yesterday and buy a apple .\nA 1 2|||Vt|||went|||REQUIRED|||-NONE-|||0\n"
                "A 6 7|||Vt|||bought|||REQUIRED|||-NONE-|||0\nA 7 8|||ArtOrDet|||an|||REQUIRED|||-NONE-|||0\n")
        out = evaluate.load(str(hub / name), variant, scorer="self", keep_in_memory=True).compute(
            sources=["He go to school yesterday and buy a apple ."],
            predictions=["He go to school yesterday and buy an apple ."], gold_m2=gold)
        assert round(out["f0.5"], 4) == 0.7143 and "variant:m2" in out["signature"]


def test_scripts_import_gecscore_with_the_install_hint(monkeypatch):
    """Every gecscore import of a shipped script carries `# From: gecscore`, so that evaluate's own message for a
    missing gecscore names `pip install gecscore`."""
    from evaluate.loading import DownloadConfig, _download_additional_modules, get_imports

    for name in METRICS:
        script = REPO / "metrics" / name / f"{name}.py"
        imports = [line for line in script.read_text(encoding="utf-8").splitlines()
                   if re.match(r"(from|import)\s+gecscore\b", line)]
        assert imports and all(line.endswith("  # From: gecscore") for line in imports), imports
        parsed = get_imports(str(script))
        assert ("library", "gecscore", "gecscore", None) in parsed
        monkeypatch.setitem(sys.modules, "gecscore", None)  # as if not installed: the import check fails
        with pytest.raises(ImportError) as error:
            _download_additional_modules(name, str(script.parent), parsed, DownloadConfig())
        monkeypatch.undo()
        assert "dependencies['gecscore']" in str(error.value) and "'pip install gecscore'" in str(error.value)


def test_build_pins_gecscore_to_this_version(tmp_path):
    pins = constraint_pins(REPO / "constraints.txt")
    assert pinned_requirements(["gecscore==0.0.1", "evaluate>=0.4", "gradio"], pins) == [
        f"gecscore=={__version__}", pins["evaluate"], pins["gradio"]]
    assert pinned_requirements(["gecscore[embedded]==0.0.1"], pins) == [f"gecscore[embedded]=={__version__}"]
    folder = build_space("pt_m2", tmp_path / "out")  # no constraints: the Space's own lines, gecscore re-pinned
    own = (REPO / "spaces" / "pt_m2" / "requirements.txt").read_text().split()
    assert (folder / "requirements.txt").read_text().split() == [f"gecscore=={__version__}", *own[1:]]


def test_offered_bertscore_layers_are_the_scorers_defaults():
    from gecscore.common.bertscore import default_layer

    assert BERTSCORE_LAYERS["bert-base-uncased"] == default_layer("bert-base-uncased")
    assert BERTSCORE_LAYERS["minilm"] == 6  # MiniLM-L6's last layer, as the metric cards use it


@pytest.mark.parametrize("name, option", [("uot_errant", "variant"), ("pt_m2", "variant"), ("pt_m2", "scorer"),
                                          ("cleme2", "level"), ("impara_ged", "variant")])
def test_space_controls_come_from_the_registry(name, option):
    """A Space offers exactly the values the metric's schema allows, with the schema's default."""
    import gradio as gr

    from gecscore.registry import SPECS
    from gecscore.spaces.layout import option_control

    with gr.Blocks():
        control = option_control(name, option, option)
    spec = SPECS[name].option(option)
    assert [c[0] for c in control.choices] == list(spec.choices) and control.value == spec.default
    with pytest.raises(ValueError, match="are not all among"):
        option_control(name, option, option, choices=["bogus"])


@pytest.mark.parametrize("name", ["gleu", "green", "gotoscorer", "pt_m2", "uot_errant", "cleme2"])
def test_the_language_control_suggests_codes_and_takes_any(name):
    """The Language control lists the suggested codes, takes any other typed in (the metric accepts any language
    code), and offers nothing the metric refuses."""
    import gradio as gr

    from gecscore.common.options import SUGGESTED_LANGUAGES
    from gecscore.spaces.layout import OPTION_ID, option_control

    with gr.Blocks():
        control = option_control(name, "language", "Language")
    assert isinstance(control, gr.Dropdown) and control.allow_custom_value and control.elem_id == OPTION_ID + "language"
    assert [c[0] for c in control.choices] == list(SUGGESTED_LANGUAGES) and control.value == "en"
    with pytest.raises(ValueError, match="`language`"):
        option_control(name, "language", "Language", choices=["en", "eng"])
