"""CLEME2.0 Table 2's GoToScorer row explored: which GoToScorer, which weights and which reference give the printed
correlations (an exploration after the row's declared protocol was scored, so nothing here counts as reproduced).

The row (SEEDA base systems, TrueSkill of sentence- and edit-based human judgements) was declared with gec-metrics'
GoToScorer without weights and misses by far (r .272 against .929). GoToScorer's difficulty weights come from many
systems' outputs: this script scores the 12 base systems under both rule sets (`rules='gec-metrics'` and the
original GoToScorer's `rules='gts'`, tests/test_gotoscorer_gts.py), without weights and with weights estimated
from the 12 base systems or from all 15 SEEDA outputs (the base systems, INPUT, REF-F and GPT-3.5), against each
of the two official references (`ref_id` 0 and 1), and prints Pearson's r and Spearman's ρ beside the printed
values.

    python benchmarks/meta_eval/gotoscorer_gts.py --data ../shared/data --out benchmarks/meta_eval/gotoscorer_gts.md
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(HERE.parents[1].parent / "shared" / "data"))
    parser.add_argument("--out", type=Path, default=HERE / "gotoscorer_gts.md")
    args = parser.parse_args()
    from scipy.stats import pearsonr, spearmanr

    from evaluator import Evaluator
    from published import rows

    from gecscore import registry

    targets = [r for r in rows() if r.metric == "gotoscorer"]
    data = Evaluator(args.data, None).dataset(targets[0])
    base = list(data.system_set(targets[0].system_set))
    pools = {"12 base systems": base, "all 15 outputs": list(data.hypotheses)}
    lines = []
    started = time.time()
    for rules in ("gec-metrics", "gts"):
        for weights, pool_names in (("none", ["12 base systems"]), ("systems", list(pools))):
            for pool_name in pool_names:
                for ref_id in (0, 1):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        results = registry.run_systems(
                            "gotoscorer", data.sources, {s: data.hypotheses[s] for s in pools[pool_name]},
                            data.references, rules=rules, weights=weights, ref_id=ref_id)
                    cells = []
                    for row in targets:
                        human = data.human[row.human]
                        metric, people = [results[s].score for s in base], [human[s] for s in base]
                        cells += [pearsonr(metric, people)[0], spearmanr(metric, people)[0]]
                    printed = [v for row in targets for v in row.published]
                    shown = [f"**{v:.3f}**" if round(v, 3) == p else f"{v:.3f}" for v, p in zip(cells, printed)]
                    pool = pool_name if weights == "systems" else "—"
                    lines.append(f"| {rules} | {weights} | {pool} | {ref_id} | " + " | ".join(shown) + " |")
                    print(lines[-1], flush=True)
    printed = " | ".join(f"{v:.3f}" for row in targets for v in row.published)
    table = "\n".join(["| rules | weights | weights from | ref_id | SEEDA-S r | SEEDA-S ρ | SEEDA-E r | SEEDA-E ρ |",
                       "|---|---|---|---|---|---|---|---|", f"| printed | | | | {printed} |", *lines])
    text = (f"# GoToScorer in CLEME2.0 Table 2: an exploration\n\n{__doc__.split(chr(10) * 2, 1)[1].split('    python')[0]}"
            f"Command:\n\n```\n.venv/bin/python benchmarks/meta_eval/gotoscorer_gts.py --data ../shared/data\n```\n\n"
            f"{table}\n\nBold: equal to the printed value at its three decimals. The whole run took "
            f"{time.time() - started:.0f} s.\n")
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
