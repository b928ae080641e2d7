"""Write `gleu_golden.json` from the official GLEU+ script (keisks/jfleg `eval/gleu.py` at ee06ff8), run as is.

Usage: `python3 make_golden.py GLEU_PY DATA_PARENT` where GLEU_PY is the script fetched from
https://github.com/keisks/jfleg/blob/ee06ff806a208aba815ac45313f4e750a48330a5/eval/gleu.py (kept out of this
repository) and DATA_PARENT is the folder holding `data/SEEDA` and `data/JFLEG`. Every run is a subprocess in
DATA_PARENT, so the commands stored name the data by relative paths. Two records per case: what the script prints
(`printed`, its own rounding), and the same run through the script's `GLEU` class with its `get_gleu_stats`
replaced by one that keeps every digit of the values it would have printed (`full`).
"""

import json
import subprocess
import sys
from pathlib import Path

SEEDA = "data/SEEDA/outputs/subset/"
REFS = ["data/SEEDA/derived/REF0.txt", "data/SEEDA/derived/REF1.txt"]
JFLEG = "data/JFLEG/test/"
CASES = [
    {"name": "seeda", "src": SEEDA + "INPUT.txt", "refs": REFS, "hyps": [SEEDA + "GPT-3.5.txt", SEEDA + "REF-F.txt"]},
    {"name": "jfleg", "src": JFLEG + "test.src", "refs": [JFLEG + f"test.ref{k}" for k in (1, 2, 3)],
     "hyps": [JFLEG + "test.src", JFLEG + "test.ref0"]},
]
SENTENCE_CASES = [("seeda", SEEDA + "GPT-3.5.txt"), ("jfleg", JFLEG + "test.ref0")]

# Runs the script's own class; only the final formatting is replaced, so that no digit is lost.
DRIVER = """
import importlib.util, json, sys
import numpy as np, scipy.stats
spec = importlib.util.spec_from_file_location("gleu", sys.argv[1]); gleu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gleu)
class Full(gleu.GLEU):
    def get_gleu_stats(self, scores):
        mean, std = np.mean(scores), np.std(scores)
        low, high = scipy.stats.norm.interval(0.95, loc=mean, scale=std)
        return [float(mean), float(std), float(low), float(high)]
src, refs, hyp, sent = sys.argv[2], sys.argv[3].split(","), sys.argv[4], sys.argv[5] == "sent"
calculator = Full(4); calculator.load_sources(src); calculator.load_references(refs)
print(json.dumps(list(calculator.run_iterations(num_iterations=500, source=src, hypothesis=hyp, per_sent=sent))))
"""


def run(cwd: Path, argv: list[str]) -> str:
    return subprocess.run(argv, cwd=cwd, check=True, capture_output=True, text=True).stdout


def main(script: Path, parent: Path) -> None:
    out: dict = {"script": "https://github.com/keisks/jfleg/blob/ee06ff806a208aba815ac45313f4e750a48330a5/"
                           "eval/gleu.py", "python": sys.version.split()[0], "corpus": [], "sentence": []}
    for case in CASES:
        command = ["python3", "gleu.py", "-r", *case["refs"], "-s", case["src"], "--hyp", *case["hyps"]]
        printed = run(parent, [sys.executable, str(script), *command[2:]])
        full = [json.loads(run(parent, [sys.executable, "-c", DRIVER, str(script), case["src"], ",".join(case["refs"]),
                                        hyp, "corpus"]))[0] for hyp in case["hyps"]]
        out["corpus"].append({**case, "command": " ".join(command), "printed": printed,
                              "full": {hyp: dict(zip(("mean", "std", "low", "high"), values))
                                       for hyp, values in zip(case["hyps"], full)}})
    for name, hyp in SENTENCE_CASES:
        case = next(c for c in CASES if c["name"] == name)
        command = ["python3", "gleu.py", "-r", *case["refs"], "-s", case["src"], "--hyp", hyp, "--sent"]
        printed = run(parent, [sys.executable, str(script), *command[2:]])
        full = json.loads(run(parent, [sys.executable, "-c", DRIVER, str(script), case["src"], ",".join(case["refs"]),
                                       hyp, "sent"]))
        out["sentence"].append({"name": name, "src": case["src"], "refs": case["refs"], "hyp": hyp,
                                "command": " ".join(command), "printed": printed,
                                "full": [dict(zip(("mean", "std", "low", "high"), v)) for v in full]})
    target = Path(__file__).with_name("gleu_golden.json")
    target.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
