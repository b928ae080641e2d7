"""What every benchmark report ends with: the machine line, and the file with the command that made it."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator, Sequence


def machine_line(load_before: float) -> str:
    """CPU count and load average before / now (absolute times move with the other jobs on the cores)."""
    return (f"Machine: {os.cpu_count()} CPU cores, load average {load_before:.1f} before / {os.getloadavg()[0]:.1f} "
            "after the run (other jobs share the cores, so absolute times move between runs; compare the rows of one "
            "run).")


def write_report(out: Path, title: str, script: str, argv: Sequence[str], report: str) -> None:
    """`out`: the title, the command (`script` with `argv`, from the repository root) and the report."""
    command = f".venv/bin/python benchmarks/{script} " + shlex.join(argv)  # from the repository root
    out.write_text(f"# {title}\n\nCommand:\n\n```\n{command.strip()}\n```\n\n{report}\n", encoding="utf-8")


@contextlib.contextmanager
def base_tree(repo: Path, base: str) -> Iterator[tuple[Path, str]]:
    """An earlier commit `base` checked out in a temporary worktree of `repo` (removed afterwards), with its short
    hash: the A side of a before/after benchmark."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), base], cwd=repo, check=True)
        try:
            revision = subprocess.run(["git", "rev-parse", "--short", base], cwd=repo, check=True,
                                      capture_output=True, text=True).stdout.strip()
            yield tree, revision
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=repo, check=False)
