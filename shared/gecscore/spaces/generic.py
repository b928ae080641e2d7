"""The Space of a metric that declares one in its SPEC (`MetricSpec.space`): built from the schema, so a metric's
Space is its SPEC plus, at most, two pure functions of its result. `make generate` writes its `app.py`, which only
takes `app` here.

The settings are the declared controls (`option_control`: values, default and range from the schema; model pickers
from `Control.models`). A reference-based metric's Sentence tab scores one hypothesis against its references and
shows the metric's view of the result; a reference-free one ranks several hypotheses of one source. The Corpus tab
scores uploaded files with the per-sentence scores in the table and the JSON download.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import gradio as gr

from gecscore import registry
from gecscore.common.options import Control, MetricSpec, SpaceText
from gecscore.common.results import split_output
from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import OPTION_ID, Page, metric_page, model_picker, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box, position
from gecscore.spaces.ranking_view import bars, ranking
from gecscore.spaces.results import corpus_outputs, scores_markdown

#: The most controls in one row of the settings.
ROW = 5
#: Where a result keeps its per-sentence entries (the metric's sentence option first).
SENTENCE_KEYS = ("sentences", "sentence_scores")


def space_of(name: str) -> tuple[MetricSpec, SpaceText]:
    """The metric's schema and the Space it declares (an error when it declares none)."""
    spec = registry.SPECS[name]
    if spec.space is None:
        raise ValueError(f"gecscore.{name}.SPEC declares no `space` (its Space app is written by hand)")
    return spec, spec.space


def page(name: str) -> Page:
    """The page of the metric's Space."""
    spec, space = space_of(name)
    ranked = spec.reference_free
    hypothesis = space.hypothesis_label or ("Hypotheses (one corrected sentence per line)" if ranked
                                            else "Hypothesis (corrected sentence)")
    return Page(title=spec.title, intro=space.intro, reference_based=not ranked, source_label=space.source_label,
                hypothesis_label=hypothesis, sentence_examples=[list(example) for example in space.sentence_examples],
                setting_examples=list(space.setting_examples))


def default_settings(name: str) -> list[Any]:
    """The values the page's settings start with, in the order of the endpoints' inputs (a model picker with a
    layer gives two): what a client passes for the defaults."""
    spec, space = space_of(name)
    values: list[Any] = []
    for control in space.controls:
        if control.models:
            model, layer = control.models[0]
            values += [model, layer] if control.with_layer else [model]
        else:
            values.append(spec.option(control.option).default if control.value is None else control.value)
    return values


def options(name: str, values: Sequence[Any]) -> dict[str, Any]:
    """The compute options from the controls' values (numbers come back from Gradio as floats)."""
    spec, space = space_of(name)
    kinds = {"int": int, "float": float, "bool": bool}
    values = list(values)
    out: dict[str, Any] = {}
    for control in space.controls:
        value = values.pop(0)
        if control.models and control.with_layer:
            layer = values.pop(0)
            out["layer"] = None if layer is None else int(layer)
        kind = kinds.get(spec.option(control.option).type)
        out[control.option] = value if kind is None or value is None else kind(value)
    return out


def _control(name: str, control: Control) -> list[gr.Component]:
    """The component(s) of one setting."""
    if control.models:
        layers = dict(control.models) if control.with_layer else None
        model, layer = model_picker([m for m, _ in control.models], layers, info=control.info or "")
        return [model] if layer is None else [model, layer]
    option = registry.SPECS[name].option(control.option)
    if option.type == "str" and not option.choices:
        return [gr.Textbox(value=option.default if control.value is None else control.value, label=control.label,
                           info=control.info or option.doc, elem_id=OPTION_ID + control.option)]
    return [option_control(name, control.option, control.label, info=control.info, value=control.value)]


def _sentence_entries(spec: MetricSpec, out: Mapping[str, Any]) -> list[Any]:
    """The per-sentence entries of an evaluate result (the metric's sentence option asked for them)."""
    for key in (spec.sentence_option, *SENTENCE_KEYS):
        if isinstance(out.get(key), list):
            return out[key]
    raise KeyError(f"{spec.name}: the result has no per-sentence list")


def _score(entry: Any) -> float:
    """A per-sentence entry's score (a record or a bare number)."""
    return float(entry["score"] if isinstance(entry, Mapping) else entry)


def _numbers(spec: MetricSpec, out: Mapping[str, Any]) -> dict[str, float]:
    """The result's corpus scores (its numbers)."""
    drop = ("signature", spec.sentence_option, *SENTENCE_KEYS)
    return split_output({k: v for k, v in out.items() if k not in drop})[0]


def build_demo(name: str, metric: MetricHandle | None = None, app_file: str | Path | None = None) -> gr.Blocks:
    """The Space of metric `name`, from its SPEC."""
    spec, space = space_of(name)
    app_file = app_file or __file__
    metric = metric or MetricHandle(name, app_file)
    ask = {spec.sentence_option: True}
    row_of = space.corpus_row or (lambda entry: {"score": entry["score"]} if isinstance(entry, Mapping)
                                  else {space.score_key: entry})

    def settings() -> list[gr.Component]:
        controls = list(space.controls)
        per_row = math.ceil(len(controls) / math.ceil(len(controls) / ROW)) if controls else 1
        components: list[gr.Component] = []
        for start in range(0, len(controls), per_row):
            with gr.Row():
                for control in controls[start:start + per_row]:
                    components += _control(name, control)
        return components

    def sentence_outputs() -> list[gr.Component]:
        if spec.reference_free:
            return [gr.Markdown(), gr.Label(label="Score of each hypothesis", show_heading=False),
                    gr.Dataframe(label="Ranking (best first)", interactive=False, wrap=True), gr.JSON(label="Result")]
        return [gr.Markdown(), gr.JSON(label="Result")]

    def rank(source: str, hypotheses: str, values: Sequence[Any]) -> tuple:
        source = required_text("Source", source)
        hyps = text_lines("Hypotheses", hypotheses)
        out = metric.compute(sources=[source] * len(hyps), predictions=hyps, **ask, **options(name, values))
        scores = [_score(entry) for entry in _sentence_entries(spec, out)]
        best = max(range(len(hyps)), key=lambda i: scores[i])
        summary = (f"**Score:** {scores[0]:.4g}" if len(hyps) == 1 else
                   f"**{spec.title}:** {out[space.score_key]:.4g} · **best:** {position(best)} ({scores[best]:.4g})")
        return (ok_box(f"Scored {len(hyps)} hypothes{'is' if len(hyps) == 1 else 'es'}.", out), summary,
                bars(hyps, scores), ranking(hyps, scores), out)

    @guarded
    def score_sentence(source, hypothesis, *rest):
        if spec.reference_free:
            return rank(source, hypothesis, rest)
        source = required_text("Source", source)
        references = text_lines("References", rest[0])
        out = metric.compute(sources=[source], predictions=[required_text("Hypothesis", hypothesis)],
                             references=[references], **ask, **options(name, rest[1:]))
        numbers = _numbers(spec, out)
        view = (space.sentence_view(source, out) if space.sentence_view is not None
                else scores_markdown(numbers, list(numbers), labels={space.score_key: spec.title}))
        return ok_box(f"Scored against {len(references)} reference(s).", out), view, out

    @guarded
    def score_corpus(source_file, hypothesis_file, *rest):
        references = None
        if not spec.reference_free:
            references, rest = rest[0], rest[1:]
        opts = options(name, rest)
        corpus = read_corpus(source_file, hypothesis_file, references, with_references=not spec.reference_free)
        texts = {} if spec.reference_free else {"references": corpus.references}
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, **texts, **ask, **opts)
        rows = [dict(row_of(entry)) for entry in _sentence_entries(spec, out)]
        return corpus_outputs(name, corpus.sources, corpus.predictions, out, rows, opts,
                              (spec.sentence_option, *SENTENCE_KEYS))

    return metric_page(page(name), app_file, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


def serve_metric(name: str, app_file: str | Path) -> None:
    """Launch the metric's Space (`python app.py`), warming up with the page's default settings."""
    serve(page(name), name, app_file, lambda handle: build_demo(name, handle, app_file),
          **options(name, default_settings(name)))


def app(name: str, app_file: str | Path) -> tuple[Page, Callable[..., gr.Blocks], Callable[[], None]]:
    """What a generated `app.py` holds: the page, `build_demo(metric=None)` and `serve()` (`python app.py`)."""
    return (page(name), lambda metric=None: build_demo(name, metric, app_file),
            lambda: serve_metric(name, app_file))
