"""LLM-S and LLM-E (Kobayashi, Mita & Komachi 2024): a large language model scores several corrections of one
source from 1 to 5, judging whole sentences (LLM-S) or their edits (LLM-E), with the published prompts.

Read top-down: `metric.py` (targets per source → prompt → answer → scores → mean; the paper's system ranking,
TrueSkill over the judge's pairwise wins), `judge.py` (the pure core: the published prompts as data, target
selection, prompt, reading the answer), `backends.py` (an OpenAI-compatible endpoint or a local Hugging Face causal
LM). `SPEC` declares the options once.
"""

from gecscore.common.exports import lazy_exports
from gecscore.common.options import MetricSpec, Option, ScriptText, input_options

# The public interface beyond SPEC: name -> module of this package.
_EXPORTS = {**dict.fromkeys(("JudgeStatistics", "judge_systems", "judged_pairs", "system_ranking"),
                             "metric"),
            **dict.fromkeys(("Reading", "build_prompt", "edit_form", "read_scores", "select_targets",
                             "template_for"), "judge"),
            **dict.fromkeys(("ChatEndpoint", "EndpointError", "LocalModel"), "backends")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["SPEC", *_EXPORTS]

SPEC = MetricSpec(
    name="llm_kobayashi24",
    title="LLM-S/E",
    summary="an LLM scores several corrections of each source from 1 to 5 with the published prompts of "
            "Kobayashi et al. 2024 (LLM-S: sentences, LLM-E: edits); mean over the judged sentences",
    variants=("sent", "edit"),
    runner="gecscore.llm_kobayashi24.metric",
    reference_free=True,
    published_score_range=(1.0, 5.0),
    probe=False,  # a probe would be a call to the judge; a batch refused for one reason is an error instead
    sentence_option="sentence_scores",
    sentence_fields=(
        ("judgement", "the LLM's 1-5 score of the sentence (None: not judged or its answer unreadable; see "
                      "`degenerate_sentences`)"),
        ("targets", "how many distinct corrections of the source were judged together"),
    ),
    options=(
        Option("variant", "str", "sent", "'sent': LLM-S, the corrected sentences are shown; 'edit': LLM-E, their "
               "ERRANT edits are shown", choices=("sent", "edit")),
        Option("backend", "str", "endpoint", "'endpoint': an OpenAI-compatible chat-completions endpoint "
               "(`base_url`, `api_key`); 'local': a Hugging Face causal LM, greedy decoding",
               choices=("endpoint", "local")),
        Option("model", "str", None, "the judge (None: gpt-4o-mini-2024-07-18 at the endpoint, "
               "meta-llama/Llama-2-13b-chat-hf locally, gec-metrics' defaults)", nullable=True),
        Option("base_url", "str", None, "the endpoint's base URL (None: https://api.openai.com/v1)", nullable=True),
        Option("api_key", "str", None, "the endpoint's key (None: $OPENAI_API_KEY); never recorded", nullable=True,
               kind="output"),
        Option("timeout", "float", 120.0, "seconds the endpoint may take to accept a request and to send each part of "
               "its answer (the scores do not depend on it)", minimum=0, exclusive_minimum=True),
        Option("retries", "int", 0, "how many times a request that times out, cannot connect or is answered HTTP "
               "429 or 5xx is sent again, waiting 1, 2, 4... s in between (the scores do not depend on it)",
               minimum=0),
        Option("answer_cache", "str", None, "a folder for an on-disk cache of the judge's answers, keyed by the "
               "whole request (endpoint, model, prompt, seed, answer format; a local model's files and decoding): a "
               "re-run asks only what is new (None: no cache; the scores do not depend on it)", nullable=True,
               kind="output"),
        Option("judge_seed", "int", 777, "the `seed` sent to the endpoint with every request (gec-metrics' 777)"),
        Option("criterion", "str", None, "a criterion sentence added to LLM-E's prompt: 'difficulty' or 'impact' "
               "(gec-metrics' `criteria`; LLM-S's template has no place for one)", nullable=True,
               choices=("difficulty", "impact")),
        Option("max_new_tokens", "int", 64, "the most tokens a local model may answer with", minimum=1),
        Option("decoding", "str", "free", "a local model's answer: 'free' (greedy generation, as the paper's judges "
               "answer) or 'constrained' (the answer format filled with the model's most likely score of 1..5 for "
               "each correction: never unreadable)", choices=("free", "constrained")),
        Option("device", "device", None, "'cpu', 'cuda', 'cuda:1', 'mps' for a local model (None: cuda when "
               "available)", nullable=True),
        Option("revision", "str", None, "hub revision of a local model", nullable=True),
        *input_options(errant=False, tokenize="spaCy-tokenise sources and predictions first (LLM-E's edits are "
                       "extracted from whitespace tokens)",
                       robust="a sentence scores (s - 1) / 4 in [0, 1], and one not judged or whose answer cannot "
                              "be read scores 0"),
        Option("sentence_scores", "bool", False, "also return the per-sentence scores (aliases "
               "`return_sentence_scores`, `sentences`)", kind="output"),
        Option("progress", "bool", False, "show a progress bar", kind="output"),
    ),
    script=ScriptText(
        headline=("LLM-S / LLM-E: an LLM scores several corrections of each source from 1 to 5 with the published "
                  "prompts of Kobayashi et al. 2024 (gecscore)."),
        citation="""\
@inproceedings{kobayashi-etal-2024-large,
    title = "Large Language Models Are State-of-the-Art Evaluator for Grammatical Error Correction",
    author = "Kobayashi, Masamune and Mita, Masato and Komachi, Mamoru",
    booktitle = "Proceedings of the 19th Workshop on Innovative Use of NLP for Building Educational Applications",
    year = "2024",
    pages = "68--77",
}
""",
        description="""\
LLM-S and LLM-E (Kobayashi, Mita & Komachi 2024) ask a large language model to score, from 1 to 5, the corrections
that several systems made of one source: up to five distinct corrections per prompt, shown as sentences (LLM-S) or
as their ERRANT edits (LLM-E), with the published prompts. The judge is an OpenAI-compatible chat-completions
endpoint or a local Hugging Face causal LM. A sentence scores its correction's 1-5 score; the corpus score is the mean
over the judged sentences. Answers that cannot be read are flagged, never scored. Higher is better.
""",
        inputs="""\
    sources (list of str): source sentences.
    predictions (list of str): corrected sentences, one per source.
""",
        returns="""\
    score (float): the mean 1-5 score over the judged sentences (robust: the mean of (s - 1) / 4 over all).
    sentence_scores (list of float): per sentence, when requested (NaN where no score was read).
    degenerate_sentences (list of dict): sentences not judged or whose answer could not be read, with the reason.
    signature (str): the judge (backend, model) and the settings that produced the score.
""",
        examples="""\
    >>> import evaluate
    >>> judge = evaluate.load("metrics/llm_kobayashi24")
    >>> out = judge.compute(sources=["He go to school ."], predictions=["He goes to school ."],
    ...                     base_url="http://127.0.0.1:8000/v1", api_key="...", model="my-judge")  # doctest: +SKIP
""",
        codebase_urls=("https://github.com/gotutiyan/gec-metrics",),
        reference_urls=("https://aclanthology.org/2024.bea-1.6/",),
    ),
)
