"""GoToScorer Space: chunk-level F0.5 of a correction or a corpus against one reference, with each chunk's outcome."""

from __future__ import annotations

import gradio as gr
import pandas as pd

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown

NAME = "gotoscorer"
CHUNK_COLUMNS = ["source span", "reference", "type", "weight", "outcome"]
PAGE = Page(
    title="GoToScorer",
    intro=(
        "# GoToScorer\nGoToScorer as gec-metrics 0.1.1 computes it: the source is cut into chunks against one "
        "reference (its ERRANT edits, the tokens it keeps and empty insertion slots between them); each chunk is a "
        "true or false positive, a false negative or a true negative for the hypothesis, and the score is F0.5 of "
        "the counts. Here every chunk weighs 1 (gec-metrics' default); difficulty weights need many systems at "
        "once: use `gecscore score gotoscorer --predictions A B C ... -o weights=systems`. Inputs are "
        "whitespace-tokenised. See the metric card (Gotou, Nagata, Mita & Hanawa, COLING 2020)."
    ),
    sentence_examples=[
        ["This sentences contain gramamtical error .", "This sentence contains a grammatical error .",
         "This sentence contains a gramamtical error .\nThese sentences contain grammatical errors ."],
        ["He go to school yesterday .", "He went to the school yesterday .", "He went to school yesterday ."],
    ],
)


def settings() -> list[gr.Component]:
    """β and the reference scored against."""
    with gr.Row():
        beta = option_control(NAME, "beta", "β", info="F-beta's β (0.5 weighs precision more)")
        ref_id = option_control(NAME, "ref_id", "Reference", info="which reference line is scored against (0: first)")
    return [beta, ref_id]


def options(beta, ref_id) -> dict:
    """The metric's compute options from the settings."""
    return {"beta": float(beta), "ref_id": int(ref_id)}


def sentence_outputs() -> list[gr.Component]:
    """The scores, the reference chunks with their outcomes, and the raw result."""
    return [gr.Markdown(), gr.Dataframe(label="Reference chunks", headers=CHUNK_COLUMNS), gr.JSON(label="Result")]


def chunk_table(source: str, chunks: list[list]) -> pd.DataFrame:
    """One row per reference chunk: the source span it covers, the reference's text, type, weight and outcome."""
    tokens = source.split(" ")
    rows = [[" ".join(tokens[start:end]) or "∅", correction or "∅", "" if kind == "DUMMY:DUMMY" else kind, weight,
             outcome] for start, end, correction, kind, weight, outcome in chunks]
    return pd.DataFrame(rows, columns=CHUNK_COLUMNS)


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The GoToScorer Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypothesis, references, beta, ref_id):
        opts = options(beta, ref_id)
        out = metric.compute(sources=[required_text("Source", source)],
                             predictions=[required_text("Hypothesis", hypothesis)],
                             references=[text_lines("References", references)], return_sentence_scores=True,
                             **opts)
        key = f"f{opts['beta']:g}"
        sentence = out["sentence_scores"][0]
        values = {key: sentence["score"], "precision": sentence["precision"], "recall": sentence["recall"]}
        return ok_box(f"Scored against reference {opts['ref_id']}.", out), scores_markdown(values, list(values)), \
            chunk_table(source.strip(), sentence["chunks"]), out

    @guarded
    def score_corpus(source_file, hypothesis_file, reference_files, beta, ref_id):
        opts = options(beta, ref_id)
        corpus = read_corpus(source_file, hypothesis_file, reference_files)
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, references=corpus.references,
                             return_sentence_scores=True, **opts)
        key = f"f{opts['beta']:g}"
        rows = [{key: s["score"], **s["statistics"]} for s in out["sentence_scores"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentence_scores",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo)
