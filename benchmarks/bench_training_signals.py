"""Training signals at training sizes: TRL rewards per GRPO step against the forward floor, memory over many steps,
and IMPARA-GED scoring of a large dataset (`gecscore.score_dataset`) against its forward floor.

Rewards: a GRPO step scores B prompts × G completions. Prompts are SEEDA subset sentences in order (B per step);
a prompt's G completions are G of SEEDA's 15 system outputs for it (a different G each step), each with
probability 1/2 changed by one random token edit (delete, duplicate or swap two neighbours; seeded), so that most
completions are new, as sampled completions are. Sources and references (REF0, REF1) are dataset columns. Each
metric runs in a fresh process: `reward_function(metric, **options)` with the defaults a trainer gets (robust,
tokenize, normalize), 3 warm-up steps (model loading, first parses), then timed steps.

The floor of a step is the model work it cannot avoid, measured inside the same run: the time spent in the
encoder's forward passes (`Encoder._forward`: every text not in the caches, batched as the metric batches them) plus
spaCy's parses of new texts (`EditExtractor._parse`). The ratio is step time / floor time over the timed steps;
everything else (tokenising, edit extraction, transport, counting, the reward's own bookkeeping) is the overhead.
Model-free metrics have no encoder, so their floor is the parses alone (or nothing: GLEU, GREEN).

Memory: one metric over many steps, every completion new (two random token edits each), resident memory (RSS) and
the caches' fill sampled; the caches are bounded (encoder outputs by `GECSCORE_CACHE_BYTES`, 1 GiB by default;
parses and edit lists by entry counts), so memory must level off once they are full.

Dataset: `score_dataset(dataset, "impara_ged", model="embedded")` over N (source, correction) pairs built from SEEDA's
15 systems (each pair changed by one seeded token edit, so that nearly every text is new), rows per second and the
encoder floor measured as above, peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from report import machine_line, write_report

REPO = Path(__file__).resolve().parent.parent
SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
           "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS", "INPUT"]
#: metric → (options, what the row says)
METRICS: dict[str, tuple[dict[str, Any], str]] = {
    "uot_errant": ({"model": "minilm"}, "UOT-ERRANT, MiniLM"),
    "pt_m2": ({"model": "minilm", "layer": 6}, "PT-M2 sentm2, BERTScore MiniLM layer 6"),
    "cleme2": ({"model": "minilm", "layer": 6, "weighting": "similarity"}, "CLEME2.0, similarity weights (MiniLM)"),
    "impara_ged": ({"model": "embedded"}, "IMPARA-GED, the embedded MiniLM estimator"),
    "bertscore": ({"model": "minilm", "layer": 6, "rescale_with_baseline": False}, "BERTScore F, MiniLM layer 6"),
    "errant": ({}, "ERRANT F0.5"),
    "sentm2": ({}, "SentM² F0.5"),
    "gleu": ({}, "SentGLEU"),
    "green": ({}, "GREEN F2"),
}


def seeda(data: Path) -> tuple[list[str], dict[str, list[str]], list[list[str]]]:
    def lines(rel: str) -> list[str]:
        return (data / rel).read_text(encoding="utf-8").rstrip("\n").split("\n")

    outputs = {name: lines(f"SEEDA/outputs/subset/{name}.txt") for name in SYSTEMS}
    refs = [list(r) for r in zip(lines("SEEDA/derived/REF0.txt"), lines("SEEDA/derived/REF1.txt"))]
    return outputs["INPUT"], outputs, refs


def perturb(text: str, rng: random.Random, edits: int = 1, keep: float = 0.5) -> str:
    """`text` unchanged with probability `keep`, else with `edits` random token edits (delete, duplicate, swap two
    neighbours)."""
    tokens = text.split()
    if len(tokens) < 2 or rng.random() < keep:
        return text
    for _ in range(edits):
        i = rng.randrange(len(tokens) - 1)
        kind = rng.randrange(3)
        if kind == 0 and len(tokens) > 2:
            del tokens[i]
        elif kind == 1:
            tokens.insert(i, tokens[i])
        else:
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
    return " ".join(tokens)


def step_batch(step: int, b: int, g: int, sources: list[str], outputs: dict[str, list[str]], refs: list[list[str]],
               rng: random.Random, **change: Any) -> dict[str, list]:
    rows = [(step * b + k) % len(sources) for k in range(b)]
    completions, source, references = [], [], []
    for i in rows:
        for j in range(g):
            system = SYSTEMS[(step + j) % len(SYSTEMS)]
            completions.append(perturb(outputs[system][i], rng, **change))
            source.append(sources[i])
            references.append(refs[i])
    return {"prompts": [f"Correct: {s}" for s in source], "completions": completions, "source": source,
            "references": references}


class Floor:
    """Time spent in the encoder's forward passes and spaCy's parses (patched in place)."""

    def __init__(self) -> None:
        from gecscore.common import edits, encoders

        self.seconds = 0.0
        self.texts = 0
        for owner, name in ((encoders.Encoder, "_forward"), (edits.EditExtractor, "_parse")):
            original = getattr(owner, name)
            setattr(owner, name, self._timed(original))

    def _timed(self, original):
        def timed(this, texts, *args, **kwargs):
            start = time.perf_counter()
            out = original(this, texts, *args, **kwargs)
            out = out if isinstance(out, dict) else list(out)  # a generator's work is done here, inside the timing
            self.texts += len(texts)
            self.seconds += time.perf_counter() - start
            return out
        return timed


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def child_rewards(metric: str, data: Path, b: int, g: int, steps: int, warmup: int) -> dict[str, Any]:
    import warnings

    warnings.simplefilter("ignore")
    from gecscore.rewards import reward_function

    floor = Floor()
    sources, outputs, refs = seeda(data)
    rng = random.Random(0)
    start = time.perf_counter()
    reward = reward_function(metric, **METRICS[metric][0])
    build_s = time.perf_counter() - start
    times, floors, distinct = [], [], []
    for step in range(warmup + steps):
        batch = step_batch(step, b, g, sources, outputs, refs, rng)
        before = floor.seconds
        start = time.perf_counter()
        values = reward(**batch)
        elapsed = time.perf_counter() - start
        assert len(values) == b * g
        if step >= warmup:
            times.append(elapsed)
            floors.append(floor.seconds - before)
            distinct.append(len(set(batch["completions"])))
    return {"metric": metric, "build_s": build_s, "step_s": times, "floor_s": floors,
            "distinct_completions": statistics.mean(distinct), "rss_mib": rss_mib(), "signature": reward.signature}


def child_memory(metric: str, data: Path, b: int, g: int, steps: int) -> dict[str, Any]:
    import warnings

    warnings.simplefilter("ignore")
    from gecscore.rewards import reward_function

    sources, outputs, refs = seeda(data)
    rng = random.Random(1)
    reward = reward_function(metric, **METRICS[metric][0])
    from gecscore.common import edits, encoders

    samples, start = [], time.perf_counter()
    for step in range(steps):
        reward(**step_batch(step, b, g, sources, outputs, refs, rng, edits=2, keep=0.0))
        if step + 1 in (1, 10, 50, 100) or (step + 1) % 250 == 0 or step + 1 == steps:
            samples.append({
                "step": step + 1, "rss_mib": rss_mib(), "seconds": time.perf_counter() - start,
                "parses": sum(len(x._docs) for x in edits._EXTRACTORS.values()),
                "edit_lists": sum(len(x._edits) for x in edits._EXTRACTORS.values()),
                "encoder_cache_mib": sum(getattr(m, "cache_used_bytes", 0) for m in encoders._LOADED.values()) / 2**20,
            })
    return {"metric": metric, "samples": samples}


def child_dataset(data: Path, rows: int, batch_size: int) -> dict[str, Any]:
    import warnings

    warnings.simplefilter("ignore")
    from datasets import Dataset

    from gecscore import score_dataset

    sources, outputs, _ = seeda(data)
    rng = random.Random(2)
    pairs = [(sources[i], perturb(outputs[SYSTEMS[k % len(SYSTEMS)]][i], rng))
             for k in range(-(-rows // len(sources))) for i in range(len(sources))][:rows]
    dataset = Dataset.from_dict({"source": [s for s, _ in pairs], "prediction": [p for _, p in pairs]})
    floor = Floor()
    score_dataset(dataset.select(range(64)), "impara_ged", model="embedded")  # load the model: not timed
    floor.seconds = 0.0
    start = time.perf_counter()
    scored = score_dataset(dataset, "impara_ged", model="embedded", batch_size=batch_size)
    elapsed = time.perf_counter() - start
    assert len(scored) == rows
    import resource

    return {"rows": rows, "distinct_predictions": len(set(p for _, p in pairs)), "seconds": elapsed,
            "floor_s": floor.seconds, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run_child(argv: list[str], args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
    settings = ["--data", str(args.data), "--prompts", str(args.prompts), "--generations", str(args.generations),
                "--steps", str(args.steps), "--memory-steps", str(args.memory_steps), "--dataset-rows",
                str(args.dataset_rows)]
    done = subprocess.run([sys.executable, __file__, *settings, "--child", *argv], capture_output=True, text=True,
                          env=env, cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--metrics", nargs="+", default=list(METRICS))
    parser.add_argument("--prompts", type=int, default=16, help="B, prompts per step")
    parser.add_argument("--generations", type=int, default=8, help="G, completions per prompt")
    parser.add_argument("--steps", type=int, default=10, help="timed steps per metric (after 3 warm-up steps)")
    parser.add_argument("--memory-metric", default="errant")
    parser.add_argument("--memory-steps", type=int, default=1500)
    parser.add_argument("--dataset-rows", type=int, default=20_000)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "training_signals")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "rewards":
            out = child_rewards(rest[0], args.data, args.prompts, args.generations, args.steps, 3)
        elif kind == "memory":
            out = child_memory(rest[0], args.data, args.prompts, args.generations, args.memory_steps)
        else:
            out = child_dataset(args.data, args.dataset_rows, 256)
        print(json.dumps(out))
        return
    load = os.getloadavg()[0]
    started = time.perf_counter()
    results: dict[str, Any] = {"rewards": [], "memory": None, "dataset": None}
    for metric in args.metrics:
        print(f"rewards {metric} ...", flush=True)
        results["rewards"].append({**run_child(["rewards", metric], args), "load": os.getloadavg()[0]})
    if args.memory_steps:
        print(f"memory {args.memory_metric} over {args.memory_steps} steps ...", flush=True)
        results["memory"] = run_child(["memory", args.memory_metric], args)
    if args.dataset_rows:
        print(f"dataset {args.dataset_rows} rows ...", flush=True)
        results["dataset"] = {**run_child(["dataset"], args), "load": os.getloadavg()[0]}
    results["wall_s"] = time.perf_counter() - started
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    argv = [a for a in sys.argv[1:]]
    write_report(args.out.with_suffix(".md"), "Training signals: rewards per GRPO step, memory, dataset scoring",
                 "bench_training_signals.py", argv, report(results, args, load))


def report(results: dict[str, Any], args: argparse.Namespace, load: float) -> str:
    b, g = args.prompts, args.generations
    lines = [__doc__.split("\n\n", 1)[1].strip(), "",
             f"Run {time.strftime('%Y-%m-%dT%H:%M:%S%z')}, {os.cpu_count()} CPU cores, wall {results['wall_s'] / 60:.1f} "
             f"min. {machine_line(load)}", "",
             f"## Rewards: B={b} prompts × G={g} completions per step, {args.steps} timed steps", "",
             "| metric | options | completions / s | step s (median) | floor s (median) | step / floor (sum) | "
             "distinct completions per step | load (1 min) |", "|---|---|---|---|---|---|---|---|"]
    for row in results["rewards"]:
        step, floor = statistics.median(row["step_s"]), statistics.median(row["floor_s"])
        ratio = sum(row["step_s"]) / sum(row["floor_s"]) if sum(row["floor_s"]) > 0 else None
        lines.append(f"| `{row['metric']}` | {METRICS[row['metric']][1]} | {b * g / step:.1f} | {step:.3f} | "
                     f"{floor:.3f} | {'no model' if ratio is None else f'{ratio:.2f}×'} | "
                     f"{row['distinct_completions']:.0f} | {row['load']:.1f} |")
    if results["memory"]:
        lines += ["", f"## Memory: `{results['memory']['metric']}` rewards over {args.memory_steps} steps", "",
                  "Cache bounds: 20,000 parses and 100,000 edit lists per ERRANT extractor, 1 GiB of encoder outputs.",
                  "", "| step | RSS MiB | cached parses | cached edit lists | encoder cache MiB | seconds |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {s['step']} | {s['rss_mib']:.0f} | {s['parses']:,} | {s['edit_lists']:,} | "
                  f"{s['encoder_cache_mib']:.0f} | {s['seconds']:.0f} |" for s in results["memory"]["samples"]]
    if results["dataset"]:
        d = results["dataset"]
        lines += ["", f"## Dataset: IMPARA-GED (embedded MiniLM) over {d['rows']:,} pairs", "",
                  "| rows / s | seconds | encoder floor s | total / floor | distinct predictions | peak RSS MiB | load |",
                  "|---|---|---|---|---|---|---|",
                  f"| {d['rows'] / d['seconds']:.0f} | {d['seconds']:.1f} | {d['floor_s']:.1f} | "
                  f"{d['seconds'] / d['floor_s']:.2f}× | {d['distinct_predictions']:,} | {d['peak_rss_mib']:.0f} | "
                  f"{d['load']:.1f} |"]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
