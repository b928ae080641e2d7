"""Tables that say what they cannot vouch for: flagged sentences and out-of-range scores are marked in every
leaderboard format and per-type table, out-of-range systems are not ranked among sane ones, and CSV / JSON carry
the signature and the flag counts."""

from __future__ import annotations

import csv
import io
import json

import pytest

from gecscore import registry
from gecscore.common.trust import flag_counts, key_range, out_of_range
from gecscore.leaderboard import compare

SOURCES = ["He go to school .", "I has a apple .", "She like cats .", "They was late ."]
REFERENCES = [["He goes to school ."], ["I have an apple ."], ["She likes cats ."], ["They were late ."]]
SYSTEMS = {"good": ["He goes to school .", "I have an apple .", "She likes cats .", "They were late ."],
           "empty": ["", "I has an apple .", "", "They were late ."],
           "broken": ["He goes to school .", "I have a apple .", "She likes cat .", "They was late ."]}


@pytest.fixture()
def board(monkeypatch):
    """A leaderboard whose `broken` system reports a corpus F0.5 and a per-type recall outside [0, 1] and a
    negative count, as published-mode UOT-ERRANT does on SEEDA's GPT-3.5 (the metric's own number, replaced here
    so that the test does not need a model)."""
    real = registry.run_systems

    def with_broken(*args, **kwargs):
        results = real(*args, **kwargs)
        broken = results["broken"]
        broken.scores.update({"f0.5": 3479.4512, "recall": -173.9})
        first = next(iter(broken.details["types"]["rows"]))
        broken.details["types"]["rows"][first].update({"fn": -1908939, "recall": -173.9})
        return results

    monkeypatch.setattr(registry, "run_systems", with_broken)
    return compare("errant", SOURCES, SYSTEMS, REFERENCES, n_samples=0, return_types=1)


def test_ranges_of_score_keys():
    assert key_range("f0.5") == key_range("precision") == key_range("hit") == (0.0, 1.0)
    assert key_range("fn")[0] == 0.0 and key_range("signature") is None
    assert out_of_range({"f0.5": 1.2, "recall": float("nan"), "tp": -1, "precision": 1.0, "ave": 7}) == {
        "f0.5": "outside [0, 1]", "recall": "NaN", "tp": "outside >= 0"}
    records = [{"index": 0, "reason": "a"}, {"index": 0, "reason": "b"}, {"index": 2, "reason": "a"}]
    assert flag_counts(records) == {"a": 2, "b": 1}


def test_out_of_range_system_is_listed_after_the_ranked_ones_with_the_reason(board):
    assert [(r.system, r.rank) for r in board.rows] == [("good", 1), ("empty", 2), ("broken", None)]
    assert board.row("broken").unranked == "f0.5 3479 outside [0, 1]; recall -173.9 outside [0, 1]"
    text = board.render("text")
    line = next(l for l in text.splitlines() if l.split()[:2] == ["—", "broken"])
    assert "f0.5 3479 outside [0, 1]" in line
    for fmt in ("markdown", "latex"):
        assert "outside [0, 1]" in board.render(fmt)


def test_flagged_sentences_are_counted_with_their_reasons_in_every_format(board):
    assert board.row("empty").flagged == 2 and dict(board.row("empty").flags) == {"empty prediction": 2}
    assert "2 (empty prediction 2)" in board.render("text")
    rows = list(csv.DictReader(io.StringIO(board.render("csv").split("\n\n")[0])))
    by_system = {row["system"]: row for row in rows}
    assert by_system["empty"]["flagged"] == "2" and by_system["empty"]["flagged: empty prediction"] == "2"
    assert by_system["good"]["flagged"] == "0" and by_system["broken"]["rank"] == ""
    assert {row["signature"] for row in rows} == {board.signature}
    data = json.loads(board.render("json"))
    assert data["signature"] == board.signature
    empty = next(s for s in data["systems"] if s["system"] == "empty")
    assert empty["flagged"] == 2 and empty["flags"] == {"empty prediction": 2}
    assert next(s for s in data["systems"] if s["system"] == "broken")["rank"] is None


def test_per_type_cells_outside_their_range_are_marked(board):
    text = board.render("text")
    assert "-1908939 !" in text and "-173.9000 !" in text and "!: outside the metric's range" in text
    assert "empty: per type (level 1); flagged sentences: 2 (empty prediction 2)" in text
    long = board.render("csv").split("\n\n")[1]
    marked = [row for row in csv.DictReader(io.StringIO(long)) if row["out_of_range"]]
    assert [row["system"] for row in marked] == ["broken"] and "fn" in marked[0]["out_of_range"]


def _files(tmp_path, predictions):
    paths = []
    for name, lines in (("src", SOURCES), ("hyp", predictions), ("ref", [r[0] for r in REFERENCES])):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def test_single_system_text_marks_flags_and_out_of_range_values(tmp_path, capsys, monkeypatch):
    from gecscore.cli import main

    src, hyp, ref = _files(tmp_path, SYSTEMS["empty"])
    assert main(["score", "errant", "--sources", src, "--predictions", hyp, "--references", ref]) == 0
    assert "flagged\t2 (empty prediction 2)" in capsys.readouterr().out.splitlines()
    real = registry.run_systems

    def broken(*args, **kwargs):
        results = real(*args, **kwargs)
        next(iter(results.values())).scores.update({"f0.5": 3479.4512, "recall": -173.9})
        return results

    monkeypatch.setattr(registry, "run_systems", broken)
    src, hyp, ref = _files(tmp_path, SYSTEMS["good"])
    assert main(["score", "errant", "--sources", src, "--predictions", hyp, "--references", ref]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "f0.5\t3479.451200 ! outside [0, 1]" in lines and "recall\t-173.900000 ! outside [0, 1]" in lines
    assert "flagged\t0" in lines and "precision\t1.000000" in lines


def test_the_types_plot_marks_values_it_draws_clipped():
    from gecscore.common.leaderboard_plots import types_figure

    figure = types_figure({"sane": {"R:VERB": {"precision": 0.5, "recall": 0.25}},
                           "broken": {"R:VERB": {"precision": 0.75, "recall": -173.9}}}, title="types")
    texts = [t.get_text() for ax in figure.axes for t in ax.texts]
    assert texts == ["!"] and "outside [0, 1]" in figure._suptitle.get_text()
    sane = types_figure({"sane": {"R:VERB": {"precision": 0.5, "recall": 0.25}}}, title="types")
    assert not [t for ax in sane.axes for t in ax.texts] and sane._suptitle.get_text() == "types"
