"""Subcommands of the `gecscore` command line: one module each, with `register(subparsers)`."""
