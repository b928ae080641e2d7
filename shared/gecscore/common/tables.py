"""Tables as text (aligned columns), Markdown, LaTeX (booktabs) and CSV, and results as JSON: the renderers of
`gecscore score` and `gecscore.compare`.

A `Table` holds a header and rows of cells (str, int, float or None); floats print with `digits` decimals except
in CSV, which keeps full precision, and None prints as — (an empty field in CSV). Pure formatting: nothing heavy is imported.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Sequence

FORMATS = ("text", "markdown", "latex", "csv", "json")
Cell = str | int | float | None
_EMPTY = "—"
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}", "Δ": r"$\Delta$", "—": "---"}


@dataclass(frozen=True)
class Table:
    """A header, rows of cells, an optional title and column alignment (`l`/`r` per column; default: `r` for
    columns of numbers only)."""

    header: Sequence[str]
    rows: Sequence[Sequence[Cell]]
    title: str = ""
    align: str = ""

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.header):
                raise ValueError(f"row {list(row)} has {len(row)} cells for {len(self.header)} columns")
        if self.align and len(self.align) != len(self.header):
            raise ValueError(f"`align` {self.align!r} must have one letter per column ({len(self.header)})")

    @property
    def alignment(self) -> str:
        """`align`, or `r` for every column whose cells are all numbers (or empty) and `l` for the others."""
        if self.align:
            return self.align
        return "".join("r" if all(_is_number(row[j]) or row[j] is None for row in self.rows) else "l"
                       for j in range(len(self.header)))


def render(tables: Sequence[Table], fmt: str, *, notes: Sequence[str] = (), digits: int = 4) -> str:
    """`tables` in `fmt` (text, markdown, latex or csv), each under its title, followed by the `notes` (e.g. the
    signature) in text, Markdown and LaTeX; CSV writes the tables one after another, a blank line between."""
    if fmt == "csv":
        return "\n".join(to_csv(table) for table in tables)
    renderer = {"text": to_text, "markdown": to_markdown, "latex": to_latex}.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown table format {fmt!r}; choose one of {[f for f in FORMATS if f != 'json']}")
    parts = [renderer(table, digits) for table in tables]
    if notes:
        parts.append({"text": "\n".join(notes), "markdown": "\n\n".join(_markdown_cell(n) for n in notes),
                      "latex": "{\\footnotesize " + " \\\\\n".join(latex_escape(n) for n in notes) + "}"}[fmt])
    return "\n\n".join(parts)


def to_json(data: Any) -> str:
    """`data` as indented JSON (non-ASCII kept, numpy numbers as floats)."""
    return json.dumps(data, indent=2, ensure_ascii=False, default=float)


def to_text(table: Table, digits: int = 4) -> str:
    """Columns padded to their widths (numbers right-aligned), two spaces apart, under the title."""
    cells = [list(table.header)] + [[_display(c, digits) for c in row] for row in table.rows]
    widths = [max(len(row[j]) for row in cells) for j in range(len(table.header))]
    lines = ["  ".join(cell.rjust(width) if side == "r" else cell.ljust(width)
                       for cell, width, side in zip(row, widths, table.alignment)).rstrip() for row in cells]
    return "\n".join(([table.title] if table.title else []) + lines)


def to_markdown(table: Table, digits: int = 4) -> str:
    """A GitHub Markdown table (`|` and `*` in cells escaped), under the title in bold."""
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(_markdown_cell(cell.strip()).replace("|", r"\|") for cell in cells) + " |"

    rule = "|" + "|".join("---:" if side == "r" else "---" for side in table.alignment) + "|"
    rows = [line([_display(c, digits) for c in row]) for row in table.rows]
    return "\n".join(([f"**{table.title}**", ""] if table.title else []) + [line(table.header), rule] + rows)


def to_latex(table: Table, digits: int = 4) -> str:
    """A booktabs `tabular` (special characters escaped), the title as its first row."""
    width = len(table.header)
    lines = [f"\\begin{{tabular}}{{{table.alignment}}}", r"\toprule"]
    if table.title:
        lines += [f"\\multicolumn{{{width}}}{{l}}{{{latex_escape(table.title)}}} \\\\", r"\midrule"]
    lines.append(" & ".join(latex_escape(h) for h in table.header) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(latex_escape(_display(c, digits).strip()) for c in row) + r" \\" for row in table.rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)


def to_csv(table: Table) -> str:
    """Header and rows as CSV (floats at full precision, None as an empty field); the title is not written."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.header)
    writer.writerows([["" if c is None else c for c in row] for row in table.rows])
    return out.getvalue()


def latex_escape(text: str) -> str:
    """`text` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _markdown_cell(text: str) -> str:
    return text.replace("*", r"\*")


def _is_number(cell: Cell) -> bool:
    return isinstance(cell, (int, float)) and not isinstance(cell, bool)


def _display(cell: Cell, digits: int) -> str:
    if cell is None:
        return _EMPTY
    if isinstance(cell, float):
        return f"{cell:.{digits}f}"
    return str(cell)
