"""Top-K correlation (PT-M², Gong et al. 2022, Figure 2): correlation over only the K best systems by human score.

The paper ranks the 13 GJG15 systems by Expected Wins and plots Pearson r for K = 13 down to 4: how well a
metric separates systems that are all competitive. K below 4 is allowed but says little (any two points
correlate perfectly).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from gecscore.meta_eval.correlate import system_correlation

#: The smallest K of the paper's Figure 2.
PAPER_MIN_K = 4


@dataclass(frozen=True)
class TopKCorrelation:
    """Pearson r and Spearman rho of the `k` systems with the highest human scores."""

    k: int
    systems: tuple[str, ...]
    pearson: float
    spearman: float


def top_k_correlations(metric: Mapping[str, float], human: Mapping[str, float], systems: Sequence[str],
                       min_k: int = PAPER_MIN_K) -> list[TopKCorrelation]:
    """Correlations for K = len(systems) down to `min_k` (human ties keep the order of `systems`)."""
    if not 2 <= min_k <= len(systems):
        raise ValueError(f"min_k must be between 2 and {len(systems)}, got {min_k}")
    missing = [s for s in systems if s not in metric or s not in human]
    if missing:
        raise ValueError(f"no score for systems {missing}")
    ordered = sorted(systems, key=lambda s: human[s], reverse=True)
    out = []
    for k in range(len(ordered), min_k - 1, -1):
        top = tuple(ordered[:k])
        corr = system_correlation([metric[s] for s in top], [human[s] for s in top])
        out.append(TopKCorrelation(k, top, corr.pearson, corr.spearman))
    return out
