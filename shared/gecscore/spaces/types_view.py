"""Per-error-type breakdown of a corpus run (UOT-ERRANT, PT-ERRANT): the level control, the table, the precision
and recall chart, and the `CorpusPanel` that puts them in the Corpus tab of a `metric_page`.

The metric computes the breakdown (`return_types`, as `errant_compare -cat`); this module only draws it. The corpus
endpoint and the panel's endpoint run on the same click with the same inputs, so the app computes once and shares
the result through `RunCache`.
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, Mapping, Sequence

import gradio as gr
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from gecscore import registry
from gecscore.spaces.layout import CorpusPanel

#: The level control's choices (label, `return_types`); 0 computes no breakdown.
LEVEL_CHOICES: list[tuple[str, int]] = [("none", 0), ("operation (M / R / U)", 1), ("main type", 2),
                                        ("full type", 3)]
DEFAULT_LEVEL = 2
LEVEL_NAMES = {1: "operation", 2: "main type", 3: "full type"}
#: The output key of the breakdown, left out of the shown corpus scores (it goes to the JSON download).
TYPES_KEY = "types"
PRECISION_COLOUR, RECALL_COLOUR = "#4c72b0", "#dd8452"
#: The level control's default help line, and the endpoint of the per-type panel.
LEVEL_INFO = "TP/FP/FN and P/R/F per error type of the corpus run"
API_NAME = "score_types"
_ZERO = 1e-12


def level_control(metric: str, info: str = LEVEL_INFO) -> gr.Radio:
    """The level control, its values checked against the metric's `return_types` option."""
    allowed = registry.SPECS[metric].option("return_types").choices
    if {value for _, value in LEVEL_CHOICES} != set(allowed):
        raise ValueError(f"{metric}.return_types allows {list(allowed)}, the control offers {LEVEL_CHOICES}")
    return gr.Radio(LEVEL_CHOICES, value=DEFAULT_LEVEL, label="Per-type breakdown (errant_compare -cat)", info=info)


def types_outputs() -> list[gr.Component]:
    """The panel's note, and its table and chart side by side (hidden until there is a breakdown)."""
    with gr.Column():
        note = gr.Markdown()
        with gr.Row(equal_height=False):
            table = gr.Dataframe(label="Per error type (click a column header to sort)", interactive=False,
                                 visible=False, max_height=520, scale=1)
            chart = gr.Plot(label="Precision and recall per category", show_label=False, visible=False, scale=1)
    return [note, table, chart]


def types_corpus_panel(metric: str, score_types: Callable[..., tuple], info: str = LEVEL_INFO) -> CorpusPanel:
    """The per-type panel of `metric_page`'s Corpus tab: the level control above the button (the last input of the
    corpus endpoint and of `score_types`) and `types_outputs` below the results, which `score_types` fills
    (`types_panel`) on the same click."""
    return CorpusPanel(controls=lambda: [level_control(metric, info)], results=types_outputs, handler=score_types,
                       api_name=API_NAME)


def types_option(level: int | None) -> dict[str, int]:
    """The compute option for `level` (nothing for none)."""
    return {"return_types": int(level)} if level else {}


def f_key(rows: Mapping[str, Mapping[str, float]]) -> str:
    """The F-beta key of the rows ("f0.5"); "f0.5" when there are no rows."""
    for row in rows.values():
        return next(k for k in row if k.startswith("f") and k not in ("fp", "fn"))
    return "f0.5"


def totals(types: Mapping[str, Any]) -> tuple[float, float, float]:
    """TP, FP and FN summed over the categories (the corpus counts)."""
    rows = types["rows"].values()
    return (math.fsum(r["tp"] for r in rows), math.fsum(r["fp"] for r in rows), math.fsum(r["fn"] for r in rows))


def _count(values: Sequence[float]) -> list[Any]:
    """Integer counts as ints, soft ones (mass, weights) rounded to 4 decimals."""
    if all(float(v).is_integer() for v in values):
        return [int(v) for v in values]
    return [round(float(v), 4) for v in values]


def type_table(types: Mapping[str, Any], tp_label: str = "TP") -> pd.DataFrame:
    """One row per category: category, TP (labelled `tp_label`), FP, FN, P, R, F (scores rounded to 4 decimals)."""
    rows = types["rows"]
    key = f_key(rows)
    names = list(rows)
    table = pd.DataFrame({"category": names})
    for column, field in ((tp_label, "tp"), ("FP", "fp"), ("FN", "fn")):
        table[column] = _count([rows[n][field] for n in names])
    for column, field in (("P", "precision"), ("R", "recall"), ("F" + key[1:], key)):
        table[column] = [round(float(rows[n][field]), 4) for n in names]
    return table


def _conventional(row: Mapping[str, float]) -> tuple[bool, bool]:
    """Whether P (no hypothesis edits) and R (no reference edits) of a category are 1 by convention only."""
    return row["tp"] + row["fp"] <= _ZERO, row["tp"] + row["fn"] <= _ZERO


def type_figure(types: Mapping[str, Any], title: str | None = None) -> Figure | None:
    """Horizontal bars of precision and recall per category (hatched where the value is 1 only by convention);
    None when there are no categories."""
    rows = types["rows"]
    if not rows:
        return None
    names = list(rows)
    n = len(names)
    fig = Figure(figsize=(7.0, min(1.8 + 0.34 * n, 24.0)), layout="constrained")
    ax = fig.add_subplot()
    height = 0.38
    conventional = False
    for offset, field, colour, index in ((-height / 2, "precision", PRECISION_COLOUR, 0),
                                         (height / 2, "recall", RECALL_COLOUR, 1)):
        for i, name in enumerate(names):
            by_convention = _conventional(rows[name])[index]
            conventional |= by_convention
            ax.barh(i + offset, float(rows[name][field]), height=height, color=colour,
                    alpha=0.35 if by_convention else 1.0, hatch="//" if by_convention else None,
                    edgecolor=colour if by_convention else "none")
    ax.set_yticks(range(n), names, fontsize=9 if n <= 30 else 7)
    ax.set_ylim(n - 0.5, -0.5)  # first category on top, as in the table
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("score")
    ax.grid(axis="x", linestyle=":", alpha=0.6)
    ax.set_axisbelow(True)
    level = types.get("level")
    ax.set_title(title or f"Precision and recall per {LEVEL_NAMES.get(level, 'category')}", fontsize=11)
    handles = [Patch(color=PRECISION_COLOUR, label="precision"), Patch(color=RECALL_COLOUR, label="recall")]
    if conventional:
        handles.append(Patch(facecolor="white", edgecolor="grey", hatch="//", label="1 by convention (no edits)"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    return fig


def type_note(types: Mapping[str, Any], soft: str | None = None) -> str:
    """The Markdown line above the table: level, number of categories, what the counts are."""
    level = types.get("level")
    rows = types["rows"]
    text = (f"**Per error type** — {LEVEL_NAMES.get(level, level)} (errant_compare -cat {level}): {len(rows)} "
            "categories, each sentence against its chosen reference; the rows add up to the corpus TP/FP/FN.")
    if not rows:
        return text + " No edits in the corpus."
    if soft:
        text += f" {soft}"
    if any(any(_conventional(r)) for r in rows.values()):
        text += (" Hatched bars: the category has no hypothesis edits (P) or no reference edits (R), so the value "
                 "is 1 by convention.")
    return text


def hidden_panel(note: str = "") -> tuple[Any, Any, Any]:
    """The panel's outputs with the table and the chart hidden, and `note` shown."""
    return note, gr.update(value=None, visible=False), gr.update(value=None, visible=False)


def types_panel(types: Mapping[str, Any] | None, *, tp_label: str = "TP", soft: str | None = None,
                off: str = "Per-type breakdown off: pick a level above and score again.") -> tuple[Any, Any, Any]:
    """The panel's outputs (note, table, chart) for the `types` output of a result (None: `off` and nothing
    else)."""
    if not types:
        return hidden_panel(off)
    figure = type_figure(types)
    return (type_note(types, soft), gr.update(value=type_table(types, tp_label), visible=True),
            gr.update(value=figure, visible=figure is not None))


def run_key(value: Any) -> Hashable:
    """A hashable key of a handler's inputs (lists and dicts of them too); an existing file counts with its size
    and modification time."""
    if isinstance(value, (list, tuple)):
        return tuple(run_key(v) for v in value)
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), run_key(v)) for k, v in value.items()))
    if isinstance(value, (str, os.PathLike)) and os.path.isfile(value):
        stat = os.stat(value)
        return os.fspath(value), stat.st_size, stat.st_mtime_ns
    return value if isinstance(value, Hashable) else repr(value)


class RunCache:
    """The last few successful corpus runs by input key: the corpus endpoint and the per-type panel, fired by the
    same click, share one computation (whichever runs first computes; failures are not kept)."""

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._runs: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The run for `key`, computed now when it is not kept."""
        with self._lock:
            if key in self._runs:
                self._runs.move_to_end(key)
                return self._runs[key]
            value = compute()
            self._runs[key] = value
            while len(self._runs) > self.size:
                self._runs.popitem(last=False)
            return value
