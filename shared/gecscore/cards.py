"""The option tables of the metric cards and the table of metrics, generated from the registry so that they cannot
drift from the code.

`python -m gecscore.cards metrics/` rewrites the block between `<!-- options:begin -->` and
`<!-- options:end -->` of every `metrics/<name>/README.md`, and the block between `<!-- metrics:begin -->` and
`<!-- metrics:end -->` of the README beside `metrics/` (the documentation site's metrics page uses the same table);
the test suite checks that the blocks are current.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Sequence

from gecscore import registry

BEGIN, END = "<!-- options:begin -->", "<!-- options:end -->"
_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
TABLE_BEGIN, TABLE_END = "<!-- metrics:begin -->", "<!-- metrics:end -->"
_TABLE = re.compile(re.escape(TABLE_BEGIN) + r".*?" + re.escape(TABLE_END), re.DOTALL)


def metrics_table(link: str = "`metrics/{name}`") -> str:
    """Every registry metric in the registry's order: title, module (`link`, formatted with the metric's name),
    what it measures (`MetricSpec.summary`) and the registry names of its presets."""
    lines = ["| metric | module | what it measures | also as |", "|---|---|---|---|"]
    for name, spec in registry.SPECS.items():
        presets = ", ".join(f"`{p}`" for p, preset in registry.PRESETS.items() if preset.metric == name) or "—"
        lines.append(f"| {spec.title} | {link.format(name=name)} | {spec.summary} | {presets} |")
    return "\n".join(lines)


def metrics_block() -> str:
    """The generated table of metrics for the README (markers included)."""
    note = "<!-- generated from the registry's SPECS by `python -m gecscore.cards`; edit the schemas, not this table -->"
    return f"{TABLE_BEGIN}\n{note}\n\n{metrics_table()}\n\n{TABLE_END}"


def options_block(name: str) -> str:
    """The generated block (markers included) for metric `name`."""
    note = (f"<!-- generated from gecscore.{name}.SPEC by `python -m gecscore.cards`; edit the schema, not this "
            f"table -->")
    return f"{BEGIN}\n{note}\n\n{registry.SPECS[name].markdown_table()}\n\n{END}"


def render(card: str, name: str) -> str:
    """`card` with its options block replaced by the current one (a card without the markers is an error)."""
    if not _BLOCK.search(card):
        raise ValueError(f"the card of {name} has no {BEGIN} ... {END} block")
    return _BLOCK.sub(lambda _: options_block(name), card, count=1)


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the option tables of the cards under a `metrics/` directory."""
    parser = argparse.ArgumentParser(prog="python -m gecscore.cards", description=__doc__)
    parser.add_argument("metrics_dir", type=Path, help="the directory holding <name>/README.md for every metric")
    args = parser.parse_args(argv)
    pages = {args.metrics_dir / name / "README.md": lambda text, name=name: render(text, name)
             for name in registry.SPECS}
    readme = args.metrics_dir.resolve().parent / "README.md"
    if readme.is_file():
        pages[readme] = lambda text: _TABLE.sub(lambda _: metrics_block(), text, count=1)
    for path, rewrite in pages.items():
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
