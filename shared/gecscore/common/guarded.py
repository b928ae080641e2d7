"""Guarded arithmetic that runs the same expression on Python floats and on numpy arrays.

A metric's formula is written once with these (F_β in `gecscore.common.fbeta`, CLEME2.0's indicators), so a
sentence scored alone and the same sentence inside a vectorised bootstrap resample or α grid give the same bits:
only how a guarded division is spelled differs between the two forms.
"""

from __future__ import annotations

from typing import TypeVar, Union

import numpy as np

#: A Python (or numpy) float, or an array of them.
Value = TypeVar("Value", bound=Union[float, np.ndarray])


def ratio(numerator: Value, denominator: Value, empty: bool | np.ndarray, value: float) -> Value:
    """`numerator / denominator`, or `value` where `empty` holds (the division is not made there)."""
    if isinstance(empty, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(empty, value, numerator / np.where(empty, 1.0, denominator))
    return value if empty else numerator / denominator


def choose(condition: bool | np.ndarray, value: float, otherwise: Value) -> Value:
    """`value` where `condition` holds, else `otherwise`."""
    if isinstance(condition, np.ndarray):
        return np.where(condition, value, otherwise)
    return value if condition else otherwise
