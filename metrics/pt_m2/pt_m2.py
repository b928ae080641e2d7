"""PT-M2 / PT-ERRANT: M2 or ERRANT F-beta with every edit weighted by its BERTScore impact (gecscore).

Generated from `gecscore.pt_m2.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{gong-etal-2022-revisiting,
    title = "Revisiting Grammatical Error Correction Evaluation and Beyond",
    author = "Gong, Peiyuan and Liu, Xuebo and Huang, Heyan and Zhang, Min",
    booktitle = "Proceedings of the 2022 Conference on Empirical Methods in Natural Language Processing",
    year = "2022",
    pages = "6891--6902",
    url = "https://aclanthology.org/2022.emnlp-main.463",
}
@inproceedings{dahlmeier-ng-2012-better,
    title = "Better Evaluation for Grammatical Error Correction",
    author = "Dahlmeier, Daniel and Ng, Hwee Tou",
    booktitle = "Proceedings of the 2012 Conference of the North {A}merican Chapter of the Association for Computational Linguistics: Human Language Technologies",
    year = "2012",
    pages = "568--572",
}
"""

_DESCRIPTION = """\
PT-M2 extracts the system edits with the MaxMatch (M2) lattice of the official scorer 3.2 and weighs every
system and gold edit by |BERTScore(source with only that edit, reference) - BERTScore(source, reference)|, so
that edits that matter for the meaning count more. Precision, recall and F-beta are ratios of summed weights;
the best annotator is chosen per sentence (`sentm2`, the paper's PT-M2: mean of sentence F-beta) or greedily
over the corpus (`m2`). PT-ERRANT does the same with ERRANT edits (`errant`, `senterrant`, as gec-metrics).
With `scorer="self"` every weight is 1: plain M2 / SentM2 / ERRANT / SentERRANT.
"""

_KWARGS_DESCRIPTION = kwargs_description("pt_m2", inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences.
    references (list of list of str, optional): whitespace-tokenised corrected references per sentence.
        With `gold_m2` they are the texts edits are weighed against, indexed by annotator id (checked
        against the M2; default: the M2 corrections applied). Without `gold_m2` they are the gold: ERRANT
        edits of each reference (one annotator per reference) for every variant.
""", returns="""\
    precision, recall (float): weighted P and R in [0, 1] (sentence variants: means over sentences).
    f0.5 (float): F-beta in [0, 1], named for beta (f1, f2, ...); higher is better.
    score (float): the same F-beta.
    sentence_scores (list of float): when requested.
    edits (list of dict): when requested; per sentence the chosen annotator/reference and its weighted
        counts, and for every annotator/reference the system edits (weight, matched) and gold edits (weight).
    types (dict): when `return_types` > 0; `{"level", "rows": {category: {tp, fp, fn, precision, recall,
        f0.5}}}` over each sentence's chosen annotator/reference (see the card's *Per-error-type breakdown*).
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> metric = evaluate.load("metrics/pt_m2", scorer="self")
    >>> gold = ("S He go to school .\\nA 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0\\n\\n"
    ...         "S I like it .\\nA 3 3|||M|||very much|||REQUIRED|||-NONE-|||0\\n")
    >>> out = metric.compute(sources=["He go to school .", "I like it ."],
    ...                      predictions=["He goes to school .", "I like it ."], gold_m2=gold)
    >>> out["f0.5"], out["precision"], out["recall"]
    (0.5, 1.0, 0.5)

""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PtM2(GECMetric):
    """PT-M2 as an evaluate metric."""

    NAME = "pt_m2"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/pygongnlp/PT-M2", "https://github.com/gotutiyan/gec-metrics"],
            reference_urls=["https://aclanthology.org/2022.emnlp-main.463"],
            homepage="https://github.com/pygongnlp/PT-M2",
        )

    def _compute(self, sources, predictions, references=None, *, variant="sentm2", scorer="bertscore",
                 model="bert-base-uncased", layer=None, beta=0.5, max_unchanged_words=2, language="en", zh_lexicon=None,
                 max_changed_run=80, robust=False, tokenize=False, normalize=False, max_tokens=700, device=None,
                 gold_m2=None, sentence_scores=False, return_edits=False, return_types=0, progress=False):
        return self.score(sources, predictions, references, locals())
