"""CLEME2.0 Space: score a correction and see its chunks labelled TP / FP-necessary / FP-unnecessary / FN."""

from __future__ import annotations

import gradio as gr

from gecscore.cleme2 import SPEC

from gecscore.spaces.chunk_view import chunk_html
from gecscore.spaces.inputs import InputError, read_corpus, required_text, text_lines
from gecscore.common.examples import CHINESE, FRENCH
from gecscore.common.options import SettingsExample
from gecscore.spaces.layout import BERTSCORE_LAYERS as LAYERS
from gecscore.spaces.layout import LANGUAGE_INFO, OPTION_ID, Page, metric_page, model_picker, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown

NAME = "cleme2"
# LLM weights need a causal LM the Space does not load; "default" stands for the variant's own weighting.
WEIGHTINGS = ["default", *(w for w in SPEC.option("weighting").choices if w != "llm")]
SCORES = {"cleme2": ["score", "hit", "err", "und", "ove"], "cleme": ["score", "precision", "recall", "accuracy"]}
LABELS = {"score": "score (com)", "hit": "hit", "err": "err (wrong)", "und": "und (under)", "ove": "ove (over)"}
PAGE = Page(
    title="CLEME2.0",
    intro=(
        "# CLEME2.0\nThe edits of the hypothesis and of every reference cut the source into the same *chunks*. Each "
        "hypothesis chunk is a TP (corrected like the reference), FP-necessary (corrected wrongly where a correction "
        "was needed), FP-unnecessary (corrected where none was needed) or FN (a needed correction missed), weighted "
        "by how much it changes the sentence (BERTScore similarity). CLEME2.0 reports the four disentangled scores "
        "hit, err (wrong), und (under-) and ove (over-correction) and their weighted combination. Inputs are "
        "whitespace-tokenised. The paper's similarity model is `bert-base-uncased`; `minilm` runs offline. See the "
        "metric card ([Ye et al., ACL 2025](https://arxiv.org/abs/2407.00934))."
    ),
    reference_note="plain text, one sentence per line, one file per reference set; or one M2 file with a M2 hypothesis",
    sentence_examples=[
        ["Do one who suffered from this disease keep it a secret of infrom their relatives ?",
         "Does someone who suffers from this disease keep it a secret from their relatives ?",
         "Does one who suffers from this disease keep it a secret or inform their relatives ?\n"
         "Does someone who suffers from this disease keep it a secret or inform their relatives ?"],
        ["Therefore I believe the parents have their right to know the healthiness of their child .",
         "Therefore , I believe the parents have the right to know the health of their child .",
         "Therefore I believe the parents have the right to know the health of their child .\n"
         "Therefore , I believe the parents have the right to know about the healthiness of their child ."],
        ["He or she might even be adviced not to get married or have children .",
         "They might even be advised not to get married or have children .",
         "He or she might even be advised not to get married or have children ."],
    ],
    setting_examples=[
        SettingsExample(CHINESE, (("language", "zh"), ("model", "bert-base-chinese"),
                                  ("layer", LAYERS["bert-base-chinese"]))),
        SettingsExample(FRENCH, (("language", "fr"),)),
    ],
)


def settings() -> list[gr.Component]:
    """Variant, level, assumption, chunk weighting (similarity model and layer), beta of CLEME v1, language."""
    with gr.Row():
        variant = option_control(NAME, "variant", "Variant", info="cleme = CLEME v1 (P/R/F)")
        level = option_control(NAME, "level", "Level", info="")
        assumption = option_control(NAME, "assumption", "Reference assumption", info="")
        weighting = gr.Dropdown(WEIGHTINGS, value="default", label="Chunk weights",
                                info="default: similarity (cleme2), length (cleme)", elem_id=OPTION_ID + "weighting")
        model, layer = model_picker(list(LAYERS), LAYERS, info="similarity model: hub id, local path or minilm")
        beta = option_control(NAME, "beta", "β (CLEME v1 F-β)", info="")
        language = option_control(NAME, "language", "Language", info=LANGUAGE_INFO)
    return [variant, level, assumption, weighting, model, layer, beta, language]


def options(variant, level, assumption, weighting, model, layer, beta, language="en") -> dict:
    """The metric's compute options from the settings (β only for CLEME v1, model and layer only for similarity
    weights: an option that does not apply to the variant is an error)."""
    opts = {"variant": variant, "level": level, "assumption": assumption,
            "weighting": None if weighting == "default" else weighting, "language": language}
    if variant == "cleme":
        opts["beta"] = beta
    if (opts["weighting"] or ("similarity" if variant == "cleme2" else "length")) == "similarity":
        opts.update(model=model, layer=None if layer is None else int(layer))
    return opts


def sentence_outputs() -> list[gr.Component]:
    """The scores, the coloured chunk table and the raw result."""
    scores = gr.Markdown()
    chunks = gr.HTML(label="Chunks")
    raw = gr.JSON(label="Result")
    return [scores, chunks, raw]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The CLEME2.0 Space."""
    metric = metric or MetricHandle(NAME, __file__)

    @guarded
    def score_sentence(source, hypothesis, references, variant, level, assumption, weighting, model, layer, beta,
                       language="en"):
        opts = options(variant, level, assumption, weighting, model, layer, beta, language)
        out = metric.compute(sources=[required_text("Source", source)],
                             predictions=[required_text("Hypothesis", hypothesis)],
                             references=[text_lines("References", references)], sentences=True, return_chunks=True,
                             **opts)
        table, sentence = out["chunks"][0], out["sentences"][0]
        position = table["reference_ids"].index(sentence["ref"])
        return (ok_box(f"{len(table['chunks'])} chunks; reference {sentence['ref']} is chosen.", out),
                scores_markdown(out, SCORES[variant], LABELS), chunk_html(table, position), out)

    @guarded
    def score_corpus(source_file, hypothesis_file, reference_files, variant, level, assumption, weighting, model,
                     layer, beta, language="en"):
        opts = options(variant, level, assumption, weighting, model, layer, beta, language)
        corpus = read_corpus(source_file, hypothesis_file, reference_files, m2_references=True, m2_hypothesis=True)
        if corpus.reference_m2 is not None and corpus.hypothesis_m2 is None:
            raise InputError("an M2 reference file needs the hypothesis as M2 too (CLEME takes the edits of both from "
                             "M2); or give the references as plain text")
        if corpus.hypothesis_m2 is not None:
            out = metric.compute(hyp_m2=corpus.hypothesis_m2, ref_m2=corpus.reference_m2, sentences=True, **opts)
        else:
            out = metric.compute(sources=corpus.sources, predictions=corpus.predictions,
                                 references=corpus.references, sentences=True, **opts)
        rows = [{**{k: s[k] for k in SCORES[variant]}, "ref": s["ref"],
                 **{k: s["counts"][k] for k in ("TP", "FP_ne", "FP_un", "FN")}} for s in out["sentences"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("sentences",))

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus)


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo, model="minilm", layer=LAYERS["minilm"])
