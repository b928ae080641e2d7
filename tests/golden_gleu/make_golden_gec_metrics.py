"""Write `gec_metrics_golden.json` from gec-metrics 0.1.1 (PyPI), its `gleu` and `gleuofficial` classes run as they are.

Usage: `python make_golden_gec_metrics.py DATA_PARENT` in an environment with `gec-metrics==0.1.1` installed, where
DATA_PARENT is the folder holding `data/SEEDA` and `data/JFLEG`. Each case reads its files as lines (the last newline
dropped) and records the corpus score (`score_corpus`) and the sentence scores (`score_sentence`) of each class and
setting; the reference lists are passed as gec-metrics takes them (one list per reference).
"""

import json
import sys
from importlib.metadata import version
from pathlib import Path

from gec_metrics.metrics import GLEU, GLEUOfficial

SEEDA = "data/SEEDA/outputs/subset/"
SEEDA_SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE", "REF-F",
                 "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]
JFLEG = "data/JFLEG/test/"
CASES = [
    {"name": "seeda", "src": SEEDA + "INPUT.txt", "refs": ["data/SEEDA/derived/REF0.txt", "data/SEEDA/derived/REF1.txt"],
     "hyps": [SEEDA + f"{name}.txt" for name in SEEDA_SYSTEMS]},
    {"name": "jfleg", "src": JFLEG + "test.src", "refs": [JFLEG + f"test.ref{k}" for k in range(4)],
     "hyps": [JFLEG + "test.src", JFLEG + "test.spellchecked.src"]},
]
#: (class, config) pairs; the sentence scores are kept for the default configuration of each class.
CONFIGS = [("gleu", {}), ("gleu", {"n": 2}), ("gleu", {"unit": "char"}), ("gleuofficial", {})]
CLASSES = {"gleu": GLEU, "gleuofficial": GLEUOfficial}


def lines(parent: Path, relative: str) -> list[str]:
    return (parent / relative).read_text(encoding="utf-8").rstrip("\n").split("\n")


def main(parent: Path) -> None:
    out: dict = {"reference": f"gec-metrics {version('gec-metrics')} (PyPI)", "python": sys.version.split()[0],
                 "cases": []}
    for case in CASES:
        sources, references = lines(parent, case["src"]), [lines(parent, r) for r in case["refs"]]
        runs = []
        for metric, config in CONFIGS:
            cls = CLASSES[metric]
            corpus, sentence = {}, {}
            for hyp in case["hyps"]:
                hypotheses = lines(parent, hyp)
                corpus[hyp] = cls(cls.Config(**config)).score_corpus(sources, hypotheses, references)
                if not config:
                    sentence[hyp] = cls(cls.Config(**config)).score_sentence(sources, hypotheses, references)
            runs.append({"metric": metric, "config": config, "corpus": corpus, "sentence": sentence})
        out["cases"].append({**case, "runs": runs})
    (Path(__file__).parent / "gec_metrics_golden.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
