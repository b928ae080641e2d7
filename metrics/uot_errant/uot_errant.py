"""UOT-ERRANT: ERRANT edits as edit vectors, matched by unbalanced optimal transport (gecscore).

Generated from `gecscore.uot_errant.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@article{goto-etal-2026-uot-errant,
    title = "Grammatical Error Correction Evaluation by Optimally Transporting Edit Representation",
    author = "Goto, Takumi and Sakai, Yusuke and Watanabe, Taro",
    journal = "Transactions of the Association for Computational Linguistics",
    year = "2026",
    url = "https://arxiv.org/abs/2602.05419",
}
"""

_DESCRIPTION = """\
UOT-ERRANT extracts ERRANT edits from the source to the hypothesis and to each reference, turns every edit into an
edit vector (the change of a mean-pooled sentence embedding when the edit is removed from the corrected sentence),
and transports the hypothesis edit vectors onto the reference edit vectors with unbalanced optimal transport
(masses = vector norms, Euclidean cost, POT's stabilised Sinkhorn, reg = reg_m = 0.1). Transported mass is the true
positive score, mass left at the hypothesis the false positives, mass missing at the reference the false negatives;
precision, recall and F0.5 follow, with ERRANT's best reference per sentence and greedy reference choice per corpus.
Defaults are the reference implementation's (encoder google/electra-base-discriminator). `variant="errant"` gives
plain ERRANT F0.5 from the same edits. Inputs are whitespace-tokenised sentences (or raw text with tokenize=True).
Higher is better.
"""

_KWARGS_DESCRIPTION = kwargs_description("uot_errant", inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of str or list of list of str): one or more references per source (counts may differ).
""", returns="""\
    precision, recall (float): corpus level, usually in [0, 1] but above 1 is possible (see the card).
    f0.5 (float): corpus F-beta (key named for beta).
    tp, fp, fn (float): the corpus counts (transported / untransported mass).
    degenerate_sentences (list of dict): transports with zero-mass edits or POT numerical errors (variant uot).
    types (dict): with `return_types` > 0, `{"level", "rows": {category: {tp, fp, fn, precision, recall, f0.5}}}`
        over the references the corpus rule chose (TP = transported mass for variant uot).
    sentence_scores (list of dict): per sentence precision, recall, F, counts, chosen reference and counts per
        error type against every reference, on request.
    alignments (list of dict): per sentence edits, norms, masses and the plan against every reference, on request.
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> uot = evaluate.load("metrics/uot_errant", model="minilm")
    >>> out = uot.compute(sources=["I has a apple ."], predictions=["I have a apple ."],
    ...                   references=[["I have an apple .", "I had an apple ."]])
    >>> round(out["f0.5"], 3)
    0.729
    >>> errant = evaluate.load("metrics/uot_errant", variant="errant")
    >>> errant.compute(sources=["He go to school yesterday ."], predictions=["He went to school yesterday ."],
    ...                references=["He went to school yesterday ."])["f0.5"]
    1.0
    >>> official = evaluate.load("metrics/uot_errant", variant="errant", convention="errant_compare")
    >>> official.compute(sources=["He go to school ."], predictions=["He goes to school ."],
    ...                  references=["He goes to school ."], return_types=1)["types"]["rows"]["R"]["tp"]
    1.0

""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class UotErrant(GECMetric):
    """UOT-ERRANT as an evaluate metric."""

    NAME = "uot_errant"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/gotutiyan/uot-errant"],
            reference_urls=["https://arxiv.org/abs/2602.05419"],
        )

    def _compute(self, sources, predictions, references=None, *, variant="uot",
                 model="google/electra-base-discriminator", beta=0.5, vectorize="ref-remove", mass="norm",
                 cost="euclidean", reg=0.1, reg_m=0.1, max_length=128, batch_size=32, device=None,
                 convention="gec-metrics", evaluation="cs", edit_size="all", filter_types=(), language="en",
                 zh_lexicon=None, max_changed_run=80, robust=False, tokenize=False, normalize=False, max_tokens=700,
                 return_sentence_scores=False, return_types=0, hyp_m2=None, ref_m2=None, return_alignments=False,
                 progress=False):
        return self.score(sources, predictions, references, locals())
