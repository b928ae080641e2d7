"""How gecscore's cost grows, measured side by side in one run. Section 1 (this script so far): PT-M2 on CoNLL-2014.

PT-M2 (sentm2, BERTScore with all-MiniLM-L6-v2 layer 6) scores PT-M2's bundled CoNLL-2014 sample (AMU, 1,312
sentences) twice, against the gold M2 (`gold_m2`) and against the two plain-text references (`references`, edits by
ERRANT), with this checkout's library and with an earlier commit's (`--baseline-src`, the `shared/` folder of a
worktree), alternating, each run a fresh process with the embedding cache off. Reported per run: the process's wall
time, the scoring time it reports (after imports, before exit), sentences per second of scoring, and its peak RSS
(`os.wait4`). The scores of the two commits must be equal.

    git worktree add /tmp/base <commit>
    .venv/bin/python benchmarks/scale.py --data ../shared/data --baseline-src /tmp/base/shared \\
        --baseline-label <commit> --out benchmarks/scale
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
#: What one child process runs: imports, reads the sample, scores it, prints the score and the scoring time.
CHILD = """
import json, sys, time
from pathlib import Path
from gecscore import registry
data, mode = Path(sys.argv[1]), sys.argv[2]
lines = lambda p: p.read_text(encoding="utf-8").rstrip("\\n").split("\\n")
sources, hypotheses = lines(data / "source"), lines(data / "hypothesis")
start = time.perf_counter()
if mode == "gold_m2":
    result = registry.run("pt_m2", sources, hypotheses, gold_m2=str(data / "reference.m2"), model="minilm", layer=6)
else:
    references = [list(r) for r in zip(lines(data / "reference" / "ref0"), lines(data / "reference" / "ref1"))]
    result = registry.run("pt_m2", sources, hypotheses, references, model="minilm", layer=6)
print("RESULT " + json.dumps({"score": result.score, "seconds": time.perf_counter() - start, "n": len(sources)}))
"""
MODES = ("gold_m2", "references")
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_EVALUATE_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def run_child(src: Path, data: Path, mode: str) -> dict:
    """One fresh process on library `src`: its report, wall time and peak RSS."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GECSCORE_EMBEDDING_CACHE")}
    env.update(OFFLINE, PYTHONPATH=str(src))
    load = os.getloadavg()[0]
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(data), mode], env=env, cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"{src} {mode}: exit status {status}")
    report = json.loads(next(line for line in out.splitlines() if line.startswith("RESULT ")).removeprefix("RESULT "))
    return {**report, "wall": wall, "peak_rss_mib": usage.ru_maxrss / 1024, "load_before": load,
            "load_after": os.getloadavg()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="a folder laid out like ../shared/data")
    parser.add_argument("--baseline-src", type=Path, required=True, help="the shared/ folder of an earlier commit")
    parser.add_argument("--baseline-label", required=True, help="how the earlier commit is named in the report")
    parser.add_argument("--rounds", type=int, default=2, help="runs per commit and mode, alternating")
    parser.add_argument("--out", type=Path, required=True, help="writes <out>.md and <out>.json")
    args = parser.parse_args()
    data = args.data / "CoNLL-2014" / "PT-M2" / "data"
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    sides = {f"this commit ({head.strip()})": REPO / "shared", args.baseline_label: args.baseline_src}
    runs: list[dict] = []
    started = time.perf_counter()
    for round_ in range(args.rounds):
        for mode in MODES:
            for label, src in (sides.items() if round_ % 2 == 0 else reversed(sides.items())):
                run = {"side": label, "mode": mode, "round": round_, **run_child(src, data, mode)}
                runs.append(run)
                print(json.dumps(run), flush=True)
    scores = {mode: {run["score"] for run in runs if run["mode"] == mode} for mode in MODES}
    rows = ["| input | library | runs | scoring s (median; range) | sentences/s | process wall s | peak RSS MiB | "
            "score |", "|---|---|---|---|---|---|---|---|"]
    for mode in MODES:
        for label in sides:
            mine = [r for r in runs if r["mode"] == mode and r["side"] == label]
            seconds = statistics.median(r["seconds"] for r in mine)
            spread = f"{min(r['seconds'] for r in mine):.1f}–{max(r['seconds'] for r in mine):.1f}"
            rows.append(f"| `{mode}` | {label} | {len(mine)} | {seconds:.1f}; {spread} | {mine[0]['n'] / seconds:.1f} | "
                        f"{statistics.median(r['wall'] for r in mine):.1f} | "
                        f"{max(r['peak_rss_mib'] for r in mine):.0f} | {mine[0]['score']:.6f} |")
    same = all(len(values) == 1 for values in scores.values())
    text = "\n".join([
        "# Scale: how gecscore's cost grows", "",
        "## PT-M2 on CoNLL-2014 (1,312 sentences), this commit and an earlier one side by side", "",
        "Command:", "", "```",
        ".venv/bin/python benchmarks/scale.py --data ../shared/data --baseline-src <worktree>/shared "
        "--baseline-label <commit> --out benchmarks/scale", "```", "",
        f"Run {datetime.now(timezone.utc).isoformat(timespec='seconds')} on {os.cpu_count()} CPU cores "
        f"({platform.machine()}, {platform.platform()}), Python {platform.python_version()}; "
        f"{len(runs)} fresh processes, alternating, the embedding cache off; the whole run took "
        f"{(time.perf_counter() - started) / 60:.1f} min. Load average (1 min) before → after each run is in "
        "scale.json; nothing else ran on the machine.", "",
        "PT-M2 (`sentm2`, BERTScore with all-MiniLM-L6-v2 layer 6), AMU's outputs on PT-M2's bundled sample, against "
        "the gold M2 (`gold_m2`) and against the two references as text (`references`: edits by ERRANT). Scoring "
        "time is what each process reports from after its imports to the score; process wall adds interpreter "
        "start and imports; peak RSS is the largest of the process's runs.", "",
        *rows, "",
        "The two libraries' scores are " + ("equal in every run." if same else "**not equal**: " + json.dumps(
            {mode: sorted(values) for mode, values in scores.items()})),
    ]) + "\n"
    args.out.with_suffix(".md").write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps({"runs": runs}, indent=1) + "\n", encoding="utf-8")
    print(text)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
