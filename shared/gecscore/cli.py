"""The `gecscore` command line: subcommands are the modules of `gecscore.commands`."""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import pkgutil
import re
import shlex
import sys
import warnings
from typing import Any, Sequence

from gecscore import __version__, commands


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Parser with one subparser per module in `gecscore.commands` (each module's `register`), or only the one
    of `command` when it names a module (start-up: another command's registration may import what this one
    never needs)."""
    parser = argparse.ArgumentParser(prog="gecscore", description="GEC evaluation metrics.")
    parser.add_argument("--version", action="version", version=f"gecscore {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    module_name = (command or "").replace("-", "_")
    for name in [module_name] if module_name in names else names:
        importlib.import_module(f"{commands.__name__}.{name}").register(subparsers)
    return parser


#: The errors a command reports as the user's (one line, exit 2): the library raises these with a message naming
#: what to change — a bad option or input (ValueError, TypeError), a file, a model that cannot be loaded or an
#: endpoint that fails (OSError: `cannot_load`, `EndpointError`). Anything else is a bug and keeps its traceback.
USER_ERRORS = (ValueError, TypeError, OSError)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; user errors print one line and exit 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0] if argv and not argv[0].startswith("-") else None
    args = build_parser(command).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except USER_ERRORS as error:
        flag = getattr(args, "cli_option_flag", None)
        message = " ".join(str(error).split()) or type(error).__name__  # one line: transformers' span several
        message = message if flag is None else shell_syntax(message, flag)
        print(f"gecscore {args.command}: error: {message}", file=sys.stderr)
        return 2


def console() -> int:
    """The `gecscore` executable: `main`, with gecscore's warnings printed for a shell user."""
    warnings.showwarning = _show_warning
    return main()


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
                  line: str | None = None) -> None:
    """gecscore's own warnings as `gecscore: warning: ...`, options in shell syntax (a shell user has no use for
    our file and line, nor for Python keywords)."""
    if category.__module__.split(".")[0] != "gecscore":
        return _SHOW_WARNING(message, category, filename, lineno, file, line)
    text = shell_syntax(str(message), "-o").replace("See each result's `degenerate_sentences`",
                                                    "`--sentences FILE` lists every one")
    print(f"gecscore: warning: {text}", file=sys.stderr if file is None else file)


_SHOW_WARNING = warnings.showwarning


def shell_syntax(message: str, flag: str) -> str:
    """`message` with every Python keyword for a metric option (`model='minilm'`, `robust=True`) written as a
    shell user types it (`-o model=minilm`, `-o robust=true`): the errors are the library's, the reader is at a
    shell."""
    from gecscore import registry

    names = {option.name for spec in registry.SPECS.values() for option in spec.options}

    def shell(match: re.Match) -> str:
        if match.group("key") not in names:
            return match.group(0)
        try:
            value = ast.literal_eval(match.group("value"))
            text = value if isinstance(value, str) else json.dumps(value)
        except (ValueError, SyntaxError, TypeError):  # a bare word (`...` too): already what the shell user types
            text = match.group("value")
        return f"{flag} {shlex.quote(match.group('key') + '=' + text)}"

    return _KEYWORD.sub(shell, message)


#: A Python keyword argument in a message: `key=` and a quoted string, a list or a bare value, not already after -o.
_KEYWORD = re.compile(r"(?<![\w.-])(?<!-o )(?P<key>[a-z_][a-z0-9_]*)=(?P<value>'[^']*'|\"[^\"]*\"|\[[^\]]*\]|"
                      r"[^\s,;)'\"`\]]+)")


if __name__ == "__main__":
    sys.exit(console())
