"""Edits between whitespace-tokenised sentences of any language, with no English rules: typed M, R or U only.

ERRANT's edits are English: its alignment weighs a substitution by the tokens' lemmas and parts of speech, its
merging rules and its error types read an English parse. For other languages (`language` other than "en" and
"zh"), gecscore extracts edits the way ERRANT does with its language-independent options (`errant_parallel -lev
-merge all-merge`), written here over plain token lists, without spaCy:

- a Levenshtein alignment of the tokens: two tokens match only when they are identical; every substitution,
  insertion and deletion costs 1; no transpositions; ties go to substitution, then insertion, then deletion, and
  the alignment is read back from the end of both sentences (ERRANT's order);
- every maximal run of changes between two matches is one edit;
- an edit is typed by its shape alone: `M` (missing: the hypothesis inserts tokens), `U` (unnecessary: it deletes
  tokens), `R` (it replaces tokens). Word-order changes are `R` edits.

`tests/test_plain_edits.py` holds the spans, sentence for sentence, to ERRANT's own `annotate(..., lev=True,
merging="all-merge")`. docs/other-languages.md says what this means for each metric.
"""

from __future__ import annotations

from typing import Any, Sequence

from gecscore.common.edits import Edit
from gecscore.common.inputs import check_same_length, check_texts
from gecscore.common.sharing import LRU

#: The three types of a plain edit (ERRANT's operation tier).
PLAIN_TYPES = ("M", "R", "U")


def _operations(source: Sequence[str], target: Sequence[str]) -> list[tuple[str, int, int]]:
    """The cheapest alignment as (operation, source index, target index) steps from the start: "M" match, "S"
    substitution, "I" insertion, "D" deletion."""
    n, m = len(source), len(target)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    ops = [[""] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0], ops[i][0] = i, "D"
    for j in range(1, m + 1):
        cost[0][j], ops[0][j] = j, "I"
    for i in range(n):
        above, row, row_ops, token = cost[i], cost[i + 1], ops[i + 1], source[i]
        for j in range(m):
            if token == target[j]:
                row[j + 1], row_ops[j + 1] = above[j], "M"
                continue
            best, op = above[j] + 1, "S"  # strict comparisons: the first cheapest in this order wins a tie
            if row[j] + 1 < best:
                best, op = row[j] + 1, "I"
            if above[j + 1] + 1 < best:
                best, op = above[j + 1] + 1, "D"
            row[j + 1], row_ops[j + 1] = best, op
    steps: list[tuple[str, int, int]] = []
    i, j = n, m
    while i + j:
        op = ops[i][j]
        steps.append((op, i, j))
        i, j = i - (op != "I"), j - (op != "D")
    steps.reverse()
    return steps


def plain_edits(source: str, target: str) -> tuple[Edit, ...]:
    """The edits turning `source` into `target` (whitespace-tokenised), each typed M, R or U."""
    src, trg = source.split(), target.split()
    if src == trg:
        return ()
    edits: list[Edit] = []
    run: list[tuple[str, int, int]] = []
    for step in [*_operations(src, trg), ("M", len(src) + 1, len(trg) + 1)]:  # a last match closes the last run
        if step[0] != "M":
            run.append(step)
            continue
        if run:
            (first_op, i, j), (_, i_end, j_end) = run[0], run[-1]
            o_start, c_start = i - (first_op != "I"), j - (first_op != "D")
            kind = "M" if o_start == i_end else "U" if c_start == j_end else "R"
            edits.append(Edit(o_start, i_end, " ".join(src[o_start:i_end]), c_start, j_end,
                              " ".join(trg[c_start:j_end]), kind))
            run = []
    return tuple(edits)


class PlainExtractor:
    """`EditExtractor`'s interface over `plain_edits`: no spaCy, edit lists cached per distinct pair."""

    def __init__(self, cache_size: int = 100_000) -> None:
        self._edits: LRU[tuple[str, str], tuple[Edit, ...]] = LRU(cache_size)

    def extract(self, sources: Sequence[str], targets: Sequence[str], *, keep_unk: bool = False,
                progress: bool = False) -> list[list[Edit]]:
        """The edits turning each source into its target (`keep_unk` and `progress` are `EditExtractor`'s; a
        plain edit is never UNK, and the extraction is fast enough to need no bar)."""
        sources = check_texts("sources", sources)
        targets = check_texts("targets", targets)
        check_same_length(sources=sources, targets=targets)
        out = []
        for pair in zip(sources, targets):
            edits = self._edits.get(pair)
            if edits is None:
                edits = plain_edits(*pair)
                self._edits.put(pair, edits)
            out.append(list(edits))
        return out

    def extract_one(self, source: str, target: str, *, keep_unk: bool = False) -> list[Edit]:
        """Edits of a single pair."""
        return self.extract([source], [target], keep_unk=keep_unk)[0]

    def clear_cache(self) -> None:
        """Forget the cached edit lists."""
        self._edits.clear()


PLAIN = PlainExtractor()


def extractor_for(language: str, nlp: Any = None, zh_lexicon: Any = None) -> Any:
    """The edit extractor of a language: ERRANT's for English (over `nlp`, default its English pipeline),
    ChERRANT's char edits for Chinese (over the lexicon `zh_lexicon` names, `chinese_edits.load_lexicon`), the
    plain one for any other."""
    if language == "en":
        from gecscore.common.edits import get_extractor

        return get_extractor(nlp)
    if language == "zh":
        from gecscore.common.chinese_edits import extractor_for_lexicon, load_lexicon

        return extractor_for_lexicon(load_lexicon(zh_lexicon))
    return PLAIN
