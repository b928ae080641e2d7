"""gecscore's stabilised unbalanced Sinkhorn and cost matrices are bit-identical to POT's (the reference's solver)."""

import warnings

import numpy as np
import ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscore.uot_errant.transport import BLAS_STATUS, cost_matrix, sinkhorn_unbalanced


def recorded(solve):
    """The plan and the messages of every warning raised while computing it (as `transport._solve` records them)."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn", over="warn", invalid="warn"):
        warnings.simplefilter("always")
        plan = solve()
    return plan, [str(w.message) for w in caught]


def assert_same(ours, pots):
    (plan, messages), (expected, expected_messages) = ours, pots
    assert plan.dtype == expected.dtype and plan.shape == expected.shape
    np.testing.assert_array_equal(plan, expected)  # bit for bit, NaN where POT has NaN
    # Distinct messages in order of first appearance, as `transport._solve` keeps them: POT computes K·v twice per
    # iteration (the second time with the same K and v), so it repeats the same overflow warning. numpy's status
    # check after a BLAS product (`BLAS_STATUS`) is left out, as `_solve` leaves it out: OpenBLAS can leave a flag
    # from lanes it throws away, so it comes and goes with the memory around the arrays (a clean-clone run with one
    # BLAS thread a test worker saw it after our dot and not after POT's, with bit-identical plans).
    def kept(texts):
        return list(dict.fromkeys(t for t in texts if not BLAS_STATUS.search(t)))

    assert kept(messages) == kept(expected_messages)


@st.composite
def problems(draw):
    """Edit-vector problems as UOT-ERRANT meets them: a few edits, float32 vectors of any scale (zero vectors
    included: they give zero masses, POT's log(0) and its numerical-error fallback), norm or uniform masses."""
    n, m, dim = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(2, 6))
    scale = draw(st.sampled_from([1e-4, 0.05, 1.0, 3.0, 40.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = (rng.normal(size=(n, dim)) * scale).astype(np.float32)
    y = (rng.normal(size=(m, dim)) * scale).astype(np.float32)
    if draw(st.booleans()):
        y[0] = x[0]  # the same edit on both sides: the float32 cost of near-identical vectors is noisy
    if draw(st.booleans()):
        x[-1] = 0.0
    uniform = draw(st.booleans())
    a = np.full(n, 1 / n) if uniform else np.linalg.norm(x, axis=-1)
    b = np.full(m, 1 / m) if uniform else np.linalg.norm(y, axis=-1)
    reg = draw(st.sampled_from([0.01, 0.1, 1.0]))
    reg_m = draw(st.sampled_from([0.1, 1.0, 10.0, float("inf")]))
    return x, y, a, b, draw(st.sampled_from(["euclidean", "cosine"])), reg, reg_m


@settings(max_examples=300, deadline=None)
@given(problems())
def test_bit_identical_to_pot(problem):
    x, y, a, b, metric, reg, reg_m = problem
    pots = recorded(lambda: ot.unbalanced.sinkhorn_stabilized_unbalanced(
        a, b, ot.dist(x, y, metric=metric), reg=reg, reg_m=reg_m, reg_type="kl"))
    assert_same(recorded(lambda: sinkhorn_unbalanced(a, b, cost_matrix(x, y, metric), reg, reg_m)), pots)


def test_cost_matrix_is_pots_including_a_self_distance():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(4, 5)).astype(np.float32), rng.normal(size=(3, 5)).astype(np.float32)
    for metric in ("euclidean", "cosine"):
        expected = ot.dist(x, y, metric=metric)
        ours = cost_matrix(x, y, metric)
        assert ours.dtype == expected.dtype
        np.testing.assert_array_equal(ours, expected)
    self_distance = cost_matrix(x, x, "euclidean")
    np.testing.assert_array_equal(self_distance, ot.dist(x, x, metric="euclidean"))
    assert not np.diag(self_distance).any()  # POT zeroes the diagonal when both sides are the same array
    with pytest.raises(ValueError, match="`metric`"):
        cost_matrix(x, y, "cityblock")


def test_absorption_numerical_errors_and_non_convergence_match_pot():
    """The three paths beyond a plain run: log-domain absorption (tiny reg), POT's numerical-error fallback (a
    zero mass) and its non-convergence warning (an iteration cap)."""
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(2, 4)).astype(np.float32)
    a, b = np.linalg.norm(x, axis=-1), np.linalg.norm(y, axis=-1)
    cost = ot.dist(x, y, metric="euclidean")
    cases = [(a, b, 0.001, 0.1, {}), (np.array([0.0, *a[1:]], np.float32), b, 0.1, 0.1, {}),
             (a, b, 0.01, 1.0, {"numItermax": 3})]
    seen = set()
    for a_, b_, reg, reg_m, options in cases:
        pots = recorded(lambda: ot.unbalanced.sinkhorn_stabilized_unbalanced(
            a_, b_, cost, reg=reg, reg_m=reg_m, reg_type="kl", **options))
        limit = {"max_iterations": options["numItermax"]} if options else {}
        assert_same(recorded(lambda: sinkhorn_unbalanced(a_, b_, cost, reg, reg_m, **limit)), pots)
        seen.update(m.split(" at iteration")[0].split(".")[0] for m in pots[1])
    assert {"Numerical errors", "Stabilized Unbalanced Sinkhorn did not converge"} <= seen
