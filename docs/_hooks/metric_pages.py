"""mkdocs hook: one page per metric, `metrics/<name>.md`, built from its card (`metrics/<name>/README.md`, the Hub
card, front matter left out), so the site shows the best documentation of each metric without a second copy of it,
and `metrics/index.md`, the registry's table of metrics. The pages come in the registry's order
(`gecscore.registry.SPECS`) and fill the navigation's "Metrics" section, which mkdocs.yml leaves empty: the
registry is the only list of metrics."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[2]
#: A Hub card's YAML front matter, which the site does not show.
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def metric_names() -> list[str]:
    """The registry's metrics, in its order."""
    from gecscore.registry import SPECS

    return list(SPECS)


def card_page(name: str, root: Path = REPO) -> str:
    """The site's page of metric `name`: its card (`<root>/metrics/<name>/README.md`) without the front matter."""
    card = (root / "metrics" / name / "README.md").read_text(encoding="utf-8")
    return FRONT_MATTER.sub("", card, count=1).lstrip()


def index_page() -> str:
    """The Metrics section's first page: the registry's table, each metric linked to its page."""
    from gecscore.cards import metrics_table

    return ("# Metrics\n\nEvery metric gecscore computes, with the registry names of its presets. Each page is the "
            "metric's card, as on the Hugging Face Hub: what it computes, how to use it, every option, what it "
            "reproduces and its limits.\n\n" + metrics_table(link="[{name}]({name}.md)") + "\n")


def on_config(config: Any) -> Any:
    """Fill the navigation's empty "Metrics" section with the index and one page per metric."""
    from gecscore.registry import SPECS

    for item in config["nav"]:
        if isinstance(item, dict) and "Metrics" in item:
            item["Metrics"] = ["metrics/index.md", *({SPECS[name].title: f"metrics/{name}.md"} for name in SPECS)]
            return config
    raise ValueError("mkdocs.yml's nav has no `Metrics` section for the metric pages")


def on_files(files: Files, config: Any) -> Files:
    """Add the metric pages and their index."""
    files.append(File.generated(config, "metrics/index.md", content=index_page()))
    for name in metric_names():
        files.append(File.generated(config, f"metrics/{name}.md", content=card_page(name)))
    return files
