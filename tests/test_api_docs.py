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
