"""Golden values of CLEME v1's Chinese mode under the independent assumption, made by running CLEME's own code.

`../shared/golden/cleme_zh` holds the dependent assumption only. This script builds both metric objects exactly as
CLEME's `main.py --metric cleme --lang zho --level corpus --assumption A` builds them (THUKElab/CLEME at
e90abead75a9d766595b1b0ff4473647af0c86e9), reads the two ChERRANT char-level M2 files with CLEME's
`M2DataReaderWriter` and runs `evaluate`. From CLEME's per-sentence results it keeps, per sentence and reference,
the chunks counted TP / FP / FN (index and weight) and the TN count, the scorer's own per-reference counts
(`score_sample`), and the reference each of the scorer's selection rules picks (`compute_prf`, `gt_numbers`, as in
`score_corpus` / `score_sentence`). The dependent run must equal the shared golden file in every one of these
values (asserted below), which shows this reading of CLEME's results is the one that file was made with; the
independent run is written to `cleme_v1_independent_mucgec_dev_example_pred.json`.

Run in a scratch environment holding CLEME's dependencies (README.md), from the repository root:

    PYTHONPATH=benchmarks/reference_shims python tests/golden_cleme_zh/make_golden.py ../shared path/to/CLEME
"""

import json
import sys
import time
import types
from importlib.metadata import version
from pathlib import Path

COMMIT = "e90abead75a9d766595b1b0ff4473647af0c86e9"
INPUTS = {"ref_m2": "golden/cherrant/mucgec_dev/MuCGEC_dev.ref.m2.char",
          "hyp_m2": "golden/cherrant/mucgec_dev/example_pred_dev.hyp.m2.char"}
DEPENDENT = "golden/cleme_zh/cleme_v1_dependent_mucgec_dev_example_pred.json"
OUT = Path(__file__).with_name("cleme_v1_independent_mucgec_dev_example_pred.json")


def stub_bert_score() -> None:
    """CLEME imports `bert_score` at package import for CLEME2.0's similarity weigher, which this run never builds."""
    module = types.ModuleType("bert_score")

    class BERTScorer:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("bert_score is a stub here: CLEME2.0's similarity weigher is not run")

    module.BERTScorer = BERTScorer
    sys.modules["bert_score"] = module


def chunk_list(chunks) -> list:
    return [[c.chunk_index, c.weight] for c in chunks]


def counts(result) -> dict:
    return {k: getattr(result, k) for k in ("tp", "fp", "fn", "tn", "p", "r", "f", "acc")}


def run(shared: Path, assumption: str) -> dict:
    """CLEME's evaluation of the MuCGEC dev example prediction under `assumption`, as the golden schema keeps it."""
    import main as cleme_main
    from core.evaluation.metrics import DependentCLEME, IndependentCLEME
    from core.evaluation.scorers import ScorerType
    from core.evaluation.scorers.scorer_utils import compute_acc, compute_prf, gt_numbers
    from core.readers import M2DataReaderWriter

    if assumption == "dependent":
        metric = DependentCLEME(lang="zho", scorer_type=ScorerType.PRF,
                                weigher=cleme_main.DEFAULT_LENGTH_WEIGHER_CORPUS_DEPENDENT)
    else:
        metric = IndependentCLEME(lang="zho", scorer_type=ScorerType.PRF,
                                  weigher=cleme_main.DEFAULT_LENGTH_WEIGHER_CORPUS_INDEPENDENT)
    reader = M2DataReaderWriter()
    ref = reader.read(str(shared / INPUTS["ref_m2"]))
    hyp = reader.read(str(shared / INPUTS["hyp_m2"]))
    start = time.perf_counter()
    score, results = metric.evaluate(hyp, ref)
    seconds = time.perf_counter() - start

    scorer = metric.scorer
    sentences, total = [], [0, 0, 0, 0]
    for index, result in enumerate(results):
        unweighted, weighted = scorer.score_sample(result)
        best = [-1.0, 0, 0, 0, 0]  # score_corpus's greedy rule over the running totals
        chosen_corpus = None
        for r, s in enumerate(unweighted):
            _, _, f = compute_prf(total[0] + s.tp, total[1] + s.fp, total[2] + s.fn, beta=scorer.factor_beta)
            if gt_numbers([f, s.tp, -s.fp, -s.fn, s.tn], [best[0], best[1], -best[2], -best[3], best[4]]):
                best, chosen_corpus = [f, s.tp, s.fp, s.fn, s.tn], r
        total = [t + b for t, b in zip(total, best[1:])]

        def sentence_rule(per_ref):
            best_, chosen = [-1.0, -1.0, -1.0, -1.0], None
            for r, s in enumerate(per_ref):
                p, rec, f = compute_prf(s.tp, s.fp, s.fn)
                values = [f, p, rec, compute_acc(s.tp, s.fp, s.fn, s.tn)]
                if gt_numbers(values, best_):
                    best_, chosen = values, r
            return chosen

        sentences.append({
            "index": index, "n_refs_used": len(result.ref_results),
            "chosen_ref_corpus_unweighted": chosen_corpus,
            "chosen_ref_sentence_unweighted": sentence_rule(unweighted),
            "chosen_ref_sentence_weighted": sentence_rule(weighted),
            "per_ref_unweighted": [counts(s) for s in unweighted],
            "per_ref_weighted": [counts(s) for s in weighted],
            "chunks_per_ref": [{"tp": chunk_list(x.tp_chunks), "fp": chunk_list(x.fp_chunks),
                                "fn": chunk_list(x.fn_chunks), "tn_count": len(x.tn_chunks)}
                               for x in result.ref_results]})
    assert total[:3] == [score.scores["prf_corpus_unweighted"].tp, score.scores["prf_corpus_unweighted"].fp,
                         score.scores["prf_corpus_unweighted"].fn]
    weigher = {k: v for k, v in vars(metric.weigher).items() if isinstance(v, (int, float))}
    return {"assumption": assumption, "weigher_effective": weigher, "seconds": round(seconds, 2),
            "scores": {name: counts(s) for name, s in score.scores.items()}, "sentences": sentences}


def main() -> None:
    shared, src = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    stub_bert_score()
    sys.path.insert(0, str(src))
    sys.argv = sys.argv[:1]
    dependent = run(shared, "dependent")
    published = json.loads((shared / DEPENDENT).read_text(encoding="utf-8"))
    assert dependent["scores"] == published["scores"], "the dependent scores differ from the shared golden"
    for ours, theirs in zip(dependent["sentences"], published["sentences"], strict=True):
        for key in ("n_refs_used", "chosen_ref_corpus_unweighted", "chosen_ref_sentence_unweighted",
                    "chosen_ref_sentence_weighted", "per_ref_unweighted", "per_ref_weighted", "chunks_per_ref"):
            assert ours[key] == theirs[key], (ours["index"], key)
    independent = run(shared, "independent")
    s = independent["scores"]
    head = {
        "metric": "CLEME v1 (independent assumption), Chinese mode (lang=zho), PRF scorer with length weigher",
        "reference_impl": {"repo": "THUKElab/CLEME", "commit": COMMIT, "patches": "none",
                           "entry_point": "main.py --metric cleme --lang zho --level corpus --assumption independent "
                                          "(metric object built as main.py builds it)"},
        "config": {"lang": "zho", "scorer_type": "PRF", "beta": 0.5, "assumption": "independent",
                   "weigher_effective": independent["weigher_effective"]},
        "library_versions": {"python": sys.version.split()[0], **{p: version(p) for p in (
            "pydantic", "numpy", "pypinyin", "OpenCC", "Levenshtein", "RapidFuzz", "tabulate", "blingfire", "spacy",
            "errant")}},
        "environment_shims": {"ltp": "import stub (benchmarks/reference_shims; only word-level tokenization "
                                     "constructs LTP)",
                              "bert_score": "import stub (only the CLEME2.0 similarity weigher constructs it)"},
        "inputs": INPUTS, "system": "MuCGEC example_pred_dev", "n_sentences": len(independent["sentences"]),
        "dependent_run_equals": DEPENDENT,
        "headline": {"CLEME_corpus_weighted_f": s["prf_corpus_weighted"]["f"],
                     "SentCLEME_weighted_f": s["prf_sentence_weighted"]["f"],
                     "corpus_unweighted_f": s["prf_corpus_unweighted"]["f"],
                     "sentence_unweighted_f": s["prf_sentence_unweighted"]["f"]},
        "scores": s, "wall_s_evaluate": independent["seconds"]}
    lines = ",\n".join(json.dumps(x, ensure_ascii=False) for x in independent["sentences"])  # one sentence a line
    OUT.write_text(json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "sentences": [\n' + lines + "\n ]\n}\n",
                   encoding="utf-8")
    print(json.dumps({"dependent": "equal to the shared golden", **{k: v["f"] for k, v in s.items()}}))


if __name__ == "__main__":
    main()
