"""Flag precision: of the sentences each metric flags as degenerate on SEEDA's systems, how many are perfect
corrections (the prediction equals a reference) or unchanged (the prediction equals the source), per reason, in the
published and the robust mode, before a change (`--base`) and after (this checkout).

A flag that fires on correct output teaches users to ignore flags; this table shows where they fired.

    python benchmarks/flag_precision.py --base 4a1b2c3 --data ../shared/data --out docs/flag-precision.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from report import base_tree, machine_line, write_report

REPO = Path(__file__).resolve().parent.parent
MINILM = {"model": "minilm", "layer": 6}
#: Label → (registry name, options): every metric whose flags depend on the sentences, with the offline model.
CONFIGS = {
    "uot_errant": ("uot_errant", {"model": "minilm"}),
    "pt_m2 (sentm2)": ("pt_m2", MINILM),
    "pt_m2 (errant)": ("pt_m2", {**MINILM, "variant": "errant"}),
    "cleme2 (similarity)": ("cleme2", MINILM),
    "cleme2 (none, sentence)": ("cleme2", {"weighting": "none", "level": "sentence"}),
    "errant": ("errant", {}),
}

CHILD = """
import json, sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from flag_precision import CONFIGS
from snapshot import datasets
from gecscore import registry
name, options = CONFIGS[sys.argv[2]]
_, sources, systems, references = next(d for d in datasets(__import__("pathlib").Path(sys.argv[3])) if d[0] == "seeda")
out = {}
for robust in (False, True):
    results = registry.run_systems(name, sources, systems, references, robust=robust, **options)
    rows = {}
    for system, result in results.items():
        below = 0
        for i, hyp in enumerate(systems[system]):
            if hyp in references[i] and result.sentences[i]["score"] != 1.0:
                below += 1
        rows[system] = {"flags": [(r["index"], r["reason"]) for r in result.details["degenerate_sentences"]],
                        "perfect_below_one": below}
    out[str(robust)] = rows
perfect = {s: [i for i, h in enumerate(p) if h in references[i]] for s, p in systems.items()}
unchanged = {s: [i for i, h in enumerate(p) if h == sources[i]] for s, p in systems.items()}
print(json.dumps({"runs": out, "perfect": perfect, "unchanged": unchanged, "sentences": len(sources)}))
"""


def measure(tree: Path, config: str, data: Path) -> dict:
    """The flags of one configuration in both modes, on the `gecscore` of `tree`, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(tree / "shared")}
    done = subprocess.run([sys.executable, "-c", CHILD, str(REPO / "benchmarks"), config, str(data)], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{config} on {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def rows_of(label: str, tree: str, measured: dict) -> list[str]:
    """Per mode and reason: flagged sentences (all systems), of which perfect, of which unchanged; and the
    perfect corrections whose sentence record scores below 1 (flagged or not, whatever reference it was scored
    against)."""
    lines = []
    for robust, systems in measured["runs"].items():
        by_reason: dict[str, set[tuple[str, int]]] = {}
        for system, row in systems.items():
            for index, reason in row["flags"]:
                by_reason.setdefault(reason, set()).add((system, index))
        below = sum(row["perfect_below_one"] for row in systems.values())
        mode = "robust" if robust == "True" else "published"
        for reason, flagged in sorted(by_reason.items()) or [("(none)", set())]:
            perfect = sum(1 for system, i in flagged if i in measured["perfect"][system])
            unchanged = sum(1 for system, i in flagged if i in measured["unchanged"][system])
            lines.append(f"| {label} | {tree} | {mode} | {reason} | {len(flagged)} | {perfect} | {unchanged} | "
                         f"{below} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit before the change (before); after is this checkout")
    parser.add_argument("--data", type=Path, required=True, help="a folder laid out like ../shared/data")
    parser.add_argument("--configs", nargs="*", choices=list(CONFIGS), default=list(CONFIGS))
    parser.add_argument("--out", type=Path, help="report (.md)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    data = args.data.resolve()
    lines = ["| metric | tree | mode | reason | flagged sentences | of them perfect | of them unchanged | "
             "perfect corrections with a sentence score below 1 |", "|---|---|---|---|---:|---:|---:|---:|"]
    totals: dict[str, int] = {}
    sentences = 0
    with base_tree(REPO, args.base) as (base, revision):
        for config in args.configs:
            for tree, path in (("before", base), ("after", REPO)):
                measured = measure(path, config, data)
                lines += rows_of(config, tree, measured)
                totals = {s: len(p) for s, p in measured["perfect"].items()}
                sentences = measured["sentences"]
            print(f"{config}: done", file=sys.stderr, flush=True)
    text = (f"Before = {revision} (`--base {args.base}`), after = this checkout. SEEDA subset, "
            f"{len(totals)} systems × {sentences} sentences, references REF0 / REF1, MiniLM where a model is needed. "
            f"Perfect: the prediction equals one of the references ({sum(totals.values())} sentence predictions "
            "in all); unchanged: it equals the source. A sentence flagged for several references counts once per "
            "reason.\n\n" + "\n".join(lines) + "\n\n" + machine_line(load))
    if args.out:
        write_report(args.out, "Flag precision: flags on perfect and unchanged sentences", "flag_precision.py",
                     sys.argv[1:], text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
