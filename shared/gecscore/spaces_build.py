"""`make hub ORG=<org>`: assemble, per metric, the one Hub folder that is both its evaluate module and its Space.

Each `build/hub/<name>/` holds the metric script `<name>.py` (`evaluate.load("<org>/<name>")` loads it), `app.py`
(which scores with that script), the example files, `requirements.txt` (gecscore from the package index, pinned to
this version with the extras the Space needs, and the packages named in `--constraints` pinned as there: a Space
build sees nothing but that file) and `README.md`: the metric card's body under the card's front matter merged with
the Space's, rewritten for Hub readers (`evaluate.load("<org>/<name>")`, the install line first, no paths of this
repository). Everything is read from the copies shipped in the package (`gecscore.shipped`); `docs/release.md` says
how to publish. `make hub-check` (tests/hub_check.py) installs the folders from a local package index as the Hub would.
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
_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?")
#: A Space's list of Debian packages (Hugging Face installs them), copied when the Space has one.
PACKAGES = "packages.txt"
#: The Hub organisation (user) that the folders are pushed to unless `--org` says otherwise.
DEFAULT_ORG = "gecscore"
#: Where the repository's own files live, for links from the built cards.
REPOSITORY_URL = "https://github.com/gecscore/gecscore"
#: Text that names a path of this repository (or of the `../shared` folder beside it): never in a built card.
LOCAL_PATH = re.compile(r"metrics/|spaces/|\.\./shared|shared/gecscore|tests/")
#: Per metric, the gecscore extra its card's examples need besides gecscore, and what it brings.
EXAMPLE_EXTRAS = {
    "uot_errant": ("models", "the offline models of the examples: all-MiniLM-L6-v2, spaCy en_core_web_sm"),
    "pt_m2": ("models", "the offline models of the examples: all-MiniLM-L6-v2, spaCy en_core_web_sm"),
    "cleme2": ("models", "the offline models of the examples: all-MiniLM-L6-v2, spaCy en_core_web_sm"),
    "impara_ged": ("embedded", 'model="embedded", the offline quality estimator (CC BY-NC-SA 4.0, non-commercial)'),
}


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


def install_block(name: str) -> str:
    """The install lines a built card's examples start with."""
    lines = ["pip install gecscore"]
    if name in EXAMPLE_EXTRAS:
        extra, what = EXAMPLE_EXTRAS[name]
        lines.append(f'pip install "gecscore[{extra}]"  # {what}')
    return "```bash\n" + "\n".join(lines) + "\n```\n\n"


def hub_text(text: str, org: str) -> str:
    """`text` as Hub readers see it: `metrics/<name>` becomes `<org>/<name>`, `benchmarks/...` and `docs/...` links
    to the repository."""
    names = "|".join(map(re.escape, SPECS))
    text = re.sub(rf"(?<![\w./-])metrics/({names})\b", rf"{org}/\1", text)
    return re.sub(r"`((?:benchmarks|docs)/[^`\s]*)`", rf"[`\1`]({REPOSITORY_URL}/blob/main/\1)", text)


def local_paths(text: str) -> list[str]:
    """The lines of `text` that name a path of this repository (`metrics/`, `spaces/`, `../shared`, ...)."""
    return [f"{i}: {line.strip()}" for i, line in enumerate(text.splitlines(), 1) if LOCAL_PATH.search(line)]


def hub_card(name: str, card: str, space_readme: str, org: str = DEFAULT_ORG) -> str:
    """The README of the Hub folder: merged front matter, the card rewritten for the Hub, the install line before
    the first example. ValueError if a repository path is left."""
    text = hub_text(merge_card(card, space_readme), org)
    first = text.find("```python")
    if first < 0:
        raise ValueError("the card has no ```python example")
    text = text[:first] + install_block(name) + text[first:]
    left = local_paths(text)
    if left:
        raise ValueError("repository paths left in the card (rewrite them in the card):\n  " + "\n  ".join(left))
    return text


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
    """Requirement lines with gecscore pinned to this version (its extras kept) and the constrained packages to
    their pins. ValueError on a line that is not a requirement from a package index (a path, a URL, an option)."""
    out = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = _REQUIREMENT.match(line)
        if not match or "/" in line or "\\" in line or line.startswith(("-", ".")) or " @ " in line:
            raise ValueError(f"not a requirement from a package index: {line!r}")
        name = _normalise(match.group(1))
        if name == "gecscore":
            out.append(f"gecscore{match.group(2) or ''}=={__version__}")
        else:
            out.append(pins.get(name, line) if not match.group(2) else line)
    return out


def build_space(name: str, out: Path, pins: dict[str, str] | None = None, org: str = DEFAULT_ORG) -> Path:
    """Write the Hub folder `out/<name>/` (replacing what was there; requirements pinned by `pins`) and return it."""
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
        readme = hub_card(name, card, space_readme, org)
    except ValueError as error:
        raise ValueError(f"{name}: {error} ({metric_dir / 'README.md'}, {space_dir / 'README.md'})") from None
    (target / "README.md").write_text(readme, encoding="utf-8")
    requirements = (space_dir / "requirements.txt").read_text(encoding="utf-8").splitlines()
    try:
        lines = pinned_requirements(requirements, pins or {})
    except ValueError as error:
        raise ValueError(f"{name}: {error} ({space_dir / 'requirements.txt'})") from None
    (target / "requirements.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if (space_dir / PACKAGES).is_file():  # Debian packages the Space installs (fonts with Chinese glyphs)
        shutil.copy2(space_dir / PACKAGES, target / PACKAGES)
    shutil.copytree(examples_dir(), target / "examples")
    notes = target / "examples" / "README.md"
    if notes.is_file():
        text = hub_text(notes.read_text(encoding="utf-8"), org)
        left = local_paths(text)
        if left:
            raise ValueError(f"{name}: repository paths left in {Path(examples_dir()) / 'README.md'}:\n  "
                             + "\n  ".join(left))
        notes.write_text(text, encoding="utf-8")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """Build every Hub folder (or the named ones) under `--out`."""
    parser = argparse.ArgumentParser(prog="python -m gecscore.spaces_build", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("build") / "hub", help="output folder")
    parser.add_argument("--org", default=DEFAULT_ORG,
                        help=f"Hub organisation or user the folders are pushed to (default {DEFAULT_ORG})")
    parser.add_argument("--constraints", type=Path, help="pin the requirements as this constraints file does")
    parser.add_argument("names", nargs="*", choices=[[], *SPECS], metavar="NAME",
                        help=f"any of {list(SPECS)}")
    args = parser.parse_args(argv)
    if args.constraints is not None and not args.constraints.is_file():
        parser.error(f"no constraints file {args.constraints}")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args.org):
        parser.error(f"--org {args.org!r} is not a Hub organisation or user name")
    pins = constraint_pins(args.constraints) if args.constraints is not None else {}
    for name in args.names or SPECS:
        try:
            target = build_space(name, args.out, pins, args.org)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        print(f"{name}: {target}  (evaluate.load({args.org + '/' + name!r}))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
