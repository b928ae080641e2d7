"""`gecscore score` on real files equals the Python API; bootstrap output; bad files get file and line; several
systems in one command equal `gecscore.compare`, in every format, from files, folders and standard input. An endpoint,
model or option problem of `gecscore score` or `gecscore rerank` is one line in the command's own flags, exit 2."""

import io
import json
import shutil
import sys

import evaluate
import numpy as np
import pytest

from conftest import REPO
from gecscore.common.bootstrap import confidence_interval, paired_bootstrap
from gecscore.cli import main
from gecscore.common.m2io import format_m2, read_m2
from gecscore.leaderboard import compare
from gecscore.registry import run as score, run_systems as score_systems
from gecscore.common.m2io import m2_references
from llm_stub import stub_server


def metric(name):
    return evaluate.load(str(REPO / "metrics" / name))


@pytest.fixture()
def files(tmp_path, shared_data):
    def take(rel, name, n=25):
        lines = (shared_data / rel).read_text(encoding="utf-8").rstrip("\n").split("\n")[:n]
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path, [line.rstrip() for line in lines]

    gold = read_m2(shared_data / "CoNLL-2014/PT-M2/data/reference.m2")[:25]
    (tmp_path / "gold.m2").write_text(format_m2(gold), encoding="utf-8")
    return {
        "src": take("CoNLL-2014/PT-M2/data/source", "src.txt"),
        "hyp": take("CoNLL-2014/PT-M2/data/hypothesis", "hyp.txt"),
        "ref0": take("CoNLL-2014/PT-M2/data/reference/ref0", "ref0.txt"),
        "ref1": take("CoNLL-2014/PT-M2/data/reference/ref1", "ref1.txt"),
        "gold": (tmp_path / "gold.m2", gold),
        "seeda_src": take("SEEDA/outputs/subset/INPUT.txt", "seeda_src.txt", 20),
        "bart": take("SEEDA/outputs/subset/BART.txt", "bart.txt", 20),
        "t5": take("SEEDA/outputs/subset/T5.txt", "t5.txt", 20),
        "seeda_ref0": take("SEEDA/derived/REF0.txt", "seeda_ref0.txt", 20),
        "seeda_ref1": take("SEEDA/derived/REF1.txt", "seeda_ref1.txt", 20),
    }


def run_json(args, capsys):
    assert main(["score", *map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_equals_api_with_references(files, tmp_path, capsys):
    (src, sources), (hyp, predictions) = files["src"], files["hyp"]
    (r0, refs0), (r1, refs1) = files["ref0"], files["ref1"]
    code = main(["score", "pt_m2", "--sources", str(src), "--predictions", str(hyp), "--references", str(r0), str(r1),
                 "-o", "variant=senterrant", "--scorer", "self", "--json", "--sentences", str(tmp_path / "s.jsonl")])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    api = metric("pt_m2").compute(sources=sources, predictions=predictions,
                                  references=[list(r) for r in zip(refs0, refs1)], variant="senterrant",
                                  scorer="self", sentence_scores=True)
    assert printed["f0.5"] == api["f0.5"]
    assert printed["signature"] == api["signature"]
    rows = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [row["f0.5"] for row in rows] == api["sentence_scores"]
    assert [(row["index"], row["line"]) for row in rows] == [(i, i + 1) for i in range(len(sources))]


def test_cli_gold_m2_equals_api(files, capsys):
    (hyp, predictions), (gold_path, gold) = files["hyp"], files["gold"]
    printed = run_json(["pt_m2", "--gold-m2", gold_path, "--predictions", hyp, "--scorer", "self", "--variant", "m2"],
                       capsys)
    api = metric("pt_m2").compute(sources=[b.source for b in gold], predictions=predictions, gold_m2=str(gold_path),
                                  scorer="self", variant="m2")
    assert {k: printed[k] for k in api} == api
    # other metrics take the annotators' corrections as references
    errant = run_json(["errant", "--gold-m2", gold_path, "--predictions", hyp], capsys)
    refs = m2_references(gold)
    assert errant["f0.5"] == metric("uot_errant").compute(
        sources=[b.source for b in gold], predictions=predictions, references=refs, variant="errant")["f0.5"]


def test_cli_paired_bootstrap_equals_api(files, tmp_path, capsys):
    (src, sources), (bart, a), (t5, b) = files["seeda_src"], files["bart"], files["t5"]
    (r0, refs0), (r1, refs1) = files["seeda_ref0"], files["seeda_ref1"]
    references = [list(r) for r in zip(refs0, refs1)]
    printed = run_json(["cleme2", "--sources", src, "--predictions", bart, "--predictions2", t5, "--references", r0, r1,
                        "--weighting", "none", "--bootstrap", 200, "--seed", 3, "--sentences", tmp_path / "s.jsonl"],
                       capsys)
    module = metric("cleme2")
    for system, key in ((a, None), (b, "predictions2")):
        api = module.compute(sources=sources, predictions=system, references=references, weighting="none")
        shown = printed if key is None else printed[key]
        assert {k: shown[k] for k in api if k != "signature"} == {k: v for k, v in api.items() if k != "signature"}
    runs = score_systems("cleme2", sources, {"a": a, "b": b}, references, weighting="none")
    test = paired_bootstrap(runs["a"].statistic, runs["b"].statistic, len(sources), n_samples=200, seed=3)
    assert printed["paired_bootstrap"] == {"difference": test.difference, "p_value": test.p_value}
    assert printed["bootstrap"]["sacrebleu_mean"] == test.baseline.mean and \
        printed["predictions2"]["bootstrap"]["sacrebleu_half_width"] == test.system.ci
    # the interval's only bounds are low and high: sacrebleu's numbers are not named like an interval (issue 42)
    assert not {"mean", "ci"} & set(printed["bootstrap"]) and printed["bootstrap"]["method"] == "percentile"
    assert printed["signature"] == f"{api['signature']}|bs:200|rs:3"
    rows = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["system"] for r in rows] == ["predictions"] * 20 + ["predictions2"] * 20


def test_cli_bootstrap_text_output(files, capsys):
    (src, sources), (hyp, predictions), (r0, refs0) = files["seeda_src"], files["bart"], files["seeda_ref0"]
    assert main(["score", "errant", "--sources", str(src), "--predictions", str(hyp), "--references", str(r0),
                 "--bootstrap", "100"]) == 0
    out = capsys.readouterr().out
    run = score("errant", sources, predictions, [[r] for r in refs0])
    ci = confidence_interval(run.statistic, len(sources), n_samples=100)
    assert run.statistic(np.arange(len(sources))) == run.scores["f0.5"]
    assert out.splitlines()[1] == (f"f0.5\t{run.scores['f0.5']:.6f} (95% CI [{ci.low:.4f}, {ci.high:.4f}], "
                                   "percentile bootstrap)")
    assert out.splitlines()[-1].endswith("|bs:100|rs:12345")


@pytest.mark.parametrize("metric, flags, options", [
    ("errant", ["-o", "convention=gec-metrics", "-cat", "3"], {"convention": "gec-metrics", "return_types": 3}),
    ("errant", ["--convention", "gec-metrics", "-cat", "1"], {"convention": "gec-metrics", "return_types": 1}),
    ("uot_errant", ["-o", "variant=errant", "-cat", "2"], {"variant": "errant", "return_types": 2})])
def test_cli_text_prints_the_per_type_table(files, capsys, metric, flags, options):
    """-cat without errant_compare's printout (its convention) prints the per-type table in text, as --json has it."""
    (src, sources), (hyp, predictions), (r0, refs0) = files["seeda_src"], files["t5"], files["seeda_ref0"]
    assert main(["score", metric, "--sources", str(src), "--predictions", str(hyp), "--references", str(r0),
                 *flags]) == 0
    out = capsys.readouterr().out.splitlines()
    types = score(metric, sources, predictions, [[r] for r in refs0], **options).details["types"]
    assert types["rows"] and f"predictions: per type (level {options['return_types']})" in out
    for name, row in types["rows"].items():
        cells = [f"{row[k]:.0f}" for k in ("tp", "fp", "fn")] + [f"{row[k]:.4f}" for k in ("precision", "recall",
                                                                                          "f0.5")]
        assert [name, *cells] in [line.split() for line in out], name
    assert out[-1].startswith("signature\t")


def test_cli_reference_free_with_a_tiny_model(files, tiny_modernbert, capsys):
    (src, sources), (hyp, predictions) = files["src"], files["hyp"]
    printed = run_json(["impara_ged", "--sources", src, "--predictions", hyp, "--model", tiny_modernbert,
                        "--bootstrap", 50], capsys)
    api = evaluate.load(str(REPO / "metrics" / "impara_ged"), model=str(tiny_modernbert)).compute(
        sources=sources, predictions=predictions)
    assert printed["score"] == api["score"] and printed["signature"].startswith(api["signature"])


def test_bad_files_name_file_and_line(files, tmp_path, capsys):
    src, hyp = files["src"][0], files["hyp"][0]
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n", encoding="utf-8")
    assert main(["score", "pt_m2", "--sources", str(src), "--predictions", str(short), "--references", str(src)]) == 2
    assert f"predictions file {short} has 2 lines but sources file {src} has 25" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nnot \xff utf8\n")
    assert main(["score", "impara_ged", "--sources", str(bad), "--predictions", str(hyp)]) == 2
    assert f"sources file {bad}, line 2: not valid UTF-8" in capsys.readouterr().err
    assert main(["score", "uot_errant", "--sources", str(src), "--predictions", str(hyp)]) == 2
    assert "needs --references" in capsys.readouterr().err
    assert main(["score", "pt_m2", "--gold-m2", str(tmp_path / "none.m2"), "--predictions", str(hyp)]) == 2
    assert f"gold M2 file {tmp_path / 'none.m2'} does not exist" in capsys.readouterr().err
    assert main(["score", "pt_m2", "--gold-m2", str(files["gold"][0]), "--sources", str(short),
                 "--predictions", str(short)]) == 2
    assert "gold M2 file" in capsys.readouterr().err


def test_metric_errors_point_at_lines(files, tmp_path, capsys):
    src = files["src"][0]
    raw = tmp_path / "raw.txt"
    raw.write_text("\n".join(["He went home."] * 25) + "\n", encoding="utf-8")
    assert main(["score", "errant", "--sources", str(src), "--predictions", str(raw), "--references", str(src)]) == 2
    assert f"`predictions[0]` (line 1 of {raw}) does not look whitespace-tokenised" in capsys.readouterr().err
    assert main(["score", "pt_m2", "--sources", str(src), "--predictions", str(src), "--references", str(src),
                 "--reg", "0.1"]) == 2
    assert "unknown option(s) ['reg']" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------
# Several systems in one command (`gecscore.compare`)


@pytest.fixture()
def board_files(files, tmp_path):
    """A folder of three systems (BART, T5 and the uncorrected INPUT) on 20 SEEDA sentences, with the API's view."""
    folder = tmp_path / "systems"
    folder.mkdir()
    systems = {}
    for name, key in (("BART", "bart"), ("T5", "t5"), ("INPUT", "seeda_src")):
        path, lines = files[key]
        (folder / f"{name}.txt").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        systems[name] = lines
    refs = [list(r) for r in zip(files["seeda_ref0"][1], files["seeda_ref1"][1])]
    args = ["--sources", files["seeda_src"][0], "--references", files["seeda_ref0"][0], files["seeda_ref1"][0]]
    return folder, dict(sorted(systems.items())), refs, files["seeda_src"][1], [str(a) for a in args]


def test_cli_many_systems_equal_compare(board_files, tmp_path, capsys):
    folder, systems, refs, sources, common = board_files
    printed = run_json(["errant", *common, "--predictions", folder, "--baseline", "INPUT", "--bootstrap", 100,
                        "--sentences", tmp_path / "s.jsonl"], capsys)
    board = compare("errant", sources, systems, refs, baseline="INPUT", n_samples=100)
    assert printed == json.loads(board.render("json"))
    assert printed["systems"][-1]["system"] == "INPUT" and printed["signature"].endswith("|bs:100|rs:12345")
    rows = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["system"] for r in rows] == ["BART"] * 20 + ["INPUT"] * 20 + ["T5"] * 20


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "csv"])
def test_cli_formats_and_plots(board_files, tmp_path, capsys, fmt):
    folder, systems, refs, sources, common = board_files
    files = [str(folder / f"{name}.txt") for name in systems]
    assert main(["score", "errant", *common, "--predictions", *files, "--baseline", "BART", "--format", fmt,
                 "--plots", str(tmp_path / "plots")]) == 0
    board = compare("errant", sources, systems, refs, baseline="BART")
    assert capsys.readouterr().out == board.render(fmt) + "\n"
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == ["leaderboard.png", "leaderboard.svg"]


def test_cli_paired_ar_and_predictions2_as_a_leaderboard(board_files, capsys):
    folder, systems, refs, sources, common = board_files
    printed = run_json(["errant", *common, "--predictions", folder, "--baseline", "BART", "--paired-ar",
                        "--bootstrap", 300], capsys)
    board = compare("errant", sources, systems, refs, baseline="BART", test="ar", n_samples=300)
    assert printed["systems"] == json.loads(board.render("json"))["systems"]
    assert printed["test"] == "approximate randomisation" and "|ar:300|rs:12345|bs:1000" in printed["signature"]
    # --predictions2 printed as a table: two systems named by file stem, the first the baseline
    assert main(["score", "errant", *common, "--predictions", str(folder / "BART.txt"), "--predictions2",
                 str(folder / "T5.txt"), "--format", "markdown", "--bootstrap", "100"]) == 0
    pair = compare("errant", sources, {"BART": systems["BART"], "T5": systems["T5"]}, refs, baseline="BART",
                   n_samples=100)
    assert capsys.readouterr().out == pair.render("markdown") + "\n"


def test_cli_names_stdin_and_repeated_stems(board_files, tmp_path, monkeypatch, capsys):
    folder, systems, refs, sources, common = board_files
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((folder / "T5.txt").read_bytes())))
    printed = run_json(["errant", *common, "--predictions", "-", folder / "BART.txt", "--bootstrap", 0], capsys)
    assert {s["system"]: s["score"] for s in printed["systems"]} == {
        name: score("errant", sources, systems[key], refs).score for name, key in (("stdin", "T5"), ("BART", "BART"))}
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "out.txt").write_bytes((folder / "T5.txt").read_bytes())
    printed = run_json(["errant", *common, "--predictions", tmp_path / "a" / "out.txt", tmp_path / "b" / "out.txt",
                        "--names", "first", "second", "--bootstrap", 0], capsys)
    assert [s["system"] for s in printed["systems"]] == ["first", "second"]
    printed = run_json(["errant", *common, "--predictions", tmp_path / "a" / "out.txt", tmp_path / "b" / "out.txt",
                        "--bootstrap", 0], capsys)
    assert [s["system"] for s in printed["systems"]] == ["a/out", "b/out"]


@pytest.mark.parametrize("extra, message", [
    (["--predictions", "-", "-"], "standard input (-) can be read only once"),
    (["--predictions", "{folder}/T5.txt", "{folder}/T5.txt"], "T5.txt is given twice"),
    (["--predictions", "{folder}/T5.txt", "{folder}/T5.m2"], "several files would be called"),
    (["--predictions", "{folder}", "--names", "a", "b"], "--names gives 2 names for 3 systems"),
    (["--predictions", "{folder}", "--baseline", "bart"],
     "baseline 'bart' is not one of the systems: ['BART', 'INPUT', 'T5']"),
    (["--predictions", "{folder}", "--paired-ar"], "pass --baseline NAME"),
    (["--predictions", "{folder}", "--predictions2", "{folder}/T5.txt"], "--predictions2 tests a second system"),
    (["--predictions", "{empty}"], "holds no *.txt files"),
    (["--predictions", "{folder}", "--bootstrap", "-1"], "--bootstrap must be >= 0"),
])
def test_cli_system_arguments_fail_clearly(board_files, tmp_path, capsys, extra, message):
    folder, _, _, _, common = board_files
    (tmp_path / "empty").mkdir()
    extra = [a.format(folder=folder, empty=tmp_path / "empty") for a in extra]
    assert main(["score", "errant", *common, *extra]) == 2
    assert message in capsys.readouterr().err


def test_cli_metric_errors_name_the_system_file(board_files, tmp_path, capsys):
    folder, _, _, _, common = board_files
    rewrite = tmp_path / "rewrite.txt"
    rewrite.write_text("\n".join(["x y z w v u"] * 20) + "\n", encoding="utf-8")
    assert main(["score", "errant", *common, "--predictions", str(rewrite), str(folder / "T5.txt"),
                 "--max-changed-run", "3"]) == 2
    assert f"`predictions of 'rewrite'[0]` (line 1 of {rewrite}) changes" in capsys.readouterr().err
    # a message that does not say which system's `predictions[i]` names no file rather than a wrong one
    raw = tmp_path / "raw.txt"
    raw.write_text("\n".join(["He went home."] * 20) + "\n", encoding="utf-8")
    assert main(["score", "errant", *common, "--predictions", str(folder / "T5.txt"), str(raw)]) == 2
    err = capsys.readouterr().err
    assert "does not look whitespace-tokenised" in err and "(line 1 of" not in err


def m2_block(source, edits):
    return "\n".join([f"S {source}"] + [f"A {s} {e}|||R:OTHER|||{c}|||REQUIRED|||-NONE-|||0" for s, e, c in edits])


def test_cli_m2_input_systems(tmp_path, capsys):
    sources = ["He go to school .", "She like apple ."]
    texts = {"gold": [m2_block(sources[0], [(1, 2, "goes")]), m2_block(sources[1], [(1, 2, "likes")])],
             "good": [m2_block(sources[0], [(1, 2, "goes")]), m2_block(sources[1], [])],
             "bad": [m2_block(sources[0], [(0, 1, "It")]), m2_block(sources[1], [])]}
    paths = {}
    for name, blocks in texts.items():
        paths[name] = tmp_path / f"{name}.m2"
        paths[name].write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    printed = run_json(["cleme2", "--weighting", "none", "--hyp-m2", paths["bad"], paths["good"], "--gold-m2",
                        paths["gold"], "--baseline", "bad", "--bootstrap", 50], capsys)
    board = compare("cleme2", None, {n: {"hyp_m2": str(paths[n])} for n in ("bad", "good")},
                    ref_m2=str(paths["gold"]), weighting="none", baseline="bad", n_samples=50)
    assert printed == json.loads(board.render("json")) and printed["systems"][0]["system"] == "good"
    one = run_json(["cleme2", "--weighting", "none", "--hyp-m2", paths["good"], "--ref-m2", paths["gold"]], capsys)
    assert one["score"] == board.results["good"].score and one["metric"] == "cleme2"
    assert main(["score", "cleme2", "--hyp-m2", str(paths["good"]), "--predictions", str(paths["good"])]) == 2
    assert "replace --sources, --predictions and --references" in capsys.readouterr().err
    assert main(["score", "impara_ged", "--hyp-m2", str(paths["good"])]) == 2
    assert "impara_ged takes no --hyp-m2" in capsys.readouterr().err
    assert main(["score", "cleme2", "--sources", str(paths["good"]), "--references", str(paths["good"])]) == 2
    assert "give --predictions (or --hyp-m2, --ref-m2)" in capsys.readouterr().err


def error_line(capsys, command):
    """What a failed command printed: one `gecscore COMMAND: error: ...` line on stderr, no traceback; its message."""
    err = capsys.readouterr().err
    prefix = f"gecscore {command}: error: "
    assert "Traceback" not in err and len(err.splitlines()) == 1 and err.startswith(prefix), err
    return err[len(prefix):].rstrip("\n")


def text_files(tmp_path, **texts):
    """One file per keyword, a sentence a line; their paths as strings."""
    paths = {}
    for name, lines in texts.items():
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {name: str(path) for name, path in paths.items()}


def judge_args(tmp_path, server, *options):
    paths = text_files(tmp_path, src=["He go to school ."], hyp=["He goes to school ."])
    return ["score", "llm-s", "--sources", paths["src"], "--predictions", paths["hyp"], "-o",
            f"base_url={server.base_url}", "-o", "api_key=stub-key", *options]


def test_a_failing_endpoint_is_one_line_not_a_traceback(tmp_path, capsys):
    """HTTP 500 from the judge's endpoint (EndpointError) was a traceback; the stub stops whatever happens."""
    with stub_server(status=500) as server:
        code = main(judge_args(tmp_path, server))
    assert code == 2 and len(server.requests) == 1
    message = error_line(capsys, "score")
    assert message.startswith(f"{server.base_url} answered HTTP 500: ") and "stub failure" in message


def test_a_slow_endpoint_fails_after_the_timeout_it_names(tmp_path, capsys):
    """The stub answers after 5 s (sooner when it stops): `-o timeout=0.2` makes the call fail first; without the
    option (120 s) it would succeed."""
    with stub_server(delay=5.0) as server:
        code = main(judge_args(tmp_path, server, "-o", "timeout=0.2"))
    assert code == 2
    assert error_line(capsys, "score") == (f"{server.base_url} did not answer within 0.2 s; a slower endpoint needs a "
                                           "larger -o timeout=SECONDS")


@pytest.mark.parametrize("case", ["truncated weights", "local judge without config.json"])
def test_a_model_that_cannot_load_is_one_line_naming_it(case, tiny_bert, tmp_path, capsys):
    """A truncated safetensors file was a traceback; transformers' own message for a judge folder spans lines."""
    paths = text_files(tmp_path, src=["He go to school ."], hyp=["He goes to school ."])
    model = tmp_path / "model"
    if case == "truncated weights":
        shutil.copytree(tiny_bert, model)
        weights = model / "model.safetensors"
        weights.write_bytes(weights.read_bytes()[:100])
        args = ["bertscore", "--references", paths["hyp"], "-o", "layer=1", "-o", "rescale_with_baseline=false"]
        expected = f"cannot load model '{model}'. Give a local directory with the weights, or use -o model=minilm"
    else:
        model.mkdir()
        args = ["llm-s", "-o", "backend=local"]
        expected = f"cannot load the judge '{model}': {model} is not a model directory (no config.json)."
    code = main(["score", *args, "--sources", paths["src"], "--predictions", paths["hyp"], "-o", f"model={model}"])
    assert code == 2
    message = error_line(capsys, "score")
    assert message.startswith(expected)
    assert case != "truncated weights" or "Cause: SafetensorError" in message


@pytest.mark.parametrize("metric, extra, message", [
    ("errant", ["--method", "reference"], "--method reference needs --references FILE [FILE ...]"),
    ("errant", ["--method", "mbr", "--references", "REF"],
     "--method mbr takes no --references (--method reference scores against them)"),
    ("errant", ["--method", "reference_free"], "--method reference_free needs a reference-free metric; errant needs "
     "references (use --method mbr, or --method reference with --references)"),
    ("llm-s", [], "llm-s is reference-free: use --method reference_free"),
])
def test_rerank_method_errors_name_the_flags(metric, extra, message, tmp_path, capsys):
    """They answered in Python syntax (`method='reference' needs `references``)."""
    paths = text_files(tmp_path, src=["He go to school ."], a=["He goes to school ."], b=["He go to school ."])
    extra = [paths["a"] if arg == "REF" else arg for arg in extra]
    assert main(["rerank", metric, "--sources", paths["src"], "--candidates", paths["a"], paths["b"], *extra]) == 2
    assert error_line(capsys, "rerank") == message
