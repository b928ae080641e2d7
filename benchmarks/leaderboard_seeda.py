"""A leaderboard of the 14 SEEDA "+Fluency" systems in one `gecscore score` command versus 14 single-system runs.

The one command scores every system in one run (ERRANT parses and encoder outputs of the shared sources and
references computed once), adds 95% bootstrap intervals (1000 resamples) and paired bootstrap tests against the
baseline; the 14 single-system commands (`--bootstrap 1000`, so each also gets its interval) are what one ran before.
Every command runs as a fresh process (`python -m gecscore.cli`, cold caches) and is timed from the outside; the
load average is recorded around each. The scores of the two ways must agree (to float rounding of batching).

    .venv/bin/python benchmarks/leaderboard_seeda.py --metric uot_errant --model minilm
    .venv/bin/python benchmarks/leaderboard_seeda.py --metric errant

Each run writes its section to benchmarks/leaderboard_seeda.json (one entry per metric) and rewrites
benchmarks/leaderboard_seeda.md from it.
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

REPO = Path(__file__).resolve().parent.parent
SEEDA = REPO.parent / "shared" / "data" / "SEEDA"
SUBSET = SEEDA / "outputs" / "subset"
OUT = REPO / "benchmarks" / "leaderboard_seeda"


def timed(argv: list[str], stdout: Path) -> dict:
    """Run `argv` from the repository root with stdout to a file; wall seconds and load average around it."""
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with stdout.open("w", encoding="utf-8") as out:
        done = subprocess.run(argv, cwd=REPO, stdout=out, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)} failed:\n{done.stderr[-3000:]}")
    return {"seconds": seconds, "load_before": load_before, "load_after": os.getloadavg()[0]}


def run(metric: str, options: list[str], baseline: str) -> dict:
    """The one leaderboard command, then one command per system; times, loads, commands and both sets of scores."""
    systems = sorted(p for p in SUBSET.glob("*.txt") if p.stem != "INPUT")
    common = ["--sources", str(SUBSET / "INPUT.txt"), "--references", str(SEEDA / "derived" / "REF0.txt"),
              str(SEEDA / "derived" / "REF1.txt"), *options]
    cli = [sys.executable, "-m", "gecscore.cli", "score", metric]
    with tempfile.TemporaryDirectory() as tmp:
        board_argv = [*cli, *common, "--predictions", *map(str, systems), "--baseline", baseline,
                      "--bootstrap", "1000", "--format", "json"]
        board_run = timed(board_argv, Path(tmp) / "board.json")
        board = json.loads((Path(tmp) / "board.json").read_text(encoding="utf-8"))
        singles = {}
        for path in systems:
            argv = [*cli, *common, "--predictions", str(path), "--bootstrap", "1000", "--json"]
            singles[path.stem] = timed(argv, Path(tmp) / "single.json")
            singles[path.stem]["score"] = json.loads((Path(tmp) / "single.json").read_text())[board["main"]]
    scores = {row["system"]: row["score"] for row in board["systems"]}
    single_seconds = sum(s["seconds"] for s in singles.values())
    return {
        "metric": metric, "options": options, "baseline": baseline, "systems": len(systems),
        "sentences": board["sentences"], "main": board["main"], "signature": board["signature"],
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpu_cores": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
                    "python": platform.python_version()},
        "command": shlex.join(["gecscore", *board_argv[3:]]).replace(str(REPO.parent), ".."),
        "single_command": shlex.join(["gecscore", *cli[3:], *common, "--predictions", "SYSTEM.txt", "--bootstrap",
                                      "1000", "--json"]).replace(str(REPO.parent), ".."),
        "one_command": board_run, "single_runs": singles, "single_seconds": single_seconds,
        "speedup": single_seconds / board_run["seconds"],
        "max_score_difference": max(abs(scores[name] - s["score"]) for name, s in singles.items()),
        "leaderboard": [{k: row[k] for k in ("rank", "system", "score", "difference", "p_value")}
                        | {"low": row["interval"]["low"], "high": row["interval"]["high"]} for row in board["systems"]],
    }


def markdown(entries: dict[str, dict]) -> str:
    """The report: per metric the command, the machine, wall times with load averages, and the leaderboard."""
    lines = ["# Leaderboard of the SEEDA +Fluency systems: one command vs one command per system", "",
             "Made by `benchmarks/leaderboard_seeda.py` (its docstring has the commands); the numbers are in "
             "`leaderboard_seeda.json`. Each command runs in a fresh process with cold caches; the machine is "
             "shared with other jobs, so the load average around each command is recorded and absolute times move "
             "between runs.", ""]
    for key, e in entries.items():
        one, singles = e["one_command"], e["single_runs"]
        lines += [f"## {key}", "",
                  f"{e['systems']} systems × {e['sentences']} sentences, run {e['date']} on "
                  f"{e['machine']['cpu_cores']} CPU cores ({e['machine']['cpu']}), Python "
                  f"{e['machine']['python']}.", "",
                  "One command:", "", "```", e["command"], "```", "",
                  "versus, per system:", "", "```", e["single_command"], "```", "",
                  "| run | wall time | load average before → after |", "|---|---:|---|",
                  f"| one command, {e['systems']} systems, intervals and paired tests | {one['seconds']:.1f} s | "
                  f"{one['load_before']:.2f} → {one['load_after']:.2f} |",
                  f"| {e['systems']} single-system commands, each with its interval | {e['single_seconds']:.1f} s | "
                  f"{min(s['load_before'] for s in singles.values()):.2f}–"
                  f"{max(s['load_after'] for s in singles.values()):.2f} |",
                  f"| **speed-up** | **{e['speedup']:.1f}×** | |", "",
                  f"Largest difference between a system's score in the two ways: {e['max_score_difference']:.2g}"
                  + (" (encoder batches are made up differently; `docs/tolerances.md` allows 1e-5)."
                     if e["max_score_difference"] else "."), ""]
        if any(row["score"] > 1 for row in e["leaderboard"]):
            lines += ["Scores above 1 are the published UOT-ERRANT's degenerate transports (the same numbers as in "
                      "`uot_errant.md`); `--robust` keeps every score in [0, 1].", ""]
        lines += [f"| rank | system | {e['main']} | 95% CI | Δ vs {e['baseline']} | p |",
                  "|---:|---|---:|---|---:|---:|"]
        for row in e["leaderboard"]:
            diff = "—" if row["difference"] is None else f"{row['difference']:+.4f}"
            p = "baseline" if row["p_value"] is None else f"{row['p_value']:.4f}" + ("\\*" * (row["p_value"] < 0.05))
            lines.append(f"| {row['rank']} | {row['system']} | {row['score']:.4f} | [{row['low']:.4f}, "
                         f"{row['high']:.4f}] | {diff} | {p} |")
        lines += ["", f"Signature: `{e['signature']}`", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metric", default="uot_errant")
    parser.add_argument("--model", help="encoder of uot_errant (e.g. minilm)")
    parser.add_argument("--baseline", default="BART")
    args = parser.parse_args()
    options = ["--model", args.model] if args.model else []
    key = args.metric + (f" (model {args.model})" if args.model else "")
    store = OUT.with_suffix(".json")
    entries = json.loads(store.read_text(encoding="utf-8")) if store.is_file() else {}
    entries[key] = run(args.metric, options, args.baseline)
    store.write_text(json.dumps(entries, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    OUT.with_suffix(".md").write_text(markdown(entries), encoding="utf-8")
    print(f"{key}: one command {entries[key]['one_command']['seconds']:.1f} s, {entries[key]['systems']} single "
          f"commands {entries[key]['single_seconds']:.1f} s, speed-up {entries[key]['speedup']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
