"""IMPARA-GED and IMPARA: reference-free quality estimation of each corrected sentence.

Read top-down: `metric.py` (inputs → quality estimator → σ(logit) → mean; IMPARA's similarity filter),
`embedded.py` (the small bundled MiniLM quality estimator). `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.options import MetricSpec, Option, input_options

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = {"EMBEDDED": "metric", "embedded_folders": "embedded"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

SPEC = MetricSpec(
    name="impara_ged",
    title="IMPARA-GED",
    summary="reference-free quality estimation with a GED-pretrained encoder",
    variants=("impara_ged", "impara"),
    runner="gecscore.impara_ged.metric",
    reference_free=True,
    # a reward or reranker pays for meaning kept: IMPARA's gate scores 0 what drifts from the source
    training_defaults=(("variant", "impara"),),
    sentence_option="sentence_scores",
    options=(
        Option("variant", "str", "impara_ged", "'impara_ged' or 'impara' (first-token QE with a similarity "
               "filter)", choices=("impara_ged", "impara")),
        Option("model", "str", None, "QE checkpoint: hub id, local directory or 'embedded' (None: "
               "naist-nlp/IMPARA-GED; gotutiyan/IMPARA-QE for variant impara)", nullable=True),
        Option("pooling", "str", "auto", "how the QE pools token states (see the card's *Pooling*)",
               choices=("auto", "native", "mean_wrapper", "cls")),
        Option("max_length", "int", 128, "tokens per sentence read by the estimators (special tokens included); "
               "longer ones are truncated and flagged, more than the model reads is an error", minimum=1),
        Option("batch_size", "int", 32, "sentences per forward pass (length-sorted batches; the result does not "
               "depend on it)", minimum=1),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True),
        Option("fp16", "bool", False, "run the QE in float16 (CUDA only; the CPU always runs float32)"),
        Option("revision", "str", None, "hub revision of the QE", nullable=True),
        Option("se_model", "str", "bert-base-cased", "similarity estimator of the impara variant",
               variants=("impara",)),
        Option("threshold", "float", 0.9, "similarity threshold of the impara variant (kept when strictly above)",
               variants=("impara",)),
        *input_options(errant=False, tokenize="spaCy-tokenise sources and predictions first, as in the GEC corpora the "
                       "estimator was trained on (untokenised text is scored as given, with a warning)"),
        Option("sentence_scores", "bool", False, "also return the per-sentence scores (aliases "
               "`return_sentence_scores`, `sentences`)", kind="output"),
        Option("progress", "bool", False, "show a progress bar", kind="output"),
    ),
)
