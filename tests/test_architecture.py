"""The layering contracts hold and the README's architecture section matches the code."""

import ast
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
    # presentation beside the math: a metric's plots and what its Space shows of a result (`SPEC.space`)
    assert own - listed <= {"plot.py", "space.py"}, f"{name} has modules the README does not list: {own - listed}"


def _owner(module: str) -> str:
    """The subpackage (or top-level module) of `gecscore` that a module belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def private_uses(module: str, source: str) -> list[str]:
    """Where `module` uses a private name (`_x`) of a gecscore module outside its own subpackage: imported by
    name, or read as an attribute of an imported module."""
    tree = ast.parse(source)
    mine, aliases, found = _owner(module), {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update({a.asname or a.name: a.name for a in node.names if a.name.startswith("gecscore.")})
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("gecscore"):
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__") and _owner(node.module) != mine:
                    found.append(f"line {node.lineno}: from {node.module} import {a.name}")
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            target = aliases[node.value.id]
            if node.attr.startswith("_") and not node.attr.startswith("__") and _owner(target) != mine:
                found.append(f"line {node.lineno}: {node.value.id}.{node.attr} ({target})")
    return found


def test_no_module_uses_another_subpackages_private_names():
    # What the import contracts cannot see: sharding, the leaderboard, the Spaces, the meta-evaluation (and every
    # other layer) use a metric's public names only; a metric's own modules may use its own.
    root = REPO / "shared" / "gecscore"
    found = {str(path.relative_to(root)): uses for path in sorted(root.rglob("*.py"))
             if (uses := private_uses(".".join(path.relative_to(root.parent).with_suffix("").parts),
                                      path.read_text(encoding="utf-8")))}
    assert not found, found
    # and the check sees both forms
    assert private_uses("gecscore.sharding", "from gecscore.cleme2.metric import _sum") == [
        "line 1: from gecscore.cleme2.metric import _sum"]
    assert private_uses("gecscore.sharding", "from gecscore.cleme2 import metric as m\nm._named(1)") == [
        "line 2: m._named (gecscore.cleme2.metric)"]
    assert private_uses("gecscore.cleme2.plot", "from gecscore.cleme2 import metric as m\nm._named(1)") == []
