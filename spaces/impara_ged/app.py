"""IMPARA-GED Space: reference-free quality scores of corrections, and several corrections of one source ranked."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, model_picker, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box, position
from gecscore.spaces.ranking_view import bars, ranking
from gecscore.spaces.results import corpus_outputs

NAME = "impara_ged"
# The offline quality estimator (package gecscore-impara-minilm) first; the paper's checkpoint needs the Hub.
MODELS = ["embedded", "naist-nlp/IMPARA-GED"]
SOURCE = "Do one who suffered from this disease keep it a secret of infrom their relatives ?"
PAGE = Page(
    title="IMPARA-GED",
    intro=(
        "# IMPARA-GED\nA reference-free metric: a quality estimator fine-tuned for grammatical error detection and "
        "then on pairs of partial corrections scores each corrected sentence with σ(logit) in [0, 1]; the corpus "
        "score is the mean. Give several hypotheses of one source (one per line) to rank them. The paper's "
        "checkpoint is `naist-nlp/IMPARA-GED`; `embedded` is a small MiniLM reproduction (the package "
        "gecscore-impara-minilm) that runs offline (not the paper's model; CC BY-NC-SA 4.0). See the metric card "
        "([Sakai et al., Findings of ACL 2025](https://arxiv.org/abs/2506.02899))."
    ),
    reference_based=False,
    source_label="Source",
    hypothesis_label="Hypotheses (one corrected sentence per line)",
    sentence_examples=[
        [SOURCE, "\n".join([
            "Do people who suffer from this disease keep it a secret from their relatives ?",  # T5
            "Does one who suffered from this disease keep it a secret to infrom their relatives ?",  # BART
            "Should someone who suffered from this disease keep it a secret or inform their relatives ?",  # GPT-3.5
            "Does someone who suffers from this disease keep it a secret from their relatives ?",  # GECToR-BERT
            SOURCE,  # INPUT
        ])],
        ["Without their concern and support , we are hard to stay until this time .", "\n".join([
            "Without their concern and support , it would be hard to stay until this time .",
            "Without their concern and support , we would have been hard-pressed to stay until this time .",
            "Without their concern and support , we are hard pressed to stay until this time .",
            "Without their concern and support , we are hard to stay until this time .",
        ])],
    ],
)


def settings() -> list[gr.Component]:
    """Quality estimator and variant."""
    with gr.Row():
        model, _ = model_picker(MODELS, info="quality estimator: hub id, local checkpoint or embedded")
        variant = option_control(NAME, "variant", "Variant",
                                 info="impara = the original IMPARA (QE + similarity filter with bert-base-cased)")
    return [model, variant]


def sentence_outputs() -> list[gr.Component]:
    """The mean score, the ranking as bars and as a table, and the raw result."""
    scores = gr.Markdown()
    chart = gr.Label(label="Score of each hypothesis", show_heading=False)
    table = gr.Dataframe(label="Ranking (best first)", interactive=False, wrap=True)
    raw = gr.JSON(label="Result")
    return [scores, chart, table, raw]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The IMPARA-GED Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypotheses, model, variant):
        source = required_text("Source", source)
        hyps = text_lines("Hypotheses", hypotheses)
        out = metric.compute(sources=[source] * len(hyps), predictions=hyps, sentence_scores=True, model=model,
                             variant=variant)
        scores = out["sentence_scores"]
        best = max(range(len(hyps)), key=lambda i: scores[i])
        summary = (f"**Score:** {scores[0]:.4f}" if len(hyps) == 1 else
                   f"**Mean score:** {out['score']:.4f} · **best:** {position(best)} ({scores[best]:.4f})")
        return (ok_box(f"Scored {len(hyps)} hypothes{'is' if len(hyps) == 1 else 'es'}.", out), summary,
                bars(hyps, scores), ranking(hyps, scores), out)

    @guarded
    def score_corpus(source_file, hypothesis_file, model, variant):
        corpus = read_corpus(source_file, hypothesis_file, None, with_references=False)
        opts = {"model": model, "variant": variant}
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, sentence_scores=True, **opts)
        rows = [{"score": s} for s in out["sentence_scores"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentence_scores",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo, model=MODELS[0])
