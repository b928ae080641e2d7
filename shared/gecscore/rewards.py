"""Our metrics as reward functions for TRL: `GRPOTrainer(reward_funcs=[reward_function("uot_errant", ...)])`.

`reward_function(metric, **options)` returns a `GECReward`, a callable with TRL's reward signature: `prompts`,
`completions` and the dataset's other columns as keyword lists (one entry per completion; TRL repeats a prompt's
columns for each of its G completions), plus TRL's `log_metric`/`log_extra` hooks when it passes them. It returns
one float in [0, 1] per completion: the metric's sentence score (`docs/training.md` says which quantity for each
metric) mapped from the metric's declared interval (`MetricSpec.sentence_range`; Scribendi's −1/0/1 becomes
0/0.5/1).

Defaults differ from `compute` where model output needs them, each one an option the user may turn off:
`robust=True` (an empty completion scores as the unchanged source, scores stay in range, perfect corrections score
1), `tokenize=True` (completions are raw, detokenised text; sources and references are spaCy-tokenised the same
way) and `normalize=True` (invisible characters removed, NFC): `gecscore.sentence_scorer.MODEL_OUTPUT_DEFAULTS`,
the same as reranking's. Two kinds of failure are never confused (docs/bad-input.md). A completion nobody could
score (not text at all: None, a number, a nested list; a control character, invalid Unicode, more than `max_tokens`
tokens, a rewrite longer than `max_changed_run`) gets reward 0 and is flagged with its index, never an exception. A
misconfiguration raises when the reward is built: an unknown metric or option, a model that cannot be loaded, a
corpus-dependent setting, and whatever makes the metric fail on a built-in example (a missing layer or baseline, a
bad `beta`); a missing dataset column or a references cell that is not a string or a list of strings raises at the
first call, naming the column and the row; a batch whose rows are all refused for one reason raises, naming it.

Each call logs, through TRL's `log_metric`, the share of completions in each degenerate class
(`gecscore/<name>/<reason>`), and keeps the last batch's records in `last_degenerate`.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

from gecscore import registry
from gecscore.common.inputs import TextHygieneWarning, check_references, check_texts
from gecscore.sentence_scorer import MODEL_OUTPUT_DEFAULTS, ScoredBatch, SentenceScorer, options_with

__all__ = ["GECReward", "reward_function", "completion_text", "REWARD_DEFAULTS"]

#: What a reward sets unless the user does: model output is raw text and must never stop training (the same
#: defaults as reranking's, `gecscore.sentence_scorer.MODEL_OUTPUT_DEFAULTS`).
REWARD_DEFAULTS = MODEL_OUTPUT_DEFAULTS


def completion_text(completion: Any) -> str:
    """The text of one completion: a string as it is; a conversational completion (a list of messages) the
    content of its assistant messages joined by spaces, where a content may be a list of parts
    (`{"type": "text", "text": ...}`)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, (list, tuple)):
        raise TypeError(f"a completion must be a string or a list of messages, got {type(completion).__name__}")
    texts = []
    for message in completion:
        if not isinstance(message, dict) or "content" not in message:
            raise TypeError(f"a conversational completion must be a list of {{'role', 'content'}} messages, got "
                            f"{message!r}")
        if message.get("role", "assistant") != "assistant":
            continue
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, (list, tuple)):
            texts += [part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"]
        elif content is not None:
            raise TypeError(f"a message's content must be text or a list of parts, got {type(content).__name__}")
    return " ".join(texts)


class GECReward:
    """A TRL reward function over one gecscore metric (see the module docstring); built by `reward_function`."""

    def __init__(self, metric: str, *, source: str = "source", references: str | None = "references",
                 name: str | None = None, **options: Any) -> None:
        self.metric = metric
        options = options_with(REWARD_DEFAULTS, metric, options)
        self.scorer = SentenceScorer(metric, lenient=True, **options)
        self.source_column = source
        self.references_column = None if self.scorer.reference_free else references
        if not self.scorer.reference_free and not references:
            raise ValueError(f"{metric} needs references: name the dataset column that holds them (`references=`)")
        self.__name__ = name or f"gecscore_{metric}"
        self.calls = 0
        self.last_degenerate: list[dict[str, Any]] = []
        self._hygiene_silent = bool(options.get("normalize", False))

    @property
    def signature(self) -> str | None:
        """The signature of the last batch scored (metric, options, `robust`, versions)."""
        return self.scorer.signature

    def __call__(self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                 **columns: Any) -> list[float]:
        """One reward in [0, 1] per completion."""
        if completions is None:
            raise TypeError("the reward needs `completions` (TRL passes prompts, completions and the dataset columns)")
        texts: list[str] = []
        unreadable: dict[int, str] = {}
        for i, completion in enumerate(completions):
            try:
                texts.append(completion_text(completion))
            except TypeError as error:  # model output of the wrong shape: this row's fault, not the setup's
                texts.append("")
                unreadable[i] = f"completion {i} is not text: {error}"
        sources = self._column(columns, self.source_column, len(texts))
        references = None
        if self.references_column is not None:
            references = check_references(self._column(columns, self.references_column, len(texts)), len(texts),
                                          name=self.references_column)
        batch = self._score(sources, texts, references, unreadable)
        self.calls += 1
        self.last_degenerate = batch.degenerate
        self._log(batch, columns.get("log_metric"), columns.get("log_extra"))
        return batch.values

    def _score(self, sources: list[str], texts: list[str], references: list[list[str]] | None,
               unreadable: dict[int, str]) -> ScoredBatch:
        with warnings.catch_warnings():
            if self._hygiene_silent:  # normalised as documented; a warning per step would drown the log
                warnings.simplefilter("ignore", TextHygieneWarning)
            return self.scorer.score(sources, texts, references, refused=unreadable)

    def _column(self, columns: dict[str, Any], name: str, n: int) -> list[str]:
        if name not in columns:
            given = sorted(k for k in columns if k not in ("trainer_state", "log_metric", "log_extra",
                                                          "completion_ids", "environments"))
            raise ValueError(f"{self.__name__}: the dataset has no column {name!r} (columns passed to the reward: "
                           f"{given}); name the right one with reward_function(..., "
                           f"{'source' if name == self.source_column else 'references'}=COLUMN)")
        values = columns[name]
        if len(values) != n:
            raise ValueError(f"{self.__name__}: column {name!r} has {len(values)} values for {n} completions")
        return check_texts(name, values) if name == self.source_column else list(values)

    def _log(self, batch: ScoredBatch, log_metric: Callable[[str, float], None] | None,
             log_extra: Callable[[str, list], None] | None) -> None:
        if log_metric is not None:
            n = max(1, len(batch.values))
            counts = batch.counts()
            for reason in sorted(counts):
                log_metric(f"gecscore/{self.metric}/{reason.replace(' ', '_')}", counts[reason] / n)
            log_metric(f"gecscore/{self.metric}/degenerate", len({r["index"] for r in batch.degenerate}) / n)
        if log_extra is not None:
            reasons: list[list[str]] = [[] for _ in batch.values]
            for record in batch.degenerate:
                reasons[record["index"]].append(record["reason"])
            log_extra(f"{self.__name__}_flags", [", ".join(r) for r in reasons])


def reward_function(metric: str, *, source: str = "source", references: str | None = "references",
                    name: str | None = None, **options: Any) -> GECReward:
    """A TRL reward function: `metric` (a registry name) with `options`, the sources read from dataset column
    `source` and the references (a string or a list of strings per row) from `references`; `name` is what TRL logs
    it as (default `gecscore_<metric>`). Robust, tokenising and normalising unless `options` say otherwise."""
    registry.spec(metric)  # an unknown metric fails here, naming the choices
    return GECReward(metric, source=source, references=references, name=name, **options)
