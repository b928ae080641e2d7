"""Leaderboard figures, each written as PNG and SVG: system scores with their 95% intervals, and per-type precision
and recall with the systems side by side. Plain data in, matplotlib (imported on first use, no pyplot state) out."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SUFFIXES = (".png", ".svg")


def save(figure: Figure, stem: str | Path) -> list[Path]:
    """`figure` written to `stem`.png and `stem`.svg (folders created); the written paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_name(stem.name + suffix) for suffix in SUFFIXES]
    for path in paths:
        figure.savefig(path, format=path.suffix[1:], dpi=150)
    return paths


def leaderboard_figure(systems: Sequence[str], scores: Sequence[float],
                       intervals: Sequence[tuple[float, float] | None], *, label: str,
                       baseline: str | None = None, significant: Sequence[bool] = (), title: str = "") -> Figure:
    """One row per system, best on top: its score as a dot and its 95% interval (low, high) as a bar; the baseline
    is drawn as a dashed line, systems that differ from it significantly (`significant`, per system) in bold."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.5, 1.2 + 0.35 * len(systems)), layout="constrained")
    ax = figure.subplots()
    ys = list(range(len(systems)))[::-1]
    for y, score, interval in zip(ys, scores, intervals):
        if interval is not None:
            ax.plot(interval, [y, y], color="tab:blue", linewidth=2, solid_capstyle="butt")
        ax.plot([score], [y], "o", color="tab:blue" if interval is not None else "black")
    ax.set_yticks(ys, list(systems))
    if baseline is not None:
        ax.axvline(scores[list(systems).index(baseline)], color="grey", linestyle="--", linewidth=1,
                   label=f"baseline {baseline}")
        ax.legend(loc="lower right", fontsize=8)
    for tick, bold in zip(ax.get_yticklabels(), significant):
        tick.set_fontweight("bold" if bold else "normal")
    ax.set_xlabel(label)
    ax.grid(axis="x", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    return figure


def types_figure(types: Mapping[str, Mapping[str, Mapping[str, float]]], *, title: str = "") -> Figure:
    """Precision (top) and recall (bottom) of every error type, one bar per system side by side; `types` maps each
    system to its per-type rows (`details["types"]["rows"]`)."""
    from matplotlib.figure import Figure

    systems = list(types)
    names = sorted({name for rows in types.values() for name in rows})
    width = 0.8 / max(len(systems), 1)
    figure = Figure(figsize=(max(6.0, 0.25 * len(names) * max(len(systems), 2)), 6.5), layout="constrained")
    axes = figure.subplots(2, 1, sharex=True)
    clipped = False
    for ax, key in zip(axes, ("precision", "recall")):
        for k, system in enumerate(systems):
            offsets = [i - 0.4 + width * (k + 0.5) for i in range(len(names))]
            values = [types[system].get(name, {}).get(key, 0.0) for name in names]
            shown = [min(max(v, 0.0), 1.0) if math.isfinite(v) else 0.0 for v in values]
            ax.bar(offsets, shown, width=width, label=system)
            for x, value, bar in zip(offsets, values, shown):
                if bar != value:  # drawn clipped: say so on the bar
                    ax.annotate("!", (x, bar), ha="center", va="bottom", color="red", fontweight="bold")
                    clipped = True
        ax.set_ylabel(key)
        ax.set_ylim(0, 1.05)
        ax.grid(axis="y", alpha=0.3)
    axes[1].set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=8)
    if clipped:
        title = (title + "\n" if title else "") + "!: value outside [0, 1] (or NaN), drawn at the edge"
    if title:
        figure.suptitle(title, fontsize=10)
    figure.legend(*axes[0].get_legend_handles_labels(), loc="outside right upper", fontsize=7)
    return figure
