"""gecscore: grammatical error correction metrics that reproduce their reference implementations."""

from typing import Any

from gecscore.shipped import app_path, script_path

__all__ = ["Leaderboard", "__version__", "app_path", "compare", "script_path"]
__version__ = "0.1.0"
#: Names loaded on first use, so that `import gecscore` stays light.
_LAZY = {"compare": "gecscore.leaderboard", "Leaderboard": "gecscore.leaderboard"}


def __getattr__(name: str) -> Any:
    """`compare` and `Leaderboard`, imported from `gecscore.leaderboard` on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'gecscore' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)
