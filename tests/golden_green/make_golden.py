"""Write `green_golden.json` from gec-metrics 0.1.1 (PyPI, `gec_metrics.metrics.GREEN`), run as published.

Usage: `python make_golden.py DATA_PARENT` in an environment where `pip install gec-metrics==0.1.1` was run;
DATA_PARENT is the folder holding `data/SEEDA` and `data/JFLEG`. Files are read as one sentence per line (the last
line needs no newline) and handed to the unchanged `GREEN` class: `score_corpus` and `score_sentence` of each
hypothesis file, with the references as gec-metrics takes them (one list per reference set). Paths in the output are
relative to DATA_PARENT.
"""

import importlib.metadata
import json
import sys
from pathlib import Path

from gec_metrics.metrics import GREEN

SEEDA = "data/SEEDA/outputs/subset/"
SEEDA_SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE", "REF-F",
                 "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]
JFLEG = "data/JFLEG/test/"
CASES = [
    {"name": "seeda", "src": SEEDA + "INPUT.txt",
     "refs": ["data/SEEDA/derived/REF0.txt", "data/SEEDA/derived/REF1.txt"],
     "hyps": [SEEDA + f"{system}.txt" for system in SEEDA_SYSTEMS]},
    {"name": "jfleg", "src": JFLEG + "test.src", "refs": [JFLEG + f"test.ref{k}" for k in range(4)],
     "hyps": [JFLEG + "test.src", JFLEG + "test.spellchecked.src"]},
    {"name": "jfleg-ref0", "src": JFLEG + "test.src", "refs": [JFLEG + f"test.ref{k}" for k in (1, 2, 3)],
     "hyps": [JFLEG + "test.ref0"]},
]
#: GREEN.Config keyword arguments: the defaults, then character n-grams with F0.5, then word bigrams with F1.
CONFIGS = [{}, {"unit": "char", "beta": 0.5}, {"n": 2, "beta": 1.0}]


def lines(parent: Path, relative: str) -> list[str]:
    return (parent / relative).read_text(encoding="utf-8").rstrip("\n").split("\n")


def main(parent: Path) -> None:
    out: dict = {"reference": "gec-metrics " + importlib.metadata.version("gec-metrics") + " (PyPI), "
                              "gec_metrics.metrics.GREEN, score_corpus and score_sentence",
                 "python": sys.version.split()[0], "command": "python make_golden.py DATA_PARENT", "cases": []}
    for case in CASES:
        sources = lines(parent, case["src"])
        references = [lines(parent, r) for r in case["refs"]]
        for config in CONFIGS:
            metric = GREEN(GREEN.Config(**config))
            corpus, sentence = {}, {}
            for hyp in case["hyps"]:
                hypotheses = lines(parent, hyp)
                corpus[hyp] = metric.score_corpus(sources, hypotheses, references)
                sentence[hyp] = metric.score_sentence(sources, hypotheses, references)
            out["cases"].append({**case, "config": config, "corpus": corpus, "sentence": sentence})
    target = Path(__file__).with_name("green_golden.json")
    target.write_text(json.dumps(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
