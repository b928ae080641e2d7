"""Bad input against the training signals (rewards, reranking, dataset scoring): the cases, the entry points, the
contract, and the section of `docs/bad-input.md` that shows what the tests saw.

The contract (issue 39: two kinds of failure, never confused): what is wrong with one row of model output is
refused on that row (reward 0, a record naming the row's index and the reason; a reranker does not choose it),
and the rest of the batch is scored; what is wrong with the setup (options, models, data shape, a references cell
that is not text, a misnamed column, a source the metric cannot read, a batch refused for one reason) is an error
whose message names the option, column or row, raised when the signal is built where it can be known then.
Dataset scoring has `compute`'s semantics: its predictions are data, so a bad one is an error naming the rows.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Any

SOURCE = "He go to school yesterday ."
GOOD = "He went to school yesterday ."
MESSAGE = [{"role": "assistant", "content": GOOD}]


@dataclass(frozen=True)
class SignalCase:
    """One mistake: row 1's completion (row 0's is `first`, its source `SOURCE`, its reference `GOOD`), row 1's
    references cell and source, the options, and what each entry point must do: `row` (refused on row 1, row 0
    scored), `scored` (both rows scored) or `error` (naming one of `names`), per entry (`expect`, overridden per
    entry by `per_entry`). The reranker scores one source, row 1's: candidate 0 is a correction of it (`first`, or
    the references cell), candidate 1 the completion; its errors name that source as row 0. `whole_column`: the
    dataset's references column holds the bad cell in every row (a `datasets` column holds one type)."""

    kind: str
    what: str
    completion: Any = GOOD
    first: Any = GOOD
    cell: Any = GOOD
    source: str = SOURCE
    metric: str = "errant"
    options: dict[str, Any] = field(default_factory=dict)
    expect: str = "row"
    names: tuple[str, ...] = ()
    per_entry: dict[str, str] = field(default_factory=dict)
    references_column: str = "references"
    whole_column: bool = False

    @property
    def candidate_0(self) -> Any:
        """The reranker's first candidate: a correction of row 1's source."""
        return self.first if self.first != GOOD or not isinstance(self.cell, str) else self.cell

    def names_for(self, entry: str) -> tuple[str, ...]:
        """What an error of `entry` must name: the reranker and a whole-column dataset name row 0."""
        if entry == "rerank" or (entry == "score_dataset" and self.whole_column):
            return tuple(name.replace("[1]", "[0]") for name in self.names)
        return self.names


ENTRIES = ("reward", "rerank", "score_dataset")
CASES = (
    SignalCase("clean", "a correct completion", expect="scored"),
    SignalCase("raw text", "an untokenised completion ('He went to school yesterday.')",
               completion="He went to school yesterday.", expect="scored",
               per_entry={"score_dataset": "error"}, names=("tokenize",)),
    SignalCase("empty", "an empty completion", completion="", expect="scored"),
    SignalCase("None", "the completion is None", completion=None, per_entry={"score_dataset": "error"},
               names=("predictions[1]",)),
    SignalCase("number", "the completion is an int", completion=7, per_entry={"score_dataset": "n/a"}),
    SignalCase("nested messages", "a list of lists of messages", completion=[MESSAGE],
               per_entry={"score_dataset": "n/a"}),
    SignalCase("NUL character", "U+0000 inside the completion", completion="He \x00 went to school .",
               per_entry={"score_dataset": "error"}, names=("predictions[1]",)),
    SignalCase("lone surrogate", "invalid Unicode in the completion", completion="He went \ud800 to school .",
               per_entry={"score_dataset": "n/a"}),
    SignalCase("over-long", "a 751-token completion", completion=" ".join(["word"] * 750) + " .",
               per_entry={"score_dataset": "error"}, names=("predictions[1]",)),
    SignalCase("full rewrite", "a completion changing 100 consecutive tokens",
               source=" ".join(["the cat"] * 50) + " .", completion=" ".join(["a dog"] * 50) + " .",
               cell=" ".join(["the cats"] * 50) + " .", per_entry={"score_dataset": "error"},
               names=("predictions[1]", "predictions[0]")),
    SignalCase("dict references", "row 1's references cell is a dict (a struct column)", cell={"text": GOOD},
               expect="error", names=("references[1]",), whole_column=True),
    SignalCase("number references", "row 1's references cell is an int", cell=5, expect="error",
               names=("references[1]",), per_entry={"score_dataset": "n/a"}),
    SignalCase("misnamed column", "the references are in a column named 'refs'", expect="error",
               names=("references", "refs"), references_column="refs", per_entry={"rerank": "n/a"}),
    SignalCase("control character in a source", "U+0007 in row 1's source (data, not output)",
               source="He \x07 go to school .", expect="error", names=("sources[1]", "source[1]", "sources[0]")),
    SignalCase("bad option", "`beta=nan`", options={"beta": float("nan")}, expect="error", names=("beta",)),
    SignalCase("missing layer", "PT-M2 with MiniLM and no `layer`", metric="pt_m2", options={"model": "minilm"},
               expect="error", names=("layer",)),
    SignalCase("refused for one reason", "raw completions (both rows) with `tokenize=False`",
               first="He went to school yesterday.", completion="He goes to school yesterday.",
               options={"tokenize": False}, expect="error",
               names=("every row", "predictions[0]", "predictions[1]")),
)


@dataclass
class SignalOutcome:
    """What an entry point did with a case: `status` "error", "scored" or "n/a"; `values`, the row values (the
    reward, the candidate's score, the dataset's score column); `refused`, the refused row indices with reasons;
    `chosen`, the reranker's choice."""

    status: str
    message: str = ""
    values: list[Any] = field(default_factory=list)
    refused: dict[int, str] = field(default_factory=dict)
    chosen: int | None = None

    def summary(self) -> str:
        """One table cell."""
        if self.status in ("n/a",):
            return "n/a"
        if self.status == "error":
            text = " ".join(self.message.split())
            return "error: " + (text if len(text) <= 110 else text[:109] + "…")
        values = ", ".join("None" if v is None else f"{v:.2f}" for v in self.values)
        parts = [f"scored [{values}]"]
        if self.chosen is not None:
            parts.append(f"chose {self.chosen}")
        for index, why in sorted(self.refused.items()):
            why = " ".join(why.split())
            parts.append(f"row {index} refused: " + (why if len(why) <= 70 else why[:69] + "…"))
        return "; ".join(parts)


def run(entry: str, case: SignalCase) -> SignalOutcome:
    """`case` through one entry point."""
    if case.per_entry.get(entry) == "n/a":
        return SignalOutcome("n/a")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return {"reward": _reward, "rerank": _rerank, "score_dataset": _dataset}[entry](case)
        except (ValueError, TypeError, OSError) as error:
            return SignalOutcome("error", f"{type(error).__name__}: {error}")


def _reward(case: SignalCase) -> SignalOutcome:
    from gecscore.rewards import reward_function

    reward = reward_function(case.metric, **case.options)
    values = reward(completions=[case.first, case.completion], source=[SOURCE, case.source],
                    **{case.references_column: [GOOD, case.cell]})
    refused = {r["index"]: r["why"] for r in reward.last_degenerate if r["reason"] == "refused"}
    return SignalOutcome("scored", values=values, refused=refused)


def _rerank(case: SignalCase) -> SignalOutcome:
    from gecscore import rerank

    result = rerank([case.source], [[case.candidate_0, case.completion]], [case.cell], metric=case.metric,
                    method="reference", **case.options)
    refused = {r["candidate"]: r["why"] for r in result.degenerate if r["reason"] == "refused"}
    return SignalOutcome("scored", values=result.scores[0], refused=refused, chosen=result.choice[0])


def _dataset(case: SignalCase) -> SignalOutcome:
    from datasets import Dataset

    from gecscore import score_dataset

    data = Dataset.from_dict({"source": [SOURCE, case.source], "prediction": [case.first, case.completion],
                              case.references_column: [case.cell if case.whole_column else GOOD, case.cell]})
    scored = score_dataset(data, case.metric, references="references", **case.options)
    flags = list(scored[f"{case.metric}_degenerate"])
    return SignalOutcome("scored", values=list(scored[case.metric]),
                         refused={i: f for i, f in enumerate(flags) if "refused" in f})


def expected(case: SignalCase, entry: str) -> str:
    """What `entry` must do with `case`."""
    return case.per_entry.get(entry, case.expect)


def check(case: SignalCase, entry: str, outcome: SignalOutcome) -> None:
    """Assert the contract for one cell (see the module docstring)."""
    expect = expected(case, entry)
    if expect == "n/a":
        assert outcome.status == "n/a"
        return
    if expect == "error":
        assert outcome.status == "error", f"{case.kind} / {entry}: expected an error, got {outcome.summary()}"
        names = case.names_for(entry)
        assert any(name in outcome.message for name in names), \
            f"{case.kind} / {entry}: the message does not name {names}: {outcome.message}"
        return
    assert outcome.status == "scored", f"{case.kind} / {entry}: expected scores, got {outcome.message}"
    assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in outcome.values), outcome.values
    assert outcome.values[0] == 1.0 and 0 not in outcome.refused, f"{case.kind} / {entry}: row 0 {outcome.values}"
    if expect == "row":
        assert list(outcome.refused) == [1] and outcome.values[1] == 0.0, f"{case.kind} / {entry}: {outcome}"
    else:
        assert not outcome.refused, f"{case.kind} / {entry}: {outcome.refused}"
    if outcome.chosen is not None:
        assert outcome.chosen == 0 or (expect == "scored" and outcome.values[1] >= outcome.values[0])


def matrix() -> dict[str, dict[str, SignalOutcome]]:
    """Every case against every entry point."""
    return {case.kind: {entry: run(entry, case) for entry in ENTRIES} for case in CASES}


def markdown(rows: dict[str, dict[str, SignalOutcome]]) -> str:
    """The training-signal section of docs/bad-input.md."""
    lines = ["## Training signals: rewards, reranking, dataset scoring", "",
             "Two kinds of failure, never confused (`docs/training.md`). Row 0 is a correct completion, row 1 holds "
             "the mistake. *refused* on a row: the reward is 0 and the row's record names its index and reason, "
             "the reranker does not choose it, the rest is scored; *error*: a ValueError / TypeError / OSError "
             "naming the option, column or row, raised when the reward or reranker is built where it can be known "
             "then (options, models, a probe through the metric), else at the first call. `score_dataset` reads "
             "its predictions as data, with `compute`'s defaults: a bad one is an error naming the dataset rows. "
             "ERRANT (model-free) unless the row says otherwise; rewards and reranking with their defaults for "
             "model output (`robust`, `tokenize`, `normalize`); reranking with `method=\"reference\"`; *n/a*: a "
             "`datasets` column holds one type (Arrow refuses the mix before gecscore sees it).", "",
             "| kind | input | " + " | ".join(f"`{e}`" for e in ENTRIES) + " |", "|---|---|" + "---|" * len(ENTRIES)]
    for case in CASES:
        cells = [rows[case.kind][e].summary().replace("|", "\\|") for e in ENTRIES]
        lines.append(f"| {case.kind} | {re.sub(chr(10), ' ', case.what)} | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)
