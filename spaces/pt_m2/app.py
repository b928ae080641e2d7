"""PT-M2 Space: score a correction and see every system and gold edit with its BERTScore weight."""

from __future__ import annotations

import gradio as gr

from gecscore.spaces.edit_weights_view import (FOUND, MATCHED, MISSED, UNMATCHED, edit_table, gold_view,
                                               system_view)
from gecscore.spaces.inputs import read_corpus, required_text, text_lines
from gecscore.common.examples import CHINESE, FRENCH
from gecscore.common.options import SettingsExample
from gecscore.spaces.layout import BERTSCORE_LAYERS as LAYERS
from gecscore.spaces.layout import LANGUAGE_INFO, Page, metric_page, model_picker, option_control, serve
from gecscore.spaces.loading import MetricHandle
from gecscore.spaces.messages import guarded, ok_box
from gecscore.spaces.results import corpus_outputs, scores_markdown
from gecscore.spaces.types_view import TYPES_KEY, RunCache, run_key, types_corpus_panel, types_option, types_panel

NAME = "pt_m2"
PAGE = Page(
    title="PT-M2",
    intro=(
        "# PT-M2 / PT-ERRANT\nSystem edits are found with the MaxMatch (M2) lattice (or ERRANT), and every system "
        "and gold edit is weighted by |BERTScore(source + that edit, reference) − BERTScore(source, reference)|: "
        "edits that move the sentence towards the reference count more. Precision, recall and F0.5 are ratios of "
        "summed weights; `sentm2` (the paper's PT-M2) averages sentence F0.5. `scorer = self` gives plain M2 / "
        "ERRANT. Inputs are whitespace-tokenised; references are corrected sentences (gold edits by ERRANT), or an "
        "M2 file in the Corpus tab. The paper's model is `bert-base-uncased` (layer 9); `minilm` runs offline. "
        "See the metric card ([Gong et al., EMNLP 2022](https://aclanthology.org/2022.emnlp-main.463))."
    ),
    reference_note="plain text, one sentence per line, one file per reference set; or one M2 file",
    corpus_example_m2=True,
    sentence_examples=[
        ["Do one who suffered from this disease keep it a secret of infrom their relatives ?",
         "Does someone who suffers from this disease keep it a secret from their relatives ?",
         "Does one who suffers from this disease keep it a secret or inform their relatives ?\n"
         "Does someone who suffers from this disease keep it a secret or inform their relatives ?"],
        ["By doing so , one will feel less stressful in facing such disorder risk .",
         "By doing so , one will feel less stressed in facing such risk of disorder .",
         "By doing so , one will feel less stressed in facing such risk of disorder .\n"
         "By doing so , one will feel less stressed in facing such a health risk ."],
        ["It is becoming even more convinient than talking throught the phone since it is free .",
         "It is becoming even more convenient than talking over the phone since it is free .",
         "It is becoming even more convenient than talking via the phone since it is free .\n"
         "It is becoming even more convenient than talking on the phone , since it is free ."],
    ],
    setting_examples=[
        SettingsExample(CHINESE, (("language", "zh"), ("model", "bert-base-chinese"),
                                  ("layer", LAYERS["bert-base-chinese"]))),
        SettingsExample(FRENCH, (("language", "fr"),)),
    ],
)
#: The variants whose edits are typed (PT-ERRANT): the per-type breakdown is shown for these only.
TYPED_VARIANTS = ("errant", "senterrant")
UNTYPED_NOTE = ("Per-type breakdown needs an ERRANT variant (`errant` or `senterrant`, i.e. PT-ERRANT): pick one "
                "under *Variant* and score again.")
SOFT_TYPES = "TP, FP and FN are summed BERTScore edit weights, so they need not be whole numbers."
LEVEL_INFO = "TP/FP/FN and P/R/F per error type of the corpus run (ERRANT variants)"
COLOURS = {MATCHED: "#8fd18f", UNMATCHED: "#e06666", FOUND: "#8fd18f", MISSED: "#6fa8dc"}


def settings() -> list[gr.Component]:
    """Variant, edit weights (BERTScore model and layer, or unit weights), beta, tokenisation, language."""
    with gr.Row():
        variant = option_control(NAME, "variant", "Variant",
                                 info="sentm2 = PT-M2 (mean sentence F); m2 = corpus F; *errant = PT-ERRANT")
        scorer = option_control(NAME, "scorer", "Edit weights", info="self = every edit weighs 1")
        model, layer = model_picker(list(LAYERS), LAYERS, info="BERTScore model: hub id, local path or minilm")
        beta = option_control(NAME, "beta", "β (F-β)", info="")
        tokenize = option_control(NAME, "tokenize", "Tokenise raw text with spaCy", info="")
        language = option_control(NAME, "language", "Language", info=LANGUAGE_INFO)
    return [variant, scorer, model, layer, beta, tokenize, language]


def options(variant, scorer, model, layer, beta, tokenize, language="en") -> dict:
    """The metric's compute options from the settings."""
    opts = {"variant": variant, "scorer": scorer, "beta": beta, "tokenize": tokenize, "language": language}
    if scorer == "bertscore":
        opts.update(model=model, layer=None if layer is None else int(layer))
    return opts


def sentence_outputs() -> list[gr.Component]:
    """P/R/F, the system and gold edits highlighted in the source, the edit table and the raw result."""
    scores = gr.Markdown()
    with gr.Row():
        system = gr.HighlightedText(label="System edits (weight) against the chosen gold", color_map=COLOURS,
                                    combine_adjacent=False)
        gold = gr.HighlightedText(label="Gold edits (weight) of the chosen annotator/reference", color_map=COLOURS,
                                  combine_adjacent=False)
    edits = gr.Dataframe(label="All edits and weights", interactive=False, wrap=True)
    raw = gr.JSON(label="Result")
    return [scores, system, gold, edits, raw]


def build_demo(metric: MetricHandle | None = None) -> gr.Blocks:
    """The PT-M2 Space."""
    metric = metric or MetricHandle(NAME, __file__)

    runs = RunCache()

    def corpus_run(source_file, hypothesis_file, reference_files, variant, scorer, model, layer, beta, tokenize,
                   language, level):
        """The settings, the corpus and the result of a corpus run (computed once for both corpus endpoints)."""
        opts = options(variant, scorer, model, layer, beta, tokenize, language)
        typed = types_option(level) if variant in TYPED_VARIANTS else {}

        def compute():
            corpus = read_corpus(source_file, hypothesis_file, reference_files, m2_references=True)
            gold = {} if corpus.reference_m2 is None else {"gold_m2": corpus.reference_m2}
            out = metric.compute(sources=corpus.sources, predictions=corpus.predictions,
                                 references=corpus.references, return_edits=True, **gold, **opts, **typed)
            return corpus, out

        key = run_key([source_file, hypothesis_file, reference_files, opts, typed])
        return (opts, *runs.get(key, compute))

    @guarded
    def score_sentence(source, hypothesis, references, variant, scorer, model, layer, beta, tokenize, language="en"):
        opts = options(variant, scorer, model, layer, beta, tokenize, language)
        source = required_text("Source", source)
        out = metric.compute(sources=[source], predictions=[required_text("Hypothesis", hypothesis)],
                             references=[text_lines("References", references)], return_edits=True, **opts)
        record = out["edits"][0]
        fk = next(k for k in out if k.startswith("f"))
        who = "annotator" if "annotator" in record else "reference"
        return (ok_box(f"Scored against {len(record['candidates'])} reference(s); {who} {record[who]} is chosen.", out),
                scores_markdown(out, ["precision", "recall", fk]), system_view(source, record),
                gold_view(source, record), edit_table(record), out)

    @guarded
    def score_corpus(source_file, hypothesis_file, reference_files, variant, scorer, model, layer, beta, tokenize,
                     language="en", level=None):
        opts, corpus, out = corpus_run(source_file, hypothesis_file, reference_files, variant, scorer, model, layer,
                                       beta, tokenize, language, level)
        fk = next(k for k in out if k.startswith("f"))
        rows = [{"precision": r["precision"], "recall": r["recall"], fk: r["f"],
                 "chosen": r.get("annotator", r.get("reference")), "correct": r["correct"],
                 "proposed": r["proposed"], "gold": r["gold"]} for r in out["edits"]]
        return corpus_outputs(NAME, corpus.sources, corpus.predictions, out, rows, opts, ("edits", TYPES_KEY))

    def score_types(source_file, hypothesis_file, reference_files, variant, scorer, model, layer, beta, tokenize,
                    language="en", level=None):
        """The per-type panel of the corpus run (its errors are shown by score_corpus, on the same click)."""
        try:
            opts, _, out = corpus_run(source_file, hypothesis_file, reference_files, variant, scorer, model, layer,
                                      beta, tokenize, language, level)
        except Exception:  # noqa: BLE001 - the corpus run's error already says what went wrong
            return types_panel(None, off="")
        if level and variant not in TYPED_VARIANTS:
            return types_panel(None, off=UNTYPED_NOTE)
        weighted = opts["scorer"] == "bertscore"
        return types_panel(out.get(TYPES_KEY), tp_label="TP (weight)" if weighted else "TP",
                           soft=SOFT_TYPES if weighted else None)

    return metric_page(PAGE, __file__, settings=settings, sentence_outputs=sentence_outputs,
                       score_sentence=score_sentence, score_corpus=score_corpus,
                       corpus_panel=types_corpus_panel(NAME, score_types, info=LEVEL_INFO))


if __name__ == "__main__":
    serve(PAGE, NAME, __file__, build_demo, model="minilm", layer=LAYERS["minilm"])
