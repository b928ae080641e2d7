"""Scribendi score: reference-free GEC metric, -1/0/1 per sentence from GPT-2 perplexity and similarity (gecscore).

Generated from `gecscore.scribendi.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{islam-magnani-2021-end,
    title = "Is this the end of the gold standard? A straightforward reference-less grammatical error correction metric",
    author = "Islam, Md Asadul and Magnani, Enrico",
    booktitle = "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
    year = "2021",
    pages = "3009--3015",
}
"""

_DESCRIPTION = """\
The Scribendi score (Islam & Magnani, EMNLP 2021) needs no references: an unchanged sentence scores 0; a changed one
scores 1 when a language model (GPT-2) finds the prediction less perplexing than the source and the prediction stays
close to the source (token sort ratio or Levenshtein distance ratio at least `threshold`, 0.8), else -1. The corpus
score is the sum of the sentence scores; higher is better. Computed as gec-metrics 0.1.1 computes it.
"""

_KWARGS_DESCRIPTION = kwargs_description("scribendi", inputs="""\
    sources (list of str): the input sentences.
    predictions (list of str): the corrected sentences to score.
""", returns="""\
    scribendi (float): the sum of the sentence scores.
    sentence_scores (list of int): per sentence, -1, 0 or 1, when requested.
    degenerate_sentences (list of dict): the flagged sentences (truncated texts, empty predictions).
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> scribendi = evaluate.load("metrics/scribendi")
    >>> scribendi.compute(sources=["He go to school ."], predictions=["He goes to school ."])
    Traceback (most recent call last):
    ...
    OSError: cannot load the language model 'gpt2'...
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Scribendi(GECMetric):
    """Scribendi as an evaluate metric."""

    NAME = "scribendi"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/gotutiyan/gec-metrics"],
            reference_urls=["https://aclanthology.org/2021.emnlp-main.239/"],
        )

    def _compute(self, sources, predictions, references=None, *, model="gpt2", threshold=0.8, batch_size=32,
                 device=None, no_cuda=False, robust=False, tokenize=False, normalize=False, max_tokens=700,
                 sentence_scores=False, progress=False):
        return self.score(sources, predictions, references, locals())
