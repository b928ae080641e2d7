"""SOME Space: reference-free scores of corrections by three BERT regressors, and several corrections ranked."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box, position
from gecscore.spaces.ranking_view import bars, ranking
from gecscore.spaces.results import corpus_outputs

NAME = "some"
# The regressors come from the Hugging Face Hub; without it the page says which one could not be loaded.
MODELS = {"model_g": "gfm-models/grammer", "model_f": "gfm-models/fluency", "model_m": "gfm-models/meaning"}
SOURCE = "Do one who suffered from this disease keep it a secret of infrom their relatives ?"
PAGE = Page(
    title="SOME",
    intro=(
        "# SOME\nA reference-free metric: three BERT regressors trained on human ratings rate each corrected "
        "sentence's grammaticality, fluency and (with its source) meaning preservation; the score is "
        "0.55 G + 0.43 F + 0.02 M of the ratings normalised to [0, 1], and the corpus score is the mean. Computed "
        "as gec-metrics computes it. The regressors (`gfm-models/grammer`, `/fluency`, `/meaning`) are loaded from "
        "the Hugging Face Hub, or give local directories. Give several hypotheses of one source (one per line) to "
        "rank them. See the metric card ([Yoshimura et al., COLING 2020]"
        "(https://aclanthology.org/2020.coling-main.573/))."
    ),
    reference_based=False,
    source_label="Source",
    hypothesis_label="Hypotheses (one corrected sentence per line)",
    sentence_examples=[
        [SOURCE, "\n".join([
            "Do people who suffer from this disease keep it a secret from their relatives ?",
            "Does someone who suffers from this disease keep it a secret from their relatives ?",
            SOURCE,
        ])],
    ],
)


def settings() -> list[gr.Component]:
    """The three regressors and their weights."""
    with gr.Row():
        models = [gr.Textbox(value=value, label=label, info="hub id or local directory")
                  for value, label in zip(MODELS.values(), ("Grammaticality model", "Fluency model",
                                                              "Meaning model"))]
    with gr.Row():
        weights = [option_control(NAME, f"weight_{aspect}", label, info="")
                   for aspect, label in (("g", "Weight G"), ("f", "Weight F"), ("m", "Weight M"))]
    return [*models, *weights]


def options(model_g, model_f, model_m, weight_g, weight_f, weight_m) -> dict:
    """The metric's compute options from the settings."""
    return {"model_g": model_g, "model_f": model_f, "model_m": model_m, "weight_g": float(weight_g),
            "weight_f": float(weight_f), "weight_m": float(weight_m)}


def sentence_outputs() -> list[gr.Component]:
    """The mean score, the ranking as bars and as a table, and the raw result."""
    scores = gr.Markdown()
    chart = gr.Label(label="Score of each hypothesis", show_heading=False)
    table = gr.Dataframe(label="Ranking (best first)", interactive=False, wrap=True)
    raw = gr.JSON(label="Result")
    return [scores, chart, table, raw]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The SOME Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypotheses, *settings_values):
        source = required_text("Source", source)
        hyps = text_lines("Hypotheses", hypotheses)
        out = metric.compute(sources=[source] * len(hyps), predictions=hyps, sentence_scores=True,
                             **options(*settings_values))
        scores = out["sentence_scores"]
        best = max(range(len(hyps)), key=lambda i: scores[i])
        summary = (f"**Score:** {scores[0]:.4f}" if len(hyps) == 1 else
                   f"**Mean score:** {out['some']:.4f} · **best:** {position(best)} ({scores[best]:.4f})")
        return (ok_box(f"Scored {len(hyps)} hypothes{'is' if len(hyps) == 1 else 'es'}.", out), summary,
                bars(hyps, scores), ranking(hyps, scores), out)

    @guarded
    def score_corpus(source_file, hypothesis_file, *settings_values):
        corpus = read_corpus(source_file, hypothesis_file, None, with_references=False)
        opts = options(*settings_values)
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, sentence_scores=True, **opts)
        rows = [{"some": s} for s in out["sentence_scores"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentence_scores",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo)
