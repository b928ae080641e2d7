"""UOT-ERRANT: ERRANT edits as edit vectors, matched hypothesis → reference by unbalanced optimal transport.

Read top-down: `metric.py` (settings, edits → vectors → transport → counts → scores), `transport.py` (edit
vectors, masses and the transport itself), `plot.py` (the transport heatmap). `SPEC` declares the options once.
"""

from gecscore.common.options import MetricSpec, Option, input_options

SPEC = MetricSpec(
    name="uot_errant",
    title="UOT-ERRANT",
    summary="ERRANT edits as encoder edit vectors, matched hypothesis→reference by unbalanced optimal transport",
    variants=("uot", "errant"),
    runner="gecscore.uot_errant.metric",
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
        *input_options(robust="zero-mass edits leave the transport and transported mass is capped (see the card's "
                       "*Degenerate transports and robust mode*)"),
        Option("return_sentence_scores", "bool", False, "also return per-sentence scores (aliases "
               "`sentence_scores`, `sentences`)", kind="output"),
        Option("return_alignments", "bool", False, "also return edits, vector norms and transport plans per "
               "sentence", kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
)
