"""GLEU Space: the official JFLEG GLEU+ score of a correction or a corpus, with the spread over reference draws."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown

NAME = "gleu"
PAGE = Page(
    title="GLEU",
    intro=(
        "# GLEU\nGLEU+ as the official JFLEG script computes it: n-gram precision (n = 1..4) of the hypothesis "
        "against a reference, less the n-grams it kept from the source where the reference changed them, with "
        "BLEU's brevity penalty. Each of 500 iterations draws one reference per sentence (Python's `random`, seed "
        "iteration × 101); the score is the mean corpus GLEU, with the spread of the iterations. A single sentence "
        "scores SentGLEU: the mean over its references. Inputs are whitespace-tokenised words; with Language zh, "
        "raw Chinese, every character a token. See the metric card "
        "([Napoles et al., ACL 2015](https://aclanthology.org/P15-2097/))."
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
    """Variant, iterations, seed step and n-gram order."""
    with gr.Row():
        variant = option_control(NAME, "variant", "Variant", info="the official script, or gec-metrics' `gleu`")
        iterations = option_control(NAME, "iterations", "Iterations", info="reference draws averaged")
        seed_step = option_control(NAME, "seed_step", "Seed step", info="iteration j seeds j × step")
        order = option_control(NAME, "n", "n-gram order", info="")
        language = option_control(NAME, "language", "Language", info="zh: every character a token")
    return [variant, iterations, seed_step, order, language]


def options(variant, iterations, seed_step, order, language) -> dict:
    """The metric's compute options from the settings."""
    return {"variant": variant, "iterations": int(iterations), "seed_step": int(seed_step), "n": int(order),
            "language": language}


def sentence_outputs() -> list[gr.Component]:
    """The scores and the raw result."""
    return [gr.Markdown(), gr.JSON(label="Result")]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The GLEU Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypothesis, references, variant, iterations, seed_step, order, language):
        out = metric.compute(sources=[required_text("Source", source)],
                             predictions=[required_text("Hypothesis", hypothesis)],
                             references=[text_lines("References", references)], sentences=True,
                             **options(variant, iterations, seed_step, order, language))
        sentence = out["sentences"][0]
        values = {"SentGLEU": sentence["score"], "corpus GLEU (mean of draws)": out["gleu"], "std": out["std"]}
        return ok_box(f"Scored against {len(sentence['per_reference'])} reference(s).", out), \
            scores_markdown(values, list(values)), out

    @guarded
    def score_corpus(source_file, hypothesis_file, reference_files, variant, iterations, seed_step, order,
                     language):
        opts = options(variant, iterations, seed_step, order, language)
        corpus = read_corpus(source_file, hypothesis_file, reference_files)
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, references=corpus.references,
                             sentences=True, **opts)
        rows = [{"sentgleu": s["score"], "std": s["std"]} for s in out["sentences"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentences",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo)
