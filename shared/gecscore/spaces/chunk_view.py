"""CLEME2.0 explanation: the chunk table of a sentence, hypothesis chunks coloured by their label and weight."""

from __future__ import annotations

import html
from typing import Any, Mapping

from gecscore.cleme2 import EMPTY, LABEL_COLOURS, MARKED_COLOUR

LABEL_NAMES = {"TP": "TP (correct edit)", "FP_ne": "FP-necessary (wrong edit where a correction was needed)",
               "FP_un": "FP-unnecessary (edit where none was needed)", "FN": "FN (missed correction)",
               "TN": "TN (unchanged, correctly)"}
_CELL = "border:1px solid #bbb;padding:4px 6px;text-align:center;color:#111;"


def _text(tokens: list[str]) -> str:
    return html.escape(" ".join(tokens)) if tokens else EMPTY


def _td(content: str, colour: str = "#ffffff", head: bool = False) -> str:
    tag = "th" if head else "td"
    return f'<{tag} style="{_CELL}background:{colour}">{content}</{tag}>'


def chunk_html(table: Mapping[str, Any], ref: int) -> str:
    """An HTML table with one column per chunk: source, hypothesis (coloured by its label against reference `ref`),
    each reference (grey where it corrects), then the label and weight of every chunk against `ref`."""
    chunks = table["chunks"]
    ref_ids = table.get("reference_ids", list(range(len(table["references"]))))
    rows = [_td("", head=True) + "".join(_td(f"chunk {c['index']}", head=True) for c in chunks)]
    rows.append(_td("source", head=True) + "".join(_td(_text(c["source"])) for c in chunks))
    rows.append(_td("hypothesis", head=True)
                + "".join(_td(_text(c["hypothesis"]), LABEL_COLOURS[c["labels"][ref]]) for c in chunks))
    for r, rid in enumerate(ref_ids):
        name = f"reference {rid}" + (" (chosen)" if r == ref else "")
        rows.append(_td(name, head=True) + "".join(
            _td(_text(c["references"][r]), MARKED_COLOUR if c["marked"][1 + r] else "#ffffff") for c in chunks))
    rows.append(_td("label", head=True) + "".join(_td(c["labels"][ref], LABEL_COLOURS[c["labels"][ref]])
                                                  for c in chunks))
    rows.append(_td("weight", head=True) + "".join(
        _td("" if c["labels"][ref] == "TN" else f"{c['weights'][ref]:.3g}") for c in chunks))
    legend = " ".join(f'<span style="background:{LABEL_COLOURS[k]};border:1px solid #999;padding:1px 6px;'
                      f'margin-right:6px;color:#111">{html.escape(v)}</span>' for k, v in LABEL_NAMES.items())
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    return (f'<div style="overflow-x:auto"><table style="border-collapse:collapse;font-size:0.9em">{body}</table>'
            f'<p style="margin-top:6px;font-size:0.85em">{legend}</p></div>')
