"""gecscore: grammatical error correction metrics that reproduce their reference implementations."""

from gecscore.shipped import app_path, script_path

__all__ = ["__version__", "app_path", "script_path"]
__version__ = "0.1.0"
