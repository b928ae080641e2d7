"""gecscore: grammatical error correction metrics that reproduce their reference implementations."""

__version__ = "0.1.0"
