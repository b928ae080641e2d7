"""SOME: reference-free scoring of a correction by three BERT regressors (grammaticality, fluency, meaning).

Yoshimura et al. (COLING 2020) fine-tune one regressor per aspect on human ratings; a sentence's score is the
weighted sum of the three min-max normalised ratings, and the corpus score their mean, as gec-metrics computes it.
`metric.py` loads the regressors, runs them and scores; `SPEC` declares the options once.
"""

from gecscore.common.examples import DISEASE
from gecscore.common.options import Control, MetricSpec, Option, ScriptText, SpaceText, input_options

SPEC = MetricSpec(
    name="some",
    title="SOME",
    summary="reference-free: weighted sum of three BERT regressors' grammaticality, fluency and meaning-preservation "
            "ratings (Yoshimura et al. 2020), as gec-metrics computes it",
    variants=(),
    runner="gecscore.some.metric",
    text_form="raw",
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
    script=ScriptText(
        headline=("SOME: reference-free GEC metric, three BERT regressors' grammaticality, fluency and meaning ratings "
                  "(gecscore)."),
        citation="""\
@inproceedings{yoshimura-etal-2020-reference,
    title = "{SOME}: Reference-less Sub-Metrics Optimized for Manual Evaluations of Grammatical Error Correction",
    author = "Yoshimura, Ryoma and Kaneko, Masahiro and Kajiwara, Tomoyuki and Komachi, Mamoru",
    booktitle = "Proceedings of the 28th International Conference on Computational Linguistics",
    year = "2020",
    pages = "6516--6522",
}
""",
        description="""\
SOME (Yoshimura et al., COLING 2020) scores each corrected sentence without references: three BERT regressors,
trained on human ratings, rate the prediction's grammaticality and fluency and the (source, prediction) pair's
meaning preservation on a 1-4 scale; each rating is normalised to (r - 1) / 3 and the sentence score is
0.55 grammaticality + 0.43 fluency + 0.02 meaning. The corpus score is the mean; higher is better. Computed as
gec-metrics 0.1.1 computes it (its default checkpoints `gfm-models/grammer`, `gfm-models/fluency`,
`gfm-models/meaning`, from the Hugging Face Hub, or local directories).
""",
        inputs="""\
    sources (list of str): the input sentences (read by the meaning-preservation regressor).
    predictions (list of str): the corrected sentences to score.
""",
        returns="""\
    some (float): the mean sentence score.
    sentence_scores (list of float): per sentence, when requested.
    degenerate_sentences (list of dict): the flagged sentences (truncated inputs, empty predictions).
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> some = evaluate.load("metrics/some")
    >>> some.compute(sources=["He go to school ."], predictions=["He goes to school ."])
    Traceback (most recent call last):
    ...
    OSError: cannot load the SOME regressor 'gfm-models/grammer'...
""",
        codebase_urls=("https://github.com/kokeman/SOME", "https://github.com/gotutiyan/gec-metrics"),
        reference_urls=("https://aclanthology.org/2020.coling-main.573/",),
    ),
    space=SpaceText(
        intro=(
            "# SOME\nA reference-free metric: three BERT regressors trained on human ratings rate each corrected "
            "sentence's grammaticality, fluency and (with its source) meaning preservation; the score is 0.55 G + "
            "0.43 F + 0.02 M of the ratings normalised to [0, 1], and the corpus score is the mean. Computed as "
            "gec-metrics computes it. The regressors (`gfm-models/grammer`, `/fluency`, `/meaning`) are loaded from "
            "the Hugging Face Hub, or give local directories. Give several hypotheses of one source (one per line) "
            "to rank them. See the metric card ([Yoshimura et al., COLING "
            "2020](https://aclanthology.org/2020.coling-main.573/))."
        ),
        sentence_examples=(
            (
                DISEASE,
                "Do people who suffer from this disease keep it a secret from their relatives ?\n"
                "Does someone who suffers from this disease keep it a secret from their relatives ?\n"
                + DISEASE,
            ),
        ),
        # The regressors come from the Hugging Face Hub; without it the page says which one could not be loaded.
        settings=(
            Control("model_g", "Grammaticality model", "hub id or local directory"),
            Control("model_f", "Fluency model", "hub id or local directory"),
            Control("model_m", "Meaning model", "hub id or local directory"),
            Control("weight_g", "Weight G", ""),
            Control("weight_f", "Weight F", ""),
            Control("weight_m", "Weight M", ""),
        ),
        score_key="some",
    ),
)
