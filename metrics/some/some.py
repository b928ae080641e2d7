"""SOME: reference-free GEC metric, three BERT regressors' grammaticality, fluency and meaning ratings (gecscore).

Generated from `gecscore.some.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{yoshimura-etal-2020-reference,
    title = "{SOME}: Reference-less Sub-Metrics Optimized for Manual Evaluations of Grammatical Error Correction",
    author = "Yoshimura, Ryoma and Kaneko, Masahiro and Kajiwara, Tomoyuki and Komachi, Mamoru",
    booktitle = "Proceedings of the 28th International Conference on Computational Linguistics",
    year = "2020",
    pages = "6516--6522",
}
"""

_DESCRIPTION = """\
SOME (Yoshimura et al., COLING 2020) scores each corrected sentence without references: three BERT regressors,
trained on human ratings, rate the prediction's grammaticality and fluency and the (source, prediction) pair's
meaning preservation on a 1-4 scale; each rating is normalised to (r - 1) / 3 and the sentence score is
0.55 grammaticality + 0.43 fluency + 0.02 meaning. The corpus score is the mean; higher is better. Computed as
gec-metrics 0.1.1 computes it (its default checkpoints `gfm-models/grammer`, `gfm-models/fluency`,
`gfm-models/meaning`, from the Hugging Face Hub, or local directories).
"""

_KWARGS_DESCRIPTION = kwargs_description("some", inputs="""\
    sources (list of str): the input sentences (read by the meaning-preservation regressor).
    predictions (list of str): the corrected sentences to score.
""", returns="""\
    some (float): the mean sentence score.
    sentence_scores (list of float): per sentence, when requested.
    degenerate_sentences (list of dict): the flagged sentences (truncated inputs, empty predictions).
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> some = evaluate.load("metrics/some")
    >>> some.compute(sources=["He go to school ."], predictions=["He goes to school ."])
    Traceback (most recent call last):
    ...
    OSError: cannot load the SOME regressor 'gfm-models/grammer'...
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Some(GECMetric):
    """SOME as an evaluate metric."""

    NAME = "some"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/kokeman/SOME", "https://github.com/gotutiyan/gec-metrics"],
            reference_urls=["https://aclanthology.org/2020.coling-main.573/"],
        )

    def _compute(self, sources, predictions, references=None, *, model_g="gfm-models/grammer",
                 model_f="gfm-models/fluency", model_m="gfm-models/meaning", weight_g=0.55, weight_f=0.43,
                 weight_m=0.02, max_length=128, batch_size=32, device=None, no_cuda=False, robust=False, tokenize=False,
                 normalize=False, max_tokens=700, sentence_scores=False, progress=False):
        return self.score(sources, predictions, references, locals())
