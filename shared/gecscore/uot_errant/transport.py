"""Edit vectors and their unbalanced optimal transport (the numerical core of UOT-ERRANT).

Pure numpy/POT over plain data. The default path repeats the reference computation step by step in float32
(`docs/reference-behaviour.md`, section "UOT-ERRANT"): edit vectors from sentence embeddings, masses, `ot.dist`
cost, `ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b, M, reg, reg_m, reg_type="kl")`, and TP/FP/FN read off
the plan's marginals. Degenerate transports (zero-mass edits, POT numerical warnings, non-finite or exploding
plans) are detected and reported; `robust=True` takes zero-vector/zero-mass edits out of the transport and caps
transported mass at the available mass, so every count is finite and P, R, F lie in [0, 1].
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gecscore.common.edits import Edit, apply_edits
from gecscore.common.errant_scoring import Counts

VECTORIZE_MODES = ("ref-remove", "src-add")
MASS_MODES = ("norm", "uniform")
COST_MODES = ("euclidean", "cosine")

#: Robust mode: edits whose vector norm or mass is at most this take no part in the transport.
ZERO_MASS = 1e-6
#: A plan carrying more than this many times the larger total mass counts as exploded.
EXPLOSION_FACTOR = 10.0


def check_mode(name: str, value: str, allowed: Sequence[str]) -> str:
    """Return `value` if it is one of `allowed`, else raise naming the option."""
    if value not in allowed:
        raise ValueError(f"`{name}` must be one of {tuple(allowed)}, got {value!r}")
    return value


def variant_texts(source: str, edits: Sequence[Edit], vectorize: str = "ref-remove") -> list[str]:
    """Texts to embed for one edit set: the base text, then one text per edit.

    `ref-remove`: base = source with all edits, variant i = all edits but i.
    `src-add`: base = source, variant i = source with edit i only.
    """
    check_mode("vectorize", vectorize, VECTORIZE_MODES)
    if vectorize == "ref-remove":
        base = apply_edits(source, edits)
        variants = [apply_edits(source, [e for j, e in enumerate(edits) if j != i]) for i in range(len(edits))]
    else:
        base = source
        variants = [apply_edits(source, [e]) for e in edits]
    return [base] + variants


def edit_vectors(base: np.ndarray, variants: np.ndarray, vectorize: str = "ref-remove") -> np.ndarray:
    """Edit vectors (k, H): `base − variant_i` for `ref-remove`, `variant_i − base` for `src-add` (float32)."""
    check_mode("vectorize", vectorize, VECTORIZE_MODES)
    base = np.asarray(base, dtype=np.float32)
    variants = np.asarray(variants, dtype=np.float32).reshape(-1, base.shape[-1])
    return base[None, :] - variants if vectorize == "ref-remove" else variants - base[None, :]


def edit_masses(vectors: np.ndarray, mass: str = "norm") -> np.ndarray:
    """Edit masses: L2 norms of the vectors (float32) or uniform 1/k (float64, as the reference)."""
    check_mode("mass", mass, MASS_MODES)
    k = vectors.shape[0]
    if k == 0:
        return np.zeros(0, dtype=np.float32)
    if mass == "norm":
        return np.linalg.norm(vectors, axis=-1)
    return np.full(k, 1 / k)


@dataclass(frozen=True)
class Transport:
    """The plan between hypothesis edits (rows) and reference edits (columns) and what went wrong computing it.

    `issues` is empty for a sound transport; otherwise it says why the plan is degenerate (reference behaviour
    is kept in the default mode, so such a plan may carry far more mass than exists).
    """

    plan: np.ndarray
    transported_hyp: np.ndarray
    transported_ref: np.ndarray
    pot_warnings: tuple[str, ...] = ()
    issues: tuple[str, ...] = ()
    dropped_hyp: tuple[int, ...] = ()
    dropped_ref: tuple[int, ...] = ()
    #: Some edit sends or receives more than its mass (robust mode caps it; the default keeps it, so F can pass 1).
    over_transport: bool = False

    @property
    def degenerate(self) -> bool:
        """Whether anything about this transport is numerically suspect."""
        return bool(self.issues)


def _solve(hyp_vectors: np.ndarray, ref_vectors: np.ndarray, a: np.ndarray, b: np.ndarray, cost: str,
           reg: float, reg_m: float) -> tuple[np.ndarray, tuple[str, ...]]:
    """POT's stabilised unbalanced Sinkhorn, with every warning it raises recorded."""
    import ot

    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn", over="warn", invalid="warn"):
        warnings.simplefilter("always")
        cost_matrix = ot.dist(hyp_vectors, ref_vectors, metric=cost)
        plan = ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b, cost_matrix, reg=reg, reg_m=reg_m, reg_type="kl")
    messages = tuple(dict.fromkeys(str(w.message) for w in caught))
    return np.asarray(plan), messages


def _over(plan: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether some edit sends or receives more than its mass (what `_cap` changes)."""
    with np.errstate(invalid="ignore"):
        return bool(np.any(plan.sum(axis=1) > a) or np.any(plan.sum(axis=0) > b))


def _cap(plan: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Scale each entry by min(1, a_i/rowsum_i, b_j/colsum_j): no edit sends or receives more than its mass."""
    rows, cols = plan.sum(axis=1), plan.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        row_scale = np.where(rows > a, a / rows, 1.0)
        col_scale = np.where(cols > b, b / cols, 1.0)
    return (plan * np.minimum(row_scale[:, None], col_scale[None, :])).astype(plan.dtype, copy=False)


def transport(hyp_vectors: np.ndarray, ref_vectors: np.ndarray, a: np.ndarray, b: np.ndarray, *,
              cost: str = "euclidean", reg: float = 0.1, reg_m: float = 0.1, robust: bool = False) -> Transport:
    """Transport hypothesis edit masses `a` onto reference edit masses `b` (nothing moves if a side is empty)."""
    check_mode("cost", cost, COST_MODES)
    n, m = len(a), len(b)
    dtype = np.result_type(a, b, np.float32)
    empty = Transport(np.zeros((n, m), dtype=dtype), np.zeros_like(a), np.zeros_like(b))
    if n == 0 or m == 0:
        return empty
    if not robust:
        plan, messages = _solve(hyp_vectors, ref_vectors, a, b, cost, reg, reg_m)
        issues = list(messages)
        if np.any(a <= 0):
            issues.append(f"zero-mass hypothesis edit(s) {np.flatnonzero(a <= 0).tolist()}")
        if np.any(b <= 0):
            issues.append(f"zero-mass reference edit(s) {np.flatnonzero(b <= 0).tolist()}")
        if not np.all(np.isfinite(plan)):
            issues.append("non-finite transport plan")
        elif plan.sum() > EXPLOSION_FACTOR * max(float(a.sum()), float(b.sum())):
            issues.append(f"transported mass {float(plan.sum()):.6g} exceeds {EXPLOSION_FACTOR:g}x the available mass")
        return Transport(plan, plan.sum(axis=1), plan.sum(axis=0), messages, tuple(issues),
                         over_transport=_over(plan, a, b))

    hyp_norms = np.linalg.norm(hyp_vectors, axis=-1)
    ref_norms = np.linalg.norm(ref_vectors, axis=-1)
    keep_h = np.flatnonzero((a > ZERO_MASS) & (hyp_norms > ZERO_MASS))
    keep_r = np.flatnonzero((b > ZERO_MASS) & (ref_norms > ZERO_MASS))
    dropped_h = tuple(sorted(set(range(n)) - set(keep_h.tolist())))
    dropped_r = tuple(sorted(set(range(m)) - set(keep_r.tolist())))
    plan = np.zeros((n, m), dtype=dtype)
    messages: tuple[str, ...] = ()
    issues: list[str] = []
    over = False
    if len(keep_h) and len(keep_r):
        sub, messages = _solve(hyp_vectors[keep_h], ref_vectors[keep_r], a[keep_h], b[keep_r], cost, reg, reg_m)
        if np.all(np.isfinite(sub)):
            over = _over(sub, a[keep_h], b[keep_r])
            plan[np.ix_(keep_h, keep_r)] = _cap(sub, a[keep_h], b[keep_r])
        else:
            issues.append("non-finite transport plan (robust: nothing transported)")
    issues += list(messages)
    return Transport(plan, plan.sum(axis=1), plan.sum(axis=0), messages, tuple(issues), dropped_h, dropped_r, over)


def typed_transport_counts(hyp_edits: Sequence[Edit], ref_edits: Sequence[Edit], a: np.ndarray, b: np.ndarray,
                           result: Transport) -> dict[str, Counts]:
    """UOT counts per error type: hyp edit i adds TP = sent mass, FP = a_i − sent; ref edit j adds FN = b_j − received.

    Differences are taken in the masses' dtype (float32 by default) and summed as Python floats in edit order,
    as the reference does.
    """
    by_type: dict[str, Counts] = {}
    for i, e in enumerate(hyp_edits):
        sent = result.transported_hyp[i]
        by_type[e.type] = by_type.get(e.type, Counts()) + Counts(tp=float(sent), fp=float(a[i] - sent))
    for j, e in enumerate(ref_edits):
        by_type[e.type] = by_type.get(e.type, Counts()) + Counts(fn=float(b[j] - result.transported_ref[j]))
    return by_type
