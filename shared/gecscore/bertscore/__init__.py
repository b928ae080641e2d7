"""BERTScore as a GEC metric: each hypothesis against its references, the mean over sentences (gec-metrics'
`bertscore`).

`metric.py` gathers every sentence's P, R and F against each reference through the shared BERTScore core
(`gecscore.common.bertscore`, equal to the bert_score package) and scores them; `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.options import MetricSpec, Option, Unshardable, input_options

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = dict.fromkeys(("BERTScoreStatistics", "sentence_values"), "metric")
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

SPEC = MetricSpec(
    name="bertscore",
    title="BERTScore",
    summary="BERTScore of each hypothesis against its references (best reference per measure), rescaled with "
            "bert_score's baseline, mean over sentences (gec-metrics' `bertscore`)",
    variants=(),
    runner="gecscore.bertscore.metric",
    sentence_option="sentence_scores",
    unshardable=(Unshardable((("idf", (True,)),), "idf=True weighs tokens by their idf over the whole corpus's "
                                                  "references, which no shard knows"),),
    statistics=("precision", "recall", "f1"),
    sentence_fields=(
        ("bertscore", "the sentence's BERTScore: the maximum over its references of the chosen measure "
                      "(`score_type`); equal to `score`"),
    ),
    options=(
        Option("model", "str", "bert-base-uncased", "encoder: hub id, local directory or 'minilm' "
               "(gec-metrics' default bert-base-uncased)"),
        Option("layer", "int", None, "layer whose token states are matched (None: bert_score's default layer for "
               "the model, 9 for bert-base-uncased)", nullable=True, minimum=0),
        Option("score_type", "str", "f", "the sentence score: 'p' precision, 'r' recall or 'f' F1 (gec-metrics' "
               "`score_type`)", choices=("p", "r", "f")),
        Option("rescale_with_baseline", "bool", True, "rescale with the baseline `(x - b) / (1 - b)` "
               "(gec-metrics' default True)"),
        Option("baseline_path", "str", None, "bert_score baseline tsv (columns LAYER,P,R,F; None: the one bert_score "
               "ships for the model)", nullable=True),
        Option("idf", "bool", False, "weigh tokens by their idf over all the references given, as bert_score's "
               "`idf=True` (False: every token 1, gec-metrics' default); the scores then depend on the whole corpus"),
        Option("batch_size", "int", 64, "sentences per forward pass (the result does not depend on it)", minimum=1),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True),
        *input_options(errant=False, tokenize="spaCy-tokenise predictions and references first (False: scored as "
                       "given, as gec-metrics does; BERTScore's own subword tokenizer splits them)",
                       robust="a prediction equal to one of its references scores exactly 1"),
        Option("sentence_scores", "bool", False, "also return the per-sentence scores (aliases "
               "`return_sentence_scores`, `sentences`)", kind="output"),
        Option("progress", "bool", False, "show a progress bar", kind="output"),
    ),
)
