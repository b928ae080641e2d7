"""Our values of the listing tables' cells (PT-M2 Table 6, CLEME2.0 Tables 5, 11, 12): rankings, rank differences,
CLEME2.0's disentangled counts and scores, their correlations and α-grid averages.

`LISTING_COMPUTE` maps a listing's `compute` (declared in `published/*.json`) to the function that gives one value per
printed cell; the switches of these tables reuse the same builders with another α, edit source or rule.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Sequence

from published import Listing, Row, listings

if TYPE_CHECKING:
    from evaluator import Evaluator

GJG_HUMANS = ("ew_nusnlp", "ts_nusnlp")


def ranking(scores: dict[str, float]) -> list[str]:
    """Systems from the highest score to the lowest (ties keep the given order)."""
    return sorted(scores, key=lambda s: -scores[s])


def rank_differences(metric_ranking: Sequence[str], human_rankings: Sequence[Sequence[str]]) -> list[int]:
    """Per rank of the metric's ranking: the distance to the system's nearest rank among the human rankings."""
    return [min(abs(human.index(system) - k) for human in human_rankings)
            for k, system in enumerate(metric_ranking)]


def gjg_row(metric: str, human: str = "ew_nusnlp") -> Row:
    """A GJG15 row on the official CoNLL-2014 references (PT-M2 Table 6's rankings and the human scores)."""
    return Row("", "", metric, "gjg15", "official", "all", "default", human, (None, None))


def ranking_by_metric(item: Listing, ev: Evaluator) -> list:
    """Systems by the GJG15 base score of the metric `item.args["metric"]`."""
    return ranking(ev.result(gjg_row(item.args["metric"])).metric_scores)


def ranking_by_human(item: Listing, ev: Evaluator) -> list:
    """Systems by the human score `item.args["human"]`."""
    human, systems = ev.human(gjg_row("m2", item.args["human"]))
    return ranking({s: human[s] for s in systems})


def rank_difference(humans: Sequence[str]) -> Callable[[Listing, Evaluator], list]:
    """PT-M2 Table 6's Δ per column (a ranking row's name) against the rankings of `humans` ("ew", "ts")."""
    def compute(item: Listing, ev: Evaluator) -> list:
        metrics = {x.name: x.args["metric"] for x in listings() if x.compute == "metric-ranking"}
        targets = [ranking_by_human(replace(item, args={"human": f"{h}_nusnlp"}), ev) for h in humans]
        return [sum(rank_differences(ranking_by_metric(replace(item, args={"metric": metrics[name]}), ev), targets))
                for name in item.columns]
    return compute


def stated_alpha(level: str) -> tuple[float, ...]:
    """The paper's stated trade-off factors α of a level (cleme2's defaults)."""
    from gecscore.cleme2.metric import ALPHA_CORPUS, ALPHA_SENTENCE

    return ALPHA_CORPUS if level == "corpus" else ALPHA_SENTENCE


TABLE12_ALPHA = (0.50, 0.40, 0.05, 0.05)


def heuo_table(alpha: tuple[float, ...] | None = None, edits: str = "ours") -> Callable[[Listing, Evaluator], list]:
    """CLEME2.0 Table 12's cells: one field per system, under `alpha` (default the level's stated α)."""
    def compute(item: Listing, ev: Evaluator) -> list:
        a = item.args
        return [ev.disentangled(s, a["assumption"], a["level"], alpha or stated_alpha(a["level"]), edits)[a["field"]]
                for s in item.columns]
    return compute


def correlation_cells(scores: dict[str, float], ev: Evaluator) -> list[float]:
    """EW r, EW ρ, TS r, TS ρ of GJG15 system scores and their mean (the papers' "Avg.")."""
    from gecscore.meta_eval.correlate import correlate_systems

    values = []
    for human in GJG_HUMANS:
        scores_h, systems = ev.human(gjg_row("m2", human))
        corr = correlate_systems(scores, scores_h, systems)
        values += [corr.pearson, corr.spearman]
    return values + [sum(values) / len(values)]


def heuo_correlation(sign: Callable[[str], bool], alpha: tuple[float, ...] | None = None
                     ) -> Callable[[Listing, Evaluator], list]:
    """CLEME2.0 Table 5's cells: one indicator's correlations, 1 − x where `sign(field)`."""
    def compute(item: Listing, ev: Evaluator) -> list:
        from gecscore.meta_eval.data import GJG15_SYSTEMS

        level, name = item.args["level"], item.args["field"]
        raw = {s: ev.disentangled(s, "dependent", level, alpha or stated_alpha(level))[name] for s in GJG15_SYSTEMS}
        return correlation_cells({s: 1 - v if sign(name) else v for s, v in raw.items()}, ev)
    return compute


ONE_HOT = {"hit": (1.0, 0.0, 0.0, 0.0), "err": (0.0, 1.0, 0.0, 0.0), "und": (0.0, 0.0, 1.0, 0.0),
           "ove": (0.0, 0.0, 0.0, 1.0)}


def heuo_ablation(item: Listing, ev: Evaluator) -> list:
    """CLEME2.0 Table 5 as an ablation: each row's indicator alone (one-hot α, so the reference choice follows that
    indicator), CLEME's M2-file counts; the Avg. is the mean of the four cells as printed (3 decimals, half up)."""
    from decimal import ROUND_HALF_UP, Decimal

    from gecscore.meta_eval.data import GJG15_SYSTEMS

    level, name = item.args["level"], item.args["field"]
    raw = {s: ev.disentangled(s, "dependent", level, ONE_HOT[name], "m2")[name] for s in GJG15_SYSTEMS}
    values = correlation_cells({s: v if name == "hit" else 1 - v for s, v in raw.items()}, ev)[:4]
    printed = [Decimal(repr(v)).quantize(Decimal("0.001"), ROUND_HALF_UP) for v in values]
    return values + [float((sum(printed) / 4).quantize(Decimal("0.001"), ROUND_HALF_UP))]


def grid_average(per_system: dict[str, Sequence[float]], human: dict[str, float], systems: Sequence[str]
                 ) -> tuple[float, float]:
    """Pearson and Spearman averaged over grid points (`per_system[s][k]`: system s's score at point k)."""
    from gecscore.meta_eval.correlate import correlate_systems

    n = len(next(iter(per_system.values())))
    corrs = [correlate_systems({s: per_system[s][k] for s in systems}, human, systems) for k in range(n)]
    return (sum(c.pearson for c in corrs) / n, sum(c.spearman for c in corrs) / n)


def alpha_grid(positive: bool) -> Callable[[Listing, Evaluator], list]:
    """CLEME2.0 Table 11's cells: correlations averaged over the 0.05 α grid (0 < α_i, or α_i ≥ 0)."""
    def compute(item: Listing, ev: Evaluator) -> list:
        import numpy as np

        from gecscore.meta_eval.data import GJG15_SYSTEMS
        from gecscore.meta_eval.heuo import com_grid
        from gecscore.meta_eval.search import simplex_grid

        grid = np.array(simplex_grid(0.05) if positive else nonnegative_grid(0.05))
        a = item.args
        scores = {s: com_grid(ev.heuo_counts(s)[a["assumption"]], grid, a["level"]) for s in GJG15_SYSTEMS}
        values = []
        for human in GJG_HUMANS:
            scores_h, systems = ev.human(gjg_row("m2", human))
            values += list(grid_average(scores, scores_h, systems))
        return values + [sum(values) / len(values)]
    return compute


def nonnegative_grid(step: float) -> list[tuple[float, ...]]:
    """Every (α1, α2, α3, α4) of multiples of `step`, each ≥ 0, that sum to 1 (1771 points at 0.05)."""
    units = round(1 / step)
    return [tuple(round(k * step, 10) for k in (a, b, c, units - a - b - c))
            for a in range(units + 1) for b in range(units + 1 - a) for c in range(units + 1 - a - b)]


LISTING_COMPUTE: dict[str, Callable[[Listing, Evaluator], list]] = {
    "metric-ranking": ranking_by_metric,
    "human-ranking": ranking_by_human,
    "rank-difference": rank_difference(("ew",)),
    "heuo-table": heuo_table(),
    "heuo-correlation": heuo_correlation(lambda name: name != "hit"),
    "alpha-grid": alpha_grid(positive=True),
}
