"""CLEME2.0 and CLEME: chunk-level hit / wrong / under / over-correction, and CLEME's chunk P/R/F.

Read top-down: `metric.py` (inputs → chunks → labels → weights → counts → scores), `chunks.py` (the chunk
partition and its labels), `weights.py` (similarity and LLM chunk weights); `plot.py` colours chunk tables.
`SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.options import (
    MetricSpec, Option, ScriptText, Unshardable, input_options, language_option, zh_lexicon_option,
)

_LENGTH = ("weighting='length' (CLEME's default) weighs every chunk by the corpus-wide mean chunk length, which no "
           "shard knows; use weighting='none', 'similarity' or 'llm', or score unsharded")

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = {
    **dict.fromkeys(("ASSUMPTIONS", "Sample", "label_chunks", "partition_sample", "samples_from_m2",
                     "samples_from_text", "sharing_partitions"), "chunks"),
    **dict.fromkeys(("HEUO", "ChunkCounts", "ChunkPRF", "LengthWeights", "Sigmoid", "count_chunks", "heuo",
                     "heuo_indicators", "length_bias", "length_weights", "sentence_stats"), "metric"),
    **dict.fromkeys(("EMPTY", "LABEL_COLOURS", "MARKED_COLOUR", "plot_chunks"), "plot"),
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

SPEC = MetricSpec(
    name="cleme2",
    title="CLEME2.0",
    summary="chunk-level hit / wrong / under / over-correction with similarity weights; CLEME v1",
    variants=("cleme2", "cleme"),
    runner="gecscore.cleme2.metric",
    text_form="tokens",
    unshardable=(
        Unshardable((("weighting", ("length",)),), _LENGTH),
        Unshardable((("weighting", (None,)), ("variant", ("cleme",))), _LENGTH),
    ),
    sentence_option="sentences",
    statistics=("TP", "FP", "FP_ne", "FP_un", "FN", "TN"),
    sentence_fields=(
        ("ref", "the reference's id: its position, or its annotator id in `ref_m2`"),
        ("hit", "cleme2: hit-correction rate against the reference"),
        ("err", "cleme2: wrong-correction rate"), ("und", "cleme2: under-correction rate"),
        ("ove", "cleme2: over-correction rate"),
        ("precision", "cleme: chunk precision"), ("recall", "cleme: chunk recall"),
        ("accuracy", "cleme: chunk accuracy"),
        ("counts", "= `statistics` (weighted chunk counts)"),
        ("unweighted_counts", "the same chunk counts with every chunk weighing 1"),
    ),
    replaces_sentences=("hyp_m2", "ref_m2"),
    options=(
        Option("variant", "str", "cleme2", "'cleme2' (CLEME2.0) or 'cleme' (CLEME v1, P/R/F)",
               choices=("cleme2", "cleme")),
        Option("level", "str", "corpus", "'corpus' or 'sentence' (mean of sentence scores)",
               choices=("corpus", "sentence")),
        Option("assumption", "str", "dependent", "reference chunks dependent or independent",
               choices=("dependent", "independent")),
        Option("weighting", "str", None, "chunk weights (None: 'similarity' for cleme2, 'length' for cleme); TN chunks "
               "always weigh 1",
               choices=("similarity", "none", "llm", "length"), nullable=True),
        Option("alpha", "alpha", None, "CLEME2.0 factors of hit, err, und, ove, each in [0, 1], summing to 1 "
               "(None: corpus "
               "(0.45, 0.35, 0.15, 0.05), sentence (0.35, 0.25, 0.20, 0.20))",
               nullable=True, variants=("cleme2",)),
        Option("beta", "float", 0.5, "CLEME v1 F-beta", minimum=0, exclusive_minimum=True, variants=("cleme",)),
        Option("release", "str", "2023", "CLEME v1 sentence level as the 2023 release (paper weights) or the "
               "2025 code", choices=("2023", "2025"), variants=("cleme",)),
        Option("model", "str", None, "similarity: BERTScore model (None: bert-base-uncased; 'minilm'); llm: a "
               "causal LM id or path (required)", nullable=True),
        Option("layer", "int", None, "BERTScore layer (None: the model's bert_score default)", minimum=0,
               nullable=True),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True),
        language_option(edits=True),
        zh_lexicon_option(),
        *input_options(robust="a sentence whose similarity chunk weights are all float noise is scored with unit "
                       "chunk weights (in corpus totals each such chunk weighs the corpus's mean chunk weight)"),
        Option("hyp_m2", "path_or_text", None, "instead of the sentence lists: the hypothesis M2 (path or text, "
               "one annotator)", kind="input"),
        Option("ref_m2", "path_or_text", None, "with `hyp_m2`: the reference M2 (path or text)", kind="input"),
        Option("sentences", "bool", False, "also return per-sentence values: score, indicators, chosen reference, "
               "counts, every reference's values (aliases `return_sentence_scores`, `sentence_scores`)", kind="output"),
        Option("return_chunks", "bool", False, "also return the chunk table of every sentence (tokens of source, "
               "hypothesis and references per chunk, edit marks, labels and weights per reference)", kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
    script=ScriptText(
        headline=("CLEME2.0 and CLEME: chunk-level GEC evaluation with disentangled hit / wrong / under / "
                  "over-correction (gecscore)."),
        citation="""\
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
""",
        description="""\
CLEME cuts the source, the hypothesis and all references jointly into chunks (touching edits merge), so that every
reference offers an answer for every chunk. Each hypothesis chunk is labelled TP, FP_ne (a wrong correction where a
correction is needed), FP_un (an unnecessary correction), FN or TN, per reference ("dependent") or against all
references at once ("independent"). CLEME2.0 (default) turns the (weighted) counts into hit-, wrong-, under- and
over-correction scores and their weighted sum (α = 0.45, 0.35, 0.15, 0.05 at corpus level; 0.35, 0.25, 0.20, 0.20 at
sentence level); chunk weights come from BERTScore (similarity, default, bert-base-uncased layer 9), an LLM (1-5) or
none. `variant="cleme"` gives CLEME v1: length-weighted precision, recall and F0.5. Inputs are whitespace-tokenised
sentences (edits by ERRANT) or M2 files (`hyp_m2=`, `ref_m2=`). Higher is better.
""",
        inputs="""\
    sources (list of str): whitespace-tokenised source sentences (must not be empty).
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more whitespace-tokenised references per source (empty ones dropped).
""",
        returns="""\
    score (float): CLEME2.0 (com) or CLEME F_β.
    hit, err, und, ove (float): CLEME2.0's disentangled scores (cleme2).
    precision, recall, accuracy (float): CLEME v1 (cleme).
    counts, unweighted_counts (dict): TP, FP, FP_ne, FP_un, FN, TN of the chosen references.
    sentences (list of dict): per sentence, when requested.
    chunks (list of dict): per sentence chunk tables, when requested.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> cleme2 = evaluate.load("metrics/cleme2", weighting="none")
    >>> out = cleme2.compute(sources=["He go to school yesterday ."],
    ...                      predictions=["He went to school yesterday ."],
    ...                      references=[["He went to school yesterday .", "He goes to school ."]])
    >>> round(out["score"], 4), out["counts"]["TP"]
    (1.0, 1.0)

""",
        codebase_urls=("https://github.com/THUKElab/CLEME",),
        reference_urls=("https://arxiv.org/abs/2407.00934", "https://arxiv.org/abs/2310.10819"),
    ),
)
