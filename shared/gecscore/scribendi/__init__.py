"""Scribendi score: reference-free −1/0/1 per sentence from a language model's perplexity and two string ratios.

Islam & Magnani (EMNLP 2021): an unchanged sentence scores 0; a changed one scores 1 when the language model finds
the prediction less perplexing than the source and the prediction stays close to the source (token sort ratio or
Levenshtein distance ratio at least `threshold`), else −1; the corpus score is the sum. `metric.py` computes it as
gec-metrics 0.1.1 does; `SPEC` declares the options once.
"""

from gecscore.common.options import MetricSpec, Option, input_options

SPEC = MetricSpec(
    name="scribendi",
    title="Scribendi",
    summary="reference-free: +1/0/−1 per sentence from a GPT-2 perplexity drop and source similarity (Islam & "
            "Magnani 2021), summed over the corpus, as gec-metrics computes it",
    variants=(),
    runner="gecscore.scribendi.metric",
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
)
