"""Bad input of every kind against every entry point: the case table, the entry points and the contract (the
training signals' cases and contract: `signal_inputs`).

`tests/test_bad_input.py` runs the whole matrix and random variants of each kind (hypothesis); the same code writes
`docs/bad-input.md` (`python tests/bad_inputs.py --write docs/bad-input.md`, `make bad-input-doc`), so the page
shows what the tests saw. The contract: every cell either returns a result whose headline score is finite and in
[0, 1] with every degenerate sentence flagged, or raises ValueError / TypeError / OSError (the CLI: exit status 2;
a Space: a `gr.Error`, shown in the page and raised by `gradio_client`) with a message naming the argument.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
SRC = ["He go to school yesterday .", "She like apples ."]
HYP = ["He went to school yesterday .", "She likes apples ."]
REF = [["He went to school yesterday ."], ["She likes apples ."]]
LONG = " ".join(["word"] * 750) + " ."
BUSY_SOURCE = " ".join(["the cat"] * 300) + " ."
BUSY = " ".join(["the dog"] * 300) + " ."  # 300 separate substitutions: an edited copy each for the encoders
REWRITE_SOURCE = " ".join(["the cat"] * 50) + " ."
REWRITE = " ".join(["a dog"] * 50) + " ."  # one run of 100 changed tokens
METRICS = ("uot_errant", "pt_m2", "cleme2", "impara_ged")
#: Each metric with the offline MiniLM (IMPARA-GED: the embedded estimator), as the Spaces run them.
MODEL_OPTIONS = {"uot_errant": {"model": "minilm"}, "pt_m2": {"model": "minilm", "layer": 6},
                 "cleme2": {"model": "minilm", "layer": 6}, "impara_ged": {"model": "embedded"}}
#: Model-free settings (fast): plain ERRANT, M², unweighted CLEME2.0. IMPARA-GED has none.
FAST_OPTIONS = {"uot_errant": {"variant": "errant"}, "pt_m2": {"variant": "m2", "scorer": "self"},
                "cleme2": {"weighting": "none"}}


@dataclass(frozen=True)
class Case:
    """One kind of bad input: the sentences (or raw file bytes), extra options and what must happen."""

    kind: str
    what: str
    sources: Any = field(default_factory=lambda: list(SRC))
    predictions: Any = field(default_factory=lambda: list(HYP))
    references: Any = field(default_factory=lambda: [list(r) for r in REF])
    options: dict[str, Any] = field(default_factory=dict)
    #: "error" (naming `names`), "flagged" (reason `reason`), "warned" or "scored".
    expect: str = "error"
    names: tuple[str, ...] = ()
    reason: str = ""
    #: Raw bytes of the predictions file (CLI and Spaces) instead of `predictions` written as UTF-8 lines.
    raw_predictions: bytes | None = None
    files_only: bool = False  # only meaningful for files (CLI, Spaces)
    #: What files (CLI, Spaces) must do when it differs from `expect`.
    file_expect: str = ""
    #: Metrics that score this input (with a warning or flags) instead of refusing it.
    scored_by: tuple[str, ...] = ()
    python_only: bool = False  # only meaningful for Python values (no file holds it)


def _with(values: list[str], i: int, text: str) -> list[str]:
    out = list(values)
    out[i] = text
    return out


CASES: tuple[Case, ...] = (
    Case("predictions None", "`predictions=None`", predictions=None, names=("predictions",), python_only=True),
    Case("a single string", "a string instead of a list", predictions="He went .", names=("predictions",),
         python_only=True),
    Case("non-string entry", "`predictions[1]` is an int", predictions=["He went .", 3], names=("predictions[1]",),
         python_only=True),
    Case("None entry", "`predictions[1]` is None", predictions=["He went .", None], names=("predictions[1]",),
         python_only=True),
    Case("length mismatch", "one prediction for two sources", predictions=HYP[:1],
         names=("predictions", "sources", "hypothesis")),
    Case("no sentences", "empty lists", sources=[], predictions=[], references=[],
         names=("sources", "predictions", "nothing", "empty", "Source file", "Hypothesis file")),
    Case("empty reference list", "`references[0] == []`", references=[[], ["She likes apples ."]],
         names=("references[0]",), python_only=True),
    Case("NUL character", "U+0000 inside a prediction", predictions=_with(HYP, 1, "She li\x00kes apples ."),
         names=("predictions[1]", "line 2")),
    Case("control character", "U+0007 (bell) inside a source", sources=_with(SRC, 0, "He go\x07 to school ."),
         names=("sources[0]", "line 1")),
    Case("line break inside", "a prediction holding a newline", predictions=_with(HYP, 0, "He went\nto school ."),
         names=("predictions[0]",), python_only=True),
    Case("invisible character", "a zero-width space inside a word of a correct prediction",
         predictions=_with(HYP, 1, "She li\u200bkes apples ."), expect="warned"),
    Case("non-NFC text", "a decomposed accent (e + U+0301) in a prediction",
         predictions=_with(HYP, 1, "She likes cafe\u0301 apples ."), expect="warned"),
    Case("byte-order mark", "a UTF-8 BOM before the first sentence (files: dropped, as editors write one)",
         sources=_with(SRC, 0, "\ufeff" + SRC[0]), expect="warned", file_expect="scored"),
    Case("invalid UTF-8", "a predictions file with a byte that is not UTF-8", raw_predictions=b"He went \xff .\nok .\n",
         names=("line 1", "UTF-8", "utf-8"), files_only=True),
    Case("CRLF line ends", "a predictions file written on Windows", expect="scored",
         raw_predictions=("\r\n".join(HYP) + "\r\n").encode(), files_only=True),
    Case("empty prediction", "the second prediction is empty", predictions=_with(HYP, 1, ""), expect="flagged",
         reason="empty prediction"),
    Case("whitespace prediction", "the second prediction is blanks only", predictions=_with(HYP, 1, "   "),
         expect="flagged", reason="empty prediction", python_only=True),
    Case("untokenised text", "raw text with punctuation glued to words",
         sources=["He go to school yesterday.", "She like apples, pears."],
         predictions=["He went to school yesterday.", "She likes apples, pears."],
         references=[["He went to school yesterday."], ["She likes apples, pears."]],
         names=("sources", "predictions", "tokenise", "tokenize"), scored_by=("impara_ged",)),
    Case("over-long sentence", "a 751-token source", sources=_with(SRC, 0, LONG), predictions=_with(HYP, 0, LONG),
         references=[[LONG], REF[1]], names=("max_tokens",)),
    Case("full rewrite", "a prediction changing 100 consecutive tokens (a misaligned line?)",
         sources=_with(SRC, 0, REWRITE_SOURCE), predictions=_with(HYP, 0, REWRITE), names=("max_changed_run",),
         scored_by=("impara_ged",)),
    Case("costly sentence", "601 tokens with 300 edits (an encoder copy per edit)", sources=_with(SRC, 0, BUSY_SOURCE),
         predictions=_with(HYP, 0, BUSY), references=[[BUSY], REF[1]], names=("max_tokens",),
         scored_by=("impara_ged",)),
    Case("option of the wrong type", "`beta='x'`", options={"beta": "x"}, names=("beta",)),
    Case("option out of range", "`max_tokens=0`", options={"max_tokens": 0}, names=("max_tokens",)),
    Case("unknown option", "`bogus=1`", options={"bogus": 1}, names=("bogus",), python_only=True),
    Case("bad device", "`device='bogus'`", options={"device": "bogus"}, names=("device",)),
)
KINDS = {case.kind: case for case in CASES}


@dataclass
class Outcome:
    """What an entry point did with a case."""

    status: str  # "error", "result" or "n/a"
    message: str = ""
    score: float | None = None
    flagged: tuple[str, ...] = ()
    warned: tuple[str, ...] = ()

    def summary(self) -> str:
        """One table cell."""
        if self.status == "n/a":
            return "n/a"
        if self.status == "error":
            text = re.sub(r"/\S+/", ".../", " ".join(self.message.split()))
            return "refused: " + (text if len(text) <= 110 else text[:109] + "…")
        parts = ["scored"]
        if self.flagged:
            parts.append("flagged " + ", ".join(sorted(set(self.flagged))))
        if self.warned:
            parts.append("warned " + ", ".join(sorted(set(self.warned))))
        return "; ".join(parts)


def check(case: Case, outcome: Outcome, metric: str, files: bool = False) -> None:
    """Assert the contract for one cell (see the module docstring); `files`: the entry reads files."""
    if outcome.status == "n/a":
        return
    expect = case.file_expect if files and case.file_expect else case.expect
    if outcome.status == "error":
        assert expect == "error" or metric in case.scored_by, \
            f"{case.kind}: refused, expected {expect}: {outcome.message}"
        assert any(name in outcome.message for name in case.names), \
            f"{case.kind}: the message does not name {case.names}: {outcome.message}"
        return
    assert expect != "error" or metric in case.scored_by, \
        f"{case.kind}: scored, expected an error naming {case.names}"
    assert outcome.score is not None and math.isfinite(outcome.score), f"{case.kind}: score {outcome.score}"
    assert 0.0 <= outcome.score <= 1.0 or outcome.flagged, f"{case.kind}: unflagged score {outcome.score}"
    if expect == "flagged":
        assert case.reason in outcome.flagged, f"{case.kind}: not flagged {case.reason!r}: {outcome.flagged}"
    if expect == "warned":
        assert "TextHygieneWarning" in outcome.warned, f"{case.kind}: no hygiene warning: {outcome.warned}"


def headline(result: dict[str, Any]) -> float:
    """The headline number of an evaluate-style result."""
    for key in ("f0.5", "score"):
        if key in result:
            return float(result[key])
    return float(next(v for k, v in result.items() if k.startswith("f") and isinstance(v, float)))


#: The warnings gecscore gives about an input. Others (a ResourceWarning when the garbage collector meets a file
#: some earlier code left open) depend on what ran before, not on the input, and would make the page flaky.
OWN_WARNINGS = ("TextHygieneWarning", "DegenerateOutputWarning", "UntokenisedTextWarning")


def own_warnings(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    """Class names of gecscore's own input warnings among `caught`, in order."""
    return tuple(type(w.message).__name__ for w in caught if type(w.message).__name__ in OWN_WARNINGS)


def _caught(fn: Callable[[], dict[str, Any]]) -> Outcome:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except (ValueError, TypeError, OSError) as error:
            return Outcome("error", f"{type(error).__name__}: {error}")
    names = own_warnings(caught)
    flagged = tuple(d["reason"] for d in result.get("degenerate_sentences", []))
    return Outcome("result", score=headline(result), flagged=flagged, warned=names)


class ModuleEntry:
    """An evaluate module loaded from the working tree's script."""

    def __init__(self, metric: str, options: dict[str, Any]) -> None:
        import evaluate

        self.metric, self.options = metric, options
        self.name = f"evaluate `{metric}`"
        self.module = evaluate.load(str(REPO / "metrics" / metric), keep_in_memory=True)

    def run(self, case: Case) -> Outcome:
        if case.files_only or (self.metric == "impara_ged" and case.kind == "empty reference list"):
            return Outcome("n/a")
        kwargs = {"sources": case.sources, "predictions": case.predictions, **self.options, **case.options}
        if self.metric != "impara_ged":
            kwargs["references"] = case.references
        return _caught(lambda: self.module.compute(**kwargs))


def write_files(case: Case, folder: Path, with_references: bool = True) -> dict[str, Any]:
    """The case as files: sources, predictions (or its raw bytes) and one file per reference set."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Any] = {"sources": folder / "src.txt", "predictions": folder / "hyp.txt", "references": []}
    paths["sources"].write_text("".join(f"{s}\n" for s in case.sources), encoding="utf-8")
    raw = case.raw_predictions or "".join(f"{p}\n" for p in case.predictions).encode("utf-8")
    paths["predictions"].write_bytes(raw)
    if with_references:
        width = max((len(r) for r in case.references), default=1)
        for k in range(width):
            path = folder / f"ref{k}.txt"
            path.write_text("".join(f"{refs[min(k, len(refs) - 1)]}\n" for refs in case.references), encoding="utf-8")
            paths["references"].append(path)
    return paths


class CLIEntry:
    """`gecscore score METRIC ... --json` in this process."""

    def __init__(self, metric: str, options: dict[str, Any], folder: Path) -> None:
        self.metric, self.options, self.folder = metric, options, folder
        self.name = "CLI `gecscore score`"

    def run(self, case: Case) -> Outcome:
        import json

        from gecscore.cli import main

        if case.python_only:
            return Outcome("n/a")
        paths = write_files(case, self.folder / case.kind.replace(" ", "_"), self.metric != "impara_ged")
        argv = ["score", self.metric, "--sources", str(paths["sources"]), "--predictions", str(paths["predictions"]),
                "--json"]
        if paths["references"]:
            argv += ["--references", *map(str, paths["references"])]
        for key, value in {**self.options, **case.options}.items():
            argv += ["-o", f"{key}={json.dumps(value)}"]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code = main(argv)
        if code != 0:
            assert code == 2, f"exit status {code}: {err.getvalue()}"
            return Outcome("error", err.getvalue().strip().splitlines()[-1])
        result = json.loads(out.getvalue())
        names = own_warnings(caught)
        flagged = tuple(d["reason"] for d in result.get("degenerate_sentences", []))
        return Outcome("result", score=headline(result), flagged=flagged, warned=names)


class SpaceEntry:
    """A Space's corpus handler (the function behind the Corpus tab), with the page's default settings."""

    def __init__(self, metric: str, folder: Path) -> None:
        import importlib.util

        os.environ["GECSCORE_METRIC_PATH"] = str(REPO / "metrics")
        spec = importlib.util.spec_from_file_location(f"space_{metric}", REPO / "spaces" / metric / "app.py")
        app = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(app)
        self.demo = app.build_demo()
        handler = next(f for f in self.demo.fns.values() if f.name == "score_corpus")
        self.fn, self.defaults = handler.fn, [c.value for c in handler.inputs]
        self.metric, self.folder = metric, folder
        self.name = "Space (Corpus tab)"

    def run(self, case: Case) -> Outcome:
        import json

        import gradio as gr

        if case.python_only or case.options:
            return Outcome("n/a")
        paths = write_files(case, self.folder / ("space_" + case.kind.replace(" ", "_")), self.metric != "impara_ged")
        files = [str(paths["sources"]), str(paths["predictions"])]
        if self.metric != "impara_ged":
            files.append([str(p) for p in paths["references"]])
        args = files + self.defaults[len(files):]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                status, *rest = self.fn(*args)
            except gr.Error as error:  # what the page shows
                return Outcome("error", error.message)
        result = json.loads(Path(rest[-1]).read_text(encoding="utf-8"))
        corpus = result["corpus"]
        flagged = tuple(d["reason"] for d in corpus.get("degenerate_sentences", []))
        names = own_warnings(caught)
        if flagged:
            assert "Degenerate" in status, f"the status line does not say that sentences were flagged: {status}"
        return Outcome("result", score=headline(corpus), flagged=flagged, warned=names)


def matrix(folder: Path) -> dict[str, dict[str, Outcome]]:
    """Every case against every entry point (the four modules with MiniLM, and the CLI and the Spaces for each)."""
    rows: dict[str, dict[str, Outcome]] = {case.kind: {} for case in CASES}
    for metric in METRICS:
        entries = [ModuleEntry(metric, MODEL_OPTIONS[metric]), CLIEntry(metric, MODEL_OPTIONS[metric], folder),
                   SpaceEntry(metric, folder)]
        for entry in entries:
            for case in CASES:
                rows[case.kind][f"{metric}: {entry.name}"] = entry.run(case)
    return rows


def markdown(rows: dict[str, dict[str, Outcome]], signal_rows: dict[str, dict[str, Any]]) -> str:
    """docs/bad-input.md: one table per metric, kinds as rows, entry points as columns; then the training signals'
    table (`signal_inputs`)."""
    import signal_inputs

    lines = ["# Bad input: what every entry point does", "",
             "Generated by `python tests/bad_inputs.py --write docs/bad-input.md` (`make bad-input-doc`) from the cases "
             "and entry points that `tests/test_bad_input.py` checks; do not edit by hand. Each metric runs as its "
             "Space runs it (MiniLM; IMPARA-GED with the embedded estimator), in the default (published) mode. "
             "*refused* is a ValueError / TypeError / OSError (CLI: exit status 2; Space: a `gr.Error`) whose "
             "message names the argument and position; *flagged* lists the reasons in `degenerate_sentences` "
             "(see `gecscore.common.results`); *warned* names the warning; *n/a*: the input cannot be expressed "
             "there (a file holds only text; the Spaces take no extra options).", ""]
    for metric in METRICS:
        columns = [c for c in next(iter(rows.values())) if c.startswith(f"{metric}: ")]
        lines += [f"## {metric}", "", "| kind | input | " + " | ".join(c.split(": ", 1)[1] for c in columns) + " |",
                  "|---|---|" + "---|" * len(columns)]
        for case in CASES:
            cells = [rows[case.kind][c].summary().replace("|", "\\|") for c in columns]
            lines.append(f"| {case.kind} | {case.what} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n" + signal_inputs.markdown(signal_rows)


def main(argv: list[str] | None = None) -> int:
    """Write the matrix page."""
    import tempfile

    import signal_inputs

    parser = argparse.ArgumentParser(description="write docs/bad-input.md from the bad-input cases")
    parser.add_argument("--write", type=Path, required=True)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        rows = matrix(Path(folder))
    for kind, row in rows.items():
        for column, outcome in row.items():
            check(KINDS[kind], outcome, column.split(":")[0], files="evaluate" not in column)
    signal_rows = signal_inputs.matrix()
    for case in signal_inputs.CASES:
        for entry in signal_inputs.ENTRIES:
            signal_inputs.check(case, entry, signal_rows[case.kind][entry])
    args.write.write_text(markdown(rows, signal_rows), encoding="utf-8")
    print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "shared"))
    raise SystemExit(main())
