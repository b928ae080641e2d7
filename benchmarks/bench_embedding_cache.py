"""On-disk embedding cache: a second process over the same texts starts warm.

Each scenario is a fresh Python process that scores SEEDA systems with one metric and all-MiniLM-L6-v2
(`model="minilm"`) through `gecscore.registry.run_systems`, with `GECSCORE_EMBEDDING_CACHE` naming a cache folder
(empty at the start of the cold run) or unset: no cache; cold (empty folder); warm (the same systems again); warm
over the same references with other systems (sources and references from disk, the new outputs through the model).
Reported per process: wall time from start to exit (imports and model load included), the scoring call's time and
the part of it spent opening, reading and writing the cache file, the encoder's counters and the scores, which must
equal the no-cache run's up to float rounding (1e-6).

    .venv/bin/python benchmarks/bench_embedding_cache.py
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
SEEDA = REPO.parent / "shared" / "data" / "SEEDA"
SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
           "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]


def read_lines(path: Path) -> list[str]:
    """gec-metrics' `read_lines`: whole file right-stripped, split on newlines, each line right-stripped."""
    return [line.rstrip() for line in path.read_text(encoding="utf-8").rstrip().split("\n")]


def timed(owner: type, names: tuple[str, ...], spent: list[float]) -> None:
    """Wrap the methods `names` of `owner` so that their seconds add up in `spent[0]`."""
    for name in names:
        def wrapper(*args: Any, _method: Callable = getattr(owner, name), **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return _method(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - start
        setattr(owner, name, wrapper)


def child(metric: str, systems: list[str], sentences: int) -> dict:
    """One process: score `systems` with `metric` (model=minilm), the cache as $GECSCORE_EMBEDDING_CACHE says."""
    import warnings

    from gecscore import registry
    from gecscore.common.embedding_cache import EmbeddingCache
    from gecscore.common.encoders import Encoder

    disk_s = [0.0]  # opening, reading and writing the cache file
    timed(EmbeddingCache, ("__init__", "load", "save"), disk_s)

    sources = read_lines(SEEDA / "outputs" / "subset" / "INPUT.txt")[:sentences]
    refs = zip(read_lines(SEEDA / "derived" / "REF0.txt"), read_lines(SEEDA / "derived" / "REF1.txt"))
    references = [list(pair) for pair in refs][:sentences]
    outputs = {name: read_lines(SEEDA / "outputs" / "subset" / f"{name}.txt")[:sentences] for name in systems}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = registry.run_systems(metric, sources, outputs, references, model="minilm", device="cpu")
    encoder = Encoder.get("minilm", device="cpu")
    return {"score_s": time.perf_counter() - start, "disk_s": disk_s[0], "forward_count": encoder.forward_count,
            "disk_hits": encoder.disk_hits, "cache_hits": encoder.cache_hits,
            "cache_file": str(encoder.disk_cache.path) if encoder.disk_cache else None,
            "scores": {name: result.score for name, result in results.items()}}


def run_child(metric: str, systems: list[str], sentences: int, cache: Path | None) -> dict:
    """Run `child` in a fresh process; add its wall time from start to exit."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env.pop("GECSCORE_EMBEDDING_CACHE", None)
    if cache is not None:
        env["GECSCORE_EMBEDDING_CACHE"] = str(cache)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, __file__, "--child", "--metric", metric, "--sentences", str(sentences),
                           "--systems", *systems], env=env, capture_output=True, text=True, cwd=REPO)
    wall = time.perf_counter() - start
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"the child failed ({proc.returncode})")
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    row["wall_s"] = wall
    row["file_bytes"] = Path(row["cache_file"]).stat().st_size if row["cache_file"] else 0
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metric", default="uot_errant", help="a metric that embeds with `model` (default uot_errant)")
    parser.add_argument("--sentences", type=int, default=390, help="first N sentences of the SEEDA subset (390: all)")
    parser.add_argument("--systems", nargs="+", default=SYSTEMS[:3], help="the systems of the first runs")
    parser.add_argument("--others", nargs="+", default=SYSTEMS[3:5], help="the systems of the last run")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "embedding_cache.md",
                        help="the Markdown report")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.metric, args.systems, args.sentences)))
        return 0

    command = " ".join([".venv/bin/python benchmarks/bench_embedding_cache.py",
                        *map(shlex.quote, sys.argv[1:])])
    load_before, started = os.getloadavg(), datetime.datetime.now().astimezone()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "embeddings"
        for label, systems, where in (("no cache", args.systems, None), ("cold (empty cache)", args.systems, cache),
                                      ("warm (same systems)", args.systems, cache),
                                      ("warm references, other systems", args.others, cache)):
            row = {"label": label, "systems": systems, **run_child(args.metric, systems, args.sentences, where)}
            rows.append(row)
            print(f"{label}: {row['wall_s']:.1f} s, {row['forward_count']} forwards, {row['disk_hits']} from disk",
                  flush=True)
    base = rows[0]["scores"]
    diff = max(abs(row["scores"][name] - base[name]) for row in rows[1:3] for name in base)
    report = {"command": command, "date": started.isoformat(timespec="seconds"), "load_before": load_before,
              "load_after": os.getloadavg(), "cpu": platform.processor() or platform.machine(),
              "cores": os.cpu_count(), "metric": args.metric, "sentences": args.sentences, "diff": diff,
              "rows": rows}
    text = render(report)
    print(text)
    args.out.write_text(text)
    return 0 if diff <= 1e-6 else 1


def render(r: dict) -> str:
    """The report as Markdown."""
    fmt = lambda load: " / ".join(f"{x:.2f}" for x in load)  # noqa: E731
    rows = r["rows"]
    lines = [
        "# On-disk embedding cache: a cold and a warm process", "",
        "Command:", "", "```", r["command"], "```", "",
        f"Date: {r['date']}. Machine: {r['cores']} CPU cores ({r['cpu']}), load average (1/5/15 min) "
        f"{fmt(r['load_before'])} before and {fmt(r['load_after'])} after the runs (other jobs share the cores).", "",
        f"Workload: `{r['metric']}` with all-MiniLM-L6-v2 (`model=\"minilm\"`) on the first {r['sentences']} "
        "sentences of the SEEDA subset, references `SEEDA/derived/REF0.txt` and `REF1.txt`, several systems in one "
        "`gecscore.registry.run_systems` call, in a fresh process per row with `GECSCORE_EMBEDDING_CACHE` set to one "
        "folder (empty before the cold row) or unset. Wall time is the process's, start to exit (imports, model "
        "and spaCy loading included); scoring is the `run_systems` call alone.", "",
        "| process | systems | wall s | scoring s | of which cache file I/O s | texts through the model | from disk | "
        "memory hits | cache file MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(f"| {row['label']} | {', '.join(row['systems'])} | {row['wall_s']:.1f} | {row['score_s']:.1f} | "
                     f"{row['disk_s']:.2f} | "
                     f"{row['forward_count']} | {row['disk_hits']} | {row['cache_hits']} | "
                     f"{row['file_bytes'] / 2**20:.1f} |")
    same = all(row["scores"] == rows[0]["scores"] for row in rows[1:3])
    lines += ["", f"Scores of the cold and warm processes against the no-cache one: "
              f"{'identical' if same else 'equal up to float rounding'} (largest difference {r['diff']:.1e}, "
              f"{len(rows[0]['scores'])} systems; limit 1e-6)."]
    no_cache, cold, warm = rows[:3]
    lines += ["", (
        f"Reading: the warm process runs {warm['forward_count']} texts through the model instead of "
        f"{no_cache['forward_count']}, and its scoring call takes {warm['score_s']:.1f} s instead of "
        f"{no_cache['score_s']:.1f} s ({warm['wall_s']:.1f} s against {no_cache['wall_s']:.1f} s for the whole "
        "process); what remains is loading torch and the model and the metric's own work (for UOT-ERRANT: spaCy and "
        "ERRANT's edit extraction, the transport). Opening, reading and writing the cache file take "
        f"{cold['disk_s']:.2f} s in the cold process and {warm['disk_s']:.2f} s in the warm one, so the cold "
        f"process's {cold['score_s'] - no_cache['score_s']:+.1f} s of scoring against the no-cache one is not the "
        "cache's: other jobs share these cores (see the load average). The last row scores other systems over the "
        "same sources and references: those come from disk, the new outputs go through the model.")]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
