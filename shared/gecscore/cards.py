"""The option tables of the metric cards and the table of metrics, generated from the registry so that they cannot
drift from the code.

`make generate` (`gecscore.generate`) rewrites the block between `<!-- options:begin -->` and
`<!-- options:end -->` of every `metrics/<name>/README.md`, and the block between `<!-- metrics:begin -->` and
`<!-- metrics:end -->` of the README (the documentation site's metrics page uses the same table); the test suite
checks that the blocks are current.
"""

from __future__ import annotations

import re

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
    note = "<!-- generated from the registry's SPECS by `make generate`; edit the schemas, not this table -->"
    return f"{TABLE_BEGIN}\n{note}\n\n{metrics_table()}\n\n{TABLE_END}"


def options_block(name: str) -> str:
    """The generated block (markers included) for metric `name`."""
    note = f"<!-- generated from {registry.package(name)}.SPEC by `make generate`; edit the schema, not this table -->"
    return f"{BEGIN}\n{note}\n\n{registry.SPECS[name].markdown_table()}\n\n{END}"


def render(card: str, name: str) -> str:
    """`card` with its options block replaced by the current one (a card without the markers is an error)."""
    if not _BLOCK.search(card):
        raise ValueError(f"the card of {name} has no {BEGIN} ... {END} block")
    return _BLOCK.sub(lambda _: options_block(name), card, count=1)


def render_readme(readme: str) -> str:
    """`readme` with its table of metrics replaced by the current one (a README without the markers is an error)."""
    if not _TABLE.search(readme):
        raise ValueError(f"the README has no {TABLE_BEGIN} ... {TABLE_END} block")
    return _TABLE.sub(lambda _: metrics_block(), readme, count=1)
