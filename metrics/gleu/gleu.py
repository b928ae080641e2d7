"""GLEU: the official GLEU+ script of JFLEG (mean over 500 seeded reference draws), exactly (gecscore).

Generated from `gecscore.gleu.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
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
"""

_DESCRIPTION = """\
GLEU (GLEU+, Napoles et al. 2015, 2016) rewards hypothesis n-grams (n = 1..4) found in a reference and penalises
those kept from the source that the reference changed, with BLEU's brevity penalty. As in the official script of
JFLEG (keisks/jfleg `eval/gleu.py`), each of 500 iterations draws one reference per sentence from Python's `random`
seeded with iteration × 101; the score is the mean corpus GLEU of the iterations, reported with their standard
deviation and a normal 95% interval. Inputs are whitespace-tokenised sentences. Higher is better.
`variant="gec-metrics"` is gec-metrics' `gleu` (GLEU in GREEN's reformulation), which scores differently.
"""

_KWARGS_DESCRIPTION = kwargs_description("gleu", inputs="""\
    sources (list of str): whitespace-tokenised source sentences.
    predictions (list of str): whitespace-tokenised corrected sentences, one per source.
    references (list of list of str): one or more whitespace-tokenised references per source.
""", returns="""\
    gleu (float): the mean corpus GLEU over the seeded reference draws.
    std (float): the standard deviation of the iterations' corpus GLEU.
    script_interval (dict): the script's normal 95% interval over the reference draws, `low` = mean − 1.96 × std
        and `high` = mean + 1.96 × std (not clipped to [0, 1]), with the `method` that says so; not a confidence
        interval over sentences (`gecscore score --bootstrap N` gives that).
    iterations (int): the number of draws averaged.
    sentences (list of dict): per sentence, when requested (SentGLEU and its n-gram statistics).
    degenerate_sentences (list of dict): the flagged sentences.
    signature (str): the versions and settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> gleu = evaluate.load("metrics/gleu")
    >>> out = gleu.compute(sources=["He go to school yesterday ."],
    ...                    predictions=["He went to school yesterday ."],
    ...                    references=[["He went to school yesterday .", "He goes to school ."]])
    >>> round(out["gleu"], 4), out["iterations"]
    (0.454, 500)
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Gleu(GECMetric):
    """GLEU as an evaluate metric."""

    NAME = "gleu"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/keisks/jfleg"],
            reference_urls=["https://aclanthology.org/P15-2097/", "https://arxiv.org/abs/1605.02592"],
        )

    def _compute(self, sources, predictions, references=None, *, variant="official", iterations=500, seed_step=101, n=4,
                 level="corpus", unit="word", language="en", robust=False, tokenize=False, normalize=False,
                 max_tokens=700, sentences=False, progress=False):
        return self.score(sources, predictions, references, locals())
