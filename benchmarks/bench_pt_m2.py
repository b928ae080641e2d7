"""PT-M2 timings: the 1312-sentence CoNLL-2014 AMU sample (M2 lattice alone, and sentm2 with BERTScore) and the
pathological repetitive hypothesis that makes the official M2 scorer run for hours (nusnlp/m2scorer #8, #12).

The lattice is also timed against the literal transcription of the official algorithm used as the test oracle
(`tests/m2_oracle.py`: full triple loop for transitive arcs, Bellman–Ford over all edges for |V|-1 passes) on
growing prefixes of the pathological hypothesis, to show how the reference's cost grows.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data" / "CoNLL-2014" / "PT-M2" / "data"
sys.path.insert(0, str(REPO / "tests"))

SOURCE = ("However , the government should not be responsible for the health of the people because the people "
          "should be responsible for their own health .").split()
PHRASE = "the people should be responsible for".split()


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def amu(args) -> list[str]:
    from gecscore.pt_m2 import lattice as m2, metric as pt_m2
    from gecscore.common.m2io import read_m2

    gold = read_m2(DATA / "reference.m2")[:args.sentences]
    sources = (DATA / "source").read_text().split("\n")[:len(gold)]
    hypotheses = [line.strip() for line in (DATA / "hypothesis").read_text().splitlines()][:len(gold)]
    n = len(gold)
    rows = []
    t, _ = timed(lambda: [m2.extract_edits(s.split(), h.split(), m2.gold_edits(g))
                          for s, h, g in zip(sources, hypotheses, gold)])
    rows.append(f"| M2 edit extraction (lattice, all annotators) | {t:.2f} | {n / t:.0f} |")
    t, res = timed(lambda: pt_m2.score_m2(sources, hypotheses, gold, variant="m2"))
    rows.append(f"| M2 (`m2`, `self`), F0.5 = {res.f:.5f} | {t:.2f} | {n / t:.0f} |")
    t, res = timed(lambda: pt_m2.score_m2(sources, hypotheses, gold, variant="sentm2"))
    rows.append(f"| SentM2 (`sentm2`, `self`), {res.f:.5f} | {t:.2f} | {n / t:.0f} |")
    t_load, sim = timed(lambda: pt_m2.BERTScoreSimilarity(args.model, layer=args.layer))
    rows.append(f"| model load ({args.model}, layer {sim.layer}) | {t_load:.2f} | |")
    encoder = sim.scorer.encoder
    t, res = timed(lambda: pt_m2.score_m2(sources, hypotheses, gold, variant="sentm2", similarity=sim))
    rows.append(f"| PT-M2 (`sentm2`, BERTScore), {res.f:.6f}; {encoder.forward_count} sentences encoded "
                f"| {t:.2f} | {n / t:.1f} |")
    encoder_before = encoder.forward_count
    t, res = timed(lambda: pt_m2.score_m2(sources, hypotheses, gold, variant="sentm2", similarity=sim))
    rows.append(f"| same again (embeddings cached; {encoder.forward_count - encoder_before} encoded) "
                f"| {t:.2f} | {n / t:.1f} |")
    return rows


def pathological(args) -> list[str]:
    from gecscore.pt_m2 import lattice as m2
    from m2_oracle import oracle_edit_sequence

    gold = [m2.GoldEdit(5, 6, "not", ("",))]
    cases = [("150-token hypothesis repeating a phrase", (SOURCE[:10] + PHRASE * 30)[:150]),
             ("'the' x 150", ["the"] * 150)]
    rows = []
    for name, hyp in cases:
        t_build, lattice = timed(lambda: m2.Lattice(SOURCE, hyp))
        t_path, seq = timed(lambda: lattice.edit_sequence(gold))
        rows.append(f"| {name} ({len(SOURCE)} source tokens) | {len(lattice.cells)} | {len(lattice.entries)} "
                    f"| {t_build:.2f} | {t_path:.2f} | — |")
    for length in args.oracle_lengths:
        hyp = (SOURCE[:10] + PHRASE * 30)[:length]
        t_build, lattice = timed(lambda: m2.Lattice(SOURCE, hyp))
        t_path, seq = timed(lambda: lattice.edit_sequence(gold))
        t_oracle, want = timed(lambda: oracle_edit_sequence(SOURCE, hyp, gold))
        assert seq == want
        rows.append(f"| first {length} tokens of the repetitive hypothesis | {len(lattice.cells)} "
                    f"| {len(lattice.entries)} | {t_build:.2f} | {t_path:.3f} | {t_oracle:.1f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--layer", type=int, default=6)
    parser.add_argument("--sentences", type=int, default=1312)
    parser.add_argument("--oracle-lengths", type=int, nargs="*", default=[20, 30, 40])
    args = parser.parse_args()
    import torch

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"torch threads {torch.get_num_threads()}, cpus {os.cpu_count()}, load average {load:.1f}\n")
    print("| step (CoNLL-2014 AMU sample) | seconds | sentences/s |\n|---|---|---|")
    print("\n".join(amu(args)))
    print("\n| pathological case | lattice cells | arcs (E) | build s | path s | literal algorithm s |")
    print("|---|---|---|---|---|---|")
    print("\n".join(pathological(args)))


if __name__ == "__main__":
    main()
