"""MBR with each metric on SEEDA: the 15 systems' outputs of each sentence as a 15-best list, ranked against people.

Protocol (declared before scoring; every row below is computed this way, none dropped):

* Data: SEEDA's 391 judged sentences (`gecscore.meta_eval.data.load_seeda`, official references), the outputs of
  its 15 systems (INPUT, the unchanged source, and REF-F / REF-M, the two human corrections, included) as the
  candidates of each sentence, in SEEDA's system order.
* MBR: `gecscore.rerank(..., method="mbr")` with the metric's defaults as in the meta-evaluation's model-free rows
  and MiniLM where a model is needed, robust mode (the rerank default): each candidate's expected utility is its
  mean sentence score against the 14 other candidates as references. Reference-free metrics (IMPARA-GED) score the
  candidates directly (`method="reference_free"`); references are used by no MBR row. SEEDA's text is tokenised,
  so it is read as given (`tokenize=False, normalize=False`, `AS_GIVEN`), and IMPARA-GED is the plain estimator
  (`variant="impara_ged"`): the settings these rows were measured with before reranking's defaults for raw model
  output and IMPARA's similarity gate (issue 39).
* Against people: SEEDA's sentence-level rankings (`sent`: SEEDA-S, whole sentences; `edit`: SEEDA-E, edits). (1)
  *Pairwise accuracy*: over every human pair of differently ranked candidates, how often the higher expected
  utility goes to the candidate people ranked better (a tie counts as the second candidate better, SEEDA's rule;
  `gecscore.meta_eval.correlate.sentence_agreement`). (2) *Win rate of the choice*: over every human pair that holds
  the chosen candidate of its sentence and another candidate ranked differently, how often people prefer the chosen
  one; a uniformly random choice expects 0.5.
* For comparison, the same metric with SEEDA's official references instead of pseudo-references
  (`method="reference"`, not MBR: what references buy) on the same two measures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Sequence

from report import machine_line, write_report

REPO = Path(__file__).resolve().parent.parent
#: SEEDA's tokenised text read as given, as these rows were measured (reranking tokenises raw text by default).
AS_GIVEN = {"tokenize": False, "normalize": False}
#: name → (registry metric, options, method when not MBR)
ROWS: dict[str, tuple[str, dict[str, Any], str]] = {
    "ERRANT": ("errant", {}, "mbr"),
    "SentM²": ("sentm2", {}, "mbr"),
    "CLEME2.0 (unweighted)": ("cleme2", {"weighting": "none", "level": "sentence"}, "mbr"),
    "SentGLEU": ("gleu", {}, "mbr"),
    "GREEN": ("green", {}, "mbr"),
    "UOT-ERRANT (MiniLM)": ("uot_errant", {"model": "minilm"}, "mbr"),
    "PT-M2 sentm2 (MiniLM)": ("pt_m2", {"model": "minilm", "layer": 6}, "mbr"),
    "BERTScore F (MiniLM)": ("bertscore", {"model": "minilm", "layer": 6, "rescale_with_baseline": False}, "mbr"),
    "IMPARA-GED (embedded)": ("impara_ged", {"model": "embedded", "variant": "impara_ged"}, "reference_free"),
}


def win_rate(items: Sequence[Any], choice: Sequence[str]) -> tuple[float, int]:
    """How often people prefer the chosen candidate of a sentence over another they ranked differently."""
    wins = total = 0
    for item in items:
        chosen = choice[item.sentence]
        mine = item.ranks.get(chosen)
        if mine is None:
            continue
        for system, rank in item.ranks.items():
            if system != chosen and rank != mine:
                total += 1
                wins += rank > mine
    return wins / total, total


def measure(name: str, data: Any, method: str | None = None) -> dict[str, Any]:
    from gecscore import rerank
    from gecscore.meta_eval.correlate import sentence_agreement

    metric, options, default_method = ROWS[name]
    method = method or default_method
    systems = list(data.systems)
    candidates = [[data.hypotheses[s][i] for s in systems] for i in range(len(data.sources))]
    references = data.references if method == "reference" else None
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rerank(data.sources, candidates, references, metric=metric, method=method, **AS_GIVEN, **options)
    seconds = time.perf_counter() - start
    scores = {s: [row[k] if row[k] is not None else 0.0 for row in result.scores] for k, s in enumerate(systems)}
    choice = [systems[j] for j in result.choice]
    out = {"row": name, "metric": metric, "method": method, "seconds": seconds, "signature": result.signature,
           "chosen_systems": {s: choice.count(s) for s in systems}}
    for judgment in ("sent", "edit"):
        agreement = sentence_agreement(data.judgments[judgment], scores, systems)
        rate, pairs = win_rate(data.judgments[judgment], choice)
        out[judgment] = {"accuracy": agreement.accuracy, "pairs": agreement.total, "win_rate": rate,
                         "win_pairs": pairs}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS))
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "mbr_seeda")
    args = parser.parse_args()
    from gecscore.meta_eval.data import load_seeda

    data = load_seeda(args.data, "official")
    load = os.getloadavg()[0]
    started = time.perf_counter()
    results = []
    for name in args.rows:
        print(f"{name} ...", flush=True)
        results.append(measure(name, data))
        if ROWS[name][2] == "mbr":
            results.append(measure(name, data, "reference"))
    wall = time.perf_counter() - started
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    lines = [__doc__.split("\n\n", 1)[1].strip(), "",
             f"Run {time.strftime('%Y-%m-%dT%H:%M:%S%z')}, wall {wall / 60:.1f} min. {machine_line(load)}", "",
             "| metric | method | SEEDA-S accuracy | SEEDA-S win rate | SEEDA-E accuracy | SEEDA-E win rate | seconds |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['row']} | {r['method']} | {r['sent']['accuracy']:.3f} | {r['sent']['win_rate']:.3f} | "
                     f"{r['edit']['accuracy']:.3f} | {r['edit']['win_rate']:.3f} | {r['seconds']:.0f} |")
    pairs = results[0]
    lines += ["", f"Human pairs: SEEDA-S {pairs['sent']['pairs']:,}, SEEDA-E {pairs['edit']['pairs']:,} (accuracy). "
              "Which system's output MBR chose, per row, is in `mbr_seeda.json` (`chosen_systems`)."]
    write_report(args.out.with_suffix(".md"), "MBR on SEEDA: each metric's choice against human judgements",
                 "mbr_seeda.py", sys.argv[1:], "\n".join(lines))


if __name__ == "__main__":
    main()
