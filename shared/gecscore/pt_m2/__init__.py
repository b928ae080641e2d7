"""PT-M2 / PT-ERRANT / M² / ERRANT: edits weighted by their BERTScore impact (or by 1, `scorer='self'`).

Read top-down: `metric.py` (inputs and gold → edits → weights → counts → scores), `lattice.py` (the MaxMatch
lattice that finds the system edits best matching the gold). `SPEC` declares the options once.
"""

from gecscore.common.options import MetricSpec, Option, input_options

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
)


def sharing_lattices(max_pairs: int = 40_000):
    """A context in which M² builds each (source, hypothesis) lattice once (`lattice.sharing_lattices`): for callers
    that score the same outputs several times, as the meta-evaluation does (M² and SentM², several reference sets)."""
    from gecscore.pt_m2.lattice import sharing_lattices as scope

    return scope(max_pairs)
