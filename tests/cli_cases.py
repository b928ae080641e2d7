"""CLI checks that every metric of a kind must pass, shared by their test files."""

from __future__ import annotations

import re
from pathlib import Path

from gecscore.cli import main


def leaderboard_with_a_baseline(metric: str, root: Path, files: dict[str, str], tmp_path: Path, capsys,
                                n: int = 40) -> None:
    """`gecscore score METRIC` of a system (`files["gpt"]`) and the uncorrected input, tested against the input
    with a bootstrap: the system ranks first and the table names the baseline. `files` holds `src`, `gpt`, `ref0`
    and `ref1` relative to `root`; the first `n` lines are scored."""
    paths = {}
    for name, relative in files.items():
        paths[name] = tmp_path / f"{name}.txt"
        text = (root / relative).read_text(encoding="utf-8").rstrip("\n").split("\n")[:n]
        paths[name].write_text("\n".join(text) + "\n", encoding="utf-8")
    code = main(["score", metric, "--sources", str(paths["src"]), "--predictions", str(paths["gpt"]),
                 str(paths["src"]), "--names", "gpt", "input", "--baseline", "input", "--bootstrap", "200",
                 "--references", str(paths["ref0"]), str(paths["ref1"])])
    assert code == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s*1\s+gpt\s+0\.\d{4}", out, flags=re.M) and "baseline" in out
