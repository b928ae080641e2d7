"""PNG plots of a meta-evaluation: metric versus human scatter, and window correlations."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from gecscore.meta_eval.correlate import WindowCorrelation


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _finish(fig, ax, path: str | Path, xlabel: str, ylabel: str, title: str) -> Path:
    """Labels, grid, tight layout, PNG file; closes the figure."""
    plt = _pyplot()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    plt.close(fig)
    return path


def scatter_plot(path: str | Path, metric: Mapping[str, float], human: Mapping[str, float], systems: Sequence[str],
                 *, metric_label: str = "metric", human_label: str = "human", title: str = "") -> Path:
    """Scatter of human (x) against metric (y) system scores, each point labelled with its system."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.5))
    xs, ys = [human[s] for s in systems], [metric[s] for s in systems]
    ax.scatter(xs, ys)
    for name, x, y in zip(systems, xs, ys):
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(3, 3), fontsize=8)
    return _finish(fig, ax, path, human_label, metric_label, title)


def window_plot(path: str | Path, windows: Sequence[WindowCorrelation], *, title: str = "") -> Path:
    """Pearson and Spearman of each window of systems (x: human-rank range of the window)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    labels = [f"{w.start + 1}-{w.end + 1}" for w in windows]
    ax.plot(labels, [w.pearson for w in windows], marker="o", label="Pearson")
    ax.plot(labels, [w.spearman for w in windows], marker="s", label="Spearman")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_ylim(-1.05, 1.05)
    ax.legend()
    return _finish(fig, ax, path, "systems ranked by human score (window)", "correlation", title)
