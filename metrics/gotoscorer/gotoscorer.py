"""GoToScorer: ERRANT chunks weighted by correction difficulty, as gec-metrics 0.1.1 computes it (gecscore).

Generated from `gecscore.gotoscorer.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{gotou-etal-2020-taking,
    title = "Taking the Correction Difficulty into Account in Grammatical Error Correction Evaluation",
    author = "Gotou, Takumi and Nagata, Ryo and Mita, Masato and Hanawa, Kazuaki",
    booktitle = "Proceedings of the 28th International Conference on Computational Linguistics",
    year = "2020",
    pages = "2085--2095",
}
"""

_DESCRIPTION = """\
GoToScorer (Gotou et al., COLING 2020) cuts every source into chunks against one reference (its ERRANT edits, the
tokens it keeps, and empty insertion slots between them), judges each reference chunk against the hypothesis's
chunks as a true or false positive, a false negative or a true negative, and scores F0.5 of the chunk counts, each
chunk weighted by how hard it is to correct. As in gec-metrics 0.1.1: weights are 1 by default (its
no_weight=True), or 1 − the share of a set of systems that got the chunk right, read from its weight file; with
the gecscore CLI they can be estimated from the systems scored in the same run. Inputs are whitespace-tokenised.
Higher is better.
"""

_KWARGS_DESCRIPTION = kwargs_description("gotoscorer", inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more references per source; `ref_id` picks the one scored against.
""", returns="""\
    f0.5 (float): the corpus F-beta of the weighted chunk counts (the key names β).
    precision, recall (float): the corpus precision and recall.
    tp, fp, fn, tn (float): the corpus's weighted chunk counts.
    types (dict): with return_types, the per-chunk-type table.
    sentence_scores (list of dict): per sentence, when requested (F, counts, chunks).
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> gotoscorer = evaluate.load("metrics/gotoscorer")
    >>> out = gotoscorer.compute(sources=["This sentences contain gramamtical error ."],
    ...                          predictions=["This sentence contains a grammatical error ."],
    ...                          references=[["This sentence contains a gramamtical error ."]])
    >>> round(out["f0.5"], 4)
    0.7895
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Gotoscorer(GECMetric):
    """GoToScorer as an evaluate metric."""

    NAME = "gotoscorer"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/gotutiyan/gec-metrics"],
            reference_urls=["https://pypi.org/project/gec-metrics/0.1.1/"],
        )

    def _compute(self, sources, predictions, references=None, *, weights="none", rules="gec-metrics", ref_id=0,
                 beta=0.5, save_weights=None, language="en", zh_lexicon=None, max_changed_run=80, robust=False,
                 tokenize=False, normalize=False, max_tokens=700, return_sentence_scores=False, return_types=0,
                 progress=False):
        return self.score(sources, predictions, references, locals())
