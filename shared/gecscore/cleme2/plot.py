"""Draw one sentence's CLEME chunk table (from `cleme_score(..., return_chunks=True)["chunks"][i]`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

LABEL_COLOURS = {"TP": "#8fd18f", "FP_ne": "#f6b26b", "FP_un": "#e06666", "FN": "#6fa8dc", "TN": "#ffffff"}
MARKED_COLOUR = "#eeeeee"
EMPTY = "\u2205"


def _cell(tokens: list[str]) -> str:
    return " ".join(tokens) if tokens else EMPTY


def plot_chunks(table: Mapping[str, Any], *, ref: int = 0, ax: Axes | None = None, title: str | None = None,
                max_chars: int = 18) -> Figure:
    """A grid with one column per chunk: source, hypothesis (coloured by its label against reference `ref`),
    every reference (grey where it edits), the labels and weights for `ref`. Returns the figure."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    chunks = table["chunks"]
    n_refs = len(table["references"])
    if not 0 <= ref < n_refs:
        raise ValueError(f"`ref` must be in [0, {n_refs}), got {ref}")
    if ax is None:
        fig = Figure(figsize=(max(4.0, 1.3 * len(chunks) + 1.5), 0.45 * (n_refs + 5) + 0.6))
        ax = fig.add_subplot()
    else:
        fig = ax.figure

    def short(text: str) -> str:
        return text if len(text) <= max_chars else text[:max_chars - 1] + "\u2026"

    rows = [[short(_cell(c["source"])) for c in chunks], [short(_cell(c["hypothesis"])) for c in chunks]]
    colours = [["#ffffff"] * len(chunks), [LABEL_COLOURS[c["labels"][ref]] for c in chunks]]
    for r in range(n_refs):
        rows.append([short(_cell(c["references"][r])) for c in chunks])
        colours.append([MARKED_COLOUR if c["marked"][1 + r] else "#ffffff" for c in chunks])
    rows.append([c["labels"][ref] for c in chunks])
    rows.append(["" if c["labels"][ref] == "TN" else f"{c['weights'][ref]:.3g}" for c in chunks])
    colours += [["#ffffff"] * len(chunks)] * 2
    ref_ids = table.get("reference_ids", list(range(n_refs)))
    labels = ["source", "hypothesis"] + [f"reference {i}" for i in ref_ids] + [f"label (ref {ref_ids[ref]})",
                                                                                f"weight (ref {ref_ids[ref]})"]
    ax.axis("off")
    grid = ax.table(cellText=rows, cellColours=colours, rowLabels=labels,
                    colLabels=[f"chunk {c['index']}" for c in chunks], loc="center", cellLoc="center")
    grid.auto_set_font_size(False)
    grid.set_fontsize(8)
    grid.scale(1.0, 1.3)
    ax.legend(handles=[Patch(facecolor=c, edgecolor="#999999", label=name) for name, c in LABEL_COLOURS.items()],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(LABEL_COLOURS), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=9)
    return fig
