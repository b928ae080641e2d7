"""BERTScore as a GEC metric: each hypothesis against its references, the mean over sentences (gec-metrics'
`bertscore`).

`metric.py` gathers every sentence's P, R and F against each reference through the shared BERTScore core
(`gecscore.common.bertscore`, equal to the bert_score package) and scores them; `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.examples import REFERENCE_EXAMPLES
from gecscore.common.options import Control, MetricSpec, Option, ScriptText, SpaceText, Unshardable, input_options

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = dict.fromkeys(("BERTScoreStatistics", "sentence_values"), "metric")
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

SPEC = MetricSpec(
    name="bertscore",
    title="BERTScore",
    summary="BERTScore of each hypothesis against its references (best reference per measure), rescaled with "
            "bert_score's baseline, mean over sentences (gec-metrics' `bertscore`)",
    variants=(),
    runner="gecscore.bertscore.metric",
    sentence_option="sentence_scores",
    unshardable=(Unshardable((("idf", (True,)),), "idf=True weighs tokens by their idf over the whole corpus's "
                                                  "references, which no shard knows"),),
    statistics=("precision", "recall", "f1"),
    sentence_fields=(
        ("bertscore", "the sentence's BERTScore: the maximum over its references of the chosen measure "
                      "(`score_type`); equal to `score`"),
    ),
    options=(
        Option("model", "str", "bert-base-uncased", "encoder: hub id, local directory or 'minilm' "
               "(gec-metrics' default bert-base-uncased)"),
        Option("layer", "int", None, "layer whose token states are matched (None: bert_score's default layer for "
               "the model, 9 for bert-base-uncased)", nullable=True, minimum=0),
        Option("score_type", "str", "f", "the sentence score: 'p' precision, 'r' recall or 'f' F1 (gec-metrics' "
               "`score_type`)", choices=("p", "r", "f")),
        Option("rescale_with_baseline", "bool", True, "rescale with the baseline `(x - b) / (1 - b)` "
               "(gec-metrics' default True)"),
        Option("baseline_path", "str", None, "bert_score baseline tsv (columns LAYER,P,R,F; None: the one bert_score "
               "ships for the model)", nullable=True),
        Option("idf", "bool", False, "weigh tokens by their idf over all the references given, as bert_score's "
               "`idf=True` (False: every token 1, gec-metrics' default); the scores then depend on the whole corpus"),
        Option("batch_size", "int", 64, "sentences per forward pass (the result does not depend on it)", minimum=1),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' (None: cuda when available)", nullable=True),
        *input_options(errant=False, tokenize="spaCy-tokenise predictions and references first (False: scored as "
                       "given, as gec-metrics does; BERTScore's own subword tokenizer splits them)",
                       robust="a prediction equal to one of its references scores exactly 1"),
        Option("sentence_scores", "bool", False, "also return the per-sentence scores (aliases "
               "`return_sentence_scores`, `sentences`)", kind="output"),
        Option("progress", "bool", False, "show a progress bar", kind="output"),
    ),
    script=ScriptText(
        headline=("BERTScore as a GEC metric: each hypothesis against its references, mean over sentences, as "
                  "gec-metrics' `bertscore` computes it (gecscore)."),
        citation="""\
@inproceedings{zhang-etal-2020-bertscore,
    title = "{BERTScore}: Evaluating Text Generation with {BERT}",
    author = "Zhang, Tianyi and Kishore, Varsha and Wu, Felix and Weinberger, Kilian Q. and Artzi, Yoav",
    booktitle = "International Conference on Learning Representations",
    year = "2020",
    url = "https://openreview.net/forum?id=SkeHuCVFDr",
}
""",
        description="""\
BERTScore (Zhang et al. 2020) matches every token of a hypothesis with its most similar token of a reference
(cosine of contextual embeddings from one encoder layer) and averages: precision over the hypothesis tokens, recall
over the reference tokens, F1 of the two. As gec-metrics' `bertscore`, a sentence is scored against the best of its
references for the chosen measure (F1 by default), rescaled with bert_score's baseline, and the corpus score is the
mean over sentences. The sources are not read. Higher is better.
""",
        inputs="""\
    sources (list of str): source sentences (checked, not scored: the metric is source-free).
    predictions (list of str): corrected sentences, one per source.
    references (list of list of str): one or more references per source.
""",
        returns="""\
    bertscore (float): the mean sentence BERTScore.
    sentence_scores (list of float): per sentence, when requested.
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> bertscore = evaluate.load("metrics/bertscore")
    >>> out = bertscore.compute(sources=["He go to school yesterday ."],
    ...                         predictions=["He went to school yesterday ."],
    ...                         references=[["He went to school yesterday .", "He goes to school ."]],
    ...                         model="minilm", layer=6, rescale_with_baseline=False)
    >>> round(out["bertscore"], 4)
    1.0
""",
        codebase_urls=("https://github.com/Tiiiger/bert_score", "https://github.com/gotutiyan/gec-metrics"),
        reference_urls=("https://openreview.net/forum?id=SkeHuCVFDr",),
    ),
    space=SpaceText(
        intro=(
            "# BERTScore\nBERTScore as gec-metrics' `bertscore` computes it: every token of the hypothesis matched "
            "with its most similar reference token (cosine of one layer's contextual embeddings) gives the "
            "precision, the reverse the recall, and F1 of the two; the best reference per measure, rescaled with "
            "bert_score's baseline (gec-metrics' default, for models bert_score has one for); the corpus score is "
            "the mean over sentences. `minilm` runs offline (no baseline: rescaling off). See the metric card "
            "([Zhang et al., ICLR 2020](https://openreview.net/forum?id=SkeHuCVFDr))."
        ),
        sentence_examples=REFERENCE_EXAMPLES,
        # The offline MiniLM first (no bert_score baseline: rescaling off); gec-metrics' default needs the Hub.
        settings=(
            Control("model", "Model", "encoder: hub id or local path",
                    models=(("minilm", 6), ("bert-base-uncased", 9))),
            Control("score_type", "Measure", "p precision, r recall, f F1"),
            Control("rescale_with_baseline", "Rescale with baseline",
                    "bert_score's baseline (bert-base-uncased: gec-metrics' default; none for minilm)", value=False),
        ),
        source_label="Source (tokenised)",
        score_key="bertscore",
    ),
)
