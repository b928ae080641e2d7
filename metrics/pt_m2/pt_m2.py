"""PT-M2 / PT-ERRANT: M2 or ERRANT F-beta with every edit weighted by its BERTScore impact (gecscore)."""

import os

import evaluate

from gecscore.evaluate_module import GECMetric
from gecscore.evaluate_module import metric_info
from gecscore.common.m2io import parse_m2
from gecscore.common.m2io import read_m2
from gecscore.common.validation import check_same_length
from gecscore.common.validation import check_texts
from gecscore.pt_m2 import metric as pt_m2
from gecscore.common.edit_impact import BERTScoreSimilarity

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

_KWARGS_DESCRIPTION = """
Args:
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences.
    references (list of list of str, optional): whitespace-tokenised corrected references per sentence.
        With `gold_m2` they are the texts edits are weighed against, indexed by annotator id (checked
        against the M2; default: the M2 corrections applied). Without `gold_m2` they are the gold: ERRANT
        edits of each reference (one annotator per reference) for every variant.
    gold_m2 (str, optional): gold M2 annotation (text, or path of an M2 file), one block per sentence,
        several annotators allowed.
    variant (str): "sentm2" (default, PT-M2), "m2", "errant" or "senterrant".
    scorer (str): "bertscore" (default) or "self" (unit weights).
    model (str): BERTScore model: hub id, local directory or "minilm" (default "bert-base-uncased").
    layer (int, optional): hidden layer for BERTScore (default: bert_score's layer for the model, 9 for
        bert-base-uncased; required for other models, 6 for "minilm").
    beta (float): F-beta weight of precision (default 0.5).
    max_unchanged_words (int): M2 lattice: unchanged words an edit may span (default 2).
    sentence_scores (bool): also return the F-beta of every sentence (default False; aliases
        `return_sentence_scores`, `sentences`, as in the other gecscore metrics).
    return_edits (bool): also return, per sentence, the edits and weights of every annotator (default False).
    tokenize (bool): spaCy-tokenise raw predictions (and, without `gold_m2`, sources and references) first;
        otherwise clearly untokenised text is an error (default False).
    device (str, optional): "cpu", "cuda", ... (default: cuda when available).
    progress (bool): show progress bars.
Returns:
    precision, recall (float): weighted P and R in [0, 1] (sentence variants: means over sentences).
    f0.5 (float): F-beta in [0, 1], named for beta (f1, f2, ...); higher is better.
    score (float): the same F-beta.
    sentence_scores (list of float): when requested.
    edits (list of dict): when requested; per sentence the chosen annotator/reference and its weighted
        counts, and for every annotator/reference the system edits (weight, matched) and gold edits (weight).
    signature (str): the versions and settings that produced the score.
Examples:
    >>> import evaluate
    >>> metric = evaluate.load("metrics/pt_m2", scorer="self")
    >>> gold = ("S He go to school .\nA 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0\n\n"
    ...         "S I like it .\nA 3 3|||M|||very much|||REQUIRED|||-NONE-|||0\n")
    >>> out = metric.compute(sources=["He go to school .", "I like it ."],
    ...                      predictions=["He goes to school .", "I like it ."], gold_m2=gold)
    >>> out["f0.5"], out["precision"], out["recall"]
    (0.5, 1.0, 0.5)

"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PtM2(GECMetric):
    """PT-M2 and PT-ERRANT as an evaluate metric."""

    DEFAULTS = {
        "variant": "sentm2", "scorer": "bertscore", "model": "bert-base-uncased", "layer": None, "beta": 0.5,
        "max_unchanged_words": 2, "gold_m2": None, "sentence_scores": False, "return_edits": False,
        "tokenize": False, "device": None, "progress": False,
    }
    SENTENCE_OPTION = "sentence_scores"
    REFERENCE_BASED = True

    def _info(self):
        return metric_info(_DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION, with_references=True,
                           codebase_urls=["https://github.com/pygongnlp/PT-M2",
                                          "https://github.com/gotutiyan/gec-metrics"],
                           reference_urls=["https://aclanthology.org/2022.emnlp-main.463"],
                           homepage="https://github.com/pygongnlp/PT-M2")

    def _normalise_batch(self, sources, predictions, references):
        """References are optional here (a gold M2 can stand in for them): missing ones become empty lists."""
        if references is not None:
            return super()._normalise_batch(sources, predictions, references)
        n = check_same_length(sources=check_texts("sources", sources),
                              predictions=check_texts("predictions", predictions))
        return super()._normalise_batch(sources, predictions, [[""]] * n) | {"references": [[] for _ in range(n)]}

    def _compute(self, sources, predictions, references=None, **kwargs):
        opts = self.options(kwargs)
        variant, scorer, beta = opts["variant"], opts["scorer"], opts["beta"]
        if variant not in pt_m2.VARIANTS:
            raise ValueError(f"`variant` must be one of {list(pt_m2.VARIANTS)}, got {variant!r}")
        if scorer not in ("bertscore", "self"):
            raise ValueError(f"`scorer` must be 'bertscore' or 'self', got {scorer!r}")
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
            raise ValueError(f"`beta` must be a number > 0, got {beta!r}")
        references = [list(r) for r in references] if references is not None else [[] for _ in sources]
        given = [i for i, refs in enumerate(references) if refs]
        if given and len(given) != len(references):
            missing = next(i for i, refs in enumerate(references) if not refs)
            raise ValueError(f"`references[{missing}]` is empty while other examples have references")
        gold = _read_gold(opts["gold_m2"])
        if gold is None and not given:
            raise ValueError("pass `references` (corrected sentences) or `gold_m2` (an M2 annotation)")
        if gold is not None and len(gold) != len(sources):
            raise ValueError(f"`gold_m2` has {len(gold)} sentences but there are {len(sources)} predictions")
        sources, predictions, references = pt_m2.prepare_text(
            list(sources), list(predictions), references, tokenize=opts["tokenize"], gold_given=gold is not None)
        similarity = None
        if scorer == "bertscore":
            similarity = BERTScoreSimilarity(opts["model"], layer=opts["layer"], device=opts["device"])
        common = dict(variant=variant, similarity=similarity, beta=beta, progress=opts["progress"])
        if variant in ("m2", "sentm2"):
            if gold is not None:
                texts = pt_m2.gold_references(gold, references if given else None)
            else:
                gold, texts = pt_m2.gold_from_references(sources, references, progress=opts["progress"])
            result = pt_m2.score_m2(sources, predictions, gold, reference_texts=texts,
                                    max_unchanged_words=opts["max_unchanged_words"], **common)
        else:
            if not given:
                references = pt_m2.m2_references(gold)
            result = pt_m2.score_errant(sources, predictions, references, extractor=pt_m2.default_extractor(),
                                        **common)
        out = {"precision": result.precision, "recall": result.recall, f"f{beta:g}": result.f, "score": result.f}
        if opts["sentence_scores"]:
            out["sentence_scores"] = [s.f for s in result.sentences]
        if opts["return_edits"]:
            out["edits"] = [pt_m2.sentence_record(s, variant) for s in result.sentences]
        out["signature"] = pt_m2.signature(variant, scorer, similarity, beta, opts["max_unchanged_words"],
                                           "m2" if opts["gold_m2"] is not None else "references")
        return out


def _read_gold(gold_m2):
    """The gold M2 from text, a file path or parsed sentences (None stays None)."""
    if gold_m2 is None:
        return None
    if isinstance(gold_m2, (list, tuple)):
        return list(gold_m2)
    if not isinstance(gold_m2, (str, os.PathLike)):
        raise TypeError(f"`gold_m2` must be M2 text or a path, got {type(gold_m2).__name__}")
    text = os.fspath(gold_m2)
    if "\n" not in text and not text.startswith("S ") and os.path.isfile(text):
        return read_m2(text)
    if not text.lstrip().startswith("S"):
        raise ValueError(f"`gold_m2` is neither M2 text (starting with 'S ') nor an existing file: {text[:80]!r}")
    return parse_m2(text)
