"""The Space of a metric that declares one in its SPEC (`MetricSpec.space`): built from the schema alone, so a new
metric has a working Space with no app code. `make generate` writes its `spaces/<name>/app.py`, which only calls
`build_demo` and `serve_metric` here.

The settings are the declared options' controls (`option_control`: values, default and range from the schema); the
Sentence tab shows the metric's corpus scores for one sentence and the raw result; the Corpus tab scores uploaded
files with the per-sentence scores in the table and the JSON download.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import gradio as gr

from gecscore import registry
from gecscore.common.options import MetricSpec, SpaceText
from gecscore.common.results import split_output
from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown


def space_of(name: str) -> tuple[MetricSpec, SpaceText]:
    """The metric's schema and the Space it declares (an error when it declares none)."""
    spec = registry.SPECS[name]
    if spec.space is None:
        raise ValueError(f"gecscore.{name}.SPEC declares no `space` (its Space app is written by hand)")
    return spec, spec.space


def page(name: str) -> Page:
    """The page of the metric's Space."""
    spec, space = space_of(name)
    return Page(title=spec.title, intro=space.intro, reference_based=not spec.reference_free,
                source_label="Source", sentence_examples=[list(example) for example in space.sentence_examples])


def options(name: str, values: Sequence[Any]) -> dict[str, Any]:
    """The compute options from the controls' values (numbers come back from Gradio as floats)."""
    spec, space = space_of(name)
    kinds = {"int": int, "float": float}
    return {option: kinds.get(spec.option(option).type, lambda v: v)(value)
            for option, value in zip(space.settings, values)}


def _sentences(spec: MetricSpec, out: dict[str, Any]) -> list[Any]:
    """The per-sentence entries of an evaluate result (the metric's sentence option asked for them)."""
    for key in (spec.sentence_option, "sentences", "sentence_scores"):
        if isinstance(out.get(key), list):
            return out[key]
    raise KeyError(f"{spec.name}: the result has no per-sentence list")


def _scalars(out: dict[str, Any], spec: MetricSpec) -> dict[str, float]:
    """The result's corpus scores (its numbers)."""
    rest = {k: v for k, v in out.items() if k not in ("signature", spec.sentence_option, "sentences",
                                                       "sentence_scores")}
    return split_output(rest)[0]


def build_demo(name: str, metric: MetricHandle | None = None, app_file: str | Path | None = None) -> gr.Blocks:
    """The Space of metric `name`, from its SPEC."""
    spec, space = space_of(name)
    app_file = app_file or __file__
    metric = metric or MetricHandle(name, app_file)
    ask = {spec.sentence_option: True}

    def settings() -> list[gr.Component]:
        with gr.Row():
            return [option_control(name, option, option.replace("_", " ").capitalize()) for option in space.settings]

    def sentence_outputs() -> list[gr.Component]:
        return [gr.Markdown(), gr.JSON(label="Result")]

    @guarded
    def score_sentence(source, hypothesis, *rest):
        texts = {"sources": [required_text("Source", source)],
                 "predictions": [required_text("Hypothesis", hypothesis)]}
        if not spec.reference_free:
            texts["references"] = [text_lines("References", rest[0])]
            rest = rest[1:]
        out = metric.compute(**texts, **ask, **options(name, rest))
        scores = _scalars(out, spec)
        return ok_box("Scored 1 sentence.", out), scores_markdown(scores, list(scores)), out

    @guarded
    def score_corpus(source_file, hypothesis_file, *rest):
        references = None
        if not spec.reference_free:
            references, rest = rest[0], rest[1:]
        opts = options(name, rest)
        corpus = read_corpus(source_file, hypothesis_file, references, with_references=not spec.reference_free)
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions,
                             **({} if spec.reference_free else {"references": corpus.references}), **ask, **opts)
        rows = [{"score": s["score"] if isinstance(s, dict) else s} for s in _sentences(spec, out)]
        return corpus_outputs(name, corpus.sources, corpus.predictions, out, rows, opts,
                              (spec.sentence_option, "sentences", "sentence_scores"))

    return metric_page(page(name), app_file, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


def serve_metric(name: str, app_file: str | Path) -> None:
    """Launch the metric's Space (`python app.py`)."""
    serve(page(name), name, app_file, lambda handle: build_demo(name, handle, app_file))
