"""GoToScorer (Gotou et al. 2020): ERRANT chunks weighted by how hard they are to correct, as gec-metrics 0.1.1
computes it.

Every source is cut into chunks against the reference (its ERRANT edits, its kept tokens, an empty insertion slot
between them); each reference chunk is judged against the hypothesis's chunks and counted, with its weight, as a
TP, FP, FN or TN; the corpus score is F0.5 of the summed weights. Weights are 1 (`weights='none'`, gec-metrics'
default), the difficulty estimated from the systems of the same run (`'systems'`: 1 − the share of systems that got
the chunk right), or read from gec-metrics' weight file. `chunks.py` cuts and judges, `weights.py` estimates and
reads the weights, `metric.py` gathers the statistics and scores them; `SPEC` declares the options once.
"""

from gecscore.common.examples import LANGUAGE_EXAMPLES
from gecscore.common.exports import lazy_exports
from gecscore.common.options import (
    Control, MetricSpec, Option, ScriptText, SettingsExample, SpaceText, Unshardable, input_options, language_option,
    zh_lexicon_option,
)
from gecscore.gotoscorer import space as _space

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = {**dict.fromkeys(("Chunk", "chunk_sequence", "judge", "judge_gts", "outcome", "typed_counts"), "chunks"),
            **dict.fromkeys(("difficulty", "evaluations", "read_weight_file", "write_weight_file"), "weights"),
            **dict.fromkeys(("GoToScorerStatistics",), "metric")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

#: The weight settings that are not a file.
WEIGHT_MODES = ("none", "systems")

SPEC = MetricSpec(
    name="gotoscorer",
    title="GoToScorer",
    summary="GoToScorer (Gotou et al. 2020): F0.5 of ERRANT chunks against one reference, each chunk weighted by "
            "its correction difficulty (gec-metrics 0.1.1)",
    variants=(),
    runner="gecscore.gotoscorer.metric",
    text_form="tokens",
    reference_option="ref_id",
    statistics=("tp", "fp", "fn", "tn"),
    sentence_fields=(
        ("f{beta}", "the sentence's F-beta on its weighted chunk counts; equal to `score`"),
        ("precision", "weighted TP / (TP + FP), 1 when FP = 0"),
        ("recall", "weighted TP / (TP + FN), 1 when FN = 0"),
        ("chunks", "the reference chunks against `ref_id`: `[o_start, o_end, correction, type, weight, outcome]`, "
                   "outcome one of tp, fp, fp+fn, fn, tn (type DUMMY:DUMMY: a kept token or an insertion slot)"),
        ("types", "the sentence's weighted `[tp, fp, fn, tn]` per chunk type against `ref_id`"),
    ),
    options=(
        Option("weights", "str", "none", "chunk weights: 'none' (every chunk 1, gec-metrics' default "
               "no_weight=True), 'systems' (difficulty from the systems scored in the same run, at least 2: 1 − the "
               "share that got the chunk right, as gec-metrics' weight generator), or the path of a gec-metrics "
               "weight file"),
        Option("rules", "str", "gec-metrics", "how chunks are judged and weighted: 'gec-metrics' (gec-metrics "
               "0.1.1's GoToScorer and weight generator) or 'gts' (the original GoToScorer, gotutiyan/GTS 1.1: an "
               "edit inserted before a chunk counts as an attempt on it, a system is right on a chunk for the "
               "weights only with the same span and correction, and a vanishing denominator gives 0)",
               choices=("gec-metrics", "gts")),
        Option("ref_id", "int", 0, "the one reference GoToScorer scores against (position in each sentence's "
               "references)", minimum=0),
        Option("beta", "float", 0.5, "β of the F-score", minimum=0),
        Option("save_weights", "str", None, "with weights='systems': also write the weights to this path as "
               "gec-metrics' weight file (the JSON its generator writes, byte for byte)", kind="output"),
        language_option(edits=True),
        zh_lexicon_option(),
        *input_options(robust="nothing else changes: perfect corrections already score 1"),
        Option("return_sentence_scores", "bool", False, "also return per-sentence records: F, precision, recall, "
               "weighted counts, chunks (aliases `sentence_scores`, `sentences`)", kind="output"),
        Option("return_types", "int", 0, "per-chunk-type weighted TP/FP/FN/TN and P/R/F of the corpus: 1 = operation "
               "(M/R/U), 2 = main type, 3 = full type, as errant_compare -cat; non-edit chunks are DUMMY (0: none). "
               "With language='zh' the types are ChERRANT's M/R/S/W, which have no main type: 1 or 3",
               choices=(0, 1, 2, 3), kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
    several_systems=(("weights", ("systems",)),),
    unshardable=(
        Unshardable((), "a weight file holds the weights of the whole corpus, sentence by sentence; score it whole",
                    unless=(("weights", WEIGHT_MODES),)),
        Unshardable((), "save_weights writes the whole corpus's weights; save them in an unsharded run",
                    unless=(("save_weights", (None,)),)),
    ),
    script=ScriptText(
        headline=("GoToScorer: ERRANT chunks weighted by correction difficulty, as gec-metrics 0.1.1 computes it "
                  "(gecscore)."),
        citation="""\
@inproceedings{gotou-etal-2020-taking,
    title = "Taking the Correction Difficulty into Account in Grammatical Error Correction Evaluation",
    author = "Gotou, Takumi and Nagata, Ryo and Mita, Masato and Hanawa, Kazuaki",
    booktitle = "Proceedings of the 28th International Conference on Computational Linguistics",
    year = "2020",
    pages = "2085--2095",
}
""",
        description="""\
GoToScorer (Gotou et al., COLING 2020) cuts every source into chunks against one reference (its ERRANT edits, the
tokens it keeps, and empty insertion slots between them), judges each reference chunk against the hypothesis's
chunks as a true or false positive, a false negative or a true negative, and scores F0.5 of the chunk counts, each
chunk weighted by how hard it is to correct. As in gec-metrics 0.1.1: weights are 1 by default (its
no_weight=True), or 1 − the share of a set of systems that got the chunk right, read from its weight file; with
the gecscore CLI they can be estimated from the systems scored in the same run. Inputs are whitespace-tokenised.
Higher is better.
""",
        inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more references per source; `ref_id` picks the one scored against.
""",
        returns="""\
    f0.5 (float): the corpus F-beta of the weighted chunk counts (the key names β).
    precision, recall (float): the corpus precision and recall.
    tp, fp, fn, tn (float): the corpus's weighted chunk counts.
    types (dict): with return_types, the per-chunk-type table.
    sentence_scores (list of dict): per sentence, when requested (F, counts, chunks).
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> gotoscorer = evaluate.load("metrics/gotoscorer")
    >>> out = gotoscorer.compute(sources=["This sentences contain gramamtical error ."],
    ...                          predictions=["This sentence contains a grammatical error ."],
    ...                          references=[["This sentence contains a gramamtical error ."]])
    >>> round(out["f0.5"], 4)
    0.7895
""",
        codebase_urls=("https://github.com/gotutiyan/gec-metrics",),
        reference_urls=("https://pypi.org/project/gec-metrics/0.1.1/",),
    ),
    space=SpaceText(
        intro=(
            "# GoToScorer\nGoToScorer as gec-metrics 0.1.1 computes it: the source is cut into chunks against one "
            "reference (its ERRANT edits, the tokens it keeps and empty insertion slots between them); each chunk is "
            "a true or false positive, a false negative or a true negative for the hypothesis, and the score is F0.5 "
            "of the counts. Here every chunk weighs 1 (gec-metrics' default); difficulty weights need many systems "
            "at once: use `gecscore score gotoscorer --predictions A B C ... -o weights=systems`. Inputs are "
            "whitespace-tokenised. See the metric card (Gotou, Nagata, Mita & Hanawa, COLING 2020)."
        ),
        sentence_examples=(
            (
                "This sentences contain gramamtical error .",
                "This sentence contains a grammatical error .",
                "This sentence contains a gramamtical error .\n"
                "These sentences contain grammatical errors .",
            ),
            (
                "He go to school yesterday .",
                "He went to the school yesterday .",
                "He went to school yesterday .",
            ),
        ),
        settings=(
            Control("beta", "β", "F-beta's β (0.5 weighs precision more)"),
            Control("ref_id", "Reference", "which reference line is scored against (0: first)"),
            Control("language", "Language", "zh: ChERRANT's char edits (its lexicon fetched once); any other but en: edits "
                    "with no English rules, typed M/R/U (any language code may be typed in)"),
        ),
        # GoToScorer reads one reference: the examples' first.
        setting_examples=tuple(SettingsExample((*e.texts[:2], e.texts[2].split("\n")[0]), e.settings)
                               for e in LANGUAGE_EXAMPLES),
        source_label="Source (tokenised)",
        sentence_view=_space.sentence_view,
        corpus_row=_space.corpus_row,
    ),
)
