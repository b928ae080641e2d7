"""Meta-evaluation: how well a metric agrees with human judgments (SEEDA, GJG15, GMEG-Data).

    from gecscore.meta_eval import load_dataset, get_metric, meta_evaluate
    data = load_dataset("seeda", "path/to/data", references="official")
    result = meta_evaluate(get_metric("errant"), data, system_set="base", aggregation="trueskill")
    result.system["ts_edit"].pearson
"""

from gecscore.common.aggregate import AGGREGATIONS, aggregate_scores, expected_wins, pairwise_outcomes, trueskill_scores
from gecscore.meta_eval.adapters import sharing_work
from gecscore.meta_eval.cache import ScoreCache, default_cache_dir
from gecscore.meta_eval.correlate import (Correlation, PairwiseAgreement, WindowCorrelation, correlate_systems, human_pairs,
                        sentence_agreement, system_correlation, window_correlations)
from gecscore.meta_eval.data import (GJG15_SYSTEMS, GMEG_SYSTEMS, SEEDA_SYSTEM_SETS, SEEDA_SYSTEMS, MetaEvalData, RankingItem,
                   load_dataset, load_gjg15, load_gmeg, load_seeda)
from gecscore.meta_eval.metrics import SentenceMetric, SystemScores, available_metrics, get_metric
from gecscore.meta_eval.runner import MetaEvalResult, meta_evaluate, score_systems

__all__ = [
    "AGGREGATIONS", "GJG15_SYSTEMS", "GMEG_SYSTEMS", "SEEDA_SYSTEMS", "SEEDA_SYSTEM_SETS", "Correlation",
    "MetaEvalData", "MetaEvalResult", "PairwiseAgreement", "RankingItem", "ScoreCache", "SentenceMetric",
    "SystemScores", "WindowCorrelation", "aggregate_scores", "available_metrics", "correlate_systems",
    "default_cache_dir",
    "expected_wins", "get_metric", "human_pairs", "load_dataset", "load_gjg15", "load_gmeg", "load_seeda",
    "meta_evaluate", "pairwise_outcomes", "score_systems", "sentence_agreement", "sharing_work",
    "system_correlation", "trueskill_scores", "window_correlations",
]
