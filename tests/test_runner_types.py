"""What a metric module provides, checked statically: mypy holds every registered runner module to the typed
`MetricRunner` protocol (a module can implement a protocol: its functions are the protocol's methods), so a
runner whose functions drift from what the registry, sharding and the Trainer hook call is a type error, not a
convention. One mypy run of a few seconds: third-party packages are not read (`--no-site-packages`, so they are
`Any`), since the protocol's types are gecscore's own and the standard library's."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import REPO
from gecscore import registry

pytest.importorskip("mypy", reason="the static check needs mypy (the `test` extra)")

#: A runner whose `score` takes an extra argument and whose `statistics_systems` takes no sources: both are errors.
BAD_RUNNER = '''
from typing import Any, Mapping
from gecscore.common.results import MetricResult

def check_models(options: Mapping[str, Any]) -> None: ...
def statistics_systems(systems: Mapping[str, Any], **options: Any) -> dict[str, Any]: ...
def score(stats: Any, extra: int) -> MetricResult: ...
'''


def test_every_registered_runner_satisfies_the_protocol_statically(tmp_path):
    runners = sorted({registry.spec(name).runner for name in registry.SPECS})
    assert len(runners) >= 11
    (tmp_path / "bad_runner.py").write_text(BAD_RUNNER)
    lines = ["from gecscore.common.statistics import MetricRunner", "import bad_runner",
             *(f"import {module}" for module in runners),
             *(f"checked_{i}: MetricRunner = {module}" for i, module in enumerate(runners)),
             "checked_bad: MetricRunner = bad_runner"]
    (tmp_path / "runners.py").write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports", "--no-site-packages",
         "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), "runners.py"],
        cwd=tmp_path, capture_output=True, text=True, env={"MYPYPATH": str(REPO / "shared"), "PATH": ""},
        timeout=600)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    bad_line = len(lines)
    assert [int(re.match(r"runners\.py:(\d+):", e).group(1)) for e in errors] == [bad_line], done.stdout
    assert "score" in done.stdout and "statistics_systems" in done.stdout  # both drifts are named
