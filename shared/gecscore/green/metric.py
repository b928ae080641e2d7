"""GREEN as gec-metrics 0.1.1 computes it (`gec_metrics/metrics/green.py`; docs/reference-behaviour.md).

A text's tokens are the pieces of `text.strip().split(" ")` (`unit='word'`; a doubled space makes an empty token)
or the characters of `text.strip()` (`unit='char'`); a text that strips to nothing has no n-grams. For a source S,
hypothesis H and reference R, every n-gram g of order k = 1..n with counts s, h, r in them falls into seven
categories (Koyama et al. 2024): true deletions max(s − max(r, h), 0), true insertions max(min(r, h) − s, 0), true
keeps min(s, h, r); over-deletions max(min(s, r) − h, 0), over-insertions max(h − max(s, r), 0); under-deletions
max(min(s, h) − r, 0), under-insertions max(r − max(s, h), 0). Per order, true / (true + false) is the precision
and true / (true + missed) the recall, each 1 when its denominator's false (missed) part is 0. The geometric means
of the n precisions and of the n recalls (0 when one is 0) give F-beta. A sentence is scored against the reference
with the highest F (the first of equal ones); the corpus F-beta uses the per-order counts of those references
summed over the sentences.

Statistics are per sentence (the counts against every reference), so shards concatenate and resamples take rows;
the reference choice and every float are made in `score`, in gec-metrics' order of operations. The n-gram counting
is vectorised: every distinct n-gram gets an integer id; the (sentence, reference, n-gram) keys of the sources and
references are sorted once (`PairTable`), and each system's hypothesis n-grams are looked up in them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.common.fbeta import f_beta
from gecscore.common.progress import progress_bar
from gecscore.common.results import MetricResult, sentence_core
from gecscore.common.signature import language_setting, make_signature
from gecscore.common.statistics import Statistics
from gecscore.green import _CATEGORIES as CATEGORIES
from gecscore.green import SPEC

#: The settings that change the numbers, in signature order.
SETTINGS = ("n", "beta", "unit", "tokenize", "robust")
#: Positions of the true, false and missed categories in `CATEGORIES`.
_TRUE, _FALSE, _MISSED = slice(0, 3), slice(3, 5), slice(5, 7)


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class GREENStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, the `(references, n, 7)` integer
    category counts against every reference (`sentence_counts`)."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("counts",)

    counts: tuple[np.ndarray, ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Nothing to check: GREEN loads no model (the Trainer hook asks every metric before training starts)."""


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                       references: Sequence[Sequence[str]] | None = None, *, progress: bool = False,
                       **options: Any) -> dict[str, GREENStatistics]:
    """Every system's category counts against every reference (sources and references counted once); `score`
    chooses the references and scores."""
    opts = SPEC.resolve(options)
    order, unit = opts["n"], opts["unit"]
    signature = make_signature("green", {**{k: opts[k] for k in SETTINGS}, **language_setting(opts)}, libraries=())
    predictions = systems  # tokenised by the input layer
    index = NgramIndex(order, unit)
    table = PairTable([index.count(s) for s in sources], [[index.count(r) for r in group] for group in references])
    out = {}
    for name, hyps in predictions.items():
        hyp_grams = [index.count(h) for h in progress_bar(hyps, desc=f"GREEN {name}", disable=not progress)]
        counts = table.counts(hyp_grams, np.asarray(index.orders, dtype=np.int64), order)
        out[name] = GREENStatistics(settings=opts, signature=signature, counts=tuple(counts))
    return out


def score(stats: GREENStatistics) -> MetricResult:
    """The corpus GREEN of every sentence's best reference, the sentence records and the resamplable statistic."""
    settings = stats.settings
    beta, names = settings["beta"], statistic_names(settings["n"])
    sentences, chosen = [], []
    for per_ref in stats.counts:
        values = [green(counts, beta)[0] for counts in per_ref.tolist()]
        best = best_reference(values)
        precision, recall = precision_recall(per_ref[best].tolist())
        record = sentence_core(values[best], best, [dict(zip(names, map(float, counts.reshape(-1).tolist())))
                                                    for counts in per_ref])
        record.update(green=record["score"], precision=precision, recall=recall, per_reference_green=values)
        sentences.append(record)
        chosen.append(per_ref[best])
    statistic = SummedCounts(np.stack(chosen), beta)
    totals = statistic.counts.sum(axis=0).tolist()
    f, precision, recall = green(totals, beta)
    per_order = [{"order": k, "true": sum(row[_TRUE]), "false": sum(row[_FALSE]), "missed": sum(row[_MISSED]),
                  "precision": p, "recall": r}
                 for k, (row, p, r) in enumerate(zip(totals, *precision_recall(totals)), start=1)]
    details = {"per_order": per_order, "degenerate_sentences": [dict(d) for d in stats.degenerate]}
    return MetricResult("green", {"green": f, "precision": precision, "recall": recall}, "green", sentences,
                        statistic, stats.signature, details, sentence_key="sentences")


# ---------------------------------------------------------------------------------------------------
# Helpers


def statistic_names(order: int) -> tuple[str, ...]:
    """The names of a sentence's statistics for n-gram orders 1..`order` (`SPEC.statistics` for 4)."""
    return tuple(f"{category}_{k}" for k in range(1, order + 1) for category in CATEGORIES)


def text_tokens(text: str, unit: str) -> Sequence[str]:
    """The tokens GREEN counts n-grams of: `strip()` then `split(" ")` (so "a  b" is "a", "", "b"), or the
    characters of the stripped text; nothing for a text that strips to ''."""
    stripped = text.strip()
    if not stripped:
        return ()
    return stripped.split(" ") if unit == "word" else stripped


class NgramIndex:
    """Integer ids of n-grams (orders 1..`order`) across a run, so that texts are counted as id arrays; a text
    seen before (a hypothesis equal to its source, the same output from two systems) is counted once."""

    def __init__(self, order: int, unit: str) -> None:
        self.order = order
        self.unit = unit
        self.ids: dict[tuple[str, ...], int] = {}
        self.orders: list[int] = []  # the order of each id
        self.texts: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def count(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The distinct n-gram ids of `text` and their counts."""
        counted = self.texts.get(text)
        if counted is None:
            tokens = text_tokens(text, self.unit)
            grams = Counter(chain.from_iterable(zip(*(tokens[i:] for i in range(k)))
                                                for k in range(1, self.order + 1)))
            ids = [self.ids.get(gram) for gram in grams]
            for position, gram in enumerate(grams):
                if ids[position] is None:
                    ids[position] = self.ids[gram] = len(self.orders)
                    self.orders.append(len(gram))
            counted = self.texts[text] = (np.asarray(ids, dtype=np.int64),
                                          np.fromiter(grams.values(), np.int64, len(grams)))
        return counted


#: A text as counted by `NgramIndex.count`.
Counted = tuple[np.ndarray, np.ndarray]


#: Bits of a pair key below the pair index: (pair << 32) | n-gram id.
_ID_BITS = 32


def categories(s: np.ndarray, h: np.ndarray, r: np.ndarray) -> np.ndarray:
    """`(len(s), 7)`: the seven category counts of n-grams counted s, h, r times in source, hypothesis, reference."""
    return np.stack([
        np.maximum(s - np.maximum(r, h), 0), np.maximum(np.minimum(r, h) - s, 0), np.minimum(np.minimum(s, h), r),
        np.maximum(np.minimum(s, r) - h, 0), np.maximum(h - np.maximum(s, r), 0),
        np.maximum(np.minimum(s, h) - r, 0), np.maximum(r - np.maximum(s, h), 0),
    ], axis=1)


def _laid_out(texts: Sequence[Counted]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The texts' n-gram ids and counts end to end, with the position of the text each entry belongs to."""
    lengths = np.fromiter((len(ids) for ids, _ in texts), np.int64, len(texts))
    ids, counts = (np.concatenate(column) for column in zip(*texts))
    return np.repeat(np.arange(len(texts)), lengths), ids, counts


class PairTable:
    """The n-grams of every (sentence, reference) pair's source and reference, counted once for all systems: the
    sorted pair keys `(pair << 32) | n-gram id` present in either, with their source and reference counts."""

    def __init__(self, sources: Sequence[Counted], references: Sequence[Sequence[Counted]]) -> None:
        self.references = [len(group) for group in references]
        self.sentence = np.repeat(np.arange(len(references)), self.references)  # the sentence of each pair
        texts = [text for i, group in enumerate(references) for ref in group for text in (sources[i], ref)]
        position, ids, counts = _laid_out(texts)
        self.keys, inverse = np.unique(((position // 2) << _ID_BITS) | ids, return_inverse=True)
        role = position % 2  # 0: source, 1: reference
        self.s, self.r = np.bincount(role * len(self.keys) + inverse.reshape(-1), weights=counts,
                                     minlength=2 * len(self.keys)).astype(np.int64).reshape(2, -1)

    def counts(self, hypotheses: Sequence[Counted], orders: np.ndarray, order: int) -> list[np.ndarray]:
        """Per sentence, `(references, order, 7)` integers: the category counts of every n-gram order against
        every reference, for the hypotheses of one system (`orders[id]`: an n-gram's order)."""
        position, ids, counts = _laid_out([hypotheses[i] for i in self.sentence.tolist()])
        keys = (position << _ID_BITS) | ids
        slot = np.minimum(np.searchsorted(self.keys, keys), max(len(self.keys) - 1, 0))
        found = self.keys[slot] == keys if len(self.keys) else np.zeros(len(keys), dtype=bool)
        h = np.zeros(len(self.keys), dtype=np.int64)
        h[slot[found]] = counts[found]
        pairs = len(self.sentence)
        group = (self.keys >> _ID_BITS) * order + orders[self.keys & ((1 << _ID_BITS) - 1)] - 1
        summed = np.stack([np.bincount(group, weights=column, minlength=pairs * order)
                           for column in categories(self.s, h, self.r).T], axis=1).astype(np.int64)
        # hypothesis n-grams in neither the source nor the reference: over-insertions, and nothing else
        alone = ~found
        summed[:, CATEGORIES.index("oi")] += np.bincount(position[alone] * order + orders[ids[alone]] - 1,
                                                         weights=counts[alone],
                                                         minlength=pairs * order).astype(np.int64)
        summed = summed.reshape(pairs, order, len(CATEGORIES))
        bounds = np.cumsum([0, *self.references])
        return [summed[start:stop] for start, stop in zip(bounds[:-1], bounds[1:])]


def sentence_counts(source: str, hypothesis: str, references: Sequence[str], order: int = 4,
                    unit: str = "word") -> np.ndarray:
    """`(references, order, 7)` category counts of one sentence against each of its references."""
    index = NgramIndex(order, unit)
    table = PairTable([index.count(source)], [[index.count(r) for r in references]])
    return table.counts([index.count(hypothesis)], np.asarray(index.orders, dtype=np.int64), order)[0]


def precision_recall(counts: Sequence[Sequence[int]]) -> tuple[list[float], list[float]]:
    """Per order, the precision true / (true + false) and recall true / (true + missed) of `(order, 7)` counts,
    1.0 when there is nothing false (missed), as gec-metrics' `Score`."""
    precisions, recalls = [], []
    for row in counts:
        true, false, missed = sum(row[_TRUE]), sum(row[_FALSE]), sum(row[_MISSED])
        precisions.append(1.0 if false == 0 else true / (true + false))
        recalls.append(1.0 if missed == 0 else true / (true + missed))
    return precisions, recalls


def geometric_mean(values: Sequence[float]) -> float:
    """exp of the mean log, summed left to right as gec-metrics does; 0 when a value is 0."""
    if 0 in values:
        return 0.0
    return math.exp(sum(math.log(v) for v in values) / len(values))


def green(counts: Sequence[Sequence[int]], beta: float) -> tuple[float, float, float]:
    """(F-beta, precision, recall) of `(order, 7)` category counts: the geometric means over the orders and
    (1 + β²)·P·R / (β²·P + R), 0 when P + R is 0 (`fbeta.f_beta`'s ERRANT rule: gec-metrics' operations in its
    order; β > 0, so the denominator vanishes only there)."""
    precision, recall = (geometric_mean(values) for values in precision_recall(counts))
    return f_beta(precision, recall, beta, "errant"), precision, recall


def best_reference(per_reference: Sequence[float]) -> int:
    """The first reference with the highest F (a later one must be strictly higher, as in gec-metrics)."""
    best = 0
    for k, value in enumerate(per_reference):
        if value > per_reference[best]:
            best = k
    return best


class SummedCounts:
    """The corpus statistic: GREEN of the chosen references' per-order true/false/missed counts summed over the
    sentences at `indices` (the reference choice is each sentence's own, so a resample keeps it)."""

    def __init__(self, counts: np.ndarray, beta: float) -> None:
        self.counts = counts  # (sentences, order, 7): the chosen reference's category counts
        self.beta = beta

    def __len__(self) -> int:
        return len(self.counts)

    def __call__(self, indices: np.ndarray) -> float:
        totals = self.counts[np.asarray(indices, dtype=np.int64).reshape(-1)].sum(axis=0)
        return green(totals.tolist(), self.beta)[0]

    def batch(self, indices: np.ndarray) -> np.ndarray:
        """The statistic of every row of `indices` (one row's counts summed at a time: memory stays small)."""
        return np.asarray([self(row) for row in np.asarray(indices)], dtype=float)

    def join(self, other: SummedCounts) -> SummedCounts:
        """This statistic's sentences followed by `other`'s."""
        if not isinstance(other, SummedCounts) or other.beta != self.beta \
                or other.counts.shape[1:] != self.counts.shape[1:]:
            raise TypeError("only GREEN statistics of the same n and beta join")
        return SummedCounts(np.concatenate([self.counts, other.counts]), self.beta)


