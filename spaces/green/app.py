"""GREEN Space: the n-gram F-beta of a correction or a corpus, with per-order precision and recall."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown

NAME = "green"
PAGE = Page(
    title="GREEN",
    intro=(
        "# GREEN\nGREEN as gec-metrics computes it: every n-gram (n = 1..4) of the source, the hypothesis and a "
        "reference is a true, false or missed deletion, insertion or keep. Per order, precision is true / (true + "
        "false) and recall true / (true + missed); their geometric means give F-beta (β = 2). Each sentence is "
        "scored against its best reference, and a corpus sums those references' counts. Inputs are "
        "whitespace-tokenised words; with Language zh, raw Chinese, every character a token. See the metric card "
        "([Koyama et al., INLG 2024](https://aclanthology.org/2024.inlg-main.25/))."
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
    """n-gram order, β and unit."""
    with gr.Row():
        order = option_control(NAME, "n", "n-gram order", info="")
        beta = option_control(NAME, "beta", "β", info="recall weighs β times as much as precision")
        unit = option_control(NAME, "unit", "Unit", info="word or character n-grams")
        language = option_control(NAME, "language", "Language", info="zh: every character a token")
    return [order, beta, unit, language]


def options(order, beta, unit, language) -> dict:
    """The metric's compute options from the settings."""
    return {"n": int(order), "beta": float(beta), "unit": unit, "language": language}


def sentence_outputs() -> list[gr.Component]:
    """The scores and the raw result."""
    return [gr.Markdown(), gr.JSON(label="Result")]


def per_order_markdown(out: dict) -> str:
    """The per-order counts, precision and recall as a Markdown table."""
    rows = ["| n | true | false | missed | precision | recall |", "|---|---|---|---|---|---|"]
    rows += [f"| {o['order']} | {o['true']} | {o['false']} | {o['missed']} | {o['precision']:.4f} | "
             f"{o['recall']:.4f} |" for o in out["per_order"]]
    return "\n".join(rows)


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The GREEN Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypothesis, references, order, beta, unit, language):
        out = metric.compute(sources=[required_text("Source", source)],
                             predictions=[required_text("Hypothesis", hypothesis)],
                             references=[text_lines("References", references)], sentences=True,
                             **options(order, beta, unit, language))
        sentence = out["sentences"][0]
        values = {"GREEN": out["green"], "precision": out["precision"], "recall": out["recall"]}
        summary = (scores_markdown(values, list(values)) + f"\n\nScored against reference {sentence['reference']} "
                   f"of {len(sentence['per_reference'])}.\n\n" + per_order_markdown(out))
        return ok_box(f"Scored against {len(sentence['per_reference'])} reference(s).", out), summary, out

    @guarded
    def score_corpus(source_file, hypothesis_file, reference_files, order, beta, unit, language):
        opts = options(order, beta, unit, language)
        corpus = read_corpus(source_file, hypothesis_file, reference_files)
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, references=corpus.references,
                             sentences=True, **opts)
        rows = [{"green": s["score"], "reference": s["reference"]} for s in out["sentences"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentences",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo)
