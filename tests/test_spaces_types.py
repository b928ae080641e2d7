"""The per-error-type panel of the UOT-ERRANT and PT-M2 Spaces' Corpus tab: handlers called directly on the
example files (plain ERRANT, unit weights or the tiny random BERT: no real model), plus one run through the API."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest
from matplotlib.figure import Figure

from gecscore.spaces.loading import METRIC_PATH_ENV, MetricHandle
from gecscore.spaces.types_view import (DEFAULT_LEVEL, RunCache, level_control, run_key, totals, type_figure,
                                        type_table, types_panel)

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "spaces" / "examples"
FILES = [str(EXAMPLES / "source.txt"), str(EXAMPLES / "hypothesis.txt"),
         [str(EXAMPLES / "ref0.txt"), str(EXAMPLES / "ref1.txt")]]
OPERATIONS = {"M", "R", "U", "UNK"}


class CountingHandle(MetricHandle):
    """The working-tree metric, counting its computations."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.calls = 0

    def compute(self, **kwargs: Any) -> dict[str, Any]:
        self.calls += 1
        return super().compute(**kwargs)


class Space:
    """A Space's demo, built on a counting metric handle, and its corpus handlers."""

    def __init__(self, name: str) -> None:
        spec = importlib.util.spec_from_file_location(f"space_types_{name}", REPO / "spaces" / name / "app.py")
        self.app = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.app)
        self.metric = CountingHandle(name)
        self.demo = self.app.build_demo(self.metric)
        self.fns = {f.name: f for f in self.demo.fns.values()}

    def corpus(self, *settings: Any) -> tuple:
        """`score_corpus` on the example files."""
        return self.fns["score_corpus"].fn(*FILES, *settings)

    def types(self, *settings: Any) -> tuple[str, Any, Any]:
        """`score_types` on the example files: (note, table, figure), None where hidden."""
        note, table, figure = self.fns["score_types"].fn(*FILES, *settings)
        return (note, table["value"] if table["visible"] else None, figure["value"] if figure["visible"] else None)


@pytest.fixture(scope="module")
def spaces(nlp):
    """Both Spaces on the working-tree metrics (spaCy loaded once by `nlp`)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(METRIC_PATH_ENV, str(REPO / "metrics"))
        built = {name: Space(name) for name in ("uot_errant", "pt_m2")}
        yield built


def column_sums(table) -> tuple[float, float, float]:
    tp = next(c for c in table.columns if c.startswith("TP"))
    return tuple(math.fsum(float(v) for v in table[c]) for c in (tp, "FP", "FN"))


# --- the handlers --------------------------------------------------------------------------------------------------

def test_uot_errant_plain_errant_rows_add_up_to_the_corpus_counts_in_one_computation(spaces):
    space = spaces["uot_errant"]
    settings = ["minilm", "errant", 0.5, False, False, "en", 2]
    before = space.metric.calls
    status, scores, per_sentence, download = space.corpus(*settings)
    note, table, figure = space.types(*settings)
    assert space.metric.calls == before + 1  # the two endpoints of one click share the run
    assert status.startswith("\u2713 Scored 8 sentences") and "types" not in scores and len(per_sentence) == 8
    assert list(table.columns) == ["category", "TP", "FP", "FN", "P", "R", "F0.5"]
    assert column_sums(table) == (scores["tp"], scores["fp"], scores["fn"])  # integer counts: exact
    assert table["TP"].dtype.kind == "i" and "main type" in note and "mass" not in note
    assert not any(c[:2] in ("M:", "R:", "U:") for c in table["category"])  # main types carry no operation
    assert isinstance(figure, Figure)
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == list(table["category"])
    assert len(figure.axes[0].patches) == 2 * len(table)  # a precision and a recall bar per category


@pytest.mark.parametrize("level", [1, 3])
def test_the_level_changes_the_categories(spaces, level):
    space = spaces["uot_errant"]
    settings = ["minilm", "errant", 0.5, False, False, "en", level]
    _, scores, _, _ = space.corpus(*settings)
    note, table, figure = space.types(*settings)
    categories = set(table["category"])
    if level == 1:
        assert categories <= OPERATIONS and "operation" in note
    else:
        assert all(c == "UNK" or c[:2] in ("M:", "R:", "U:") for c in categories) and "full type" in note
        assert len(categories) > len(OPERATIONS)
    assert column_sums(table) == (scores["tp"], scores["fp"], scores["fn"])
    assert isinstance(figure, Figure)


def test_level_none_hides_the_panel_and_computes_no_types(spaces):
    space = spaces["uot_errant"]
    settings = ["minilm", "errant", 0.5, False, False, "en", 0]
    assert space.corpus(*settings)[0].startswith("\u2713")
    note, table, figure = space.types(*settings)
    assert "off" in note and table is None and figure is None


def test_uot_transported_mass_rows_add_up_to_the_corpus_counts(spaces, tiny_bert):
    space = spaces["uot_errant"]
    settings = [str(tiny_bert), "uot", 0.5, False, False, "en", 2]
    status, scores, _, download = space.corpus(*settings)
    assert status.startswith("\u2713"), status
    note, table, figure = space.types(*settings)
    assert list(table.columns)[:2] == ["category", "TP (mass)"] and "transported mass" in note
    assert column_sums(table) == pytest.approx((scores["tp"], scores["fp"], scores["fn"]), rel=1e-3, abs=1e-3)
    saved = json.loads(Path(download).read_text(encoding="utf-8"))  # the breakdown goes with the JSON download
    assert totals(saved["details"]["types"]) == pytest.approx((scores["tp"], scores["fp"], scores["fn"]), rel=1e-9)
    assert isinstance(figure, Figure)


def test_pt_errant_rows_add_up_to_the_corpus_precision_and_recall(spaces):
    space = spaces["pt_m2"]
    settings = ["errant", "self", "minilm", 6, 0.5, False, "en", 1]  # unit weights: no model
    status, scores, _, _ = space.corpus(*settings)
    assert status.startswith("\u2713 Scored 8 sentences"), status
    note, table, figure = space.types(*settings)
    assert set(table["category"]) <= OPERATIONS and list(table.columns)[1] == "TP"
    tp, fp, fn = column_sums(table)
    assert tp / (tp + fp) == pytest.approx(scores["precision"], rel=1e-9)
    assert tp / (tp + fn) == pytest.approx(scores["recall"], rel=1e-9)
    assert isinstance(figure, Figure)


def test_pt_errant_with_bertscore_weights(spaces, tiny_bert):
    space = spaces["pt_m2"]
    settings = ["errant", "bertscore", str(tiny_bert), 1, 0.5, False, "en", 2]
    _, scores, _, _ = space.corpus(*settings)
    note, table, figure = space.types(*settings)
    assert list(table.columns)[1] == "TP (weight)" and "BERTScore" in note
    tp, fp, _ = column_sums(table)
    assert tp / (tp + fp) == pytest.approx(scores["precision"], rel=1e-3)
    assert isinstance(figure, Figure)


def test_pt_m2_lattice_variants_explain_instead(spaces):
    space = spaces["pt_m2"]
    settings = ["m2", "self", "minilm", 6, 0.5, False, "en", 2]
    assert space.corpus(*settings)[0].startswith("\u2713")
    note, table, figure = space.types(*settings)
    assert "needs an ERRANT variant" in note and table is None and figure is None


def test_a_failed_run_leaves_the_message_to_the_status_line(spaces):
    space = spaces["uot_errant"]
    settings = ["minilm", "errant", 0.5, False, False, "en", 2]
    note, table, figure = space.fns["score_types"].fn(None, *FILES[1:], *settings)
    assert note == "" and not table["visible"] and not figure["visible"]


# --- the page ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["uot_errant", "pt_m2"])
def test_the_panel_sits_in_the_corpus_tab_around_the_button(spaces, name):
    import gradio as gr

    demo, fns = spaces[name].demo, spaces[name].fns
    corpus, types, sentence = fns["score_corpus"], fns["score_types"], fns["score_sentence"]
    button = demo.blocks[corpus.targets[0][0]]
    tab = button.parent
    assert isinstance(tab, gr.Tab) and tab.label == "Corpus"
    level = corpus.inputs[-1]  # the level is the last input of the corpus endpoints, and no sentence input
    assert isinstance(level, gr.Radio) and level not in sentence.inputs
    assert tab.children.index(level.parent) == tab.children.index(button) - 1
    assert level.value == DEFAULT_LEVEL and [c[1] for c in level.choices] == [0, 1, 2, 3]
    assert len(corpus.outputs) == 4  # the corpus endpoint's outputs are unchanged
    download = corpus.outputs[-1]
    note, table, chart = types.outputs
    panel = note.parent
    assert table.parent is chart.parent and table.parent.parent is panel
    assert panel.parent is tab and tab.children.index(panel) == tab.children.index(download) + 1
    assert types.inputs == corpus.inputs and types.concurrency_id == corpus.concurrency_id
    assert types.targets == corpus.targets and types.api_name == "score_types"


def test_score_types_through_the_api(monkeypatch, nlp):
    from gradio_client import Client, handle_file

    from test_spaces import launch_local

    monkeypatch.setenv(METRIC_PATH_ENV, str(REPO / "metrics"))
    space = Space("uot_errant")
    space.demo.queue(default_concurrency_limit=1)
    url = launch_local(space.demo)
    try:
        client = Client(url, verbose=False)
        uploads = [handle_file(FILES[0]), handle_file(FILES[1]), [handle_file(p) for p in FILES[2]]]
        settings = ["minilm", "errant", 0.5, False, False, "en"]
        status, scores, _, _ = client.predict(*uploads, *settings, api_name="/score_corpus")  # level defaults
        note, table, plot = client.predict(*uploads, *settings, 1, api_name="/score_types")
    finally:
        space.demo.close()
    assert status.startswith("\u2713") and "types" not in scores
    assert {row[0] for row in table["value"]["data"]} <= OPERATIONS and "operation" in note
    assert sum(row[1] for row in table["value"]["data"]) == scores["tp"]
    assert plot["value"]["type"] == "matplotlib"


# --- the pieces ----------------------------------------------------------------------------------------------------

ROWS = {"level": 3, "rows": {
    "M:DET": {"tp": 1.0, "fp": 0.0, "fn": 2.0, "precision": 1.0, "recall": 1 / 3, "f0.5": 0.7142857},
    "R:VERB": {"tp": 0.0, "fp": 0.0, "fn": 3.0, "precision": 1.0, "recall": 0.0, "f0.5": 0.0},
    "U:PUNCT": {"tp": 0.0, "fp": 2.0, "fn": 0.0, "precision": 0.0, "recall": 1.0, "f0.5": 0.0}}}


def test_type_table_and_figure_from_rows():
    table = type_table(ROWS, "TP (mass)")
    assert table.values.tolist() == [["M:DET", 1, 0, 2, 1.0, 0.3333, 0.7143], ["R:VERB", 0, 0, 3, 1.0, 0.0, 0.0],
                                     ["U:PUNCT", 0, 2, 0, 0.0, 1.0, 0.0]]
    assert list(table.columns) == ["category", "TP (mass)", "FP", "FN", "P", "R", "F0.5"]
    assert totals(ROWS) == (1.0, 2.0, 5.0)
    soft = {"level": 1, "rows": {"R": {**ROWS["rows"]["M:DET"], "tp": 0.25}}}
    assert type_table(soft)["TP"].tolist() == [0.25]
    figure = type_figure(ROWS)
    bars = figure.axes[0].patches
    hatched = [(round(b.get_y() + b.get_height() / 2), b.get_width()) for b in bars if b.get_hatch()]
    assert sorted(hatched) == [(1, 1.0), (2, 1.0)]  # R:VERB's P and U:PUNCT's R are 1 only by convention
    assert type_figure({"level": 2, "rows": {}}) is None
    note, table_update, figure_update = types_panel({"level": 2, "rows": {}})
    assert "No edits" in note and figure_update["visible"] is False and table_update["visible"] is True


def test_level_control_and_run_cache(tmp_path):
    import gradio as gr

    with gr.Blocks():
        for name in ("uot_errant", "pt_m2"):
            control = level_control(name)
            assert control.value == DEFAULT_LEVEL
    cache, calls = RunCache(size=1), []
    for key in ("a", "a", "b", "a"):
        cache.get(key, lambda: calls.append(key) or len(calls))
    assert calls == ["a", "b", "a"]
    path = tmp_path / "f.txt"
    path.write_text("x")
    first = run_key([str(path), {"beta": 0.5}, None])
    path.write_text("xy")
    assert run_key([str(path), {"beta": 0.5}, None]) != first and hash(first) is not None
