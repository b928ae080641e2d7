"""Chinese edits from text side by side: ChERRANT's `parallel_to_m2.py -g char` and gecscore's `chinese_edits`, one run.

Protocol, declared before the run: MuCGEC dev's example prediction (1,137 pairs) and its references (1,137 sources,
2,466 references), each a whole process of each implementation, alternating, `--repeats` rounds: ChERRANT's own
command line on the MuCGEC file (its defaults: every cheapest alignment, simplified conversion), and
`python -c` driving `gecscore.common.chinese_edits.cherrant_m2` on the same file with the same lexicon folder. Wall
time of the whole process (interpreter start, imports and lexicon loading included on both sides). Every output is
checked equal, byte for byte, to ChERRANT's golden M2 (../shared/golden/cherrant) before it counts.

ChERRANT is not part of this repository: pass its folder (`scorers/ChERRANT` of HillZhang1999/MuCGEC at
39221934ee4ccf07801879136a75dd7e11319977, run unmodified) and a Python that has its requirements (pypinyin, OpenCC,
Levenshtein; `ltp` and `torch` may be import stubs on `--reference-path`, since char mode constructs neither).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report import machine_line, write_report

HERE = Path(__file__).resolve().parent
OURS = """
import sys
from gecscore.common.chinese_edits import cherrant_m2, load_lexicon
rows = [line.split("\\t")[1:] for line in open(sys.argv[1], encoding="utf-8").read().strip().split("\\n")]
m2 = cherrant_m2([r[0] for r in rows], [r[1:] for r in rows], load_lexicon(sys.argv[2]))
open(sys.argv[3], "w", encoding="utf-8").write(m2)
"""
CASES = {"prediction": ("MuCGEC/example_pred_dev.txt", "mucgec_dev/example_pred_dev.hyp.m2.char"),
         "references": ("MuCGEC/MuCGEC_dev.txt", "mucgec_dev/MuCGEC_dev.ref.m2.char")}


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Seconds of one whole process."""
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cherrant", type=Path, required=True, help="ChERRANT's folder (scorers/ChERRANT)")
    parser.add_argument("--reference-python", default=sys.executable, help="a Python with ChERRANT's requirements")
    parser.add_argument("--reference-path", default="", help="PYTHONPATH for ChERRANT (import stubs)")
    parser.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "chinese_edits.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    data, golden = args.shared / "data" / "MuCGEC", args.shared / "golden" / "cherrant"
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.m2"
        for _ in range(args.repeats):
            for case, (given, expected) in CASES.items():
                runs = {
                    "ChERRANT": ([args.reference_python, "parallel_to_m2.py", "-f", str(data / given), "-o", str(out),
                                  "-g", "char"], args.cherrant, {**os.environ, "PYTHONPATH": args.reference_path}),
                    "gecscore": ([sys.executable, "-c", OURS, str(data / given), str(args.cherrant / "data"),
                                  str(out)], HERE.parent, dict(os.environ)),
                }
                for name, (command, cwd, env) in runs.items():
                    seconds = timed(command, cwd, env)
                    if out.read_text(encoding="utf-8") != (golden / expected).read_text(encoding="utf-8"):
                        raise SystemExit(f"{name}'s M2 of the {case} differs from the golden M2")
                    times.setdefault((case, name), []).append(seconds)
    rows = ["| input | pairs | ChERRANT (s) | gecscore (s) | speed-up |", "|---|---|---|---|---|"]
    for case in CASES:
        theirs, ours = (statistics.median(times[(case, n)]) for n in ("ChERRANT", "gecscore"))
        pairs = "1,137" if case == "prediction" else "2,466"
        rows.append(f"| {case} | {pairs} | {theirs:.1f} | {ours:.1f} | {theirs / ours:.1f}x |")
    report = (f"{machine_line(load)}\n\nMedian of {args.repeats} round(s), whole processes, alternating; every "
              "output equal to ChERRANT's golden M2 byte for byte.\n\n" + "\n".join(rows))
    write_report(args.out, "Chinese edits from text: ChERRANT vs gecscore", "bench_chinese_edits.py",
                 sys.argv[1:], report)
    print(report)


if __name__ == "__main__":
    main()
