"""PT-M2 / PT-ERRANT explanation: system and gold edits with their BERTScore weights, matched or not."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import pandas as pd

MATCHED, UNMATCHED, FOUND, MISSED = "matched", "not matched", "found", "missed"


def _who(record: Mapping[str, Any]) -> str:
    """Gold comes from M2 annotators (m2, sentm2) or from reference sentences (errant, senterrant)."""
    return "annotator" if "annotator" in record else "reference"


def _key(edit: Mapping[str, Any]) -> tuple:
    return edit["start"], edit["end"], edit["corr"]


def _found(candidate: Mapping[str, Any]) -> set[tuple]:
    """Gold edits hit by a matched system edit (same span and correction)."""
    return {_key(e) for e in candidate["system_edits"] if e["matched"]}


def edit_table(record: Mapping[str, Any]) -> pd.DataFrame:
    """Every system and gold edit of every annotator/reference with its weight and whether it matched."""
    who = _who(record)
    rows = []
    for candidate in record["candidates"]:
        name = f"{who} {candidate[who]}" + (" (chosen)" if candidate[who] == record[who] else "")
        found = _found(candidate)
        for e in candidate["system_edits"]:
            rows.append((name, "system", e["start"], e["end"], e["orig"] or "∅", e["corr"] or "∅", e["weight"],
                         MATCHED if e["matched"] else UNMATCHED))
        for e in candidate["gold_edits"]:
            rows.append((name, "gold", e["start"], e["end"], e["orig"] or "∅", e["corr"] or "∅", e["weight"],
                         FOUND if _key(e) in found else MISSED))
    table = pd.DataFrame(rows, columns=[who, "edit of", "start", "end", "source", "correction", "weight", "status"])
    return table.round(4)


def chosen(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The candidate (annotator or reference) chosen for the sentence."""
    who = _who(record)
    return next(c for c in record["candidates"] if c[who] == record[who])


def highlighted(source: str, edits: Sequence[Mapping[str, Any]], labels: Sequence[str]) -> list[tuple[str, str | None]]:
    """The source with each edit shown as `orig → corr (weight)` and labelled (for `gr.HighlightedText`)."""
    tokens = source.split()
    spans = sorted(zip(edits, labels), key=lambda pair: (pair[0]["start"], pair[0]["end"]))
    out: list[tuple[str, str | None]] = []
    pos = 0
    for edit, label in spans:
        if edit["start"] > pos:
            out.append((" ".join(tokens[pos:edit["start"]]), None))
        orig = " ".join(tokens[edit["start"]:edit["end"]]) or "∅"
        out.append((f"{orig} → {edit['corr'] or '∅'} ({edit['weight']:.3f})", label))
        pos = max(pos, edit["end"])  # overlapping gold alternatives are shown one after the other
    if pos < len(tokens):
        out.append((" ".join(tokens[pos:]), None))
    return out


def system_view(source: str, record: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """The system edits against the chosen annotator/reference, matched or not."""
    candidate = chosen(record)
    return highlighted(source, candidate["system_edits"],
                       [MATCHED if e["matched"] else UNMATCHED for e in candidate["system_edits"]])


def gold_view(source: str, record: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """The gold edits of the chosen annotator/reference, found by the system or missed."""
    candidate = chosen(record)
    found = _found(candidate)
    return highlighted(source, candidate["gold_edits"],
                       [FOUND if _key(e) in found else MISSED for e in candidate["gold_edits"]])
