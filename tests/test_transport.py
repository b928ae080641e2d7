"""Edit vectors, masses, the unbalanced transport and its counts; degenerate transports and robust mode."""

import numpy as np
import ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscore.common.edits import Edit
from gecscore.common.errant_scoring import Counts, FScore, total
from gecscore.uot_errant.transport import (
    edit_masses, edit_vectors, transport, typed_transport_counts, variant_texts,
)

UOT = FScore(0.5, "denominator")


def edit(o_start, o_end, c_str, etype="R:OTHER"):
    return Edit(o_start, o_end, "x", o_start, o_start + len(c_str.split()) if c_str else o_start, c_str, etype)


def vec(*values):
    return np.array(values, dtype=np.float32)


def scaled(direction, norm):
    direction = np.asarray(direction, dtype=np.float32)
    return (direction / np.linalg.norm(direction) * norm).astype(np.float32)


def test_variant_texts():
    source = "he go to school yesterday"
    edits = [edit(1, 2, "went"), edit(4, 5, "")]
    assert variant_texts(source, edits) == [
        "he went to school", "he go to school", "he went to school yesterday",
    ]
    assert variant_texts(source, edits, "src-add") == [source, "he went to school yesterday", "he go to school"]
    assert variant_texts(source, []) == [source]
    with pytest.raises(ValueError, match="`vectorize`"):
        variant_texts(source, edits, "remove")


def test_edit_vectors_and_masses():
    base, variants = vec(1, 1), np.stack([vec(1, 0), vec(4, 5)])
    np.testing.assert_array_equal(edit_vectors(base, variants), [[0, 1], [-3, -4]])
    np.testing.assert_array_equal(edit_vectors(base, variants, "src-add"), [[0, -1], [3, 4]])
    masses = edit_masses(edit_vectors(base, variants))
    assert masses.dtype == np.float32
    np.testing.assert_allclose(masses, [1, 5])
    uniform = edit_masses(edit_vectors(base, variants), "uniform")
    assert uniform.dtype == np.float64 and uniform.tolist() == [0.5, 0.5]
    assert edit_masses(np.zeros((0, 2), np.float32)).shape == (0,)
    with pytest.raises(ValueError, match="`mass`"):
        edit_masses(masses[:, None], "l1")


def test_plan_is_exactly_pots_kl_solution():
    rng = np.random.default_rng(1)
    h, r = rng.normal(size=(3, 6)).astype(np.float32), rng.normal(size=(2, 6)).astype(np.float32)
    a, b = edit_masses(h), edit_masses(r)
    result = transport(h, r, a, b)
    expected = ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b, ot.dist(h, r, metric="euclidean"), reg=0.1, reg_m=0.1, reg_type="kl")
    assert result.plan.dtype == np.float32
    np.testing.assert_array_equal(result.plan, expected)
    assert not result.degenerate
    cos = transport(h, r, a, b, cost="cosine")
    assert not np.allclose(cos.plan, result.plan)
    with pytest.raises(ValueError, match="`cost`"):
        transport(h, r, a, b, cost="manhattan")


@pytest.mark.parametrize("norm", [0.14, 1.0, 1.43])
def test_perfect_single_edit_scores_norm_to_the_third(norm):
    # docs/reference-behaviour.md, UOT-ERRANT: one edit matched by an identical reference edit transports a^(4/3):
    # P = R = F = a^(1/3).
    v = scaled([1.0, 2.0, 3.0], norm)[None, :]
    a = edit_masses(v)
    result = transport(v, v, a, a)
    counts = total(typed_transport_counts([edit(0, 1, "x")], [edit(0, 1, "x")], a, a, result).values())
    assert UOT.prf(counts).f == pytest.approx(norm ** (1 / 3), rel=1e-3)
    robust = transport(v, v, a, a, robust=True)
    robust_counts = total(typed_transport_counts([edit(0, 1, "x")], [edit(0, 1, "x")], a, a, robust).values())
    assert UOT.prf(robust_counts).f == pytest.approx(min(1.0, norm ** (1 / 3)), rel=1e-3)


def test_over_transport_gives_precision_above_one_unless_robust():
    # docs/reference-behaviour.md, UOT-ERRANT: a = 0.5, b = 2.0, zero cost transports 1.0 (P = 2.0).
    v = vec(1, 0)[None, :]
    a, b = np.array([0.5], np.float32), np.array([2.0], np.float32)
    result = transport(v, v, a, b)
    assert float(result.plan[0, 0]) == pytest.approx(1.0, rel=1e-4)
    counts = total(typed_transport_counts([edit(0, 1, "x")], [edit(0, 1, "x")], a, b, result).values())
    assert UOT.prf(counts).p == pytest.approx(2.0, rel=1e-4)
    assert counts.fp < 0
    capped = transport(v, v, a, b, robust=True)
    assert float(capped.plan[0, 0]) == pytest.approx(0.5)
    # identical unit masses at distance 1 transport only ~0.036
    one = np.ones(1, np.float32)
    far = transport(vec(1, 0)[None, :], vec(1, 1)[None, :], one, one)
    assert far.plan.sum() == pytest.approx(0.036, abs=1e-3)


def test_empty_side_transports_nothing():
    h = np.ones((2, 3), np.float32)
    a = edit_masses(h)
    result = transport(h, np.zeros((0, 3), np.float32), a, np.zeros(0, np.float32))
    assert result.plan.shape == (2, 0) and not result.degenerate
    counts = typed_transport_counts([edit(0, 1, "a", "T1"), edit(2, 3, "b", "T2")], [], a, np.zeros(0), result)
    assert counts == {"T1": Counts(0.0, float(a[0]), 0.0), "T2": Counts(0.0, float(a[1]), 0.0)}


def test_typed_counts_use_marginals_and_type_order():
    plan = np.array([[0.2, 0.1], [0.0, 0.3]], np.float32)
    from gecscore.uot_errant.transport import Transport

    result = Transport(plan, plan.sum(axis=1), plan.sum(axis=0))
    a, b = np.array([0.5, 0.3], np.float32), np.array([0.4, 0.6], np.float32)
    counts = typed_transport_counts([edit(0, 1, "a", "B"), edit(2, 3, "b", "A")],
                                    [edit(0, 1, "a", "A"), edit(4, 5, "c", "C")], a, b, result)
    assert list(counts) == ["B", "A", "C"]
    assert counts["B"].tp == pytest.approx(0.3) and counts["B"].fp == pytest.approx(0.2)
    assert counts["A"].fn == pytest.approx(0.2) and counts["C"].fn == pytest.approx(0.2)
    assert total(counts.values()).tp == pytest.approx(float(plan.sum()))


def _zero_mass_case():
    rng = np.random.default_rng(0)
    h = (rng.normal(size=(3, 8)) * 0.3).astype(np.float32)
    r = (rng.normal(size=(4, 8)) * 0.3).astype(np.float32)
    r[1] = h[0]
    return h, r


def test_zero_mass_reference_edit_is_flagged_and_robust_takes_the_zero_mass_limit():
    h, r = _zero_mass_case()
    r[2] = 0.0                                   # a case-only edit under an uncased encoder
    a, b = edit_masses(h), edit_masses(r)
    with _no_warning_escapes():
        default = transport(h, r, a, b)
    assert default.degenerate
    assert any("Numerical errors" in w for w in default.pot_warnings)
    assert any("zero-mass reference edit(s) [2]" in i for i in default.issues)

    robust = transport(h, r, a, b, robust=True)
    assert robust.dropped_ref == (2,) and robust.dropped_hyp == ()
    assert not robust.pot_warnings and not robust.degenerate
    # the reference's value as that edit's mass tends to 0
    tiny = r.copy()
    tiny[2] = scaled(np.ones(8), 1e-5)
    limit = transport(h, tiny, a, edit_masses(tiny))
    np.testing.assert_allclose(robust.transported_hyp, limit.transported_hyp, atol=1e-5)


def test_zero_mass_hypothesis_edit_reproduces_reference_blow_up():
    # Golden case shape (SEEDA BART sentence 17): hyp edit of mass m against ref edits [0.0, identical one].
    v = scaled([1.0, -2.0, 0.5, 3.0], 1.4196)[None, :]
    refs = np.vstack([np.zeros_like(v), v])
    a, b = edit_masses(v), edit_masses(refs)
    default = transport(v, refs, a, b)
    assert float(default.plan.sum()) == pytest.approx(1.4196 ** 2, rel=1e-4)   # the kernel a·b, not a solution
    assert "divide by zero encountered in log" in default.pot_warnings
    robust = transport(v, refs, a, b, robust=True)
    assert float(robust.plan.sum()) == pytest.approx(1.4196, rel=1e-5)          # capped at the available mass


def test_blas_status_warnings_are_not_a_degenerate_transport(monkeypatch):
    """numpy's floating-point status after a BLAS product ("invalid value encountered in dot") comes and goes with
    the memory around the arrays (OpenBLAS lanes whose values are thrown away): it is not an issue of a finite plan.
    POT's own "Numerical errors" warning, and any other numpy warning, still is."""
    import warnings

    import gecscore.uot_errant.transport as tr

    solve = tr.sinkhorn_unbalanced
    h, r = np.array([vec(1.0, 0.5)]), np.array([vec(0.9, 0.4)])
    a, b = edit_masses(h), edit_masses(r)
    clean = transport(h, r, a, b)
    for message, degenerate in (("invalid value encountered in dot", False), ("overflow encountered in matmul", False),
                                ("invalid value encountered in multiply", True),
                                ("Numerical errors at iteration 3", True)):
        def noisy(*args, message=message, **kwargs):
            warnings.warn(message, RuntimeWarning)
            return solve(*args, **kwargs)

        monkeypatch.setattr(tr, "sinkhorn_unbalanced", noisy)
        for robust in (False, True):
            t = transport(h, r, a, b, robust=robust)
            assert t.degenerate is degenerate and (message in t.issues) is degenerate, (message, robust)
        np.testing.assert_array_equal(transport(h, r, a, b).plan, clean.plan)


class _no_warning_escapes:
    """Context manager asserting that POT's and numpy's warnings are captured, not re-emitted."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings(record=True)
        self.caught = self._ctx.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        assert not self.caught, [str(w.message) for w in self.caught]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 10_000), st.sampled_from(["euclidean", "cosine"]),
       st.sampled_from([0.0, 1e-3, 1.0, 5.0]))
def test_robust_scores_are_finite_and_in_unit_range(n, m, seed, cost, scale):
    rng = np.random.default_rng(seed)
    h = (rng.normal(size=(n, 5)) * rng.uniform(0.05, 3, size=(n, 1))).astype(np.float32)
    r = (rng.normal(size=(m, 5)) * rng.uniform(0.05, 3, size=(m, 1))).astype(np.float32)
    h[0] *= scale                                # sometimes a zero vector
    r[-1] = h[-1] if seed % 2 else r[-1] * scale
    a, b = edit_masses(h), edit_masses(r)
    result = transport(h, r, a, b, cost=cost, robust=True)
    assert np.all(np.isfinite(result.plan)) and np.all(result.plan >= 0)
    assert np.all(result.transported_hyp <= a + 1e-6) and np.all(result.transported_ref <= b + 1e-6)
    hyp = [edit(i, i + 1, "h") for i in range(n)]
    ref = [edit(i, i + 1, "r") for i in range(m)]
    p, r_, f = UOT.prf(total(typed_transport_counts(hyp, ref, a, b, result).values()))
    assert all(0.0 <= x <= 1.0 + 1e-6 for x in (p, r_, f))
