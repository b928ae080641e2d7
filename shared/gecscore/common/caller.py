"""Warnings that point at the user's code: attributed to the first frame outside gecscore and outside the libraries
that call gecscore on the user's behalf (evaluate, its downloaded metric scripts, transformers' Trainer, TRL).

A warning attributed to `registry.py:148` tells a user nothing; one attributed to the line of their script that
called `compute` (or `trainer.evaluate()`) says which call produced it.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from types import FrameType

_PACKAGE = str(Path(__file__).resolve().parent.parent) + os.sep
#: Top-level modules whose frames sit between the user and gecscore.
_INTERMEDIARIES = frozenset({"evaluate", "evaluate_modules", "transformers", "trl", "accelerate", "datasets"})


def _internal(frame: FrameType) -> bool:
    module = str(frame.f_globals.get("__name__", ""))
    return frame.f_code.co_filename.startswith(_PACKAGE) or module.split(".")[0] in _INTERMEDIARIES


def warn(message: str, category: type[Warning]) -> None:
    """`warnings.warn(message, category)` attributed to the user's call (the outermost gecscore frame's caller)."""
    frame: FrameType | None = sys._getframe(0)
    level = 1
    while frame is not None and _internal(frame):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
