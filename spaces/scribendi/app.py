"""Scribendi Space: −1/0/1 per correction from a language model's perplexity and the source similarity."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs

NAME = "scribendi"
# GPT-2 comes from the Hugging Face Hub; without it the page says it could not be loaded.
MODEL = "gpt2"
SOURCE = "Do one who suffered from this disease keep it a secret of infrom their relatives ?"
PAGE = Page(
    title="Scribendi",
    intro=(
        "# Scribendi\nA reference-free metric: an unchanged sentence scores 0; a changed one scores 1 when GPT-2 "
        "finds the correction less perplexing than the source and the correction stays close to it (token sort "
        "ratio or Levenshtein distance ratio at least the threshold), else −1. The corpus score is the sum. "
        "Computed as gec-metrics computes it; the language model is loaded from the Hugging Face Hub, or give a "
        "local directory. See the metric card ([Islam & Magnani, EMNLP 2021]"
        "(https://aclanthology.org/2021.emnlp-main.239/))."
    ),
    reference_based=False,
    source_label="Source",
    hypothesis_label="Hypotheses (one corrected sentence per line)",
    sentence_examples=[
        [SOURCE, "\n".join([
            "Does someone who suffers from this disease keep it a secret from their relatives ?",
            "Should people with this illness tell nobody in their family about it ?",
            SOURCE,
        ])],
    ],
)


def settings() -> list[gr.Component]:
    """Language model and threshold."""
    with gr.Row():
        model = gr.Textbox(value=MODEL, label="Language model", info="hub id or local directory")
        threshold = option_control(NAME, "threshold", "Threshold", info="token sort or Levenshtein ratio needed")
    return [model, threshold]


def sentence_outputs() -> list[gr.Component]:
    """The score of each hypothesis and the raw result."""
    return [gr.Markdown(), gr.Dataframe(label="Scores", interactive=False, wrap=True), gr.JSON(label="Result")]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The Scribendi Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypotheses, model, threshold):
        source = required_text("Source", source)
        hyps = text_lines("Hypotheses", hypotheses)
        out = metric.compute(sources=[source] * len(hyps), predictions=hyps, sentence_scores=True, model=model,
                             threshold=float(threshold))
        rows = [{"hypothesis": h, "score": s} for h, s in zip(hyps, out["sentence_scores"])]
        return (ok_box(f"Scored {len(hyps)} hypothes{'is' if len(hyps) == 1 else 'es'}.", out),
                f"**Sum:** {out['scribendi']:g}", rows, out)

    @guarded
    def score_corpus(source_file, hypothesis_file, model, threshold):
        corpus = read_corpus(source_file, hypothesis_file, None, with_references=False)
        opts = {"model": model, "threshold": float(threshold)}
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, sentence_scores=True, **opts)
        rows = [{"scribendi": s} for s in out["sentence_scores"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentence_scores",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo)
