"""Edit vectors and their unbalanced optimal transport (the numerical core of UOT-ERRANT).

Pure numpy over plain data. The default path repeats the reference computation step by step in float32
(`docs/reference-behaviour.md`, section "UOT-ERRANT"): edit vectors from sentence embeddings, masses, POT's
`ot.dist` cost and `sinkhorn_stabilized_unbalanced(a, b, M, reg, reg_m, reg_type="kl")` (both run here,
bit-identical to POT: see "The solver" below), and TP/FP/FN read off the plan's marginals. Degenerate transports
(zero-mass edits, the solver's numerical warnings, non-finite or exploding plans) are detected and reported;
`robust=True` takes zero-vector/zero-mass edits out of the transport and caps transported mass at the available
mass, so every count is finite and P, R, F lie in [0, 1].
"""

from __future__ import annotations

import re
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
#: numpy's check of the floating-point status after a BLAS product ("invalid value encountered in dot"). OpenBLAS's
#: vector kernels can leave a flag set from lanes whose values are thrown away, so the message comes and goes with
#: the memory around the arrays: on one CI run it flagged 2 of 16 SEEDA sentences in one process and not in
#: another, with identical plans. It is not a sign of a degenerate transport: a real NaN or infinity from a product
#: reaches the plan ("non-finite transport plan") or POT's own check ("Numerical errors at iteration ...").
BLAS_STATUS = re.compile(r"encountered in (dot|matmul|vecdot|matvec|vecmat)$")


# ---------------------------------------------------------------------------------------------------
# The solver
#
# The reference solves every sentence with POT: `ot.dist(x, y, metric)` for the cost, then
# `ot.unbalanced.sinkhorn_stabilized_unbalanced(a, b, M, reg, reg_m, reg_type="kl")`: the generalised scaling
# iteration for KL-penalised marginals with log-domain absorption of large scalings (Chizat, Peyré, Schmitzer and
# Vialard 2018, "Scaling algorithms for unbalanced optimal transport problems", Algorithm 2). `cost_matrix` and
# `sinkhorn_unbalanced` run it for one pair of histograms directly on numpy arrays, with the same operations in the
# same order and dtypes as POT 0.9.x, so plans and warnings are bit-identical (`tests/test_sinkhorn.py` checks both
# against POT). Why not call POT: UOT-ERRANT's problems are a few edits by a few edits, where POT's backend dispatch
# is most of the work, and `import ot` pulls in scikit-learn (about 1.5 s of every process). See
# `docs/exact-speedups.md`.

#: POT's defaults for the absorption threshold, iteration cap and stopping threshold.
TAU = 1e5
MAX_ITERATIONS = 1000
STOP_THRESHOLD = 1e-6

NUMERICAL_ERRORS = "Numerical errors at iteration %s"
NOT_CONVERGED = ("Stabilized Unbalanced Sinkhorn did not converge.Try a larger entropy `reg` or a lower mass "
                 "`reg_m`.Or a larger absorption threshold `tau`.")


def cost_matrix(x: np.ndarray, y: np.ndarray, metric: str) -> np.ndarray:
    """Pairwise cost between the rows of `x` and `y`: `euclidean` or `cosine` distance, as `ot.dist` computes it
    (squared norms plus the cross term, clipped at 0, then the root; cosine from the dot product over norms)."""
    if metric == "euclidean":
        cost = -2 * np.dot(x, y.T)
        cost += np.einsum("ij,ij->i", x, x)[:, None]
        cost += np.einsum("ij,ij->i", y, y)[None, :]
        cost = np.sqrt(np.maximum(cost, 0))
        if x is y:  # the diagonal of a self-distance is exactly 0
            cost = cost * (1 - np.eye(x.shape[0], dtype=cost.dtype))
        return cost
    if metric == "cosine":
        x_norms = np.sqrt(np.einsum("ij,ij->i", x, x))
        y_norms = np.sqrt(np.einsum("ij,ij->i", y, y))
        return 1.0 - (np.dot(x, y.T) / x_norms[:, None] / y_norms[None, :])
    raise ValueError(f"`metric` must be 'euclidean' or 'cosine', got {metric!r}")


def sinkhorn_unbalanced(a: np.ndarray, b: np.ndarray, cost: np.ndarray, reg: float, reg_m: float, *,
                        tau: float = TAU, max_iterations: int = MAX_ITERATIONS,
                        stop_threshold: float = STOP_THRESHOLD) -> np.ndarray:
    """Transport plan (len(a), len(b)) of the KL-regularised unbalanced problem, reference measure a ⊗ b.

    Scalings u, v are updated alternately; when one passes `tau` it is absorbed into the log-domain potentials
    alpha, beta and the kernel is rebuilt. The loop stops when u changes by at most `stop_threshold` (relative,
    checked at the first iteration and every tenth without absorption), after `max_iterations`, or when a scaling
    turns non-finite or a kernel column sum is 0 (then the previous scalings are kept and a warning is raised).
    """
    u, v = np.ones(len(a), dtype=cost.dtype), np.ones(len(b), dtype=cost.dtype)
    shifted = cost - reg * np.log(a[:, None] * b[None, :])
    kernel = np.exp(-shifted / reg)
    penalised = reg_m != float("inf")  # an infinite marginal penalty: balanced, exponent 1 and no damping
    fi = reg_m / (reg_m + reg) if penalised else 1
    alpha, beta = np.zeros(len(a), dtype=cost.dtype), np.zeros(len(b), dtype=cost.dtype)
    # Until the first absorption alpha = beta = 0, so the damping factors exp(-alpha / (reg + reg_m)) are exactly 1
    # and multiplying by them changes no bit (nor the dtype: the scalings already have the kernel's dtype or a wider
    # one); skipping them is exact and saves a third of the work of an iteration.
    absorbed = False
    iteration, err = 0, 1.0
    kv = np.dot(kernel, v)
    while err > stop_threshold and iteration < max_iterations:
        u_prev, v_prev = u, v
        u = (a / (kv + 1e-16)) ** fi
        if absorbed and penalised:
            u = u * np.exp(-alpha / (reg + reg_m))
        ktu = np.dot(kernel.T, u)
        v = (b / (ktu + 1e-16)) ** fi
        if absorbed and penalised:
            v = v * np.exp(-beta / (reg + reg_m))
        absorbing = bool((u > tau).any() or (v > tau).any())
        if absorbing:
            absorbed = True
            alpha = alpha + reg * np.log(np.max(u))
            beta = beta + reg * np.log(np.max(v))
            kernel = np.exp((alpha[:, None] + beta[None, :] - shifted) / reg)
            v = np.ones(v.shape, dtype=v.dtype)
        kv = np.dot(kernel, v)  # where POT computes it (its overflow warnings come here); the next iteration uses it
        if (ktu == 0.0).any() or not (np.isfinite(u).all() and np.isfinite(v).all()):
            warnings.warn(NUMERICAL_ERRORS % iteration)
            u, v = u_prev, v_prev
            break
        if (iteration % 10 == 0 and not absorbing) or iteration == 0:
            err = np.abs(u - u_prev).max() / max(np.abs(u).max(), np.abs(u_prev).max(), 1.0)
        iteration += 1
    if err > stop_threshold:
        warnings.warn(NOT_CONVERGED)
    log_u = alpha / reg + np.log(u)
    log_v = beta / reg + np.log(v)
    return np.exp(log_u[:, None] + log_v[None, :] - shifted / reg)


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
    """The stabilised unbalanced Sinkhorn (bit-identical to POT's), every warning it raises recorded but numpy's
    floating-point status after a BLAS product (`BLAS_STATUS`)."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn", over="warn", invalid="warn"):
        warnings.simplefilter("always")
        plan = sinkhorn_unbalanced(a, b, cost_matrix(hyp_vectors, ref_vectors, cost), reg, reg_m)
    messages = tuple(dict.fromkeys(str(w.message) for w in caught if not BLAS_STATUS.search(str(w.message))))
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


def perfect_transport(a: np.ndarray) -> Transport:
    """Identical edit sets (a prediction equal to the reference): every edit sent onto itself with all its mass.

    Robust mode only. The entropic, mass-relaxed plan of two identical sets moves a little less (or, unrobust,
    more) than every mass, so a perfect correction would score 0.9 or 1.02; this is the plan it approximates, and
    it scores P = R = F = 1 exactly, as ERRANT does."""
    return Transport(np.diag(a), a.copy(), a.copy())


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
