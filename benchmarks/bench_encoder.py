"""The shared encoder on real sentences: cold pass, cache-hit pass, reference-style padding.

Sentences: the first `--sentences` distinct lines of the SEEDA subset (INPUT, then every system output), in file
order. Model: all-MiniLM-L6-v2 (`minilm`). Every timed cold run starts from an empty cache; the model is loaded
and warmed up once beforehand.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

from gecscore.common.encoders import Encoder
from report import machine_line, write_report

REPO = Path(__file__).resolve().parent.parent
SEEDA = REPO.parent / "shared" / "data" / "SEEDA" / "outputs" / "subset"


def load_sentences(n: int) -> list[str]:
    """The first `n` distinct non-empty lines of INPUT.txt and then the system files (sorted by name)."""
    files = [SEEDA / "INPUT.txt"] + sorted(p for p in SEEDA.glob("*.txt") if p.name != "INPUT.txt")
    lines = (line.rstrip() for path in files for line in path.read_text(encoding="utf-8").split("\n"))
    distinct = list(dict.fromkeys(line for line in lines if line))
    if len(distinct) < n:
        raise SystemExit(f"only {len(distinct)} distinct sentences available")
    return distinct[:n]


def reference_style(encoder: Encoder, texts: list[str], batch_size: int = 32) -> np.ndarray:
    """UOT-ERRANT's way: input order, every batch padded to 128 tokens, masked mean of the last layer."""
    out = []
    for start in range(0, len(texts), batch_size):
        enc = encoder.tokenizer(texts[start:start + batch_size], max_length=128, padding="max_length",
                                truncation=True, return_tensors="pt")
        with torch.inference_mode():
            h = encoder.model(**enc).last_hidden_state
        m = enc["attention_mask"].unsqueeze(-1).float()
        out.append(((h * m).sum(1) / m.sum(1)).numpy())
    return np.concatenate(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    texts = load_sentences(args.sentences)
    times: dict[str, list[float]] = {k: [] for k in ("load", "reference", "cold", "warm", "states")}

    def run(key: str, fn):
        """Call `fn`, adding its wall time to `times[key]`."""
        start = time.perf_counter()
        result = fn()
        times[key].append(time.perf_counter() - start)
        return result

    encoder = run("load", lambda: Encoder("minilm"))
    encoder.embed(texts[:64], progress=False)  # warm-up
    n_tokens = sum(map(len, encoder.token_ids(texts, 128)))
    reference = cold = None
    for _ in range(args.repeats):
        reference = run("reference", lambda: reference_style(encoder, texts, args.batch_size))
        encoder.clear_cache()
        forwards = encoder.forward_count
        cold = run("cold", lambda: encoder.embed(texts, batch_size=args.batch_size, progress=False))
        assert encoder.forward_count - forwards == len(texts)
        warm = run("warm", lambda: encoder.embed(texts, batch_size=args.batch_size, progress=False))
        assert encoder.forward_count - forwards == len(texts) and np.array_equal(warm, cold)
        run("states", lambda: encoder.token_states(texts, layer=6, progress=False))
    max_diff = float(np.abs(np.asarray(cold) - np.asarray(reference)).max())

    labels = {
        "reference": f"reference style: input order, batches of {args.batch_size} padded to 128 tokens",
        "cold": f"`Encoder.embed` cold (length-sorted batches of {args.batch_size}, dynamic padding)",
        "warm": "`Encoder.embed` again (every sentence a cache hit, no forward pass)",
        "states": "`Encoder.token_states(layer=6)` cold (BERTScore input, batches of 64)",
    }
    base = statistics.median(times["reference"])
    rows = ["| path | median s | min s | sentences/s (median) | speed-up vs reference style |", "|---|---|---|---|---|"]
    for key, label in labels.items():
        med = statistics.median(times[key])
        rate = len(texts) / med if med > 0 else float("inf")
        ratio = base / med if med > 0 else float("inf")
        rows.append(f"| {label} | {med:.3f} | {min(times[key]):.3f} | "
                    f"{'>1e5' if rate > 1e5 else f'{rate:.0f}'} | {'>1000' if ratio > 1000 else f'{ratio:.1f}'}× |")
    report = "\n".join([
        f"{len(texts)} distinct SEEDA-subset sentences ({n_tokens} tokens with [CLS]/[SEP], at most 128 per "
        f"sentence), all-MiniLM-L6-v2 (`minilm`, 6 layers, hidden 384), float32, CPU, {torch.get_num_threads()} "
        f"torch threads, {args.repeats} repeats; model load {times['load'][0]:.2f} s.",
        "",
        *rows,
        "",
        f"Largest difference between the cold embeddings and the reference-style ones: {max_diff:.2e} "
        "(float rounding from batch composition and padding; the masked mean itself ignores padding).",
        "",
        machine_line(load_before),
    ])
    print(report)
    if args.out:
        write_report(args.out, "Shared encoder: throughput and cache hits (all-MiniLM-L6-v2)", "bench_encoder.py",
                     argv or sys.argv[1:], report)
    return 0 if max_diff < 1e-5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
