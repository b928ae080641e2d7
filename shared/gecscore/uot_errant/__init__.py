"""UOT-ERRANT: ERRANT edits as edit vectors, matched hypothesis → reference by unbalanced optimal transport.

Read top-down: `metric.py` (settings, edits → vectors → transport → counts → scores), `transport.py` (edit
vectors, masses and the transport itself), `plot.py` (the transport heatmap). `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.options import (
    SUGGESTED_LANGUAGES, MetricSpec, Option, ScriptText, input_options, zh_lexicon_option,
)

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = {"edit_label": "plot", "plot_transport": "plot"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

SPEC = MetricSpec(
    name="uot_errant",
    title="UOT-ERRANT",
    summary="ERRANT edits as encoder edit vectors, matched hypothesis→reference by unbalanced optimal transport",
    variants=("uot", "errant"),
    runner="gecscore.uot_errant.metric",
    text_form="tokens",
    replaces_sentences=("hyp_m2", "ref_m2"),
    statistics=("tp", "fp", "fn"),
    sentence_fields=(
        ("precision", "P of the sentence against its reference"),
        ("recall", "R of the sentence against its reference"),
        ("f{beta}", "F_β of the sentence against its reference (= `score`; named for β, e.g. `f0.5`)"),
        ("tp", "`statistics['tp']`"), ("fp", "`statistics['fp']`"), ("fn", "`statistics['fn']`"),
        ("chosen_ref", "the reference's id: its position, or with convention 'errant_compare' its M2 coder id"),
        ("per_ref", "`per_reference` as [tp, fp, fn] lists"),
        ("types", "{error type: [tp, fp, fn]} against the reference"),
        ("per_ref_types", "`types` against every reference"),
        ("corpus_ref", "convention 'errant_compare': the coder id the corpus-level choice took for this sentence"),
        ("coders", "convention 'errant_compare': the [hypothesis coder, reference coder] of each `per_reference`"),
    ),
    options=(
        Option("variant", "str", "uot", "'uot' (UOT-ERRANT) or 'errant' (plain ERRANT F-beta, no encoder)",
               choices=("uot", "errant")),
        Option("model", "str", "google/electra-base-discriminator",
               "encoder id or local path ('minilm' = the PyPI all-MiniLM-L6-v2)", variants=("uot",)),
        Option("beta", "float", 0.5, "F-beta weight of recall; the output key is named for it ('f0.5')",
               minimum=0, exclusive_minimum=True),
        Option("vectorize", "str", "ref-remove", "how an edit becomes a vector", choices=("ref-remove", "src-add"),
               variants=("uot",)),
        Option("mass", "str", "norm", "mass of an edit vector", choices=("norm", "uniform"), variants=("uot",)),
        Option("cost", "str", "euclidean", "transport cost between edit vectors", choices=("euclidean", "cosine"),
               variants=("uot",)),
        Option("reg", "float", 0.1, "entropic regularisation", minimum=0, exclusive_minimum=True,
               variants=("uot",)),
        Option("reg_m", "float", 0.1, "marginal relaxation", minimum=0, exclusive_minimum=True, variants=("uot",)),
        Option("max_length", "int", 128, "encoder tokens per sentence (longer sentences are truncated)", minimum=1,
               variants=("uot",)),
        Option("batch_size", "int", 32, "sentences per forward pass", minimum=1, variants=("uot",)),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True,
               variants=("uot",)),
        Option("convention", "str", "gec-metrics", "plain ERRANT's scoring conventions: 'gec-metrics' (TPs under the "
               "hypothesis edit's type, exact F when choosing references) or 'errant_compare' (ERRANT's official "
               "scorer: TPs under the reference type, F rounded to 4 decimals when choosing, duplicated edits once "
               "per key; needed by `evaluation`, `edit_size`, `filter_types` and M2 input)",
               choices=("gec-metrics", "errant_compare"), variants=("errant",)),
        Option("evaluation", "str", "cs", "errant_compare's -cs (span correction), -cse (span correction + type), "
               "-ds (span detection), -dt (token detection)", choices=("cs", "cse", "ds", "dt"),
               variants=("errant",)),
        Option("edit_size", "str", "all", "errant_compare's -single (only 0:1, 1:0, 1:1 edits) or -multi (only "
               "2+:n or n:2+ edits)", choices=("all", "single", "multi"), variants=("errant",)),
        Option("filter_types", "str_list", (), "errant_compare's -filt: error types left out (e.g. ['R:SPELL'])",
               variants=("errant",)),
        Option("language", "language", "en", "'en': ERRANT's English edits; 'zh': Chinese, every character a token, "
               "edits as ChERRANT's char-level parallel_to_m2.py writes them (needs `zh_lexicon`); variant "
               "'errant' scores as ChERRANT's compare script (convention 'errant_compare': correction keys without "
               "spaces, every alignment, 无法标注 sentences skipped; also ChERRANT M2 files as `hyp_m2`/`ref_m2`), "
               "variant 'uot' transports the edits of each annotator's first alignment; any other: edits from text "
               "with no English rules (a Levenshtein alignment of the "
               "tokens, each run of changes one edit, as ERRANT's -lev -merge all-merge), typed only M, R or U; "
               "`tokenize` applies the language's spaCy tokenizer rules (an error where spaCy has none). Recorded "
               "in the signature unless 'en'", suggested=SUGGESTED_LANGUAGES),
        zh_lexicon_option(),
        *input_options(robust="zero-mass edits leave the transport and transported mass is capped (see the card's "
                       "*Degenerate transports and robust mode*)"),
        Option("return_sentence_scores", "bool", False, "also return per-sentence scores (aliases "
               "`sentence_scores`, `sentences`)", kind="output"),
        Option("return_types", "int", 0, "per-error-type TP/FP/FN and P/R/F of the corpus (UOT-ERRANT: transported "
               "mass): 1 = operation (M/R/U), 2 = main type, 3 = full type, as errant_compare -cat (0: none)",
               choices=(0, 1, 2, 3), kind="output"),
        Option("hyp_m2", "path_or_text", None, "with `ref_m2`, instead of the sentence lists: the hypothesis M2 "
               "(path or text), as errant_compare takes it (convention 'errant_compare')", kind="input",
               variants=("errant",)),
        Option("ref_m2", "path_or_text", None, "with `hyp_m2`: the reference M2 (path or text)", kind="input",
               variants=("errant",)),
        Option("return_alignments", "bool", False, "also return edits, vector norms and transport plans per "
               "sentence", kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
    script=ScriptText(
        headline="UOT-ERRANT: ERRANT edits as edit vectors, matched by unbalanced optimal transport (gecscore).",
        citation="""\
@article{goto-etal-2026-uot-errant,
    title = "Grammatical Error Correction Evaluation by Optimally Transporting Edit Representation",
    author = "Goto, Takumi and Sakai, Yusuke and Watanabe, Taro",
    journal = "Transactions of the Association for Computational Linguistics",
    year = "2026",
    url = "https://arxiv.org/abs/2602.05419",
}
""",
        description="""\
UOT-ERRANT extracts ERRANT edits from the source to the hypothesis and to each reference, turns every edit into an
edit vector (the change of a mean-pooled sentence embedding when the edit is removed from the corrected sentence),
and transports the hypothesis edit vectors onto the reference edit vectors with unbalanced optimal transport
(masses = vector norms, Euclidean cost, POT's stabilised Sinkhorn, reg = reg_m = 0.1). Transported mass is the true
positive score, mass left at the hypothesis the false positives, mass missing at the reference the false negatives;
precision, recall and F0.5 follow, with ERRANT's best reference per sentence and greedy reference choice per corpus.
Defaults are the reference implementation's (encoder google/electra-base-discriminator). `variant="errant"` gives
plain ERRANT F0.5 from the same edits. Inputs are whitespace-tokenised sentences (or raw text with tokenize=True).
Higher is better.
""",
        inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of str or list of list of str): one or more references per source (counts may differ).
""",
        returns="""\
    precision, recall (float): corpus level, usually in [0, 1] but above 1 is possible (see the card).
    f0.5 (float): corpus F-beta (key named for beta).
    tp, fp, fn (float): the corpus counts (transported / untransported mass).
    degenerate_sentences (list of dict): transports with zero-mass edits or POT numerical errors (variant uot).
    types (dict): with `return_types` > 0, `{"level", "rows": {category: {tp, fp, fn, precision, recall, f0.5}}}`
        over the references the corpus rule chose (TP = transported mass for variant uot).
    sentence_scores (list of dict): per sentence precision, recall, F, counts, chosen reference and counts per
        error type against every reference, on request.
    alignments (list of dict): per sentence edits, norms, masses and the plan against every reference, on request.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> uot = evaluate.load("metrics/uot_errant", model="minilm")
    >>> out = uot.compute(sources=["I has a apple ."], predictions=["I have a apple ."],
    ...                   references=[["I have an apple .", "I had an apple ."]])
    >>> round(out["f0.5"], 3)
    0.729
    >>> errant = evaluate.load("metrics/uot_errant", variant="errant")
    >>> errant.compute(sources=["He go to school yesterday ."], predictions=["He went to school yesterday ."],
    ...                references=["He went to school yesterday ."])["f0.5"]
    1.0
    >>> official = evaluate.load("metrics/uot_errant", variant="errant", convention="errant_compare")
    >>> official.compute(sources=["He go to school ."], predictions=["He goes to school ."],
    ...                  references=["He goes to school ."], return_types=1)["types"]["rows"]["R"]["tp"]
    1.0

""",
        codebase_urls=("https://github.com/gotutiyan/uot-errant",),
        reference_urls=("https://arxiv.org/abs/2602.05419",),
    ),
)
