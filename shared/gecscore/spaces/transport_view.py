"""UOT-ERRANT explanation: the edits of the hypothesis and the references, and the transport plans as heatmaps."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from gecscore.uot_errant import plot_transport


def _edit(row: list[Any]) -> str:
    o_start, o_end, o_str, c_str = row[:4]
    return f"[{o_start}, {o_end}] {o_str or '∅'} → {c_str or '∅'}"


def edit_table(alignment: Mapping[str, Any]) -> pd.DataFrame:
    """Every hypothesis and reference edit with its mass and the mass transported against the chosen reference
    (rows of the plan for hypothesis edits, columns for reference edits)."""
    chosen = alignment.get("chosen_ref", 0)
    refs = alignment["references"]
    plan = refs[chosen].get("plan")
    n_hyp, n_ref = len(alignment["hyp_edits"]), len(refs[chosen]["edits"])
    matrix = None if plan is None else np.asarray(plan, dtype=float).reshape(n_hyp, n_ref)
    rows = []
    for i, (edit, mass) in enumerate(zip(alignment["hyp_edits"], alignment["hyp_masses"])):
        moved = None if matrix is None else float(np.nansum(matrix[i]))
        rows.append(("hypothesis", _edit(edit), edit[-1], mass, moved))
    for r, ref in enumerate(refs):
        side = f"reference {r}" + (" (chosen)" if r == chosen else "")
        for j, (edit, mass) in enumerate(zip(ref["edits"], ref.get("masses") or [None] * len(ref["edits"]))):
            moved = float(np.nansum(matrix[:, j])) if matrix is not None and r == chosen else None
            rows.append((side, _edit(edit), edit[-1], mass, moved))
    table = pd.DataFrame(rows, columns=["side", "edit", "type", "mass", "transported (chosen ref)"])
    return table.round(4)


def transport_figure(alignment: Mapping[str, Any]) -> Figure | None:
    """One heatmap per reference (the paper's Figure 4 view); None when nothing was transported (variant errant)."""
    refs = alignment["references"]
    if all(ref.get("plan") is None for ref in refs):
        return None
    n_hyp = len(alignment["hyp_edits"])
    widths = [max(len(ref["edits"]), 1) for ref in refs]
    fig = Figure(figsize=(min(4.5 + 1.4 * max(widths), 12), (2.6 + 0.55 * max(n_hyp, 1)) * len(refs)),
                 layout="constrained")
    axes = fig.subplots(len(refs), 1, squeeze=False)[:, 0]
    chosen = alignment.get("chosen_ref", 0)
    for r, (ax, ref) in enumerate(zip(axes, refs)):
        title = f"reference {r}" + (" — chosen (best F)" if r == chosen else "")
        if ref.get("issues"):
            title += " — degenerate: " + "; ".join(ref["issues"])[:80]
        if n_hyp == 0 or not ref["edits"]:
            ax.axis("off")
            what = "the hypothesis has no edits" if n_hyp == 0 else "this reference has no edits"
            ax.text(0.5, 0.5, f"{title}: nothing to transport ({what})", ha="center", va="center")
            continue
        plot_transport(alignment, r, ax=ax, title=title)
    return fig
