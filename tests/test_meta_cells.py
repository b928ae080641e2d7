"""The cell-by-cell table of benchmarks/meta_eval: cell counting, statuses, the committed results, cheap switches."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "meta_eval"


@pytest.fixture(scope="module")
def committed():
    path = BENCH / "results.json"
    if not path.is_file():
        pytest.skip("benchmarks/meta_eval/results.json has not been generated")
    return json.loads(path.read_text(encoding="utf-8"))


def _item(bench, row, ours, **switches):
    return {"row": bench.published.row_to_dict(row), "ours": ours, "switches": switches}


def test_cells_are_counted_per_printed_number(bench):
    Row = bench.published.Row
    rows = [
        Row("P", "T1", "m2", "gjg15", "official", "all", "default", "ew_nusnlp", (0.5, 0.6)),
        Row("P", "T1", "m2", "gjg15", "e-minimal", "all", "default", "ts_nusnlp", (0.5, 0.7),
            switches=("refs=official",), tried="m2-sn8"),
        Row("P", "T2", "errant", "seeda", "official", "base", "default", "ts_sent", (None, 0.3)),
        Row("Q", "T9", "errant", "seeda", "official", "base", "default", "sent", (0.59, 0.19), level="sentence"),
    ]
    evaluated = [
        _item(bench, rows[0], [0.5004, 0.6]),                                   # 2 equal
        _item(bench, rows[1], [0.49, 0.71], **{"refs=official": [0.4996, 0.8]}),  # 1 switch, 1 unexplained
        _item(bench, rows[2], [0.9, 0.3]),                                      # 1 cell only (r not printed)
        _item(bench, rows[3], [0.59, 0.2]),                                     # 1 equal, 1 unexplained
    ]
    cells = bench.cells.cells_from_rows(evaluated)
    assert len(cells) == 7
    assert [c["stat"] for c in cells] == ["r", "ρ", "r", "ρ", "ρ", "acc", "τ"]
    assert [c["status"] for c in cells] == ["equal", "equal", "switch", "unexplained", "equal", "equal",
                                            "unexplained"]
    switch = cells[2]
    assert switch["switch"] == "refs=official" and switch["switch_value"] == pytest.approx(0.4996)
    assert cells[3]["note"].startswith("unexplained: refs=official → 0.800; ")
    assert cells[6]["note"].startswith("unexplained:")
    summary = {(s["paper"], s["table"]): s for s in bench.cells.summarize(cells)}
    assert summary["P", "T1"] == {"paper": "P", "table": "T1", "cells": 4, "equal": 2, "switch": 1, "unexplained": 1}
    assert summary["P", "T2"]["cells"] == 1 and summary["Q", "T9"]["unexplained"] == 1
    assert summary["all", ""] == {"paper": "all", "table": "", "cells": 7, "equal": 4, "switch": 1, "unexplained": 2}
    text = bench.cells.to_markdown(cells)
    assert "| **all** |  | 7 | 4 | 1 | 2 |" in text
    assert text.count("\n| m2 |") == 4


def test_row_without_data_has_no_base_value(bench):
    row = bench.published.Row("P", "T1", "m2", "gjg15", "bn-10gec", "all", "default", "ew_nusnlp", (0.547, 0.648),
                    switches=("sn8gec-published-m2",), tried="m2-bn10gec", computable=False)
    cells = bench.cells.cells_from_rows([_item(bench, row, None, **{"sn8gec-published-m2": [0.580, 0.648]})])
    assert [c["status"] for c in cells] == ["unexplained", "switch"]
    assert cells[0]["ours"] is None and "no base value" in cells[0]["note"]


def test_equality_is_at_three_decimals(bench):
    assert bench.cells.same_3dp(0.623, 0.62304)
    assert not bench.cells.same_3dp(0.623, 0.6236)
    assert not bench.cells.same_3dp(0.623, None) and not bench.cells.same_3dp(0.623, float("nan"))


def test_every_switch_and_tried_entry_is_documented(bench):
    for row in bench.published.rows():
        assert set(row.switches) <= set(bench.switches.SWITCHES), row
        assert not row.tried or row.tried in bench.switches.TRIED, row


def test_committed_results_match_the_rows(bench, committed):
    rows = bench.published.rows()
    assert [item["row"]["published"] for item in committed["rows"]] == [list(r.published) for r in rows]
    listings = bench.published.listings()
    assert [item["listing"]["published"] for item in committed["listings"]] == [list(x.published) for x in listings]
    n_cells = sum(p is not None for r in rows for p in r.published) + sum(len(x.published) for x in listings)
    assert len(committed["cells"]) == n_cells
    assert committed["summary"] == bench.cells.summarize(committed["cells"])


def test_every_unequal_committed_cell_has_a_switch_or_an_unexplained_note(bench, committed):
    for cell in committed["cells"]:
        assert cell["equal"] == bench.cells.cell_equal(cell["published"], cell["ours"]), cell
        if cell["equal"]:
            assert cell["status"] == "equal"
        elif cell["status"] == "switch":
            assert cell["switch"] in bench.switches.SWITCHES
            assert bench.cells.cell_equal(cell["published"], cell["switch_value"]), cell
            assert cell["tried"][cell["switch"]] == cell["switch_value"]
        else:
            assert cell["status"] == "unexplained" and cell["note"].startswith("unexplained: "), cell
            assert not any(bench.cells.cell_equal(cell["published"], v) for v in cell["tried"].values()), cell


def test_cells_rebuild_from_committed_rows(bench, committed):
    assert bench.cells.all_cells(committed) == committed["cells"]


def readme_counts() -> dict[tuple[str, str], int]:
    """The cells per (paper, table) of the README's "Counts" table, its **all** line as ("all", "")."""
    text = (BENCH / "README.md").read_text(encoding="utf-8").split("## Counts", 1)[1].split("\n\n", 2)[1]
    counts = {}
    for line in text.splitlines()[2:]:
        paper, table, cells = [c.strip() for c in line.strip("|").split("|")][:3]
        counts["all" if paper == "**all**" else paper, table] = int(cells)
    return counts


def test_published_files_hold_the_cells_the_readme_counts(bench):
    counts: dict[tuple[str, str], int] = {}
    for row in bench.published.rows():
        counts[row.paper, row.table] = counts.get((row.paper, row.table), 0) + sum(p is not None for p in row.published)
    for item in bench.published.listings():
        counts[item.paper, item.table] = counts.get((item.paper, item.table), 0) + len(item.published)
    counts["all", ""] = sum(counts.values())
    assert counts == readme_counts()
    assert readme_counts()["all", ""] == sum(n for key, n in readme_counts().items() if key != ("all", ""))


def test_published_files_are_well_formed(bench):
    files = sorted((BENCH / "published").glob("*.json"))
    assert files and [f.name[:3] for f in files] == [f"{k:02d}-" for k in range(1, len(files) + 1)]
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert set(data) == {"paper", "table", "kind", "about", "entries"}, path.name
        assert data["kind"] in ("row", "listing") and data["entries"] and data["about"], path.name
    for row in bench.published.rows():
        assert row.level in ("system", "sentence") and any(p is not None for p in row.published), row
    for item in bench.published.listings():
        assert len(item.columns) == len(item.stats) == len(item.published) > 0, item
        assert all(isinstance(p, str) for p in item.published), item


def write_table(folder: Path, kind: str, entry: dict) -> None:
    folder.mkdir(exist_ok=True)
    data = {"paper": "P", "table": "T", "kind": kind, "about": "", "entries": [entry]}
    (folder / "01-p-t.json").write_text(json.dumps(data), encoding="utf-8")


def test_malformed_published_entries_fail_naming_file_and_entry(bench, tmp_path):
    protocol = {"metric": "errant", "dataset": "seeda", "references": "official", "system_set": "base",
                "aggregation": "default", "human": "ts_edit", "level": "system", "exclude_unchanged": False,
                "options": {}, "computable": True}
    entry = {"row": "errant", "column": "SEEDA-E base, Official refs, default agg.",
             "cells": [{"statistic": "r", "printed": 0.5}], "protocol": protocol, "switches": [], "tried": ""}
    write_table(tmp_path, "row", entry)
    assert bench.published.load(tmp_path)[0][0].published == (0.5, None)
    bad = [({**entry, "cells": [{"statistic": "acc", "printed": 0.5}]}, "statistic 'acc'"),
           ({**entry, "cells": [{"statistic": "ρ", "printed": 0.5}, {"statistic": "r", "printed": 0.5}]}, "order"),
           ({**entry, "column": "Official"}, "column 'Official'"),
           ({**entry, "protocol": {**protocol, "level": "corpus"}}, "level 'corpus'"),
           ({k: v for k, v in entry.items() if k != "tried"}, "keys")]
    for malformed, message in bad:
        write_table(tmp_path, "row", malformed)
        with pytest.raises(ValueError, match=rf"01-p-t\.json entry 0 \(errant\).*{message}"):
            bench.published.load(tmp_path)
    listing = {"row": "L", "cells": [{"column": "a", "statistic": "count", "printed": 3}],
               "protocol": {"compute": "heuo-table", "config": "", "args": {}}, "switches": [], "tried": ""}
    write_table(tmp_path, "listing", listing)
    with pytest.raises(ValueError, match=r"01-p-t\.json entry 0 \(L\).*printed text"):
        bench.published.load(tmp_path)


def test_sn8gec_published_scores_reproduce_the_printed_m2_rho(bench, shared_data):
    """CLEME2.0 Table 1 M²: the published SN-8GEC scores give the printed ρ for NE-Fluency and BN-10GEC, not r."""
    from gecscore.meta_eval.correlate import correlate_systems
    from gecscore.meta_eval.data import GJG15_SYSTEMS, read_gjg15_nusnlp_human

    human = read_gjg15_nusnlp_human(shared_data)
    printed = {("ne-fluency", "ew_nusnlp"): (0.582, 0.648), ("ne-fluency", "ts_nusnlp"): (0.649, 0.703),
               ("bn-10gec", "ew_nusnlp"): (0.547, 0.648), ("bn-10gec", "ts_nusnlp"): (0.610, 0.692)}
    for (refs, name), (r, rho) in printed.items():
        corr = correlate_systems(bench.external.sn8gec_published_m2(str(shared_data), refs), human[name], GJG15_SYSTEMS)
        assert bench.cells.same_3dp(rho, corr.spearman)
        assert not bench.cells.same_3dp(r, corr.pearson)


def test_cleme_m2_files_reproduce_the_printed_corpus_errant(bench, shared_data):
    """PT-M2 Table 5 / CLEME2.0 Table 1 ERRANT on CoNLL-2014: CLEME's ERRANT M2 files give EW .642/.659."""
    from gecscore.meta_eval.correlate import correlate_systems
    from gecscore.meta_eval.data import GJG15_SYSTEMS, read_gjg15_nusnlp_human

    row = bench.published.Row("P", "T", "errant", "gjg15", "official-pt-m2", "all", "default", "ew_nusnlp",
                              (0.642, 0.659))
    scores = bench.external.cleme_m2_file_scores(str(shared_data), row)
    corr = correlate_systems(scores, read_gjg15_nusnlp_human(shared_data)["ew_nusnlp"], GJG15_SYSTEMS)
    assert bench.cells.same_3dp(0.642, corr.pearson) and bench.cells.same_3dp(0.659, corr.spearman)


def test_sentence_errant_rules(bench):
    # No edits anywhere: F = 1; the better of two references is chosen; empty hypothesis against gold edits: 0.
    assert bench.external.sentence_errant_from_edits([[]], [[[]]]) == 1.0
    hyp = [(0, 1, "a")]
    assert bench.external.sentence_errant_from_edits([hyp], [[[(0, 1, "b")], [(0, 1, "a")]]]) == 1.0
    assert bench.external.sentence_errant_from_edits([[]], [[[(0, 1, "b")]]]) == 0.0


@pytest.mark.slow
def test_switches_reproduce_their_cells_from_scratch(bench, shared_data, tmp_path):
    """Recompute the rows whose cells a switch reproduces (CLEME runs: minutes) and check the switch's cells."""
    from gecscore.meta_eval import ScoreCache

    ev = bench.evaluator.Evaluator(str(shared_data), ScoreCache(tmp_path / "cache"))
    # `errant-2.3.3` needs its own environment: test_errant_2_3_3_switch_from_scratch covers it.
    chosen = [replace(r, switches=tuple(s for s in r.switches if s != "errant-2.3.3")) for r in bench.published.rows()
              if r.dataset == "gjg15" and r.metric in ("cleme", "errant")]
    chosen = [r for r in chosen if r.switches]
    cells = bench.cells.cells_from_rows(bench.run.evaluate_rows(chosen, ev))
    for cell in cells:
        if cell["status"] == "switch":
            assert bench.cells.same_3dp(cell["published"], cell["switch_value"])
    assert sum(c["status"] == "switch" for c in cells) >= 10


@pytest.fixture(scope="module")
def legacy():
    """`benchmarks/meta_eval/legacy_errant.py` as a module."""
    spec = importlib.util.spec_from_file_location("legacy_errant", BENCH / "legacy_errant.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_changed_only_keeps_the_references_that_change_the_source(legacy):
    from gecscore.common.m2io import parse_m2

    noop = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{}"
    blocks = parse_m2("\n".join([
        "S a b c", noop.format(0), "A 1 2|||R:NOUN|||x|||REQUIRED|||-NONE-|||1", "",
        "S d e", noop.format(0), noop.format(1), "",
        "S f", "A 0 1|||R:NOUN|||g|||REQUIRED|||-NONE-|||0", "A 0 0|||M:DET|||the|||REQUIRED|||-NONE-|||1", "",
    ]))
    kept = legacy.changed_only(blocks)
    assert [b.annotators for b in kept] == [[0], [0], [0, 1]]
    assert [e.correction for e in kept[0].edits] == ["x"]  # annotator 1 renumbered 0, annotator 0 dropped
    assert kept[1].edits[0].is_noop
    assert kept[2].edits == blocks[2].edits


def test_errant_2_3_3_extraction_checks_its_input_before_building_anything(legacy, tmp_path):
    with pytest.raises(ValueError, match="one line per source"):
        legacy.extract_m2(["a b"], [["a c", "a d"]], tmp_path)
    with pytest.raises(ValueError, match="non-empty"):
        legacy.extract_m2([""], [["a"]], tmp_path)
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_errant_2_3_3_switch_from_scratch(bench, legacy, shared_data, tmp_path, monkeypatch):
    """The pinned ERRANT 2.3.3 environment gives CLEME's CoNLL-2014 reference edit count, and its switches
    reproduce published SN-8GEC, CoNLL-2014 and SEEDA ERRANT / SentERRANT cells."""
    from gecscore.common.m2io import read_m2
    from gecscore.meta_eval import ScoreCache
    from gecscore.meta_eval.data import conll_references, read_conll_m2

    monkeypatch.setenv("GECSCORE_CACHE", str(tmp_path))  # the environment is built under tmp_path
    gold = read_conll_m2(shared_data)
    made = read_m2(legacy.extract_m2([b.source for b in gold], conll_references(shared_data, "official-pt-m2",
                                                                               gold=gold), tmp_path / "m2"))
    shipped = read_m2(shared_data / "CoNLL-2014" / "CLEME" / "demo" / "examples" / "conll14.errant")
    assert sum(not e.is_noop for b in made for e in b.edits) == sum(not e.is_noop for b in shipped for e in b.edits)
    edits = bench.external.m2_reference_edits
    same = sum(edits(a) == edits(b) for a, b in zip(made, shipped))
    assert same >= 0.99 * len(shipped)

    ev = bench.evaluator.Evaluator(str(shared_data), ScoreCache(tmp_path / "cache"))
    legacy_switches = ("errant-2.3.3", "errant-2.3.3+refs=official-pt-m2")
    chosen = [replace(r, switches=tuple(s for s in r.switches if s in legacy_switches)) for r in bench.published.rows()
              if set(r.switches) & set(legacy_switches) and r.metric in ("errant", "senterrant")]
    cells = bench.cells.cells_from_rows(bench.run.evaluate_rows(chosen, ev))
    for cell in cells:
        if cell["status"] == "switch":
            assert bench.cells.same_3dp(cell["published"], cell["switch_value"])
    assert sum(c["status"] == "switch" for c in cells) >= 5


def test_seeda_pie_output_is_the_blob_lm_critic_shipped_before_the_fix(shared_data):
    """`seeda-lm-critic=pie` rests on tmu-nlp/SEEDA's history: before commit 082e663 `outputs/subset/LM-Critic.txt`
    and `PIE.txt` were one git blob, 5330d68… at 870b1b9, which is today's PIE.txt; today's LM-Critic.txt differs."""
    import hashlib

    def blob(path: Path) -> str:
        data = path.read_bytes()
        return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

    subset = shared_data / "SEEDA" / "outputs" / "subset"
    assert blob(subset / "PIE.txt") == "5330d6813efe14f6c2ab1fbe0ac2d9e2e41708f6"
    assert blob(subset / "LM-Critic.txt") != blob(subset / "PIE.txt")


def test_seeda_lm_critic_switch_takes_pie_score_and_refuses_aggregated_rows(bench):
    Row = bench.published.Row

    class Ev:
        def result(self, row):
            return type("R", (), {"metric_scores": {"PIE": 0.5, "LM-Critic": 0.1, "T5": 0.7}})()

        def external(self, name, row, scores):
            return scores()

    row = Row("P", "T", "m2", "seeda", "official", "base", "default", "ts_sent", (None, None))
    switch = bench.switches.SWITCHES[bench.switches.SEEDA_LM_CRITIC]
    assert switch.compute(row, Ev()) == {"PIE": 0.5, "LM-Critic": 0.5, "T5": 0.7}
    with pytest.raises(ValueError, match="default aggregation"):
        switch.compute(replace(row, aggregation="trueskill"), Ev())


@pytest.mark.slow
def test_seeda_and_table5_switches_reproduce_their_cells_from_scratch(bench, shared_data, tmp_path):
    """CLEME2.0 Table 2 (SEEDA) M² and CLEME rows with `seeda-lm-critic=pie`, and Table 5 with the one-hot α
    ablation, recomputed from an empty cache: every cell these switches claim equals the printed value."""
    from gecscore.meta_eval import ScoreCache

    ev = bench.evaluator.Evaluator(str(shared_data), ScoreCache(tmp_path / "cache"))
    rows = [replace(r, switches=(bench.switches.SEEDA_LM_CRITIC,)) for r in bench.published.rows()
            if r.table == "Table 2" and r.paper.startswith("CLEME2.0") and (r.label or r.metric == "m2")]
    cells = bench.cells.cells_from_rows(bench.run.evaluate_rows(rows, ev))
    assert sum(c["status"] in ("equal", "switch") for c in cells) == 36
    listings = [replace(item, switches=("alpha=one-hot+cleme-errant-m2",)) for item in bench.published.listings()
                if item.table == "Table 5"]
    cells = bench.cells.cells_from_listings(bench.run.evaluate_listings(listings, ev))
    assert sum(c["status"] in ("equal", "switch") for c in cells) == 39
