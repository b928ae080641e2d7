"""`gecscore score` shows progress bars, model loading's included, on a terminal or with --progress, and none in
captured output (a log, a pipe) or with --no-progress."""

import sys

import pytest

from gecscore.cli import main
from gecscore.common import encoders

BAR = "Loading weights"  # transformers' bar on every model load


@pytest.fixture()
def run(tmp_path, tiny_modernbert, capsys):
    text = tmp_path / "p.txt"
    text.write_text("He goes to school .\nShe has a cat .\n", encoding="utf-8")

    def score(*flags):
        encoders.release_models()  # each run loads the model again
        capsys.readouterr()
        assert main(["score", "impara_ged", "--sources", str(text), "--predictions", str(text), "-o",
                     f"model={tiny_modernbert}", *flags]) == 0
        return capsys.readouterr().err
    return score


def test_captured_output_has_no_bars_unless_asked(run):
    err = run()
    assert BAR not in err and "%|" not in err
    assert BAR in run("--progress")


def test_a_terminal_gets_bars_unless_told_not_to(run, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert BAR in run()
    assert BAR not in run("--no-progress")


def test_loading_progress_outside_the_cli(tiny_bert, capsys):
    encoders.release_models()
    with encoders.loading_progress(False):
        encoders.Encoder.get(str(tiny_bert), device="cpu")
    assert BAR not in capsys.readouterr().err
    encoders.release_models()
    with encoders.loading_progress(True):
        encoders.Encoder.get(str(tiny_bert), device="cpu")
    assert BAR in capsys.readouterr().err
    encoders.release_models()


def test_bars_held_back_by_shown_after_stay_quiet_on_quick_stages(capsys):
    from gecscore.common.progress import progress_bar, shown_after

    with shown_after(5.0):
        list(progress_bar(range(3), desc="quick"))
    assert "quick" not in capsys.readouterr().err
    list(progress_bar(range(3), desc="asked"))
    assert "asked" in capsys.readouterr().err
