"""Can a policy game the reward? Each metric's reward for a correction against the texts a policy could write instead.

Protocol (declared before scoring; every source and every row below is computed this way, none dropped):

* Sources: the first `--sources` (default 20) of SEEDA's 391 judged sentences (`gecscore.meta_eval.data.load_seeda`,
  official references) whose first reference differs from the source and that people ranked in SEEDA-S.
* Completions of each source, each given to the reward as raw model output would be (the rewards' defaults:
  robust, tokenised, normalised, and a metric's `training_defaults`): `reference`, its first reference (which the
  reference-based rewards also get as the references column, so they score it 1: the ceiling); `best system`, the
  output of the real system (not INPUT, REF-F or REF-M) people ranked best in SEEDA-S for that sentence (the first
  in SEEDA's order among equals); `unchanged`, the source; `empty`, ""; `unrelated`, the fluent "The cat sat on the
  mat ."; `unrelated nearby`, the next source's first reference (fluent, on-topic, another meaning).
* Rewards: every metric whose models ship on PyPI (MiniLM, the embedded IMPARA estimator), with the options the
  docs recommend; SOME, Scribendi and LLM-S/E need models from the Hub and are not measured here. Sums of two
  rewards (what TRL optimises when given both) are the recommended combinations.
* The gate's threshold for MiniLM: the cosine of IMPARA's similarity estimator (`se_model="minilm"`) between each
  of the 391 sources and every SEEDA output (15 systems, INPUT included) and both references (corrections, which a
  gate should let through), and between each source and the next source (a fluent sentence on the same topic with
  another meaning, which it should close on); for each threshold, the share of each let through.
* Reported: each completion kind's mean reward, and for `unchanged`, `empty` and the two unrelated ones the number
  of sources where it scores above the reference (a policy gains by writing it instead of the correction), and
  where it scores above the best system's output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from report import machine_line, write_report

REPO = Path(__file__).resolve().parent.parent
UNRELATED = "The cat sat on the mat ."
KINDS = ("reference", "best system", "unchanged", "empty", "unrelated", "unrelated nearby")
GAMES = ("unchanged", "empty", "unrelated", "unrelated nearby")
#: MiniLM's cosines run lower than BERT's: 0.6 keeps 99.9 % of SEEDA's corrections open (docs/training.md).
IMPARA_GATED = {"model": "embedded", "se_model": "minilm", "threshold": 0.6}
#: name → (metric, options) of one reward; the docs' recommendations are the sums in COMBINED.
REWARDS: dict[str, tuple[str, dict[str, Any]]] = {
    "ERRANT": ("errant", {}),
    "SentM²": ("sentm2", {}),
    "SentGLEU": ("gleu", {}),
    "GREEN": ("green", {}),
    "CLEME2.0 (unweighted)": ("cleme2", {"weighting": "none", "level": "sentence"}),
    "UOT-ERRANT (MiniLM)": ("uot_errant", {"model": "minilm"}),
    "PT-M2 (MiniLM)": ("pt_m2", {"model": "minilm", "layer": 6}),
    "BERTScore F (MiniLM)": ("bertscore", {"model": "minilm", "layer": 6, "rescale_with_baseline": False}),
    "IMPARA-GED, no gate": ("impara_ged", {"model": "embedded", "variant": "impara_ged"}),
    "IMPARA-GED, gated (training default)": ("impara_ged", IMPARA_GATED),
}
COMBINED = {"UOT-ERRANT + IMPARA-GED gated": ("UOT-ERRANT (MiniLM)", "IMPARA-GED, gated (training default)"),
            "ERRANT + IMPARA-GED gated": ("ERRANT", "IMPARA-GED, gated (training default)")}


def completions(data_dir: Path, n: int) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """The sources, their first references and every completion kind's texts (see the protocol)."""
    from gecscore.meta_eval.data import load_seeda

    data = load_seeda(data_dir)
    real = [s for s in data.systems if s not in ("INPUT", "REF-F", "REF-M")]
    best: dict[int, str] = {}
    for item in data.judgments["sent"]:
        ranked = sorted((rank, real.index(s)) for s, rank in item.ranks.items() if s in real)
        if ranked and item.sentence not in best:
            best[item.sentence] = real[ranked[0][1]]
    chosen = [i for i in range(len(data.sources)) if data.references[i][0] != data.sources[i] and i in best][:n]
    sources = [data.sources[i] for i in chosen]
    references = [data.references[i][0] for i in chosen]
    texts = {"reference": references, "best system": [data.hypotheses[best[i]][i] for i in chosen],
             "unchanged": sources, "empty": [""] * len(chosen), "unrelated": [UNRELATED] * len(chosen),
             "unrelated nearby": references[1:] + references[:1]}
    return sources, references, texts


def measure(names: list[str], data_dir: Path, n: int) -> dict[str, dict[str, list[float]]]:
    """name → kind → one reward per source."""
    from gecscore.rewards import reward_function

    sources, references, texts = completions(data_dir, n)
    out: dict[str, dict[str, list[float]]] = {}
    for name in names:
        metric, options = REWARDS[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reward = reward_function(metric, **options)
            out[name] = {kind: reward(completions=texts[kind], source=sources, references=[[r] for r in references])
                         for kind in KINDS}
    return out


def gate_thresholds(data_dir: Path, thresholds: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)) -> str:
    """The MiniLM similarity gate on all of SEEDA (see the protocol), as a markdown table."""
    import numpy as np

    from gecscore.impara_ged.metric import Impara
    from gecscore.meta_eval.data import load_seeda

    data = load_seeda(data_dir)
    impara = Impara("embedded", variant="impara", se_model="minilm")
    outputs = [*data.hypotheses.values(), *([refs[k] for refs in data.references] for k in range(2))]
    corrections = np.concatenate([impara.similarity(data.sources, texts) for texts in outputs])
    nearby = impara.similarity(data.sources, data.sources[1:] + data.sources[:1])
    lines = ["| threshold | corrections gated to 0 | next sources let through |", "|---|---|---|"]
    lines += [f"| {t} | {100 * (corrections <= t).mean():.2f} % of {len(corrections)} | "
              f"{100 * (nearby > t).mean():.1f} % of {len(nearby)} |" for t in thresholds]
    return "\n".join(lines)


def combine(rewards: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, list[float]]]:
    """The recommended sums of two rewards, per kind and source."""
    return {name: {kind: [a + b for a, b in zip(rewards[x][kind], rewards[y][kind])] for kind in KINDS}
            for name, (x, y) in COMBINED.items() if x in rewards and y in rewards}


def games(values: dict[str, list[float]], against: str = "reference") -> dict[str, int]:
    """Per gaming kind, on how many sources it scores above the completion kind `against`."""
    return {kind: sum(v > r for v, r in zip(values[kind], values[against])) for kind in GAMES}


def table(rows: dict[str, dict[str, list[float]]], n: int) -> str:
    head = ("| reward | " + " | ".join(KINDS) + f" | above the reference (of {n}) | above the best system (of {n}) |")
    lines = [head, "|" + "---|" * (len(KINDS) + 3),
             "| | mean reward" + " |" * len(KINDS) + " " + " / ".join(GAMES) + " | " + " / ".join(GAMES) + " |"]
    for name, values in rows.items():
        means = [sum(values[k]) / len(values[k]) for k in KINDS]
        lines.append(f"| {name} | " + " | ".join(f"{m:.3f}" for m in means) + " | "
                     + " / ".join(str(c) for c in games(values).values()) + " | "
                     + " / ".join(str(c) for c in games(values, "best system").values()) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "reward_sanity.md")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    rewards = measure(list(REWARDS), args.data, args.sources)
    both = {**rewards, **combine(rewards)}
    args.out.with_suffix(".json").write_text(json.dumps(both, indent=1) + "\n", encoding="utf-8")
    safe = [name for name, values in both.items() if not any(games(values).values())]
    report = (f"{(__doc__ or '').split(chr(10), 2)[2].strip()}\n\n## Results\n\n{table(both, args.sources)}\n\n"
              f"Never gamed on these sources (no `unchanged`, `empty` or unrelated completion above the reference): "
              f"{', '.join(safe)}.\n\n## IMPARA's similarity gate with MiniLM\n\n{gate_thresholds(args.data)}\n\n"
              f"{machine_line(load)} Took {time.perf_counter() - start:.0f} s.")
    write_report(args.out, "Can a policy game the reward?", "reward_sanity.py", argv or sys.argv[1:], report)
    print(args.out.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
