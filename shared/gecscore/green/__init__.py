"""GREEN: n-gram F-beta of a correction over its source, its hypothesis and a reference (Koyama et al., INLG 2024).

Every n-gram (n = 1..4) of the three texts is counted as a true, false or missed change or keep; precision and
recall per order are combined by geometric mean into F-beta (β = 2). Each sentence is scored against the reference
that gives it the highest F, and the corpus score sums the counts of those references. This is gec-metrics 0.1.1's
`green`, exactly. `metric.py` counts and scores; `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.examples import LANGUAGE_EXAMPLES, REFERENCE_EXAMPLES
from gecscore.common.options import Control, MetricSpec, Option, ScriptText, SpaceText, input_options, language_option
from gecscore.green import space as _space

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = dict.fromkeys(("CATEGORIES", "GREENStatistics", "SummedCounts", "green", "sentence_counts",
                          "statistic_names", "text_tokens"), "metric")
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

#: The seven n-gram categories of the paper: true deletion / insertion / keep, over-deletion / insertion,
#: under-deletion / insertion (the first three are true, the next two false, the last two missed).
_CATEGORIES = ("td", "ti", "tk", "od", "oi", "ud", "ui")
#: A record's statistics with the default n = 4 (another `n` lists the orders up to it).
STATISTICS = tuple(f"{category}_{k}" for k in range(1, 5) for category in _CATEGORIES)

SPEC = MetricSpec(
    name="green",
    title="GREEN",
    summary="n-gram F-beta over source, hypothesis and reference (Koyama et al. 2024): true, false and missed "
            "n-gram changes, best reference per sentence, as gec-metrics computes it",
    variants=(),
    runner="gecscore.green.metric",
    text_form="tokens",
    sentence_option="sentences",
    statistics=STATISTICS,
    sentence_fields=(
        ("green", "the sentence's GREEN: its F-beta against the chosen reference; equal to `score`"),
        ("precision", "per n-gram order 1..n, the precision against the chosen reference"),
        ("recall", "per n-gram order 1..n, the recall against the chosen reference"),
        ("per_reference_green", "the sentence's F-beta against every reference, in order (the chosen one is the "
                                "first highest)"),
    ),
    options=(
        Option("n", "int", 4, "highest n-gram order; precision and recall are the geometric means over orders "
               "1..n", minimum=1),
        Option("beta", "float", 2.0, "the β of F-beta (recall weighs β times as much as precision)", minimum=0,
               exclusive_minimum=True),
        Option("unit", "str", "word", "'word': tokens are the pieces of the stripped text split at single spaces; "
               "'char': its characters", choices=("word", "char")),
        language_option(),
        *input_options(errant=False),
        Option("sentences", "bool", False, "also return per-sentence records: GREEN, the chosen reference, the "
               "per-order precision and recall, the n-gram counts (aliases `return_sentence_scores`, "
               "`sentence_scores`)", kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
    script=ScriptText(
        headline="GREEN: n-gram F-beta over source, hypothesis and reference, as gec-metrics computes it (gecscore).",
        citation="""\
@inproceedings{koyama-etal-2024-n,
    title = "n-gram F-score for Evaluating Grammatical Error Correction",
    author = "Koyama, Shota and Nagata, Ryo and Takamura, Hiroya and Okazaki, Naoaki",
    editor = "Mahamood, Saad and Minh, Nguyen Le and Ippolito, Daphne",
    booktitle = "Proceedings of the 17th International Natural Language Generation Conference",
    year = "2024",
    address = "Tokyo, Japan",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2024.inlg-main.25/",
    pages = "303--313",
}
""",
        description="""\
GREEN (Koyama et al., INLG 2024) counts every n-gram (n = 1..4) of the source, the hypothesis and a reference as a
true, false or missed deletion, insertion or keep; per order, precision is true / (true + false) and recall true /
(true + missed), and their geometric means over the orders give F-beta (β = 2: recall first). Each sentence is
scored against the reference that gives it the highest F; the corpus score sums the counts of those references.
This is gec-metrics 0.1.1's `green`, float for float. Inputs are whitespace-tokenised sentences. Higher is better.
""",
        inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more whitespace-tokenised references per source.
""",
        returns="""\
    green (float): the corpus GREEN, F-beta of the summed counts of every sentence's best reference.
    precision (float), recall (float): the corpus geometric-mean precision and recall over the n-gram orders.
    per_order (list of dict): per order, the summed true, false and missed n-grams, precision and recall.
    sentences (list of dict): per sentence, when requested (GREEN, chosen reference, per-order P/R, counts).
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> green = evaluate.load("metrics/green")
    >>> out = green.compute(sources=["He go to school yesterday ."],
    ...                     predictions=["He went to school yesterday ."],
    ...                     references=[["He went to school yesterday .", "He goes to school ."]])
    >>> out["green"]
    1.0
""",
        codebase_urls=("https://github.com/gotutiyan/gec-metrics",),
        reference_urls=("https://aclanthology.org/2024.inlg-main.25/",),
    ),
    space=SpaceText(
        intro=(
            "# GREEN\nGREEN as gec-metrics computes it: every n-gram (n = 1..4) of the source, the hypothesis and a "
            "reference is a true, false or missed deletion, insertion or keep. Per order, precision is true / (true "
            "+ false) and recall true / (true + missed); their geometric means give F-beta (β = 2). Each sentence is "
            "scored against its best reference, and a corpus sums those references' counts. Inputs are "
            "whitespace-tokenised words; with Language zh, raw Chinese, every character a token. See the metric card "
            "([Koyama et al., INLG 2024](https://aclanthology.org/2024.inlg-main.25/))."
        ),
        sentence_examples=REFERENCE_EXAMPLES,
        setting_examples=LANGUAGE_EXAMPLES,
        settings=(
            Control("n", "n-gram order", ""),
            Control("beta", "β", "recall weighs β times as much as precision"),
            Control("unit", "Unit", "word or character n-grams"),
            Control("language", "Language", "zh: every character a token; any other language code may be "
                    "typed in (whitespace-separated words)"),
        ),
        source_label="Source (tokenised)",
        sentence_view=_space.sentence_view,
        corpus_row=_space.corpus_row,
    ),
)
