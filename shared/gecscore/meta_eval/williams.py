"""Williams' (1959) test for the difference between two dependent correlations that share a variable.

Graham & Baldwin (EMNLP 2014, https://aclanthology.org/D14-1020) recommend it for asking whether metric A
correlates with the humans significantly better than metric B, where both are scored on the same systems:

    t(n - 3) = (r12 - r13) sqrt((n - 1)(1 + r23))
               / sqrt(2 K (n - 1) / (n - 3) + ((r12 + r13) / 2)^2 (1 - r23)^3),
    K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23,

with variable 1 the human scores, 2 metric A, 3 metric B; the p-value is one-sided, P(T > t), for the
alternative r12 > r13. The more A and B agree with each other (r23), the smaller a difference is significant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from gecscore.meta_eval.correlate import system_correlation


@dataclass(frozen=True)
class WilliamsTest:
    """Williams' t (n - 3 degrees of freedom) and its one-sided p-value for r12 > r13."""

    r12: float
    r13: float
    r23: float
    n: int
    t: float
    p: float


def williams_test(r12: float, r13: float, r23: float, n: int) -> WilliamsTest:
    """Test r12 > r13 (variable 1 shared) given r23 and the sample size `n`."""
    from scipy.stats import t as student_t

    if n <= 3:
        raise ValueError(f"Williams' test needs n > 3, got n={n}")
    for name, r in (("r12", r12), ("r13", r13), ("r23", r23)):
        if not -1.0 <= r <= 1.0:
            raise ValueError(f"{name} must be a correlation in [-1, 1], got {r}")
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    if k < -1e-12:
        raise ValueError(f"r12={r12}, r13={r13}, r23={r23} cannot all hold at once (determinant {k:.3g} < 0)")
    if r12 == r13:
        return WilliamsTest(r12, r13, r23, n, 0.0, 0.5)
    denominator = math.sqrt(2 * max(k, 0.0) * (n - 1) / (n - 3) + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3)
    if denominator == 0.0:
        raise ValueError(f"Williams' test is undefined for r12={r12}, r13={r13}, r23={r23} (zero variance)")
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / denominator
    return WilliamsTest(r12, r13, r23, n, t, float(student_t.sf(t, n - 3)))


def compare_metrics(human: Mapping[str, float], metric_a: Mapping[str, float], metric_b: Mapping[str, float],
                    systems: Sequence[str]) -> WilliamsTest:
    """Williams' test that metric A's Pearson r with the humans beats metric B's, over `systems`."""
    missing = [s for s in systems if s not in human or s not in metric_a or s not in metric_b]
    if missing:
        raise ValueError(f"no score for systems {missing}")
    h, a, b = ([m[s] for s in systems] for m in (human, metric_a, metric_b))
    r12, r13, r23 = (system_correlation(x, y).pearson for x, y in ((a, h), (b, h), (a, b)))
    if any(math.isnan(r) for r in (r12, r13, r23)):
        raise ValueError("Williams' test needs non-constant scores (a Pearson r is undefined)")
    return williams_test(r12, r13, r23, len(systems))
