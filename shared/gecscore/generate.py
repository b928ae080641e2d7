"""`make generate`: every file and block that repeats the registry, written from the registry's SPECS.

The metrics' evaluate scripts (`metrics/<name>/<name>.py`, from `MetricSpec.script` and the options), the Space
apps of the metrics that declare their Space in the SPEC (`spaces/<name>/app.py`, `MetricSpec.space`), the option
tables of their cards and the README's table of metrics (`gecscore.cards`), the lists of metric packages in
setup.cfg's import contracts and in `gecscore.__all__`, and the API reference's page of metric packages
(`docs/api/metrics.md`, from each package's exported names). A metric is declared once, in its package's SPEC;
these files are committed so that the Hub folders stay plain files, and a test fails when one of them is out
of date (`outdated`).

`python -m gecscore.generate [--root DIR] [--check]` rewrites them under the repository `DIR` (default: the
current directory); with `--check` it writes nothing and exits 1 naming the files that are not current.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import textwrap
from pathlib import Path
from typing import Callable, Sequence

from gecscore import cards, registry
from gecscore.common.options import MetricSpec

#: The start of every generated evaluate script, after its headline.
SCRIPT_NOTE = "Generated from `{package}.SPEC` by `make generate`: edit the SPEC, not this file."
#: How wide a generated line may be (the repository's line length).
WIDTH = 120
#: setup.cfg's import-contract lines that list the metric packages.
_LAYER = re.compile(r"(\n    gecscore\.registry\n)    [^\n]*\n")
_FORBIDDEN = re.compile(r"(\nforbidden_modules =\n)(?:    gecscore\.\w+\.\*\n)+")


def class_name(name: str) -> str:
    """The evaluate class of metric `name` (`uot_errant` is `UotErrant`)."""
    return "".join(part.capitalize() for part in name.split("_"))


def _block(text: str) -> str:
    """`text` as a triple-quoted literal that evaluates to it (its backslashes escaped)."""
    if '"""' in text or text.endswith('"'):
        raise ValueError(f"cannot write {text[:40]!r}... as a triple-quoted string")
    return '"""\\\n' + text.replace("\\", "\\\\") + '"""'


def _urls(urls: Sequence[str]) -> str:
    return "[" + ", ".join(f'"{url}"' for url in urls) + "]"


def _parameters(spec: MetricSpec) -> str:
    """`_compute`'s parameters: the sentence inputs, then every option with its default, wrapped."""
    options = [f"{o.name}={o.default!r}".replace("'", '"') for o in spec.options]
    head = "    def _compute(self, sources, predictions, references=None, *, "
    lines, line = [], head
    for k, option in enumerate(options):
        piece = option + ("," if k < len(options) - 1 else "):")
        if len(line) + len(piece) + 1 > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = " " * 17 + piece
        else:
            line += ("" if line.endswith(("*, ", " " * 17)) else " ") + piece
    return "\n".join([*lines, line])


def script(name: str) -> str:
    """The evaluate script of metric `name`, from its SPEC."""
    spec = registry.SPECS[name]
    text = spec.script
    if text is None:
        raise ValueError(f"gecscore.{name}.SPEC has no `script` (ScriptText) to write its evaluate script from")
    headline = textwrap.fill(text.headline, WIDTH - 3)
    homepage = f'            homepage="{text.homepage}",\n' if text.homepage else ""
    return f'''"""{headline}

{SCRIPT_NOTE.format(package=registry.package(name))}
"""

import evaluate

from gecscore.evaluate_module import GECMetric, kwargs_description  # From: gecscore

_CITATION = {_block(text.citation)}

_DESCRIPTION = {_block(text.description)}

_KWARGS_DESCRIPTION = kwargs_description("{name}", inputs={_block(text.inputs)}, returns={_block(text.returns)}, \
examples={_block(text.examples)})


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class {class_name(name)}(GECMetric):
    """{spec.title} as an evaluate metric."""

    NAME = "{name}"

    def _info(self):
        return self.metric_info(
            _DESCRIPTION, _CITATION, _KWARGS_DESCRIPTION,
            codebase_urls={_urls(text.codebase_urls)},
            reference_urls={_urls(text.reference_urls)},
{homepage}        )

{_parameters(spec)}
        return self.score(sources, predictions, references, locals())
'''


def space_app(name: str) -> str:
    """The Space app of a metric whose SPEC declares its Space (`MetricSpec.space`): all of it is the SPEC's."""
    spec = registry.SPECS[name]
    if spec.space is None:
        raise ValueError(f"gecscore.{name}.SPEC declares no `space`; its app is written by hand")
    return f'''"""{spec.title} Space. {SCRIPT_NOTE.format(package=registry.package(name))}"""
from gecscore.spaces import generic

PAGE, build_demo, serve = generic.app("{name}", __file__)
if __name__ == "__main__":
    serve()
'''


def import_contracts(setup_cfg: str) -> str:
    """setup.cfg with its import contracts listing every metric package: one layer between the registry and
    `gecscore.common`, and every metric's modules forbidden to the generic layers (a package left out would
    simply not be checked)."""
    layer, forbidden = _LAYER.search(setup_cfg), _FORBIDDEN.search(setup_cfg)
    if layer is None or forbidden is None:
        raise ValueError("setup.cfg has no metrics layer after gecscore.registry or no forbidden_modules list")
    packages = [f"gecscore.{name}" for name in registry.SPECS]
    setup_cfg = _LAYER.sub(lambda m: m.group(1) + "    " + " | ".join(packages) + "\n", setup_cfg, count=1)
    return _FORBIDDEN.sub(lambda m: m.group(1) + "".join(f"    {p}.*\n" for p in packages), setup_cfg, count=1)


_PACKAGES = re.compile(r"(    # the metric packages, from registry\.METRIC_PACKAGES \(`make generate`\)\n)(?:    \".*\n)*")


def package_all(init: str) -> str:
    """`gecscore/__init__.py` with the metric packages of its `__all__` listed from `registry.METRIC_PACKAGES`."""
    if _PACKAGES.search(init) is None:
        raise ValueError("gecscore/__init__.py's __all__ has no '# the metric packages' comment to list them after")
    names = textwrap.fill(", ".join(f'"{name}"' for name in registry.METRIC_PACKAGES) + ",", WIDTH - 1,
                          initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)
    return _PACKAGES.sub(lambda m: m.group(1) + names + "\n", init, count=1)


API_INTRO = """\
# The metric packages

<!-- generated from the registry's SPECS and each package's exported names by `make generate` -->

Each metric is a package: `SPEC` (its `MetricSpec`: name, variants and every option with its type, default, range
and doc) and the names its `__init__` exports, imported on first use. The option tables of the metric cards are
generated from `SPEC`. A metric runs through [`gecscore.registry.run`](registry.md); its other modules are internal.
"""


def api_page() -> str:
    """`docs/api/metrics.md`: per metric, in the registry's order, its package (SPEC and docstring) and then the
    names it exports, grouped by the module that defines them."""
    parts = [API_INTRO]
    for name, spec in registry.SPECS.items():
        parts.append(f"## {spec.title}\n\n::: gecscore.{name}\n    options:\n      members: false\n")
        by_module: dict[str, list[str]] = {}
        for export, module in getattr(importlib.import_module(f"gecscore.{name}"), "_EXPORTS", {}).items():
            by_module.setdefault(module, []).append(export)
        for module, names in by_module.items():
            members = textwrap.fill(", ".join(sorted(names)), WIDTH - 1, initial_indent=" " * 16,
                                    subsequent_indent=" " * 16).lstrip()
            parts.append(f"::: gecscore.{name}.{module}\n    options:\n      members: [{members}]\n")
    return "\n".join(parts)


def targets(root: Path) -> dict[Path, Callable[[str | None], str]]:
    """Every generated file under the repository `root`, each with how to write it from its current text."""
    found: dict[Path, Callable[[str | None], str]] = {}
    for name in registry.SPECS:
        found[root / "metrics" / name / f"{name}.py"] = lambda _, name=name: script(name)
        found[root / "metrics" / name / "README.md"] = lambda text, name=name: cards.render(_text(text), name)
        if registry.SPECS[name].space is not None:
            found[root / "spaces" / name / "app.py"] = lambda _, name=name: space_app(name)
    found[root / "README.md"] = lambda text: cards.render_readme(_text(text))
    found[root / "setup.cfg"] = lambda text: import_contracts(_text(text))
    found[root / "docs" / "api" / "metrics.md"] = lambda _: api_page()
    found[root / "shared" / "gecscore" / "__init__.py"] = lambda text: package_all(_text(text))
    return found


def _text(text: str | None) -> str:
    if text is None:
        raise ValueError("a generated block needs its file (a card needs its hand-written text and the "
                         "<!-- options:begin --> <!-- options:end --> markers), which is missing")
    return text


def outdated(root: Path) -> list[Path]:
    """The generated files under `root` that differ from what `make generate` would write."""
    return list(stale_files(root, list(targets(root))))


def outdated_paths(root: Path, paths: Sequence[Path]) -> list[Path]:
    """Those of the generated files `paths` under `root` that are out of date."""
    return list(stale_files(root, paths))


def stale_files(root: Path, paths: Sequence[Path]) -> dict[Path, str]:
    """Each out-of-date file among `paths` with what `make generate` writes there (each file rendered once)."""
    found = targets(root)
    stale = {}
    for path in paths:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        new = found[path](current)
        if new != current:
            stale[path] = new
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite (or, with `--check`, check) every generated file of the repository."""
    parser = argparse.ArgumentParser(prog="python -m gecscore.generate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    stale = stale_files(args.root, list(targets(args.root)))
    if args.check:
        for path in stale:
            print(f"out of date: {path} (run `make generate`)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in stale.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"updated {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
