"""Precision, recall and F_β under the zero-division conventions the reference implementations disagree on.

This is the one place the formulas live. Every function takes Python floats or numpy arrays of any shape and
runs the same expressions on both (`gecscore.common.guarded`), so a sentence scored alone and the same sentence
inside a vectorised bootstrap resample give the same bits.

The conventions (`docs/reference-behaviour.md`, "Common conventions"):

* `"errant"` — ERRANT's `errant_compare` and gec-metrics' ERRANT: P = 1 when FP = 0 and R = 1 when FN = 0 (so a
  sentence with no hypothesis edits has P = 1 even against reference edits); F = 0 when P + R = 0, and 1 when
  only β²P + R vanishes (β = 0 with R = 0).
* `"denominator"` — UOT-ERRANT and CLEME: P = 1 when TP + FP = 0 and R = 1 when TP + FN = 0; F as `"errant"`.
  CLEME writes F = 0 when P + R = 0 and refuses β = 0, where the two F rules coincide.
* `"m2"` — the M² scorer (m2scorer, PT-M2): P = c/p, R = c/g with 1 when the denominator is 0, and F = 0 whenever
  β²P + R = 0. Its statistics are totals (correct, proposed, gold), not TP/FP/FN, so `m2_prf` takes them as such:
  rebuilding FP = proposed − correct would round weighted counts.
* `"zero"` — the original GoToScorer (gotutiyan/GTS): P = 0 when TP + FP = 0, R = 0 when TP + FN = 0 (its
  `ZeroDivisionError` branches), F = 0 when β²P + R = 0.
"""

from __future__ import annotations

from typing import Literal

from gecscore.common.guarded import Value, choose, ratio

Convention = Literal["errant", "denominator", "m2", "zero"]
CONVENTIONS: tuple[str, ...] = ("errant", "denominator", "m2", "zero")


def beta_squared(beta: float, convention: Convention) -> float:
    """β² as the convention's reference computes it: `beta * beta` for M², as m2scorer does, and Python's
    `beta ** 2` otherwise, as ERRANT does; the two round differently for about one β in a thousand. M²'s
    tie-break between annotators (`proposed + β²·gold`) uses it too."""
    return beta * beta if convention == "m2" else beta ** 2


def f_beta(p: Value, r: Value, beta: float, convention: Convention) -> Value:
    """F_β = (1 + β²)PR / (β²P + R), with `convention`'s value where a denominator vanishes (β² by
    `beta_squared`)."""
    b2 = beta_squared(beta, convention)
    denominator = b2 * p + r
    if convention in ("m2", "zero"):
        return ratio((1.0 + b2) * p * r, denominator, denominator == 0, 0.0)
    return choose(p + r == 0, 0.0, ratio((1.0 + b2) * p * r, denominator, denominator == 0, 1.0))


def prf(tp: Value, fp: Value, fn: Value, beta: float, convention: Convention) -> tuple[Value, Value, Value]:
    """Precision, recall and F_β of TP/FP/FN counts under `"errant"`, `"denominator"` or `"zero"`."""
    if convention == "m2":
        raise ValueError("the M² convention scores (correct, proposed, gold) totals: use `m2_prf`")
    proposed, gold = tp + fp, tp + fn
    empty_p, empty_r = (fp == 0, fn == 0) if convention == "errant" else (proposed == 0, gold == 0)
    empty = 0.0 if convention == "zero" else 1.0
    p = ratio(tp, proposed, empty_p, empty)
    r = ratio(tp, gold, empty_r, empty)
    return p, r, f_beta(p, r, beta, convention)


def m2_prf(correct: Value, proposed: Value, gold: Value, beta: float) -> tuple[Value, Value, Value]:
    """Precision, recall and F_β of M² totals under `"m2"`."""
    p = ratio(correct, proposed, proposed == 0, 1.0)
    r = ratio(correct, gold, gold == 0, 1.0)
    return p, r, f_beta(p, r, beta, "m2")
