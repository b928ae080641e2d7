"""GLEU as gec-metrics 0.1.1 computes it (its `gleu` id): the script's metric in GREEN's reformulation.

Koyama et al. (2024) rewrite GLEU's per-order precision in terms of how each hypothesis k-gram relates to the source
and the reference: (TI + TK − UD) / (TI + TK + OI + UD), where UD ("under-deleted") counts the k-grams kept from the
source beyond what the reference keeps. The denominator is the hypothesis k-gram count, as in the script; the
numerator differs from the script's in three ways that move scores (docs/reference-behaviour.md, "GLEU, the
gec-metrics variant"):

- the source penalty counts frequencies: a k-gram the hypothesis keeps twice from the source where the reference
  keeps it once is penalised once (the script penalises only k-grams the reference lacks entirely);
- the numerator is not floored at 0 per sentence (a negative precision makes the GLEU 0);
- a precision whose false positives are 0 is 1 (also when the order has no k-gram at all), and the lengths are
  `len(text.split(' '))` (an empty text is one token long), tokens `text.split(' ')`.

Sentence GLEU is the plain mean over the references of the unsmoothed GLEU against each; the corpus score is the
mean of the iterations' values summed left to right, as Python's `sum` does. The reference draws are the script's.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from gecscore.gleu.counting import Grams, ngram_counts


def tokens(text: str, unit: str) -> Sequence[str]:
    """The tokens as gec-metrics reads a text: words split on single spaces (an empty text has none), or
    characters with `unit='char'`."""
    if unit == "char":
        return text
    return text.split(" ") if text else []


def length(text: str, unit: str) -> int:
    """The length gec-metrics uses: `len(text.split(' '))` (an empty text is one word long), or characters."""
    return len(text) if unit == "char" else len(text.split(" "))


def text_grams(text: str, order: int, unit: str) -> Grams:
    """The length and k-gram counts as gec-metrics reads a text."""
    units = tokens(text, unit)
    return length(text, unit), [ngram_counts(units, k) for k in range(1, order + 1)]


def grams_counts(source: Grams, hypothesis: Grams, references: Sequence[Grams]) -> np.ndarray:
    """`(references, 2 + 2n)` integers: the lengths, then per order the reformulated numerator TI + TK − UD (may
    be negative) and the hypothesis k-gram count."""
    hyp_len, hyp_grams = hypothesis
    rows = []
    for ref_len, ref_grams in references:
        row = [hyp_len, ref_len]
        for h, s, r in zip(hyp_grams, source[1], ref_grams):
            row += [_numerator(h, s, r), sum(h.values())]
        rows.append(row)
    return np.asarray(rows, dtype=np.int64)


def _numerator(h: Counter, s: Counter, r: Counter) -> int:
    """Σ over the hypothesis k-grams of min(r, h) − max(min(s, h) − r, 0): the k-grams matched in the reference
    (TI + TK) less those kept from the source beyond the reference's count (UD)."""
    total = 0
    for gram, mh in h.items():
        mr, ms = r.get(gram, 0), s.get(gram, 0)
        total += min(mr, mh) - max(min(ms, mh) - mr, 0)
    return total


def gleu(stats: Sequence[int], order: int) -> float:
    """GLEU of summed statistics: 0 if any precision is ≤ 0, else exp(min(0, 1 − r/c) + Σ_k log p_k / n) with
    p_k = 1 where the order has no false positive; 0 for a zero hypothesis length (character unit, empty
    hypotheses), where gec-metrics divides by zero."""
    values = [int(v) for v in stats]
    hyp_len, ref_len = values[:2]
    if hyp_len == 0:
        return 0.0
    log_bp = min(0, 1 - ref_len / hyp_len)
    precisions = [1.0 if m == t else m / t for m, t in zip(values[2::2], values[3::2])]
    if any(p <= 0 for p in precisions):
        return 0.0
    return math.exp(log_bp + sum(math.log(p) for p in precisions) / order)


def gleu_rows(totals: np.ndarray, order: int) -> np.ndarray:
    """`gleu` of every row of `totals` (last axis: the statistics)."""
    totals = np.asarray(totals, dtype=np.int64)
    flat = totals.reshape(-1, totals.shape[-1]).tolist()
    return np.asarray([gleu(row, order) for row in flat], dtype=np.float64).reshape(totals.shape[:-1])


def mean(values: Sequence[float]) -> float:
    """The mean as gec-metrics takes it: Python's left-to-right `sum` over the count."""
    return sum(values) / len(values)
