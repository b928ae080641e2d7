"""LLM-S / LLM-E Space: an LLM judge scores several corrections of one source from 1 to 5, or a corpus."""

from __future__ import annotations

import math

import gradio as gr

from gecscore import registry
from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.spaces.layout import Page, metric_page, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.ranking_view import ranking
from gecscore.spaces.results import corpus_outputs

NAME = "llm_kobayashi24"
SOURCE = "Do one who suffered from this disease keep it a secret of infrom their relatives ?"
PAGE = Page(
    title="LLM-S / LLM-E",
    intro=(
        "# LLM-S / LLM-E\nA large language model scores, from 1 to 5, several corrections of one source with the "
        "published prompts of Kobayashi et al. (2024): LLM-S shows the corrected sentences, LLM-E their edits. Give "
        "an OpenAI-compatible chat-completions endpoint (base URL, model, key; the key is sent to that endpoint "
        "only and never recorded). Answers that cannot be read are flagged, never scored. See the metric card "
        "([Kobayashi et al., BEA 2024](https://aclanthology.org/2024.bea-1.6/))."
    ),
    reference_based=False,
    source_label="Source",
    hypothesis_label="Corrections (one per line, judged together)",
    sentence_examples=[
        [SOURCE, "\n".join([
            "Do people who suffer from this disease keep it a secret from their relatives ?",
            "Does one who suffered from this disease keep it a secret to infrom their relatives ?",
            "Does someone who suffers from this disease keep it a secret from their relatives ?",
        ])],
    ],
)


def settings() -> list[gr.Component]:
    """Variant and the judge."""
    with gr.Row():
        variant = option_control(NAME, "variant", "Variant", info="sent: LLM-S (sentences); edit: LLM-E (edits)")
        model = gr.Textbox(value="gpt-4o-mini-2024-07-18", label="Model")
        base_url = gr.Textbox(value="https://api.openai.com/v1", label="Base URL")
        api_key = gr.Textbox(value="", label="API key", type="password")
        timeout = option_control(NAME, "timeout", "Timeout (s)", info="how long to wait for each request")
    return [variant, model, base_url, api_key, timeout]


def judge(variant, model, base_url, api_key, timeout) -> dict:
    """The metric's options from the settings."""
    return {"variant": variant, "model": model or None, "base_url": base_url or None, "api_key": api_key or None,
            "timeout": timeout}


def sentence_outputs() -> list[gr.Component]:
    """The scores as a ranking, and the raw results."""
    return [gr.Markdown(), gr.Dataframe(label="Ranking (best first)", interactive=False, wrap=True),
            gr.JSON(label="Result")]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The LLM-S / LLM-E Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypotheses, variant, model, base_url, api_key, timeout):
        source = required_text("Source", source)
        hyps = text_lines("Corrections", hypotheses)
        systems = {str(k + 1): [h] for k, h in enumerate(hyps)}  # one prompt judges them together
        results = registry.run_systems(NAME, [source], systems, **judge(variant, model, base_url, api_key, timeout))
        scores = [results[str(k + 1)].sentences[0]["score"] for k in range(len(hyps))]
        raw = {k: {"score": r.score, "degenerate_sentences": r.details["degenerate_sentences"],
                   "signature": r.signature} for k, r in results.items()}
        shown = [-math.inf if math.isnan(s) else s for s in scores]
        return (ok_box(f"Judged {len(hyps)} correction(s) together.", raw["1"]),
                " · ".join(f"**{k + 1}:** {s:g}" for k, s in enumerate(scores)), ranking(hyps, shown), raw)

    @guarded
    def score_corpus(source_file, hypothesis_file, variant, model, base_url, api_key, timeout):
        corpus = read_corpus(source_file, hypothesis_file, None, with_references=False)
        opts = judge(variant, model, base_url, api_key, timeout)
        out = metric.compute(sources=corpus.sources, predictions=corpus.predictions, sentence_scores=True, **opts)
        rows = [{"score": s} for s in out["sentence_scores"]]
        shown = {k: v for k, v in opts.items() if k != "api_key"}
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, shown, ("sentence_scores",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo)
