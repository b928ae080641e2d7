"""Writes rank_pairs_golden.json: gec-metrics' `MetaEvalBase.pairwise_analysis` (accuracy by pair of human ranks),
run unchanged on a small hand-made case, for tests/test_meta_analyses.py.

Run with gec-metrics 0.1.1 installed (PyPI, MIT licence):

    python tests/golden_rank_pairs/make_golden.py

The case: 4 systems, 4 sentences, one or two annotators per sentence, human rank ties, a system left unranked, and
metric ties (which SEEDA counts as a loss for the first system of the pair). A tiny reference-free metric returns the
case's sentence scores, so the reference function sees exactly these scores through its own `score_pairwise`.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

from gec_metrics.meta_eval.base import MetaEvalBase
from gec_metrics.metrics.base import MetricBaseForReferenceFree

SYSTEMS = ["A", "B", "C", "D"]
SCORES = {  # system -> one score per sentence
    "A": [0.9, 0.2, 0.5, 0.4],
    "B": [0.9, 0.6, 0.1, 0.4],
    "C": [0.3, 0.6, 0.7, 0.8],
    "D": [0.1, 0.9, 0.5, 0.2],
}
ITEMS = [  # (sentence, annotator, ranks: 1 = best; a system left out is unranked)
    (0, "x", {"A": 1, "B": 2, "C": 3, "D": 4}),
    (0, "y", {"A": 2, "B": 1, "C": 2, "D": 3}),
    (1, "x", {"A": 4, "B": 1, "C": 2, "D": 3}),
    (2, "x", {"A": 1, "C": 1, "D": 2}),
    (2, "y", {"A": 3, "B": 2, "C": 1, "D": 4}),
    (3, "x", {"A": 2, "B": 1, "C": 3, "D": 3}),
]


class TableMetric(MetricBaseForReferenceFree):
    """Scores a hypothesis "system|sentence" with the case's score."""

    def score_sentence(self, sources, hypotheses):
        return [SCORES[h.split("|")[0]][int(h.split("|")[1])] for h in hypotheses]


def main() -> None:
    n = len(SCORES["A"])
    annotations = [[item for item in ITEMS if item[0] == s] for s in range(n)]
    human = [[[-ranks[m] if m in ranks else None for m in SYSTEMS] for _, _, ranks in per] for per in annotations]
    fake = SimpleNamespace(sentence_data={
        "sources": [f"s{s}" for s in range(n)],
        "hypotheses": [[f"{m}|{s}" for s in range(n)] for m in SYSTEMS],
        "references": [],
        "models": SYSTEMS,
        "human_score": {"sent": human},
    })
    result = MetaEvalBase.pairwise_analysis(fake, TableMetric())
    out = {
        "reference": f"gec-metrics {version('gec-metrics')}",
        "command": "python tests/golden_rank_pairs/make_golden.py",
        "systems": SYSTEMS,
        "scores": SCORES,
        "items": [{"sentence": s, "annotator": a, "ranks": r} for s, a, r in ITEMS],
        "pairwise_analysis": [[list(key), acc] for key, acc in result["sent"]],
    }
    path = Path(__file__).resolve().parent / "rank_pairs_golden.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
