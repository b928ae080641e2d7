"""PT-M2 / PT-ERRANT / M² / ERRANT: edits weighted by their BERTScore impact (or by 1, `scorer='self'`).

Read top-down: `metric.py` (inputs and gold → edits → weights → counts → scores), `lattice.py` (the MaxMatch
lattice that finds the system edits best matching the gold). `SPEC` declares the options once.
"""

from gecscore.common.options import MetricSpec, Option, ScriptText, input_options, language_option, zh_lexicon_option

SPEC = MetricSpec(
    name="pt_m2",
    title="PT-M2",
    summary="MaxMatch (M²) or ERRANT edits weighted by their BERTScore impact",
    variants=("sentm2", "m2", "errant", "senterrant"),
    config_prefix="pt-",
    runner="gecscore.pt_m2.metric",
    sentence_option="sentence_scores",
    statistics=("correct", "proposed", "gold"),
    sentence_fields=(
        ("f{beta}", "F_β of the sentence against its annotator or reference (= `score`; named for β, e.g. `f0.5`)"),
        ("precision", "P = correct / proposed (1 when nothing is proposed)"),
        ("recall", "R = correct / gold (1 when there is no gold edit)"),
        ("annotator", "variants 'm2', 'sentm2': the gold annotator's id"),
        ("counts", "`per_reference` as [correct, proposed, gold] lists"),
        ("types", "{error type: [tp, fp, fn]} against every annotator or reference"),
    ),
    options=(
        Option("variant", "str", "sentm2", "'sentm2' (PT-M2), 'm2', 'errant' (PT-ERRANT) or 'senterrant'",
               choices=("sentm2", "m2", "errant", "senterrant")),
        Option("scorer", "str", "bertscore", "edit weights: BERTScore impact, or 1 for every edit ('self': plain "
               "M² / ERRANT)", choices=("bertscore", "self")),
        Option("model", "str", "bert-base-uncased", "BERTScore model: hub id, local directory or 'minilm'"),
        Option("layer", "int", None, "BERTScore hidden layer (None: bert_score's layer for the model, 9 for "
               "bert-base-uncased; required for other models, 6 for 'minilm')", minimum=0, nullable=True),
        Option("beta", "float", 0.5, "F-beta weight of recall; the output key is named for it ('f0.5')",
               minimum=0, exclusive_minimum=True),
        Option("max_unchanged_words", "int", 2, "M² lattice: unchanged words an edit may span", minimum=0,
               variants=("sentm2", "m2")),
        language_option(edits=True),
        zh_lexicon_option(),
        *input_options(robust="a system edit counts as matching at most one gold edit and a gold edit weighs as "
                       "the alternative the system matched (see the card's *Degenerate sentences and robust mode*)"),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True),
        Option("gold_m2", "path_or_text", None, "gold M2 annotation (text, path or parsed sentences) instead of or "
               "besides `references`", kind="input"),
        Option("sentence_scores", "bool", False, "also return the F-beta of every sentence (aliases "
               "`return_sentence_scores`, `sentences`)", kind="output"),
        Option("return_edits", "bool", False, "also return, per sentence, every annotator's (reference's) edits, "
               "weights and counts",
               kind="output"),
        Option("return_types", "int", 0, "per-error-type TP/FP/FN and P/R/F of the corpus: 1 = operation (M/R/U), "
               "2 = main type, 3 = full type, as errant_compare -cat (0: none)", choices=(0, 1, 2, 3), kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
    script=ScriptText(
        headline="PT-M2 / PT-ERRANT: M2 or ERRANT F-beta with every edit weighted by its BERTScore impact (gecscore).",
        citation="""\
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
""",
        description="""\
PT-M2 extracts the system edits with the MaxMatch (M2) lattice of the official scorer 3.2 and weighs every
system and gold edit by |BERTScore(source with only that edit, reference) - BERTScore(source, reference)|, so
that edits that matter for the meaning count more. Precision, recall and F-beta are ratios of summed weights;
the best annotator is chosen per sentence (`sentm2`, the paper's PT-M2: mean of sentence F-beta) or greedily
over the corpus (`m2`). PT-ERRANT does the same with ERRANT edits (`errant`, `senterrant`, as gec-metrics).
With `scorer="self"` every weight is 1: plain M2 / SentM2 / ERRANT / SentERRANT.
""",
        inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences.
    references (list of list of str, optional): whitespace-tokenised corrected references per sentence.
        With `gold_m2` they are the texts edits are weighed against, indexed by annotator id (checked
        against the M2; default: the M2 corrections applied). Without `gold_m2` they are the gold: ERRANT
        edits of each reference (one annotator per reference) for every variant.
""",
        returns="""\
    precision, recall (float): weighted P and R in [0, 1] (sentence variants: means over sentences).
    f0.5 (float): F-beta in [0, 1], named for beta (f1, f2, ...); higher is better.
    score (float): the same F-beta.
    sentence_scores (list of float): when requested.
    edits (list of dict): when requested; per sentence the chosen annotator/reference and its weighted
        counts, and for every annotator/reference the system edits (weight, matched) and gold edits (weight).
    types (dict): when `return_types` > 0; `{"level", "rows": {category: {tp, fp, fn, precision, recall,
        f0.5}}}` over each sentence's chosen annotator/reference (see the card's *Per-error-type breakdown*).
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> metric = evaluate.load("metrics/pt_m2", scorer="self")
    >>> gold = ("S He go to school .\\nA 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0\\n\\n"
    ...         "S I like it .\\nA 3 3|||M|||very much|||REQUIRED|||-NONE-|||0\\n")
    >>> out = metric.compute(sources=["He go to school .", "I like it ."],
    ...                      predictions=["He goes to school .", "I like it ."], gold_m2=gold)
    >>> out["f0.5"], out["precision"], out["recall"]
    (0.5, 1.0, 0.5)

""",
        codebase_urls=("https://github.com/pygongnlp/PT-M2", "https://github.com/gotutiyan/gec-metrics"),
        reference_urls=("https://aclanthology.org/2022.emnlp-main.463",),
        homepage="https://github.com/pygongnlp/PT-M2",
    ),
)


def sharing_lattices(max_pairs: int = 40_000):
    """A context in which M² builds each (source, hypothesis) lattice once (`lattice.sharing_lattices`): for callers
    that score the same outputs several times, as the meta-evaluation does (M² and SentM², several reference sets)."""
    from gecscore.pt_m2.lattice import sharing_lattices as scope

    return scope(max_pairs)
