"""The one F_β module: each convention as its reference writes it, and scalar and vectorised forms bit-identical."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gecscore.common.fbeta import CONVENTIONS, f_beta, m2_prf, prf

# Counts with the zeros and exact cancellations the conventions disagree on, and weighted (fractional) ones.
count = st.one_of(st.just(0.0), st.integers(0, 5).map(float), st.floats(0, 5, allow_subnormal=False))
beta = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 2.0]), st.floats(0.01, 4))


def errant_compare(tp: float, fp: float, fn: float, beta: float) -> tuple[float, float, float]:
    """ERRANT's `computeFScore`, written out as ERRANT writes it."""
    p = float(tp) / (tp + fp) if fp else 1.0
    r = float(tp) / (tp + fn) if fn else 1.0
    f = float((1 + beta ** 2) * p * r) / (((beta ** 2) * p) + r) if p + r else 0.0
    return p, r, f


def m2scorer(correct: float, proposed: float, gold: float, beta: float) -> tuple[float, float, float]:
    """The M² scorer's precision, recall and F, as it writes them."""
    p = correct / proposed if proposed else 1.0
    r = correct / gold if gold else 1.0
    b2 = beta * beta
    f = (1.0 + b2) * p * r / (b2 * p + r) if b2 * p + r else 0.0
    return p, r, f


def cleme(tp: float, fp: float, fn: float, beta: float) -> tuple[float, float, float]:
    """CLEME's `compute_prf` before its rounding."""
    p = float(tp) / (tp + fp) if (tp + fp) else 1.0
    r = float(tp) / (tp + fn) if (tp + fn) else 1.0
    f = float((1 + beta ** 2) * p * r) / ((beta ** 2 * p) + r) if (p + r) else 0.0
    return p, r, f


@settings(max_examples=400, deadline=None)
@given(count, count, count, beta)
def test_each_convention_is_its_reference(tp, fp, fn, b):
    if fp or tp:  # ERRANT divides by TP + FP only when FP != 0, which then is not 0 for counts >= 0
        assert prf(tp, fp, fn, b, "errant") == pytest.approx(errant_compare(tp, fp, fn, b), rel=0, abs=0)
    if b > 0:  # CLEME refuses beta = 0
        assert prf(tp, fp, fn, b, "denominator") == cleme(tp, fp, fn, b)
    assert m2_prf(tp, tp + fp, tp + fn, b) == m2scorer(tp, tp + fp, tp + fn, b)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(count, count, count), min_size=1, max_size=12), beta)
def test_vectorised_equals_scalar_bit_for_bit(rows, b):
    tp, fp, fn = (np.array(column) for column in zip(*rows))
    for convention in ("errant", "denominator"):
        vector = prf(tp, fp, fn, b, convention)
        with np.errstate(divide="ignore", invalid="ignore"):
            scalar = [prf(np.float64(x), np.float64(y), np.float64(z), b, convention) for x, y, z in rows]
        for i, one in enumerate(scalar):
            assert [v[i] for v in vector] == pytest.approx(list(one), nan_ok=True, rel=0, abs=0)
    vector = m2_prf(tp, tp + fp, tp + fn, b)
    for i, (x, y, z) in enumerate(rows):
        assert [v[i] for v in vector] == list(m2_prf(x, x + y, x + z, b))


def test_the_conventions_differ_where_documented():
    # No hypothesis edit against one reference edit: ERRANT's P is 1 (FP = 0), the others' too (TP + FP = 0);
    # one false positive and nothing else: ERRANT's R is 1 (FN = 0), as are the others'.
    assert prf(0.0, 0.0, 1.0, 0.5, "errant")[:2] == (1.0, 0.0)
    # Only FP = 0 separates them: a transported mass with TP + FP = 0 but FP != 0 (UOT cancellation).
    assert prf(2.0, -2.0, 0.0, 0.5, "denominator")[0] == 1.0
    with pytest.raises(ZeroDivisionError):
        prf(2.0, -2.0, 0.0, 0.5, "errant")
    # beta = 0 with R = 0: ERRANT's F is 1 (only the denominator vanishes), M²'s is 0.
    assert f_beta(0.5, 0.0, 0.0, "errant") == 1.0
    assert f_beta(0.5, 0.0, 0.0, "m2") == 0.0
    assert f_beta(0.0, 0.0, 0.5, "errant") == f_beta(0.0, 0.0, 0.5, "m2") == 0.0
    with pytest.raises(ValueError, match="m2_prf"):
        prf(1.0, 0.0, 0.0, 0.5, "m2")
    assert CONVENTIONS == ("errant", "denominator", "m2", "zero")
    # The original GoToScorer's: 0 where a denominator vanishes (its ZeroDivisionError branches).
    assert prf(0.0, 0.0, 0.0, 0.5, "zero") == (0.0, 0.0, 0.0)
    assert prf(1.0, 0.0, 0.0, 0.5, "zero") == (1.0, 1.0, 1.0)
    assert prf(0.0, 2.0, 0.0, 0.5, "zero")[:2] == (0.0, 0.0)


def test_beta_squared_rounds_as_each_reference():
    # Python's `beta ** 2` (C pow) and `beta * beta` differ in the last bit for about one beta in a thousand (which
    # ones depends on the libm); each convention must use its reference's.
    betas = np.random.default_rng(0).uniform(0, 10, 5000).tolist()
    p, r = 0.3, 0.7
    for b in betas:
        assert f_beta(p, r, b, "errant") == (1 + b ** 2) * p * r / (b ** 2 * p + r)
        assert f_beta(p, r, b, "m2") == (1.0 + b * b) * p * r / (b * b * p + r)
