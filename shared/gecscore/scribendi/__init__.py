"""Scribendi score: reference-free −1/0/1 per sentence from a language model's perplexity and two string ratios.

Islam & Magnani (EMNLP 2021): an unchanged sentence scores 0; a changed one scores 1 when the language model finds
the prediction less perplexing than the source and the prediction stays close to the source (token sort ratio or
Levenshtein distance ratio at least `threshold`), else −1; the corpus score is the sum. `metric.py` computes it as
gec-metrics 0.1.1 does; `SPEC` declares the options once.
"""

from gecscore.common.examples import DISEASE
from gecscore.common.options import Control, MetricSpec, Option, ScriptText, SpaceText, input_options

SPEC = MetricSpec(
    name="scribendi",
    title="Scribendi",
    summary="reference-free: +1/0/−1 per sentence from a GPT-2 perplexity drop and source similarity (Islam & "
            "Magnani 2021), summed over the corpus, as gec-metrics computes it",
    variants=(),
    runner="gecscore.scribendi.metric",
    text_form="raw",
    reference_free=True,
    score_range=(-1.0, 1.0),
    sentence_option="sentence_scores",
    sentence_fields=(
        ("scribendi", "the sentence's score: 0 unchanged, 1 accepted, −1 rejected; equal to `score`"),
        ("source_perplexity", "the language model's perplexity of the source (None when the prediction is "
                              "unchanged, so not computed; None also for an empty text, whose perplexity is "
                              "undefined)"),
        ("prediction_perplexity", "the language model's perplexity of the prediction (None as above)"),
        ("token_sort_ratio", "fuzzywuzzy's token sort ratio of source and prediction, over 100 (None when "
                             "unchanged)"),
        ("levenshtein_ratio", "1 − the character insert/delete distance over the two lengths (None when "
                              "unchanged)"),
    ),
    options=(
        Option("model", "str", "gpt2", "causal language model: hub id or local directory (gec-metrics' default)"),
        Option("threshold", "float", 0.8, "a changed sentence whose perplexity dropped is accepted when the larger "
               "of its token sort ratio and Levenshtein ratio is at least this", minimum=0.0, maximum=1.0),
        Option("batch_size", "int", 32, "texts per forward pass, in corpus order as gec-metrics batches them "
               "(other sizes move perplexities by float rounding only)", minimum=1),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True),
        Option("no_cuda", "bool", False, "run on the CPU (gec-metrics' switch; the same as device='cpu')"),
        *input_options(errant=False, robust="except Scribendi's scale, which is −1/0/1 by definition (an empty "
                                            "prediction scores 0, as unchanged)",
                       tokenize="spaCy-tokenise sources and predictions first (False: scored as given, as "
                                "gec-metrics does)"),
        Option("sentence_scores", "bool", False, "also return the per-sentence scores (aliases "
               "`return_sentence_scores`, `sentences`)", kind="output"),
        Option("progress", "bool", False, "show a progress bar", kind="output"),
    ),
    script=ScriptText(
        headline=("Scribendi score: reference-free GEC metric, -1/0/1 per sentence from GPT-2 perplexity and similarity "
                  "(gecscore)."),
        citation="""\
@inproceedings{islam-magnani-2021-end,
    title = "Is this the end of the gold standard? A straightforward reference-less grammatical error correction metric",
    author = "Islam, Md Asadul and Magnani, Enrico",
    booktitle = "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
    year = "2021",
    pages = "3009--3015",
}
""",
        description="""\
The Scribendi score (Islam & Magnani, EMNLP 2021) needs no references: an unchanged sentence scores 0; a changed one
scores 1 when a language model (GPT-2) finds the prediction less perplexing than the source and the prediction stays
close to the source (token sort ratio or Levenshtein distance ratio at least `threshold`, 0.8), else -1. The corpus
score is the sum of the sentence scores; higher is better. Computed as gec-metrics 0.1.1 computes it.
""",
        inputs="""\
    sources (list of str): the input sentences.
    predictions (list of str): the corrected sentences to score.
""",
        returns="""\
    scribendi (float): the sum of the sentence scores.
    sentence_scores (list of int): per sentence, -1, 0 or 1, when requested.
    degenerate_sentences (list of dict): the flagged sentences (truncated texts, empty predictions).
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> scribendi = evaluate.load("metrics/scribendi")
    >>> scribendi.compute(sources=["He go to school ."], predictions=["He goes to school ."])
    Traceback (most recent call last):
    ...
    OSError: cannot load the language model 'gpt2'...
""",
        codebase_urls=("https://github.com/gotutiyan/gec-metrics",),
        reference_urls=("https://aclanthology.org/2021.emnlp-main.239/",),
    ),
    space=SpaceText(
        intro=(
            "# Scribendi\nA reference-free metric: an unchanged sentence scores 0; a changed one scores 1 when GPT-2 "
            "finds the correction less perplexing than the source and the correction stays close to it (token sort "
            "ratio or Levenshtein distance ratio at least the threshold), else −1. The corpus score is the sum. "
            "Computed as gec-metrics computes it; the language model is loaded from the Hugging Face Hub, or give a "
            "local directory. See the metric card ([Islam & Magnani, EMNLP "
            "2021](https://aclanthology.org/2021.emnlp-main.239/))."
        ),
        sentence_examples=(
            (
                DISEASE,
                "Does someone who suffers from this disease keep it a secret from their relatives ?\n"
                "Should people with this illness tell nobody in their family about it ?\n"
                + DISEASE,
            ),
        ),
        # GPT-2 comes from the Hugging Face Hub; without it the page says it could not be loaded.
        settings=(
            Control("model", "Language model", "hub id or local directory"),
            Control("threshold", "Threshold", "token sort or Levenshtein ratio needed"),
        ),
        score_key="scribendi",
    ),
)
