"""GLEU equals the official GLEU+ script (golden files of `tests/golden_gleu/`, made by running it) float for float,
corpus and sentence level; the CLI, the leaderboard with a baseline, sharding and resampling work for it."""

import ast
import json
import random
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest

from cli_cases import leaderboard_with_a_baseline
from gecscore import registry, sharding
from gecscore.cli import main
from gecscore.gleu import DrawnGLEU, gleu, gleu_rows, metric, reference_draws, sentence_counts
from gecscore.common.bootstrap import confidence_interval, paired_approximate_randomization

GOLDEN = json.loads((Path(__file__).parent / "golden_gleu" / "gleu_golden.json").read_text(encoding="utf-8"))


def lines(parent: Path, relative: str) -> list[str]:
    """A one-sentence-a-line file as the script reads it (one entry per line)."""
    return (parent / relative).read_text(encoding="utf-8").rstrip("\n").split("\n")


def corpus(parent: Path, case: dict) -> tuple[list[str], list[list[str]]]:
    """The sources and the references (one list per sentence) of a golden case."""
    return lines(parent, case["src"]), [list(refs) for refs in zip(*(lines(parent, r) for r in case["refs"]))]


def printed_lists(printed: str) -> list[list]:
    """The Python lists the script printed, one per hypothesis file (it prints the file name, then the list)."""
    return [ast.literal_eval(line) for line in printed.splitlines() if line.startswith("[")]


def as_printed(mean: float, std: float, low: float, high: float) -> list[str]:
    """The values formatted as the script prints them."""
    return ["%f" % mean, "%f" % std, "(%.3f,%.3f)" % (low, high)]


@pytest.mark.parametrize("case", GOLDEN["corpus"], ids=lambda c: c["name"])
def test_corpus_equals_the_official_script(shared_data, case):
    sources, references = corpus(shared_data.parent, case)
    results = registry.run_systems("gleu", sources, {hyp: lines(shared_data.parent, hyp) for hyp in case["hyps"]},
                                   references)
    for hyp, printed in zip(case["hyps"], printed_lists(case["printed"])):
        result, full = results[hyp], case["full"][hyp]
        assert result.score == full["mean"], hyp
        assert result.details["std"] == full["std"], hyp
        interval = result.details["script_interval"]
        assert (interval["low"], interval["high"]) == (full["low"], full["high"]), hyp
        assert interval["method"] == metric.SCRIPT_INTERVAL_METHOD
        assert printed == [as_printed(result.score, result.details["std"], interval["low"], interval["high"])]


def test_the_issues_seeda_values():
    seeda = next(c for c in GOLDEN["corpus"] if c["name"] == "seeda")
    assert [round(seeda["full"][h]["mean"], 7) for h in seeda["hyps"]] == [0.6352154, 0.5836603]


@pytest.mark.parametrize("case", GOLDEN["sentence"], ids=lambda c: c["name"])
def test_sentence_gleu_equals_the_scripts_sent_mode(shared_data, case):
    sources, references = corpus(shared_data.parent, case)
    result = registry.run("gleu", sources, lines(shared_data.parent, case["hyp"]), references, sentences=True)
    assert [(s["score"], s["std"]) for s in result.sentences] == [(f["mean"], f["std"]) for f in case["full"]]
    printed = printed_lists(case["printed"])[0]
    assert [as_printed(s["score"], s["std"], 0, 0)[:2] for s in result.sentences] == [p[:2] for p in printed]


@pytest.mark.parametrize("counts, step", [((3,) * 7, 101), ((1,) * 5, 101), ((2,) * 300, 101), ((4,) * 9, 7),
                                          ((5,) * 40, 2**31 + 11), ((2, 1, 3, 2), 101),
                                          ((300,) * 30, 101), ((2, 300, 3), 101)])  # positions past a byte
def test_the_draws_are_pythons_random_as_the_script_calls_it(counts, step):
    draws = reference_draws(counts, 6, step)
    expected = []
    for j in range(6):
        random.seed(j * step)
        expected.append([random.randint(0, count - 1) for count in counts])
    assert draws.tolist() == expected
    assert not draws.flags.writeable


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_bulk_draws_that_keep_too_few_are_drawn_again(count):
    # One output per iteration at first: almost every iteration keeps too few and is drawn again, doubled.
    draws = metric._uniform_draws(count, 40, 30, 101, words=1)
    expected = []
    for j in range(30):
        random.seed(j * 101)
        expected.append([random.randint(0, count - 1) for _ in range(40)])
    assert draws.tolist() == expected


def test_sentence_statistics_by_hand():
    # the cat sat → the cat sat against "the dog sat": unigrams the, sat match; "cat" is kept from the source
    # where the reference changed it (−1); both bigrams are such source bigrams: 0 − 2, floored at 0.
    counts = sentence_counts("the cat sat", "the cat sat", ["the dog sat", "the cat sat"], 2)
    assert counts.tolist() == [[3, 3, 1, 3, 0, 2], [3, 3, 3, 3, 2, 2]]


def test_cli_prints_the_corpus_score(shared_data, tmp_path, capsys):
    case = next(c for c in GOLDEN["corpus"] if c["name"] == "seeda")
    hyp = case["hyps"][0]
    code = main(["score", "gleu", "--sources", str(shared_data.parent / case["src"]), "--predictions",
                 str(shared_data.parent / hyp), "--references", *(str(shared_data.parent / r) for r in case["refs"]),
                 "--format", "json"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["gleu"] == case["full"][hyp]["mean"] and printed["std"] == case["full"][hyp]["std"]


def test_leaderboard_with_a_baseline(shared_data, tmp_path, capsys):
    case = next(c for c in GOLDEN["corpus"] if c["name"] == "seeda")
    files = {"src": case["src"], "gpt": case["hyps"][0], "ref0": case["refs"][0], "ref1": case["refs"][1]}
    leaderboard_with_a_baseline("gleu", shared_data.parent, files, tmp_path, capsys)


SOURCES = ["I has a apple .", "He go to school yesterday .", "This is fine .", "She like cats and dog ."]
PREDICTIONS = ["I have an apple .", "He went to the school yesterday .", "This is fine .", "She likes cats and dog ."]
REFERENCES = [["I have an apple .", "I had an apple ."], ["He went to school yesterday ."], ["This is fine ."],
              ["She likes cats and dogs .", "She likes cats and a dog .", "She liked cats and dogs ."]]


def test_shards_merge_into_the_full_run():
    full = registry.run("gleu", SOURCES, PREDICTIONS, REFERENCES)
    merged = sharding.run_in_shards("gleu", SOURCES, PREDICTIONS, REFERENCES, shards=2)
    assert merged.score == full.score and merged.details["std"] == full.details["std"]
    assert merged.sentences == full.sentences


def test_the_resampled_statistic_is_the_scripts_rule_on_the_resample():
    stats = registry.statistics_systems("gleu", SOURCES, {"s": PREDICTIONS}, REFERENCES)["s"]
    result = registry.score("gleu", stats)
    statistic = result.statistic
    assert isinstance(statistic, DrawnGLEU) and statistic(np.arange(4)) == result.score
    rows = np.array([[0, 1, 2, 3], [3, 3, 1, 0], [2, 2, 2, 2], [1, 0]], dtype=object)
    for row in rows:
        assert statistic(np.asarray(row)) == registry.score("gleu", stats.take(row)).score
    square = np.array([[0, 1, 2, 3], [3, 3, 1, 0], [2, 2, 2, 2], [3, 0, 3, 0]])
    assert statistic.batch(square).tolist() == [registry.score("gleu", stats.take(r)).score for r in square]
    interval = confidence_interval(statistic, 4, n_samples=50)
    assert interval.score == result.score and interval.low <= interval.high
    other = registry.run("gleu", SOURCES, SOURCES, REFERENCES).statistic
    test = paired_approximate_randomization(other, statistic, 4, n_samples=50)
    assert test.system_score == result.score and 0 < test.p_value <= 1


def test_a_uniform_corpus_resamples_with_the_same_draws(shared_data):
    case = next(c for c in GOLDEN["corpus"] if c["name"] == "jfleg")
    sources, references = corpus(shared_data.parent, case)
    stats = registry.statistics_systems("gleu", sources, {"s": lines(shared_data.parent, case["hyps"][1])},
                                        references)["s"]
    statistic = registry.score("gleu", stats).statistic
    rows = np.random.default_rng(1).integers(0, len(stats), size=(3, len(stats)))
    assert statistic.batch(rows).tolist() == [registry.score("gleu", stats.take(r)).score for r in rows]


def test_a_lower_order_lists_its_statistics_and_keeps_the_scripts_divisor():
    result = registry.run("gleu", SOURCES, PREDICTIONS, REFERENCES, n=2, sentences=True)
    assert list(result.sentences[0]["statistics"]) == ["hyp_len", "ref_len", "match_1", "total_1", "match_2",
                                                        "total_2"]
    # "This is fine ." against itself: both precisions 1, so the divisor shows only where they are below 1
    assert result.sentences[2]["score"] == 1.0
    stats = result.sentences[1]["statistics"]  # 7 tokens against 6: no brevity penalty
    precision = sum(np.log(stats[f"match_{k}"] / stats[f"total_{k}"]) for k in (1, 2)) / 4
    assert precision < 0
    assert result.sentences[1]["score"] == pytest.approx(np.exp(precision), abs=1e-15)


def test_gleu_rows_is_gleu_bit_for_bit():
    rng = np.random.default_rng(3)
    totals = rng.integers(0, 40, size=(400, 10))
    totals[:, 3::2] += totals[:, 2::2]  # totals at least the matches, as in real statistics
    totals[::7, 4] = 0
    assert gleu_rows(totals).tolist() == [gleu(row) for row in totals.tolist()]


GEC_METRICS = json.loads((Path(__file__).parent / "golden_gleu" / "gec_metrics_golden.json").read_text(
    encoding="utf-8"))


def gec_metrics_runs(metric: str):
    """(case, run) pairs of the gec-metrics golden file for one of its classes."""
    return [(case, run) for case in GEC_METRICS["cases"] for run in case["runs"] if run["metric"] == metric]


@pytest.mark.parametrize("case,run", gec_metrics_runs("gleu"),
                         ids=lambda x: x.get("name") or ",".join(f"{k}={v}" for k, v in x["config"].items()) or
                         "default")
def test_gec_metrics_variant_equals_gec_metrics_gleu(shared_data, case, run):
    sources, references = corpus(shared_data.parent, {"src": case["src"], "refs": case["refs"]})
    systems = {hyp: lines(shared_data.parent, hyp) for hyp in case["hyps"]}
    options = {"variant": "gec-metrics", **run["config"], "sentences": bool(run["sentence"])}
    with pytest.warns() if any("" in texts for texts in systems.values()) else nullcontext():
        results = registry.run_systems("gleu", sources, systems, references, **options)
    for hyp, expected in run["corpus"].items():
        assert results[hyp].score == expected, hyp
    for hyp, expected in run["sentence"].items():
        assert [s["score"] for s in results[hyp].sentences] == expected, hyp


def test_gleuofficial_is_the_script_but_for_empty_texts(shared_data):
    """gec-metrics' `gleuofficial` emulates the script's numerator exactly, but measures lengths with
    `len(text.split(' '))`, one token for an empty text: where no text is empty it is the script up to the order in
    which the 500 values are summed; on SEEDA (REF1 has an empty line, REF-F an empty prediction) the systems whose
    brevity penalty sees that length move, GPT-3.5 and REF-F among them (the issue's 0.6352143 and 0.5836834)."""
    moved = []
    for case, run in gec_metrics_runs("gleuofficial"):
        sources, references = corpus(shared_data.parent, case)
        systems = {hyp: lines(shared_data.parent, hyp) for hyp in case["hyps"]}
        with pytest.warns() if any("" in texts for texts in systems.values()) else nullcontext():
            results = registry.run_systems("gleu", sources, systems, references)
        empty_reference = any("" in group for group in references)
        for hyp, theirs in run["corpus"].items():
            if results[hyp].score != pytest.approx(theirs, rel=1e-14, abs=0):
                assert empty_reference or "" in systems[hyp], hyp
                moved.append(Path(hyp).stem)
    assert {"GPT-3.5", "REF-F"} <= set(moved)


@pytest.mark.parametrize("variant", ["official", "gec-metrics"])
def test_a_perfect_correction_scores_1_in_robust_mode(variant):
    """SentGLEU averages over the references, so a prediction equal to one of two differing references scores
    below 1 as published; robust mode scores it against the reference it equals: 1."""
    sources = ["He go to school yesterday ."]
    references = [["He went to school yesterday .", "He goes to school every day ."]]
    predictions = [references[0][1]]
    published = registry.run_systems("gleu", sources, {"A": predictions}, references, variant=variant,
                                     sentences=True)["A"]
    robust = registry.run_systems("gleu", sources, {"A": predictions}, references, variant=variant,
                                  sentences=True, robust=True)["A"]
    assert published.sentences[0]["score"] < 1
    assert robust.sentences[0]["score"] == 1.0
    assert robust.sentences[0]["per_reference_gleu"] == published.sentences[0]["per_reference_gleu"]


def test_unit_char_needs_the_gec_metrics_variant():
    with pytest.raises(ValueError, match="`unit` does not apply to variant 'official'"):
        registry.run_systems("gleu", ["a b ."], {"A": ["a b ."]}, [["a c ."]], unit="char")


@pytest.mark.parametrize("variant,unit", [("official", "word"), ("gec-metrics", "word"), ("gec-metrics", "char")])
@pytest.mark.parametrize("order", [4, 2])
def test_array_counting_equals_the_per_sentence_rule(shared_data, variant, unit, order):
    """`counting.run_counts` (all texts at once) gives every statistic of the readable per-sentence rule, also on
    empty texts, double spaces, repeated k-grams and sentences with different numbers of references."""
    from gecscore.gleu import Rules

    seeda = shared_data / "SEEDA"
    sources = lines(seeda, "outputs/subset/INPUT.txt")[:60]
    references = [list(group) for group in zip(lines(seeda, "derived/REF0.txt"), lines(seeda, "derived/REF1.txt"))][:60]
    references[3] = references[3][:1]
    references[5] = [*references[5], "the the the of of"]
    references[6] = ["", *references[6]]
    systems = {"A": lines(seeda, "outputs/subset/GPT-3.5.txt")[:60], "B": lines(seeda, "outputs/subset/T5.txt")[:60]}
    systems["B"][:4] = ["", " ", "a  b", "the the the the of"]
    rules = Rules(variant, order, unit)
    fast = rules.run_counts(sources, systems, references)
    source_grams = [rules.grams(s) for s in sources]
    for name, hyps in systems.items():
        for i, (s, h, refs) in enumerate(zip(source_grams, hyps, references)):
            expected = rules.counts(s, rules.grams(h), [rules.grams(r) for r in refs])
            np.testing.assert_array_equal(fast[name][i], expected, err_msg=f"{name}[{i}]")


def test_array_counting_in_several_passes_and_without_packed_keys(shared_data, monkeypatch):
    """Systems counted one per pass, sentences in blocks, and sorts that cannot pack positions into the keys (the
    argsort fallback) give the statistics of one pass with packed keys."""
    from gecscore.gleu import Rules, counting

    seeda = shared_data / "SEEDA"
    sources = lines(seeda, "outputs/subset/INPUT.txt")[:80]
    references = [list(group) for group in zip(lines(seeda, "derived/REF0.txt"), lines(seeda, "derived/REF1.txt"))][:80]
    systems = {name: lines(seeda, f"outputs/subset/{name}.txt")[:80] for name in ("T5", "BART", "PIE")}
    rules = Rules("official", 4, "word")
    expected = rules.run_counts(sources, systems, references)
    monkeypatch.setattr(counting, "SYSTEMS_PER_PASS", 1)
    monkeypatch.setattr(counting, "SENTENCES_PER_PASS", 30)  # blocks of 27, 27 and 26 sentences
    packed = counting._sorted_starts
    calls = []

    def unpacked(keys):
        calls.append(len(keys))
        order_of = np.argsort(keys, kind="stable")
        first, packed_order = packed(keys)
        assert (packed_order == order_of).all()  # the packed sort breaks ties by position too
        ordered = keys[order_of]
        assert first.tolist() == [True, *(ordered[1:] != ordered[:-1]).tolist()][:len(keys)]
        return first, order_of

    monkeypatch.setattr(counting, "_sorted_starts", unpacked)
    found = rules.run_counts(sources, systems, references)
    assert calls and len(calls) == 3 * 3 * 4  # one sort per order and pass: 3 systems × 3 sentence blocks
    for name in systems:
        for got, want in zip(found[name], expected[name], strict=True):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("variant", ["official", "gec-metrics"])
def test_counting_reads_tokens_as_the_per_sentence_rule_whatever_the_white_space(monkeypatch, variant):
    """Every kind of white space `str.split` splits on, and a NUL (the separator the official variant joins the
    texts of a pass with, so that pass splits text by text), give the readable rule's statistics, in passes with
    and without such a text."""
    from gecscore.gleu import Rules, counting

    monkeypatch.setattr(counting, "SENTENCES_PER_PASS", 2)
    sources = ["a b\tc", "a\x1cb\xa0c", "x\u3000y z", "p q r"]
    references = [["a b c", "a\tb"], ["a b c"], ["x y\x00z", "x y"], ["p  q r", "p q\x85r"]]
    systems = {"A": ["a b\tc d", "a b\u2003c", "x\x00y z", "p\nq r"]}  # the NULs fall in the second block
    rules = Rules(variant, 4, "word")
    fast = rules.run_counts(sources, systems, references)
    for i, (s, h, refs) in enumerate(zip(sources, systems["A"], references)):
        expected = rules.counts(rules.grams(s), rules.grams(h), [rules.grams(r) for r in refs])
        np.testing.assert_array_equal(fast["A"][i], expected, err_msg=str(i))


def test_sentence_records_are_built_when_first_read(monkeypatch):
    """The corpus score does not build the sentence records; reading them does, once, and a pickled result
    carries them."""
    import pickle

    built = []
    build = metric.sentence_records
    monkeypatch.setattr(metric, "sentence_records", lambda *args: built.append(1) or build(*args))
    result = registry.run("gleu", ["the cat sat on the mat .", "he go to the school now ."],
                          ["the cat sat on a mat .", "he goes to the school now ."],
                          [["the cat sat on the mat .", "a cat sat on the mat ."],
                           ["he goes to school now .", "he went to the school now ."]])
    assert result.n == 2 and result.score > 0
    assert not built
    records = result.sentences
    assert built == [1] and result.sentences is records and [r["reference"] for r in records] == [
        int(d) for d in metric.reference_draws((2, 2), 500, 101)[0]]
    assert pickle.loads(pickle.dumps(result)).sentences == records and built == [1]


def test_key_sort_with_keys_too_large_to_pack():
    """Keys whose shifted value would overflow an int64 are sorted by a stable argsort, ties by position; either
    way a run of equal keys starts where the sorted keys change."""
    from gecscore.gleu.counting import _sorted_starts

    keys = np.array([2**62, 5, 2**62, 3, 5], dtype=np.int64)
    first, order_of = _sorted_starts(keys)  # sorted: 3, 5, 5, 2**62, 2**62
    assert order_of.tolist() == [3, 1, 4, 0, 2] and first.tolist() == [True, True, False, True, False]
    first, order_of = _sorted_starts(np.array([7, 2, 7, 2], dtype=np.int64))  # packed: the same ties by position
    assert order_of.tolist() == [1, 3, 0, 2] and first.tolist() == [True, False, True, False]
    first, order_of = _sorted_starts(np.zeros(0, dtype=np.int64))
    assert first.tolist() == [] and order_of.tolist() == []


def test_the_trainer_hook_scores_gleu():
    """`seq2seq_compute_metrics` builds for GLEU (it loads no model) and reports its corpus score."""
    from types import SimpleNamespace

    from gecscore.integrations import seq2seq_compute_metrics

    class Words:  # a tokenizer stand-in: ids are word positions in a fixed vocabulary
        vocabulary = ["<pad>", "He", "goes", "go", "to", "school", "."]
        pad_token_id = 0

        def batch_decode(self, ids, **_):
            return [" ".join(self.vocabulary[i] for i in row if i) for row in ids]

    hook = seq2seq_compute_metrics(Words(), ["gleu"], sources=["He go to school ."])
    out = hook(SimpleNamespace(predictions=np.array([[1, 2, 4, 5, 6]]), label_ids=np.array([[1, 2, 4, 5, 6]]),
                               inputs=None))
    assert out["gleu_gleu"] == 1.0  # keys are "<metric>_<scalar>"


def test_sentgleu_is_the_mean_of_the_sentence_scores(shared_data):
    """`sentgleu` (gleu, level='sentence'): the system score CLEME2.0 and PT-M2 report as SentGLEU, the mean of the
    script's per-sentence values; its bootstrap resamples that mean."""
    case = next(c for c in GOLDEN["sentence"] if c["name"] == "seeda")
    sources, references = corpus(shared_data.parent, case)
    hyp = lines(shared_data.parent, case["hyp"])
    result = registry.run("sentgleu", sources, hyp, references, sentences=True)
    corpus_level = registry.run("gleu", sources, hyp, references, sentences=True)
    assert [s["score"] for s in result.sentences] == [s["score"] for s in corpus_level.sentences]
    assert result.score == pytest.approx(float(np.mean([s["score"] for s in corpus_level.sentences])), abs=1e-15)
    assert result.score != corpus_level.score
    assert result.signature.startswith("sentgleu|")
    interval = confidence_interval(result.statistic, len(sources), n_samples=50)
    assert interval.score == result.score and 0 <= interval.low <= result.score <= interval.high <= 1


def test_the_interval_is_scipys_normal_interval_bit_for_bit():
    """The official script's `scipy.stats.norm.interval(0.95, ...)`, written out so a GLEU run imports no scipy
    (issue 41); equal to the last bit, and NaN where scipy gives NaN."""
    scipy_stats = pytest.importorskip("scipy.stats")
    import numpy as np

    from gecscore.gleu.metric import normal_interval

    rng = np.random.default_rng(0)
    for mean, std in [*zip(rng.random(2000), rng.random(2000) * 0.2), (0.5, 0.0), (0.3, 1e-300)]:
        with np.errstate(invalid="ignore"):
            expected = scipy_stats.norm.interval(0.95, loc=mean, scale=std)
        got = normal_interval(float(mean), float(std))
        assert np.array_equal(got, expected, equal_nan=True), (mean, std, got, expected)
