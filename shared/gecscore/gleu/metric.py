"""GLEU as the official GLEU+ script computes it (keisks/jfleg `eval/gleu.py` at ee06ff8; docs/reference-behaviour.md).

Per sentence and reference, the statistics are the hypothesis and reference lengths and, for each order k = 1..n,
the clipped k-gram matches with the reference less the hypothesis k-grams that the source has and the reference
does not (floored at 0), over the hypothesis k-gram count. Iteration j of `iterations` seeds Python's `random` with
j × `seed_step` and draws one reference per sentence with `randint`, in sentence order; its corpus GLEU is the
brevity-penalised geometric mean of the summed statistics. The corpus score is the mean over the iterations, with
their standard deviation and the normal 95% interval around the mean, as the script reports them; the interval is
`script_interval`, its bounds with their method, so that nobody reads it as a bootstrap confidence interval. A
sentence's score (SentGLEU, the script's `--sent`) is the mean of its smoothed GLEU against each reference.

Statistics are per sentence; the draws depend only on the number of references of every sentence and are made in
`score`, so shards concatenate. The draws are Python's Mersenne Twister stream as `random.randint` consumes it
(read in bulk from `random.getrandbits` where every sentence has the same number of references, `randint` itself
otherwise), and the last step of every iteration runs in Python floats in the script's order of operations, so
the mean is the same float the script computes; the n-gram statistics are integers, summed with numpy. A result's
sentence records (each sentence's GLEU against every reference) are built when first read.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.common.bootstrap import SentenceMean
from gecscore.common.results import Deferred, MetricResult, sentence_core
from gecscore.common.signature import language_setting, make_signature
from gecscore.common.statistics import Statistics
from gecscore.gleu import SPEC, counting, reformulated
from gecscore.gleu.counting import Grams, ngram_counts

#: The script divides the summed log precisions by 4 whatever the n-gram order.
LOG_PRECISION_DIVISOR = 4
#: How the bounds of `script_interval` are made, as the result names them beside the bootstrap's `method`.
SCRIPT_INTERVAL_METHOD = ("the official GLEU script's normal interval: mean ± 1.96 × std of the corpus GLEU over the "
                          "reference draws (scipy.stats.norm.interval(0.95)); the spread of the reference choice, "
                          "not a confidence interval over sentences (the bootstrap's), and not clipped to [0, 1]")
#: Resamples scored per matrix product in `DrawnGLEU.batch` (bounds its memory: rows × sentences × references).
_BATCH_ROWS = 256
#: The settings that change the numbers, in signature order.
SETTINGS = ("variant", "level", "iterations", "seed_step", "n", "unit", "tokenize", "robust")


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class GLEUStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, the `(references, 2 + 2n)` integer
    n-gram statistics against every reference (`sentence_counts`), and the first reference the prediction equals
    (−1: none), which robust mode scores 1."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("counts", "perfect")

    counts: tuple[np.ndarray, ...]
    perfect: tuple[int, ...]


def check_models(options: Mapping[str, Any]) -> None:
    """GLEU loads no model: nothing can fail to load (the Trainer hook asks every metric when it is built)."""


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                       references: Sequence[Sequence[str]] | None = None, *, progress: bool = False,
                       **options: Any) -> dict[str, GLEUStatistics]:
    """Every system's n-gram statistics against every reference, all systems counted together (`counting`; no
    progress bar: a few array operations); `score` draws the references and scores."""
    opts = SPEC.resolve(options)
    rules = variant_rules(opts)
    signature = make_signature("gleu", {**{k: opts[k] for k in SETTINGS}, **language_setting(opts)}, libraries=())
    predictions = {name: list(texts) for name, texts in systems.items()}  # tokenised by the input layer
    counts = rules.run_counts(sources, predictions, references)
    return {name: GLEUStatistics(settings=opts, signature=signature, counts=counts[name], perfect=tuple(
        group.index(h) if h in group else -1 for h, group in zip(hyps, references)))
        for name, hyps in predictions.items()}


def score(stats: GLEUStatistics) -> MetricResult:
    """The mean corpus GLEU over the seeded draws with the script's spread and interval, the sentence records
    (`sentence_records`, built when first read: a corpus score does not wait for them) and the resamplable
    statistic (`DrawnGLEU`, equal to the mean here on all sentences)."""
    settings = stats.settings
    counts = stacked(stats.counts)
    rules = variant_rules(settings)
    statistic = DrawnGLEU(counts, np.asarray([len(c) for c in stats.counts]), settings["iterations"],
                          settings["seed_step"], rules)
    draws = statistic.draws(np.arange(len(counts)))
    degenerate = [dict(d) for d in stats.degenerate]
    if settings["level"] == "sentence":  # SentGLEU at system level: the mean of the sentence scores
        sentences = sentence_records(stats, statistic, draws)
        values = [record["score"] for record in sentences]
        return MetricResult("gleu", {"gleu": float(np.mean(values))}, "gleu", sentences, SentenceMean(values),
                            stats.signature, {"degenerate_sentences": degenerate}, sentence_key="sentences")
    scores = rules.rows(drawn_totals(counts, draws)).tolist()
    mean, std = rules.mean(scores), np.std(scores)
    details = {"std": float(std), "script_interval": script_interval(mean, float(std)),
               "iterations": int(settings["iterations"]), "degenerate_sentences": degenerate}
    records = Deferred(functools.partial(sentence_records, stats, statistic, draws), len(counts))
    return MetricResult("gleu", {"gleu": float(mean)}, "gleu", records, statistic, stats.signature, details,
                        sentence_key="sentences")


def sentence_records(stats: GLEUStatistics, statistic: DrawnGLEU, draws: np.ndarray) -> list[dict[str, Any]]:
    """Every sentence's record (`statistic` holds the stacked counts, `draws` its corpus's draws): its GLEU
    (SentGLEU: the mean against each reference; in robust mode a perfect correction's value against that
    reference, 1), the iteration-0 draw as the record's reference, its statistics and GLEU against every
    reference, their spread, and how often each reference was drawn."""
    counts, rules = statistic.counts, statistic.rules
    names = statistic_names(rules.order)
    sentence_scores, sentence_values, spreads = rules.sentences(counts, statistic.reference_counts)
    drawn = np.stack([(draws == r).sum(axis=0) for r in range(counts.shape[1])], axis=1).tolist()
    first_draw, rows = draws[0].tolist(), counts.astype(np.float64).tolist()
    robust = stats.settings["robust"]
    sentences = []
    for i, values in enumerate(sentence_values):
        sentence_gleu = sentence_scores[i]
        if robust and stats.perfect[i] >= 0:  # a perfect correction: its GLEU against that reference, 1
            sentence_gleu = values[stats.perfect[i]]
        record = sentence_core(sentence_gleu, first_draw[i], [dict(zip(names, row)) for row in rows[i][:len(values)]])
        record.update(gleu=record["score"], std=spreads[i], per_reference_gleu=values, draws=drawn[i][:len(values)])
        sentences.append(record)
    return sentences


def stacked(per_sentence: Sequence[np.ndarray]) -> np.ndarray:
    """`(sentences, most references, statistics)`: every sentence's statistics, zero rows after its own
    references."""
    if len({len(c) for c in per_sentence}) == 1:
        return np.stack(per_sentence)
    counts = np.zeros((len(per_sentence), max(len(c) for c in per_sentence), per_sentence[0].shape[1]),
                      dtype=np.int64)
    for i, per_ref in enumerate(per_sentence):
        counts[i, :len(per_ref)] = per_ref
    return counts


# ---------------------------------------------------------------------------------------------------
# Helpers


def statistic_names(order: int) -> tuple[str, ...]:
    """The names of a sentence's statistics for n-gram orders 1..`order` (`SPEC.statistics` for 4)."""
    return ("hyp_len", "ref_len", *(f"{kind}_{k}" for k in range(1, order + 1) for kind in ("match", "total")))


def text_grams(text: str, order: int) -> Grams:
    """The token count and k-gram counts (k = 1..`order`) of a whitespace-tokenised text, as the script's
    `split()` reads it."""
    tokens = text.split()
    return len(tokens), [ngram_counts(tokens, k) for k in range(1, order + 1)]


def grams_counts(source: Grams, hypothesis: Grams, references: Sequence[Grams]) -> np.ndarray:
    """`sentence_counts` of texts already counted (sources and references are counted once for all systems)."""
    hyp_len, hyp_grams = hypothesis
    rows = []
    for ref_len, ref_grams in references:
        row = [hyp_len, ref_len]
        for k, (h, s, r) in enumerate(zip(hyp_grams, source[1], ref_grams), start=1):
            matched = kept = 0  # one pass over the hypothesis k-grams: found in the reference, or else in the source
            for gram, count in h.items():
                if gram in r:
                    matched += min(count, r[gram])
                elif gram in s:
                    kept += min(count, s[gram])
            row += [max(matched - kept, 0), max(hyp_len + 1 - k, 0)]
        rows.append(row)
    return np.asarray(rows, dtype=np.int64)


def sentence_counts(source: str, hypothesis: str, references: Sequence[str], order: int) -> np.ndarray:
    """`(references, 2 + 2 × order)` integers: hypothesis length, reference length, then per order k the GLEU
    numerator (matches with the reference less hypothesis k-grams kept from the source that the reference
    changed, floored at 0) and denominator (the hypothesis k-gram count)."""
    return grams_counts(text_grams(source, order), text_grams(hypothesis, order),
                        [text_grams(r, order) for r in references])


def gleu(stats: Sequence[int], *, smooth: bool = False) -> float:
    """GLEU of summed statistics: 0 when any is 0 (after `smooth` turned zeros into ones, as the script does for
    sentences), else exp(min(0, 1 − r/c) + Σ_k log(match_k / total_k) / 4), in the script's float order."""
    values = [int(v) or 1 for v in stats] if smooth else [int(v) for v in stats]
    if 0 in values:
        return 0.0
    hyp_len, ref_len = values[:2]
    log_precision = sum(math.log(m / t) for m, t in zip(values[2::2], values[3::2])) / LOG_PRECISION_DIVISOR
    return math.exp(min(0, 1 - ref_len / hyp_len) + log_precision)


def gleu_rows(totals: np.ndarray) -> np.ndarray:
    """`gleu` of every row of `totals` (last axis: the statistics) at once, bit for bit: numpy's division, sums and
    minimum are the same IEEE operations in the same order (a quotient of integers is that of their floats), and
    the logarithms and exponentials are `math`'s."""
    totals = np.asarray(totals, dtype=np.int64)
    zero = (totals == 0).any(axis=-1)
    safe = np.where(zero[..., None], 1, totals) if zero.any() else totals
    logs = log_ratios(safe[..., 2::2], safe[..., 3::2])
    log_precision = logs[..., 0].copy()
    for k in range(1, logs.shape[-1]):
        log_precision += logs[..., k]
    exponent = np.minimum(0.0, 1 - safe[..., 1] / safe[..., 0]) + log_precision / LOG_PRECISION_DIVISOR
    values = np.fromiter(map(math.exp, exponent.ravel().tolist()), np.float64, exponent.size).reshape(exponent.shape)
    return np.where(zero, 0.0, values)


def log_ratios(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """`math.log(n / d)` of every element of two integer arrays, `(..., draws, orders)`, computing each distinct
    quotient once.

    Along the draws axis (a corpus's iterations, a sentence's references) an order's denominator is the
    hypothesis' own k-gram count, the same in every draw, and the numerators repeat: the distinct numerators of each
    (group, order) are marked in a table over their range, their logarithms taken once (`math.log` of the same
    IEEE quotient, so every value is the one the script computes), and every element looks its value up. Where a
    denominator changes along the draws, every element is computed."""
    shape = numerators.shape
    n = numerators.reshape(-1, *shape[-2:])
    d = denominators.reshape(-1, *shape[-2:])
    if n.size < 4096 or not (d == d[:, :1, :]).all():
        flat = (numerators / denominators).ravel().tolist()
        return np.fromiter(map(math.log, flat), np.float64, len(flat)).reshape(shape)
    low = n.min(axis=1, keepdims=True)  # (groups, 1, orders): each table covers low..high of its group and order
    width = (n.max(axis=1, keepdims=True) - low + 1).ravel()
    start = np.cumsum(width) - width
    at = start.reshape(low.shape) + (n - low)  # every element's place in the tables
    present = np.zeros(int(width.sum()), dtype=bool)
    present[at.ravel()] = True
    places = np.flatnonzero(present)
    table = np.searchsorted(start, places, side="right") - 1  # the (group, order) each present place belongs to
    values = (low.ravel()[table] + (places - start[table])) / d[:, 0, :].ravel()[table]
    logs = np.fromiter(map(math.log, values.tolist()), np.float64, len(values))
    return logs[(np.cumsum(present) - 1)[at]].reshape(shape)


@dataclass(frozen=True)
class Rules:
    """What a variant decides: how a text is counted, a sentence's statistics, the GLEU of summed statistics and
    the mean over iterations. `official` is the script; `gec-metrics` is gec-metrics' `gleu` (`reformulated`)."""

    variant: str = "official"
    order: int = 4
    unit: str = "word"

    def grams(self, text: str) -> Grams:
        """The length and k-gram counts of a text."""
        if self.variant == "official":
            return text_grams(text, self.order)
        return reformulated.text_grams(text, self.order, self.unit)

    def tokens(self, text: str) -> Sequence[str]:
        """The tokens whose k-grams are counted."""
        if self.variant == "official":
            return text.split()
        return reformulated.tokens(text, self.unit)

    @property
    def shortest(self) -> int:
        """The least length in the brevity penalty, which is otherwise the token count: gec-metrics counts an
        empty text as one word (`reformulated.length`)."""
        return int(self.variant != "official" and self.unit != "char")

    def run_counts(self, sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                   references: Sequence[Sequence[str]]) -> dict[str, tuple[np.ndarray, ...]]:
        """Every system's `counts` of every sentence, all at once (`counting.run_counts`)."""
        tokens = str.split if self.variant == "official" else self.tokens  # the script's split, without a wrapper
        return counting.run_counts(sources, systems, references, order=self.order, tokens=tokens,
                                   shortest=self.shortest, floor=self.variant == "official",
                                   reformulated=self.variant != "official")

    def counts(self, source: Grams, hypothesis: Grams, references: Sequence[Grams]) -> np.ndarray:
        """A sentence's `(references, 2 + 2n)` statistics."""
        counter = grams_counts if self.variant == "official" else reformulated.grams_counts
        return counter(source, hypothesis, references)

    def corpus(self, stats: Sequence[int]) -> float:
        """The GLEU of one iteration's summed statistics."""
        return gleu(stats) if self.variant == "official" else reformulated.gleu(stats, self.order)

    def rows(self, totals: np.ndarray) -> np.ndarray:
        """`corpus` of every row of `totals` (last axis: the statistics)."""
        return gleu_rows(totals) if self.variant == "official" else reformulated.gleu_rows(totals, self.order)

    def sentence(self, per_reference: Sequence[Sequence[int]]) -> tuple[float, list[float]]:
        """A sentence's GLEU and its value against each reference: the script smooths zero statistics and takes
        numpy's mean; gec-metrics does neither."""
        if self.variant == "official":
            values = [gleu(row, smooth=True) for row in per_reference]
            return float(np.mean(values)), values
        values = [reformulated.gleu(row, self.order) for row in per_reference]
        return reformulated.mean(values), values

    def sentences(self, counts: np.ndarray, reference_counts: np.ndarray
                  ) -> tuple[list[float], list[list[float]], list[float]]:
        """Every sentence's GLEU, its values against each reference (`sentence` of each; `counts` zero-padded to
        the most references) and their standard deviation. The script's rule runs on all rows at once
        (`gleu_rows` of the smoothed statistics, then numpy's mean and std of each sentence's first R values,
        grouped by R), which gives `sentence`'s floats."""
        if self.variant != "official":
            pairs = [self.sentence(row[:r].tolist()) for row, r in zip(counts, reference_counts.tolist())]
            return [p[0] for p in pairs], [p[1] for p in pairs], [float(np.std(p[1])) for p in pairs]
        values = gleu_rows(np.where(counts == 0, 1, counts))
        scores, spreads = np.empty(len(counts)), np.empty(len(counts))
        for r in sorted(set(reference_counts.tolist())):  # not np.unique: it imports numpy.ma (20 ms)
            rows = np.flatnonzero(reference_counts == r)
            scores[rows] = np.mean(values[rows, :r], axis=1)
            spreads[rows] = np.std(values[rows, :r], axis=1)
        return scores.tolist(), [row[:r] for row, r in zip(values.tolist(), reference_counts.tolist())], \
            spreads.tolist()

    def mean(self, values: Sequence[float]) -> float:
        """The mean over the iterations, summed as the implementation sums."""
        return float(np.mean(values)) if self.variant == "official" else reformulated.mean(values)

    def means(self, rows: np.ndarray) -> np.ndarray:
        """`mean` of every row of `rows` (numpy reduces each contiguous row with the same pairwise sum as one row)."""
        if self.variant == "official":
            return np.mean(np.ascontiguousarray(rows), axis=1)
        return np.asarray([reformulated.mean(values) for values in rows.tolist()], dtype=np.float64)


@functools.lru_cache(maxsize=16)
def reference_draws(reference_counts: tuple[int, ...], iterations: int, seed_step: int) -> np.ndarray:
    """`(iterations, sentences)` reference positions (`position_type`): iteration j seeds Python's `random` with
    j × `seed_step` and draws `randint(0, R_i − 1)` for each sentence i in order, as the script does (read-only;
    cached, since every system of a corpus shares them). Where every sentence has the same number of references
    the stream is read in bulk (`_uniform_draws`), about a hundred times faster."""
    if len(set(reference_counts)) == 1:
        draws = _uniform_draws(reference_counts[0], len(reference_counts), iterations, seed_step)
    else:
        draws = np.empty((iterations, len(reference_counts)), dtype=position_type(max(reference_counts, default=1)))
        for j in range(iterations):
            randint = random.Random(j * seed_step).randint
            draws[j] = [randint(0, count - 1) for count in reference_counts]
    draws.flags.writeable = False
    return draws


def _uniform_draws(count: int, sentences: int, iterations: int, seed_step: int, *, words: int = 0) -> np.ndarray:
    """`randint(0, count − 1)` drawn `sentences` times after each `random.seed(j × seed_step)`, read from the raw
    stream: CPython's `randint` takes the top k = count.bit_length() bits of one 32-bit Mersenne Twister output and
    draws again while they are ≥ count, and `getrandbits(32 × m)` is m such outputs, the first in the lowest word.
    So each iteration's outputs come from one C call, and the keeping runs on a block of iterations at once (an
    iteration that keeps too few, rare by the margin, is drawn again with twice the outputs; `words` sets the first
    count, for tests). tests/test_gleu.py checks the result against `random` itself."""
    bits = count.bit_length()
    below = np.uint32(count << (32 - bits))  # an output is kept when its top `bits` bits, as a number, are < count
    stream = random.Random()
    expected = sentences * (1 << bits) // count
    draws = np.empty((iterations, sentences), dtype=position_type(count))
    pending = list(range(iterations))
    words = words or expected + 4 * math.isqrt(expected) + 64  # mean + 4 standard deviations and some
    while pending:
        short: list[int] = []
        rows = max(1, _BLOCK_WORDS // words)
        for start in range(0, len(pending), rows):
            block = pending[start:start + rows]
            raw = np.frombuffer(_outputs(stream, [j * seed_step for j in block], words), dtype="<u4")
            kept = np.flatnonzero(raw < below)  # the kept outputs' places, rows one after another
            starts = np.searchsorted(kept, np.arange(len(block) + 1) * words)  # where each row's kept places start
            enough = np.diff(starts) >= sentences
            done = np.flatnonzero(enough)
            places = kept[starts[done, None] + np.arange(sentences)]  # each done row's first `sentences` kept
            draws[np.asarray(block)[done]] = raw[places] >> np.uint32(32 - bits)
            short += [block[i] for i in np.flatnonzero(~enough).tolist()]
        pending, words = short, words * 2
    return draws


#: 32-bit outputs drawn and sifted per block in `_uniform_draws`: a block that stays in the processor's cache
#: makes the draws about a third faster in a fresh process than all iterations at once.
_BLOCK_WORDS = 1 << 15


def position_type(count: int) -> type:
    """The narrowest integer type of reference positions below `count` (a byte up to 256 references: less
    memory to fill and read than int64)."""
    return np.uint8 if count <= 256 else np.int64


def _outputs(stream: random.Random, seeds: Sequence[int], words: int) -> bytearray:
    """For each seed in turn, the first `words` 32-bit outputs of Python's generator after `seed(seed)`,
    little-endian, the first first. The seeding is `Random`'s base method, which its `seed` calls for an integer
    (the rest of that method only resets `gauss`), and the outputs go into one buffer: a quarter faster."""
    seed, getrandbits = super(random.Random, stream).seed, stream.getrandbits
    out = bytearray()
    for value in seeds:
        seed(value)
        out += getrandbits(32 * words).to_bytes(4 * words, "little")
    return out


class DrawnGLEU:
    """The corpus statistic: the script's rule on the sentences at `indices` as a corpus of their own, i.e.
    `score(stats.take(indices))`: the references drawn for that corpus's positions (the same draws for every
    bootstrap resample of a corpus whose sentences have the same number of references), the mean over the
    iterations of its corpus GLEU."""

    def __init__(self, counts: np.ndarray, reference_counts: np.ndarray, iterations: int, seed_step: int,
                 rules: Rules = Rules()) -> None:
        self.counts = counts  # (sentences, most references, statistics), zero-padded
        self.reference_counts = reference_counts  # (sentences,)
        self.iterations = iterations
        self.seed_step = seed_step
        self.rules = rules

    def __len__(self) -> int:
        return len(self.counts)

    def draws(self, indices: np.ndarray) -> np.ndarray:
        """The draws of the corpus made of the sentences at `indices`."""
        return reference_draws(tuple(self.reference_counts[indices].tolist()), self.iterations, self.seed_step)

    def __call__(self, indices: np.ndarray) -> float:
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        totals = self.counts[indices[None, :], self.draws(indices)].sum(axis=1)
        return self.rules.mean([self.rules.corpus(row) for row in totals.tolist()])

    def batch(self, indices: np.ndarray) -> np.ndarray:
        """The statistic of every row of `indices`, equal to `__call__` of each (`drawn_totals` of every row at
        once, then every iteration's GLEU at once with `Rules.rows` and each row's mean)."""
        indices = np.asarray(indices, dtype=np.int64)
        out = np.empty(len(indices))
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, row in enumerate(indices):
            groups.setdefault(tuple(self.reference_counts[row].tolist()), []).append(i)
        for members in groups.values():
            draws = self.draws(indices[members[0]])
            for part in np.array_split(np.asarray(members), max(1, len(members) // _BATCH_ROWS)):
                totals = drawn_totals(self.counts, draws, indices[part])  # (rows, iterations, statistics)
                out[part] = self.rules.means(self.rules.rows(totals))
        return out

    def join(self, other: DrawnGLEU) -> DrawnGLEU:
        """This statistic's sentences followed by `other`'s."""
        if not isinstance(other, DrawnGLEU) or (self.iterations, self.seed_step, self.rules) != (
                other.iterations, other.seed_step, other.rules):
            raise TypeError("only GLEU statistics of the same variant, iterations and seed step join")
        width = max(self.counts.shape[1], other.counts.shape[1])
        return DrawnGLEU(np.concatenate([_padded(self.counts, width), _padded(other.counts, width)]),
                         np.concatenate([self.reference_counts, other.reference_counts]), self.iterations,
                         self.seed_step, self.rules)


def drawn_totals(counts: np.ndarray, draws: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Each iteration's statistics summed over the positions against the references drawn there:
    `counts[p, draws[j, p]]` summed over the positions p of `counts` (`(sentences, references, statistics)`), as
    `(iterations, statistics)`; or, for `rows` (resamples × positions, sentence indices), of each row's corpus
    `counts[rows[b]]`, as `(rows, iterations, statistics)`.

    As integers, exact in floats (`_exact_float`): every iteration drew one reference per position, so its sum is
    the sum against reference 0 plus, for each r ≥ 1, the positions that drew r times the change from reference 0
    to r, taken only in the statistics that change (one matrix product per r: the hypothesis' own counts are the
    same against every reference)."""
    single = rows is None
    rows = np.arange(len(counts))[None, :] if rows is None else rows
    positions = rows.shape[1]
    totals = np.repeat(counts[:, 0, :][rows].sum(axis=1)[:, None, :], len(draws), axis=1)
    for r in range(1, counts.shape[1]):
        change = counts[:, r, :] - counts[:, 0, :]
        columns = np.flatnonzero(change.any(axis=0))
        if len(columns):
            change = change[:, columns]
            exact = _exact_float(positions * int(np.abs(change).max()))
            moved = (draws == r).astype(exact) @ change.astype(exact)[rows.T].reshape(positions, -1)
            totals[:, :, columns] += np.rint(moved).astype(np.int64).reshape(len(draws), len(rows), len(columns)
                                                                             ).transpose(1, 0, 2)
    return totals[0] if single else totals


def _exact_float(bound: int) -> type:
    """The narrowest float type in which sums of whole numbers stay exact while no partial sum can exceed
    `bound` in size (float32 up to 2**24: twice as fast a matrix product)."""
    return np.float32 if bound < 2**24 else np.float64


def _padded(counts: np.ndarray, width: int) -> np.ndarray:
    """`counts` with zero rows for references up to `width`."""
    return np.pad(counts, ((0, 0), (0, width - counts.shape[1]), (0, 0)))


#: The script's `scipy.stats.norm.interval(0.95, ...)` quantiles: `norm.ppf` of (1 ∓ 0.95) / 2 as floats compute them
#: (the lower one 0.025000000000000022, so both are ±1.959963984540054 to the last bit). Written out: importing
#: scipy.stats took half of a one-system GLEU run, for two constants.
_Z_LOW, _Z_HIGH = -1.959963984540054, 1.959963984540054


def script_interval(mean: float, std: float) -> dict[str, Any]:
    """The official script's interval as every output shows it: its two bounds (`normal_interval`) with their
    `method`, under a name of its own, so that nobody reads it as the bootstrap's confidence interval."""
    low, high = normal_interval(mean, std)
    return {"low": float(low), "high": float(high), "method": SCRIPT_INTERVAL_METHOD}


def normal_interval(mean: float, std: float) -> tuple[float, float]:
    """The official script's 95% interval `scipy.stats.norm.interval(0.95, loc=mean, scale=std)`, bit for bit: the
    quantiles times `std` plus `mean`, NaN where scipy gives NaN (a spread that is not positive: one reference
    everywhere)."""
    if not std > 0:
        return float("nan"), float("nan")
    return _Z_LOW * std + mean, _Z_HIGH * std + mean


def variant_rules(settings: Mapping[str, Any]) -> Rules:
    """The `Rules` of resolved settings."""
    return Rules(settings["variant"], settings["n"], settings["unit"])


