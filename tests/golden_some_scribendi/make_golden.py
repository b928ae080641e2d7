"""Write `some_scribendi_golden.json`: gec-metrics 0.1.1's SOME and Scribendi, run as published, on tiny random models.

Usage: `python make_golden.py DATA_PARENT [OUTPUT]`, run with an interpreter that has `gec-metrics==0.1.1` (PyPI)
installed; DATA_PARENT is the folder holding `data/SEEDA`. The models are built from fixed seeds by `tiny_models.py`
into a temporary folder and loaded by gec-metrics from there; their weight hashes are stored so that a rebuild can be
checked. Only two things around the reference are set: `no_cuda=True`, and, because gec-metrics' `SOME.__init__`
moves its regressors to CUDA whatever `no_cuda` says, `torch.nn.Module.cuda` returns the module unchanged (the run is
on the CPU). Everything recorded comes from gec-metrics' own methods:

* SOME: `score_sentence` and `score_corpus` with the default weights, and `score_sentence` with each weight set to
  1 and the others to 0, which gives each normalised component (`1·x + 0·y + 0·z` is `x` exactly).
* Scribendi: `score_sentence` and `score_corpus` at thresholds 0.8 (the default), 0.5 and 1.0; for the sentences
  whose prediction differs from the source, `ppl` of those sources and of those predictions (the same lists and
  batches `score_sentence` builds) and the per-sentence `token_sort_ratio` and `levenshtein_distance_ratio`.
"""

import json
import platform
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tiny_models  # noqa: E402

SEEDA = "data/SEEDA/outputs/subset/"
SOURCES = SEEDA + "INPUT.txt"
SYSTEMS = [SEEDA + "GPT-3.5.txt", SEEDA + "REF-F.txt"]
THRESHOLDS = [0.8, 0.5, 1.0]
UNIT_WEIGHTS = {"grammaticality": (1.0, 0.0, 0.0), "fluency": (0.0, 1.0, 0.0), "meaning": (0.0, 0.0, 1.0)}


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").rstrip("\n").split("\n")


def some_runs(SOME, paths: dict[str, Path], sources: list[str], predictions: list[str]) -> dict:
    models = dict(model_g=str(paths["grammer"]), model_f=str(paths["fluency"]), model_m=str(paths["meaning"]))
    scorer = SOME(SOME.Config(**models, no_cuda=True))
    out = {"sentence": scorer.score_sentence(sources, predictions), "corpus": scorer.score_corpus(sources, predictions)}
    for name, (g, f, m) in UNIT_WEIGHTS.items():
        unit = SOME(SOME.Config(**models, weight_g=g, weight_f=f, weight_m=m, no_cuda=True))
        out[name] = unit.score_sentence(sources, predictions)
    return out


def scribendi_runs(Scribendi, path: Path, sources: list[str], predictions: list[str]) -> dict:
    out: dict = {"thresholds": {}}
    for threshold in THRESHOLDS:
        scorer = Scribendi(Scribendi.Config(model=str(path), threshold=threshold, no_cuda=True))
        out["thresholds"][str(threshold)] = {"sentence": scorer.score_sentence(sources, predictions),
                                             "corpus": scorer.score_corpus(sources, predictions)}
    changed = [i for i, (s, p) in enumerate(zip(sources, predictions)) if s != p]
    out["changed"] = changed
    out["source_perplexity"] = scorer.ppl([sources[i] for i in changed])
    out["prediction_perplexity"] = scorer.ppl([predictions[i] for i in changed])
    out["token_sort_ratio"] = [scorer.token_sort_ratio(sources[i], predictions[i]) for i in changed]
    out["levenshtein_ratio"] = [scorer.levenshtein_distance_ratio(sources[i], predictions[i]) for i in changed]
    return out


def main(parent: Path, target: Path) -> None:
    import importlib.metadata

    import torch
    import transformers

    torch.nn.Module.cuda = lambda self, *args, **kwargs: self  # SOME.__init__ calls .cuda() even with no_cuda
    from gec_metrics.metrics import SOME, Scribendi

    sources = lines(parent / SOURCES)
    out: dict = {
        "reference": f"gec-metrics {importlib.metadata.version('gec-metrics')} (PyPI)",
        "command": "python tests/golden_some_scribendi/make_golden.py DATA_PARENT",
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "transformers": transformers.__version__,
                     "fuzzywuzzy": importlib.metadata.version("fuzzywuzzy"),
                     "python-Levenshtein": importlib.metadata.version("python-Levenshtein")},
        "cpu_capability": torch.backends.cpu.get_cpu_capability(), "threads": torch.get_num_threads(),
        "sources": SOURCES, "systems": {},
    }
    with tempfile.TemporaryDirectory() as folder:
        paths = tiny_models.build_all(Path(folder))
        out["weights_sha256"] = tiny_models.hashes(paths)
        for system in SYSTEMS:
            predictions = lines(parent / system)
            out["systems"][system] = {"some": some_runs(SOME, paths, sources, predictions),
                                      "scribendi": scribendi_runs(Scribendi, paths["lm"], sources, predictions)}
    target.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    default = Path(__file__).with_name("some_scribendi_golden.json")
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]) if len(sys.argv) > 2 else default)
