"""`make spaces`: assemble, per metric, the folder that would be pushed to the Hub as its Space.

Each `build/spaces/<name>/` holds the metric script (`evaluate.load("gecscore/<name>")` loads it from the Space),
`app.py`, the example files, `requirements.txt` with gecscore pinned to this version (and the packages named in
`--constraints` pinned as there), and `README.md`: the metric card's body under the card's front matter merged with
the Space's. Everything is read from the copies shipped in the package (`gecscore.shipped`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path
from typing import Any, Sequence

import yaml

from gecscore import __version__
from gecscore.registry import SPECS
from gecscore.shipped import app_path, examples_dir, script_path

_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)")


def split_card(text: str) -> tuple[dict[str, Any], str]:
    """The YAML front matter (empty when there is none) and the body of a card."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return {}, text
    return yaml.safe_load(match.group(1)) or {}, text[match.end():]


def merge_card(card: str, space_readme: str) -> str:
    """The metric card's body under the Space's front matter, followed by the card's other keys."""
    try:
        card_meta, body = split_card(card)
        space_meta, _ = split_card(space_readme)
    except yaml.YAMLError as error:
        raise ValueError(f"bad YAML front matter: {error}") from None
    if not space_meta:
        raise ValueError("the Space README has no YAML front matter")
    meta = {**space_meta, **{k: v for k, v in card_meta.items() if k not in space_meta}}
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{front}---\n{body}"


def constraint_pins(constraints: Path) -> dict[str, str]:
    """Normalised package name → `name==version` from a constraints file."""
    pins = {}
    for line in constraints.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            pins[_normalise(line.split("==", 1)[0])] = line
    return pins


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_requirements(lines: Sequence[str], pins: dict[str, str]) -> list[str]:
    """Requirement lines with gecscore pinned to this version and the constrained packages to their pins."""
    out = []
    for line in lines:
        line = line.strip()
        match = _REQUIREMENT.match(line)
        if not match or line.startswith("#"):
            continue
        name = _normalise(match.group(1))
        out.append(f"gecscore=={__version__}" if name == "gecscore" else pins.get(name, line))
    return out


def build_space(name: str, out: Path, pins: dict[str, str] | None = None) -> Path:
    """Write `out/<name>/` (replacing what was there; requirements pinned by `pins`) and return it."""
    metric_dir, space_dir = Path(script_path(name)).parent, Path(app_path(name)).parent
    target = out / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(metric_dir / f"{name}.py", target / f"{name}.py")
    shutil.copy2(space_dir / "app.py", target / "app.py")
    card = (metric_dir / "README.md").read_text(encoding="utf-8")
    space_readme = (space_dir / "README.md").read_text(encoding="utf-8")
    try:
        readme = merge_card(card, space_readme)
    except ValueError as error:
        raise ValueError(f"{name}: {error} ({metric_dir / 'README.md'}, {space_dir / 'README.md'})") from None
    (target / "README.md").write_text(readme, encoding="utf-8")
    requirements = (space_dir / "requirements.txt").read_text(encoding="utf-8").splitlines()
    (target / "requirements.txt").write_text("\n".join(pinned_requirements(requirements, pins or {})) + "\n",
                                             encoding="utf-8")
    shutil.copytree(examples_dir(), target / "examples")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """Build every Space (or the named ones) under `--out`."""
    parser = argparse.ArgumentParser(prog="python -m gecscore.spaces_build", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build") / "spaces", help="output folder")
    parser.add_argument("--constraints", type=Path, help="pin the requirements as this constraints file does")
    parser.add_argument("names", nargs="*", choices=[[], *SPECS], metavar="NAME",
                        help=f"any of {list(SPECS)}")
    args = parser.parse_args(argv)
    if args.constraints is not None and not args.constraints.is_file():
        parser.error(f"no constraints file {args.constraints}")
    pins = constraint_pins(args.constraints) if args.constraints is not None else {}
    for name in args.names or SPECS:
        target = build_space(name, args.out, pins)
        print(f"{name}: {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
