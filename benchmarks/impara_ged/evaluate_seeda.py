"""SEEDA (Base) meta-evaluation of IMPARA quality estimators: sentence-level accuracy / Kendall τ on SEEDA-S and
SEEDA-E, system-level Pearson / Spearman against TrueSkill with TrueSkill aggregation (the IMPARA-GED paper's
protocol, via `gecscore.meta_eval`).

    python benchmarks/impara_ged/evaluate_seeda.py NAME=MODEL [NAME=MODEL ...] --out results.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gecscore.meta_eval.data import load_seeda
from gecscore.meta_eval.metrics import get_metric
from gecscore.meta_eval.runner import meta_evaluate

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def row(result_ts, result_default) -> dict:
    """The Table 2 cells (TrueSkill) plus the default (mean) aggregation for reference."""
    sent = result_ts.sentence
    out = {
        "SEEDA-S": {"r": result_ts.system["ts_sent"].pearson, "rho": result_ts.system["ts_sent"].spearman,
                    "acc": sent["sent"].accuracy, "tau": sent["sent"].kendall, "pairs": sent["sent"].total},
        "SEEDA-E": {"r": result_ts.system["ts_edit"].pearson, "rho": result_ts.system["ts_edit"].spearman,
                    "acc": sent["edit"].accuracy, "tau": sent["edit"].kendall, "pairs": sent["edit"].total},
        "default_aggregation": {name: {"r": c.pearson, "rho": c.spearman}
                                for name, c in result_default.system.items()},
        "system_scores_trueskill": result_ts.metric_scores,
        "signature": result_ts.signature,
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="NAME=MODEL (checkpoint directory, hub id or 'embedded')")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    data = load_seeda(args.data)
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    for spec in args.models:
        name, _, model = spec.partition("=")
        start = time.time()
        metric = get_metric("impara-ged", model=model, device="cpu")
        ts = meta_evaluate(metric, data, system_set="base", aggregation="trueskill", window=None)
        default = meta_evaluate(metric, data, system_set="base", aggregation="default", window=None)
        results[name] = {"model": model, **row(ts, default), "seconds": round(time.time() - start, 1)}
        print(name, json.dumps({k: results[name][k] for k in ("SEEDA-S", "SEEDA-E")}), flush=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
