"""BERTScore Space: gec-metrics' `bertscore` of a correction against its references, or of a corpus."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, model_picker, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown

NAME = "bertscore"
# The offline MiniLM first (no bert_score baseline: rescaling off); gec-metrics' default needs the Hub.
MODELS = ["minilm", "bert-base-uncased"]
LAYERS = {"minilm": 6, "bert-base-uncased": 9}
PAGE = Page(
    title="BERTScore",
    intro=(
        "# BERTScore\nBERTScore as gec-metrics' `bertscore` computes it: every token of the hypothesis matched with "
        "its most similar reference token (cosine of one layer's contextual embeddings) gives the precision, the "
        "reverse the recall, and F1 of the two; the best reference per measure, rescaled with bert_score's baseline "
        "(gec-metrics' default, for models bert_score has one for); the corpus score is the mean over sentences. "
        "`minilm` runs offline (no baseline: rescaling off). See the metric card "
        "([Zhang et al., ICLR 2020](https://openreview.net/forum?id=SkeHuCVFDr))."
    ),
    sentence_examples=[
        ["Do one who suffered from this disease keep it a secret of infrom their relatives ?",
         "Does someone who suffers from this disease keep it a secret from their relatives ?",
         "Does one who suffers from this disease keep it a secret or inform their relatives ?\n"
         "Does someone who suffers from this disease keep it a secret or inform their relatives ?"],
        ["He or she might even be adviced not to get married or have children .",
         "They might even be advised not to get married or have children .",
         "He or she might even be advised not to get married or have children ."],
    ],
)


def settings() -> list[gr.Component]:
    """Model, layer, measure and rescaling."""
    with gr.Row():
        model, layer = model_picker(MODELS, LAYERS, info="encoder: hub id or local path")
        score_type = option_control(NAME, "score_type", "Measure", info="p precision, r recall, f F1")
        rescale = gr.Checkbox(value=False, label="Rescale with baseline",
                              info="bert_score's baseline (bert-base-uncased: gec-metrics' default; none for minilm)")
    return [model, layer, score_type, rescale]


def options(model, layer, score_type, rescale) -> dict:
    """The metric's compute options from the settings."""
    return {"model": model, "layer": None if layer is None else int(layer), "score_type": score_type,
            "rescale_with_baseline": bool(rescale)}


def sentence_outputs() -> list[gr.Component]:
    """The scores and the raw result."""
    return [gr.Markdown(), gr.JSON(label="Result")]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The BERTScore Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypothesis, references, model, layer, score_type, rescale):
        out = metric.compute(sources=[required_text("Source", source)],
                             predictions=[required_text("Hypothesis", hypothesis)],
                             references=[text_lines("References", references)], sentence_scores=True,
                             **options(model, layer, score_type, rescale))
        values = {"BERTScore": out["bertscore"]}
        return ok_box(f"Scored against {len(text_lines('References', references))} reference(s).", out), \
            scores_markdown(values, list(values)), out

    @guarded
    def score_corpus(source_file, hypothesis_file, reference_files, model, layer, score_type, rescale):
        opts = options(model, layer, score_type, rescale)
        corpus = read_corpus(source_file, hypothesis_file, reference_files)
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, references=corpus.references,
                             sentence_scores=True, **opts)
        rows = [{"bertscore": s} for s in out["sentence_scores"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentence_scores",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo)
