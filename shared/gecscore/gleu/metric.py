"""GLEU as the official GLEU+ script computes it (keisks/jfleg `eval/gleu.py` at ee06ff8; docs/reference-behaviour.md).

Per sentence and reference, the statistics are the hypothesis and reference lengths and, for each order k = 1..n,
the clipped k-gram matches with the reference less the hypothesis k-grams that the source has and the reference
does not (floored at 0), over the hypothesis k-gram count. Iteration j of `iterations` seeds Python's `random` with
j × `seed_step` and draws one reference per sentence with `randint`, in sentence order; its corpus GLEU is the
brevity-penalised geometric mean of the summed statistics. The corpus score is the mean over the iterations, with
their standard deviation and the normal 95% interval around the mean, as the script reports them. A sentence's
score (SentGLEU, the script's `--sent`) is the mean of its smoothed GLEU against each reference.

Statistics are per sentence; the draws depend only on the number of references of every sentence and are made in
`score`, so shards concatenate. The draws are Python's own generator, not a re-implementation of it, and the
last step of every iteration runs in Python floats in the script's order of operations, so the mean is the same
float the script computes; the n-gram statistics are integers, summed with numpy.
"""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.common.inputs import tokenise_or_check
from gecscore.common.progress import progress_bar
from gecscore.common.results import MetricResult, sentence_core
from gecscore.common.signature import make_signature
from gecscore.common.statistics import Statistics
from gecscore.common.validation import check_references, check_texts
from gecscore.gleu import SPEC

#: The script divides the summed log precisions by 4 whatever the n-gram order.
LOG_PRECISION_DIVISOR = 4
#: Resamples scored per matrix product in `DrawnGLEU.batch` (bounds its memory: rows × iterations × statistics).
_BATCH_ROWS = 256
#: The settings that change the numbers, in signature order.
SETTINGS = ("variant", "iterations", "seed_step", "n", "tokenize", "robust")


def statistic_names(order: int) -> tuple[str, ...]:
    """The names of a sentence's statistics for n-gram orders 1..`order` (`SPEC.statistics` for 4)."""
    return ("hyp_len", "ref_len", *(f"{kind}_{k}" for k in range(1, order + 1) for kind in ("match", "total")))


def ngram_counts(tokens: Sequence[str], k: int) -> Counter[tuple[str, ...]]:
    """The k-grams of `tokens` with their counts."""
    return Counter(zip(*(tokens[i:] for i in range(k))))


def sentence_counts(source: str, hypothesis: str, references: Sequence[str], order: int) -> np.ndarray:
    """`(references, 2 + 2 × order)` integers: hypothesis length, reference length, then per order k the GLEU
    numerator (matches with the reference less hypothesis k-grams kept from the source that the reference
    changed, floored at 0) and denominator (the hypothesis k-gram count)."""
    hyp, src = hypothesis.split(), source.split()
    hyp_grams = [ngram_counts(hyp, k) for k in range(1, order + 1)]
    src_grams = [ngram_counts(src, k) for k in range(1, order + 1)]
    rows = []
    for reference in references:
        ref = reference.split()
        row = [len(hyp), len(ref)]
        for k, h, s in zip(range(1, order + 1), hyp_grams, src_grams):
            r = ngram_counts(ref, k)
            kept = sum(min(count, h[gram]) for gram, count in s.items() if gram not in r)
            row += [max(sum((h & r).values()) - kept, 0), max(len(hyp) + 1 - k, 0)]
        rows.append(row)
    return np.asarray(rows, dtype=np.int64)


def gleu(stats: Sequence[int], *, smooth: bool = False) -> float:
    """GLEU of summed statistics: 0 when any is 0 (after `smooth` turned zeros into ones, as the script does for
    sentences), else exp(min(0, 1 − r/c) + Σ_k log(match_k / total_k) / 4), in the script's float order."""
    values = [int(v) or 1 for v in stats] if smooth else [int(v) for v in stats]
    if 0 in values:
        return 0.0
    hyp_len, ref_len = values[:2]
    log_precision = sum(math.log(m / t) for m, t in zip(values[2::2], values[3::2])) / LOG_PRECISION_DIVISOR
    return math.exp(min(0, 1 - ref_len / hyp_len) + log_precision)


def gleu_array(totals: np.ndarray) -> np.ndarray:
    """`gleu` of every row of `totals` (last axis: the statistics) at once, in numpy floats (resampling only: the
    last bit can differ from `gleu`)."""
    totals = np.asarray(totals, dtype=np.float64)
    hyp_len, ref_len = totals[..., 0], totals[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_precision = np.log(totals[..., 2::2] / totals[..., 3::2]).sum(axis=-1) / LOG_PRECISION_DIVISOR
        values = np.exp(np.minimum(0.0, 1 - ref_len / hyp_len) + log_precision)
    return np.where((totals == 0).any(axis=-1), 0.0, values)


@functools.lru_cache(maxsize=16)
def reference_draws(reference_counts: tuple[int, ...], iterations: int, seed_step: int) -> np.ndarray:
    """`(iterations, sentences)` reference positions: iteration j seeds Python's `random` with j × `seed_step`
    and draws `randint(0, R_i − 1)` for each sentence i in order, as the script does (read-only; cached, since
    every system of a corpus shares them)."""
    draws = np.empty((iterations, len(reference_counts)), dtype=np.int64)
    for j in range(iterations):
        randint = random.Random(j * seed_step).randint
        draws[j] = [randint(0, count - 1) for count in reference_counts]
    draws.flags.writeable = False
    return draws


class DrawnGLEU:
    """The corpus statistic: the mean over the iterations of the corpus GLEU, every sentence scored against the
    references it drew in the full corpus.

    On all sentences in order this is the corpus score exactly. A resample keeps each sentence's own draws (the
    draws of its position in the scored corpus), so resampling changes which sentences count, not how the
    script's generator assigned their references; `join` keeps each system's draws, which are the same for the
    same sentence positions."""

    def __init__(self, counts: np.ndarray, draws: np.ndarray) -> None:
        self.counts = counts  # (sentences, most references, statistics), zero-padded
        self.draws = draws  # (iterations, sentences)

    def __len__(self) -> int:
        return len(self.counts)

    def totals(self, indices: np.ndarray) -> np.ndarray:
        """`(iterations, statistics)`: every iteration's statistics summed over the sentences at `indices`."""
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        return self.counts[indices[None, :], self.draws[:, indices]].sum(axis=1)

    def scores(self, indices: np.ndarray) -> list[float]:
        """The corpus GLEU of every iteration on the sentences at `indices` (Python floats, the script's)."""
        return [gleu(row) for row in self.totals(indices).tolist()]

    def __call__(self, indices: np.ndarray) -> float:
        return float(np.mean(self.scores(indices)))

    def batch(self, indices: np.ndarray) -> np.ndarray:
        """The statistic of every row of `indices`: each row's sentence multiplicities times every iteration's
        per-sentence statistics, one matrix product per statistic."""
        indices = np.asarray(indices, dtype=np.int64)
        sentences = np.arange(len(self.counts))[None, :]
        per_iteration = [self.counts[sentences, self.draws, s].T.astype(np.float64)
                         for s in range(self.counts.shape[2])]
        out = []
        for rows in np.array_split(indices, max(1, len(indices) // _BATCH_ROWS)):
            weights = np.zeros((len(rows), len(self.counts)))
            np.add.at(weights, (np.arange(len(rows))[:, None], rows), 1.0)
            out.append(gleu_array(np.stack([weights @ column for column in per_iteration], axis=-1)).mean(axis=1))
        return np.concatenate(out)

    def join(self, other: DrawnGLEU) -> DrawnGLEU:
        """This statistic's sentences followed by `other`'s, each with its own draws."""
        if not isinstance(other, DrawnGLEU) or len(self.draws) != len(other.draws):
            raise TypeError("only GLEU statistics of the same number of iterations join")
        width = max(self.counts.shape[1], other.counts.shape[1])
        return DrawnGLEU(np.concatenate([_padded(self.counts, width), _padded(other.counts, width)]),
                         np.concatenate([self.draws, other.draws], axis=1))


def _padded(counts: np.ndarray, width: int) -> np.ndarray:
    """`counts` with zero rows for references up to `width`."""
    return np.pad(counts, ((0, 0), (0, width - counts.shape[1]), (0, 0)))


@dataclass(frozen=True, kw_only=True)
class GLEUStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, the `(references, 2 + 2n)` integer
    n-gram statistics against every reference (`sentence_counts`)."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("counts",)

    counts: tuple[np.ndarray, ...]


def prepare_text(sources: Any, predictions: Any, references: Any, *, tokenize: bool
                 ) -> tuple[list[str], list[str], list[list[str]]]:
    """The sentence lists checked (same length, references per example), then spaCy-tokenised or checked to be
    whitespace-tokenised: GLEU counts whitespace tokens, as the script's `split()` does."""
    sources = check_texts("sources", sources)
    predictions = check_texts("predictions", predictions)
    if len(predictions) != len(sources):
        raise ValueError(f"`predictions` has {len(predictions)} sentences but `sources` has {len(sources)}")
    references = check_references(references, len(sources))
    sources, (predictions,), references = tokenise_or_check(sources, [predictions], references, tokenize=tokenize)
    return sources, predictions, references


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                       references: Sequence[Sequence[str]] | None = None, *, progress: bool = False,
                       **options: Any) -> dict[str, GLEUStatistics]:
    """Every system's n-gram statistics against every reference; `score` draws the references and scores."""
    opts = SPEC.resolve(options)
    settings = {k: opts[k] for k in SETTINGS}
    signature = make_signature("gleu", settings, libraries=())
    out = {}
    for name, predictions in systems.items():
        srcs, hyps, refs = prepare_text(sources, predictions, references, tokenize=opts["tokenize"])
        rows = progress_bar(zip(srcs, hyps, refs), total=len(srcs), desc=f"GLEU {name}", disable=not progress)
        out[name] = GLEUStatistics(settings=opts, signature=signature,
                                   counts=tuple(sentence_counts(s, h, r, opts["n"]) for s, h, r in rows))
    return out


def score(stats: GLEUStatistics) -> MetricResult:
    """The mean corpus GLEU over the seeded draws with the script's spread and interval, the sentence records
    (SentGLEU against each reference, the iteration-0 draw as the record's reference) and the resamplable
    statistic (`DrawnGLEU`)."""
    import scipy.stats  # the script's interval, computed by the same call

    settings = stats.settings
    names = statistic_names(settings["n"])
    width = max(len(c) for c in stats.counts)
    counts = np.stack([_padded(c[None], width)[0] for c in stats.counts])
    draws = reference_draws(tuple(len(c) for c in stats.counts), settings["iterations"], settings["seed_step"])
    statistic = DrawnGLEU(counts, draws)
    scores = statistic.scores(np.arange(len(counts)))
    mean, std = np.mean(scores), np.std(scores)
    low, high = scipy.stats.norm.interval(0.95, loc=mean, scale=std)
    sentences = []
    for i, per_ref in enumerate(stats.counts):
        values = [gleu(row, smooth=True) for row in per_ref.tolist()]
        record = sentence_core(float(np.mean(values)), int(draws[0, i]),
                               [dict(zip(names, map(float, row))) for row in per_ref.tolist()])
        record.update(gleu=record["score"], std=float(np.std(values)), per_reference_gleu=values,
                      draws=np.bincount(draws[:, i], minlength=len(per_ref)).tolist())
        sentences.append(record)
    details = {"std": float(std), "interval": [float(low), float(high)], "iterations": int(settings["iterations"]),
               "degenerate_sentences": [dict(d) for d in stats.degenerate]}
    return MetricResult("gleu", {"gleu": float(mean)}, "gleu", sentences, statistic, stats.signature, details,
                        sentence_key="sentences")
