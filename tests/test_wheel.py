"""The package stands alone: the metric scripts and Space apps ship inside it, identical to metrics/ and spaces/."""

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import REPO
from gecscore import __version__, app_path, script_path
from gecscore.registry import SPECS as METRICS
from gecscore.shipped import BUNDLED, examples_dir

#: Path parts and endings that must never be in the wheel.
JUNK_PARTS = {"__pycache__", "tests", "benchmarks", "build", "docs"}
JUNK_ENDINGS = (".pyc", ".pyo", ".orig", ".rej", "~", ".egg-info", "screenshot.png")


def source_files() -> dict[str, bytes]:
    """What ships under gecscore/bundled/: every file of metrics/ and spaces/ but the screenshots, by path."""
    files = {}
    for top in ("metrics", "spaces"):
        for path in sorted((REPO / top).rglob("*")):
            if path.is_file() and path.name != "screenshot.png" and "__pycache__" not in path.parts:
                files[path.relative_to(REPO).as_posix()] = path.read_bytes()
    return files


def assert_same_files(shipped: dict[str, bytes]) -> None:
    """The shipped files are the sources: the same list, byte for byte."""
    sources = source_files()
    assert sorted(shipped) == sorted(sources)
    assert [name for name in sources if shipped[name] != sources[name]] == []


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel built from it (`python -m build`, without a build environment of its own)."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check", "--outdir",
                           str(out), str(REPO)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_bundled_is_relative_links_to_the_sources():
    for top in ("metrics", "spaces"):
        assert os.readlink(BUNDLED / top) == f"../../../{top}"  # a link, not a copy that could go stale


def test_script_and_app_paths_are_inside_the_package():
    for name in METRICS:
        assert Path(script_path(name)) == BUNDLED / "metrics" / name / f"{name}.py"
        assert Path(app_path(name)) == BUNDLED / "spaces" / name / "app.py"
    assert (Path(examples_dir()) / "gold.m2").is_file()
    with pytest.raises(ValueError, match="unknown metric 'bleu'; known: cleme2, impara_ged, pt_m2, uot_errant$"):
        script_path("bleu")
    with pytest.raises(ValueError, match="known: cleme2"):
        app_path("errant")


def test_import_gecscore_is_light():
    code = ("import sys, gecscore; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'torch', 'evaluate', 'transformers', 'gradio', 'numpy'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_wheel_holds_the_package_with_its_scripts_and_apps_and_nothing_else(dist):
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        shipped = {n.removeprefix("gecscore/bundled/"): archive.read(n) for n in names
                   if n.startswith("gecscore/bundled/")}
    assert {n.split("/")[0] for n in names} == {"gecscore", f"gecscore-{__version__}.dist-info"}
    assert [n for n in names if JUNK_PARTS & set(n.split("/")) or n.endswith(JUNK_ENDINGS)] == []
    for name in METRICS:
        assert {f"gecscore/bundled/metrics/{name}/{name}.py", f"gecscore/bundled/spaces/{name}/app.py",
                f"gecscore/{name}/metric.py"} <= set(names)
    assert_same_files(shipped)


def test_sdist_holds_copies_not_links(dist):
    (sdist,) = dist.glob("*.tar.gz")
    prefix = f"gecscore-{__version__}/shared/gecscore/bundled/"
    with tarfile.open(sdist) as archive:
        members = archive.getmembers()
        assert [m.name for m in members if m.issym() or m.islnk()] == []
        shipped = {m.name.removeprefix(prefix): archive.extractfile(m).read() for m in members
                   if m.isfile() and m.name.startswith(prefix)}
    assert_same_files(shipped)
