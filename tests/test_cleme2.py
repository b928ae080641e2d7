"""CLEME / CLEME2.0: published anchors, golden parity, edge cases, weighting, the evaluate module and its card."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest

from gecscore.cleme2.chunks import TN, Sample, label_chunks, partition_sample, samples_from_m2
from gecscore.cleme2.metric import (
    ALPHA_CORPUS, ALPHA_SENTENCE, HEUO, LENGTH_CORPUS, ChunkPRF, ChunkCounts, check_alpha, length_bias, length_config,
    length_weights, sentence_stats,
)
from gecscore.cleme2.metric import ClemeConfig, cleme_score, evaluate_samples
from gecscore.cleme2.weights import LLMRater, edit_text, parse_rating, pseudo_sentence, similarity_weights

import float_noise
from conftest import REPO, run_doctests
DATA = REPO.parent / "shared" / "data"
EXAMPLES = "CoNLL-2014/CLEME/demo/examples"
METRIC = str(REPO / "metrics" / "cleme2")
GOLDEN_FILES = [f"{kind}_{assumption}_{system}.json" for kind in ("cleme2", "cleme_v1", "cleme_v1.0")
                for assumption in ("dependent", "independent") for system in ("AMU", "INPUT")]


@functools.lru_cache(maxsize=None)
def conll(system: str) -> tuple[list[Sample], list]:
    """CLEME's CoNLL-2014 example files (both annotators) against one system, with their chunks."""
    if not (DATA / EXAMPLES).is_dir():
        pytest.skip("../shared/data is not available")
    samples = samples_from_m2(DATA / EXAMPLES / f"conll14-{system}.errant", DATA / EXAMPLES / "conll14.errant")
    return samples, [partition_sample(s) for s in samples]


def score(system: str, **settings) -> dict:
    samples, _ = conll(system)
    return evaluate_samples(samples, ClemeConfig(**settings))


def m2(source: str, *targets: list[tuple[int, int, str]]) -> str:
    """An M2 block: one annotator per target, each a list of (start, end, correction)."""
    lines = [f"S {source}"]
    for annotator, edits in enumerate(targets):
        if not edits:
            lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{annotator}")
        for start, end, correction in edits:
            lines.append(f"A {start} {end}|||R:X|||{correction}|||REQUIRED|||-NONE-|||{annotator}")
    return "\n".join(lines) + "\n\n"


# ---------------------------------------------------------------------------------------------------
# published anchors (CLEME README, CLEME v1.0 release, and the 2025 code's unweighted HEUO; `docs/tolerances.md`)

@pytest.mark.parametrize("settings, expected", [
    (dict(weighting="none", level="corpus", assumption="dependent"), 0.463198),
    (dict(weighting="none", level="sentence", assumption="dependent"), 0.533757),
    (dict(weighting="none", level="corpus", assumption="independent"), 0.466099),
    (dict(weighting="none", level="sentence", assumption="independent"), 0.547270),
    (dict(variant="cleme", level="corpus", assumption="dependent"), 0.2514),
    (dict(variant="cleme", level="corpus", assumption="independent"), 0.2661),
    (dict(variant="cleme", level="sentence", assumption="dependent"), 0.3624),
    (dict(variant="cleme", level="sentence", assumption="independent"), 0.4200),
])
def test_published_anchors_amu(settings, expected):
    assert round(score("AMU", **settings)["score"], 6) == expected


def test_anchor_details_and_2025_sentence_level():
    out = score("AMU", weighting="none")
    assert [round(out[k], 5) for k in ("hit", "err", "und", "ove")] == [0.18880, 0.13826, 0.67294, 0.44862]
    assert {k: out["counts"][k] for k in ("TP", "FP_ne", "FP_un", "FN")} == {
        "TP": 381, "FP_ne": 279, "FP_un": 537, "FN": 1358}
    out = score("AMU", variant="cleme")
    assert (out["precision"], out["recall"]) == (0.2645, 0.2097)
    assert [round(out["counts"][k], 2) for k in ("TP", "FP", "FN", "TN")] == [313.51, 871.80, 1181.71, 6312]
    assert round(score("AMU", variant="cleme", level="sentence", release="2025")["score"], 5) == 0.34638
    assert round(score("AMU", variant="cleme", level="sentence", release="2025", assumption="independent")["score"],
                 5) == 0.37587
    assert score("INPUT", weighting="none")["score"] == pytest.approx(0.40)


# ---------------------------------------------------------------------------------------------------
# golden parity (model-free values, exact)

def _labels(system: str, assumption: str) -> list:
    return [label_chunks(c, assumption) for c in conll(system)[1]]


def _indices(labels: list[str], *wanted: str) -> list[int]:
    return [j for j, label in enumerate(labels) if label in wanted]


@pytest.mark.parametrize("name", [n for n in GOLDEN_FILES if n.startswith("cleme2_")])
def test_golden_cleme2_unweighted(golden, name):
    gold = json.loads((golden / "cleme2" / name).read_text())
    system, assumption = gold["system"], gold["config"]["assumption"]
    labels = _labels(system, assumption)
    stats = [sentence_stats(ls, None).unweighted for ls in labels]
    corpus = HEUO(ALPHA_CORPUS).corpus(stats)
    choice = gold["corpus_choice_corpus_factors"]["unweighted"]
    assert corpus.chosen == choice["chosen_refs"]
    assert corpus.total.as_dict() == choice["totals"]
    assert corpus.score == pytest.approx(gold["headline"]["CLEME2_corpus_unweighted"], abs=1e-12)
    sentence = HEUO(ALPHA_SENTENCE).sentence(stats)
    assert sentence.score == pytest.approx(gold["headline"]["SentCLEME2_unweighted"], abs=1e-12)
    for i, entry in enumerate(gold["sentences"]):
        assert sentence.chosen[i] == entry["unweighted"]["chosen_ref"], i
        assert [c.as_dict() for c in stats[i]] == entry["unweighted"]["per_ref"], i
        for r, chunks in enumerate(entry["chunks_per_ref"]):
            assert [j for j, _ in chunks["tp"]] == _indices(labels[i][r], "TP")
            assert [j for j, _ in chunks["fp"]] == _indices(labels[i][r], "FP_ne", "FP_un")
            assert [j for j, _ in chunks["fp_ne"]] == _indices(labels[i][r], "FP_ne")
            assert [j for j, _ in chunks["fn"]] == _indices(labels[i][r], "FN")
            assert chunks["tn_count"] == labels[i][r].count(TN)


@pytest.mark.parametrize("name", [n for n in GOLDEN_FILES if n.startswith("cleme_v1_")])
def test_golden_cleme_v1_2025_code(golden, name):
    gold = json.loads((golden / "cleme2" / name).read_text())
    system, assumption = gold["system"], gold["config"]["assumption"]
    _, chunked = conll(system)
    labels = _labels(system, assumption)
    run = gold["corpus_config_run"]
    bias = length_bias(chunked)
    assert bias == run["weigher_effective"]["tp_bias"]
    weights = [[length_weights(c[0], ls, LENGTH_CORPUS, bias) for ls in sample_labels]
               for c, sample_labels in zip(chunked, labels)]
    stats = [sentence_stats(ls, w) for ls, w in zip(labels, weights)]
    for i, entry in enumerate(run["sentences"]):
        for r, chunks in enumerate(entry["chunks_per_ref"]):
            for key, wanted in (("tp", ("TP",)), ("fp", ("FP_ne", "FP_un")), ("fn", ("FN",))):
                assert chunks[key] == [[j, weights[i][r][j]] for j in _indices(labels[i][r], *wanted)], (i, r)
        for r, ref in enumerate(entry["weighted"]["per_ref"]):
            c = stats[i].weighted[r]
            assert (c.tp, c.fp, c.fn, c.tn) == (ref["tp"], ref["fp"], ref["fn"], ref["tn"]), (i, r)
    weighted = [s.weighted for s in stats]
    corpus = ChunkPRF().corpus(weighted)
    assert corpus.chosen == run["corpus_choice"]["weighted"]["chosen_refs"]
    assert corpus.score == gold["headline"]["CLEME_corpus"]
    assert ChunkPRF().corpus([s.unweighted for s in stats]).score == gold["headline"]["CLEME_corpus_unweighted"]
    sentence = ChunkPRF(release="2025").sentence(weighted)
    assert sentence.chosen == [e["weighted"]["chosen_ref"] for e in run["sentences"]]
    assert [v["f"] for v in sentence.per_sentence] == [e["weighted"]["f"] for e in run["sentences"]]
    assert sentence.score == pytest.approx(gold["headline"]["SentCLEME"], abs=1e-12)
    unweighted = ChunkPRF(release="2025").sentence([s.unweighted for s in stats]).score
    assert unweighted == pytest.approx(gold["headline"]["SentCLEME_unweighted"], abs=1e-12)


@pytest.mark.parametrize("name", [n for n in GOLDEN_FILES if n.startswith("cleme_v1.0_")])
def test_golden_cleme_v1_0_release(golden, name):
    gold = json.loads((golden / "cleme2" / name).read_text())
    system, assumption = gold["system"], "independent" if "independent" in name else "dependent"
    _, chunked = conll(system)
    labels = _labels(system, assumption)
    bias = length_bias(chunked)
    for level in ("corpus", "sentence"):
        run = gold["runs"][level]
        config = length_config(level, assumption, "2023")
        assert (config.tp.alpha, config.tp.min_value, config.tp.max_value) == tuple(
            run["config"]["tp"][k] for k in ("alpha", "min_value", "max_value"))
        stats = [sentence_stats(ls, [length_weights(c[0], rl, config, bias) for rl in ls]).weighted
                 for c, ls in zip(chunked, labels)]
        for i, entry in enumerate(run["sentences"]):
            for r, ref in enumerate(entry["per_ref"]):  # v1.0 keeps one result under independence
                c = stats[i][r]
                assert (c.tp, c.fp, c.fn, c.tn) == (ref["tp"], ref["fp"], ref["fn"], ref["tn"]), (level, i, r)
        result = ChunkPRF(release="2023").corpus(stats) if level == "corpus" else ChunkPRF(release="2023").sentence(stats)
        assert result.score == run["score"]["F"]
        if level == "sentence":
            assert result.chosen == [e["chosen_ref"] for e in run["sentences"]]
            assert [v["f"] for v in result.per_sentence] == [e["f"] for e in run["sentences"]]


# ---------------------------------------------------------------------------------------------------
# edge cases (`docs/reference-behaviour.md`, section "Edge cases")

def run_m2(block_hyp: str, block_ref: str, **settings) -> dict:
    return cleme_score(hyp_m2=block_hyp, ref_m2=block_ref, weighting=settings.pop("weighting", "none"), **settings)


SRC = "a b c d"


@pytest.mark.parametrize("hyp, ref, sentence, corpus, prf", [
    ([], [], 0.65, 0.55, 1.0),                               # nothing to correct, nothing done: 1 - α_hit
    ([], [(1, 2, "x")], 0.45, 0.40, 0.0),                    # under-correction: α_err + α_ove
    ([(1, 2, "x")], [], 0.45, 0.50, 0.0),                    # over-correction: α_err + α_und
    ([(1, 2, "x")], [(1, 2, "x")], 1.0, 1.0, 1.0),           # hypothesis = reference ≠ source
    ([(1, 2, "y")], [(1, 2, "x")], 0.40, 0.20, 0.0),         # wrong correction: α_und + α_ove
])
def test_single_reference_edge_cases(hyp, ref, sentence, corpus, prf):
    h, r = m2(SRC, hyp), m2(SRC, ref)
    assert run_m2(h, r, level="sentence")["score"] == pytest.approx(sentence)
    assert run_m2(h, r, level="corpus")["score"] == pytest.approx(corpus)
    assert run_m2(h, r, variant="cleme", weighting="length")["score"] == prf


def test_independent_needs_all_references_for_fn_and_first_reference_wins_ties():
    h, r = m2(SRC, []), m2(SRC, [(1, 2, "x")], [])
    dependent = run_m2(h, r, level="sentence", sentences=True)
    assert dependent["score"] == pytest.approx(0.65) and dependent["sentences"][0]["ref"] == 1
    independent = run_m2(h, r, level="sentence", assumption="independent", sentences=True)
    assert independent["counts"]["FN"] == 0 and independent["sentences"][0]["ref"] == 0
    same = run_m2(m2(SRC, [(0, 1, "q")]), m2(SRC, [(1, 2, "x")], [(1, 2, "x")]), sentences=True)
    assert same["sentences"][0]["ref"] == 0


def test_empty_source_is_an_error_and_empty_references_are_dropped():
    with pytest.raises(ValueError, match="empty source"):
        run_m2("S\n", "S\n")
    with pytest.raises(ValueError, match=r"`sources\[0\]` is empty"):
        cleme_score([""], ["a"], [["a"]], weighting="none")
    out = run_m2(m2(SRC, [(1, 2, "x")]), m2(SRC, [(0, 4, "")], [(1, 2, "x")]), sentences=True, return_chunks=True)
    assert out["score"] == 1.0
    assert out["sentences"][0]["ref"] == 1 and [r["ref"] for r in out["sentences"][0]["per_ref"]] == [1]
    assert out["chunks"][0]["reference_ids"] == [1]


def test_empty_hypothesis_is_a_deletion():
    out = run_m2(m2(SRC, [(0, 4, "")]), m2(SRC, [(1, 2, "x")]), return_chunks=True)
    rows = out["chunks"][0]["chunks"]
    assert [(r["source"], r["hypothesis"], r["labels"]) for r in rows] == [(["a", "b", "c", "d"], [], ["FP_ne"])]


def test_alpha_is_validated():
    assert check_alpha([0.25, 0.25, 0.25, 0.25]) == (0.25, 0.25, 0.25, 0.25)
    for bad, message in (((0.5, 0.5, 0.5, 0.5), "sum to 1"), ((0.5, 0.5), "four factors"),
                         ((1.2, -0.2, 0.0, 0.0), "in \\[0, 1\\]")):
        with pytest.raises(ValueError, match=message):
            HEUO(bad)
    with pytest.raises(TypeError, match="alpha"):
        check_alpha("abcd")
    out = run_m2(m2(SRC, []), m2(SRC, []), level="sentence", alpha=(0.7, 0.1, 0.1, 0.1))
    assert out["score"] == pytest.approx(0.3)


def test_heuo_and_prf_indicators():
    c = ChunkCounts(tp=2, fp=4, fp_ne=1, fp_un=3, fn=1, tn=5)
    v = HEUO(ALPHA_CORPUS).indicators(c)
    assert (v["hit"], v["err"], v["und"], v["ove"]) == (0.5, 0.25, 0.25, 0.5)
    assert v["com"] == pytest.approx(0.45 * 0.5 + 0.35 * 0.75 + 0.15 * 0.75 + 0.05 * 0.5)
    assert ChunkPRF().indicators(c) == {"f": round(1.25 * (1 / 3) * (2 / 3) / (0.25 / 3 + 2 / 3), 4), "p": 0.3333,
                                   "r": 0.6667, "acc": 0.5833}
    assert ChunkPRF().indicators(ChunkCounts()) == {"f": 1.0, "p": 1.0, "r": 1.0, "acc": 0.0}
    with pytest.raises(ValueError, match="release"):
        ChunkPRF(release="2024")


def test_config_validation():
    with pytest.raises(ValueError, match="variant"):
        ClemeConfig(variant="cleme3")
    with pytest.raises(ValueError, match="weighting"):
        ClemeConfig(weighting="bert")
    with pytest.raises(ValueError, match="causal LM"):
        ClemeConfig(weighting="llm")
    with pytest.raises(ValueError, match="layer"):
        ClemeConfig(layer=-1)
    config = ClemeConfig(level="sentence")
    assert (config.weighting, config.alpha, config.model) == ("similarity", ALPHA_SENTENCE, "bert-base-uncased")
    assert ClemeConfig(variant="cleme").weighting == "length"


# ---------------------------------------------------------------------------------------------------
# similarity weighting with a stand-in similarity

class _Overlap:
    """Share of reference tokens found in the candidate; records its calls."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def __call__(self, candidates, references):
        self.calls.append(list(zip(candidates, references)))
        return np.array([len(set(c.split()) & set(r.split())) / max(1, len(r.split()))
                         for c, r in zip(candidates, references)], dtype=np.float32)

    def canonical(self, texts):
        return list(texts)


def test_similarity_weights_pseudo_sentences_and_one_batched_call():
    sim = _Overlap()
    source = "He go to school yesterday ."
    hyp = m2(source, [(1, 2, "goes")])
    ref = m2(source, [(1, 2, "went"), (4, 5, "")], [(1, 2, "goes")])
    out = cleme_score(hyp_m2=hyp, ref_m2=ref, similarity=sim, return_chunks=True, sentences=True)
    assert len(sim.calls) == 1
    pairs = sim.calls[0]
    assert len(pairs) == len(set(pairs))  # every (candidate, reference) pair scored once
    rows = out["chunks"][0]["chunks"]
    labels = [r["labels"] for r in rows]
    assert labels == [["TN", "TN"], ["FP_ne", "TP"], ["TN", "TN"], ["FN", "TN"], ["TN", "TN"]]
    ref0, ref1 = "He went to school .", "He goes to school yesterday ."
    anchor0 = 3 / 4  # "He", "to", "school", "." of ref0 in the source
    assert rows[1]["weights"][0] == pytest.approx(abs(anchor0 - 3 / 4))  # "He goes to school yesterday ."
    assert rows[3]["weights"][0] == pytest.approx(abs(anchor0 - 4 / 5 * 5 / 4 * 3 / 4))  # "He go to school ."
    assert rows[1]["weights"][1] == pytest.approx(abs(5 / 6 - 1.0))
    assert rows[0]["weights"] == [1.0, 1.0]
    assert ("He go to school .", ref0) in pairs and ("He goes to school yesterday .", ref1) in pairs


def test_empty_pseudo_sentence_is_replaced_by_the_source():
    sim = _Overlap()
    samples = samples_from_m2(m2("a", [(0, 1, "")]), m2("a", [(0, 1, "b")]))
    chunked = [partition_sample(s) for s in samples]
    labels = [label_chunks(c, "dependent") for c in chunked]
    assert pseudo_sentence(chunked[0][0], 0) == ""
    assert similarity_weights(samples, chunked, labels, sim) == [[[0.0]]]
    assert sim.calls[0] == [("a", "b")]


# ---------------------------------------------------------------------------------------------------
# LLM weighting

@pytest.mark.parametrize("answer, value", [
    ("4", 4.0), (" Score: 5.", 5.0), ("Example Output (1-5): 3", 3.0), ("I would say four.", 4.0),
    ("10, no: 2", 2.0), ("4.5", 4.5), ("\n\n1", 1.0),
])
def test_parse_rating(answer, value):
    assert parse_rating(answer) == value


@pytest.mark.parametrize("answer", ["", "none", "0 or 6", "1-5"])
def test_parse_rating_without_a_score(answer):
    with pytest.raises(ValueError, match="no score from 1 to 5"):
        parse_rating(answer)


def test_edit_text():
    samples = samples_from_m2(m2("a b", [(0, 0, "x"), (1, 2, "")]), m2("a b", []))
    hyp = partition_sample(samples[0])[0]
    assert [edit_text(c, c) for c in hyp] == ["(none) \u2192 x", "a \u2192 a", "b \u2192 (none)"]


def _tiny_gpt2(directory: Path, answer: str = "4") -> Path:
    """A 1-layer GPT-2 whose output never depends on its input: it always says `answer`."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    words = ["[UNK]", "[PAD]", "[EOS]", "1", "2", "3", "4", "5", "score", "edit", "sentence", ":", "the"]
    vocab = {w: i for i, w in enumerate(words)}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tk.decoder = decoders.WordPiece()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]",
                                                     eos_token="[EOS]")
    config = transformers.GPT2Config(vocab_size=len(words), n_positions=512, n_embd=8, n_layer=1, n_head=2,
                                     bos_token_id=2, eos_token_id=2, pad_token_id=1)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config)
    with torch.no_grad():
        model.transformer.ln_f.weight.zero_()
        model.transformer.ln_f.bias.zero_()
        model.transformer.ln_f.bias[0] = 1.0
        model.transformer.wte.weight[:, 0] = 0.0
        model.transformer.wte.weight[vocab[answer], 0] = 10.0
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def test_llm_weighting_with_a_tiny_causal_lm(tmp_path):
    path = _tiny_gpt2(tmp_path / "gpt2")
    hyp = m2(SRC, [(1, 2, "x")])
    ref = m2(SRC, [(1, 2, "y"), (3, 4, "z")])
    out = cleme_score(hyp_m2=hyp, ref_m2=ref, weighting="llm", model=str(path), device="cpu",
                      return_chunks=True)
    weights = {r["labels"][0]: r["weights"][0] for r in out["chunks"][0]["chunks"]}
    assert weights == {"TN": 1.0, "FP_ne": 4.0, "FN": 4.0}
    assert f"model:{path}" in out["signature"] and "weighting:llm" in out["signature"]


def test_llm_answer_without_a_number_is_an_error(tmp_path, monkeypatch):
    rater = LLMRater.__new__(LLMRater)
    monkeypatch.setattr(LLMRater, "answers", lambda self, prompts, progress=False: ["I cannot tell."] * len(prompts))
    with pytest.raises(ValueError, match=r"sentence 0, reference 0, chunk 1: .*no score from 1 to 5"):
        cleme_score(hyp_m2=m2(SRC, [(1, 2, "x")]), ref_m2=m2(SRC, []), weighting="llm", model="m", rater=rater)


# ---------------------------------------------------------------------------------------------------
# outputs, evaluate module, plot

def test_sentence_details_are_the_sufficient_statistics():
    samples, chunked = conll("AMU")
    out = evaluate_samples(samples[:40], ClemeConfig(weighting="none", level="sentence"), sentences=True)
    labels = _labels("AMU", "dependent")[:40]
    for entry, ls in zip(out["sentences"], labels):
        assert [r["unweighted_counts"]["TP"] for r in entry["per_ref"]] == [lab.count("TP") for lab in ls]
        assert entry["score"] == max(r["score"] for r in entry["per_ref"])
    assert out["score"] == pytest.approx(np.mean([e["score"] for e in out["sentences"]]))


def test_evaluate_module_with_m2_input():
    import evaluate

    metric = evaluate.load(METRIC, weighting="none")
    paths = dict(hyp_m2=str(DATA / EXAMPLES / "conll14-AMU.errant"), ref_m2=str(DATA / EXAMPLES / "conll14.errant"))
    if not (DATA / EXAMPLES).is_dir():
        pytest.skip("../shared/data is not available")
    out = metric.compute(**paths, level="sentence")
    assert round(out["score"], 6) == 0.533757
    assert out["signature"].startswith("cleme2|") and "weighting:none" in out["signature"]
    assert round(metric.compute(**paths, variant="cleme", weighting="length")["score"], 4) == 0.2514
    with pytest.raises(ValueError, match="not both"):
        metric.compute(**paths, sources=["a"], predictions=["a"], references=[["a"]])
    with pytest.raises(TypeError, match="unknown option"):
        metric.compute(**paths, alhpa=(1, 0, 0, 0))
    with pytest.raises(ValueError, match="both `hyp_m2` and `ref_m2`"):
        metric.compute(hyp_m2=paths["hyp_m2"])


def test_plot_chunks():
    from gecscore.cleme2.plot import plot_chunks

    out = run_m2(m2(SRC, [(1, 2, "x")]), m2(SRC, [(1, 2, "y")], [(3, 3, "z")]), return_chunks=True)
    fig = plot_chunks(out["chunks"][0], ref=1, title="demo")
    (ax,) = fig.axes
    cells = ax.tables[0].get_celld()
    texts = {cell.get_text().get_text() for cell in cells.values()}
    assert {"x", "y", "z", "\u2205", "FP_un", "reference 1"} <= texts
    with pytest.raises(ValueError, match="ref"):
        plot_chunks(out["chunks"][0], ref=2)


# ---------------------------------------------------------------------------------------------------
# real models: ERRANT (spaCy) and MiniLM

@pytest.mark.real_model
def test_m2_and_raw_sentences_agree_where_errant_reproduces_the_m2(nlp):
    from gecscore.cleme2.chunks import samples_from_text
    from gecscore.common.edits import get_extractor

    samples, _ = conll("AMU")
    samples = samples[:200]
    raw = samples_from_text([s.source for s in samples], [s.hypothesis.text for s in samples],
                            [[r.text for r in s.references] for s in samples], get_extractor(nlp))

    def spans(sample: Sample) -> list:
        return [[(e.o_start, e.o_end, e.c_str) for e in t.edits] for t in (sample.hypothesis, *sample.references)]

    same = [i for i, (a, b) in enumerate(zip(samples, raw)) if spans(a) == spans(b)]
    assert len(same) >= 0.9 * len(samples)
    config = ClemeConfig(weighting="none", level="sentence", assumption="dependent")
    from_m2 = evaluate_samples([samples[i] for i in same], config, sentences=True)
    from_raw = evaluate_samples([raw[i] for i in same], config, sentences=True)
    assert from_m2["score"] == from_raw["score"]
    assert [s["per_ref"] for s in from_m2["sentences"]] == [s["per_ref"] for s in from_raw["sentences"]]


@pytest.mark.real_model
def test_evaluate_module_raw_sentences_and_add_batch():
    import evaluate

    metric = evaluate.load(METRIC, weighting="none", level="sentence")
    metric.add_batch(sources=["He go to school ."], predictions=["He goes to school ."],
                     references=["He goes to school ."])
    metric.add(source="It is a nice weather .", prediction="It is a nice weather .",
               reference="It is nice weather .")
    out = metric.compute(sentences=True)
    assert [round(s["score"], 4) for s in out["sentences"]] == [1.0, 0.45]


@pytest.mark.real_model
def test_script_doctests():  # the card's examples run in test_readme_snippets.py
    path = REPO / "metrics" / "cleme2" / "cleme2.py"
    run_doctests(path.read_text(encoding="utf-8"), str(path))


def _minilm_similarity(minilm):
    from gecscore.common.edit_impact import BERTScoreSimilarity

    return BERTScoreSimilarity(str(minilm), layer=6)


@pytest.mark.real_model
@pytest.mark.parametrize("name", ["cleme2_dependent_AMU.json", "cleme2_independent_AMU.json"])
def test_golden_minilm_chunk_weights(golden, minilm, name):
    """Similarity weights of the first 60 sentences against the reference code run with MiniLM (layer 6)."""
    gold = json.loads((golden / "cleme2" / name).read_text())
    assumption = gold["config"]["assumption"]
    samples, chunked = conll("AMU")
    n = 60
    labels = _labels("AMU", assumption)[:n]
    weights = similarity_weights(samples[:n], chunked[:n], labels, _minilm_similarity(minilm))
    runs = []
    for seed in float_noise.SEEDS:
        similarity = _minilm_similarity(minilm)
        similarity.scorer.encoder = float_noise.Perturbed(similarity.scorer.encoder, seed)
        runs.append(similarity_weights(samples[:n], chunked[:n], labels, similarity))
    for i, entry in enumerate(gold["sentences"][:n]):
        for r, chunks in enumerate(entry["chunks_per_ref"]):
            pairs = [(j, w) for key in ("tp", "fp", "fn") for j, w in chunks[key]]
            ours = [weights[i][r][j] for j, _ in pairs]
            spread = float_noise.spread(ours, [[run[i][r][j] for j, _ in pairs] for run in runs]) if pairs else 0.0
            float_noise.check(ours, [w for _, w in pairs], float_noise.bar(spread),
                              f"sentence {i} reference {r} chunk weights {[j for j, _ in pairs]}", spread)
            assert all(weights[i][r][j] == 1.0 for j in _indices(labels[i][r], TN))


@pytest.mark.real_model
@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in GOLDEN_FILES if n.startswith("cleme2_")])
def test_golden_minilm_headline(golden, minilm, name):
    gold = json.loads((golden / "cleme2" / name).read_text())
    similarity = _minilm_similarity(minilm)
    for level, key in (("corpus", "CLEME2_corpus"), ("sentence", "SentCLEME2")):
        samples, _ = conll(gold["system"])
        out = evaluate_samples(samples, ClemeConfig(level=level, assumption=gold["config"]["assumption"],
                                                    model="minilm", layer=6), similarity=similarity)
        float_noise.check(out["score"], gold["headline"][key], float_noise.FLOOR, f"{name} {key}")


def test_chunk_counts_as_dict_is_every_field_in_order():
    """`ChunkCounts.as_dict` is written out for speed; it must stay `dataclasses.asdict`."""
    import dataclasses

    from gecscore.cleme2.metric import ChunkCounts

    counts = ChunkCounts(1.0, 2.0, 0.5, 1.5, 3.0, 4.0)
    assert list(counts.as_dict().items()) == list(dataclasses.asdict(counts).items())


@pytest.mark.parametrize("options", [{}, {"level": "sentence"}, {"variant": "cleme2", "weighting": "none"},
                                     {"variant": "cleme2", "weighting": "none", "level": "sentence"}])
def test_sentence_records_are_built_when_first_read(nlp, monkeypatch, options):
    """The corpus score, the sentence scores and the resampled statistic build no sentence record; reading the
    records builds them once, with the scores `sentence_scores()` gave; `cleme_score(sentences=True)` still
    gives every reference's entries."""
    import pickle

    from gecscore import registry
    from gecscore.cleme2 import metric as cleme_metric

    built = []
    entry = cleme_metric.sentence_entry
    monkeypatch.setattr(cleme_metric, "sentence_entry", lambda *args: built.append(1) or entry(*args))
    sources = ["He go to school yesterday .", "She like apples .", "It is fine ."]
    predictions = ["He went to school yesterday .", "She likes apple .", "It is fine ."]
    references = [["He went to school yesterday .", "He goes to school ."], ["She likes apples ."],
                  ["It is fine .", "It was fine ."]]
    name = "cleme2" if options.get("variant") == "cleme2" else "cleme"
    rest = {k: v for k, v in options.items() if k != "variant"}
    result = registry.run(name, sources, predictions, references, **rest)
    scores = result.sentence_scores()
    assert result.n == 3 and not built
    assert 0.0 <= result.score <= 1.0 and result.statistic is not None and not built
    records = result.sentences
    assert len(built) == 3 and [r["score"] for r in records] == scores and result.sentences is records
    assert all("per_ref" not in r for r in records)
    assert pickle.loads(pickle.dumps(result)).sentences == records and len(built) == 3
    plain = cleme_score(sources, predictions, references, sentences=True, **{**rest, "variant": name})
    assert [len(s["per_ref"]) for s in plain["sentences"]] == [2, 1, 2]
    assert [{k: v for k, v in s.items() if k != "per_ref"} for s in plain["sentences"]] == records
