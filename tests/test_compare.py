"""`gecscore.compare`: one run for all systems, ranks, intervals and tests equal to the bootstrap module, argument
checks before any work, the five renderers (per-type tables included) and the plots."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import pytest

import gecscore
from gecscore import registry
from gecscore.common.bootstrap import (SentenceMean, confidence_interval, paired_approximate_randomization,
                                       paired_bootstrap)
from gecscore.common.results import MetricResult
from gecscore.common.tables import Table, latex_escape, render, to_text
from gecscore.leaderboard import compare

SYSTEMS = ("BART", "T5", "GPT-3.5")


@pytest.fixture(scope="module")
def seeda(shared_data):
    """20 SEEDA sentences: sources, three systems, two references each."""
    def lines(rel):
        return (shared_data / rel).read_text(encoding="utf-8").split("\n")[:20]

    refs = zip(lines("SEEDA/derived/REF0.txt"), lines("SEEDA/derived/REF1.txt"))
    return (lines("SEEDA/outputs/subset/INPUT.txt"),
            {name: lines(f"SEEDA/outputs/subset/{name}.txt") for name in SYSTEMS}, [list(r) for r in refs])


@pytest.fixture()
def counted(monkeypatch):
    """The number of `registry.run_systems` calls made."""
    calls = []
    real = registry.run_systems

    def spy(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(registry, "run_systems", spy)
    return calls


def test_one_run_ranks_with_intervals_and_paired_bootstrap(seeda, counted):
    sources, systems, refs = seeda
    board = compare("errant", sources, systems, refs, baseline="BART", n_samples=200, seed=7)
    assert len(counted) == 1 and list(counted[0]) == list(SYSTEMS)
    runs = {name: registry.run("errant", sources, predictions, refs) for name, predictions in systems.items()}
    assert [r.system for r in board.rows] == sorted(SYSTEMS, key=lambda s: -runs[s].score)
    assert [r.rank for r in board.rows] == [1, 2, 3]
    for row in board.rows:
        assert row.score == runs[row.system].score == board.results[row.system].score
        assert row.interval == confidence_interval(runs[row.system].statistic, 20, n_samples=200, seed=7)
        if row.system == "BART":
            assert row.difference is None and row.p_value is None
        else:
            test = paired_bootstrap(runs["BART"].statistic, runs[row.system].statistic, 20, n_samples=200, seed=7)
            assert (row.difference, row.p_value) == (test.difference, test.p_value)
    assert board.signature == f"{runs['BART'].signature}|bs:200|rs:7"
    assert board.metric == "errant" and board.main == "f0.5" and board.n == 20


def test_approximate_randomisation_and_its_signature(seeda):
    sources, systems, refs = seeda
    board = compare("senterrant", sources, systems, refs, baseline="T5", test="ar", n_samples=300)
    runs = registry.run_systems("senterrant", sources, systems, refs)
    for name in ("BART", "GPT-3.5"):
        test = paired_approximate_randomization(runs["T5"].statistic, runs[name].statistic, 20, n_samples=300)
        assert (board.row(name).difference, board.row(name).p_value) == (test.difference, test.p_value)
        assert board.row(name).interval == confidence_interval(runs[name].statistic, 20)  # 1000, as sacrebleu
    assert board.signature.endswith("|ar:300|rs:12345|bs:1000")
    assert board.as_dict()["test"] == "approximate randomisation"


def test_n_samples_zero_gives_scores_and_differences_only(seeda):
    sources, systems, refs = seeda
    board = compare("errant", sources, systems, refs, baseline="BART", n_samples=0)
    assert all(r.interval is None and r.p_value is None for r in board.rows)
    assert board.row("T5").difference == board.row("T5").score - board.row("BART").score
    assert "|bs:" not in board.signature
    assert board.render().splitlines()[0].split() == ["rank", "system", "f0.5", "Δ", "vs", "BART", "p"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(baseline="bart"), r"baseline 'bart' is not one of the systems: \['BART', 'T5', 'GPT-3.5'\]"),
    (dict(test="ar"), "pass `baseline`"),
    (dict(baseline="BART", test="t"), "`test` must be 'bs'"),
    (dict(n_samples=-1), "`n_samples` must be an integer >= 0"),
    (dict(seed=1.5), "`seed` must be an integer or None"),
    (dict(beta="x"), "`beta` must be a number"),
    (dict(reg=1), r"unknown option\(s\) \['reg'\]"),
])
def test_arguments_are_checked_before_any_work(seeda, counted, kwargs, message):
    sources, systems, refs = seeda
    with pytest.raises((ValueError, TypeError), match=message):
        compare("errant", sources, systems, refs, **kwargs)
    assert counted == []


def test_system_arguments_are_checked(seeda, counted):
    sources, systems, refs = seeda
    with pytest.raises(ValueError, match="at least one other system"):
        compare("errant", sources, {"BART": systems["BART"]}, refs, baseline="BART")
    with pytest.raises(ValueError, match="non-empty mapping"):
        compare("errant", sources, {}, refs)
    with pytest.raises(ValueError, match=r"input options that replace the sentences \(\['hyp_m2', 'ref_m2'\]\)"):
        compare("cleme2", None, {"A": {"model": "x"}}, weighting="none")
    with pytest.raises(ValueError, match="unknown metric"):
        compare("bleu", sources, systems, refs)
    assert counted == []


def m2_block(source, edits):
    return "\n".join([f"S {source}"] + [f"A {s} {e}|||R:OTHER|||{c}|||REQUIRED|||-NONE-|||0" for s, e, c in edits])


def test_m2_systems_run_one_by_one_and_equal_single_runs(counted):
    sources = ["He go to school .", "She like apple ."]
    gold = "\n\n".join([m2_block(sources[0], [(1, 2, "goes")]), m2_block(sources[1], [(1, 2, "likes")])]) + "\n"
    hyps = {"good": "\n\n".join([m2_block(sources[0], [(1, 2, "goes")]), m2_block(sources[1], [])]) + "\n",
            "bad": "\n\n".join([m2_block(sources[0], [(0, 1, "It")]), m2_block(sources[1], [])]) + "\n"}
    board = compare("cleme2", None, {name: {"hyp_m2": text} for name, text in hyps.items()}, ref_m2=gold,
                    weighting="none", baseline="bad", n_samples=50)
    assert len(counted) == 2 and [r.system for r in board.rows] == ["good", "bad"]
    for name, text in hyps.items():
        single = registry.run("cleme2", None, None, hyp_m2=text, ref_m2=gold, weighting="none")
        assert board.results[name].scores == single.scores


def result(score, types=None, n=4, name="x"):
    """A hand-built MetricResult whose sentence scores all equal `score` (optionally with a per-type table)."""
    details = {} if types is None else {"types": {"level": 2, "rows": types}}
    sentences = [{"f0.5": score}] * n
    return MetricResult("errant", {"f0.5": score, "precision": score}, "f0.5", sentences,
                        SentenceMean([score] * n), f"{name}|beta:0.5", details)


TYPES = {"DET": {"tp": 3.0, "fp": 1.0, "fn": 2.0, "precision": 0.75, "recall": 0.6, "f0.5": 0.7143},
         "VERB:SVA": {"tp": 1.5, "fp": 0.0, "fn": 1.0, "precision": 1.0, "recall": 0.6, "f0.5": 0.8824}}


@pytest.fixture()
def board(monkeypatch):
    """A leaderboard of hand-built results (names needing escapes), per-type tables on two systems."""
    results = {"base_1": result(0.25, TYPES), "A & B|C": result(0.5, TYPES), "tie%": result(0.5)}
    monkeypatch.setattr(registry, "run_systems", lambda *args, **kwargs: results)
    return compare("errant", ["s"] * 4, {name: ["p"] * 4 for name in results}, [["r"]] * 4, baseline="base_1",
                   n_samples=100)


def test_ties_share_a_rank_and_keep_input_order(board):
    assert [(r.rank, r.system) for r in board.rows] == [(1, "A & B|C"), (1, "tie%"), (3, "base_1")]
    assert board.row("tie%").p_value == paired_bootstrap(SentenceMean([0.25] * 4), SentenceMean([0.5] * 4), 4,
                                                         n_samples=100).p_value


def test_text_and_markdown_tables_with_per_type_tables(board):
    text = board.render("text")
    lines = text.splitlines()
    assert lines[0].split() == ["rank", "system", "f0.5", "95%", "CI", "(percentile)", "Δ", "vs", "base_1", "p"]
    assert lines[1].startswith("   1  A & B|C  0.5000  [0.5000, 0.5000]") and lines[1].endswith("0.0099*")
    assert lines[3].endswith("baseline")
    assert "A & B|C: per type (level 2)" in text and "VERB:SVA" in text and "1.5000" in text
    # whole counts print as integers only where the whole column is whole (tp holds a weight, 1.5)
    assert [line.split() for line in lines if line.startswith(("DET", "VERB"))][:2] == [
        ["DET", "3.0000", "1", "2", "0.7500", "0.6000", "0.7143"],
        ["VERB:SVA", "1.5000", "0", "1", "1.0000", "0.6000", "0.8824"]]
    assert lines[-1] == f"signature: {board.signature}" and board.signature.endswith("|bs:100|rs:12345")
    assert "* p < 0.05" in lines[-2]
    assert "95% CI: percentile bootstrap, 100 resamples (seed 12345)" in lines[-2]
    markdown = board.render("markdown", digits=2)
    assert "| 1 | A & B\\|C | 0.50 | [0.50, 0.50] | +0.25 | 0.01\\* |" in markdown
    assert "|---:|---|---:|---|---:|---:|" in markdown and "**base_1: per type (level 2)**" in markdown


def test_latex_is_booktabs_with_escaped_names(board):
    latex = board.render("latex")
    assert latex.startswith("\\begin{tabular}{rlrlrr}\n\\toprule\nrank & system & f0.5 & 95\\% CI (percentile) & $\\Delta$ vs "
                            "base\\_1 & p \\\\\n\\midrule")
    assert "1 & A \\& B\\textbar{}C & 0.5000" in latex and "tie\\%" in latex
    assert "\\multicolumn{7}{l}{A \\& B\\textbar{}C: per type (level 2)}" in latex
    assert latex.count("\\begin{tabular}") == 3 and latex.count("\\bottomrule") == 3
    assert latex.rstrip().endswith(latex_escape(board.signature) + "}")


def test_csv_has_full_precision_and_a_long_per_type_table(board):
    leaderboard, types = board.render("csv").split("\n\n")
    rows = list(csv.DictReader(io.StringIO(leaderboard)))
    assert [r["system"] for r in rows] == ["A & B|C", "tie%", "base_1"]
    assert float(rows[0]["p_value"]) == board.row("A & B|C").p_value and rows[2]["p_value"] == ""
    assert rows[0]["precision"] == "0.5" and float(rows[0]["low"]) == board.row("A & B|C").interval.low
    assert {r["interval_method"] for r in rows} == {"percentile"}
    typed = list(csv.DictReader(io.StringIO(types)))
    assert [(r["system"], r["type"]) for r in typed] == [("A & B|C", "DET"), ("A & B|C", "VERB:SVA"),
                                                         ("base_1", "DET"), ("base_1", "VERB:SVA")]
    assert typed[1]["tp"] == "1.5" and typed[0]["fp"] == "1" and typed[0]["level"] == "2"


def test_json_holds_everything(board):
    data = json.loads(board.render("json"))
    assert data["signature"] == board.signature and data["baseline"] == "base_1" and data["n_samples"] == 100
    assert data["test"] == "paired bootstrap" and data["sentences"] == 4
    first = data["systems"][0]
    assert first["system"] == "A & B|C" and first["interval"]["low"] == board.rows[0].interval.low
    assert first["interval"]["method"] == "percentile"
    assert first["details"]["types"]["rows"]["DET"]["tp"] == 3.0 and first["scores"]["precision"] == 0.5
    with pytest.raises(ValueError, match="unknown format 'html'"):
        board.render("html")


def test_plots_are_png_and_svg(board, tmp_path):
    paths = board.plot(tmp_path / "plots")
    assert [p.name for p in paths] == ["leaderboard.png", "leaderboard.svg", "types.png", "types.svg"]
    for path in paths:
        head = path.read_bytes()[:200]
        assert head.startswith(b"\x89PNG") if path.suffix == ".png" else b"<svg" in path.read_bytes()[:2000]


def test_plots_without_types_or_intervals(monkeypatch, tmp_path):
    results = {"a": result(0.2), "b": result(float("nan"))}
    monkeypatch.setattr(registry, "run_systems", lambda *args, **kwargs: results)
    board = compare("errant", ["s"] * 4, {"a": ["p"] * 4, "b": ["p"] * 4}, [["r"]] * 4, n_samples=0)
    assert [r.system for r in board.rows] == ["a", "b"] and math.isnan(board.rows[1].score)
    assert [p.name for p in board.plot(tmp_path)] == ["leaderboard.png", "leaderboard.svg"]


def test_tables_module():
    table = Table(["name", "n", "x"], [["a", 1, 0.5], ["bb", 10, None]])
    assert table.alignment == "lrr"
    assert to_text(table, 2).splitlines() == ["name   n     x", "a      1  0.50", "bb    10     —"]
    assert render([table], "csv") == "name,n,x\na,1,0.5\nbb,10,\n"
    with pytest.raises(ValueError, match="2 cells for 3 columns"):
        Table(["a", "b", "c"], [["x", "y"]])
    with pytest.raises(ValueError, match="unknown table format"):
        render([table], "json")


def test_compare_is_exported_lazily():
    assert gecscore.compare is compare and gecscore.Leaderboard.__module__ == "gecscore.leaderboard"
    done = subprocess.run([sys.executable, "-c", "import sys, gecscore; print(sorted(m for m in sys.modules if "
                           "m.startswith('gecscore.') or m in ('numpy', 'matplotlib')))"],
                          capture_output=True, text=True, check=True)
    assert "gecscore.leaderboard" not in done.stdout and "numpy" not in done.stdout
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        gecscore.nothing  # noqa: B018


def test_per_type_tables_of_a_real_run(seeda, tmp_path):
    sources, systems, refs = seeda
    board = compare("errant", sources, systems, refs, n_samples=0, return_types=1)
    text = board.render("text")
    typed = list(csv.DictReader(io.StringIO(board.render("csv").split("\n\n")[1])))
    for name in SYSTEMS:
        types = board.results[name].details["types"]
        assert types["level"] == 1 and set(types["rows"]) <= {"M", "R", "U"}
        assert f"{name}: per type (level 1)" in text
        assert sum(float(r["tp"]) for r in typed if r["system"] == name) == board.results[name].scores["tp"]
    assert [p.name for p in board.plot(tmp_path)][2:] == ["types.png", "types.svg"]
