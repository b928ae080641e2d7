"""SEEDA (Base) meta-evaluation of IMPARA quality estimators: sentence-level accuracy / Kendall τ on SEEDA-S and
SEEDA-E, system-level Pearson / Spearman against TrueSkill with TrueSkill aggregation (the IMPARA-GED paper's
protocol, via `gecscore.meta_eval`), and a paired bootstrap of the sentence-level accuracy of two models.

    python benchmarks/impara_ged/evaluate_seeda.py NAME=MODEL [NAME=MODEL ...] --out results.json \
        [--compare NAME_A NAME_B]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from gecscore.meta_eval.cache import ScoreCache
from gecscore.meta_eval.correlate import human_pairs
from gecscore.meta_eval.data import load_seeda
from gecscore.meta_eval.metrics import get_metric
from gecscore.meta_eval.runner import meta_evaluate, score_systems

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def row(result_ts, result_default) -> dict:
    """The Table 2 cells (TrueSkill) plus the default (mean) aggregation for reference."""
    sent = result_ts.sentence
    return {
        "SEEDA-S": {"r": result_ts.system["ts_sent"].pearson, "rho": result_ts.system["ts_sent"].spearman,
                    "acc": sent["sent"].accuracy, "tau": sent["sent"].kendall, "pairs": sent["sent"].total},
        "SEEDA-E": {"r": result_ts.system["ts_edit"].pearson, "rho": result_ts.system["ts_edit"].spearman,
                    "acc": sent["edit"].accuracy, "tau": sent["edit"].kendall, "pairs": sent["edit"].total},
        "default_aggregation": {name: {"r": c.pearson, "rho": c.spearman}
                                for name, c in result_default.system.items()},
        "system_scores_trueskill": result_ts.metric_scores,
        "signature": result_ts.signature,
    }


def agreements(items, scores, systems) -> tuple[np.ndarray, np.ndarray]:
    """Per human pair: its ranking item's index and whether the metric agrees (SEEDA tie rule)."""
    owners, agree = [], []
    for i, item in enumerate(items):
        for sentence, a, b, human in human_pairs([item], systems):
            metric = 1 if scores[a][sentence] > scores[b][sentence] else -1
            owners.append(i)
            agree.append(metric == human)
    return np.array(owners), np.array(agree, dtype=float)


def paired_bootstrap(items, scores_a, scores_b, systems, samples: int = 1000, seed: int = 0) -> dict:
    """Accuracy difference A − B with a bootstrap over ranking items: 95% interval and P(difference <= 0)."""
    owners, agree_a = agreements(items, scores_a, systems)
    _, agree_b = agreements(items, scores_b, systems)
    per_item_a = np.bincount(owners, weights=agree_a, minlength=len(items))
    per_item_b = np.bincount(owners, weights=agree_b, minlength=len(items))
    count = np.bincount(owners, minlength=len(items)).astype(float)
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(samples):
        pick = rng.integers(0, len(items), len(items))
        n = count[pick].sum()
        diffs.append((per_item_a[pick].sum() - per_item_b[pick].sum()) / n)
    diffs = np.array(diffs)
    return {"difference": float((agree_a.sum() - agree_b.sum()) / len(agree_a)),
            "ci95": [float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))],
            "p_not_better": float(np.mean(diffs <= 0)), "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="NAME=MODEL (checkpoint directory, hub id or 'embedded')")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="paired bootstrap of A against B")
    args = parser.parse_args()
    data = load_seeda(args.data)
    cache = ScoreCache(args.out.parent / "score_cache")
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    metrics = {}
    for spec in args.models:
        name, _, model = spec.partition("=")
        start = time.time()
        metrics[name] = metric = get_metric("impara_ged", model=model, device="cpu")
        ts = meta_evaluate(metric, data, system_set="base", aggregation="trueskill", window=None, cache=cache)
        default = meta_evaluate(metric, data, system_set="base", aggregation="default", window=None, cache=cache)
        results[name] = {"model": model, **row(ts, default), "seconds": round(time.time() - start, 1)}
        print(name, json.dumps({k: results[name][k] for k in ("SEEDA-S", "SEEDA-E")}), flush=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    if args.compare:
        systems = data.system_set("base")
        a, b = ({s: v.sentence for s, v in score_systems(metrics[n], data, systems, cache=cache).items()}
                for n in args.compare)
        results[f"{args.compare[0]}-vs-{args.compare[1]}"] = {
            name: paired_bootstrap(data.judgments[key], a, b, systems)
            for name, key in (("SEEDA-S", "sent"), ("SEEDA-E", "edit"))
        }
        print(json.dumps(results[f"{args.compare[0]}-vs-{args.compare[1]}"]), flush=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
