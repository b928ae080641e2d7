"""A UOT-ERRANT transport plan as a heatmap: hypothesis edits × reference edits (the paper's Figure 4 view)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


#: matplotlib's own font, then fonts with Chinese glyphs for the labels of Chinese edits: matplotlib draws each glyph
#: with the first of them that has it (a Space installs WenQuanYi Zen Hei: spaces/uot_errant/packages.txt).
LABEL_FONTS = ("DejaVu Sans", "WenQuanYi Zen Hei", "Noto Sans CJK SC", "Noto Sans CJK JP", "Droid Sans Fallback")


def label_fonts() -> list[str]:
    """The fonts of `LABEL_FONTS` that are installed (naming a missing one would only log a warning per label)."""
    from matplotlib import font_manager

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return [name for name in LABEL_FONTS if name in installed] or [LABEL_FONTS[0]]


def edit_label(row: Sequence[Any], mass: float | None = None) -> str:
    """`[o_start, o_end, "c_str"]` (as the paper writes edits), with the edit's mass when given."""
    o_start, o_end, c_str = row[0], row[1], row[-2]
    label = f'[{o_start}, {o_end}, "{c_str}"]'
    return label if mass is None else f"{label}  {mass:.3g}"


def plot_transport(alignment: Mapping[str, Any], reference: int | None = None, *, ax: Axes | None = None,
                   title: str | None = None, annotate: bool = True) -> Figure:
    """Heatmap of the plan of one sentence against one reference (default: the chosen one).

    `alignment` is one entry of `compute(..., return_alignments=True)["alignments"]`. Rows are hypothesis edits,
    columns reference edits, each labelled with its mass; cells show transported mass.
    """
    refs = alignment.get("references")
    if not isinstance(refs, Sequence) or not refs:
        raise ValueError("`alignment` must be one entry of the `alignments` output (it has no `references`)")
    index = alignment.get("chosen_ref", 0) if reference is None else reference
    if not isinstance(index, int) or not 0 <= index < len(refs):
        raise ValueError(f"`reference` must be an index in [0, {len(refs)}), got {reference!r}")
    ref = refs[index]
    if ref.get("plan") is None:
        raise ValueError("this alignment has no transport plan (variant='errant' does not transport)")
    hyp_rows, ref_rows = alignment["hyp_edits"], ref["edits"]
    plan = np.asarray(ref["plan"], dtype=np.float64).reshape(len(hyp_rows), len(ref_rows))

    if ax is None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(4.5 + 1.3 * len(ref_rows), 2.5 + 0.55 * len(hyp_rows)),
                     layout="constrained")
        ax = fig.subplots()
    else:
        fig = ax.figure
    finite = plan[np.isfinite(plan)]
    vmax = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    image = ax.imshow(np.nan_to_num(plan, nan=0.0, posinf=vmax), cmap="Blues", vmin=0.0, vmax=vmax, aspect="auto")
    fonts = label_fonts()
    ax.set_yticks(range(len(hyp_rows)),
                  [edit_label(r, m) for r, m in zip(hyp_rows, alignment.get("hyp_masses", [None] * len(hyp_rows)))],
                  fontfamily=fonts)
    ax.set_xticks(range(len(ref_rows)),
                  [edit_label(r, m) for r, m in zip(ref_rows, ref.get("masses", [None] * len(ref_rows)))],
                  rotation=30, ha="right", fontfamily=fonts)
    ax.set_ylabel("hypothesis edits (mass)")
    ax.set_xlabel(f"reference {index} edits (mass)")
    if annotate:
        for i in range(plan.shape[0]):
            for j in range(plan.shape[1]):
                value = plan[i, j]
                ax.text(j, i, f"{value:.2f}", ha="center", va="center",
                        color="white" if np.isfinite(value) and value > 0.6 * vmax else "black", fontsize=8)
    fig.colorbar(image, ax=ax, label="transported mass")
    if title is None and ref.get("issues"):
        title = "degenerate transport: " + "; ".join(ref["issues"])[:80]
    if title:
        ax.set_title(title, fontsize=9)
    return fig
