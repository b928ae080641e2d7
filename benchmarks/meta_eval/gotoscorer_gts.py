"""CLEME2.0 Table 2's GoToScorer row explored: which GoToScorer, which weights and which reference give the printed
correlations (an exploration after the row's declared protocol was scored, so nothing here counts as reproduced).

The row (SEEDA base systems, TrueSkill of sentence- and edit-based human judgements) was declared with gec-metrics'
GoToScorer without weights and misses by far (r .272 against .929). GoToScorer's difficulty weights come from many
systems' outputs: this script scores the 12 base systems under both rule sets (`rules='gec-metrics'` and the
original GoToScorer's `rules='gts'`, tests/test_gotoscorer_gts.py), without weights and with weights estimated
from the 12 base systems or from all 15 SEEDA outputs (the base systems, INPUT, REF-F and GPT-3.5), against each
of the two official references (`ref_id` 0 and 1), and prints Pearson's r and Spearman's ρ beside the printed
values. With `--gts`, a checkout of gotutiyan/GTS, it also runs GTS itself on ERRANT 2.3.3's M2 files of the same
texts (`legacy_errant`, the ERRANT version of the paper's other rows): the last rows of the table.

    python benchmarks/meta_eval/gotoscorer_gts.py --data ../shared/data [--gts path/to/GTS]
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
    parser.add_argument("--gts", type=Path, help="a checkout of github.com/gotutiyan/GTS (adds the ERRANT 2.3.3 rows)")
    args = parser.parse_args()
    from evaluator import Evaluator
    from published import rows

    from gecscore import registry

    targets = [r for r in rows() if r.metric == "gotoscorer"]
    ev = Evaluator(args.data, None)
    data = ev.dataset(targets[0])
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
                    cells = correlations({s: results[s].score for s in base}, data, targets, base)
                    printed = [v for row in targets for v in row.published]
                    shown = [f"**{v:.3f}**" if round(v, 3) == p else f"{v:.3f}" for v, p in zip(cells, printed)]
                    pool = pool_name if weights == "systems" else "—"
                    lines.append(f"| {rules} | {weights} | {pool} | {ref_id} | " + " | ".join(shown) + " |")
                    print(lines[-1], flush=True)
    if args.gts:
        lines += legacy_rows(args.gts, ev, data, targets, base, pools)
    printed = " | ".join(f"{v:.3f}" for row in targets for v in row.published)
    table = "\n".join(["| rules | weights | weights from | ref_id | SEEDA-S r | SEEDA-S ρ | SEEDA-E r | SEEDA-E ρ |",
                       "|---|---|---|---|---|---|---|---|", f"| printed | | | | {printed} |", *lines])
    about = __doc__.split("\n\n", 1)[1].split("    python")[0]
    command = ".venv/bin/python benchmarks/meta_eval/gotoscorer_gts.py --data ../shared/data" + (
        " --gts path/to/GTS" if args.gts else "")
    text = (f"# GoToScorer in CLEME2.0 Table 2: an exploration\n\n{about}Command:\n\n```\n{command}\n```\n\n"
            f"{table}\n\nBold: equal to the printed value at its three decimals. The whole run took "
            f"{time.time() - started:.0f} s.\n")
    args.out.write_text(text, encoding="utf-8")


def correlations(scores: dict[str, float], data, targets, base) -> list[float]:
    """(r, ρ) of each target row's human scores on the base systems."""
    from scipy.stats import pearsonr, spearmanr

    out = []
    for row in targets:
        metric, people = [scores[s] for s in base], [data.human[row.human][s] for s in base]
        out += [pearsonr(metric, people)[0], spearmanr(metric, people)[0]]
    return out


def legacy_rows(gts: Path, ev, data, targets, base, pools) -> list[str]:
    """GTS itself (its defaults a = 1, b = 0, c = 0) on ERRANT 2.3.3's M2 of the references and of each pool (the
    meta-evaluation's ERRANT 2.3.3 files, made once and kept in its cache)."""
    import legacy_errant
    from external import legacy_cache_dir, legacy_reference_m2

    sys.path.insert(0, str(gts))
    import gotoscorer
    from scripts import alignmenter, chunker

    ref_m2 = legacy_reference_m2(ev, targets[0])
    printed = [v for row in targets for v in row.published]
    lines = []
    for pool_name, pool in pools.items():
        hyp_m2 = legacy_errant.extract_m2(data.sources, [data.hypotheses[s] for s in pool], legacy_cache_dir(ev))
        for ref_id in (0, 1):
            gold = chunker.generate_chunk_from_m2(str(ref_m2), annotator_id=ref_id)
            judged = gotoscorer.calculate_weight(alignmenter.evaluate(gold, chunker.generate_system_chunks(
                str(hyp_m2))), 1.0, 0.0, 0.0)
            scores = gotoscorer.calculate_system_score(judged, len(pool), no_weight=False)
            cells = correlations({s: score.F05 for s, score in zip(pool, scores)}, data, targets, base)
            shown = [f"**{v:.3f}**" if round(v, 3) == p else f"{v:.3f}" for v, p in zip(cells, printed)]
            lines.append(f"| GTS itself, ERRANT 2.3.3 M2 | systems | {pool_name} | {ref_id} | " + " | ".join(shown)
                         + " |")
            print(lines[-1], flush=True)
    return lines


if __name__ == "__main__":
    main()
