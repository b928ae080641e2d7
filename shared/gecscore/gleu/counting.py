"""k-gram counting: per text with `Counter`s (the readable rules), and every sentence's GLEU statistics against
every reference, for all systems at once, with array operations (what `score` uses).

GLEU's statistics only need, for each distinct k-gram of a hypothesis, its count there (h), in the reference (r)
and in the source (s). Counting them with dictionaries sentence by sentence is Python-bound; here every text of a
run (sources, references, every system's predictions) is one token stream: tokens become integer ids, k-grams of
order k become ids by numbering the distinct pairs (id of the (k−1)-gram at a position, id of the next token), and
the counts of each text's k-grams, and the lookups of h's k-grams in its source and references, are sorts and binary
searches over the whole run. The per-k-gram rule of each variant is then one vectorised expression:

- official: min(h, r) where the reference has the k-gram, else −min(h, s); each sentence's sum floored at 0;
- gec-metrics: min(h, r) − max(min(h, s) − r, 0), not floored.

Everything is integer arithmetic, so the statistics are exactly those of `metric.grams_counts` and
`reformulated.grams_counts`, which stay as the readable statement of the rule (tests compare the two).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Callable, Mapping, Sequence

import numpy as np

#: A text as GLEU sees it: its length in tokens and its k-gram counts for k = 1..n.
Grams = tuple[int, list[Counter[tuple[str, ...]]]]


def ngram_counts(tokens: Sequence[str], k: int) -> Counter[tuple[str, ...]]:
    """The k-grams of `tokens` with their counts (the per-sentence rules count with these)."""
    return Counter(zip(*(tokens[i:] for i in range(k))))


def run_counts(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
               *, order: int, tokens: Callable[[str], Sequence[str]], shortest: int,
               floor: bool, reformulated: bool) -> dict[str, tuple[np.ndarray, ...]]:
    """Per system, per sentence, the `(references, 2 + 2 × order)` statistics: hypothesis length, reference length,
    then per order the numerator and the hypothesis k-gram count. `tokens` reads a text as the variant does (each
    text split once); a text's length is its token count, at least `shortest`; `floor` floors each sentence's
    numerator at 0; `reformulated` picks the gec-metrics rule."""
    n = len(sources)
    ref_counts = np.asarray([len(group) for group in references], dtype=np.int64)
    ref_start = n + np.concatenate([[0], np.cumsum(ref_counts)[:-1]]).astype(np.int64)
    texts: list[str] = [*sources, *(r for group in references for r in group)]
    hyp_start = len(texts)
    for predictions in systems.values():
        texts.extend(predictions)
    n_hyps = len(texts) - hyp_start
    split = [tokens(t) for t in texts]
    stream = list(itertools.chain.from_iterable(split))
    vocabulary = {token: i for i, token in enumerate(dict.fromkeys(stream))}
    token_ids = np.fromiter(map(vocabulary.__getitem__, stream), dtype=np.int64, count=len(stream))
    sizes = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    lengths = np.maximum(sizes, shortest)
    text_of = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
    position = np.arange(len(token_ids), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)

    # Pairs (hypothesis text, one of its sentence's references), in system, sentence, reference order.
    hyp_texts = np.arange(hyp_start, len(texts), dtype=np.int64)
    hyp_sentence = (hyp_texts - hyp_start) % max(n, 1)
    pairs_per_hyp = ref_counts[hyp_sentence]
    pair_start = np.concatenate([[0], np.cumsum(pairs_per_hyp)]).astype(np.int64)
    n_pairs = int(pair_start[-1])
    pair_hyp = np.repeat(np.arange(n_hyps, dtype=np.int64), pairs_per_hyp)
    pair_ref_text = ref_start[hyp_sentence[pair_hyp]] + (np.arange(n_pairs, dtype=np.int64) - pair_start[pair_hyp])

    columns = [lengths[hyp_texts][pair_hyp], lengths[pair_ref_text]]
    grams = token_ids
    for k in range(1, order + 1):
        if k > 1:  # the k-gram at a position: its (k−1)-gram and the token k − 1 further, numbered by distinct pair
            keep = np.flatnonzero(position + k - 1 < sizes[text_of])
            pair_keys = grams[keep] * max(len(vocabulary), 1) + token_ids[keep + k - 1]
            grams = np.full(len(token_ids), -1, dtype=np.int64)
            grams[keep] = np.unique(pair_keys, return_inverse=True)[1].reshape(-1)
        valid = grams >= 0
        width = int(grams.max()) + 1 if valid.any() else 1
        keys, counts = np.unique(text_of[valid] * width + grams[valid], return_counts=True)
        text_key, gram_key = np.divmod(keys, width)

        def count_in(texts_: np.ndarray, grams_: np.ndarray) -> np.ndarray:
            """The count of each k-gram in the given text (0 where absent): a binary search in the sorted keys."""
            if not len(keys):
                return np.zeros(len(texts_), dtype=np.int64)
            wanted = texts_ * width + grams_
            at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
            return np.where(keys[at] == wanted, counts[at], 0)

        hyp_rows = np.flatnonzero(text_key >= hyp_start)
        h_text, h_gram, h = text_key[hyp_rows] - hyp_start, gram_key[hyp_rows], counts[hyp_rows]
        s = count_in(hyp_sentence[h_text], h_gram)
        expand = pairs_per_hyp[h_text]
        row_pair = np.repeat(pair_start[h_text], expand) + (
            np.arange(int(expand.sum()), dtype=np.int64) - np.repeat(np.cumsum(expand) - expand, expand))
        h_e, s_e, g_e = np.repeat(h, expand), np.repeat(s, expand), np.repeat(h_gram, expand)
        r_e = count_in(pair_ref_text[row_pair], g_e)
        if reformulated:
            terms = np.minimum(r_e, h_e) - np.maximum(np.minimum(s_e, h_e) - r_e, 0)
        else:
            terms = np.where(r_e > 0, np.minimum(h_e, r_e), -np.minimum(h_e, s_e))
        numerator = np.zeros(n_pairs, dtype=np.int64)
        np.add.at(numerator, row_pair, terms)
        if floor:
            numerator = np.maximum(numerator, 0)
        total = np.zeros(n_hyps, dtype=np.int64)
        np.add.at(total, h_text, h)
        columns += [numerator, total[pair_hyp]]

    table = np.stack(columns, axis=1) if n_pairs else np.zeros((0, 2 + 2 * order), dtype=np.int64)
    out: dict[str, tuple[np.ndarray, ...]] = {}
    for s_index, name in enumerate(systems):
        out[name] = tuple(table[pair_start[h]:pair_start[h + 1]] for h in range(s_index * n, (s_index + 1) * n))
    return out
