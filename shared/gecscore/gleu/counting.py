"""k-gram counting: per text with `Counter`s (the readable rules), and every sentence's GLEU statistics against
every reference, for all systems at once, with array operations (what `score` uses).

GLEU's statistics only need, for each distinct k-gram of a hypothesis, its count there (h), in the reference (r)
and in the source (s). Counting them with dictionaries sentence by sentence is Python-bound; here a pass takes a
block of sentences (`SENTENCES_PER_PASS`, up to `SYSTEMS_PER_PASS` systems), every distinct text of it (sources,
references, the systems' predictions) is split once and its tokens numbered, and each order is one sort: a k-gram
position's key is its sentence and its k tokens (the group of its (k−1)-gram and its last token), so equal keys are
one k-gram of one sentence, and counting a group's positions by the role of their text (the source, reference j,
system s) gives h, r and s at once. A (k+1)-gram of a hypothesis starts with one of its k-grams, so positions whose
k-gram no hypothesis holds drop out of the higher orders. The per-k-gram rule of each variant is then one
vectorised expression, summed per sentence:

- official: min(h, r) where the reference has the k-gram, else −min(h, s); each sentence's sum floored at 0;
- gec-metrics: min(h, r) − max(min(h, s) − r, 0), not floored.

Everything is integer arithmetic, so the statistics are exactly those of `metric.grams_counts` and
`reformulated.grams_counts`, which stay as the readable statement of the rule (tests compare the two).
"""

from __future__ import annotations

import collections
import itertools
from collections import Counter
from typing import Callable, Mapping, Sequence

import numpy as np

#: A text as GLEU sees it: its length in tokens and its k-gram counts for k = 1..n.
Grams = tuple[int, list[Counter[tuple[str, ...]]]]


def ngram_counts(tokens: Sequence[str], k: int) -> Counter[tuple[str, ...]]:
    """The k-grams of `tokens` with their counts (the per-sentence rules count with these)."""
    return Counter(zip(*(tokens[i:] for i in range(k))))


#: Systems counted in one pass of `run_counts`: a pass holds, per k-gram group, a count for every text role (the
#: source, each reference, each system), so its memory grows with the systems it takes; beyond this many, the
#: sources and references are counted again for the next systems.
SYSTEMS_PER_PASS = 16
#: Most sentences counted in one pass (blocks of equal size): a pass over about a hundred sentences keeps its
#: arrays in the processor's cache (a one-system call on SEEDA or JFLEG a fifth faster in a fresh process than one
#: pass over all sentences).
SENTENCES_PER_PASS = 128


def run_counts(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
               *, order: int, tokens: Callable[[str], Sequence[str]], shortest: int,
               floor: bool, reformulated: bool) -> dict[str, tuple[np.ndarray, ...]]:
    """Per system, per sentence, the `(references, 2 + 2 × order)` statistics: hypothesis length, reference length,
    then per order the numerator and the hypothesis k-gram count. `tokens` reads a text as the variant does (each
    distinct text split once); a text's length is its token count, at least `shortest`; `floor` floors each
    sentence's numerator at 0; `reformulated` picks the gec-metrics rule. Systems are counted `SYSTEMS_PER_PASS`
    at a time, sentences `SENTENCES_PER_PASS` at a time."""
    names = list(systems)
    out: dict[str, list[np.ndarray]] = {name: [] for name in names}
    step = -(-len(sources) // -(-len(sources) // SENTENCES_PER_PASS)) if sources else 1  # equal blocks
    for start in range(0, len(names), SYSTEMS_PER_PASS):
        chosen = names[start:start + SYSTEMS_PER_PASS]
        for first in range(0, len(sources), step):
            end = first + step
            counted = _pass(sources[first:end], {name: systems[name][first:end] for name in chosen},
                            references[first:end], order=order, tokens=tokens, shortest=shortest, floor=floor,
                            reformulated=reformulated)
            for name in chosen:
                out[name] += counted[name]
    return {name: tuple(rows) for name, rows in out.items()}


def _pass(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
          *, order: int, tokens: Callable[[str], Sequence[str]], shortest: int,
          floor: bool, reformulated: bool) -> dict[str, tuple[np.ndarray, ...]]:
    """`run_counts` of a few systems in one pass (the module docstring says how)."""
    n, names = len(sources), list(systems)
    ref_counts = [len(group) for group in references]
    most = max(ref_counts, default=0)
    roles = 1 + most + len(names)  # a text's role in its sentence: the source, reference j, system s
    texts: list[str] = list(sources)
    text_role = [0] * n
    text_sentence = list(range(n))
    for i, group in enumerate(references):
        texts += group
        text_role += range(1, 1 + len(group))
        text_sentence += [i] * len(group)
    for s, name in enumerate(names):
        texts += systems[name]
        text_role += [1 + most + s] * n
        text_sentence += range(n)
    # each distinct text split and its tokens numbered once (a source a system left unchanged, equal references)
    distinct = {text: i for i, text in enumerate(dict.fromkeys(texts))}
    distinct_ids, distinct_sizes, vocab = _numbered(list(distinct), tokens)
    text_distinct = np.fromiter(map(distinct.__getitem__, texts), dtype=np.int64, count=len(texts))
    sizes = distinct_sizes[text_distinct]
    lengths = np.maximum(sizes, shortest)
    # each text's tokens read from its distinct text's: the offset from the one's start to the other's, per token
    offset = (np.cumsum(distinct_sizes) - distinct_sizes)[text_distinct] - (np.cumsum(sizes) - sizes)
    token_ids = distinct_ids[np.repeat(offset, sizes) + np.arange(int(sizes.sum()), dtype=np.int64)]
    # every token position's role and sentence, and how many tokens of its text follow it
    occ_role = np.repeat(np.asarray(text_role, dtype=np.int64), sizes)
    occ_sentence = np.repeat(np.asarray(text_sentence, dtype=np.int64), sizes)
    remaining = np.repeat(np.cumsum(sizes), sizes) - np.arange(len(token_ids), dtype=np.int64)

    hyp_start = n + sum(ref_counts)  # the first prediction's text
    hyp_sizes = sizes[hyp_start:].reshape(len(names), n)
    table = np.zeros((len(names), n, most, 2 + 2 * order), dtype=np.int64)
    table[:, :, :, 0] = lengths[hyp_start:].reshape(len(names), n)[:, :, None]
    per_sentence = np.asarray(ref_counts, dtype=np.int64)
    ref_sentence = np.repeat(np.arange(n), per_sentence)
    ref_lengths = np.zeros((n, most), dtype=np.int64)
    ref_position = np.arange(len(ref_sentence)) - (np.cumsum(per_sentence) - per_sentence)[ref_sentence]
    ref_lengths[ref_sentence, ref_position] = lengths[n:hyp_start]
    table[:, :, :, 1] = ref_lengths[None]

    at = np.arange(len(token_ids), dtype=np.int64)  # where the k-grams start that may occur in a hypothesis
    keys = occ_sentence * vocab + token_ids  # a 1-gram: a token in a sentence
    for k in range(1, order + 1):
        # a k-gram's group: its sentence and its k tokens, numbered in key order; the positions follow that order
        first, order_of = _sorted_starts(keys)
        at = at[order_of]
        group = np.cumsum(first) - 1  # the group of the k-gram at each of `at`
        groups = int(group[-1]) + 1 if len(group) else 0
        group_sentence = occ_sentence[at[first]]  # ascending: the sentence leads every key
        counts = np.bincount(group * roles + occ_role[at], minlength=groups * roles).reshape(groups, roles)
        for s in range(len(names)):
            rows = np.flatnonzero(counts[:, 1 + most + s])  # the groups this system's hypotheses hold
            hyp, source, refs = counts[rows, 1 + most + s, None], counts[rows, :1], counts[rows, 1:1 + most]
            if reformulated:
                terms = np.minimum(refs, hyp) - np.maximum(np.minimum(source, hyp) - refs, 0)
            else:
                terms = np.where(refs > 0, np.minimum(hyp, refs), -np.minimum(hyp, source))
            summed = np.zeros((len(rows) + 1, most), dtype=np.int64)
            np.cumsum(terms, axis=0, out=summed[1:])
            starts = np.searchsorted(group_sentence[rows], np.arange(n + 1))
            numerator = summed[starts[1:]] - summed[starts[:-1]]
            table[s, :, :, 2 * k] = np.maximum(numerator, 0) if floor else numerator
        table[:, :, :, 2 * k + 1] = np.maximum(hyp_sizes - (k - 1), 0)[:, :, None]
        if k < order:  # a (k+1)-gram of a hypothesis starts with one of its k-grams: the other positions drop out
            in_hypothesis = counts[:, 1 + most:].any(axis=1)
            kept = np.flatnonzero(in_hypothesis[group] & (remaining[at] > k))
            at, keys = at[kept], group[kept] * vocab + token_ids[at[kept] + k]
    return {name: tuple(table[s, i, :r] for i, r in enumerate(ref_counts)) for s, name in enumerate(names)}


#: Joins the texts for one split (`_numbered`): a token no text holds, since the input layer refuses control
#: characters (and a text that holds one anyway is split on its own).
_SEPARATOR = "\0"


def _numbered(texts: Sequence[str], tokens: Callable[[str], Sequence[str]]) -> tuple[np.ndarray, np.ndarray, int]:
    """Every text's tokens as numbers (equal tokens, equal numbers; in first-appearance order, from 1) one text
    after another, each text's token count, and a bound above every number. Whitespace splitting (the script's)
    splits all texts at once, joined by a separator token; numbering is one dictionary lookup per token, a new
    token taking the next number."""
    vocabulary: dict[str, int] = collections.defaultdict(itertools.count().__next__)
    vocabulary[_SEPARATOR]  # number 0
    if tokens is str.split and texts:
        joined = f" {_SEPARATOR} ".join(texts)
        if joined.count(_SEPARATOR) == len(texts) - 1:
            stream = joined.split()
            ids = np.fromiter(map(vocabulary.__getitem__, stream), dtype=np.int64, count=len(stream))
            separators = np.flatnonzero(ids == 0)
            sizes = np.diff(separators, prepend=-1, append=len(ids)) - 1
            return np.delete(ids, separators), sizes, len(vocabulary)
    split = list(map(tokens, texts))
    stream = list(itertools.chain.from_iterable(split))
    ids = np.fromiter(map(vocabulary.__getitem__, stream), dtype=np.int64, count=len(stream))
    return ids, np.fromiter(map(len, split), dtype=np.int64, count=len(split)), len(vocabulary)


def _sorted_starts(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a new key starts in `keys` sorted (True at the first of each run of equal keys), and the permutation
    that sorts them. Where each key, shifted left by the bits of a position, still fits an int64, the position
    rides in the low bits and a plain sort (about three times as fast as an argsort) gives both."""
    first = np.ones(len(keys), dtype=bool)
    if not len(keys):
        return first, np.zeros(0, dtype=np.int64)
    shift = max(int(len(keys) - 1).bit_length(), 1)
    if (int(keys.max()) + 1) << shift < 2**63:
        packed = np.sort((keys << shift) | np.arange(len(keys), dtype=np.int64))
        np.greater_equal(packed[1:] ^ packed[:-1], 1 << shift, out=first[1:])  # the keys, in the high bits, differ
        return first, packed & ((1 << shift) - 1)
    order_of = np.argsort(keys, kind="stable")
    ordered = keys[order_of]
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return first, order_of
