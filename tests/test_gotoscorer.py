"""GoToScorer equals gec-metrics 0.1.1 (golden files of `tests/golden_gotoscorer/`, made by running it) float for
float, corpus and sentence level, unweighted and with the difficulty weights of its generator; the weights written
are its weight file byte for byte; the CLI, per-type output, the leaderboard with a baseline, sharding, bad input and
flags work for it."""

import hashlib
import json
import re
import warnings
from pathlib import Path

import pytest

from gecscore import registry, sharding
from gecscore.cli import main
from gecscore.common.edits import Edit
from gecscore.common.statistics import NotShardableError
from gecscore.gotoscorer import Chunk, chunk_sequence, judge

GOLDEN = json.loads((Path(__file__).parent / "golden_gotoscorer" / "gotoscorer_golden.json").read_text("utf-8"))


def lines(parent: Path, relative: str) -> list[str]:
    """A file's sentences as gec-metrics' generator reads them."""
    return (parent / relative).read_text(encoding="utf-8").rstrip().split("\n")


def case_data(parent: Path, name: str) -> tuple[dict, list[str], list[list[str]], dict[str, list[str]]]:
    case = GOLDEN["cases"][name]
    return (case, lines(parent, case["src"]), [[r] for r in lines(parent, case["ref"])],
            {hyp: lines(parent, hyp) for hyp in case["hyps"]})


def quiet_run(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return registry.run_systems("gotoscorer", *args, **kwargs)


def assert_equal(result, expected, where):
    assert result.score == expected["f"], where
    assert [result.scores[k] for k in ("tp", "fp", "fn", "tn")] == [expected[k] for k in ("tp", "fp", "fn", "tn")]
    assert result.sentence_scores() == expected["sentences"], where


@pytest.mark.parametrize("name", sorted(GOLDEN["cases"]))
def test_equals_gec_metrics_unweighted_and_with_its_generators_weights(shared_data, tmp_path, name):
    case, sources, references, systems = case_data(shared_data.parent, name)
    plain = quiet_run(sources, systems, references)
    saved = tmp_path / "weights.json"
    weighted = quiet_run(sources, systems, references, weights="systems", save_weights=str(saved))
    for hyp in case["hyps"]:
        assert_equal(plain[hyp], case["systems"][hyp]["no_weight"], f"{hyp} no_weight")
        assert_equal(weighted[hyp], case["systems"][hyp]["weighted"], f"{hyp} weighted")
    assert hashlib.sha256(saved.read_bytes()).hexdigest() == case["weights_sha256"]
    first = case["hyps"][0]
    from_file = quiet_run(sources, {first: systems[first]}, references, weights=str(saved))[first]
    assert_equal(from_file, case["systems"][first]["weighted"], f"{first} from the weight file")
    assert "weights:file(" in from_file.signature and "weights:systems(" in weighted[first].signature


def test_gec_metrics_own_example():
    """gec-metrics' unit test values (its `gotoscorer_test.py`), chunks included."""
    sources = ["This sentences contain gramamtical error .", "This is a sentence .", "This is no change ."]
    hyps = ["This sentence contains a grammatical error .", "this was corrected into completely different one .",
            "This is no change ."]
    refs = [["This sentence contains a gramamtical error ."], ["dummy sentence ."], ["This is no change ."]]
    for beta, corpus, sentence in ((0.5, 0.40540540540540543, [0.7894736842105263, 0.0, 1.0]),
                                   (2.0, 0.5357142857142857, [0.9375, 0.0, 1.0])):
        result = quiet_run(sources, {"s": hyps}, refs, beta=beta)["s"]
        assert result.score == corpus and result.sentence_scores() == sentence
    chunks = result.sentences[0]["chunks"]
    assert [c[:4] for c in chunks if c[3] != "DUMMY:DUMMY"] == [[1, 2, "sentence", "R:NOUN:NUM"],
                                                                [2, 3, "contains", "R:VERB:SVA"],
                                                                [3, 3, "a", "M:DET"]]


def test_chunks_and_judgement_by_hand():
    edits = [Edit(1, 2, "sentences", 1, 2, "sentence", "R:NOUN:NUM"), Edit(3, 3, "", 3, 4, "a", "M:DET"),
             Edit(3, 4, "gramamtical", 4, 5, "grammatical", "R:SPELL"), Edit(6, 6, "", 7, 8, "!", "M:PUNCT")]
    tokens = "This sentences contain gramamtical error .".split(" ")
    chunks = chunk_sequence(edits, tokens)
    assert [(c.o_start, c.o_end, c.c_str) for c in chunks] == [
        (0, 0, ""), (0, 1, "This"), (1, 1, ""), (1, 2, "sentence"), (2, 2, ""), (2, 3, "contain"), (3, 3, "a"),
        (3, 4, "grammatical"), (4, 4, ""), (4, 5, "error"), (5, 5, ""), (5, 6, "."), (6, 6, "!")]
    assert [c.edited for c in chunks].count(True) == 4
    wide = Chunk(1, 3, "x y", "R:OTHER", True)
    assert judge(wide, chunks) == (False, True)  # no chunk of its span; an edit overlaps it
    assert judge(Chunk(1, 2, "sentence", "R:NOUN:NUM", True), chunks) == (True, True)
    assert judge(Chunk(4, 5, "errors", "R:NOUN:NUM", True), chunks) == (False, False)
    assert judge(Chunk(2, 2, "", "DUMMY:DUMMY", False), chunks) == (True, False)


SOURCES = ["I has a apple .", "He go to school yesterday .", "This is fine .", "She like cats and dog ."]
SYSTEMS = {"a": ["I have an apple .", "He went to the school yesterday .", "This is fine .",
                 "She likes cats and dog ."],
           "b": ["I have a apple .", "He go to school yesterday .", "This is fine !", "She likes cats and dogs ."],
           "c": ["I has an apple .", "He went to school yesterday .", "This is fine .", "She like cat and dog ."]}
REFERENCES = [["I have an apple .", "I had an apple ."], ["He went to school yesterday ."], ["This is fine ."],
              ["She likes cats and dogs .", "She likes cats and a dog ."]]


def test_perfect_corrections_and_unchanged_correct_sources_score_1():
    predictions = [refs[0] for refs in REFERENCES]
    for options in ({}, {"robust": True}, {"weights": "systems"}):
        systems = {"perfect": predictions, **({"other": SYSTEMS["a"]} if options.get("weights") else {})}
        result = quiet_run(SOURCES, systems, REFERENCES, **options)["perfect"]
        assert result.sentence_scores() == [1.0] * 4 and result.score == 1.0, options
        assert result.details["degenerate_sentences"] == []
    changed = quiet_run(SOURCES, {"s": SYSTEMS["b"]}, REFERENCES)["s"]
    assert changed.sentences[2]["score"] == 0.0  # an edit of a correct sentence: P = 0


def test_systems_weights_need_several_systems_and_are_per_sentence():
    with pytest.raises(ValueError, match="at least 2 systems"):
        registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, weights="systems")
    whole = quiet_run(SOURCES, SYSTEMS, REFERENCES, weights="systems")
    pieces = [quiet_run(SOURCES[a:b], {k: v[a:b] for k, v in SYSTEMS.items()}, REFERENCES[a:b], weights="systems")
              for a, b in ((0, 1), (1, 4))]
    for name in SYSTEMS:
        assert [s["chunks"] for p in pieces for s in p[name].sentences] == [s["chunks"] for s in
                                                                          whole[name].sentences]
    weights = [row[4] for row in whole["a"].sentences[0]["chunks"]]
    assert set(weights) <= {1 - k / 3 for k in range(4)} and any(w > 0 for w in weights)


def test_shards_merge_into_the_full_run():
    for options in ({}, {"return_types": 2}):
        full = registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, **options)
        merged = sharding.run_in_shards("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, shards=2, **options)
        assert (merged.scores, merged.sentences, merged.details) == (full.scores, full.sentences, full.details)


def test_systems_weights_in_shards_merge_into_the_full_run():
    """Every shard sees all systems (`sharding.score_shard`), so the weights, and the merged results, are the
    whole run's."""
    run = sharding.plan("gotoscorer", {"weights": "systems", "return_types": 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pieces = [sharding.score_shard(run, SOURCES, SYSTEMS, REFERENCES, None, start, stop)
                  for start, stop in sharding.shard_bounds(len(SOURCES), 3)]
    whole = quiet_run(SOURCES, SYSTEMS, REFERENCES, weights="systems", return_types=3)
    for name in SYSTEMS:
        merged = sharding.merge(run, [piece[name] for piece in pieces])
        assert (merged.scores, merged.sentences, merged.details, merged.signature) == (
            whole[name].scores, whole[name].sentences, whole[name].details, whole[name].signature)


def test_a_weight_file_and_saving_weights_are_not_sharded(tmp_path):
    path = tmp_path / "w.json"
    quiet_run(SOURCES, SYSTEMS, REFERENCES, weights="systems", save_weights=str(path))
    with pytest.raises(NotShardableError, match="weight file"):
        sharding.run_in_shards("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, shards=2, weights=str(path))
    with pytest.raises(NotShardableError, match="save_weights"):
        sharding.plan("gotoscorer", {"weights": "systems", "save_weights": str(path)})
    assert sharding.plan("gotoscorer", {"weights": "systems"}).name == "gotoscorer"


def test_per_type_table_adds_up_to_the_corpus():
    result = quiet_run(SOURCES, {"a": SYSTEMS["a"]}, REFERENCES, return_types=1)["a"]
    rows = result.details["types"]["rows"]
    assert set(rows) <= {"M", "R", "U", "DUMMY"} and "DUMMY" in rows
    for key in ("tp", "fp", "fn", "tn"):
        assert sum(row[key] for row in rows.values()) == result.scores[key]
    full = quiet_run(SOURCES, {"a": SYSTEMS["a"]}, REFERENCES, return_types=3)["a"].details["types"]["rows"]
    assert "R:VERB:SVA" in full and "R:VERB:TENSE" in full


def test_ref_id_picks_the_reference():
    first = registry.run("gotoscorer", SOURCES[:1], SYSTEMS["a"][:1], REFERENCES[:1])
    second = registry.run("gotoscorer", SOURCES[:1], SYSTEMS["a"][:1], REFERENCES[:1], ref_id=1)
    assert first.score == 1.0 and second.score < 1.0 and second.sentences[0]["reference"] == 1
    assert second.sentences[0]["statistics"] == second.sentences[0]["per_reference"][1]


def test_references_it_does_not_read_are_never_dropped_silently(tmp_path, capsys):
    """GoToScorer reads one reference per sentence (`ref_id`), as gec-metrics does. Given more without choosing, the
    library says so (UnusedReferencesWarning) and the command line refuses the second file, naming `ref_id`; given
    `ref_id`, neither complains (issue 42: two reference files were scored against the first, silently)."""
    from gecscore.common.inputs import UnusedReferencesWarning

    sources, hyps, references = ([values[i] for i in (0, 3)] for values in (SOURCES, SYSTEMS["a"], REFERENCES))

    with pytest.warns(UnusedReferencesWarning, match=r"one reference per sentence \(ref_id=0\); 2 of 2 sentences "
                                                     r"have more.*Pass ref_id=K"):
        registry.run("gotoscorer", sources, hyps, references)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnusedReferencesWarning)
        registry.run("gotoscorer", sources, hyps, references, ref_id=1)
        registry.run("gotoscorer", sources, hyps, [r[:1] for r in references])
    src = write(tmp_path / "src.txt", sources)
    hyp = write(tmp_path / "hyp.txt", hyps)
    refs = [write(tmp_path / f"ref{k}.txt", [r[k] for r in references]) for k in range(2)]
    command = ["score", "gotoscorer", "--sources", src, "--predictions", hyp, "--references", *refs]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("gecscore score: error: 2 reference files given: GoToScorer scores against one reference")
    assert "Pass -o ref_id=K" in err and len(err.strip().splitlines()) == 1
    assert main([*command, "-o", "ref_id=1", "--json"]) == 0
    chosen = json.loads(capsys.readouterr().out)
    assert chosen["f0.5"] == registry.run("gotoscorer", sources, hyps, references, ref_id=1).score


def test_bad_input_is_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match=r"`ref_id` is 1 but `references\[1\]` has 1"):
        registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, ref_id=1)
    with pytest.raises(FileNotFoundError, match="no weight file"):
        registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, weights=str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"weights": [1.0]}] * 4))
    with pytest.raises(ValueError, match=r"sentence 0: 1 weights for \d+ reference chunks"):
        registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, weights=str(bad))
    bad.write_text(json.dumps([{"weights": [1.0]}] * 3))
    with pytest.raises(ValueError, match="holds 3 sentences, the corpus has 4"):
        registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, weights=str(bad))
    with pytest.raises(ValueError, match="save_weights"):
        registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, save_weights=str(bad))
    with pytest.raises(ValueError, match=r"`predictions\[1\]` is None|predictions"):
        registry.run("gotoscorer", SOURCES, ["a .", None, "b .", "c ."], REFERENCES)
    with pytest.raises(TypeError, match="unknown option"):
        registry.run("gotoscorer", SOURCES, SYSTEMS["a"], REFERENCES, no_weight=True)


def test_zero_weight_errors_and_empty_predictions_are_flagged():
    systems = {"a": SYSTEMS["a"], "empty": ["", *SYSTEMS["a"][1:]]}
    with pytest.warns(UserWarning):
        results = registry.run_systems("gotoscorer", SOURCES, systems, REFERENCES, weights="systems")
    reasons = {(r["index"], r["reason"]) for r in results["empty"].details["degenerate_sentences"]}
    assert (0, "empty prediction") in reasons
    zero = [r for r in results["a"].details["degenerate_sentences"] if r["reason"] == "zero-weight edits"]
    assert zero
    for i, sentence in enumerate(results["a"].sentences):
        errors = [c[4] for c in sentence["chunks"] if c[5] not in ("tp", "tn")]
        flagged = [r["chunks"] for r in zero if r["index"] == i]
        assert flagged == ([len(errors)] if errors and not any(errors) else []), i
    robust = quiet_run(SOURCES, systems, REFERENCES, weights="systems", robust=True)["empty"]
    unchanged = quiet_run(SOURCES, {**systems, "empty": [SOURCES[0], *SYSTEMS["a"][1:]]}, REFERENCES,
                          weights="systems")["empty"]
    assert robust.sentences[0] == unchanged.sentences[0]  # robust: an empty prediction is the unchanged source


def write(path: Path, texts: list[str]) -> str:
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    return str(path)


def test_cli_prints_the_corpus_score_and_scores_systems_together(tmp_path, capsys):
    src = write(tmp_path / "src.txt", SOURCES)
    refs = write(tmp_path / "ref0.txt", [r[0] for r in REFERENCES])
    hyps = {name: write(tmp_path / f"{name}.txt", texts) for name, texts in SYSTEMS.items()}
    assert main(["score", "gotoscorer", "--sources", src, "--predictions", hyps["a"], "--references", refs,
                 "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    single = [[r[0]] for r in REFERENCES]
    assert printed["f0.5"] == quiet_run(SOURCES, {"a": SYSTEMS["a"]}, single)["a"].score
    weights = tmp_path / "weights.json"
    assert main(["score", "gotoscorer", "--sources", src, "--predictions", *hyps.values(), "--references", refs,
                 "-o", "weights=systems", "-o", f"save_weights={weights}", "--bootstrap", "0", "--json"]) == 0
    out = capsys.readouterr().out
    expected = quiet_run(SOURCES, SYSTEMS, single, weights="systems")
    for name, result in expected.items():
        assert str(result.score) in out, name
    assert len(json.loads(weights.read_text())) == len(SOURCES)
    assert main(["score", "gotoscorer", "--sources", src, "--predictions", hyps["a"], "--references", refs,
                 "-cat", "2"]) == 0
    assert re.search(r"^\s*DUMMY\s", capsys.readouterr().out, flags=re.M)


def test_leaderboard_with_a_baseline(shared_data, tmp_path, capsys):
    case, sources, references, systems = case_data(shared_data.parent, "seeda")
    paths = {"src": write(tmp_path / "src.txt", sources[:40]),
             "ref0": write(tmp_path / "ref0.txt", [r[0] for r in references[:40]])}
    names = ["gpt", "bart", "input"]
    hyps = [systems[case["hyps"][4]][:40], systems[case["hyps"][0]][:40], sources[:40]]
    files = [write(tmp_path / f"{n}.txt", h) for n, h in zip(names, hyps)]
    code = main(["score", "gotoscorer", "--sources", paths["src"], "--predictions", *files, "--names", *names,
                 "--baseline", "input", "--bootstrap", "200", "--references", paths["ref0"], "-o", "weights=systems"])
    assert code == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s*1\s+(gpt|bart)\s+0\.\d{4}", out, flags=re.M) and "baseline" in out


def test_the_trainer_hook_scores_it(tmp_path):
    from transformers import EvalPrediction

    from ecosystem_helpers import SOURCES as HOOK_SOURCES, TARGETS, tiny_seq2seq
    from gecscore.integrations import seq2seq_compute_metrics

    tokenizer = tiny_seq2seq(tmp_path)[1]
    predictions = ["he went to school yesterday .", "i have a apple .", "she buyed some apples .", "the cat is here .",
                   "they were at school .", "he has dog ."]

    def padded(texts, width):
        return [row + [-100] * (width - len(row)) for row in tokenizer(texts)["input_ids"]]

    hook = seq2seq_compute_metrics(tokenizer, ["gotoscorer"], sources=HOOK_SOURCES)
    out = hook(EvalPrediction(predictions=padded(predictions, 14), label_ids=padded(TARGETS, 15)))
    expected = registry.run("gotoscorer", HOOK_SOURCES, predictions, [[t] for t in TARGETS], robust=True).scores
    assert out == {f"gotoscorer_{k}": v for k, v in expected.items()} and 0 < out["gotoscorer_f0.5"] < 1
    with pytest.raises(FileNotFoundError, match="no weight file"):  # refused when the hook is built
        seq2seq_compute_metrics(tokenizer, {"gotoscorer": {"weights": str(tmp_path / "missing.json")}})
