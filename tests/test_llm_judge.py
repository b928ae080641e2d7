"""LLM-S / LLM-E: the published prompts, the endpoint request, the answers read into scores, parity with
gec-metrics 0.1.1's OpenAI classes against the same stub endpoint (golden file from tests/golden_llm_judge/
make_golden.py; live when GEC_METRICS_PYTHON names an interpreter with gec-metrics 0.1.1), unreadable answers
flagged, a local causal LM (tiny, random: its answers cannot be read), sharding and the CLI."""

import hashlib
import json
import os
import subprocess
import warnings
from pathlib import Path

import pytest

from gecscore import registry, sharding
from gecscore.cli import main
from gecscore.llm_kobayashi24.judge import build_prompt, read_scores, select_targets, template_for
from gecscore.llm_kobayashi24.metric import judged_mean, sentence_score
from gecscore.llm_kobayashi24.metric import judged_pairs, system_ranking
from gecscore.llm_kobayashi24.judge import EDIT_TEMPLATE, SENTENCE_TEMPLATE

from conftest import build_tiny_model
from llm_stub import MALFORMED, canned_scores, stub_server

GOLDEN_DIR = Path(__file__).resolve().parent / "golden_llm_judge"
GOLDEN = json.loads((GOLDEN_DIR / "llm_judge_golden.json").read_text(encoding="utf-8"))
REFERENCE_PYTHON = os.environ.get("GEC_METRICS_PYTHON")
KEY = "stub-key"

SOURCES = ["I has a apple .", "He go to school yesterday .", "This is fine .", "She like cats and dog ."]
SYSTEMS = {"a": ["I have an apple .", "He went to school yesterday .", "This is fine .", "She likes cats and dog ."],
           "b": ["I have a apple .", "He goes to school yesterday .", "This is fine .", "She likes cats and dogs ."]}


def lines(parent: Path, name: str, n: int) -> list[str]:
    return (parent / name).read_text(encoding="utf-8").rstrip("\n").split("\n")[:n]


def run_ours(server, sources, systems, variant, criterion=None, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return registry.run_systems("llm-s" if variant == "sent" else "llm-e", sources, systems,
                                    base_url=server.base_url, api_key=KEY, model="stub-judge", criterion=criterion,
                                    **options)


def golden_inputs(golden: dict, parent: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The golden run's sources and systems (in its order)."""
    systems = {name: lines(parent, path, golden["sentences"]) for name, path in golden["systems"].items()}
    return lines(parent, golden["sources"], golden["sentences"]), systems


def check_against(golden: dict, parent: Path) -> None:
    """Prompts, gec-metrics' `score_pairwise` tables and its TrueSkill ranking (`rank_systems(...,
    aggregation="trueskill")`), exactly, from our run of each case."""
    sources, systems = golden_inputs(golden, parent)
    for case in golden["cases"]:
        with stub_server() as server:
            results = run_ours(server, sources, systems, case["variant"], case["criterion"])
            prompts = [hashlib.md5(r["messages"][-1]["content"].encode()).hexdigest() for r in server.requests]
        assert prompts == case["prompt_md5"], case["variant"]
        assert judged_pairs(results) == case["pairwise"], case["variant"]
        assert list(system_ranking(results)) == list(systems)
        assert list(system_ranking(results).values()) == case["trueskill"], case["variant"]


def test_prompts_are_the_published_ones():
    assert template_for("sent") == SENTENCE_TEMPLATE and template_for("sent", None).count("[SOURCE]") == 1
    assert "\n\n# context" not in SENTENCE_TEMPLATE  # gec-metrics' criterion has no place in LLM-S
    with_impact = template_for("edit", "impact")
    assert "[the→a]\nPlease evaluate each edit in the target with a focus on its impact on the sentence." \
           "\n\n# context" in with_impact
    prompt = build_prompt(EDIT_TEMPLATE, "He go .", ["go→goes", ""])
    assert "# context\nHe go .\n\n# targets\ngo→goes\n\n\n# output format" in prompt


def test_targets_are_the_five_most_frequent_sorted():
    assert select_targets(["b", "a", "b"]) == ["a", "b"]
    hyps = ["f", "e", "e", "d", "c", "b", "a", "a"]
    # e and a twice, then the ties at one in first-seen order (f, d, c): b is the sixth and left out
    assert select_targets(hyps) == ["a", "c", "d", "e", "f"]


@pytest.mark.parametrize("answer, scores, reason", [
    ('{"target_score1": 3, "target_score2": 5}', (3, 5), ""),
    ('Sure:\n```json\n{"target1_score": 2, "target2_score": 4}\n```', (2, 4), ""),
    ('{"target_score1": 3.0, "target_score2": 1}', (3, 1), ""),
    ("", None, "empty answer"),
    (None, None, "empty answer"),
    ('{"target_score1": 3, ', None, "no JSON object"),
    ('[3, 4]', None, "no JSON object"),
    ('{"target_score1": 3}', None, "no score for target 2"),
    ('{"target_score1": 0, "target_score2": 1}', None, "outside 1..5"),
    ('{"target_score1": true, "target_score2": 1}', None, "not an integer"),
    ('{"target_score1": 2.5, "target_score2": 1}', None, "not an integer"),
])
def test_reading_an_answer(answer, scores, reason):
    reading = read_scores(answer, 2)
    assert reading.scores == scores and reason in reading.reason and bool(reading.reason) == bool(reason)


def test_equals_gec_metrics_golden(shared_data):
    check_against(GOLDEN, shared_data.parent)


def test_the_system_ranking_skips_unjudged_pairs_in_robust_mode_too(shared_data):
    """The paper's ranking of 8 SEEDA systems, whose sources often have more than five distinct corrections: the
    pairs the judge did not see are skipped (as gec-metrics' `run_trueskill` skips None; golden parity above) also
    with `robust`, where such a sentence scores 0: robust mode ranks as the published mode does on its inputs (an
    empty correction replaced by its source), not as TrueSkill over the robust sentence scores, which counts every
    unjudged correction as a loss (issue 42)."""
    from gecscore.common.aggregate import trueskill_scores
    from gecscore.common.results import robust_predictions

    assert all(any(None in row for table in case["pairwise"] for row in table) for case in GOLDEN["cases"])
    sources, systems = golden_inputs(GOLDEN, shared_data.parent)
    filled = {name: robust_predictions(sources, texts) for name, texts in systems.items()}
    assert filled != systems  # REF-F leaves sentence 21 empty
    with stub_server() as server:
        robust = run_ours(server, sources, systems, "sent", robust=True)
        published = run_ours(server, sources, filled, "sent")
    assert system_ranking(robust) == system_ranking(published)
    as_losses = trueskill_scores([result.sentence_scores() for result in robust.values()])
    assert list(system_ranking(robust).values()) != as_losses


def test_the_system_ranking_needs_systems_judged_together():
    """`system_ranking` compares judgements of one run: one system, another metric's results, systems from
    different runs or a malformed table are errors naming the cause."""
    from gecscore.common.aggregate import trueskill_ratings

    with stub_server() as server:
        results = run_ours(server, SOURCES, SYSTEMS, "sent")
        alone = run_ours(server, SOURCES[:3], {"c": SOURCES[:3]}, "sent")
    with pytest.raises(ValueError, match="give at least two"):
        system_ranking({"a": results["a"]})
    with pytest.raises(ValueError, match="'a' and 'c' were not judged together"):
        system_ranking({**results, "c": alone["c"]})
    other = registry.run("gleu", SOURCES, SYSTEMS["a"], [[s] for s in SYSTEMS["b"]])
    with pytest.raises(ValueError, match="scored by 'gleu'.*llm_kobayashi24"):
        system_ranking({**results, "g": other})
    with pytest.raises(ValueError, match="outcome 2 is not 1, -1, 0 or None"):
        trueskill_ratings([[[0, 2], [-2, 0]]], 2)
    with pytest.raises(ValueError, match="pairwise table 0 is not 3 x 3"):
        trueskill_ratings([[[0, 1], [-1, 0]]], 3)
    assert trueskill_ratings([[[None, None], [None, None]]], 2) == [0.0, 0.0]  # never compared: the initial μ


@pytest.mark.skipif(not REFERENCE_PYTHON, reason="set GEC_METRICS_PYTHON to an interpreter with gec-metrics 0.1.1")
def test_live_reference_equals_ours(shared_data, tmp_path):
    target = tmp_path / "live.json"
    subprocess.run([REFERENCE_PYTHON, str(GOLDEN_DIR / "make_golden.py"), str(shared_data.parent), str(target)],
                   check=True, capture_output=True, timeout=600)
    live = json.loads(target.read_text(encoding="utf-8"))
    assert live["cases"] == GOLDEN["cases"]
    check_against(live, shared_data.parent)


def test_the_request_is_gec_metrics_and_scores_follow_the_answer():
    with stub_server() as server:
        results = run_ours(server, SOURCES, SYSTEMS, "sent", sentence_scores=True)
        request = server.requests[0]
    assert request["model"] == "stub-judge" and request["seed"] == 777
    assert request["messages"][0] == {"role": "system", "content": "You are a helpful assistant."}
    assert request["response_format"]["json_schema"]["schema"]["required"] == ["target_score1", "target_score2"]
    prompt = build_prompt(SENTENCE_TEMPLATE, SOURCES[0], sorted({SYSTEMS["a"][0], SYSTEMS["b"][0]}))
    assert request["messages"][1]["content"] == prompt
    expected = canned_scores(prompt, 2)
    assert results["a"].sentences[0]["judgement"] == expected[sorted([SYSTEMS["a"][0], SYSTEMS["b"][0]]).index(
        SYSTEMS["a"][0])]
    assert len(server.requests) == 4  # one prompt per source
    a = results["a"]
    assert a.score == sum(s["judgement"] for s in a.sentences) / 4
    assert results["a"].sentences[2]["judgement"] == results["b"].sentences[2]["judgement"]  # one target
    assert a.sentences[2]["targets"] == 1 and a.sentences[0]["targets"] == 2
    assert a.signature.startswith("llm-s|") and "model:stub-judge" in a.signature and KEY not in a.signature
    assert "backend:endpoint:http://127.0.0.1:" in a.signature


def test_the_answer_cache_makes_a_rerun_free_and_keys_on_the_whole_request(tmp_path):
    """`answer_cache`: the second run asks the judge nothing and scores the same; another seed is another request;
    the signature does not record the cache (issue 42)."""
    from gecscore.llm_kobayashi24.backends import CACHE_FILE

    cache = str(tmp_path / "answers")
    with stub_server() as server:
        first = run_ours(server, SOURCES, SYSTEMS, "sent", answer_cache=cache)
        asked = len(server.requests)
        again = run_ours(server, SOURCES, SYSTEMS, "sent", answer_cache=cache)
        assert len(server.requests) == asked == 4 and (tmp_path / "answers" / CACHE_FILE).is_file()
        reseeded = run_ours(server, SOURCES, SYSTEMS, "sent", answer_cache=cache, judge_seed=1)
        assert len(server.requests) == 2 * asked and server.requests[-1]["seed"] == 1
        plain = run_ours(server, SOURCES, SYSTEMS, "sent")
    for name in SYSTEMS:
        assert again[name].score == first[name].score == plain[name].score
        assert again[name].signature == plain[name].signature and "answer_cache" not in plain[name].signature
    assert reseeded["a"].signature != first["a"].signature


def test_the_papers_system_ranking_is_trueskill_over_the_judged_pairs(tmp_path, capsys):
    """`aggregation="trueskill"` (leaderboard and CLI): systems rated by TrueSkill over the sentence-level pairwise
    outcomes of their judgements, as the LLM-S/E paper and SEEDA rank them (issue 42)."""
    from gecscore.cli import main
    from gecscore.common.aggregate import trueskill_scores
    from gecscore.leaderboard import compare

    systems = {**SYSTEMS, "c": SOURCES}
    endpoint = {"model": "stub-judge", "api_key": KEY}
    with stub_server() as server:
        board = compare("llm-s", SOURCES, systems, base_url=server.base_url, n_samples=0, aggregation="trueskill",
                        robust=True, **endpoint)
        sentence = {name: board.results[name].sentence_scores() for name in systems}
        expected = dict(zip(systems, trueskill_scores(list(sentence.values()))))
        assert {row.system: row.trueskill for row in board.rows} == expected
        assert [row.system for row in board.rows] == sorted(expected, key=lambda name: -expected[name])
        assert [row.rank for row in board.rows] == [1, 2, 3]
        assert "TrueSkill μ" in board.render("text") and "|agg:trueskill" in board.signature
        assert board.as_dict()["aggregation"] == "trueskill"
        with pytest.raises(ValueError, match="give at least two"):
            compare("llm-s", SOURCES, {"a": SYSTEMS["a"]}, base_url=server.base_url, aggregation="trueskill",
                    **endpoint)
        files = {}
        for name, texts in {"src": SOURCES, **systems}.items():
            files[name] = tmp_path / f"{name}.txt"
            files[name].write_text("\n".join(texts) + "\n")
        assert main(["score", "llm-s", "--sources", str(files["src"]), "--predictions", str(files["a"]),
                     str(files["b"]), str(files["c"]), "--aggregation", "trueskill", "--bootstrap", "0",
                     "-o", "robust=true", "-o", "model=stub-judge", "-o", f"api_key={KEY}", "-o", f"base_url={server.base_url}"]) == 0
        assert "TrueSkill μ" in capsys.readouterr().out
    with stub_server() as server:  # the published 1-5 mean is in range, so the systems are ranked
        published = compare("llm-s", SOURCES, systems, base_url=server.base_url, n_samples=0, **endpoint)
    assert all(row.rank is not None and row.unranked is None for row in published.rows)
    assert published.results["a"].details["score_range"] == [1.0, 5.0] and "outside" not in published.render()
    bad = [*SOURCES[:3], "He go PROSEONLY ."]  # an unreadable answer: its pairs are skipped, as unjudged ones
    with stub_server() as server, pytest.warns(UserWarning, match="unreadable judgement"):
        skipped = compare("llm-s", bad, systems, base_url=server.base_url, n_samples=0, aggregation="trueskill",
                          **endpoint)
    assert {row.system: row.trueskill for row in skipped.rows} == system_ranking(skipped.results)
    assert system_ranking(skipped.results) != dict(zip(systems, trueskill_scores(
        [[0.0 if v != v else v for v in r.sentence_scores()] for r in skipped.results.values()])))


def test_retries_ask_a_failing_endpoint_again_and_then_say_how_often(monkeypatch):
    """`retries`: a transient failure (HTTP 5xx here) is asked again, waiting in between; then the error says how
    many attempts were made. Without retries, one request (issue 42)."""
    from gecscore.llm_kobayashi24 import backends

    monkeypatch.setattr(backends, "RETRY_WAIT", 0.0)
    with stub_server(status=503) as server:
        with pytest.raises(backends.EndpointError, match=r"answered HTTP 503.*after 3 attempts; retries=2"):
            run_ours(server, SOURCES[:1], {"a": SYSTEMS["a"][:1]}, "sent", retries=2)
        assert len(server.requests) == 3
        with pytest.raises(backends.EndpointError, match=r"answered HTTP 503: "):
            run_ours(server, SOURCES[:1], {"a": SYSTEMS["a"][:1]}, "sent")
        assert len(server.requests) == 4
    with stub_server(status=401) as server:  # not transient: asked once whatever `retries` says
        with pytest.raises(backends.EndpointError, match="answered HTTP 401"):
            run_ours(server, SOURCES[:1], {"a": SYSTEMS["a"][:1]}, "sent", retries=3)
        assert len(server.requests) == 1


@pytest.mark.parametrize("marker", sorted(MALFORMED))
def test_unreadable_answers_are_flagged_never_scored(marker):
    sources = [*SOURCES[:2], f"He go {marker} ."]
    systems = {name: [*texts[:2], f"He goes {marker} ." if name == "a" else f"He went {marker} ."]
               for name, texts in SYSTEMS.items()}
    readable = marker == "FENCED"  # the key the prompt names, in a fenced block
    with stub_server() as server:
        with warnings.catch_warnings() if readable else pytest.warns(UserWarning, match="unreadable judgement"):
            faithful = registry.run_systems("llm-s", sources, systems, base_url=server.base_url, api_key=KEY)
        robust = run_ours(server, sources, systems, "sent", robust=True)
    for name in systems:
        record = faithful[name].sentences[2]
        if readable:
            assert record["judgement"] in (2, 5) and not faithful[name].details["degenerate_sentences"]
            continue
        assert record["judgement"] is None and record["score"] != record["score"]  # NaN
        (flagged,) = faithful[name].details["degenerate_sentences"]
        assert flagged["index"] == 2 and flagged["reason"] == "unreadable judgement" and flagged["detail"]
        judged = [s["judgement"] for s in faithful[name].sentences[:2]]
        assert faithful[name].score == sum(judged) / 2  # left out of the mean
        assert robust[name].sentences[2]["score"] == 0.0
        assert robust[name].score == sum((j - 1) / 4 for j in judged) / 3


def test_more_than_five_corrections_leave_some_unjudged():
    systems = {f"s{k}": [f"He go {'very ' * k}far ."] for k in range(6)}
    systems["twin"] = list(systems["s5"])
    with stub_server() as server:
        with pytest.warns(UserWarning, match="not judged"):
            results = registry.run_systems("llm-s", ["He go far ."], systems, base_url=server.base_url, api_key=KEY)
    # s5 twice, then the ties at one in first-seen order: s0..s3; s4 is the sixth
    assert results["s4"].sentences[0]["judgement"] is None and results["s4"].score != results["s4"].score
    assert results["s4"].details["degenerate_sentences"][0]["reason"] == "not judged"
    assert all(results[f"s{k}"].sentences[0]["judgement"] is not None for k in range(4))
    assert results["s5"].sentences[0]["judgement"] == results["twin"].sentences[0]["judgement"] is not None


def test_robust_scale_and_mean():
    assert [sentence_score(s, True) for s in (1, 3, 5, None)] == [0.0, 0.5, 1.0, 0.0]
    assert sentence_score(4, False) == 4.0 and sentence_score(None, False) != sentence_score(None, False)
    assert judged_mean([1.0, float("nan"), 3.0]) == 2.0
    assert judged_mean([float("nan")]) != judged_mean([float("nan")])


def test_shards_merge_into_the_full_run():
    with stub_server() as server:
        options = dict(base_url=server.base_url, api_key=KEY)
        merged = sharding.run_in_shards("llm-e", SOURCES, SYSTEMS["a"], shards=3, **options)
        whole = registry.run("llm-e", SOURCES, SYSTEMS["a"], **options)
    assert merged.score == whole.score and merged.sentences == whole.sentences


def test_missing_key_and_refused_requests_are_errors(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="API key"):
        registry.run("llm-s", SOURCES, SYSTEMS["a"], base_url="http://127.0.0.1:9")
    from gecscore.llm_kobayashi24.backends import EndpointError

    with stub_server() as server:
        with pytest.raises(EndpointError, match="HTTP 401"):
            registry.run("llm-s", SOURCES, SYSTEMS["a"], base_url=server.base_url, api_key="wrong")
    with pytest.raises(ValueError, match="reference-free"):
        registry.run("llm-s", SOURCES, SYSTEMS["a"], [["x"]] * 4, api_key=KEY)
    with pytest.raises(ValueError, match="criterion"):
        registry.run("llm-e", SOURCES, SYSTEMS["a"], api_key=KEY, criterion="fluency")


def test_the_timeout_is_checked_sent_and_left_out_of_the_signature():
    """`timeout` (seconds, > 0) is checked by the schema, bounds every request (a stub answering after 5 s, or when
    it stops, fails a 0.2 s call) and changes no number: the signature stays the default's."""
    from gecscore.llm_kobayashi24.backends import EndpointError

    for bad, error in ((0, ValueError), (-1.0, ValueError), (float("nan"), ValueError), ("fast", TypeError)):
        with pytest.raises(error, match="`timeout` must be"):
            registry.check_options("llm-s", {"timeout": bad})
    with stub_server(delay=5.0) as server:
        with pytest.raises(EndpointError, match=r"did not answer within 0\.2 s; a slower endpoint needs a larger "
                                                r"timeout=SECONDS"):
            registry.run("llm-s", SOURCES[:1], SYSTEMS["a"][:1], base_url=server.base_url, api_key=KEY, timeout=0.2)
    with stub_server() as server:
        default = registry.run("llm-s", SOURCES, SYSTEMS["a"], base_url=server.base_url, api_key=KEY)
        patient = registry.run("llm-s", SOURCES, SYSTEMS["a"], base_url=server.base_url, api_key=KEY, timeout=30)
    assert patient.score == default.score and patient.signature == default.signature


def test_cli_prints_the_corpus_score(tmp_path, capsys):
    paths = {}
    for name, texts in (("src", SOURCES), ("a", SYSTEMS["a"])):
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(texts) + "\n", encoding="utf-8")
    with stub_server() as server:
        code = main(["score", "llm-s", "--sources", str(paths["src"]), "--predictions", str(paths["a"]),
                     "-o", f"base_url={server.base_url}", "-o", f"api_key={KEY}", "--json"])
        expected = registry.run("llm-s", SOURCES, SYSTEMS["a"], base_url=server.base_url, api_key=KEY)
    assert code == 0
    assert json.loads(capsys.readouterr().out)["score"] == expected.score


def test_a_local_causal_lm_answers_and_its_garbage_is_flagged(tmp_path):
    import transformers

    path = build_tiny_model(tmp_path / "tiny-lm", "bert")  # its tokenizer; the model is replaced by a causal LM
    config = transformers.GPT2Config(vocab_size=transformers.AutoTokenizer.from_pretrained(path).vocab_size,
                                     n_embd=32, n_layer=2, n_head=2, n_positions=4096)
    transformers.GPT2LMHeadModel(config).save_pretrained(path)
    with pytest.warns(UserWarning, match="unreadable judgement"):
        results = registry.run_systems("llm-e", SOURCES[:2], {k: v[:2] for k, v in SYSTEMS.items()},
                                       backend="local", model=str(path), max_new_tokens=6, device="cpu")
    for result in results.values():
        assert [s["judgement"] for s in result.sentences] == [None, None]
        assert {d["reason"] for d in result.details["degenerate_sentences"]} == {"unreadable judgement"}
        assert "backend:local" in result.signature and f"model:{path}" in result.signature


def _tiny_judge(tmp_path):
    """A tiny random GPT-2 with a BERT word-piece tokenizer: its free answers are garbage."""
    import transformers

    path = build_tiny_model(tmp_path / "tiny-lm", "bert")
    config = transformers.GPT2Config(vocab_size=transformers.AutoTokenizer.from_pretrained(path).vocab_size,
                                     n_embd=32, n_layer=2, n_head=2, n_positions=4096)
    transformers.GPT2LMHeadModel(config).save_pretrained(path)
    return path


def test_constrained_decoding_makes_every_local_answer_readable(tmp_path):
    """decoding='constrained': the same garbage-answering judge gives a 1-5 score to every correction, each the
    score whose text the model finds most likely; the signature says so, and the answer cache keys on it."""
    path = _tiny_judge(tmp_path)
    options = dict(backend="local", model=str(path), device="cpu", decoding="constrained")
    results = registry.run_systems("llm-s", SOURCES[:2], {k: v[:2] for k, v in SYSTEMS.items()}, **options)
    for result in results.values():
        assert all(1 <= s["judgement"] <= 5 for s in result.sentences)
        assert result.details["degenerate_sentences"] == []
        assert "decoding:constrained" in result.signature
    from gecscore.llm_kobayashi24.backends import LocalModel
    from gecscore.llm_kobayashi24.judge import read_scores

    judge = LocalModel(str(path), device="cpu", decoding="constrained")
    answer = judge.constrained_answer("Score these.", 3)
    assert read_scores(answer, 3).scores is not None
    prefix = judge.text_of("Score these.") + '```json\n{"target_score1": '
    likelihoods = [judge.continuation_logprob(prefix, str(d)) for d in range(1, 6)]
    assert answer.startswith('```json\n{"target_score1": ' + str(1 + likelihoods.index(max(likelihoods))) + ", ")
    free = LocalModel(str(path), device="cpu")
    assert judge.request_key("p", 1) != free.request_key("p", 1)


def test_constrained_decoding_with_an_endpoint_is_an_error_naming_it():
    with pytest.raises(ValueError, match="decoding='constrained' needs backend='local'"):
        registry.run("llm-s", SOURCES[:1], SYSTEMS["a"][:1], api_key=KEY, base_url="http://127.0.0.1:9/v1",
                     decoding="constrained")


def test_a_criterion_llm_s_has_no_place_for_is_an_error_naming_it():
    """Found by the reward property (issue 39): LLM-S with `criterion` stopped with a KeyError at the first call;
    it is a setup error, raised when the reward is built and by `compute`, naming the option."""
    from gecscore.rewards import reward_function

    message = r"criterion='impact' does not apply to variant='sent'.*LLM-E, variant='edit'"
    with pytest.raises(ValueError, match=message):
        reward_function("llm-s", criterion="impact", api_key=KEY, base_url="http://127.0.0.1:9/v1")
    with stub_server() as server, pytest.raises(ValueError, match=message):
        run_ours(server, SOURCES, SYSTEMS, "sent", criterion="impact")
