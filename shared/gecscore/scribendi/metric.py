"""The Scribendi score as gec-metrics 0.1.1 computes it (docs/reference-behaviour.md, section "Scribendi").

A sentence whose prediction equals its source scores 0. For the others, a causal language model gives the
perplexity of source and prediction (each prefixed with the model's BOS token; the exponential of the mean
next-token cross-entropy over the text's tokens); the sentence scores −1 when the prediction is not less perplexing
than the source, else 1 when the larger of the token sort ratio and the Levenshtein distance ratio of source and
prediction reaches `threshold`, else −1. The corpus score is the sum.

The ratios are those of gec-metrics: fuzzywuzzy's `token_sort_ratio` (ASCII-folded, lower-cased, alphanumeric
tokens sorted, the rounded insert/delete similarity in percent; with python-Levenshtein installed, as gec-metrics
requires) over 100, and one minus the character insert/delete distance over the sum of the lengths. Both are
computed here with rapidfuzz's `Indel`, the same integers and the same floats.

Exactness: perplexities are computed over the changed sentences' sources, then their predictions, in corpus-order
batches of `batch_size` padded to the longest (the EOS token pads), as gec-metrics batches them, so they are the
reference's floats on the same machine. A text longer than the model's positions, which gec-metrics cannot score,
is truncated to them and flagged. An empty text has no token to predict: its perplexity is NaN, as there, so the
comparison fails and the ratios decide (an empty prediction of a non-empty source scores −1); robust=True scores
an empty prediction as the unchanged source (0).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

from gecscore.common.bootstrap import Aggregate
from gecscore.common.encoders import cannot_load, check_loadable, check_model_path, resolve_model, select_device, \
    shared_model, usable_length
from gecscore.common.progress import progress_bar
from gecscore.common.results import TRUNCATED, MetricResult, flag, merge, sentence_core
from gecscore.common.signature import make_signature
from gecscore.common.statistics import Statistics
from gecscore.common.workers import capped_torch_threads
from gecscore.scribendi import SPEC

#: The settings that change the numbers, in signature order.
SETTINGS = ("model", "threshold", "tokenize", "robust")
LM_ALTERNATIVE = "model= a local copy of GPT-2 or of another causal language model with BOS and EOS tokens"
#: fuzzywuzzy's `asciidammit` under Python 3 removes the code points 128-255 (only those).
_LATIN1 = {code: None for code in range(128, 256)}
_NOT_WORD = re.compile(r"(?ui)\W")


# ---------------------------------------------------------------------------------------------------
# Pure core


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class ScribendiStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, the two perplexities and the two
    ratios (all None where the prediction equals the source; a perplexity is NaN for an empty text)."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("source_perplexity", "prediction_perplexity", "token_sort_ratio",
                                               "levenshtein_ratio")

    source_perplexity: tuple[float | None, ...]
    prediction_perplexity: tuple[float | None, ...]
    token_sort_ratio: tuple[float | None, ...]
    levenshtein_ratio: tuple[float | None, ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now, without loading weights, the error a run with `options` would raise loading its language model."""
    opts = SPEC.resolve(options)
    check_loadable(opts["model"], role="the language model", alternative=LM_ALTERNATIVE)


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Any = None, *,
                       progress: bool = False, **options: Any) -> dict[str, ScribendiStatistics]:
    """Every system's perplexities and ratios per changed sentence (reference-free: the registry refuses
    references before this runs)."""
    opts = SPEC.resolve(options)
    lm = LanguageModel.load(opts["model"], resolve_device(opts["device"], opts["no_cuda"]))
    signature = make_signature("scribendi", {k: opts[k] for k in SETTINGS})
    out = {}
    for name, predictions in systems.items():
        fields, degenerate = system_statistics(lm, sources, predictions, batch_size=opts["batch_size"], progress=progress)
        out[name] = ScribendiStatistics(settings=opts, signature=signature, degenerate=tuple(degenerate), **fields)
    return out


def score(stats: ScribendiStatistics) -> MetricResult:
    """Each sentence's −1/0/1 at the settings' threshold and the corpus sum."""
    threshold = stats.settings["threshold"]
    sentences, values = [], []
    for fields in zip(stats.source_perplexity, stats.prediction_perplexity, stats.token_sort_ratio,
                      stats.levenshtein_ratio):
        value = float(sentence_score(*fields, threshold))
        record = sentence_core(value, None, [])
        record.update(scribendi=value, **{name: _shown(v) for name, v in zip(ScribendiStatistics.PER_SENTENCE,
                                                                              fields)})
        sentences.append(record)
        values.append(value)
    return MetricResult("scribendi", {"scribendi": float(sum(values))}, "scribendi", sentences, Aggregate(values, sum),
                        stats.signature, {"degenerate_sentences": [dict(d) for d in stats.degenerate]},
                        sentence_output=[int(v) for v in values])


# ---------------------------------------------------------------------------------------------------
# Helpers


def sorted_tokens(text: str) -> str:
    """fuzzywuzzy's `full_process(force_ascii=True)` then its tokens sorted and joined by spaces."""
    processed = _NOT_WORD.sub(" ", text.translate(_LATIN1)).lower().strip()
    return " ".join(sorted(processed.split())).strip()


def token_sort_ratio(source: str, prediction: str) -> float:
    """fuzzywuzzy's `token_sort_ratio` over 100: equal processed strings 1, one empty 0, else the insert/delete
    similarity in percent rounded to an integer (Python's `round`, halves to even)."""
    from rapidfuzz.distance import Indel

    a, b = sorted_tokens(source), sorted_tokens(prediction)
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    return int(round(100 * Indel.normalized_similarity(a, b))) / 100


def levenshtein_ratio(source: str, prediction: str) -> float:
    """1 − the character insert/delete distance (a substitution costs 2) over the sum of the lengths."""
    from rapidfuzz.distance import Indel

    return 1 - Indel.distance(source, prediction) / (len(source) + len(prediction))


def sentence_score(source_perplexity: float | None, prediction_perplexity: float | None, tsr: float | None,
                   ldr: float | None, threshold: float) -> int:
    """0 unchanged (no perplexity computed); −1 unless the perplexity dropped (a NaN compares false, as in
    gec-metrics); then 1 when max(tsr, ldr) reaches `threshold`, else −1."""
    if source_perplexity is None:
        return 0
    if source_perplexity <= prediction_perplexity:
        return -1
    return 1 if max(tsr, ldr) >= threshold else -1


# ---------------------------------------------------------------------------------------------------
# The language model


def check_language_model(tokenizer: Any, name: str) -> None:
    """Raise unless the tokenizer has the BOS token gec-metrics prefixes and the EOS token it pads with."""
    if tokenizer.bos_token is None or tokenizer.eos_token is None:
        raise ValueError(f"the tokenizer of {name!r} lacks a BOS or EOS token (bos={tokenizer.bos_token!r}, "
                         f"eos={tokenizer.eos_token!r}); Scribendi prefixes the BOS token and pads with EOS")


class LanguageModel:
    """A causal language model and its tokenizer (EOS as padding), loaded once per process."""

    def __init__(self, model: Any, tokenizer: Any, name: str) -> None:
        check_language_model(tokenizer, name)
        self.model = model
        self.tokenizer = tokenizer
        self.tokenizer.pad_token = tokenizer.eos_token  # gec-metrics pads with EOS, whatever pad token it has
        self.name = name
        self.limit = usable_length(model, tokenizer)

    @classmethod
    def load(cls, name_or_path: str, device: str) -> "LanguageModel":
        """The shared instance for (model, device), through the shared model service."""
        def load() -> LanguageModel:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            path = resolve_model(name_or_path)
            check_model_path(path, role="the language model", alternative=LM_ALTERNATIVE)
            try:
                model = AutoModelForCausalLM.from_pretrained(path)
                tokenizer = AutoTokenizer.from_pretrained(path)
            except OSError as error:
                raise cannot_load(name_or_path, error, role="the language model",
                                  alternative=LM_ALTERNATIVE) from error
            return cls(model.to(device).eval(), tokenizer, name_or_path)

        return shared_model("scribendi_lm", (resolve_model(name_or_path), device), load)

    def lengths(self, texts: Sequence[str]) -> list[int]:
        """Each text's token count with the BOS prefix, untruncated."""
        if not texts:  # a system that changed nothing (the tokenizer refuses an empty batch)
            return []
        return [len(ids) for ids in self.tokenizer([self.tokenizer.bos_token + t for t in texts],
                                                   verbose=False)["input_ids"]]

    def perplexities(self, texts: Sequence[str], *, batch_size: int, progress: bool = False) -> list[float]:
        """Each text's perplexity, BOS-prefixed, in corpus-order batches padded to the longest (NaN: no token)."""
        import torch

        prefixed = [self.tokenizer.bos_token + t for t in texts]
        encode: dict[str, Any] = {"return_tensors": "pt", "padding": True}
        if self.limit is not None:
            encode.update(truncation=True, max_length=self.limit)
        out: list[float] = []
        starts = progress_bar(range(0, len(prefixed), batch_size), desc="Scribendi", disable=not progress)
        for start in starts:
            inputs = self.tokenizer(prefixed[start:start + batch_size], **encode)
            ids = inputs["input_ids"].to(self.model.device)
            mask = inputs["attention_mask"].to(self.model.device)
            with torch.no_grad(), capped_torch_threads(str(self.model.device)):
                logits = self.model(ids, attention_mask=mask).logits[:, :-1, :].contiguous()
                labels = ids[:, 1:].contiguous()
                shift_mask = mask[:, 1:].contiguous()
                rows, length = labels.shape
                loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1),
                                                         reduction="none").view(rows, length)
                mean = (loss * shift_mask).sum(dim=1) / shift_mask.sum(dim=1)
                out += torch.exp(mean).tolist()
        return out


# ---------------------------------------------------------------------------------------------------
# The metric


def resolve_device(device: str | None, no_cuda: bool) -> str:
    """The device the language model runs on: the CPU with `no_cuda`, else `device` or CUDA when available."""
    if no_cuda:
        if device not in (None, "cpu"):
            raise ValueError(f"no_cuda=True asks for the CPU but device={device!r}; give one of them")
        return "cpu"
    return select_device(device)


def _checked(values: list[float], texts: list[str], which: str, indices: list[int], name: str) -> list[float]:
    """`values`, after refusing a NaN perplexity of a non-empty text (a broken model, not an empty sentence)."""
    for value, text, i in zip(values, texts, indices):
        if math.isnan(value) and text:
            raise ValueError(f"the language model {name!r} returned a NaN perplexity for the {which} of sentence {i}")
    return values


def system_statistics(lm: LanguageModel, sources: list[str], predictions: list[str], *, batch_size: int,
                      progress: bool) -> tuple[dict[str, tuple[float | None, ...]], list[dict[str, Any]]]:
    """One system's per-sentence fields and its TRUNCATED records."""
    changed = [i for i, (s, p) in enumerate(zip(sources, predictions)) if s != p]
    fields: dict[str, list[float | None]] = {name: [None] * len(sources)
                                             for name in ScribendiStatistics.PER_SENTENCE}
    records: list[dict[str, Any]] = []
    for which, texts in (("source", sources), ("prediction", predictions)):
        picked = [texts[i] for i in changed]
        if lm.limit is not None:
            records += [flag(i, TRUNCATED, text=which, tokens=n, limit=lm.limit)
                        for i, n in zip(changed, lm.lengths(picked)) if n > lm.limit]
        values = _checked(lm.perplexities(picked, batch_size=batch_size, progress=progress), picked, which,
                          changed, lm.name)
        for i, value in zip(changed, values):
            fields[f"{which}_perplexity"][i] = value
    for i in changed:
        fields["token_sort_ratio"][i] = token_sort_ratio(sources[i], predictions[i])
        fields["levenshtein_ratio"][i] = levenshtein_ratio(sources[i], predictions[i])
    return {name: tuple(values) for name, values in fields.items()}, merge(records)


def _shown(value: float | None) -> float | None:
    """A record's value: None for a NaN perplexity (an empty text)."""
    return None if value is None or math.isnan(value) else value


