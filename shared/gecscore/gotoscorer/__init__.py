"""GoToScorer (Gotou et al. 2020): ERRANT chunks weighted by how hard they are to correct, as gec-metrics 0.1.1
computes it.

Every source is cut into chunks against the reference (its ERRANT edits, its kept tokens, an empty insertion slot
between them); each reference chunk is judged against the hypothesis's chunks and counted, with its weight, as a
TP, FP, FN or TN; the corpus score is F0.5 of the summed weights. Weights are 1 (`weights='none'`, gec-metrics'
default), the difficulty estimated from the systems of the same run (`'systems'`: 1 − the share of systems that got
the chunk right), or read from gec-metrics' weight file. `chunks.py` cuts and judges, `weights.py` estimates and
reads the weights, `metric.py` gathers the statistics and scores them; `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.options import MetricSpec, Option, Unshardable, input_options

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = {**dict.fromkeys(("Chunk", "chunk_sequence", "judge", "outcome", "typed_counts"), "chunks"),
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
        Option("ref_id", "int", 0, "the one reference GoToScorer scores against (position in each sentence's "
               "references)", minimum=0),
        Option("beta", "float", 0.5, "β of the F-score", minimum=0),
        Option("save_weights", "str", None, "with weights='systems': also write the weights to this path as "
               "gec-metrics' weight file (the JSON its generator writes, byte for byte)", kind="output"),
        *input_options(robust="nothing else changes: perfect corrections already score 1"),
        Option("return_sentence_scores", "bool", False, "also return per-sentence records: F, precision, recall, "
               "weighted counts, chunks (aliases `sentence_scores`, `sentences`)", kind="output"),
        Option("return_types", "int", 0, "per-chunk-type weighted TP/FP/FN/TN and P/R/F of the corpus: 1 = operation "
               "(M/R/U), 2 = main type, 3 = full type, as errant_compare -cat; non-edit chunks are DUMMY (0: none)",
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
)
