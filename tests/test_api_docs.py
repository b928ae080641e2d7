"""The API reference: the documentation site builds strictly (any warning fails it) and documents every public name
of `gecscore.__all__`, so a docstring griffe cannot read, a broken link or a new public name left out of
`docs/api/` fails here as it fails `make docs`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import REPO


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `make docs` builds it, written to a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def anchors(site: Path) -> set[str]:
    """The ids of every documented object in the API reference (`gecscore.registry.run`, ...)."""
    return {anchor for page in (site / "api").rglob("*.html")
            for anchor in re.findall(r'id="(gecscore[\w.]*)"', page.read_text(encoding="utf-8"))}


def test_the_site_builds_without_a_warning(site):
    assert (site / "api" / "registry" / "index.html").is_file()


def test_every_public_name_is_documented(site):
    import gecscore

    documented = anchors(site)
    missing = []
    for name in gecscore.__all__:
        if name == "__version__":
            continue
        value = getattr(gecscore, name)
        path = value.__name__ if isinstance(value, ModuleType) else f"{value.__module__}.{value.__qualname__}"
        if path not in documented and f"gecscore.{name}" not in documented:
            missing.append(path)
    assert not missing, f"public names without an entry in docs/api/: {missing}"


def test_an_unknown_name_is_an_attribute_error():
    import gecscore

    with pytest.raises(AttributeError, match="no attribute 'shipped_paths'"):
        gecscore.shipped_paths


def test_the_site_has_a_page_per_metric_built_from_its_card(site):
    """One page per registry metric from its card, and an index of them, in the registry's order (issue 40)."""
    import html

    from gecscore.registry import SPECS

    index = (site / "metrics" / "index.html").read_text(encoding="utf-8")
    for name, spec in SPECS.items():
        page = (site / "metrics" / name / "index.html").read_text(encoding="utf-8")
        assert f"<title>{html.escape(spec.title)} - gecscore</title>" in page, name
        card = (REPO / "metrics" / name / "README.md").read_text(encoding="utf-8")
        assert "app_file:" in card and "app_file:" not in page, f"{name}: the card's front matter is shown"
        assert all(f"<code>{option.name}</code>" in page for option in spec.options), f"{name}: an option is missing"
        assert f'href="{name}/"' in index, name


def test_the_navigation_follows_the_reading_order_and_holds_every_page():
    import yaml

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    sections = [next(iter(item)) for item in config["nav"]]
    assert sections == ["Home", "Metrics", "Using gecscore", "Training signals", "Meta-evaluation", "Reference",
                        "Development"]

    def pages(items):
        for item in items:
            value = item if isinstance(item, str) else next(iter(item.values()))
            yield from pages(value) if isinstance(value, list) else [value]

    listed = set(pages(config["nav"]))
    written = {str(path.relative_to(REPO / "docs")) for path in (REPO / "docs").rglob("*.md")}
    assert written == listed, f"pages not in the navigation: {written - listed}; missing: {listed - written}"
