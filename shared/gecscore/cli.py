"""The `gecscore` command line: subcommands are the modules of `gecscore.commands`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import Sequence

from gecscore import __version__, commands


def build_parser() -> argparse.ArgumentParser:
    """Parser with one subparser per module in `gecscore.commands` (each module's `register`)."""
    parser = argparse.ArgumentParser(prog="gecscore", description="GEC evaluation metrics.")
    parser.add_argument("--version", action="version", version=f"gecscore {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; user errors print one line and exit 2."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, TypeError, FileNotFoundError, OSError) as error:
        print(f"gecscore {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
