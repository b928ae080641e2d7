"""Plots of a meta-evaluation: metric versus human scatter and window correlations (PNG); per-pair agreement
heatmaps, top-K curves and hyper-parameter searches (PNG and an SVG beside it)."""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from gecscore.meta_eval.correlate import WindowCorrelation

if TYPE_CHECKING:
    from gecscore.meta_eval.agreement import PairAgreementMatrix, RankPairAgreement, SystemPairAgreement
    from gecscore.meta_eval.search import CrossValidatedSearch, GridSearch
    from gecscore.meta_eval.topk import TopKCorrelation


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _finish(fig, ax, path: str | Path, xlabel: str, ylabel: str, title: str, *, svg: bool = False,
            grid: bool = True) -> Path:
    """Labels, grid, tight layout, PNG file (and the same name with .svg when `svg`); closes the figure."""
    plt = _pyplot()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if grid:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    if svg:
        fig.savefig(path.with_suffix(".svg"), format="svg")
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


def _lower_heatmap(values: np.ndarray, systems: Sequence[str], *, cmap: Any, vmin: float, vmax: float,
                   label: Callable[[float], str]) -> tuple[Any, Any, Any]:
    """Heatmap of the pairs below the diagonal of `values` (rows: systems 2..n, columns: 1..n-1), labelled."""
    plt = _pyplot()
    n = len(systems)
    shown = np.where(np.tril(np.ones((n, n), dtype=bool), k=-1), values, np.nan)[1:, :-1]
    fig, ax = plt.subplots(figsize=(1.5 + 0.55 * n, 0.8 + 0.5 * n))
    image = ax.imshow(np.ma.masked_invalid(shown), cmap=cmap, vmin=vmin, vmax=vmax)
    for i, j in zip(*np.nonzero(~np.isnan(shown))):
        ax.text(j, i, label(float(shown[i, j])), ha="center", va="center", fontsize=7)
    ax.set_xticks(range(n - 1), systems[:-1], rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n - 1), systems[1:], fontsize=8)
    return fig, ax, image


def pair_agreement_plot(path: str | Path, matrix: PairAgreementMatrix, *, baseline: PairAgreementMatrix | None = None,
                        title: str = "") -> Path:
    """UOT-ERRANT Figure 6: sentence-level agreement per system pair in %, or its change from `baseline` in points."""
    rates = matrix.rates * 100
    if baseline is None:
        cmap, vmin, vmax, fmt, bar = "viridis", 0.0, 100.0, "{:.0f}", "agreement (%)"
    else:
        if baseline.systems != matrix.systems:
            raise ValueError("the baseline's systems differ from the metric's")
        rates = rates - baseline.rates * 100
        limit = max([1.0, *np.abs(rates[np.isfinite(rates)])])
        cmap, vmin, vmax, fmt, bar = "RdBu", -limit, limit, "{:+.0f}", "change in agreement (points)"
    fig, ax, image = _lower_heatmap(rates, matrix.systems, cmap=cmap, vmin=vmin, vmax=vmax, label=fmt.format)
    fig.colorbar(image, ax=ax, label=bar)
    return _finish(fig, ax, path, "", "", title, svg=True, grid=False)


def system_pair_plot(path: str | Path, agreement: SystemPairAgreement, *, title: str = "") -> Path:
    """System-level order of each pair: green where the metric orders it as the humans, red where not."""
    from matplotlib.colors import ListedColormap

    marks = {1: "ok", -1: "x", 0: "="}
    fig, ax, _ = _lower_heatmap(agreement.matrix.astype(float), agreement.systems,
                                cmap=ListedColormap(["#d6604d", "#f0f0f0", "#4dac26"]), vmin=-1.5, vmax=1.5,
                                label=lambda v: marks[int(v)])
    title = title or f"pairs ordered as the humans: {agreement.agree}/{agreement.total} = {agreement.accuracy:.3f}"
    return _finish(fig, ax, path, "", "", title, svg=True, grid=False)


def top_k_plot(path: str | Path, curves: Mapping[str, Sequence[TopKCorrelation]], *, title: str = "") -> Path:
    """PT-M² Figure 2: Pearson (solid) and Spearman (dashed) of the top-K systems, K decreasing to the right."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, curve in curves.items():
        ks = [c.k for c in curve]
        line, = ax.plot(ks, [c.pearson for c in curve], marker="o", label=f"{label} r")
        ax.plot(ks, [c.spearman for c in curve], marker="s", linestyle="--", color=line.get_color(),
                label=f"{label} rho")
    ax.invert_xaxis()
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_ylim(-1.05, 1.05)
    ax.legend(fontsize=8)
    return _finish(fig, ax, path, "K (best systems by human score)", "correlation", title, svg=True)


def search_plot(path: str | Path, search: GridSearch, *, title: str = "") -> Path:
    """Correlation per grid value (x: the value when numeric, else its grid position); the chosen value marked."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    values = [p.value for p in search.points]
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)
    xs = values if numeric else list(range(len(values)))
    ax.plot(xs, [p.correlation.pearson for p in search.points], marker=".", label="Pearson")
    ax.plot(xs, [p.correlation.spearman for p in search.points], marker=".", label="Spearman")
    ax.axvline(xs[search.best], color="grey", linestyle=":", label=f"chosen: {search.best_value}")
    ax.legend(fontsize=8)
    return _finish(fig, ax, path, search.param if numeric else f"{search.param} (grid position)", "correlation",
                   title, svg=True)


def cross_validation_plot(path: str | Path, search: CrossValidatedSearch, *, title: str = "") -> Path:
    """Per held-out fold: the chosen value's training and held-out correlation (the search's key)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(1.5 + 1.1 * len(search.rounds), 4))
    xs = range(len(search.rounds))
    train = [getattr(r.train, search.key) for r in search.rounds]
    test = [getattr(r.test, search.key) for r in search.rounds]
    ax.bar([x - 0.2 for x in xs], train, width=0.4, label="training folds (mean)")
    ax.bar([x + 0.2 for x in xs], test, width=0.4, label="held out")
    for x, r in zip(xs, search.rounds):
        ax.annotate(str(r.value), (x, max(train[x], test[x])), textcoords="offset points", xytext=(0, 3),
                    ha="center", fontsize=6)
    ax.set_xticks(list(xs), [r.held_out for r in search.rounds], rotation=30, ha="right")
    ax.legend(fontsize=8, loc="lower right")
    return _finish(fig, ax, path, "held-out fold", search.key, title, svg=True)


def rank_pair_plot(path: str | Path, agreement: RankPairAgreement, *, title: str = "") -> Path:
    """gec-metrics' `pairwise_analysis_plot`: agreement per pair of human ranks, better rank (A) down, worse rank (B)
    across, blank where no pair of those ranks was compared."""
    plt = _pyplot()
    better = sorted({b for b, _ in agreement.pairs})
    worse = sorted({w for _, w in agreement.pairs})
    values = np.full((len(better), len(worse)), np.nan)
    for (b, w), rate in zip(agreement.pairs, agreement.rates):
        values[better.index(b), worse.index(w)] = rate
    fig, ax = plt.subplots(figsize=(1.8 + 0.6 * len(worse), 1.2 + 0.5 * len(better)))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="coolwarm", vmin=0.0, vmax=1.0)
    for i, j in zip(*np.nonzero(~np.isnan(values))):
        ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(worse)), worse)
    ax.set_yticks(range(len(better)), better)
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    fig.colorbar(image, ax=ax, label="agreement")
    return _finish(fig, ax, path, "rank B (worse)", "rank A (better)", title, svg=True, grid=False)
