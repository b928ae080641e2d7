"""One metric's sentence scores as numbers in [0, 1], for batches of independent sentences: the core of the TRL
rewards (`gecscore.rewards`), n-best reranking and MBR (`gecscore.reranking`) and dataset scoring
(`gecscore.dataset_scoring`).

`SentenceScorer(metric, **options)` checks everything that can be checked before the first batch: the metric's name
and options (the registry's schema), that its statistics do not depend on the rest of the corpus (the rule
`gecscore.sharding` applies) nor on other systems, and that its models can be loaded. `score(sources, predictions,
references)` then gathers the statistics of the batch's distinct (source, prediction, references) rows in one run
(the input layer, edits, encoder forwards: `registry.statistics_systems`) and scores each row as a corpus of its own
(`registry.score` of that row's statistics, which reports nothing): a row's value is its sentence record's `score`
when it is scored alone, so it never depends on the batch. That matters where the records of a full run choose a
sentence's reference greedily, given the sentences before it (M², corpus-level PT-ERRANT and CLEME): alone, a
sentence takes its own best reference. The scores are then mapped from the metric's declared interval
(`MetricSpec.sentence_range`) onto [0, 1].

Repeated work is not repeated: the ERRANT parses and edit lists and the encoder outputs of the metrics live in
bounded LRU caches of the process (`gecscore.common.edits`, `gecscore.common.encoders`), so a source or reference
seen in an earlier batch is neither parsed nor encoded again, and duplicate rows within a batch are scored once.

`lenient=True` (the mode of rewards and reranking) is for model output nobody has checked: a prediction that the
input layer would refuse (a control character, text that is not valid Unicode, more tokens than `max_tokens`, a
change run longer than `max_changed_run`), one the caller could not read as text (`refused=`), or one that makes the
metric refuse its row, gets the lowest value, 0, and a record saying why; whitespace runs (newlines, tabs) become
single spaces first. Without it, such input raises as in `registry.run`.

Two kinds of failure are never confused (docs/bad-input.md). A row is refused only for what is wrong with its
prediction. What would fail every row is an error:

* at construction: the options against the schema, the models' loadability, and a probe, a tiny built-in example
  scored through the real metric, so that a missing layer or baseline, a bad `beta` or a model that cannot run
  fails before the first batch (not for LLM-S/E, whose probe would be a paid call: `MetricSpec.probe`);
* at a call: a row the metric refuses is scored again with its own source as the prediction; when that control row
  is refused too, the fault is the row's data or the setup, not the model output, and the call raises naming the
  row. And when every distinct row of a call (two or more) is refused for one and the same reason (numbers and
  quoted text aside), the call raises with that reason instead of returning a batch of zeros.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gecscore import registry, sharding
from gecscore.common.inputs import check_clean, check_clean_groups, control_character, longest_changed_run
from gecscore.common.results import CLIPPED, NO_SCORE, REFUSED, flag

__all__ = ["MODEL_OUTPUT_DEFAULTS", "ScoredBatch", "SentenceScorer", "options_with"]

#: What rewards and reranking set unless the user does (one default for model output, recorded in the signature):
#: model output is raw, detokenised text (`tokenize`; sources and references are tokenised the same way), may hold
#: invisible characters (`normalize`) and must be scored on the metric's robust scale (`robust`: an empty output
#: scores as the unchanged source, perfect is 1, scores stay in range).
MODEL_OUTPUT_DEFAULTS = {"robust": True, "tokenize": True, "normalize": True}


@dataclass
class ScoredBatch:
    """One batch's values in [0, 1] (one per row), the metric's own sentence scores (None for a refused row) and
    the degenerate-sentence records (batch indices, the input layer's, the metric's and the scorer's own:
    `refused`, `clipped`, `no score`)."""

    values: list[float]
    scores: list[float | None]
    degenerate: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """How many rows carry each degenerate reason."""
        out: dict[str, int] = {}
        for record in self.degenerate:
            out[record["reason"]] = out.get(record["reason"], 0) + 1
        return out


class SentenceScorer:
    """Sentence scores of one metric with fixed options, mapped onto [0, 1]; see the module docstring."""

    def __init__(self, metric: str, *, lenient: bool = False, **options: Any) -> None:
        self.metric = metric
        self.spec = registry.spec(metric)
        self.options = dict(options)
        self.lenient = lenient
        checked = registry.check_options(metric, self.options)
        if any(checked.get(key) is not None for key in self.spec.replaces_sentences):
            raise ValueError(f"{metric}: M2-file input ({', '.join(self.spec.replaces_sentences)}) cannot be scored "
                             "sentence by sentence here; pass sentence lists")
        try:
            resolved = sharding.plan(metric, self.options).resolved
        except sharding.NotShardableError as error:
            raise ValueError(f"{error}: its sentence scores depend on the whole corpus, so they cannot be computed "
                             "batch by batch") from None
        for option, values in self.spec.several_systems:
            if resolved.get(option) in values:
                raise ValueError(f"{metric}: {option}={resolved[option]!r} takes its numbers from several systems "
                                 "scored together, so one system's sentences cannot be scored batch by batch")
        self.robust = bool(resolved.get("robust", False))
        self.max_tokens = resolved.get("max_tokens")
        self.max_changed_run = resolved.get("max_changed_run")
        self.low, self.high = self.spec.sentence_range(self.robust)
        registry.runner(metric).check_models(checked)
        self.signature: str | None = None
        if self.spec.probe:
            self._probe()

    @property
    def reference_free(self) -> bool:
        """Does the metric score without references?"""
        return self.spec.reference_free

    def score(self, sources: Sequence[str], predictions: Sequence[str],
              references: Sequence[Sequence[str]] | None = None, *,
              refused: Mapping[int, str] | None = None) -> ScoredBatch:
        """Values in [0, 1] of every row (see the module docstring); `references` holds one list per row; lenient,
        `refused` names rows whose prediction the caller could not read as text (their `predictions` entry is
        ignored), with the reason."""
        n = len(predictions)
        if len(sources) != n or (references is not None and len(references) != n):
            raise ValueError(f"{n} predictions, {len(sources)} sources"
                             + ("" if references is None else f", {len(references)} reference groups"))
        if refused and not self.lenient:
            raise ValueError("`refused` rows are for lenient scoring (model output)")
        refused = dict(refused or {})
        if self.lenient:  # the data must be right (errors name the row); only the predictions are model output
            check_clean("sources", sources, normalize=False, max_tokens=self.max_tokens, found=[])
            check_clean_groups(references or [], normalize=False, max_tokens=self.max_tokens, found=[])
            predictions = ["" if i in refused else " ".join(text.split()) for i, text in enumerate(predictions)]
            refused.update({i: why for i, (src, text) in enumerate(zip(sources, predictions))
                            if i not in refused and (why := self.refusal(src, text)) is not None})
        rows: dict[tuple[Any, ...], int] = {}
        for i in range(n):
            if i not in refused:
                rows.setdefault(self._key(sources, predictions, references, i), i)
        firsts = list(rows.values())
        scored, records = self._score_rows(sources, predictions, references, firsts, refused)
        scores: list[float | None] = [None] * n
        values = [0.0] * n
        degenerate: list[dict[str, Any]] = []
        whys: list[str] = []
        for i in range(n):
            first = i if i in refused else rows[self._key(sources, predictions, references, i)]
            if first in refused:  # refused before scoring, or by the metric (then for every copy of the row)
                degenerate.append(flag(i, REFUSED, why=refused[first]))
                whys.append(refused[first])
                continue
            score = scored[first]
            scores[i] = score
            degenerate += [{**record, "index": i} for record in records.get(first, [])]
            if score is None or not math.isfinite(score):
                degenerate.append(flag(i, NO_SCORE, score=score))
                continue
            value = (score - self.low) / (self.high - self.low)
            if not 0.0 <= value <= 1.0:
                degenerate.append(flag(i, CLIPPED, score=score, range=[self.low, self.high]))
                value = min(1.0, max(0.0, value))
            values[i] = value
        if len(whys) == n:
            self.check_reasons(whys, len({self._key(sources, predictions, references, i) for i in range(n)}))
        return ScoredBatch(values, scores, degenerate)

    # -----------------------------------------------------------------------------------------------

    @staticmethod
    def _key(sources: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]] | None,
             i: int) -> tuple[Any, ...]:
        refs = () if references is None else tuple(references[i])
        return sources[i], predictions[i], refs

    def refusal(self, source: str, text: str) -> str | None:
        """Why the input layer would refuse `text` as a prediction of `source` (None: it would not)."""
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            return f"not valid Unicode text (a lone surrogate at column {error.start + 1})"
        problem = control_character(text)
        if problem is not None:
            return f"control character {problem[1]} at column {problem[0]}"
        length = len(text.split())
        if self.max_tokens is not None and length > self.max_tokens:
            return f"{length} tokens, more than max_tokens={self.max_tokens}"
        if self.max_changed_run is not None and not self.reference_free:
            run = longest_changed_run(source, text) if length > self.max_changed_run else 0
            if run > self.max_changed_run:
                return f"changes {run} consecutive tokens, more than max_changed_run={self.max_changed_run}"
        return None

    def _probe(self) -> None:
        """Score the built-in example through the real metric: whatever fails there fails every row."""
        try:
            self._run([_PROBE[0]], [_PROBE[1]], None if self.reference_free else [[_PROBE[2]]], [0])
        except (ValueError, TypeError, OSError, RuntimeError) as error:
            raise ValueError(f"{self.metric} cannot score a sentence with these options ({_options(self.options)}): "
                             f"{error}") from error

    def _score_rows(self, sources: Sequence[str], predictions: Sequence[str],
                    references: Sequence[Sequence[str]] | None, rows: list[int], refused: dict[int, str]
                    ) -> tuple[dict[int, float | None], dict[int, list[dict[str, Any]]]]:
        """Sentence score and degenerate records of each row index in `rows`. Lenient: when the metric refuses the
        batch, each row is scored alone and the rows it refuses join `refused`, unless the metric refuses the
        row's control too (its source as the prediction): then the row's data or the setup is at fault."""
        try:
            return self._run(sources, predictions, references, rows)
        except ValueError as error:
            if not self.lenient:
                raise
            if len(rows) == 1:  # the batch was this one row: its error is the row's, no second run needed
                self._check_control(sources, references, rows[0])
                refused[rows[0]] = f"the metric refused it: {error}"
                return {}, {}
        scores: dict[int, float | None] = {}
        records: dict[int, list[dict[str, Any]]] = {}
        for i in rows:
            try:
                one_scores, one_records = self._run(sources, predictions, references, [i])
            except ValueError as error:
                self._check_control(sources, references, i)
                refused[i] = f"the metric refused it: {error}"
                continue
            scores.update(one_scores)
            records.update(one_records)
        return scores, records

    def _check_control(self, sources: Sequence[str], references: Sequence[Sequence[str]] | None, i: int) -> None:
        """Raise, naming row `i`, when the metric refuses the row with its own source as the prediction."""
        try:
            self._run([sources[i]], [sources[i]], None if references is None else [references[i]], [0])
        except ValueError as error:
            raise ValueError(f"row {i}: the metric refuses this row whatever the prediction (its source as the "
                             f"prediction too), so the row's source or references or the options are at fault, "
                             f"not the model output: {error}") from error

    def check_reasons(self, whys: Sequence[str], distinct: int) -> None:
        """Raise when the refusals `whys` of every row of a batch with two or more `distinct` rows give one reason:
        a setup mistake, not model output."""
        if distinct >= 2 and len({_REASON_DETAIL.sub("…", why) for why in whys}) == 1:
            raise ValueError(f"{self.metric}: every row of the batch ({len(whys)}) was refused for the same reason, "
                             "which points at the setup (options, tokenisation, data), not at the model output: "
                             f"{whys[0]}")

    def _run(self, sources: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]] | None,
             rows: list[int]) -> tuple[dict[int, float | None], dict[int, list[dict[str, Any]]]]:
        if not rows:
            return {}, {}
        refs = None if references is None else [list(references[i]) for i in rows]
        stats = registry.statistics_systems(self.metric, [sources[i] for i in rows],
                                            {"batch": [predictions[i] for i in rows]}, refs, **self.options)["batch"]
        scores: dict[int, float | None] = {}
        records: dict[int, list[dict[str, Any]]] = {}
        for position, i in enumerate(rows):  # each sentence alone: its own reference choice, whatever the batch
            result = registry.score(self.metric, stats.take([position]))
            scores[i] = _number(result.sentences[0]["score"])
            records[i] = [dict(record) for record in result.details.get("degenerate_sentences", [])]
            self.signature = result.signature
        return scores, records


#: The probe: a source, a correction of it and its reference, whitespace-tokenised (scorable with any options).
_PROBE = ("He go to school every day .", "He goes to school every day .", "He goes to school every day .")
#: What varies between two refusals for one reason: numbers, quoted and backticked text.
_REASON_DETAIL = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|U\+[0-9A-F]+|\d+(?:\.\d+)?")


def _options(options: Mapping[str, Any]) -> str:
    """Keyword options as the user wrote them."""
    return ", ".join(f"{key}={value!r}" for key, value in options.items()) or "the defaults"


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def options_with(defaults: Mapping[str, Any], metric: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` with those of `defaults` and of the metric's `training_defaults` (`MetricSpec`) that `metric` takes
    and the caller did not set."""
    allowed = registry.allowed_options(metric)
    merged = {**defaults, **dict(registry.spec(metric).training_defaults)}
    return {**{k: v for k, v in merged.items() if k in allowed}, **options}
