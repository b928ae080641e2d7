"""GREEN: n-gram F-beta over source, hypothesis and reference, as gec-metrics computes it (gecscore).

Generated from `gecscore.green.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
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
"""

_DESCRIPTION = """\
GREEN (Koyama et al., INLG 2024) counts every n-gram (n = 1..4) of the source, the hypothesis and a reference as a
true, false or missed deletion, insertion or keep; per order, precision is true / (true + false) and recall true /
(true + missed), and their geometric means over the orders give F-beta (β = 2: recall first). Each sentence is
scored against the reference that gives it the highest F; the corpus score sums the counts of those references.
This is gec-metrics 0.1.1's `green`, float for float. Inputs are whitespace-tokenised sentences. Higher is better.
"""

_KWARGS_DESCRIPTION = kwargs_description("green", inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more whitespace-tokenised references per source.
""", returns="""\
    green (float): the corpus GREEN, F-beta of the summed counts of every sentence's best reference.
    precision (float), recall (float): the corpus geometric-mean precision and recall over the n-gram orders.
    per_order (list of dict): per order, the summed true, false and missed n-grams, precision and recall.
    sentences (list of dict): per sentence, when requested (GREEN, chosen reference, per-order P/R, counts).
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> green = evaluate.load("metrics/green")
    >>> out = green.compute(sources=["He go to school yesterday ."],
    ...                     predictions=["He went to school yesterday ."],
    ...                     references=[["He went to school yesterday .", "He goes to school ."]])
    >>> out["green"]
    1.0
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Green(GECMetric):
    """GREEN as an evaluate metric."""

    NAME = "green"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/gotutiyan/gec-metrics"],
            reference_urls=["https://aclanthology.org/2024.inlg-main.25/"],
        )

    def _compute(self, sources, predictions, references=None, *, n=4, beta=2.0, unit="word", language="en",
                 robust=False, tokenize=False, normalize=False, max_tokens=700, sentences=False, progress=False):
        return self.score(sources, predictions, references, locals())
