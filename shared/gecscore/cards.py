"""The option tables of the metric cards, generated from the registry so that they cannot drift from the code.

`python -m gecscore.cards metrics/` rewrites the block between `<!-- options:begin -->` and
`<!-- options:end -->` of every `metrics/<name>/README.md`; the test suite checks that the blocks are current.
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
    for name in registry.SPECS:
        path = args.metrics_dir / name / "README.md"
        text = path.read_text(encoding="utf-8")
        new = render(text, name)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
