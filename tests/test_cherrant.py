"""ChERRANT (MuCGEC's Chinese ERRANT) at char level: `errant` with `language="zh"` scores ChERRANT M2 files as its
`compare_m2_for_evaluation.py` does, exact against the reference's own outputs in ../shared/golden/cherrant (its
README says how they were made: the MuCGEC dev example prediction and the ChERRANT demo, every mode)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gecscore import registry
from gecscore.common import errant_compare as ec
from gecscore.common.m2io import format_m2, read_m2
from gecscore.common.results import DegenerateOutputWarning

ZH = {"convention": "errant_compare", "language": "zh"}


@pytest.fixture(scope="module")
def cherrant(golden, shared_data):
    """The golden folder, the dev M2 pair, the demo M2 pair and the dev JSON record."""
    root = golden / "cherrant"
    dev = (root / "mucgec_dev" / "example_pred_dev.hyp.m2.char", root / "mucgec_dev" / "MuCGEC_dev.ref.m2.char")
    demo = (root / "demo" / "demo.hyp.m2.char", shared_data / "MuCGEC" / "ChERRANT" / "samples" / "demo.ref.m2.char")
    record = json.loads((root / "cherrant_char_mucgec_dev_example_pred.json").read_text(encoding="utf-8"))
    return root, dev, demo, record


def agree_with_cherrant(record: dict, sentences: list[dict]) -> None:
    """Each sentence's counts under the greedy corpus choice, its chosen annotators and every combination's counts
    equal ChERRANT's (`record["sentences"]`)."""
    for expected, ours in zip(record["sentences"], sentences, strict=True):
        k = [tuple(pair) for pair in ours["coders"]].index((0, ours["corpus_ref"]))
        assert ours["per_ref"][k] == [expected["tp"], expected["fp"], expected["fn"]], expected["index"]
        if not expected["skipped_not_annotatable"]:
            assert (0, ours["corpus_ref"]) == (expected["chosen_hyp"], expected["chosen_ref"]), expected["index"]
            combos = {(c["hyp"], c["ref"]): [c["tp"], c["fp"], c["fn"]] for c in expected["combos"]}
            assert {tuple(pair): counts for pair, counts in zip(ours["coders"], ours["per_ref"])} == combos


def test_cherrant_m2_files_read_and_write_back_byte_for_byte(cherrant, shared_data):
    """`T<k>-A<j>` target lines (several alignments per annotator) and `T<k> 没有错误/无法标注` markers are kept."""
    root, dev, demo, _ = cherrant
    samples = shared_data / "MuCGEC" / "ChERRANT" / "samples"
    for path in (*dev, *demo, samples / "nlpcc2018_official.ref.m2.char", samples / "demo.hyp.m2.word"):
        assert format_m2(read_m2(path)) == path.read_text(encoding="utf-8"), path.name
    blocks = read_m2(dev[0])
    assert [(k, j) for k, j, _ in blocks[473].targets] == [(0, 0), (0, 1)]
    assert {e.alignment for e in blocks[473].edits} == {0, 1}
    assert [ec.not_annotatable(ec.from_m2(b)) for b in read_m2(dev[1])].count(True) == 3


def _run(hyp, ref, **options):
    """The dev pair scored as ChERRANT does (its three 无法标注 sentences warn as degenerate)."""
    with pytest.warns(DegenerateOutputWarning, match="not annotatable: 3"):
        return registry.run("errant", None, None, None, hyp_m2=str(hyp), ref_m2=str(ref), **ZH, **options)


@pytest.mark.parametrize("mode,options", [("corpus", {}), ("cse", {"evaluation": "cse"}),
                                          ("ds", {"evaluation": "ds"}), ("dt", {"evaluation": "dt"}),
                                          ("cs_beta1", {"beta": 1.0})])
def test_mucgec_dev_corpus_equals_cherrant_in_every_mode(cherrant, mode, options):
    _, dev, _, record = cherrant
    expected = record["corpus"] if mode == "corpus" else record["corpus_other_modes"][mode]
    result = _run(*dev, **options)
    f_name = "f" + format(options.get("beta", 0.5), "g")
    got = {"tp": result.scores["tp"], "fp": result.scores["fp"], "fn": result.scores["fn"],
           "p": round(result.scores["precision"], 4), "r": round(result.scores["recall"], 4),
           "f": round(result.scores[f_name], 4)}
    assert got == expected


def test_every_mucgec_sentence_equals_cherrant(cherrant):
    """Every sentence's counts under the greedy corpus choice and the chosen (hypothesis, reference) annotators;
    the three 无法标注 sentences are skipped (0/0/0) and listed as degenerate."""
    _, dev, _, record = cherrant
    result = _run(*dev, return_sentence_scores=True)
    skipped = [s["index"] for s in record["sentences"] if s["skipped_not_annotatable"]]
    assert [d["index"] for d in result.details["degenerate_sentences"]] == skipped == [97, 463, 1076]
    assert {d["reason"] for d in result.details["degenerate_sentences"]} == {"not annotatable"}
    agree_with_cherrant(record, result.sentences)


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "gecscore.cli", "score", "errant", "--language", "zh", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout


def test_cli_prints_what_cherrant_prints(cherrant):
    """`gecscore score errant --language zh -hyp H -ref R [flags]` in place of ChERRANT's compare script: the dev
    per-type table (-cat 3) and the demo's three modes, printed alike, then the signature."""
    root, dev, demo, _ = cherrant
    printed = _cli("-hyp", str(dev[0]), "-ref", str(dev[1]), "-cat", "3")
    assert printed.startswith((root / "mucgec_dev" / "compare_cs_cat3.txt").read_text(encoding="utf-8"))
    assert "language:zh|scorer:cherrant" in printed.split("\n")[-2]
    for flag, name in (([], "cs"), (["-ds"], "ds"), (["-dt"], "dt"), (["-cat", "3"], "cs_cat3")):
        printed = _cli("-hyp", str(demo[0]), "-ref", str(demo[1]), *flag)
        assert printed.startswith((root / "demo" / f"compare_{name}.txt").read_text(encoding="utf-8")), name


def test_chinese_needs_errant_compare_naming_the_option(cherrant):
    _, dev, _, _ = cherrant
    with pytest.raises(ValueError, match="`language` is errant_compare's option"):
        registry.run("errant", None, None, None, hyp_m2=str(dev[0]), ref_m2=str(dev[1]), language="zh")
    english = registry.run("errant", None, None, None, hyp_m2=str(dev[0]), ref_m2=str(dev[1]),
                           convention="errant_compare")
    assert "language" not in english.signature  # English signatures are unchanged


def cleme_zh_golden(golden: Path, assumption: str) -> dict:
    """CLEME's Chinese mode on MuCGEC dev's example prediction: the dependent run in ../shared/golden/cleme_zh, the
    independent one made by running CLEME's code the same way (tests/golden_cleme_zh, whose script first checks
    that its dependent run equals the shared file in every value)."""
    folder = golden / "cleme_zh" if assumption == "dependent" else Path(__file__).parent / "golden_cleme_zh"
    return json.loads((folder / f"cleme_v1_{assumption}_mucgec_dev_example_pred.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("assumption", ["dependent", "independent"])
def test_cleme_on_cherrant_m2_equals_cleme_chinese_mode(golden, cherrant, assumption):
    """CLEME v1 (2025 code, length weights) on the same ChERRANT M2 files equals CLEME's Chinese mode (`lang=zho`)
    under both assumptions: only the first alignment of an annotator is read, a 无法标注 or 没有错误 reference is
    the source; every sentence's chunk labels, weights and counts, the chosen references and the four scores."""
    from gecscore.cleme2.chunks import label_chunks, partition_sample, samples_from_m2
    from gecscore.cleme2.metric import LENGTH_CORPUS, ChunkPRF, length_bias, length_weights, sentence_stats

    gold = cleme_zh_golden(golden, assumption)
    _, dev, _, _ = cherrant
    samples = samples_from_m2(*dev)
    chunked = [partition_sample(s) for s in samples]
    labels = [label_chunks(c, assumption) for c in chunked]
    bias = length_bias(chunked)
    assert bias == gold["config"]["weigher_effective"]["tp_bias"]
    weights = [[length_weights(c[0], ls, LENGTH_CORPUS, bias) for ls in sample_labels]
               for c, sample_labels in zip(chunked, labels)]
    stats = [sentence_stats(ls, w) for ls, w in zip(labels, weights)]
    for i, entry in enumerate(gold["sentences"]):
        assert len(stats[i].weighted) == entry["n_refs_used"], i
        for r, chunks in enumerate(entry["chunks_per_ref"]):
            for key, wanted in (("tp", ("TP",)), ("fp", ("FP_ne", "FP_un")), ("fn", ("FN",))):
                picked = [[j, weights[i][r][j]] for j, label in enumerate(labels[i][r]) if label in wanted]
                assert chunks[key] == picked, (i, r, key)
            assert chunks["tn_count"] == labels[i][r].count("TN"), (i, r)
        for r, ref in enumerate(entry["per_ref_unweighted"]):
            c = stats[i].unweighted[r]
            assert (c.tp, c.fp, c.fn, c.tn) == (ref["tp"], ref["fp"], ref["fn"], ref["tn"]), (i, r)
    scores = gold["scores"]
    weighted, unweighted = [s.weighted for s in stats], [s.unweighted for s in stats]
    assert ChunkPRF().corpus(weighted).score == scores["prf_corpus_weighted"]["f"] == {"dependent": 0.3155,
                                                                                       "independent": 0.3343}[assumption]
    assert ChunkPRF().corpus(unweighted).score == scores["prf_corpus_unweighted"]["f"]
    assert ChunkPRF().corpus(unweighted).chosen == [e["chosen_ref_corpus_unweighted"] for e in gold["sentences"]]
    sentence = ChunkPRF(release="2025").sentence(weighted)
    assert sentence.chosen == [e["chosen_ref_sentence_weighted"] for e in gold["sentences"]]
    assert sentence.score == pytest.approx(scores["prf_sentence_weighted"]["f"], abs=1e-12)
    assert ChunkPRF(release="2025").sentence(unweighted).score == pytest.approx(
        scores["prf_sentence_unweighted"]["f"], abs=1e-12)
    public = registry.run("cleme", None, None, None, hyp_m2=str(dev[0]), ref_m2=str(dev[1]), release="2025",
                          assumption=assumption)
    assert public.score == gold["headline"]["CLEME_corpus_weighted_f"]
