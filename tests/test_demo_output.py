"""The README quotes the table `make demo` prints; it must be what the demo prints today (issue 40: the quoted table
went stale when robust mode changed and nothing noticed). The demo runs once here, about a minute on 2 cores (every
metric over 4 SEEDA systems × 60 sentences with the real MiniLM, spaCy and the embedded estimator), which is the
cost of this file."""

from __future__ import annotations

import pytest

from conftest import REPO


@pytest.mark.real_model
def test_the_readme_quotes_what_make_demo_prints(shared_data, capsys):
    from gecscore import demo

    assert demo.main(["--data", str(shared_data)]) == 0
    out = capsys.readouterr().out
    printed = out[out.index("mode: robust=True"):].rstrip("\n")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"```text\n{printed}\n```" in readme, f"README.md's demo table is stale; the demo prints:\n{printed}"
