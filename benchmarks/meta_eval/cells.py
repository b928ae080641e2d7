"""Cell judging and the results table: one entry per printed cell (equal, switch or unexplained), the counts, and
results.md.

A cell is equal at 3 decimals (correlations) or at the printed precision (listing cells); an unequal cell takes the
first switch whose value equals the published one, else it is unexplained with every value tried.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Sequence

from published import listing_from_dict, row_from_dict, run_name
from switches import SWITCHES, TRIED


def same_3dp(a: float | None, b: float | None) -> bool:
    """Equal when both are printed with 3 decimals."""
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return False
    return round(a, 3) == round(b, 3)


def printed_equal(printed: str, value: str | float | None) -> bool:
    """Equal to the printed text: the same name, or the same number at the printed number of decimals."""
    if value is None or isinstance(value, str):
        return printed == value
    if isinstance(value, float) and math.isnan(value):
        return False
    decimals = len(printed.split(".", 1)[1]) if "." in printed else 0
    return abs(round(float(value), decimals) - float(printed)) < 1e-9


def cell_equal(published: str | float | None, value: str | float | None) -> bool:
    """A cell's equality: `printed_equal` for listing cells (printed text), `same_3dp` for correlation cells."""
    return printed_equal(published, value) if isinstance(published, str) else same_3dp(published, value)


def judged_cell(head: dict, published: str | float, value: str | float | None, tried: dict, fmt: Callable,
                tried_key: str, tail: dict, no_base: Sequence[str] = ()) -> dict:
    """One cell's entry: equal (`cell_equal`), else the first switch that reproduces it, else 'unexplained' with
    every switch's value (`fmt`) and what was tried. `head` and `tail` are the cell's identity fields."""
    equal = cell_equal(published, value)
    switch = None if equal else next((name for name, v in tried.items() if cell_equal(published, v)), None)
    parts = [*no_base, *(f"{name} → {fmt(v)}" for name, v in tried.items())]
    if equal:
        status, note, short = "equal", "", ""
    elif switch:
        status, note, short = "switch", switch, switch
    else:
        status = "unexplained"
        note = "unexplained: " + "; ".join(parts + [TRIED.get(tried_key, "")]).strip("; ")
        link = [f"tried: [{tried_key}](#tried-{tried_key})"] if tried_key else []
        short = "unexplained: " + "; ".join(parts + link)
    return {**head, "published": published, "ours": value, "equal": equal, "status": status, "switch": switch,
            "switch_value": tried.get(switch) if switch else None, "note": note, "tried": tried,
            "tried_key": tried_key if status == "unexplained" else "", "short_note": short, **tail}


def cells_from_listings(evaluated: Iterable[dict]) -> list[dict]:
    """One entry per printed listing cell, in the same form as `cells_from_rows`'s."""
    cells = []
    for entry in evaluated:
        item = listing_from_dict(entry["listing"])
        for k, (column, stat, published) in enumerate(zip(item.columns, item.stats, item.published)):
            head = {"paper": item.paper, "table": item.table, "row": item.name, "column": column, "stat": stat}
            tried = {name: (vals[k] if vals else None) for name, vals in entry["switches"].items()}
            cells.append(judged_cell(head, published, entry["ours"][k] if entry["ours"] else None, tried,
                                     lambda v, p=published: _fmt_like(p, v), item.tried,
                                     {"config": item.config, "human": ""}))
    return cells


def all_cells(payload: dict) -> list[dict]:
    """The cells of a results.json payload's rows, then of its listings."""
    return cells_from_rows(payload["rows"]) + cells_from_listings(payload.get("listings", []))


def cells_from_rows(evaluated: Iterable[dict]) -> list[dict]:
    """One entry per published cell: published, ours, equal, and the switch or the 'unexplained' note."""
    cells = []
    for item in evaluated:
        row = row_from_dict(item["row"]) if isinstance(item["row"], dict) else item["row"]
        ours = item["ours"]
        for k, stat in enumerate(row.stats):
            published = row.published[k]
            if published is None:
                continue
            head = {"paper": row.paper, "table": row.table, "row": row.name, "column": row.column, "stat": stat}
            tried = {name: (vals[k] if vals else None) for name, vals in item["switches"].items()}
            cells.append(judged_cell(head, published, ours[k] if ours else None, tried, _fmt, row.tried,
                                     {"config": run_name(row), "human": row.human},
                                     () if ours else ("no base value (data not on disk)",)))
    return cells


def summarize(cells: Sequence[dict]) -> list[dict]:
    """Counts per (paper, table), in cells, then the total."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for cell in cells:
        groups.setdefault((cell["paper"], cell["table"]), []).append(cell)
    out = []
    for (paper, table), items in list(groups.items()) + [(("all", ""), list(cells))]:
        out.append({"paper": paper, "table": table, "cells": len(items),
                    "equal": sum(c["status"] == "equal" for c in items),
                    "switch": sum(c["status"] == "switch" for c in items),
                    "unexplained": sum(c["status"] == "unexplained" for c in items)})
    return out


def switch_summary(cells: Sequence[dict]) -> list[dict]:
    """Per switch: on how many cells it was tried and how many unequal cells it reproduces."""
    out = []
    for name, switch in SWITCHES.items():
        tried = [c for c in cells if name in c["tried"]]
        if not tried:
            continue
        unequal = [c for c in tried if not c["equal"]]
        out.append({"switch": name, "tried_on": len(tried), "unequal_tried_on": len(unequal),
                    "reproduces": sum(c["switch"] == name for c in cells),
                    "equal_also_under_switch": sum(cell_equal(c["published"], c["tried"][name]) for c in tried)})
    return out


def _fmt(value: str | float | None) -> str:
    if isinstance(value, str):
        return value
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"


def _fmt_like(printed: str, value: str | float | None) -> str:
    """`value` with as many decimals as the printed text (a name as it is)."""
    if value is None or isinstance(value, str) or (isinstance(value, float) and math.isnan(value)):
        return _fmt(value)
    decimals = len(printed.split(".", 1)[1]) if "." in printed else 0
    return f"{value:.{decimals}f}"


HEADER = """# Meta-evaluation: the papers' model-free cells, recomputed one by one

Produced by `benchmarks/meta_eval/run.py` (command in `README.md`). One line per **cell**: one printed number (system
level: Pearson r or Spearman ρ; sentence level: accuracy or Kendall τ; in PT-M2 Table 6 and CLEME2.0 Tables 5, 11,
12 also a system name at a rank, a rank difference Δ, a count or a score). `published` is the paper's value, `ours`
our value under the row's base protocol (its `config`), `=` marks equality at 3 decimals (listing cells: the same
name, or the same number at the printed number of decimals, e.g. 2 for CLEME2.0 Table 12's "0.45"). An unequal cell is either
**switch** — a named, documented protocol change (section "Switches") whose value equals the published one at 3
decimals — or **unexplained**, with every switch tried on it (and its value) and what else was tried. A switch that
reproduces one cell of a row but not the next is reported per cell, as it is.

Base protocol: GJG15 uses all 13 systems (INPUT included) and Chollampatt & Ng (2018)'s human files (`EW`, `TS` =
`ew_nusnlp`, `ts_nusnlp`); M² on CoNLL-2014 reads the official M2; ERRANT/CLEME on CoNLL-2014 use PT-M2's raw
references (`official-pt-m2`); SN-8GEC references go in as raw text (M² builds its gold M2 with our ERRANT, one
annotator per reference); `*` = unchanged references excluded (CLEME2.0's ♣); SEEDA: 391-sentence subset, Base (12
systems), gec-metrics' references (CLEME rows: PT-M2's, as on CoNLL-2014); CLEME (v1) = 2023 release, length
weighting; CLEME2.0 = unweighted.
CLEME2.0 Tables 5, 11, 12 (CoNLL-2014, unweighted CLEME2.0): per-sentence chunk counts against each reference from
our errant 3.0.2 edits on PT-M2's references, computed once per system and reused for every α
(`gecscore.meta_eval.heuo`); α = the paper's (0.45, 0.35, 0.15, 0.05) corpus / (0.35, 0.25, 0.20, 0.20) sentence
factors. PT-M2 Table 6's Δ: Σ over ranks of |metric rank − EW rank|.
UOT-ERRANT Table 1's CLEME row: CLEME (v1) independent with the sentence scorer and UOT-ERRANT's length weights
(TP α=10 [2.5, 10], FP α=10 [0.25, 1], FN α=2 [0.75, 1.25]; `gecscore.meta_eval.cleme_length`), TrueSkill
aggregation, like its ERRANT row; the paper's Japanese version prints the same ERRANT and CLEME cells (Official,
E-Fluency, NE-Fluency). IMPARA-GED Table 2 (ERRANT only): SEEDA Base, Official, TrueSkill aggregation.
Not covered: BN-10GEC columns other than M² (data not on disk), model-based rows (UOT-ERRANT, PT-M², PT-ERRANT,
CLEME2.0-sim, IMPARA, SOME, ...), GLEU/GoToScorer/Scribendi (not metrics of this library).
"""


def to_markdown(cells: Sequence[dict]) -> str:
    """Counts, then one table per paper and table, then the switches."""
    lines = [HEADER]
    total = summarize(cells)
    lines += ["## Counts (cells)", "", "| paper | table | cells | equal | switch | unexplained |",
              "|---|---|---|---|---|---|"]
    for s in total:
        name = "**all**" if s["paper"] == "all" else s["paper"]
        lines.append(f"| {name} | {s['table']} | {s['cells']} | {s['equal']} | {s['switch']} | {s['unexplained']} |")
    lines.append("")
    groups: dict[tuple[str, str], list[dict]] = {}
    for cell in cells:
        groups.setdefault((cell["paper"], cell["table"]), []).append(cell)
    for (paper, table), items in groups.items():
        lines += [f"## {paper} {table}", "", "| row | column | stat | published | ours | = | switch / note | config |",
                  "|---|---|---|---|---|---|---|---|"]
        for c in items:
            mark = "✓" if c["equal"] else ""
            if c["status"] == "switch":
                value = _fmt_like(c["published"], c["switch_value"]) if isinstance(c["published"], str) else \
                    _fmt(c["switch_value"])
                note = f"**{c['switch']}** → {value}"
            else:
                note = c["short_note"]
            ours = _fmt_like(c["published"], c["ours"]) if isinstance(c["published"], str) else _fmt(c["ours"])
            lines.append(f"| {c['row']} | {c['column']} | {c['stat']} | {_fmt(c['published'])} | {ours} | "
                         f"{mark} | {note} | `{c['config']}` |")
        lines.append("")
    lines += ["## Switches", "", "| switch | tried on cells | of them unequal | reproduces | what it changes |",
              "|---|---|---|---|---|"]
    for s in switch_summary(cells):
        lines.append(f"| `{s['switch']}` | {s['tried_on']} | {s['unequal_tried_on']} | {s['reproduces']} | "
                     f"{SWITCHES[s['switch']].description} |")
    lines.append("")
    used = {c["tried_key"] for c in cells if c["tried_key"]}
    if used:
        lines += ["## What was tried (unexplained cells)", "",
                  "Each unexplained cell links here; its JSON `note` has the same text in full. These entries say what "
                  "was computed and what it gave, not what the cause is. The numbers come from `probes.py` "
                  "(`probes.md`) unless stated.", ""]
        for key in TRIED:
            if key in used:
                n = sum(c["tried_key"] == key for c in cells)
                lines += [f'<a id="tried-{key}"></a>**{key}** ({n} cells): {TRIED[key]}', ""]
    return "\n".join(lines).rstrip() + "\n"

