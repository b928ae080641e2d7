"""Paths of the files shipped inside the package: the metrics' evaluate scripts and their Gradio Space apps."""

from __future__ import annotations

from pathlib import Path

#: The repository's `metrics/` and `spaces/` inside the package (links in a checkout, copies in a wheel).
BUNDLED = Path(__file__).parent / "bundled"


def _shipped(path: Path) -> str:
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing from the gecscore package (reinstall gecscore)")
    return str(path)


def _known(name: str) -> str:
    """`name` if a script ships for it (the shipped folders are the list: no second copy of the names)."""
    known = sorted(p.name for p in (BUNDLED / "metrics").iterdir() if (p / f"{p.name}.py").is_file())
    if name not in known:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(known)}")
    return name


def script_path(name: str) -> str:
    """The shipped evaluate script of a metric, for `evaluate.load(script_path("pt_m2"))`."""
    return _shipped(BUNDLED / "metrics" / _known(name) / f"{name}.py")


def app_path(name: str) -> str:
    """The shipped Gradio Space app of a metric, for `python <app_path("pt_m2")>`."""
    return _shipped(BUNDLED / "spaces" / _known(name) / "app.py")


def examples_dir() -> str:
    """The folder of the Spaces' example files (source.txt, hypothesis.txt, ref0.txt, ref1.txt, gold.m2)."""
    return _shipped(BUNDLED / "spaces" / "examples")
