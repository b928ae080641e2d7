"""CLEME2.0 and CLEME: chunk-level GEC evaluation with disentangled hit / wrong / under / over-correction (gecscore).

Generated from `gecscore.cleme2.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{ye-etal-2025-cleme2,
    title = "{CLEME}2.0: Towards Interpretable Evaluation by Disentangling Edits for Grammatical Error Correction",
    author = "Ye, Jingheng and Xu, Zishan and Li, Yinghui and Qin, Linlin and Zhou, Qingyu and Cheng, Xiaobin and
      Zheng, Hai-Tao and Jiang, Ying and Yang, Wenhao and Zou, Wenhao and others",
    booktitle = "Proceedings of the 63rd Annual Meeting of the Association for Computational Linguistics",
    year = "2025",
    url = "https://arxiv.org/abs/2407.00934",
}
@inproceedings{ye-etal-2023-cleme,
    title = "{CLEME}: Debiasing Multi-reference Evaluation for Grammatical Error Correction",
    author = "Ye, Jingheng and Li, Yinghui and Zhou, Qingyu and Li, Yangning and Ma, Shirong and Zheng, Hai-Tao and
      Shen, Ying",
    booktitle = "Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing",
    year = "2023",
    pages = "6174--6189",
}
"""

_DESCRIPTION = """\
CLEME cuts the source, the hypothesis and all references jointly into chunks (touching edits merge), so that every
reference offers an answer for every chunk. Each hypothesis chunk is labelled TP, FP_ne (a wrong correction where a
correction is needed), FP_un (an unnecessary correction), FN or TN, per reference ("dependent") or against all
references at once ("independent"). CLEME2.0 (default) turns the (weighted) counts into hit-, wrong-, under- and
over-correction scores and their weighted sum (α = 0.45, 0.35, 0.15, 0.05 at corpus level; 0.35, 0.25, 0.20, 0.20 at
sentence level); chunk weights come from BERTScore (similarity, default, bert-base-uncased layer 9), an LLM (1-5) or
none. `variant="cleme"` gives CLEME v1: length-weighted precision, recall and F0.5. Inputs are whitespace-tokenised
sentences (edits by ERRANT) or M2 files (`hyp_m2=`, `ref_m2=`). Higher is better.
"""

_KWARGS_DESCRIPTION = kwargs_description("cleme2", inputs="""\
    sources (list of str): whitespace-tokenised source sentences (must not be empty).
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more whitespace-tokenised references per source (empty ones dropped).
""", returns="""\
    score (float): CLEME2.0 (com) or CLEME F_β.
    hit, err, und, ove (float): CLEME2.0's disentangled scores (cleme2).
    precision, recall, accuracy (float): CLEME v1 (cleme).
    counts, unweighted_counts (dict): TP, FP, FP_ne, FP_un, FN, TN of the chosen references.
    sentences (list of dict): per sentence, when requested.
    chunks (list of dict): per sentence chunk tables, when requested.
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> cleme2 = evaluate.load("metrics/cleme2", weighting="none")
    >>> out = cleme2.compute(sources=["He go to school yesterday ."],
    ...                      predictions=["He went to school yesterday ."],
    ...                      references=[["He went to school yesterday .", "He goes to school ."]])
    >>> round(out["score"], 4), out["counts"]["TP"]
    (1.0, 1.0)

""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Cleme2(GECMetric):
    """CLEME2.0 as an evaluate metric."""

    NAME = "cleme2"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/THUKElab/CLEME"],
            reference_urls=["https://arxiv.org/abs/2407.00934", "https://arxiv.org/abs/2310.10819"],
        )

    def _compute(self, sources, predictions, references=None, *, variant="cleme2", level="corpus",
                 assumption="dependent", weighting=None, alpha=None, beta=0.5, release="2023", model=None, layer=None,
                 device=None, language="en", zh_lexicon=None, max_changed_run=80, robust=False, tokenize=False,
                 normalize=False, max_tokens=700, hyp_m2=None, ref_m2=None, sentences=False, return_chunks=False,
                 progress=False):
        return self.score(sources, predictions, references, locals())
