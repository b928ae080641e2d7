"""SOME: reference-free scoring of a correction by three BERT regressors (grammaticality, fluency, meaning).

Yoshimura et al. (COLING 2020) fine-tune one regressor per aspect on human ratings; a sentence's score is the
weighted sum of the three min-max normalised ratings, and the corpus score their mean, as gec-metrics computes it.
`metric.py` loads the regressors, runs them and scores; `SPEC` declares the options once.
"""

from gecscore.common.options import MetricSpec, Option, input_options

SPEC = MetricSpec(
    name="some",
    title="SOME",
    summary="reference-free: weighted sum of three BERT regressors' grammaticality, fluency and meaning-preservation "
            "ratings (Yoshimura et al. 2020), as gec-metrics computes it",
    variants=(),
    runner="gecscore.some.metric",
    reference_free=True,
    sentence_option="sentence_scores",
    sentence_fields=(
        ("some", "the sentence's SOME score: weight_f·fluency + weight_g·grammaticality + weight_m·meaning; equal to "
                 "`score`"),
        ("grammaticality", "the grammaticality regressor's rating of the prediction, min-max normalised "
                           "((r − 1) / 3; clipped to [0, 1] with robust=True)"),
        ("fluency", "the fluency regressor's normalised rating of the prediction"),
        ("meaning", "the meaning-preservation regressor's normalised rating of the (source, prediction) pair"),
    ),
    options=(
        Option("model_g", "str", "gfm-models/grammer", "grammaticality regressor: hub id or local directory "
               "(gec-metrics' default; the name is spelled so on the Hub)"),
        Option("model_f", "str", "gfm-models/fluency", "fluency regressor: hub id or local directory; its "
               "tokenizer is used for all three, as in gec-metrics"),
        Option("model_m", "str", "gfm-models/meaning", "meaning-preservation regressor: hub id or local directory"),
        Option("weight_g", "float", 0.55, "weight of the grammaticality rating (the paper's 0.55)"),
        Option("weight_f", "float", 0.43, "weight of the fluency rating (the paper's 0.43)"),
        Option("weight_m", "float", 0.02, "weight of the meaning-preservation rating (the paper's 0.02)"),
        Option("max_length", "int", 128, "tokens per input read by the regressors (special tokens included; the "
               "meaning regressor reads source and prediction together); longer inputs are truncated, as in "
               "gec-metrics, and flagged", minimum=2),
        Option("batch_size", "int", 32, "sentences per forward pass, in corpus order and padded to `max_length` as "
               "gec-metrics does (other sizes move scores by float rounding only)", minimum=1),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True),
        Option("no_cuda", "bool", False, "run on the CPU (gec-metrics' switch; the same as device='cpu')"),
        *input_options(errant=False, robust="each normalised rating and the score are clipped to [0, 1]",
                       tokenize="spaCy-tokenise sources and predictions first (False: scored as given, as "
                                "gec-metrics does)"),
        Option("sentence_scores", "bool", False, "also return the per-sentence scores (aliases "
               "`return_sentence_scores`, `sentences`)", kind="output"),
        Option("progress", "bool", False, "show a progress bar", kind="output"),
    ),
)
