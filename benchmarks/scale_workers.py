"""How the metrics' cost grows with the input and with worker processes, measured side by side in one run.

Protocol (declared before measuring). Corpora: SEEDA's 391 judged sources with the outputs of 1, 4 and all 15
systems (391, 1,564 and 5,865 sentences; each output is a sentence, its source and SEEDA's two references REF0 and
REF1 its references). For each metric and corpus size, `--rounds` rounds alternate the worker counts; each
measurement is a fresh process that imports gecscore, sets its workers, warms up on 300 synthetic pairs that are
not in the corpus (models loaded and, with 2 workers, the worker pool started with its spaCy pipelines: the
start-up every later call saves), then times one `registry.run` of the whole corpus. The embedding cache is off.
Scores must be equal at every worker count. Floors, in their own fresh processes on the same corpora: spaCy's parse
of every distinct text of the corpus in one process (ERRANT's share of the work; ideal with k workers: that / k),
and all-MiniLM-L6-v2's forward pass (layer 6, batches of 32) over the same distinct texts (the least a
MiniLM-weighted metric encodes).

First calls: for ERRANT and M² on the two larger corpora, a fresh process with the default settings (no
`GECSCORE_WORKERS`: every core, a pool started for 1,024 changed pairs or more) and one with `set_workers(1)`,
alternating, each timing its first `registry.run` of the corpus with no warm-up (spaCy's load and, by default, the
pool's start inside the time): what a user's single command pays.

Reward steps (GRPO-sized: 16 prompts × 8 completions): for each reward metric and worker count, a fresh process
builds `reward_function(metric, **options)` with the defaults a trainer gets, runs one warm-up step on prompts that
are not timed, then times `--reward-steps` steps; step s takes SEEDA sources 16s..16s+15, each with the outputs of
the first 8 systems as its completions (new text every step) and REF0/REF1 as references. Completions per second
over the timed steps; the rewards must be equal at every worker count.

    .venv/bin/python benchmarks/scale_workers.py --data ../shared/data --out benchmarks/scale_workers
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE", "REF-F",
           "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]
SIZES = {391: SYSTEMS[:1], 1564: SYSTEMS[:4], 5865: SYSTEMS}
MINILM = {"model": "minilm", "layer": 6}
#: label → (registry name, options, sizes): the model-weighted metrics stop at 1,564 sentences by default.
METRICS = {
    "ERRANT": ("errant", {}, (391, 1564, 5865)),
    "M²": ("m2", {}, (391, 1564, 5865)),
    "GLEU": ("gleu", {}, (391, 1564, 5865)),
    "UOT-ERRANT": ("uot_errant", {"model": "minilm"}, (391, 1564)),
    "PT-M2": ("pt_m2", MINILM, (391, 1564)),
    "CLEME2.0": ("cleme2", MINILM, (391, 1564)),
    "IMPARA-GED": ("impara_ged", {"model": "embedded"}, (391, 1564)),
}
#: label → (registry name, options) of the reward step.
REWARDS = {
    "ERRANT": ("errant", {}),
    "UOT-ERRANT": ("uot_errant", {"model": "minilm"}),
    "PT-M2": ("pt_m2", MINILM),
    "GLEU": ("gleu", {}),
    # a reward keeps IMPARA's meaning check on; its default bert-base-cased is on the Hub only
    "IMPARA-GED": ("impara_ged", {"model": "embedded", "se_model": "minilm"}),
}
#: The systems whose outputs are a reward step's completions (8 per prompt).
GENERATIONS = SYSTEMS[:8]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_EVALUATE_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}

CORPUS = """
from pathlib import Path
def corpus(data, systems):
    read = lambda p: p.read_text(encoding="utf-8").rstrip("\\n").split("\\n")
    seeda = Path(data) / "SEEDA"
    sources = read(seeda / "outputs" / "subset" / "INPUT.txt")
    refs = [list(g) for g in zip(read(seeda / "derived" / "REF0.txt"), read(seeda / "derived" / "REF1.txt"))]
    outputs = [read(seeda / "outputs" / "subset" / f"{name}.txt") for name in systems]
    return sources * len(systems), [t for texts in outputs for t in texts], refs * len(systems)
"""

#: One measurement: warm up, then time one run of the corpus.
MEASURE = CORPUS + """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from gecscore import registry
from gecscore.common import workers
data, name, options, systems, k = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4]), int(sys.argv[5])
sources, predictions, references = corpus(data, systems)
refs = None if registry.spec(name).reference_free else references
workers.set_workers(k)
warm = [f"He go to the school number {i} yesterday ." for i in range(300)]
fixed = [f"He went to the school number {i} yesterday ." for i in range(300)]
start = time.perf_counter()
registry.run(name, warm, fixed, None if refs is None else [[f] for f in fixed], **options)
warmup = time.perf_counter() - start
start = time.perf_counter()
result = registry.run(name, sources, predictions, refs, **options)
seconds = time.perf_counter() - start
print("RESULT " + json.dumps({"seconds": seconds, "warmup": warmup, "score": result.score, "n": len(sources)}))
"""

#: One first call: no warm-up, the default number of workers ("default") or one.
FIRST = CORPUS + """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from gecscore import registry
from gecscore.common import workers
data, name, options, systems, k = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5]
sources, predictions, references = corpus(data, systems)
if k != "default":
    workers.set_workers(int(k))
start = time.perf_counter()
result = registry.run(name, sources, predictions, references, **options)
seconds = time.perf_counter() - start
count = workers.cpu_workers()
print("RESULT " + json.dumps({"seconds": seconds, "score": result.score, "n": len(sources), "workers": count,
                              "pool": workers.pool_running(count)}))
"""
#: label → sizes of the first-call measurement.
FIRST_CALLS = {"ERRANT": (1564, 5865), "M²": (1564, 5865)}

#: One reward measurement: a warm-up step, then the timed steps of 16 prompts × 8 completions.
REWARD = CORPUS + """
import json, sys, time, warnings
warnings.simplefilter("ignore")
from gecscore.common import workers
from gecscore.rewards import reward_function
data, name, options, systems = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
k, steps = int(sys.argv[5]), int(sys.argv[6])
sources, predictions, references = corpus(data, systems)
n = len(sources) // len(systems)
workers.set_workers(k)
reward = reward_function(name, **options)
def batch(step):
    rows = [16 * step + i for i in range(16)]
    pairs = [(i, j) for i in rows for j in range(len(systems))]
    return {"prompts": [f"Correct: {sources[i]}" for i, _ in pairs],
            "completions": [predictions[j * n + i] for i, j in pairs],
            "source": [sources[i] for i, _ in pairs], "references": [references[i] for i, _ in pairs]}
reward(**batch(steps))
values = []
start = time.perf_counter()
for step in range(steps):
    values += reward(**batch(step))
seconds = time.perf_counter() - start
print("RESULT " + json.dumps({"seconds": seconds, "completions": len(values), "rewards": values}))
"""

#: The floors: spaCy's parse (one process) and MiniLM's forward pass over the corpus's distinct texts.
FLOORS = CORPUS + """
import json, sys, time
data, systems = sys.argv[1], json.loads(sys.argv[2])
sources, predictions, references = corpus(data, systems)
texts = list(dict.fromkeys([*sources, *predictions, *(r for group in references for r in group)]))
from spacy.tokens import Doc
from gecscore.common.inputs import load_spacy
nlp = load_spacy()
list(nlp.pipe(Doc(nlp.vocab, words=t.split()) for t in texts[:50]))
start = time.perf_counter()
for _ in nlp.pipe((Doc(nlp.vocab, words=t.split()) for t in texts), batch_size=256):
    pass
parse = time.perf_counter() - start
from gecscore.common.encoders import Encoder
encoder = Encoder("minilm")
encoder.embed(texts[:50], layer=6)
encoder.clear_cache()
start = time.perf_counter()
encoder.embed(texts, layer=6)
forward = time.perf_counter() - start
print("RESULT " + json.dumps({"parse": parse, "forward": forward, "texts": len(texts)}))
"""


def child(code: str, *args: str) -> dict:
    """A fresh process's RESULT line, with its peak RSS."""
    env = {k: v for k, v in os.environ.items() if k not in ("GECSCORE_EMBEDDING_CACHE", "GECSCORE_WORKERS")}
    env.update(OFFLINE)
    process = subprocess.Popen([sys.executable, "-c", code, *args], env=env, cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    out, err = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"{args}: exit status {process.returncode}\n{err[-3000:]}")
    return json.loads(next(line for line in out.splitlines() if line.startswith("RESULT ")).removeprefix("RESULT "))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a folder laid out like ../shared/data")
    parser.add_argument("--rounds", type=int, default=1, help="measurements per worker count, alternating")
    parser.add_argument("--metrics", nargs="*", choices=list(METRICS), default=list(METRICS))
    parser.add_argument("--rewards", nargs="*", choices=list(REWARDS), default=list(REWARDS))
    parser.add_argument("--reward-steps", type=int, default=10, help="timed reward steps of 16 × 8 completions")
    parser.add_argument("--out", type=Path, required=True, help="writes <out>.md and <out>.json")
    args = parser.parse_args()
    data = str(args.data.resolve())
    started, load = time.perf_counter(), os.getloadavg()[0]
    same = True
    floors = {n: child(FLOORS, data, json.dumps(SIZES[n])) for n in SIZES}
    print(json.dumps(floors), flush=True)
    runs = []
    for label in args.metrics:
        name, options, sizes = METRICS[label]
        for n in sizes:
            for round_ in range(args.rounds):
                for k in ((1, 2) if round_ % 2 == 0 else (2, 1)):
                    run = {"metric": label, "sentences": n, "workers": k, "round": round_,
                           **child(MEASURE, data, name, json.dumps(options), json.dumps(SIZES[n]), str(k))}
                    runs.append(run)
                    print(json.dumps(run), flush=True)
    firsts = []
    for label in [m for m in args.metrics if m in FIRST_CALLS]:
        name, options, _ = METRICS[label]
        for n in FIRST_CALLS[label]:
            for round_ in range(args.rounds):
                for k in (("1", "default") if round_ % 2 == 0 else ("default", "1")):
                    run = {"metric": label, "sentences": n, "setting": k, "round": round_,
                           **child(FIRST, data, name, json.dumps(options), json.dumps(SIZES[n]), k)}
                    firsts.append(run)
                    print(json.dumps(run), flush=True)
    rewards = []
    for label in args.rewards:
        name, options = REWARDS[label]
        for round_ in range(args.rounds):
            for k in ((1, 2) if round_ % 2 == 0 else (2, 1)):
                run = {"metric": label, "workers": k, "round": round_,
                       **child(REWARD, data, name, json.dumps(options), json.dumps(GENERATIONS), str(k),
                               str(args.reward_steps))}
                rewards.append(run)
                print(json.dumps({key: v for key, v in run.items() if key != "rewards"}), flush=True)
    reward_rows = ["| reward | completions | 1 worker: completions/s | 2 workers: completions/s | same rewards |",
                   "|---|---|---|---|---|"]
    for label in args.rewards:
        mine = {k: [r for r in rewards if r["metric"] == label and r["workers"] == k] for k in (1, 2)}
        rate = {k: statistics.median(r["completions"] / r["seconds"] for r in mine[k]) for k in (1, 2)}
        equal = len({json.dumps(r["rewards"]) for k in (1, 2) for r in mine[k]}) == 1
        same &= equal
        reward_rows.append(f"| {label} | {mine[1][0]['completions']:,} | {rate[1]:.0f} | {rate[2]:.0f} | "
                           f"{'yes' if equal else 'NO'} |")
    rows = ["| metric | sentences | 1 worker: s (sentences/s) | 2 workers: s (sentences/s) | speed-up | same score | "
            "parse floor, 1 / 2 workers (s) | MiniLM forward floor (s) |", "|---|---|---|---|---|---|---|---|"]
    for label in args.metrics:
        for n in METRICS[label][2]:
            mine = {k: [r for r in runs if r["metric"] == label and r["sentences"] == n and r["workers"] == k]
                    for k in (1, 2)}
            seconds = {k: statistics.median(r["seconds"] for r in mine[k]) for k in (1, 2)}
            scores = {r["score"] for k in (1, 2) for r in mine[k]}
            same &= len(scores) == 1
            floor = floors[n]
            rows.append(f"| {label} | {n:,} | {seconds[1]:.2f} ({n / seconds[1]:.0f}) | {seconds[2]:.2f} "
                        f"({n / seconds[2]:.0f}) | {seconds[1] / seconds[2]:.2f} | {'yes' if len(scores) == 1 else 'NO'} | "
                        f"{floor['parse']:.2f} / {floor['parse'] / 2:.2f} | {floor['forward']:.2f} |")
    first_rows = ["| metric | sentences | `set_workers(1)`: s | default: s (workers, pool started) | speed-up | "
                  "same score |", "|---|---|---|---|---|---|"]
    for label in [m for m in args.metrics if m in FIRST_CALLS]:
        for n in FIRST_CALLS[label]:
            mine = {k: [r for r in firsts if r["metric"] == label and r["sentences"] == n and r["setting"] == k]
                    for k in ("1", "default")}
            seconds = {k: statistics.median(r["seconds"] for r in mine[k]) for k in mine}
            scores = {r["score"] for k in mine for r in mine[k]}
            same &= len(scores) == 1
            default = mine["default"][0]
            first_rows.append(f"| {label} | {n:,} | {seconds['1']:.2f} | {seconds['default']:.2f} "
                              f"({default['workers']}, {'yes' if default['pool'] else 'no'}) | "
                              f"{seconds['1'] / seconds['default']:.2f} | {'yes' if len(scores) == 1 else 'NO'} |")
    text = "\n".join([
        "# Scale: the metrics on 1 and 2 worker processes", "", "Command:", "", "```",
        " ".join([".venv/bin/python", "benchmarks/scale_workers.py", *sys.argv[1:]]).replace(data, "../shared/data"),
        "```", "",
        f"Run {datetime.now(timezone.utc).isoformat(timespec='seconds')} on {os.cpu_count()} CPU cores "
        f"({platform.machine()}), Python {platform.python_version()}; {len(runs)} measured processes and "
        f"{len(floors)} floor processes, {args.rounds} round(s) per worker count, alternating; the whole run took "
        f"{(time.perf_counter() - started) / 60:.1f} min; load average {load:.1f} before / "
        f"{os.getloadavg()[0]:.1f} after. The protocol is in `scale_workers.py`'s docstring.", "",
        "Distinct texts per corpus (sources, outputs, references): "
        + ", ".join(f"{n:,} sentences: {floors[n]['texts']:,}" for n in SIZES) + ".", "",
        *rows, "",
        "First calls in a fresh process, no warm-up (spaCy's load and the pool's start included):", "",
        *(first_rows if firsts else ["(not measured)"]), "",
        f"Reward steps of 16 prompts × 8 completions ({args.reward_steps} timed steps per process):", "",
        *reward_rows, "",
        "Every metric's score and every reward is the same at 1 and 2 workers." if same
        else "**Scores differ between worker counts.**",
    ]) + "\n"
    args.out.with_suffix(".md").write_text(text, encoding="utf-8")
    saved = [{key: v for key, v in r.items() if key != "rewards"} for r in rewards]
    args.out.with_suffix(".json").write_text(json.dumps({"floors": floors, "runs": runs, "first_calls": firsts,
                                                         "rewards": saved},
                                                        indent=1) + "\n",
                                             encoding="utf-8")
    print(text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
