"""`gecscore score` on real files equals the Python API; bootstrap output; bad files get file and line."""

import json

import evaluate
import numpy as np
import pytest

from conftest import REPO
from gecscore.common.bootstrap import confidence_interval, paired_bootstrap
from gecscore.cli import main
from gecscore.common.m2io import format_m2, read_m2
from gecscore.registry import run as score, run_systems as score_systems
from gecscore.common.m2io import m2_references


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
    assert [row["line"] for row in rows] == list(range(1, len(sources) + 1))


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
    assert printed["bootstrap"]["mean"] == test.baseline.mean and printed["predictions2"]["bootstrap"]["ci"] == \
        test.system.ci
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
    assert out.splitlines()[1] == f"f0.5\t{run.scores['f0.5']:.6f} (μ = {ci.mean:.4f} ± {ci.ci:.4f})"
    assert out.splitlines()[-1].endswith("|bs:100|rs:12345")


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
