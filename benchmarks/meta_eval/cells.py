"""Cell judging and the results table: every printed cell judged under its row's declared protocol (reproduced,
paper slip, explained miss, unexplained or uncovered), the counts, the exploration of the other switches, and
results.md.

A cell is equal at 3 decimals (correlations) or at the printed precision (listing cells). Its row declares one
protocol before anything is scored (`published/*.json`, "declared"): the base or one switch, and every cell of the
row is judged under it, hits and misses. A miss is an explained miss when its cause (`CAUSES`) locates the
difference, else unexplained; either way it is not reproduced. The other switches tried on the cell are exploration:
shown, never counted.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Callable, Iterable, Sequence

from published import Listing, listing_from_dict, row_from_dict, run_name
from switches import CAUSES, SWITCHES, TRIED, Located


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


STATUSES = ("reproduced", "slip", "explained", "unexplained", "uncovered")
#: The statuses of a covered cell that is neither reproduced nor a paper slip.
MISSES = ("explained", "unexplained")


def declared_value(declared: str, base: str | float | None, switch_values: dict) -> tuple[str | float | None, bool]:
    """The cell's value under its row's declared protocol, and whether the protocol changes the cell: a switch that its
    entry does not list is one that does not touch that entry's data (e.g. the lattice gold on CoNLL-2014, which has a
    gold M2), so the cell keeps its base value."""
    if declared == "base" or declared not in switch_values:
        return base, declared == "base"
    return switch_values[declared], True


def judged_cell(head: dict, published: str | float, base: str | float | None, switch_values: dict, declared: str,
                slip: dict | None, fmt: Callable, tried_key: str, tail: dict, computable: bool = True) -> dict:
    """One cell's entry under its row's declared protocol: reproduced (equal), a paper slip (named in the published
    data and shown by its evidence value, `slip["value"]`), uncovered (no data for the protocol), else a miss: an
    explained miss when its cause (`cause_of`) locates the difference, unexplained otherwise. The other switches'
    values are the cell's `exploration`; a miss lists them, its cause and what else was tried."""
    value, applies = declared_value(declared, base, switch_values)
    exploration = {name: v for name, v in switch_values.items() if name != declared}
    shown = slip is not None and slip_holds(published, slip)
    if value is None and not computable:
        status = "uncovered"
    elif cell_equal(published, value):
        status = "reproduced"
    elif shown:
        status = "slip"
    else:
        status = "unexplained"
    cause = cause_of({**head, **tail, "tried_key": tried_key}) if status == "unexplained" else None
    if cause is not None and CAUSES[cause].explains:
        status = "explained"
    note = short = ""
    if status == "slip":
        note = short = f"{slip['kind']}: {slip['evidence']} ({_slip_source(slip)} → {fmt(slip['value'])})"
    elif status == "uncovered":
        note = short = "not covered: no data on disk for the declared protocol"
    elif status in MISSES:
        parts = [f"{name} → {fmt(v)}" for name, v in exploration.items()]
        if slip is not None:
            parts.insert(0, f"named a paper slip ({slip['kind']}), but {_slip_source(slip)} gives "
                            f"{fmt(slip['value'])}")
        location = CAUSES[cause].location if cause else None
        if isinstance(location, Located):
            lead, after = f"explained miss (cause `{cause}`, located in {location.where}): ", []
        else:
            lead, after = "unexplained: ", [f"cause `{cause}` (not located)"] if cause else []
        note = lead + "; ".join(parts + after + [TRIED.get(tried_key, "")]).strip("; ")
        link = [f"tried: [{tried_key}](#tried-{tried_key})"] if tried_key else []
        short = ("explained miss: " if status == "explained" else "unexplained: ") + "; ".join(
            ([f"cause [{cause}](#cause-{cause})"] if cause else []) + parts + link)
    return {**head, "published": published, "ours": base, "equal": cell_equal(published, base),
            "protocol": declared, "applies": applies, "value": value, "status": status,
            "slip": {**slip, "shown": shown} if slip is not None else None, "exploration": exploration,
            "explored_equal": sorted(name for name, v in exploration.items() if cell_equal(published, v)),
            "note": note, "tried_key": tried_key if status in MISSES else "", "cause": cause or "",
            "short_note": short, **tail}


def slip_holds(published: str | float, slip: dict) -> bool:
    """A slip's evidence: the shown switch's value equals the printed cell (an exchange, a row printed in another
    row's place), or the printed average differs from the mean of its row's printed cells."""
    if slip["kind"] == "average":
        return not cell_equal(published, slip["value"])
    return cell_equal(published, slip["value"])


def _slip_source(slip: dict) -> str:
    return "mean of the row's printed cells" if slip["kind"] == "average" else f"`{slip['shown_by']}`"


def printed_mean(printed: Sequence[str]) -> float:
    """The mean of printed numbers, rounded half up at the printed decimals (how a table's Avg. column is made)."""
    decimals = max(len(p.split(".", 1)[1]) if "." in p else 0 for p in printed)
    mean = sum((Decimal(p) for p in printed), Decimal(0)) / len(printed)
    return float(mean.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def cells_from_listings(evaluated: Iterable[dict]) -> list[dict]:
    """One entry per printed listing cell, in the same form as `cells_from_rows`'s."""
    cells = []
    for entry in evaluated:
        item = listing_from_dict(entry["listing"])
        for k, (column, stat, published) in enumerate(zip(item.columns, item.stats, item.published)):
            head = {"paper": item.paper, "table": item.table, "row": item.name, "column": column, "stat": stat}
            switch_values = {name: (vals[k] if vals else None) for name, vals in entry["switches"].items()}
            slip = _listing_slip(item, entry, column)
            cells.append(judged_cell(head, published, entry["ours"][k] if entry["ours"] else None, switch_values,
                                     item.declared, slip, lambda v, p=published: _fmt_like(p, v), item.tried,
                                     {"config": item.config, "human": ""}))
    return cells


def _listing_slip(item: Listing, entry: dict, column: str) -> dict | None:
    """The slip named on a listing cell, with its evidence value (the shown switch's, or the printed mean)."""
    slip = item.slips.get(column)
    if slip is None:
        return None
    if slip["kind"] == "average":
        others = [p for c, p in zip(item.columns, item.published) if c != column]
        return {**slip, "value": printed_mean(others)}
    values = entry["switches"].get(slip["shown_by"])
    return {**slip, "value": values[item.columns.index(column)] if values else None}


def all_cells(payload: dict) -> list[dict]:
    """The cells of a results.json payload's rows, then of its listings."""
    return cells_from_rows(payload["rows"]) + cells_from_listings(payload.get("listings", []))


def cells_from_rows(evaluated: Iterable[dict]) -> list[dict]:
    """One entry per published cell, judged under its row's declared protocol."""
    cells = []
    for item in evaluated:
        row = row_from_dict(item["row"]) if isinstance(item["row"], dict) else item["row"]
        ours = item["ours"]
        for k, stat in enumerate(row.stats):
            published = row.published[k]
            if published is None:
                continue
            head = {"paper": row.paper, "table": row.table, "row": row.name, "column": row.column, "stat": stat}
            switch_values = {name: (vals[k] if vals else None) for name, vals in item["switches"].items()}
            slip = row.slips.get(stat)
            if slip is not None:
                shown = item["switches"].get(slip["shown_by"])
                slip = {**slip, "value": shown[k] if shown else None}
            cells.append(judged_cell(head, published, ours[k] if ours else None, switch_values, row.declared, slip,
                                     _fmt, row.tried, {"config": run_name(row), "human": row.human},
                                     row.computable))
    return cells


def summarize(cells: Sequence[dict]) -> list[dict]:
    """Counts per (paper, table), in cells, then the total: covered = every cell with data, reproduced split into
    cells whose value is the base's (rows declared base, and entries a declared switch leaves unchanged) and cells
    whose value a declared switch changed."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for cell in cells:
        groups.setdefault((cell["paper"], cell["table"]), []).append(cell)
    out = []
    for (paper, table), items in list(groups.items()) + [(("all", ""), list(cells))]:
        count = {status: sum(c["status"] == status for c in items) for status in STATUSES}
        out.append({"paper": paper, "table": table, "cells": len(items), "covered": len(items) - count["uncovered"],
                    **count,
                    "under_base": sum(c["status"] == "reproduced" and not _switched(c) for c in items),
                    "under_switch": sum(c["status"] == "reproduced" and _switched(c) for c in items)})
    return out


def _switched(cell: dict) -> bool:
    return cell["protocol"] != "base" and cell["applies"]


def declared_rows(payload: dict, cells: Sequence[dict]) -> list[dict]:
    """One entry per paper row: its declared protocol, the evidence, and its cells' counts."""
    out: dict[tuple[str, str, str], dict] = {}
    items = [row_from_dict(i["row"]) for i in payload["rows"]] + \
        [listing_from_dict(i["listing"]) for i in payload.get("listings", [])]
    for item in items:
        out.setdefault((item.paper, item.table, item.name), {
            "paper": item.paper, "table": item.table, "row": item.name, "protocol": item.declared,
            "evidence": item.evidence, "cells": 0, **{status: 0 for status in STATUSES}})
    for cell in cells:
        entry = out[cell["paper"], cell["table"], cell["row"]]
        entry["cells"] += 1
        entry[cell["status"]] += 1
    return list(out.values())


def protocol_summary(rows: Sequence[dict]) -> list[dict]:
    """Per declared protocol (the base, then each switch in `SWITCHES` order): rows, cells, hits and misses."""
    out = []
    for name in ["base", *SWITCHES]:
        mine = [r for r in rows if r["protocol"] == name]
        if mine:
            out.append({"protocol": name, "rows": len(mine), "cells": sum(r["cells"] for r in mine),
                        **{status: sum(r[status] for r in mine) for status in STATUSES},
                        "evidence": list(dict.fromkeys(r["evidence"] for r in mine))})
    return out


def exploration(cells: Sequence[dict]) -> list[dict]:
    """Per switch tried on cells of rows that do not declare it: on how many cells, how many it would make equal, and
    how many of those the declared protocol does not reproduce. Never part of the counts."""
    out = []
    for name in SWITCHES:
        tried = [c for c in cells if name in c["exploration"]]
        if tried:
            equal = [c for c in tried if name in c["explored_equal"]]
            out.append({"switch": name, "tried_on": len(tried), "equal": len(equal),
                        "equal_where_declared_misses": sum(c["status"] != "reproduced" for c in equal)})
    return out


def best_of(cells: Sequence[dict]) -> int:
    """Cells equal under the base or under any switch tried on them: the per-cell best-of count, for comparison
    only (it is how the table was counted before protocols were declared)."""
    return sum(cell_equal(c["published"], c["ours"]) or c["status"] == "reproduced" or bool(c["explored_equal"])
               for c in cells)


def closest_protocol(cell: dict) -> dict:
    """The computed protocol (base, declared or explored) whose value is nearest the printed one, and the
    difference (None for a printed name, where only equality counts)."""
    values = {"base": cell["ours"], **(cell["exploration"] or {}), cell["protocol"]: cell["value"]}
    try:
        printed = float(cell["published"])
    except (TypeError, ValueError):
        name = next((p for p, v in values.items() if cell_equal(cell["published"], v)), cell["protocol"])
        return {"protocol": name, "value": values[name], "difference": None}
    numbers = {p: v for p, v in values.items() if isinstance(v, (int, float)) and not math.isnan(v)}
    if not numbers:
        return {"protocol": cell["protocol"], "value": cell["value"], "difference": None}
    name = min(numbers, key=lambda p: abs(numbers[p] - printed))
    return {"protocol": name, "value": numbers[name], "difference": abs(numbers[name] - printed)}


def _metric_and_data(config: str) -> tuple[str, str]:
    """A configuration's metric and its "dataset references" pair (unchanged-reference exclusion left out; "" when
    the configuration names none)."""
    metric = config.split("(", 1)[0].split(" ", 1)[0]
    words = config.split(") ", 1)[1].split() if ") " in config else []
    return metric, (f"{words[0]} {words[1].removesuffix('-changed')}" if len(words) >= 2 else "")


def _causes_of(cell: dict) -> list[str]:
    """The `CAUSES` entries that cover a missed cell: those naming it in `cells`, else those matching its `TRIED`
    entry (or, with none, its metric) within their `data`."""
    key = (cell["paper"], cell["table"], cell["row"], cell["column"], cell["stat"])
    named = [name for name, cause in CAUSES.items() if key in cause.cells]
    if named:
        return named
    metric, data = _metric_and_data(cell["config"])
    return [name for name, cause in CAUSES.items()
            if (not cause.data or data in cause.data)
            and ((cell["tried_key"] and cell["tried_key"] in cause.tried)
                 or (not cell["tried_key"] and metric in cause.metrics))]


def _no_single_cause(cell: dict, found: Sequence[str]) -> ValueError:
    metric, data = _metric_and_data(cell["config"])
    return ValueError(f"missed cell {cell['paper']} {cell['table']} {cell['row']} {cell['column']} {cell['stat']} "
                      f"has {len(found)} causes in CAUSES (tried {cell['tried_key']!r}, metric {metric!r}, data "
                      f"{data!r}); it needs exactly one")


def cause_of(cell: dict) -> str | None:
    """The `CAUSES` entry of a missed cell, None when no cause covers it (the cell stays unexplained; `miss_cause`
    fails on it); more than one is an error."""
    found = _causes_of(cell)
    if len(found) > 1:
        raise _no_single_cause(cell, found)
    return found[0] if found else None


def miss_cause(cell: dict) -> str:
    """The `CAUSES` entry of a missed cell; every missed cell of the results has exactly one."""
    found = _causes_of(cell)
    if len(found) != 1:
        raise _no_single_cause(cell, found)
    return found[0]


def misses_by_cause(cells: Sequence[dict]) -> list[dict]:
    """Every missed cell (explained or unexplained) with its closest protocol and difference, grouped by cause
    (`CAUSES` order); a group's `status` is its cells' status ("explained" when the cause locates the difference)."""
    groups: dict[str, list[dict]] = {key: [] for key in CAUSES}
    for c in cells:
        if c["status"] in MISSES:
            groups[miss_cause(c)].append({"paper": c["paper"], "table": c["table"], "row": c["row"],
                                          "column": c["column"], "stat": c["stat"], "published": c["published"],
                                          "value": c["value"], "protocol": c["protocol"], "status": c["status"],
                                          "closest": closest_protocol(c)})
    out = []
    for key, members in groups.items():
        if not members:
            continue
        differences = [m["closest"]["difference"] for m in members if m["closest"]["difference"] is not None]
        out.append({"cause": key, "title": CAUSES[key].title,
                    "status": "explained" if CAUSES[key].explains else "unexplained", "cells": len(members),
                    "within_0.001": sum(d <= 0.0015 for d in differences),
                    "largest_difference": max(differences, default=None), "members": members})
    return out


def location_text(key: str) -> str:
    """A cause's location as the tables print it: where and by what evidence, or why it is not located."""
    location = CAUSES[key].location
    if isinstance(location, Located):
        return f"**located** in {location.where}: {location.evidence}"
    return f"**not located**: {location.why}"


def cause_table(misses: Sequence[dict]) -> list[str]:
    """The Markdown table of `misses_by_cause` groups (results.md and the README print it)."""
    lines = ["| cause | cells | status | off by one in the last digit (≤ .0015) | largest difference | evidence | "
             "where the difference lies | what would settle it |", "|---|---|---|---|---|---|---|---|"]
    for m in misses:
        cause = CAUSES[m["cause"]]
        largest = "—" if m["largest_difference"] is None else f"{m['largest_difference']:.3f}"
        lines.append(f'| <a id="cause-{m["cause"]}"></a>**{cause.title}** (`{m["cause"]}`) | {m["cells"]} | '
                     f'{m["status"]} | {m["within_0.001"]} | {largest} | {cause.evidence} | '
                     f'{location_text(m["cause"])} | {cause.needed} |')
    return lines


def explained_by_cause(misses: Sequence[dict]) -> list[str]:
    """The compact Markdown table of explained misses per cause (results.md and the README print it)."""
    lines = ["| explained misses, by cause | cells |", "|---|---|"]
    lines += [f"| `{m['cause']}` | {m['cells']} |" for m in misses if m["status"] == "explained"]
    lines.append(f"| **all** | {sum(m['cells'] for m in misses if m['status'] == 'explained')} |")
    return lines


def computation_key(cell: dict) -> tuple:
    """What a cell's value is computed from: the configuration, the protocol and the statistic (with the human
    score at system level, the column and row of a listing). Two papers printing the same computation share a
    key."""
    where = (cell["human"],) if cell["human"] else (cell["row"], cell["column"])
    return (cell["config"], cell["protocol"], cell["stat"], *where)


def unique_computations(cells: Sequence[dict]) -> dict:
    """Covered cells with repeats counted once (a computation printed in two tables, or twice in one), by status: a
    computation is reproduced when every printed copy is, else it takes the status of its copies that comes last in
    slip, explained, unexplained."""
    order = ("reproduced", "slip", "explained", "unexplained")
    covered: dict[tuple, str] = {}
    for c in cells:
        if c["status"] != "uncovered":
            key = computation_key(c)
            covered[key] = max(covered.get(key, "reproduced"), c["status"], key=order.index)
    return {"covered": len(covered), **{status: sum(s == status for s in covered.values()) for status in order},
            "cells": sum(c["status"] != "uncovered" for c in cells)}


def unique_sentence(unique: dict) -> str:
    """The unique-computation count as results.md and the README print it."""
    return (f"{unique['reproduced']} of the {unique['covered']} unique computations behind the {unique['cells']} "
            f"covered cells are reproduced ({100 * unique['reproduced'] / unique['covered']:.1f} %); "
            f"{unique['slip']} are paper slips, {unique['explained']} explained misses and {unique['unexplained']} "
            f"unexplained.")


def unique_table(unique: dict) -> list[str]:
    """The compact Markdown table of the unique computations by status (results.md and the README print it)."""
    share = 100 * unique["reproduced"] / unique["covered"]
    return ["| unique computations (repeats counted once) | computations |", "|---|---|",
            f"| reproduced | {unique['reproduced']} of {unique['covered']} ({share:.1f} %) |",
            f"| slip | {unique['slip']} |", f"| explained miss | {unique['explained']} |",
            f"| unexplained | {unique['unexplained']} |",
            f"| covered cells behind them | {unique['cells']} |"]


def headline(summary: Sequence[dict]) -> str:
    """The sentence results.md and the README print: reproduced of covered, slips, explained misses, unexplained,
    and the cells of the published data that are not covered."""
    total = next(s for s in summary if s["paper"] == "all")
    share = 100 * total["reproduced"] / total["covered"]
    return (f"{total['reproduced']} of the {total['covered']} covered cells ({share:.1f} %) are reproduced under their "
            f"row's declared protocol ({total['under_base']} under the base, {total['under_switch']} under a "
            f"declared switch); {total['slip']} are paper slips, {total['explained']} explained misses (their cause "
            f"locates the difference), {total['unexplained']} unexplained; {total['uncovered']} cells entered in "
            f"published/*.json have no data on disk (not covered).")


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
12 also a system name at a rank, a rank difference Δ, a count or a score).

**Declared protocols.** Each paper row declares one protocol before it is scored (`published/*.json`, "declared"):
the base, or exactly one switch, with evidence that does not come from the row's printed values (a paper's text, the
toolkit version it names, a data file's history). Every cell of the row is judged under it, hits and misses:
`published` is the paper's value, `value` ours under the row's protocol, `ours` under the base. A cell is
**reproduced** when the two are equal at 3 decimals (listing cells: the same name, or the same number at the printed
number of decimals, e.g. 2 for CLEME2.0 Table 12's "0.45"), a **paper slip** when the published data names it as one
(two exchanged cells, a row printed in another row's place, an average that is not the mean of its row) and the
evidence shows it, **not covered** when the protocol has no data on disk, else a miss. A miss is an **explained
miss** when its cause (section "Misses by cause", `CAUSES` in `switches.py`) locates the difference: evidence other
than the cell's own printed value shows in which input or step the paper's computation differs from ours. Every
other miss is **unexplained**. An explained miss is still a miss, never counted as reproduced. Other switches tried
on a cell are **exploration** (section "Exploration"): their values are shown, never counted.

Base protocol: GJG15 uses all 13 systems (INPUT included) and Chollampatt & Ng (2018)'s human files (`EW`, `TS` =
`ew_nusnlp`, `ts_nusnlp`); M² on CoNLL-2014 reads the official M2; ERRANT/CLEME on CoNLL-2014 use PT-M2's raw
references (`official-pt-m2`); SN-8GEC references go in as raw text (M² builds its gold M2 with our ERRANT, one
annotator per reference); `*` = unchanged references excluded (CLEME2.0's ♣); SEEDA: 391-sentence subset, Base (12
systems), gec-metrics' references (CLEME rows: PT-M2's, as on CoNLL-2014); CLEME (v1) = 2023 release, length
weighting; CLEME2.0 = unweighted; our edits are errant 3.0.2's.
CLEME2.0 Tables 5, 11, 12 (CoNLL-2014, unweighted CLEME2.0): per-sentence chunk counts against each reference,
computed once per system and reused for every α (`gecscore.meta_eval.heuo`); α = the paper's (0.45, 0.35, 0.15,
0.05) corpus / (0.35, 0.25, 0.20, 0.20) sentence factors. PT-M2 Table 6's Δ: Σ over ranks of |metric rank − EW
rank|.
UOT-ERRANT Table 1's CLEME row: CLEME (v1) independent with the sentence scorer and UOT-ERRANT's length weights
(TP α=10 [2.5, 10], FP α=10 [0.25, 1], FN α=2 [0.75, 1.25]; `gecscore.meta_eval.cleme_length`), TrueSkill
aggregation, like its ERRANT row; the paper's Japanese version prints the same ERRANT and CLEME cells (Official,
E-Fluency, NE-Fluency). IMPARA-GED Table 2 (ERRANT only): SEEDA Base, Official, TrueSkill aggregation.
Not covered: BN-10GEC (data not on disk), CLEME2.0 Table 12's CLEME2.0-ind Score row (12 values for 13 systems),
model-based rows (UOT-ERRANT, PT-M², PT-ERRANT, CLEME2.0-sim, IMPARA, SOME, Scribendi, ...); see README.md,
"Coverage".
"""


def _cell_value(c: dict, value: str | float | None) -> str:
    return _fmt_like(c["published"], value) if isinstance(c["published"], str) else _fmt(value)


def to_markdown(cells: Sequence[dict], rows: Sequence[dict]) -> str:
    """Counts, declared protocols, one table per paper and table, slips, exploration, what was tried."""
    summary = summarize(cells)
    misses = misses_by_cause(cells)
    unique = unique_computations(cells)
    lines = [HEADER, "## Counts (cells)", "", headline(summary), "",
             "| paper | table | cells | covered | reproduced | of them under a switch | slip | explained miss | "
             "unexplained | not covered |", "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        name = "**all**" if s["paper"] == "all" else s["paper"]
        lines.append(f"| {name} | {s['table']} | {s['cells']} | {s['covered']} | {s['reproduced']} | "
                     f"{s['under_switch']} | {s['slip']} | {s['explained']} | {s['unexplained']} | "
                     f"{s['uncovered']} |")
    lines += ["", *explained_by_cause(misses), "", *unique_table(unique), "",
              "## Declared protocols", "",
              "Per declared protocol, over all the rows that declare it: every cell of those rows, hits and misses.",
              "", "| protocol | rows | cells | reproduced | slip | explained miss | unexplained | not covered | "
              "evidence |", "|---|---|---|---|---|---|---|---|---|"]
    for s in protocol_summary(rows):
        evidence = " / ".join(s["evidence"])
        lines.append(f"| `{s['protocol']}` | {s['rows']} | {s['cells']} | {s['reproduced']} | {s['slip']} | "
                     f"{s['explained']} | {s['unexplained']} | {s['uncovered']} | {evidence} |")
    lines += ["", "Per row:", "", "| paper | table | row | protocol | cells | reproduced | slip | explained miss | "
              "unexplained |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['paper']} | {r['table']} | {r['row']} | `{r['protocol']}` | {r['cells']} | "
                     f"{r['reproduced']} | {r['slip']} | {r['explained']} | {r['unexplained']} |")
    lines.append("")
    groups: dict[tuple[str, str], list[dict]] = {}
    for cell in cells:
        groups.setdefault((cell["paper"], cell["table"]), []).append(cell)
    for (paper, table), items in groups.items():
        lines += [f"## {paper} {table}", "",
                  "| row | column | stat | published | value | = | protocol | ours (base) | note | config |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for c in items:
            mark = {"reproduced": "✓", "slip": "slip", "uncovered": "—"}.get(c["status"], "")
            protocol = c["protocol"] if c["applies"] or c["protocol"] == "base" else f"{c['protocol']} (unchanged)"
            lines.append(f"| {c['row']} | {c['column']} | {c['stat']} | {_fmt(c['published'])} | "
                         f"{_cell_value(c, c['value'])} | {mark} | `{protocol}` | {_cell_value(c, c['ours'])} | "
                         f"{c['short_note']} | `{c['config']}` |")
        lines.append("")
    slips = [c for c in cells if c["slip"] is not None]
    if slips:
        lines += ["## Paper slips", "", "Named in the published data (`slips`), shown by the evidence value; counted "
                  "neither as reproduced nor as a miss.", "",
                  "| paper | table | row | column | stat | published | kind | evidence | shown by | value | status |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for c in slips:
            s = c["slip"]
            lines.append(f"| {c['paper']} | {c['table']} | {c['row']} | {c['column']} | {c['stat']} | "
                         f"{_fmt(c['published'])} | {s['kind']} | {s['evidence']} | {_slip_source(s)} | "
                         f"{_cell_value(c, s['value'])} | {c['status']} |")
        lines.append("")
    lines += ["## Exploration (not counted)", "",
              "Switches tried on cells of rows that declare another protocol: how many cells they were tried on, how "
              f"many they make equal, and how many of those the row's declared protocol does not reproduce. A per-cell "
              f"best-of (the base or any switch, whichever equals the printed value) would count {best_of(cells)} "
              f"of the {len(cells)} printed cells; it is not a result.", "",
              "| switch | tried on cells | equal there | of them missed by the declared protocol | what it changes |",
              "|---|---|---|---|---|"]
    for s in exploration(cells):
        lines.append(f"| `{s['switch']}` | {s['tried_on']} | {s['equal']} | {s['equal_where_declared_misses']} | "
                     f"{SWITCHES[s['switch']].description} |")
    lines += ["", "## Switches", "", "| switch | what it changes |", "|---|---|"]
    for name, switch in SWITCHES.items():
        lines.append(f"| `{name}` | {switch.description} |")
    lines.append("")
    lines += ["## Unique computations", "",
              f"Some computations are printed more than once (PT-M2 Table 5 and CLEME2.0 Table 1 share their "
              f"CoNLL-2014 columns, the UOT-ERRANT paper's Japanese version repeats its cells, CLEME2.0 Table 10 "
              f"repeats Table 1's CLEME rows). Counted once each (same configuration, protocol, statistic and human "
              f"score or listing cell; reproduced when every printed copy is, else the status of its copies that "
              f"comes last in slip, explained miss, unexplained): {unique_sentence(unique)}", ""]
    if misses:
        lines += ["## Misses by cause", "",
                  "Every missed cell in one group (`CAUSES` in `switches.py`), with the computed protocol nearest "
                  "the printed value (the base, the row's declared protocol or an explored switch) and the "
                  "difference. A cause whose evidence locates the difference (an input or step, shown by evidence "
                  "other than the cells' own printed values) makes its cells explained misses; the others stay "
                  "unexplained. Neither is a reproduction.", "",
                  *cause_table(misses)]
        lines += ["", "| cause | status | paper | table | row | column | stat | published | declared value | closest "
                  "protocol | its value | difference |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for m in misses:
            for c in m["members"]:
                near = c["closest"]
                difference = "—" if near["difference"] is None else f"{near['difference']:.3f}"
                lines.append(f"| `{m['cause']}` | {c['status']} | {c['paper']} | {c['table']} | {c['row']} | "
                             f"{c['column']} | {c['stat']} | {_fmt(c['published'])} | {_cell_value(c, c['value'])} "
                             f"| `{near['protocol']}` | {_cell_value(c, near['value'])} | {difference} |")
        lines.append("")
    used = {c["tried_key"] for c in cells if c["tried_key"]}
    if used:
        lines += ["## What was tried (missed cells)", "",
                  "Each missed cell links here; its JSON `note` has the same text in full. These entries say what "
                  "was computed and what it gave; the cause is in \"Misses by cause\". The numbers come from "
                  "`probes.py` (`probes.md`) unless stated.", ""]
        for key in TRIED:
            if key in used:
                n = sum(c["tried_key"] == key for c in cells)
                lines += [f'<a id="tried-{key}"></a>**{key}** ({n} cells): {TRIED[key]}', ""]
    return "\n".join(lines).rstrip() + "\n"
