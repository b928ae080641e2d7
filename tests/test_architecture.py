"""The layering contracts hold and the README's architecture section matches the code."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gecscore import registry

REPO = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint), "--config", str(REPO / "setup.cfg")], cwd=REPO / "shared",
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def read_first() -> dict[str, list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8").split("<!-- read-first -->", 1)[1]
    rows = re.findall(r"^\| ([^|]+) \| (`[^|]+`) \|$", text.split("\n\n", 1)[0], flags=re.M)
    return {metric.strip(): re.findall(r"`([^`]+)`", files) for metric, files in rows}


def test_read_first_lists_at_most_three_existing_files_per_metric():
    listed = read_first()
    assert len(listed) == len(registry.SPECS)
    for metric, files in listed.items():
        assert 1 <= len(files) <= 3, metric
        for file in files:
            assert (REPO / file).is_file(), file
    packages = {Path(files[0]).parent.name for files in listed.values()}
    assert packages == set(registry.SPECS)


@pytest.mark.parametrize("name", list(registry.SPECS))
def test_each_metric_package_holds_only_its_listed_files_and_plots(name):
    listed = {Path(f).name for f in dict(zip([Path(v[0]).parent.name for v in read_first().values()],
                                             read_first().values()))[name]}
    own = {p.name for p in (REPO / "shared" / "gecscore" / name).glob("*.py")} - {"__init__.py"}
    assert own - listed <= {"plot.py"}, f"{name} has modules the README does not list: {own - listed}"
