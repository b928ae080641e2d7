"""GLEU: n-gram precision against a reference, less the n-grams kept from the source that the reference changed.

The default variant is the official GLEU+ script of Napoles et al. (keisks/jfleg `eval/gleu.py`), the one JFLEG
results are reported with: 500 seeded draws of one reference per sentence, the mean of their corpus GLEU, with the
draws' spread and a normal 95% interval. `variant='gec-metrics'` is gec-metrics' `gleu`, the same metric in GREEN's
reformulation (`reformulated.py`), which scores differently. `metric.py` gathers the n-gram statistics and scores
them; `counting.py` counts k-grams (per sentence, and for a whole run with arrays); `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.examples import LANGUAGE_EXAMPLES, REFERENCE_EXAMPLES
from gecscore.common.options import Control, MetricSpec, Option, ScriptText, SpaceText, input_options, language_option
from gecscore.gleu import space as _space

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = {**dict.fromkeys(("DrawnGLEU", "GLEUStatistics", "Rules", "gleu", "gleu_rows", "reference_draws",
                            "sentence_counts", "statistic_names"), "metric"), "ngram_counts": "counting"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

#: A record's statistics with the default n = 4 (a smaller `n` lists the orders up to it).
STATISTICS = ("hyp_len", "ref_len", *(f"{kind}_{k}" for k in range(1, 5) for kind in ("match", "total")))

SPEC = MetricSpec(
    name="gleu",
    title="GLEU",
    summary="GLEU+ (Napoles et al.): n-gram precision that penalises source n-grams the reference changed, mean "
            "over 500 seeded reference draws (the official JFLEG script)",
    variants=("official", "gec-metrics"),
    runner="gecscore.gleu.metric",
    text_form="tokens",
    sentence_option="sentences",
    statistics=STATISTICS,
    sentence_fields=(
        ("gleu", "the sentence's GLEU as the script's `--sent` gives it: the mean, over its references, of its "
                 "smoothed GLEU against each; equal to `score`"),
        ("std", "the standard deviation of those per-reference values (the script's sentence spread)"),
        ("per_reference_gleu", "the smoothed sentence GLEU against every reference, in order"),
        ("draws", "how many of the corpus iterations drew each reference for this sentence"),
    ),
    options=(
        Option("variant", "str", "official", "'official': the GLEU+ script of keisks/jfleg (ee06ff8), exactly; "
               "'gec-metrics': gec-metrics 0.1.1's `gleu` (GREEN's reformulation: frequency-aware source penalty, "
               "no floor at 0, no sentence smoothing), exactly", choices=("official", "gec-metrics")),
        Option("iterations", "int", 500, "number of seeded reference draws averaged (the script's 500)", minimum=1),
        Option("seed_step", "int", 101, "iteration j draws with Python's random seeded j × seed_step (the "
               "script's 101)", minimum=0),
        Option("n", "int", 4, "highest n-gram order (the script divides the sum of log precisions by 4 whatever "
               "the order, gec-metrics by n)", minimum=1, maximum=4),
        Option("level", "str", "corpus", "'corpus': the mean corpus GLEU over the draws; 'sentence': the mean of "
               "the sentences' SentGLEU (GLEU's sentence-level system score, as CLEME2.0 and PT-M2 report "
               "SentGLEU)", choices=("corpus", "sentence")),
        Option("unit", "str", "word", "'word' or 'char' n-grams (gec-metrics' `unit`)", choices=("word", "char"),
               variants=("gec-metrics",)),
        language_option(),
        *input_options(errant=False),
        Option("sentences", "bool", False, "also return per-sentence records: SentGLEU, the per-reference values, "
               "the n-gram statistics (aliases `return_sentence_scores`, `sentence_scores`)", kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
    script=ScriptText(
        headline="GLEU: the official GLEU+ script of JFLEG (mean over 500 seeded reference draws), exactly (gecscore).",
        citation="""\
@inproceedings{napoles-etal-2015-ground,
    title = "Ground Truth for Grammatical Error Correction Metrics",
    author = "Napoles, Courtney and Sakaguchi, Keisuke and Post, Matt and Tetreault, Joel",
    booktitle = "Proceedings of ACL-IJCNLP 2015 (Volume 2: Short Papers)",
    year = "2015",
    pages = "588--593",
}
@article{napoles-etal-2016-gleu,
    title = "{GLEU} Without Tuning",
    author = "Napoles, Courtney and Sakaguchi, Keisuke and Post, Matt and Tetreault, Joel",
    journal = "arXiv preprint arXiv:1605.02592",
    year = "2016",
}
""",
        description="""\
GLEU (GLEU+, Napoles et al. 2015, 2016) rewards hypothesis n-grams (n = 1..4) found in a reference and penalises
those kept from the source that the reference changed, with BLEU's brevity penalty. As in the official script of
JFLEG (keisks/jfleg `eval/gleu.py`), each of 500 iterations draws one reference per sentence from Python's `random`
seeded with iteration × 101; the score is the mean corpus GLEU of the iterations, reported with their standard
deviation and a normal 95% interval. Inputs are whitespace-tokenised sentences. Higher is better.
`variant="gec-metrics"` is gec-metrics' `gleu` (GLEU in GREEN's reformulation), which scores differently.
""",
        inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more whitespace-tokenised references per source.
""",
        returns="""\
    gleu (float): the mean corpus GLEU over the seeded reference draws.
    std (float): the standard deviation of the iterations' corpus GLEU.
    script_interval (dict): the script's normal 95% interval over the reference draws, `low` = mean − 1.96 × std
        and `high` = mean + 1.96 × std (not clipped to [0, 1]), with the `method` that says so; not a confidence
        interval over sentences (`gecscore score --bootstrap N` gives that).
    iterations (int): the number of draws averaged.
    sentences (list of dict): per sentence, when requested (SentGLEU and its n-gram statistics).
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> gleu = evaluate.load("metrics/gleu")
    >>> out = gleu.compute(sources=["He go to school yesterday ."],
    ...                    predictions=["He went to school yesterday ."],
    ...                    references=[["He went to school yesterday .", "He goes to school ."]])
    >>> round(out["gleu"], 4), out["iterations"]
    (0.454, 500)
""",
        codebase_urls=("https://github.com/keisks/jfleg",),
        reference_urls=("https://aclanthology.org/P15-2097/", "https://arxiv.org/abs/1605.02592"),
    ),
    space=SpaceText(
        intro=(
            "# GLEU\nGLEU+ as the official JFLEG script computes it: n-gram precision (n = 1..4) of the hypothesis "
            "against a reference, less the n-grams it kept from the source where the reference changed them, with "
            "BLEU's brevity penalty. Each of 500 iterations draws one reference per sentence (Python's `random`, "
            "seed iteration × 101); the score is the mean corpus GLEU, with the spread of the iterations. A single "
            "sentence scores SentGLEU: the mean over its references. Inputs are whitespace-tokenised words; with "
            "Language zh, raw Chinese, every character a token. See the metric card ([Napoles et al., ACL "
            "2015](https://aclanthology.org/P15-2097/))."
        ),
        sentence_examples=REFERENCE_EXAMPLES,
        setting_examples=LANGUAGE_EXAMPLES,
        settings=(
            Control("variant", "Variant", "the official script, or gec-metrics' `gleu`"),
            Control("iterations", "Iterations", "reference draws averaged"),
            Control("seed_step", "Seed step", "iteration j seeds j × step"),
            Control("n", "n-gram order", ""),
            Control("language", "Language", "zh: every character a token; any other language code may be "
                    "typed in (whitespace-separated words)"),
        ),
        source_label="Source (tokenised)",
        sentence_view=_space.sentence_view,
        corpus_row=_space.corpus_row,
    ),
)
