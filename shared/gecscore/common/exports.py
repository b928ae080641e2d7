"""A metric package's public interface: names re-exported from its modules, imported on first use.

The meta-evaluation, sharding, the leaderboard and the Spaces reach a metric only through its package
(`from gecscore.cleme2 import heuo`; an import contract in setup.cfg forbids its modules), while the registry,
which imports every package for its `SPEC`, stays free of the metric's own imports (numpy, spaCy, plots).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level `__getattr__` for `package` that imports `name` from `package.<exports[name]>` when read."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{exports[name]}"), name)

    return __getattr__
