"""`gecscore score` on real files equals the Python API; bad files get file and line."""

import json

import evaluate
import pytest

from conftest import REPO
from gecscore.cli import main


@pytest.fixture()
def files(tmp_path, shared_data):
    def take(rel, name, n=25):
        lines = (shared_data / rel).read_text(encoding="utf-8").rstrip("\n").split("\n")[:n]
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path, [line.rstrip() for line in lines]

    return {
        "src": take("CoNLL-2014/PT-M2/data/source", "src.txt"),
        "hyp": take("CoNLL-2014/PT-M2/data/hypothesis", "hyp.txt"),
        "ref0": take("CoNLL-2014/PT-M2/data/reference/ref0", "ref0.txt"),
        "ref1": take("CoNLL-2014/PT-M2/data/reference/ref1", "ref1.txt"),
    }


def test_cli_equals_api_with_references(files, tmp_path, capsys):
    (src, sources), (hyp, predictions) = files["src"], files["hyp"]
    (r0, refs0), (r1, refs1) = files["ref0"], files["ref1"]
    code = main(["score", "pt_m2", "--sources", str(src), "--predictions", str(hyp), "--references", str(r0), str(r1),
                 "-o", "variant=senterrant", "-o", "scorer=self", "--json", "--sentences", str(tmp_path / "s.jsonl")])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    api = evaluate.load(str(REPO / "metrics" / "pt_m2")).compute(
        sources=sources, predictions=predictions, references=[list(r) for r in zip(refs0, refs1)],
        variant="senterrant", scorer="self")
    assert printed["f0.5"] == api["f0.5"]
    assert printed["signature"] == api["signature"]
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == len(sources)


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
