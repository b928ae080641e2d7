"""LLM-S / LLM-E: an LLM scores several corrections of each source from 1 to 5 with the published prompts of Kobayashi
et al. 2024 (gecscore).

Generated from `gecscore.llm_kobayashi24.SPEC` by `make generate`: edit the SPEC, not this file.
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = """\
@inproceedings{kobayashi-etal-2024-large,
    title = "Large Language Models Are State-of-the-Art Evaluator for Grammatical Error Correction",
    author = "Kobayashi, Masamune and Mita, Masato and Komachi, Mamoru",
    booktitle = "Proceedings of the 19th Workshop on Innovative Use of NLP for Building Educational Applications",
    year = "2024",
    pages = "68--77",
}
"""

_DESCRIPTION = """\
LLM-S and LLM-E (Kobayashi, Mita & Komachi 2024) ask a large language model to score, from 1 to 5, the corrections
that several systems made of one source: up to five distinct corrections per prompt, shown as sentences (LLM-S) or
as their ERRANT edits (LLM-E), with the published prompts. The judge is an OpenAI-compatible chat-completions
endpoint or a local Hugging Face causal LM. A sentence scores its correction's 1-5 score; the corpus score is the mean
over the judged sentences. Answers that cannot be read are flagged, never scored. Higher is better.
"""

_KWARGS_DESCRIPTION = kwargs_description("llm_kobayashi24", inputs="""\
    sources (list of str): source sentences.
    predictions (list of str): corrected sentences, one per source.
""", returns="""\
    score (float): the mean 1-5 score over the judged sentences (robust: the mean of (s - 1) / 4 over all).
    sentence_scores (list of float): per sentence, when requested (NaN where no score was read).
    degenerate_sentences (list of dict): sentences not judged or whose answer could not be read, with the reason.
    signature (str): the judge (backend, model) and the settings that produced the score.
""", examples="""\
    >>> import evaluate
    >>> judge = evaluate.load("metrics/llm_kobayashi24")
    >>> out = judge.compute(sources=["He go to school ."], predictions=["He goes to school ."],
    ...                     base_url="http://127.0.0.1:8000/v1", api_key="...", model="my-judge")  # doctest: +SKIP
""")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class LlmKobayashi24(GECMetric):
    """LLM-S/E as an evaluate metric."""

    NAME = "llm_kobayashi24"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls=["https://github.com/gotutiyan/gec-metrics"],
            reference_urls=["https://aclanthology.org/2024.bea-1.6/"],
        )

    def _compute(self, sources, predictions, references=None, *, variant="sent", backend="endpoint", model=None,
                 base_url=None, api_key=None, timeout=120.0, retries=0, answer_cache=None, judge_seed=777,
                 criterion=None, max_new_tokens=64, decoding="free", device=None, revision=None, robust=False,
                 tokenize=False, normalize=False, max_tokens=700, sentence_scores=False, progress=False):
        return self.score(sources, predictions, references, locals())
