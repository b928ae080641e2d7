"""BERTScore as a GEC metric: each hypothesis against its references, mean over sentences, as gec-metrics' `bertscore`
computes it (gecscore).

Generated from `gecscore.bertscore.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{zhang-etal-2020-bertscore,
    title = "{BERTScore}: Evaluating Text Generation with {BERT}",
    author = "Zhang, Tianyi and Kishore, Varsha and Wu, Felix and Weinberger, Kilian Q. and Artzi, Yoav",
    booktitle = "International Conference on Learning Representations",
    year = "2020",
    url = "https://openreview.net/forum?id=SkeHuCVFDr",
}
"""

_DESCRIPTION = """\
BERTScore (Zhang et al. 2020) matches every token of a hypothesis with its most similar token of a reference
(cosine of contextual embeddings from one encoder layer) and averages: precision over the hypothesis tokens, recall
over the reference tokens, F1 of the two. As gec-metrics' `bertscore`, a sentence is scored against the best of its
references for the chosen measure (F1 by default), rescaled with bert_score's baseline, and the corpus score is the
mean over sentences. The sources are not read. Higher is better.
"""

_KWARGS_DESCRIPTION = kwargs_description("bertscore", inputs="""\
    sources (list of str): source sentences (checked, not scored: the metric is source-free).
    predictions (list of str): corrected sentences, one per source.
    references (list of list of str): one or more references per source.
""", returns="""\
    bertscore (float): the mean sentence BERTScore.
    sentence_scores (list of float): per sentence, when requested.
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> bertscore = evaluate.load("metrics/bertscore")
    >>> out = bertscore.compute(sources=["He go to school yesterday ."],
    ...                         predictions=["He went to school yesterday ."],
    ...                         references=[["He went to school yesterday .", "He goes to school ."]],
    ...                         model="minilm", layer=6, rescale_with_baseline=False)
    >>> round(out["bertscore"], 4)
    1.0
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Bertscore(GECMetric):
    """BERTScore as an evaluate metric."""

    NAME = "bertscore"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/Tiiiger/bert_score", "https://github.com/gotutiyan/gec-metrics"],
            reference_urls=["https://openreview.net/forum?id=SkeHuCVFDr"],
        )

    def _compute(self, sources, predictions, references=None, *, model="bert-base-uncased", layer=None, score_type="f",
                 rescale_with_baseline=True, baseline_path=None, idf=False, batch_size=64, device=None, robust=False,
                 tokenize=False, normalize=False, max_tokens=700, sentence_scores=False, progress=False):
        return self.score(sources, predictions, references, locals())
