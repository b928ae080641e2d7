"""The cell-by-cell table of benchmarks/meta_eval: cell counting, statuses, the committed results, cheap switches."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

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


def test_cells_are_judged_under_the_declared_protocol_hits_and_misses(bench):
    Row = bench.published.Row
    rows = [
        Row("P", "T1", "m2", "gjg15", "official", "all", "default", "ew_nusnlp", (0.5, 0.6)),
        Row("P", "T1", "m2", "gjg15", "e-minimal", "all", "default", "ts_nusnlp", (0.5, 0.7),
            switches=("refs=official",), tried="m2-sn8", declared="refs=official", evidence="e"),
        Row("P", "T2", "errant", "seeda", "official", "base", "default", "ts_sent", (None, 0.3)),
        Row("Q", "T9", "errant", "seeda", "official", "base", "default", "sent", (0.59, 0.19), level="sentence",
            switches=("refs=official",), tried="m2-sn8"),
    ]
    evaluated = [
        _item(bench, rows[0], [0.5004, 0.6]),                                   # base: 2 reproduced
        _item(bench, rows[1], [0.5, 0.7], **{"refs=official": [0.4996, 0.8]}),  # switch: 1 hit, 1 miss (base hit)
        _item(bench, rows[2], [0.9, 0.3]),                                      # 1 cell only (r not printed)
        _item(bench, rows[3], [0.59, 0.2], **{"refs=official": [0.1, 0.19]}),   # base: 1 hit; explored switch hits τ
    ]
    cells = bench.cells.cells_from_rows(evaluated)
    assert len(cells) == 7
    assert [c["stat"] for c in cells] == ["r", "ρ", "r", "ρ", "ρ", "acc", "τ"]
    assert [c["status"] for c in cells] == ["reproduced", "reproduced", "reproduced", "unexplained", "reproduced",
                                            "reproduced", "unexplained"]
    assert cells[2]["protocol"] == "refs=official" and cells[2]["value"] == pytest.approx(0.4996)
    assert cells[3]["equal"] and cells[3]["status"] == "unexplained"  # the base's hit does not rescue the row's miss
    assert cells[3]["note"].startswith("unexplained: ") and cells[3]["tried_key"] == "m2-sn8"
    assert cells[6]["explored_equal"] == ["refs=official"] and cells[6]["status"] == "unexplained"
    summary = {(s["paper"], s["table"]): s for s in bench.cells.summarize(cells)}
    assert summary["P", "T1"] == {"paper": "P", "table": "T1", "cells": 4, "covered": 4, "reproduced": 3,
                                  "slip": 0, "explained": 0, "unexplained": 1, "uncovered": 0, "under_base": 2,
                                  "under_switch": 1}
    assert summary["P", "T2"]["cells"] == 1 and summary["Q", "T9"]["unexplained"] == 1
    assert summary["all", ""]["reproduced"] == 5 and summary["all", ""]["unexplained"] == 2
    assert bench.cells.best_of(cells) == 7  # what the per-cell best-of would have counted
    payload = {"rows": evaluated}
    declared = bench.cells.declared_rows(payload, cells)
    text = bench.cells.to_markdown(cells, declared)
    assert "| **all** |  | 7 | 7 | 5 | 1 | 0 | 0 | 2 | 0 |" in text
    assert "5 of the 7 covered cells (71.4 %)" in text and "would count 7 of the 7" in text
    assert text.count("\n| m2 |") == 4


def test_a_miss_is_explained_only_when_its_cause_locates_the_difference(bench, monkeypatch):
    """A miss whose cause is `Located` is an explained miss (still not reproduced); one whose cause is `NotLocated`,
    or that no cause covers, stays unexplained; a cell named in a cause's `cells` belongs to that cause."""
    Row, switches = bench.published.Row, bench.switches
    rows = [Row("P", "T", "errant", "gjg15", "e-minimal", "all", "default", "ew_nusnlp", (0.5, 0.6),
                tried="errant-sn8"),
            Row("P", "T", "gleu", "gjg15", "official", "all", "default", "ew_nusnlp", (0.5, 0.6)),
            Row("P", "T", "gleu", "gjg15", "e-fluency", "all", "default", "ew_nusnlp", (0.5, 0.6)),
            Row("P", "T", "green", "gjg15", "official", "all", "default", "ew_nusnlp", (0.5, 0.6))]
    cells = bench.cells.cells_from_rows([_item(bench, row, [0.5, 0.1]) for row in rows])
    assert [c["status"] for c in cells] == ["reproduced", "explained", "reproduced", "explained", "reproduced",
                                            "unexplained", "reproduced", "unexplained"]
    assert [c["cause"] for c in cells[1::2]] == ["sn8-reference-edits", "gleu-implementation", "sn8-gleu", ""]
    assert cells[1]["note"].startswith("explained miss (cause `sn8-reference-edits`, located in the SN-8GEC")
    assert cells[1]["tried_key"] == "errant-sn8" and "[errant-sn8](#tried-errant-sn8)" in cells[1]["short_note"]
    assert cells[5]["note"] == "unexplained: cause `sn8-gleu` (not located)"
    summary = bench.cells.summarize(cells)[-1]
    assert (summary["covered"], summary["reproduced"], summary["explained"], summary["unexplained"]) == (8, 4, 2, 2)
    with pytest.raises(ValueError, match="0 causes in CAUSES"):
        bench.cells.misses_by_cause(cells)  # the green miss has no cause: results need one for every miss
    named = dict(cells[5], row="gleu", column="x", table="T", paper="P")
    cause = switches.CAUSES["copy-slip"]
    monkeypatch.setitem(switches.CAUSES, "copy-slip", replace(cause, cells=(("P", "T", "gleu", "x", "ρ"),)))
    assert bench.cells.miss_cause(named) == "copy-slip"  # named in `cells`, whatever its metric says
    gleu = switches.CAUSES["gleu-implementation"]
    monkeypatch.setitem(switches.CAUSES, "gleu-implementation", replace(gleu, location=switches.NotLocated("no")))
    again = bench.cells.cells_from_rows([_item(bench, rows[1], [0.5, 0.1])])
    assert [c["status"] for c in again] == ["reproduced", "unexplained"]


def test_a_declared_switch_that_an_entry_does_not_list_leaves_its_cells_at_the_base(bench):
    Row = bench.published.Row
    row = Row("P", "T1", "m2", "gjg15", "official", "all", "default", "ew_nusnlp", (0.5, 0.6),
              declared="m2-gold=lattice", evidence="e")
    cells = bench.cells.cells_from_rows([_item(bench, row, [0.5, 0.1])])
    assert [c["status"] for c in cells] == ["reproduced", "unexplained"]
    assert not cells[0]["applies"] and cells[0]["value"] == 0.5


def test_paper_slips_are_their_own_category_when_the_evidence_shows_them(bench):
    Row = bench.published.Row
    slip = {"kind": "exchanged", "shown_by": "refs=official", "evidence": "swapped"}
    row = Row("P", "T1", "m2", "gjg15", "official", "all", "default", "ew_nusnlp", (0.5, 0.6),
              switches=("refs=official",), slips={"r": slip, "ρ": slip})
    cells = bench.cells.cells_from_rows([_item(bench, row, [0.4, 0.1], **{"refs=official": [0.5, 0.2]})])
    assert [c["status"] for c in cells] == ["slip", "unexplained"]  # ρ: the shown value .2 is not the printed .6
    assert "named a paper slip (exchanged), but `refs=official` gives 0.200" in cells[1]["note"]
    summary = bench.cells.summarize(cells)[-1]
    assert (summary["reproduced"], summary["slip"], summary["unexplained"]) == (0, 1, 1)
    Listing = bench.published.Listing
    avg = {"kind": "average", "shown_by": None, "evidence": "not the mean"}
    item = Listing("P", "T", "row", ("a", "b", "Avg."), ("r", "r", "avg"), ("0.100", "0.200", "0.253"),
                   "heuo-table", "cfg", slips={"Avg.": avg})
    entry = {"listing": bench.published.listing_to_dict(item), "ours": [0.1, 0.2, 0.15], "switches": {}}
    cells = bench.cells.cells_from_listings([entry])
    assert [c["status"] for c in cells] == ["reproduced", "reproduced", "slip"]
    assert cells[2]["slip"]["value"] == 0.15  # the mean of .100 and .200, rounded half up
    assert bench.cells.printed_mean(["0.1245", "0.1250"]) == 0.1248 and bench.cells.printed_mean(["0.1", "0.2"]) == 0.2


def test_row_without_data_is_not_covered(bench):
    row = bench.published.Row("P", "T1", "m2", "gjg15", "bn-10gec", "all", "default", "ew_nusnlp", (0.547, 0.648),
                              switches=("sn8gec-published-m2",), tried="m2-bn10gec", computable=False)
    cells = bench.cells.cells_from_rows([_item(bench, row, None, **{"sn8gec-published-m2": [0.580, 0.648]})])
    assert [c["status"] for c in cells] == ["uncovered", "uncovered"]
    assert cells[1]["explored_equal"] == ["sn8gec-published-m2"]  # exploration only: not counted
    summary = bench.cells.summarize(cells)[-1]
    assert (summary["cells"], summary["covered"], summary["reproduced"]) == (2, 0, 0)


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


def test_committed_results_carry_todays_declared_protocols_and_slips(bench, committed):
    """results.json was judged under the protocols and slips that published/*.json declares now."""
    stored = [(i["row"]["declared"], i["row"]["slips"]) for i in committed["rows"]]
    assert stored == [(r.declared, r.slips) for r in bench.published.rows()]
    stored = [(i["listing"]["declared"], i["listing"]["slips"]) for i in committed["listings"]]
    assert stored == [(x.declared, x.slips) for x in bench.published.listings()]


def test_every_declared_protocol_is_a_switch_with_evidence_and_its_rows_compute_it(bench):
    for item in [*bench.published.rows(), *bench.published.listings()]:
        assert item.declared == "base" or item.declared in bench.switches.SWITCHES, item
        assert item.evidence, item
    for name in {i.declared for i in [*bench.published.rows(), *bench.published.listings()]} - {"base"}:
        entries = [i for i in [*bench.published.rows(), *bench.published.listings()] if i.declared == name]
        assert any(name in i.switches for i in entries), name  # declared somewhere it is never computed


def _declared_value(item: dict, k: int):
    """Independent of cells.py: the stored value of cell k under its row's declared protocol."""
    data = item.get("row") or item["listing"]
    values = item["switches"].get(data["declared"]) if data["declared"] != "base" else None
    source = values if values is not None or data["declared"] in item["switches"] else item["ours"]
    return source[k] if source else None


def _miss_causes(causes: dict, data: dict, column: str, stat: str) -> list[str]:
    """Independent of cells.py: the causes covering a missed cell of a stored row or listing (named in a cause's
    `cells`, else by its TRIED entry or, with none, its metric, within the cause's "dataset references" pairs)."""
    name = data.get("label") or data.get("metric") or data["name"]
    named = [key for key, cause in causes.items() if (data["paper"], data["table"], name, column, stat) in cause.cells]
    if named:
        return named
    if "metric" in data:
        metric, pair = data["metric"], f"{data['dataset']} {data['references']}"
    else:  # a listing: "metric(options) dataset references ..."
        metric, words = data["config"].split("(")[0], data["config"].split(") ", 1)[-1].split()
        pair = " ".join(words[:2])
    return [key for key, cause in causes.items() if (not cause.data or pair in cause.data)
            and (data["tried"] in cause.tried if data["tried"] else metric in cause.metrics)]


def recomputed_counts(bench, committed) -> tuple[dict[tuple[str, str], dict[str, int]], dict[str, int]]:
    """Independent of cells.py's judging: every stored cell judged under its row's one protocol (reproduced, slip,
    uncovered, else a miss: explained when its one cause is `Located`), counted per (paper, table) with the total
    as ("all", ""); and the misses per cause."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    per_cause: dict[str, int] = {}
    protocols: dict[tuple[str, str, str], set[str]] = {}
    for item in committed["rows"] + committed["listings"]:
        data = item.get("row") or item["listing"]
        stats = data.get("stats") or list(bench.published.LEVEL_STATS[data.get("level", "system")])
        name = data.get("label") or data.get("metric") or data["name"]
        protocols.setdefault((data["paper"], data["table"], name), set()).add(data["declared"])
        keys = data.get("columns") or stats
        for k, published in enumerate(data["published"]):
            if published is None:
                continue
            count = counts.setdefault((data["paper"], data["table"]), dict.fromkeys(
                ("cells", "reproduced", "slip", "explained", "unexplained", "uncovered"), 0))
            count["cells"] += 1
            value = _declared_value(item, k)
            if bench.cells.cell_equal(published, value):
                count["reproduced"] += 1
            elif keys[k] in data["slips"]:
                count["slip"] += 1
            elif value is None and data.get("computable") is False:
                count["uncovered"] += 1
            else:
                causes = _miss_causes(bench.switches.CAUSES, data, data.get("column") or keys[k], stats[k])
                assert len(causes) == 1, (data["paper"], data["table"], name, keys[k], causes)
                per_cause[causes[0]] = per_cause.get(causes[0], 0) + 1
                located = isinstance(bench.switches.CAUSES[causes[0]].location, bench.switches.Located)
                count["explained" if located else "unexplained"] += 1
    assert all(len(p) == 1 for p in protocols.values())  # no row mixes protocols
    counts["all", ""] = {key: sum(c[key] for c in counts.values()) for key in next(iter(counts.values()))}
    return counts, per_cause


def test_headline_is_each_rows_protocol_applied_to_every_cell(bench, committed):
    """Recompute the judgement from the stored values, without cells.py's judging: every cell of a row under the
    row's one protocol, a miss explained only by a locating cause; the stored counts per table, the misses per cause,
    results.md and both READMEs print the same numbers."""
    counts, per_cause = recomputed_counts(bench, committed)
    summary = {(s["paper"], s["table"]): s for s in committed["summary"]}
    assert set(counts) == set(summary)
    for key, count in counts.items():
        assert {k: summary[key][k] for k in count} == count, key
    total = summary["all", ""]
    assert {m["cause"]: m["cells"] for m in committed["misses"]} == per_cause
    assert total["explained"] == sum(m["cells"] for m in committed["misses"] if m["status"] == "explained")
    assert committed["headline"] == bench.cells.headline(committed["summary"])
    results_md = (BENCH / "results.md").read_text(encoding="utf-8")
    assert committed["headline"] in results_md
    assert (BENCH / "results.md").read_text(encoding="utf-8") == bench.cells.to_markdown(committed["cells"],
                                                                                          committed["declared"])
    assert committed["headline"] in (BENCH / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    root = (BENCH.parent.parent / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    assert (f"{total['reproduced']} of the {total['covered']} covered cells ({share(total)}) are reproduced, "
            f"{total['slip']} are paper slips, {total['explained']} explained misses and {total['unexplained']} "
            "unexplained") in root
    table = readme_headline()
    assert set(table) == set(counts)
    for key, count in counts.items():
        row = table[key]
        assert (row["covered"], row["reproduced"], row["slip"], row["explained miss"], row["unexplained"]) == (
            count["cells"] - count["uncovered"], count["reproduced"], count["slip"], count["explained"],
            count["unexplained"]), key
        assert row["of them under a declared switch"] == summary[key]["under_switch"], key
        assert row["covered"] + row["not covered"] == row["model-free cells"] >= count["cells"], key
    assert table["all", ""]["not covered"] == sum(n for reason, n in readme_compact("not covered, by reason").items()
                                                 if reason != "**all**") == readme_compact("not covered, by reason")[
        "**all**"]
    explained = readme_compact("explained misses, by cause")
    assert explained.pop("**all**") == total["explained"] == sum(explained.values())
    assert explained == {f"`{key}`": n for key, n in per_cause.items()
                         if isinstance(bench.switches.CAUSES[key].location, bench.switches.Located)}


def share(total: dict) -> str:
    return f"{100 * total['reproduced'] / total['covered']:.1f} %"


def readme_headline() -> dict[tuple[str, str], dict[str, int]]:
    """The README's "Counts" table: each column's number per (paper, table), its **all** line as ("all", "")."""
    text = (BENCH / "README.md").read_text(encoding="utf-8").split("## Counts", 1)[1]
    block = next(b for b in text.split("\n\n") if b.startswith("| paper"))
    header = [c.strip() for c in block.splitlines()[0].strip("|").split("|")]
    out = {}
    for line in block.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        key = ("all", "") if cells[0] == "**all**" else (cells[0], cells[1])
        out[key] = {name: int(cell) for name, cell in zip(header[2:], cells[2:])}
    return out


def readme_compact(title: str) -> dict[str, int]:
    """A two-column table of the README's "Counts" section whose header starts with `title`: its first column's
    names and second column's numbers (the leading number where the cell says more)."""
    text = (BENCH / "README.md").read_text(encoding="utf-8").split("## Counts", 1)[1].split("\n## ", 1)[0]
    block = next(b for b in text.split("\n\n") if b.startswith(f"| {title} |"))
    return {line.strip("|").split("|")[0].strip(): int(line.strip("|").split("|")[1].split()[0])
            for line in block.splitlines()[2:]}


def test_readme_coverage_table_agrees_with_the_stored_counts(committed):
    """benchmarks/meta_eval/README.md, "Coverage": per paper and table, covered and reproduced as stored, and the
    printed model-free cells at least the covered ones."""
    summary = {(s["paper"], s["table"]): s for s in committed["summary"]}
    coverage = readme_coverage()
    for key, (printed, covered, reproduced) in coverage.items():
        assert (covered, reproduced) == (summary[key]["covered"], summary[key]["reproduced"]), key
        assert printed >= covered
    assert set(coverage) == set(summary)


def test_readme_protocol_table_agrees_with_the_stored_counts(committed):
    """benchmarks/meta_eval/README.md's table per declared protocol prints results.json's `protocols`."""
    text = (BENCH / "README.md").read_text(encoding="utf-8")
    block = next(b for b in text.split("\n\n") if b.startswith("| protocol | rows |"))
    header = [c.strip() for c in block.splitlines()[0].strip("|").split("|")]
    columns = {"explained miss": "explained", "not covered": "uncovered"}
    printed = [dict(zip(header, [c.strip() for c in line.strip("|").split("|")])) for line in block.splitlines()[2:]]
    assert [p["protocol"] for p in printed] == [f"`{s['protocol']}`" for s in committed["protocols"]]
    for line, stored in zip(printed, committed["protocols"]):
        assert {k: int(v) for k, v in line.items() if k != "protocol"} == {
            k: stored[columns.get(k, k)] for k in header[1:]}, line


def test_every_missed_cell_has_one_cause_and_its_closest_protocol(bench, committed):
    """results.json's `misses` are today's grouping of the committed cells: every missed cell (explained or
    unexplained) in exactly one `CAUSES` group, with its status and the computed protocol nearest the printed value,
    never farther than the declared one; results.md and the README print the same cause table."""
    misses = bench.cells.misses_by_cause(committed["cells"])
    assert committed["misses"] == json.loads(json.dumps(misses))
    missed = [c for c in committed["cells"] if c["status"] in ("explained", "unexplained")]
    total = committed["summary"][-1]
    assert sum(m["cells"] for m in misses) == len(missed) == total["explained"] + total["unexplained"]
    members = [c for m in misses for c in m["members"]]
    assert len(members) == len(missed)
    for m in misses:
        assert {c["status"] for c in m["members"]} == {m["status"]}, m["cause"]
    for member in members:
        near = member["closest"]
        if near["difference"] is not None:
            assert near["difference"] <= abs(float(member["value"]) - float(member["published"])) + 1e-12, member
    table = "\n".join(bench.cells.cause_table(misses))
    assert table in (BENCH / "README.md").read_text(encoding="utf-8")
    assert table in (BENCH / "results.md").read_text(encoding="utf-8")
    cell = dict(missed[0], tried_key="no-such-entry")
    with pytest.raises(ValueError, match="0 causes in CAUSES"):
        bench.cells.miss_cause(cell)


def test_every_explained_miss_has_a_located_cause_and_every_cause_covers_a_cell(bench, committed):
    """An explained miss's cause says where the difference lies and by what evidence; a cause that does not locate
    it says why not and leaves its cells unexplained; every cause covers at least one committed cell, and each
    cell's stored cause is its cause today."""
    causes = bench.switches.CAUSES
    for key, cause in causes.items():
        if isinstance(cause.location, bench.switches.Located):
            assert cause.location.where.strip() and len(cause.location.evidence) > 80, key
        else:
            assert isinstance(cause.location, bench.switches.NotLocated) and len(cause.location.why) > 80, key
        assert cause.explains == isinstance(cause.location, bench.switches.Located)
    covered = {c["cause"] for c in committed["cells"] if c["status"] in ("explained", "unexplained")}
    assert covered == set(causes)
    for cell in committed["cells"]:
        if cell["status"] in ("explained", "unexplained"):
            assert cell["cause"] == bench.cells.miss_cause(cell), cell
            assert causes[cell["cause"]].explains == (cell["status"] == "explained"), cell
        else:
            assert cell["cause"] == "", cell
    assert any(causes[k].explains for k in covered) and not all(causes[k].explains for k in covered)


def test_unique_computations_count_a_computation_printed_twice_once(bench, committed):
    """A computation printed in two tables counts once, reproduced only when every copy is; results.json and the
    README carry today's count."""
    cell = {"config": "m2() gjg15 official all default", "protocol": "base", "stat": "r", "human": "ew_nusnlp",
            "row": "M2", "column": "EW", "status": "reproduced"}
    twice = [cell, dict(cell, table="other"), dict(cell, stat="ρ", status="unexplained"),
             dict(cell, human="", row="AMU", column="rank"), dict(cell, status="uncovered", config="x")]
    assert bench.cells.unique_computations(twice) == {"covered": 3, "reproduced": 2, "slip": 0, "explained": 0,
                                                      "unexplained": 1, "cells": 4}
    assert bench.cells.unique_computations(twice[:2] + [dict(cell, status="slip")]) == {
        "covered": 1, "reproduced": 0, "slip": 1, "explained": 0, "unexplained": 0, "cells": 3}
    copies = [dict(cell, status="explained"), dict(cell, status="slip"), dict(cell, stat="ρ", status="explained"),
              dict(cell, stat="ρ", status="unexplained")]
    assert bench.cells.unique_computations(copies) == {"covered": 2, "reproduced": 0, "slip": 0, "explained": 1,
                                                       "unexplained": 1, "cells": 4}
    unique = bench.cells.unique_computations(committed["cells"])
    assert committed["unique_computations"] == unique
    assert unique["covered"] == sum(unique[s] for s in ("reproduced", "slip", "explained", "unexplained"))
    table = "\n".join(bench.cells.unique_table(unique))
    assert table in (BENCH / "README.md").read_text(encoding="utf-8")
    assert table in (BENCH / "results.md").read_text(encoding="utf-8")
    explained = "\n".join(bench.cells.explained_by_cause(committed["misses"]))
    assert explained in (BENCH / "README.md").read_text(encoding="utf-8")
    assert explained in (BENCH / "results.md").read_text(encoding="utf-8")


#: The commit from which on every row's protocol must be committed before its scores (README, "Protocol before
#: scores"); the rows scored until then are counted in the README.
RULE_FROM = "79217c1cf9e68aefd5eda3d1bdfc65a077d54c68"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def test_protocols_are_committed_before_their_scores(bench):
    """The git history of published/*.json and results.json: every row and listing scored after RULE_FROM was
    declared (today's protocol) in an earlier commit; the README counts the rows before the rule."""
    repo = BENCH.parent.parent
    if not (repo / ".git").exists():
        pytest.skip("not a git checkout: the rule reads the repository's history")
    assert _git(repo, "rev-parse", "--is-shallow-repository").strip() == "false", \
        "the protocol-order rule reads the whole history: clone without --depth"
    order = bench.history.protocol_order(repo)
    assert len(order) == len(bench.published.rows()) + len(bench.published.listings())
    index = {c: k for k, c in enumerate(_git(repo, "rev-list", "--first-parent", "--reverse", "HEAD").split())}
    late = [o for o in order if o["scored"] is not None and index[o["scored"]] > index[RULE_FROM]]
    assert all(o["before"] for o in late), [o["identity"] for o in late if not o["before"]]
    early = [o for o in order if not o["before"]]
    readme = (BENCH / "README.md").read_text(encoding="utf-8")
    assert f"{len(early)} of the {len(order)} rows and listings were\ndeclared with or after their scores" in readme


def test_protocol_order_sees_a_row_declared_with_its_scores(bench, tmp_path):
    """history.protocol_order on a small repository: a row declared in one commit and scored in the next keeps the
    rule; a row declared and scored in one commit, or scored first, breaks it."""
    folder = tmp_path / "benchmarks" / "meta_eval"
    (folder / "published").mkdir(parents=True)
    _git(tmp_path, "init", "-q")
    protocol = {"metric": "m2", "dataset": "gjg15", "references": "official", "system_set": "all",
                "aggregation": "default", "human": "ew_nusnlp", "level": "system", "exclude_unchanged": False,
                "options": {}}

    def commit(rows: list[str], scored: dict[str, float | None]) -> None:
        entries = [{"row": name, "protocol": {**protocol, "human": name}} for name in rows]
        table = {"paper": "P", "table": "T", "kind": "row", "entries": entries,
                 "declared": [{"rows": rows, "protocol": "base", "evidence": "e"}]}
        (folder / "published" / "01.json").write_text(json.dumps(table), encoding="utf-8")
        results = {"rows": [{"row": {"paper": "P", "table": "T", **protocol, "human": name}, "ours": value,
                             "switches": {}} for name, value in scored.items()]}
        (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
        _git(tmp_path, "add", "-A")
        _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")

    commit(["a", "b"], {"a": None, "b": 0.5, "c": 0.1})  # b is declared and scored at once; c is not declared yet
    commit(["a", "b", "c"], {"a": 0.4, "b": 0.5, "c": 0.1})
    order = {json.loads(o["identity"])[2]["human"]: o["before"] for o in bench.history.protocol_order(tmp_path)}
    assert order == {"a": True, "b": False, "c": False}


def test_every_committed_cell_has_one_status_under_its_rows_protocol(bench, committed):
    for cell in committed["cells"]:
        assert cell["status"] in bench.cells.STATUSES
        if cell["status"] == "reproduced":
            assert bench.cells.cell_equal(cell["published"], cell["value"]), cell
        elif cell["status"] == "slip":
            assert cell["slip"]["shown"] and not bench.cells.cell_equal(cell["published"], cell["value"]), cell
        elif cell["status"] in ("explained", "unexplained"):
            prefix = "explained miss (cause " if cell["status"] == "explained" else "unexplained: "
            assert cell["note"].startswith(prefix), cell
            assert cell["value"] is None or not bench.cells.cell_equal(cell["published"], cell["value"]), cell
        assert cell["protocol"] not in cell["exploration"]


def test_cells_rebuild_from_committed_rows(bench, committed):
    assert bench.cells.all_cells(committed) == committed["cells"]


def test_published_files_hold_the_cells_the_readme_counts(bench, committed):
    """The README's "Counts" table counts every model-free printed cell: those of published/*.json (covered, or
    entered without data) and the ones left out (not covered); its columns add up line by line and down to **all**,
    and its printed cells are the "Coverage" table's."""
    counts: dict[tuple[str, str], int] = {}
    for row in bench.published.rows():
        counts[row.paper, row.table] = counts.get((row.paper, row.table), 0) + sum(p is not None for p in row.published)
    for item in bench.published.listings():
        counts[item.paper, item.table] = counts.get((item.paper, item.table), 0) + len(item.published)
    counts["all", ""] = sum(counts.values())
    table = readme_headline()
    summary = {(s["paper"], s["table"]): s for s in committed["summary"]}
    assert set(counts) == set(table)
    for key, row in table.items():
        assert counts[key] - summary[key]["uncovered"] == row["covered"], key
        assert row["covered"] == row["reproduced"] + row["slip"] + row["explained miss"] + row["unexplained"], key
        assert row["model-free cells"] == readme_coverage()[key][0], key
    for column in table["all", ""]:
        assert table["all", ""][column] == sum(row[column] for key, row in table.items() if key != ("all", ""))


def readme_coverage() -> dict[tuple[str, str], tuple[int, int, int]]:
    """(model-free cells printed, covered, reproduced) per (paper, table) of the README's "Coverage" table."""
    section = (BENCH / "README.md").read_text(encoding="utf-8").split("## Coverage", 1)[1]
    text = next(block for block in section.split("\n\n") if block.startswith("| paper"))
    out = {}
    for line in text.splitlines()[2:]:
        paper, table, printed, covered, reproduced = [c.strip() for c in line.strip("|").split("|")][:5]
        out[("all", "") if paper == "**all**" else (paper, table)] = (int(printed), int(covered), int(reproduced))
    return out


def test_published_files_are_well_formed(bench):
    files = sorted((BENCH / "published").glob("*.json"))
    assert files and [f.name[:3] for f in files] == [f"{k:02d}-" for k in range(1, len(files) + 1)]
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert set(data) == {"paper", "table", "kind", "about", "declared", "slips", "entries"}, path.name
        assert data["kind"] in ("row", "listing") and data["entries"] and data["about"], path.name
    for row in bench.published.rows():
        assert row.level in ("system", "sentence") and any(p is not None for p in row.published), row
    for item in bench.published.listings():
        assert len(item.columns) == len(item.stats) == len(item.published) > 0, item
        assert all(isinstance(p, str) for p in item.published), item


def write_table(folder: Path, kind: str, entry: dict) -> None:
    folder.mkdir(exist_ok=True)
    data = {"paper": "P", "table": "T", "kind": kind, "about": "", "entries": [entry], "slips": [],
            "declared": [{"rows": [entry["row"]], "protocol": "base", "evidence": "the paper"}]}
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


def whole_table_part(item) -> str:
    """The part of the whole-table recomputation a published row or listing belongs to. Rows that share a data set,
    a metric family and (for CLEME) a reference set share configurations and the edit extraction underneath, so
    they stay in one part; the parts run on any pytest worker, scoring into one cache shared by the run."""
    if not hasattr(item, "dataset"):
        return "listings-table12" if item.table == "Table 12" else "listings"
    if item.dataset in ("seeda", "gmeg"):
        if item.paper.startswith("CLEME2.0"):
            return "seeda-cleme2-table2"
        return "seeda-gmeg-ngrams" if item.metric in ("gleu", "green") else "seeda-gmeg-edits"
    family = {"cleme2": "cleme", "sentm2": "m2", "senterrant": "errant", "sentgleu": "gleu"}.get(item.metric,
                                                                                              item.metric)
    if family == "cleme":
        return f"gjg15-cleme-{item.references}"
    if family == "m2":
        return "gjg15-m2-minimal" if "minimal" in (item.references or "") else "gjg15-m2"
    return f"gjg15-{family}"


#: The parts, costliest first (measured: `benchmarks/test_time.md`), so that the cheap ones fill in at the end.
WHOLE_TABLE_PARTS = ("gjg15-m2", "gjg15-m2-minimal", "gjg15-errant", "seeda-gmeg-edits", "gjg15-cleme-official-pt-m2",
                     "gjg15-cleme-e-minimal", "gjg15-cleme-ne-minimal", "gjg15-cleme-e-fluency", "gjg15-cleme-ne-fluency",
                     "seeda-cleme2-table2", "listings-table12", "listings", "seeda-gmeg-ngrams", "gjg15-gleu")


@pytest.fixture(scope="session")
def meta_run(bench, run_dir, shared_data):
    """One `Evaluator` per pytest worker over one score cache shared by every worker of the run (empty when the run
    starts: the recomputation is from scratch, and each configuration is scored once per run, by whichever test
    needs it first; the others wait for it and read it). `GECSCORE_CACHE` (where the ERRANT 2.3.3 environment and
    its M2 files go) is set to the run's folder by each test that uses this."""
    from gecscore.meta_eval import ScoreCache

    return SimpleNamespace(evaluator=bench.evaluator.Evaluator(str(shared_data), ScoreCache(run_dir / "meta_eval")),
                           cache_dir=run_dir / "meta_eval", gecscore_cache=run_dir / "gecscore-cache")


def cell_key(cell: dict) -> tuple:
    return (cell["paper"], cell["table"], cell["row"], cell["column"], cell["stat"])


def part_items(bench, part: str) -> tuple[list, list]:
    """The published rows and listings of one part."""
    return ([r for r in bench.published.rows() if whole_table_part(r) == part],
            [item for item in bench.published.listings() if whole_table_part(item) == part])


def printed_cell_keys(bench, rows, listings) -> set[tuple]:
    """The keys of the printed cells of these rows and listings (judged with no values: only the keys are read)."""
    payload = {"rows": [{"row": r, "ours": None, "switches": {}} for r in rows],
               "listings": [{"listing": bench.published.listing_to_dict(item), "ours": None, "switches": {}}
                            for item in listings]}
    return {cell_key(c) for c in bench.cells.all_cells(payload)}


def test_the_whole_table_parts_hold_every_committed_cell_once(bench, committed):
    """The parts below recompute every published row and listing, each in one part: their printed cells are the
    committed cells, each in exactly one part."""
    items = [*bench.published.rows(), *bench.published.listings()]
    assert {whole_table_part(item) for item in items} == set(WHOLE_TABLE_PARTS)
    per_part = [printed_cell_keys(bench, *part_items(bench, part)) for part in WHOLE_TABLE_PARTS]
    committed_keys = [cell_key(c) for c in committed["cells"]]
    assert len(committed_keys) == len(set(committed_keys)) == sum(len(keys) for keys in per_part)
    assert set().union(*per_part) == set(committed_keys)


@pytest.mark.slow
@pytest.mark.spread
@pytest.mark.parametrize("part", WHOLE_TABLE_PARTS)
def test_the_whole_table_recomputed_from_scratch_keeps_every_tables_count(bench, committed, meta_run, monkeypatch,
                                                                         part):
    """The run.py computation from an empty cache (README "Commands and time"), in parts that run on any worker:
    over this part's cells no table's count of cells reproduced under the declared protocols drops below the
    stored results.json's, and the same cells are covered. The parts together are every cell (test above), so no
    table's count drops; stricter than one comparison per table, as a loss in one part cannot hide behind a gain in
    another. `test_run_py_writes_its_files_from_the_shared_cache` runs run.py's own command line."""
    from gecscore.meta_eval import sharing_work

    monkeypatch.setenv("GECSCORE_CACHE", str(meta_run.gecscore_cache))
    rows, listings = part_items(bench, part)
    ev = meta_run.evaluator
    with sharing_work():  # as run.py does
        fresh = bench.cells.all_cells({"rows": bench.run.evaluate_rows(rows, ev),
                                       "listings": bench.run.evaluate_listings(listings, ev)})
    keys = printed_cell_keys(bench, rows, listings)
    assert [cell_key(c) for c in fresh] and {cell_key(c) for c in fresh} == keys
    stored = [c for c in committed["cells"] if cell_key(c) in keys]
    fresh_summary = {(s["paper"], s["table"]): s for s in bench.cells.summarize(fresh)}
    assert list(fresh_summary) == [(s["paper"], s["table"]) for s in bench.cells.summarize(stored)]
    for s in bench.cells.summarize(stored):
        assert fresh_summary[s["paper"], s["table"]]["reproduced"] >= s["reproduced"], (part, s)
        assert fresh_summary[s["paper"], s["table"]]["covered"] == s["covered"], (part, s)


@pytest.mark.slow
@pytest.mark.spread
def test_run_py_writes_its_files_from_the_shared_cache(bench, committed, shared_data, meta_run, monkeypatch,
                                                       tmp_path):
    """run.py's command line on one table (PT-M2 Table 6) over the run's shared cache: it writes results.json and
    results.md with that table's stored counts (the whole-table parts above score every table)."""
    monkeypatch.setenv("GECSCORE_CACHE", str(meta_run.gecscore_cache))
    out = tmp_path / "out"
    assert bench.run.main(["--data", str(shared_data), "--out", str(out), "--cache-dir", str(meta_run.cache_dir),
                           "--only", "PT-M2 (EMNLP 2022) Table 6"]) == 0
    fresh = json.loads((out / "results.json").read_text(encoding="utf-8"))
    stored = {(s["paper"], s["table"]): s for s in committed["summary"]}
    assert [(s["paper"], s["table"]) for s in fresh["summary"]] == [("PT-M2 (EMNLP 2022)", "Table 6"), ("all", "")]
    table = fresh["summary"][0]
    assert table["reproduced"] >= stored["PT-M2 (EMNLP 2022)", "Table 6"]["reproduced"], table
    assert table["covered"] == stored["PT-M2 (EMNLP 2022)", "Table 6"]["covered"], table
    assert "Table 6" in (out / "results.md").read_text(encoding="utf-8")


def only_a_switch_gives(cell: dict) -> bool:
    """The base misses the cell and some switch computed on it (declared or explored) gives the printed value."""
    declared_hit = cell["status"] == "reproduced" and cell["protocol"] != "base" and cell["applies"]
    return not cell["equal"] and (declared_hit or bool(cell["explored_equal"]))


@pytest.mark.slow
@pytest.mark.spread
def test_switches_reproduce_their_cells_from_scratch(bench, meta_run, monkeypatch):
    """Recompute the rows whose cells a switch reproduces (CLEME runs: minutes) and check the switch's cells. The
    scores come from the run's shared cache, which starts empty: whichever of this test and the whole-table parts
    needs a configuration first scores it."""
    monkeypatch.setenv("GECSCORE_CACHE", str(meta_run.gecscore_cache))
    ev = meta_run.evaluator
    # `errant-2.3.3` needs its own environment: test_errant_2_3_3_switch_from_scratch covers it.
    chosen = [replace(r, switches=tuple(s for s in r.switches if s != "errant-2.3.3")) for r in bench.published.rows()
              if r.dataset == "gjg15" and r.metric in ("cleme", "errant")]
    chosen = [r for r in chosen if r.switches]
    cells = bench.cells.cells_from_rows(bench.run.evaluate_rows(chosen, ev))
    assert sum(only_a_switch_gives(c) for c in cells) >= 10


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
@pytest.mark.spread
def test_errant_2_3_3_switch_from_scratch(bench, legacy, shared_data, meta_run, monkeypatch):
    """The pinned ERRANT 2.3.3 environment gives CLEME's CoNLL-2014 reference edit count, and its switches
    reproduce published SN-8GEC, CoNLL-2014 and SEEDA ERRANT / SentERRANT cells. The environment and the M2 files
    are built once per run in the run's shared folder (empty when the run starts), for this test and the
    whole-table parts alike."""
    from gecscore.common.m2io import read_m2
    from gecscore.meta_eval.data import conll_references, read_conll_m2

    monkeypatch.setenv("GECSCORE_CACHE", str(meta_run.gecscore_cache))  # the environment is built there
    gold = read_conll_m2(shared_data)
    made = read_m2(legacy.extract_m2([b.source for b in gold], conll_references(shared_data, "official-pt-m2",
                                                                               gold=gold),
                                     meta_run.cache_dir / "legacy-errant"))
    shipped = read_m2(shared_data / "CoNLL-2014" / "CLEME" / "demo" / "examples" / "conll14.errant")
    assert sum(not e.is_noop for b in made for e in b.edits) == sum(not e.is_noop for b in shipped for e in b.edits)
    edits = bench.external.m2_reference_edits
    same = sum(edits(a) == edits(b) for a, b in zip(made, shipped))
    assert same >= 0.99 * len(shipped)

    ev = meta_run.evaluator
    legacy_switches = ("errant-2.3.3", "errant-2.3.3+refs=official-pt-m2")
    chosen = [replace(r, switches=tuple(s for s in r.switches if s in legacy_switches)) for r in bench.published.rows()
              if set(r.switches) & set(legacy_switches) and r.metric in ("errant", "senterrant")]
    cells = bench.cells.cells_from_rows(bench.run.evaluate_rows(chosen, ev))
    assert sum(only_a_switch_gives(c) for c in cells) >= 5


@pytest.mark.slow
@pytest.mark.spread
def test_errant_2_3_3_driver_writes_what_errant_parallel_writes(legacy, shared_data, meta_run, monkeypatch, tmp_path):
    """`extract_m2`'s driver (ERRANT loaded once, each text parsed once) writes ERRANT 2.3.3's own `errant_parallel`
    output byte for byte: three jobs in one driver on 300 CoNLL-2014 sentences (both references; the second alone,
    every parse already made; the sources themselves, all noop) against `errant_parallel` run on each."""
    from gecscore.meta_eval.data import conll_references, read_conll_m2

    monkeypatch.setenv("GECSCORE_CACHE", str(meta_run.gecscore_cache))  # the run's environment, built once
    gold = read_conll_m2(shared_data)[:300]
    sources = [b.source for b in gold]
    references = [refs[:300] for refs in conll_references(shared_data, "official", gold=read_conll_m2(shared_data))]
    root = legacy.ensure_env()
    for k, corrections in enumerate([references, references[1:], [sources]]):
        made = legacy.extract_m2(sources, corrections, tmp_path / "driver")
        paths = [tmp_path / f"orig{k}.txt"] + [tmp_path / f"cor{k}_{j}.txt" for j in range(len(corrections))]
        for path, lines in zip(paths, [sources, *corrections]):
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        legacy._run([str(root / "bin" / "errant_parallel"), "-orig", str(paths[0]), "-cor", *map(str, paths[1:]),
                     "-out", str(tmp_path / f"parallel{k}.m2")], "errant_parallel")
        assert made.read_bytes() == (tmp_path / f"parallel{k}.m2").read_bytes(), k
    assert len(set(legacy._DRIVERS.values())) == 1


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
@pytest.mark.spread
def test_seeda_and_table5_switches_reproduce_their_cells_from_scratch(bench, meta_run, monkeypatch):
    """CLEME2.0 Table 2 (SEEDA) M² and CLEME rows with `seeda-lm-critic=pie`, and Table 5 with the one-hot α
    ablation, recomputed from the run's shared cache (empty when the run starts): every cell these switches claim
    equals the printed value."""
    monkeypatch.setenv("GECSCORE_CACHE", str(meta_run.gecscore_cache))
    ev = meta_run.evaluator
    rows = [replace(r, switches=(bench.switches.SEEDA_LM_CRITIC,)) for r in bench.published.rows()
            if r.table == "Table 2" and r.paper.startswith("CLEME2.0") and (r.label or r.metric == "m2")]
    cells = bench.cells.cells_from_rows(bench.run.evaluate_rows(rows, ev))
    assert sum(c["status"] == "reproduced" for c in cells) == 36
    listings = [replace(item, switches=("alpha=one-hot+cleme-errant-m2",)) for item in bench.published.listings()
                if item.table == "Table 5"]
    cells = bench.cells.cells_from_listings(bench.run.evaluate_listings(listings, ev))
    assert sum(c["status"] == "reproduced" for c in cells) == 39
