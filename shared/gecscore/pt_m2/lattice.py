"""MaxMatch (M²): the official scorer 3.2's edit lattice, gold-guided edit extraction, and P/R/F_β.

Written from a description of the behaviour (`docs/reference-behaviour.md`, section "M² lattice"), not from the
GPL code. Every quirk that can change a result is reproduced on purpose, because the edit sequence decides
the score: the 3.2 release's first-row insertion offsets `(j-1, j-1)`, the duplicated edges of the merged
graph (a duplicated edge gets the +0.001 penalty once per copy), the order in which transitive arcs are
appended, the skipping removal of long noop arcs, the two-pointer matching of insertions, and Bellman–Ford
with strict `<` over the stored edge order. The only change is that Bellman–Ford stops after a pass
without an update: the next pass would repeat the same computations, so the result is identical.

Speed (the reference needs hours for long repetitive hypotheses, nusnlp/m2scorer #8, #12): arcs are integer
columns, transitive arcs are built per middle cell (vectorised for large lattices), and each Bellman–Ford
pass is evaluated as an exactly equivalent sweep over the cells (see `Lattice._shortest_path`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Hashable, Iterable, Mapping, NamedTuple, Sequence

import numpy as np

from gecscore.common.bootstrap import GreedyReferences
from gecscore.common.errant_scoring import PRF
from gecscore.common.fbeta import beta_squared, m2_prf
from gecscore.common.sharing import SharedWithin

if TYPE_CHECKING:
    from gecscore.common.m2io import M2Sentence

EPSILON = 0.001
INF = math.inf
#: The main type of system edits that neither match a gold edit nor touch a gold edit's tokens (`typed_counts`).
UNTYPED = "UNTYPED"

Cell = tuple[int, int]
Arc = tuple[Cell, Cell]


class SysEdit(NamedTuple):
    """An edit in M² form: source tokens [start, end) (`orig`) replaced by `corr` (tokens joined by spaces)."""

    start: int
    end: int
    orig: str
    corr: str


class GoldEdit(NamedTuple):
    """A gold edit of one annotator: like `SysEdit` but with every `||` alternative of the correction."""

    start: int
    end: int
    orig: str
    corrections: tuple[str, ...]

    @property
    def first(self) -> SysEdit:
        """The edit with its first alternative (what edit weights are computed for)."""
        return SysEdit(self.start, self.end, self.orig, self.corrections[0] if self.corrections else "")

    def accepts(self, edit: SysEdit) -> bool:
        """Whether a system edit matches: same span and original, correction among the alternatives."""
        return (edit.start == self.start and edit.end == self.end and edit.orig == self.orig
                and edit.corr in self.corrections)


NOOP, SUB, DEL, INS = 0, 1, 2, 3  # step kinds; merging two steps keeps ins, del or noop, else gives sub
# Above these sizes, transitive arcs are built and shortest paths swept with numpy instead of plain Python.
_VECTOR_CELLS = 400
_VECTOR_ENTRIES = 20_000

_Step = tuple[int, int, int, int]  # kind, start, end, unchanged words


def _distances(src: Sequence[str], hyp: Sequence[str], sub_cost: int) -> list[list[int]]:
    """Levenshtein distances (insertion and deletion 1, substitution `sub_cost`) of all prefixes."""
    prev = list(range(len(hyp) + 1))
    rows = [prev]
    for i, token in enumerate(src, start=1):
        row = [i]
        left = i
        for j, other in enumerate(hyp):
            best = prev[j] if token == other else prev[j] + sub_cost
            up = prev[j + 1] + 1
            if up < best:
                best = up
            if left + 1 < best:
                best = left + 1
            row.append(best)
            left = best
        rows.append(row)
        prev = row
    return rows


def _base_steps(src: Sequence[str], hyp: Sequence[str], sub_cost: int) -> dict[Arc, _Step]:
    """Every minimal predecessor step of every cell on an optimal path to the last cell."""
    dm = _distances(src, hyp, sub_cost)
    steps: dict[Arc, _Step] = {}
    end = (len(src), len(hyp))
    seen = {end}
    queue = [end]
    while queue:
        nxt = []
        for cell in queue:
            i, j = cell
            preds: list[tuple[Cell, _Step]] = []
            if i and j:
                same = src[i - 1] == hyp[j - 1]
                best = dm[i][j]
                if dm[i - 1][j - 1] + (0 if same else sub_cost) == best:
                    preds.append(((i - 1, j - 1), (NOOP, i - 1, i, 1) if same else (SUB, i - 1, i, 0)))
                if dm[i - 1][j] + 1 == best:
                    preds.append(((i - 1, j), (DEL, i - 1, i, 0)))
                if dm[i][j - 1] + 1 == best:
                    preds.append(((i, j - 1), (INS, i, i, 0)))
            elif i:
                preds.append(((i - 1, 0), (DEL, i - 1, i, 0)))
            elif j:
                # The 3.2 release's first-row offsets: (j-1, j-1) instead of (0, 0).
                preds.append(((0, j - 1), (INS, j - 1, j - 1, 0)))
            for prev, step in preds:
                steps[(prev, cell)] = step
                if prev not in seen:
                    seen.add(prev)
                    nxt.append(prev)
        queue = nxt
    return steps


def _transitive_arcs(rows: list[list[int]], into: list[dict[int, int]], out_base: list[list[tuple[int, int]]],
                     max_unchanged: int) -> list[int]:
    """Plain-Python twin of `Lattice._add_transitive_arcs` for small lattices (same arcs, same order).

    `rows` are arc columns per arc id, `into[cell]` maps tail cell to arc id; both are extended in place.
    """
    appended: list[int] = []
    for k, incoming in enumerate(into):
        succ = out_base[k]
        if not incoming or not succ:
            continue
        for tail in sorted(incoming):
            _, _, dist, kind, start, _, unch = rows[incoming[tail]]
            for head, step in succ:
                _, _, _, s_kind, _, s_end, s_unch = rows[step]
                if unch + s_unch > max_unchanged:
                    continue
                target = into[head]
                arc = target.get(tail)
                if arc is not None and rows[arc][2] <= dist + 1:
                    continue
                merged = [tail, head, dist + 1, kind if kind == s_kind else SUB, start, s_end, unch + s_unch]
                if arc is None:
                    arc = target[tail] = len(rows)
                    rows.append(merged)
                else:
                    rows[arc] = merged
                appended.append(arc)
    return appended


class _Arcs:
    """Distinct arcs (tail, head) as growable columns: length in steps, kind, M² span, unchanged words."""

    FIELDS = ("tail", "head", "dist", "kind", "start", "end", "unchanged")

    def __init__(self, rows: Sequence[Sequence[int]]) -> None:
        data = np.array(rows, dtype=np.int64).reshape(-1, len(self.FIELDS))
        self.size = len(data)
        self.cols = {name: np.ascontiguousarray(data[:, k]) for k, name in enumerate(self.FIELDS)}

    def add(self, **values: np.ndarray | int) -> np.ndarray:
        n = len(values["tail"])  # type: ignore[arg-type]
        if self.size + n > len(self.cols["tail"]):
            capacity = max(2 * len(self.cols["tail"]), self.size + n, 1024)
            for name, col in self.cols.items():
                grown = np.empty(capacity, dtype=np.int64)
                grown[:self.size] = col[:self.size]
                self.cols[name] = grown
        ids = np.arange(self.size, self.size + n)
        for name, value in values.items():
            self.cols[name][self.size:self.size + n] = value
        self.size += n
        return ids

    def set(self, ids: np.ndarray, **values: np.ndarray | int) -> None:
        for name, value in values.items():
            self.cols[name][ids] = value

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["cols"][name]
        except KeyError:
            raise AttributeError(name) from None


class Lattice:
    """The merged edit graph of one source/hypothesis pair, with transitive arcs; reused for every annotator.

    Arcs are kept as integer columns; an arc from cell (i, j) to (i', j') always stands for source tokens
    i..i' and hypothesis tokens j..j', so its strings are only built when needed. The arc list `E` of the
    reference (sorted base arcs of both graphs, shared ones twice, then transitive arcs in the order they are
    appended) is kept as `entries`, a list of arc ids.
    """

    def __init__(self, source: Sequence[str], hypothesis: Sequence[str], max_unchanged_words: int = 2) -> None:
        self.source = list(source)
        self.hypothesis = list(hypothesis)
        #: `extract_edits`'s answers for this pair, by (annotator, gold edits, early exit): a lattice shared by
        #: `sharing_lattices` meets the same gold again (M² and SentM², one reference set in several configurations).
        self.extracted: dict[tuple[int, tuple[GoldEdit, ...], bool], AnnotatorEdits] = {}
        steps1 = _base_steps(self.source, self.hypothesis, 1)
        steps2 = _base_steps(self.source, self.hypothesis, 2)
        end = (len(self.source), len(self.hypothesis))
        self.cells = sorted({c for arc in (*steps1, *steps2) for c in arc} | {(0, 0), end})
        index = {c: k for k, c in enumerate(self.cells)}
        steps = {**steps1, **steps2}
        pairs = sorted(steps)
        pair_id = {p: k for k, p in enumerate(pairs)}
        base_entries = np.array([pair_id[p] for p in sorted([*steps1, *steps2])], dtype=np.int64)
        n_cells = len(self.cells)
        rows = [[index[a], index[b], 1, *steps[(a, b)]] for a, b in pairs]
        out_base: list[list[tuple[int, int]]] = [[] for _ in range(n_cells)]
        for k, (a, b) in enumerate(pairs):
            out_base[index[a]].append((index[b], k))
        if n_cells > _VECTOR_CELLS:
            self.arcs = _Arcs(rows)
            into_tails: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * n_cells
            into_ids: list[np.ndarray] = list(into_tails)
            by_head: dict[int, list[int]] = {}
            for k, row in enumerate(rows):
                by_head.setdefault(row[1], []).append(k)
            for head, ids in by_head.items():
                into_ids[head] = np.array(ids, dtype=np.int64)
                into_tails[head] = self.arcs.tail[into_ids[head]]
            transitive = self._add_transitive_arcs(into_tails, into_ids, out_base, max_unchanged_words)
        else:
            into: list[dict[int, int]] = [{} for _ in range(n_cells)]
            for k, row in enumerate(rows):
                into[row[1]][row[0]] = k
            transitive = np.array(_transitive_arcs(rows, into, out_base, max_unchanged_words), dtype=np.int64)
            self.arcs = _Arcs(rows)
        self.entries, n_base = self._drop_long_noops(np.concatenate([base_entries, transitive]), len(base_entries))
        self._prepare(n_base)

    def _add_transitive_arcs(self, into_tails: list[np.ndarray], into_ids: list[np.ndarray],
                             out_base: list[list[tuple[int, int]]], max_unchanged: int) -> np.ndarray:
        """The reference's triple loop (middle k, then i, then j over the sorted cells): add i→j when i→k→j is
        strictly shorter than the current i→j and keeps at most `max_unchanged` unchanged words.

        When k is the middle, the arcs out of k are base arcs only (an arc out of k is created only when a
        larger cell is the middle), and arcs into k are final; so each k extends all its incoming arcs by
        its base steps at once, and appends the accepted arcs ordered by tail, then head.
        """
        arcs = self.arcs
        appended: list[np.ndarray] = []
        for k in range(len(self.cells)):
            tails = into_tails[k]
            if not len(tails) or not out_base[k]:
                continue
            ids = into_ids[k]
            dist, unch, kind, start = arcs.dist[ids], arcs.unchanged[ids], arcs.kind[ids], arcs.start[ids]
            new_dist = dist + 1
            got_tails, got_heads, got_ids = [], [], []
            for head, step in out_base[k]:
                s_kind, s_end, s_unch = int(arcs.kind[step]), int(arcs.end[step]), int(arcs.unchanged[step])
                h_tails, h_ids = into_tails[head], into_ids[head]
                pos = np.searchsorted(h_tails, tails)
                at = np.minimum(pos, len(h_tails) - 1)
                exists = (pos < len(h_tails)) & (h_tails[at] == tails)
                current = np.where(exists, arcs.dist[h_ids[at]], np.iinfo(np.int64).max)
                ok = (new_dist < current) & (unch + s_unch <= max_unchanged)
                if not ok.any():
                    continue
                old, new = ok & exists, ok & ~exists
                merged = dict(dist=new_dist, kind=np.where(kind == s_kind, kind, SUB), start=start,
                              end=s_end, unchanged=unch + s_unch)
                ids_all = np.empty(len(tails), dtype=np.int64)
                if old.any():
                    ids_all[old] = h_ids[at[old]]
                    arcs.set(ids_all[old], **{f: (v[old] if isinstance(v, np.ndarray) else v)
                                              for f, v in merged.items()})
                if new.any():
                    fresh = arcs.add(tail=tails[new], head=head, **{
                        f: (v[new] if isinstance(v, np.ndarray) else v) for f, v in merged.items()})
                    ids_all[new] = fresh
                    into_tails[head] = np.insert(h_tails, pos[new], tails[new])
                    into_ids[head] = np.insert(h_ids, pos[new], fresh)
                got_tails.append(tails[ok])
                got_heads.append(np.full(int(ok.sum()), head, dtype=np.int64))
                got_ids.append(ids_all[ok])
            if got_ids:
                t, h, i = np.concatenate(got_tails), np.concatenate(got_heads), np.concatenate(got_ids)
                appended.append(i[np.lexsort((h, t))])
        return np.concatenate(appended) if appended else np.empty(0, dtype=np.int64)

    def _drop_long_noops(self, entries: np.ndarray, n_base: int) -> tuple[np.ndarray, int]:
        """Remove noop arcs longer than one step as the reference does: from the list it is iterating over,
        so the entry right after each removed one is skipped (and kept)."""
        arcs = self.arcs
        candidates = np.flatnonzero((arcs.kind[entries] == NOOP) & (arcs.dist[entries] > 1))
        removed: list[int] = []
        for p in candidates.tolist():
            if removed and removed[-1] == p - 1:
                continue
            removed.append(p)
        if not removed:
            return entries, n_base
        # An arc listed twice whose first copy is removed would crash the reference; drop every copy.
        keep = ~np.isin(entries, entries[removed])
        return entries[keep], int(keep[:n_base].sum())

    def _prepare(self, n_base: int) -> None:
        """Precomputations shared by all annotators: default arc lengths, span index, in-arcs per cell."""
        arcs, entries = self.arcs, self.entries
        n = arcs.size
        copies = np.bincount(entries, minlength=n)
        lengths = arcs.dist[:n].astype(np.float64)
        penalised = arcs.kind[:n] != NOOP
        for c in range(1, int(copies.max(initial=0)) + 1):
            # One +0.001 per copy, added one at a time as the reference does (float sums).
            lengths[penalised & (copies >= c)] += EPSILON
        self._default_lengths = lengths
        width = max(len(self.source), len(self.hypothesis)) + 2
        span_key = arcs.start[entries] * width + arcs.end[entries]
        order = np.lexsort((arcs.head[entries], arcs.tail[entries], span_key))
        self._span_width = width
        self._span_keys = span_key[order]
        self._span_entries = entries[order]
        self._segments = [self._in_arcs(entries[:n_base]), self._in_arcs(entries[n_base:])]

    def _in_arcs(self, segment: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Entries of one segment grouped by head cell (stable): heads, bounds, tails, arc ids."""
        heads = self.arcs.head[segment]
        order = np.argsort(heads, kind="stable")
        heads, segment = heads[order], segment[order]
        cells, first = np.unique(heads, return_index=True)
        bounds = np.append(first, len(segment))
        return cells, bounds, self.arcs.tail[segment], segment

    def texts(self, arc: int) -> tuple[str, str]:
        """The original and corrected strings of an arc."""
        (i, j), (i2, j2) = self.cells[int(self.arcs.tail[arc])], self.cells[int(self.arcs.head[arc])]
        return " ".join(self.source[i:i2]), " ".join(self.hypothesis[j:j2])

    def _lengths(self, gold: Sequence[GoldEdit]) -> np.ndarray:
        """Arc lengths for one annotator: −|E| for arcs matching a gold edit, +0.001 per copy otherwise."""
        lengths = self._default_lengths.copy()
        by_span: dict[tuple[int, int], list[GoldEdit]] = {}
        for g in gold:
            by_span.setdefault((g.start, g.end), []).append(g)
        n_entries = len(self.entries)
        arcs = self.arcs
        for (s, e), golds in by_span.items():
            key = s * self._span_width + e
            lo_i, hi_i = np.searchsorted(self._span_keys, [key, key + 1])
            group = self._span_entries[lo_i:hi_i].tolist()
            if not group:
                continue
            for arc in set(group):
                lengths[arc] = arcs.dist[arc]
            texts: dict[int, tuple[str, str]] = {}

            def matches(arc: int, g: GoldEdit) -> bool:
                if arc not in texts:
                    texts[arc] = self.texts(arc)
                orig, corr = texts[arc]
                return orig == g.orig and corr in g.corrections

            if s != e:
                for arc in group:
                    if any(matches(arc, g) for g in golds):
                        lengths[arc] = -n_entries
                    elif arcs.kind[arc] != NOOP:
                        lengths[arc] += EPSILON
                continue
            tails, heads = arcs.tail, arcs.head
            # Insertions: alternate between the two ends of the arc list and of the gold list, so that each
            # gold insertion is consumed once; after a match from the left, the arcs that do not continue
            # where the matched one ends are penalised (the reference does not stop at the right pointer).
            lo, hi = 0, len(group) - 1
            cur = lo
            g_lo, g_hi = 0, len(golds) - 1
            while lo <= hi:
                arc = group[cur]
                from_left = cur == lo
                order = range(g_lo, g_hi + 1) if from_left else range(g_hi, g_lo - 1, -1)
                hit = next((k for k in order if matches(arc, golds[k])), None)
                if hit is None:
                    lengths[arc] += EPSILON
                    if from_left:
                        lo += 1
                        cur = hi
                    else:
                        hi -= 1
                        cur = lo
                    continue
                lengths[arc] = -n_entries
                if from_left:
                    g_lo = hit + 1
                    lo += 1
                    while lo < len(group) and tails[group[lo]] != heads[arc]:
                        lengths[group[lo]] += EPSILON
                        lo += 1
                    cur = lo
                else:
                    g_hi = hit - 1
                    hi -= 1
                    while hi >= 0 and heads[group[hi]] != tails[arc]:
                        lengths[group[hi]] += EPSILON
                        hi -= 1
                    cur = hi
        return lengths

    def _shortest_path(self, lengths: np.ndarray, early_exit: bool) -> list[int]:
        """The arc into each cell chosen by Bellman–Ford over the entries in stored order (strict `<`).

        Within one pass, the base entries are sorted by tail, and every transitive entry into a cell comes
        before the transitive entries out of it (arcs are appended per middle cell, in cell order); so each
        segment of a pass equals a sweep over the cells in order where a cell takes the first in-entry (in
        entry order) that reaches the minimum, if that improves it — the same values, floats included.
        """
        n = len(self.cells)
        vector = len(self.entries) > _VECTOR_ENTRIES
        best: list[float] | np.ndarray = np.full(n, INF) if vector else [INF] * n
        best[0] = 0.0
        via = [-1] * n
        segments = []
        for cells, bounds, tails, ids in self._segments:
            w = lengths[ids]
            if vector:
                segments.append((cells.tolist(), bounds.tolist(), tails, w, ids))
            else:
                segments.append((cells.tolist(), bounds.tolist(), tails.tolist(), w.tolist(), ids.tolist()))
        for _ in range(n - 1):
            changed = False
            for cells, bounds, tails, w, ids in segments:
                for c, v in enumerate(cells):
                    a, b = bounds[c], bounds[c + 1]
                    if vector:
                        cand = best[tails[a:b]] + w[a:b]
                        k = int(cand.argmin())
                        if cand[k] < best[v]:
                            best[v] = cand[k]
                            via[v] = int(ids[a + k])
                            changed = True
                        continue
                    top, arc = best[v], -1
                    for k in range(a, b):
                        d = best[tails[k]] + w[k]
                        if d < top:
                            top, arc = d, ids[k]
                    if arc >= 0:
                        best[v], via[v] = top, arc
                        changed = True
            if early_exit and not changed:
                break
        return via

    def edit_sequence(self, gold: Sequence[GoldEdit], *, early_exit: bool = True) -> list[SysEdit]:
        """The system edits on the gold-weighted shortest path, right to left (the reference's order)."""
        via = self._shortest_path(self._lengths(gold), early_exit)
        arcs = self.arcs
        seq: list[SysEdit] = []
        v = len(self.cells) - 1
        while via[v] >= 0:
            arc = via[v]
            if arcs.kind[arc] != NOOP:
                seq.append(SysEdit(int(arcs.start[arc]), int(arcs.end[arc]), *self.texts(arc)))
            v = int(arcs.tail[arc])
        return seq


def match_pairs(edit_seq: Sequence[SysEdit], gold: Sequence[GoldEdit]) -> list[tuple[SysEdit, int]]:
    """Every (system edit, gold index) match, scanning left to right with a moving gold index.

    As in the reference there is no early stop: an edit matching two identical gold edits matches twice.
    """
    pairs: list[tuple[SysEdit, int]] = []
    start = 0
    for edit in reversed(edit_seq):
        for k in range(start, len(gold)):
            if gold[k].accepts(edit):
                pairs.append((edit, k))
                start = k + 1
    return pairs


def match_sequence(edit_seq: Sequence[SysEdit], gold: Sequence[GoldEdit]) -> list[SysEdit]:
    """System edits that match gold edits (`match_pairs`; an edit matching two gold edits is listed twice)."""
    return [edit for edit, _ in match_pairs(edit_seq, gold)]


def touched(edit: SysEdit | GoldEdit) -> range:
    """The source tokens an edit touches, as errant_compare's token-based detection: an insertion touches the
    token on its right."""
    return range(edit.start, max(edit.end, edit.start + 1))


def operation(edit: SysEdit) -> str:
    """ERRANT's operation of an edit from its shape: `M` (nothing replaced), `U` (nothing inserted), else `R`."""
    return "M" if not edit.orig else "U" if not edit.corr else "R"


@dataclass(frozen=True)
class AnnotatorEdits:
    """System edits extracted against one annotator's gold edits, and the matched ones."""

    annotator: int
    edit_seq: tuple[SysEdit, ...]
    correct: tuple[SysEdit, ...]
    gold: tuple[GoldEdit, ...]

    def edits_to_weigh(self) -> list[SysEdit]:
        """Distinct system and gold (first alternative) edits, sorted by span: the ones that need a weight."""
        unique = set(self.edit_seq) | {g.first for g in self.gold}
        return sorted(unique, key=lambda e: (e.start, e.end, e.orig, e.corr))

    def counts(self, weights: Mapping[SysEdit, float] | None = None, *, robust: bool = False) -> M2Counts:
        """Weighted (or, without weights, plain) correct / proposed / gold counts.

        `robust=True` bounds `correct` by `proposed` and `gold` (see `robust_matches`); wherever no system edit
        matches two gold edits and no gold edit is matched through an alternative of another weight, the counts
        are the published ones, bit for bit.
        """
        if weights is None and not robust:
            return M2Counts(len(self.correct), len(self.edit_seq), len(self.gold))
        if weights is None:
            weights = _Unit()
        if not robust:
            return M2Counts(
                float(sum(weights[e] for e in self.correct)),
                float(sum(abs(weights[e]) for e in self.edit_seq)),
                float(sum(weights[g.first] for g in self.gold)),
            )
        matched, by_gold = self.robust_matches()
        return M2Counts(
            float(sum(weights[e] for e in matched)),
            float(sum(abs(weights[e]) for e in self.edit_seq)),
            float(sum(weights[by_gold.get(k, g.first)] for k, g in enumerate(self.gold))),
        )

    def typed_counts(self, types: Sequence[str], weights: Mapping[SysEdit, float] | None = None, *,
                     robust: bool = False) -> dict[str, M2Counts]:
        """`counts` per error type, `types[k]` being gold edit k's type; the types add up to `counts`.

        A match counts under its gold edit's type. M² does not classify system edits, so each system edit is
        proposed under the type of the first gold edit it matched, else of the first gold edit that shares a source
        token with it (`touched`: the error it attempted), else under `<operation>:UNTYPED` (`operation`).
        """
        weights = _Unit() if weights is None else weights
        if robust:
            by_gold = self.robust_matches()[1]
            pairs = [(edit, k) for k, edit in by_gold.items()]
            gold_weights = [weights[by_gold.get(k, g.first)] for k, g in enumerate(self.gold)]
        else:
            pairs = match_pairs(self.edit_seq, self.gold)
            gold_weights = [weights[g.first] for g in self.gold]
        out: dict[str, M2Counts] = {}

        def add(error_type: str, counts: M2Counts) -> None:
            out[error_type] = out[error_type] + counts if error_type in out else counts

        first_match: dict[SysEdit, int] = {}
        for edit, k in pairs:
            add(types[k], M2Counts(float(weights[edit]), 0.0, 0.0))
            first_match.setdefault(edit, k)
        first_at_token: dict[int, int] = {}
        for k, g in enumerate(self.gold):
            for token in touched(g):
                first_at_token.setdefault(token, k)
        for edit in reversed(self.edit_seq):
            attempted = [first_at_token[t] for t in touched(edit) if t in first_at_token]
            k = first_match.get(edit, min(attempted, default=None))
            error_type = f"{operation(edit)}:{UNTYPED}" if k is None else types[k]
            add(error_type, M2Counts(0.0, float(abs(weights[edit])), 0.0))
        for k, w in enumerate(gold_weights):
            add(types[k], M2Counts(0.0, 0.0, float(w)))
        return out

    def robust_matches(self) -> tuple[list[SysEdit], dict[int, SysEdit]]:
        """The matches of robust mode: each system edit matches at most one gold edit (the first it can, scanning
        as `match_sequence` does), and each matched gold edit is returned with the system edit that matched it (so
        it weighs as the alternative the system chose, not as its first one)."""
        matched: list[SysEdit] = []
        by_gold: dict[int, SysEdit] = {}
        start = 0
        for edit in reversed(self.edit_seq):
            for k in range(start, len(self.gold)):
                if self.gold[k].accepts(edit):
                    matched.append(edit)
                    by_gold[k] = edit
                    start = k + 1
                    break
        return matched, by_gold


class _Unit(dict):
    """Weight 1 for every edit (unweighted counts in robust mode)."""

    def __missing__(self, key: SysEdit) -> float:
        return 1.0


#: The lattices kept inside `sharing_lattices`: (source, hypothesis, max_unchanged) → Lattice.
_LATTICES: SharedWithin[tuple, Lattice] = SharedWithin()


def sharing_lattices(max_pairs: int = 40_000) -> ContextManager[None]:
    """Inside the block, each pair's `Lattice` is built once and reused (up to `max_pairs` pairs, the least recently
    used dropped first; about 15 KiB each on CoNLL-2014): a lattice does not depend on the gold edits and is never
    changed once built, so M² and SentM² of one system, and one system against several reference sets, share it.
    Building it is most of M²'s time. Off by default (a single scoring never meets a pair twice); the
    meta-evaluation, which scores the same outputs under many configurations, turns it on. Nested blocks share
    the outer one's lattices."""
    return _LATTICES.scope(max_pairs)


def _lattice(source: Sequence[str], hypothesis: Sequence[str], max_unchanged_words: int) -> Lattice:
    """The pair's lattice: from the shared ones inside `sharing_lattices`, else newly built."""
    return _LATTICES.get((tuple(source), tuple(hypothesis), max_unchanged_words),
                         lambda: Lattice(source, hypothesis, max_unchanged_words))


def extract_edits(source: Sequence[str], hypothesis: Sequence[str], golds: Mapping[int, Sequence[GoldEdit]], *,
                  max_unchanged_words: int = 2, early_exit: bool = True) -> list[AnnotatorEdits]:
    """M² edit extraction of one sentence against each annotator (in the mapping's order)."""
    lattice = _lattice(source, hypothesis, max_unchanged_words)
    out = []
    for annotator, gold in golds.items():
        gold = tuple(gold)
        key = (annotator, gold, early_exit)
        found = lattice.extracted.get(key)
        if found is None:
            seq = lattice.edit_sequence(gold, early_exit=early_exit)
            found = lattice.extracted[key] = AnnotatorEdits(annotator, tuple(seq), tuple(match_sequence(seq, gold)),
                                                            gold)
        out.append(found)
    return out


#: Below this many sentences, handing their lattices to worker processes costs more than it saves; a pool not yet
#: running is started (by default) for `POOL_START_SENTENCES`.
PARALLEL_MIN_SENTENCES = 256
POOL_START_SENTENCES = 1_024

#: One sentence's M² extraction: source tokens, hypothesis tokens, and the gold edits of each annotator.
Extraction = tuple[Sequence[str], Sequence[str], Mapping[int, Sequence[GoldEdit]]]


def lattice_workers(distinct: int) -> int:
    """How many processes build the lattices of `distinct` sentences: the workers when there are enough sentences
    and no lattices are being shared in this process (`sharing_lattices`; a pool not yet running starts for
    `POOL_START_SENTENCES`, or `PARALLEL_MIN_SENTENCES` when the user chose the number), else 1."""
    from gecscore.common import workers

    count = workers.cpu_workers()
    if (count > 1 and distinct >= PARALLEL_MIN_SENTENCES and not _LATTICES.active
            and (workers.pool_running(count) or workers.user_chose_workers() or distinct >= POOL_START_SENTENCES)):
        return count
    return 1


def extract_all(items: Sequence[Extraction], *, max_unchanged_words: int = 2, progress: bool = False,
                then: Callable[[list[AnnotatorEdits], Hashable], Any] | None = None,
                extras: Sequence[Hashable] | None = None) -> list[Any]:
    """`extract_edits` of every sentence, on the worker processes (`gecscore.common.workers`) when there are
    enough sentences and no lattices are being shared in this process (`sharing_lattices`); the same edits either
    way, in input order.

    Identical sentences (several systems' same output, a repeated source) are extracted once and share the result.
    With `then` (a picklable function), each sentence's result is `then(edits, extras[i])`, computed where its
    edits were (on a worker, the pure work after the lattice goes with it and only the result comes back)."""
    from gecscore.common import workers
    from gecscore.common.progress import progress_bar

    extras = [None] * len(items) if extras is None else extras
    if len(extras) != len(items):
        raise ValueError(f"{len(extras)} extras for {len(items)} sentences")
    position: dict[tuple, int] = {}
    where = []  # each item's distinct sentence
    distinct: list[tuple[Extraction, Hashable]] = []
    for (source, hypothesis, golds), extra in zip(items, extras):
        key = (tuple(source), tuple(hypothesis), tuple((a, tuple(g)) for a, g in golds.items()), extra)
        k = position.get(key)
        if k is None:
            k = position[key] = len(distinct)
            distinct.append(((source, hypothesis, golds), extra))
        where.append(k)
    count = lattice_workers(len(distinct))
    if count > 1:
        from concurrent.futures.process import BrokenProcessPool

        with progress_bar(total=len(distinct), desc=f"M2 edits ({count} processes)", disable=not progress,
                          leave=False) as bar:
            try:
                done = workers.worker_pool(count).run_queued(_extract_chunk, distinct, max_unchanged_words, then,
                                                             on_done=bar.update)
            except BrokenProcessPool as error:
                raise workers.broken_pool(count, "The M2 lattice", error) from error
    else:
        rows = progress_bar(distinct, desc="PT-M2 edits", disable=not progress, leave=False)
        done = _extract_chunk(max_unchanged_words, then, rows)
    return [done[k] for k in where]


def _extract_chunk(max_unchanged_words: int, then: Callable[[list[AnnotatorEdits], Hashable], Any] | None,
                   items: Iterable[tuple[Extraction, Hashable]]) -> list[Any]:
    """`extract_edits` of each sentence (in a worker, or in this process), then `then` of it where given."""
    out = []
    for (source, hypothesis, golds), extra in items:
        edits = extract_edits(source, hypothesis, golds, max_unchanged_words=max_unchanged_words)
        out.append(edits if then is None else then(edits, extra))
    return out


def gold_types(sentence: M2Sentence) -> dict[int, list[str]]:
    """The M2 error type of every gold edit, per annotator: parallel to `gold_edits`."""
    types: dict[int, list[str]] = {}
    for e in sentence.edits:
        annotator = types.setdefault(e.annotator, [])
        if not e.is_noop:
            annotator.append(e.type)
    return types or {0: []}


def gold_edits(sentence: M2Sentence) -> dict[int, list[GoldEdit]]:
    """Gold edits per annotator, in order of first appearance, as the reference loads them.

    Noop lines leave their annotator with no edits; a block without `A` lines gives annotator 0 no edits;
    the original string comes from the M2 source tokens and alternatives are stripped.
    """
    tokens = sentence.source.split()
    golds: dict[int, list[GoldEdit]] = {}
    for e in sentence.edits:
        edits = golds.setdefault(e.annotator, [])
        if e.is_noop:
            continue
        corrections = tuple(c.strip() for c in e.corrections) or ("",)
        edits.append(GoldEdit(e.o_start, e.o_end, " ".join(tokens[e.o_start:e.o_end]), corrections))
    return golds or {0: []}


# ---------------------------------------------------------------------------------------------------
# Scores


class M2Counts(NamedTuple):
    """Sufficient statistics of one sentence and annotator (weighted sums with PT-M2 weights)."""

    correct: float
    proposed: float
    gold: float

    def __add__(self, other: object) -> M2Counts:  # type: ignore[override]
        if not isinstance(other, M2Counts):
            return NotImplemented
        return M2Counts(self.correct + other.correct, self.proposed + other.proposed, self.gold + other.gold)


def prf(counts: M2Counts, beta: float = 0.5) -> PRF:
    """P = c/p, R = c/g (1.0 when the denominator is 0), F_β from P and R (0.0 when β²P + R is 0)."""
    return PRF(*m2_prf(counts.correct, counts.proposed, counts.gold, beta))


def choose_annotator(candidates: Sequence[M2Counts], totals: M2Counts = M2Counts(0, 0, 0), beta: float = 0.5) -> int:
    """Index of the annotator maximising F_β of `totals` plus its counts; ties: more correct, then smaller
    `proposed + β²·gold`; the first one wins remaining ties."""
    b2 = beta_squared(beta, "m2")
    best = -1
    best_key: tuple[float, float, float] = (-INF, -INF, INF)
    for k, counts in enumerate(candidates):
        local = totals + counts
        f = prf(local, beta).f
        f_best, c_best, cost_best = best_key
        cost = local.proposed + b2 * local.gold
        if f_best < f or (f_best == f and c_best < local.correct) or \
                (f_best == f and c_best == local.correct and cost_best > cost):
            best, best_key = k, (f, local.correct, cost)
    if best < 0:
        raise ValueError("no annotator to choose from")
    return best


@dataclass(frozen=True)
class M2Result:
    """Corpus and sentence scores from per-sentence, per-annotator counts."""

    precision: float
    recall: float
    f: float
    totals: M2Counts
    chosen: tuple[int, ...]  # index of the chosen annotator (position in each sentence's candidate list)
    sentence_scores: tuple[PRF, ...]


def corpus_m2(counts: Iterable[Sequence[M2Counts]], beta: float = 0.5) -> M2Result:
    """Corpus M²: annotators chosen greedily against the running totals (official scorer; `m2_greedy`)."""
    counts = [list(candidates) for candidates in counts]
    if not counts:
        raise ValueError("no sentences to score")
    chosen, totals = m2_greedy(counts, beta).choose()
    total = M2Counts(*(float(x) for x in totals))
    p, r, f = prf(total, beta)
    return M2Result(p, r, f, total, tuple(chosen), tuple(prf(c[k], beta) for c, k in zip(counts, chosen)))


def m2_greedy(per_sentence: Sequence[Sequence[Sequence[float]]], beta: float) -> GreedyReferences:
    """Corpus M² F_β with the official scorer's greedy annotator choice, on the corpus (`corpus_m2`) or on
    resamples: the one implementation of the rule."""
    b2 = beta_squared(beta, "m2")

    def f(counts: np.ndarray) -> np.ndarray:
        return m2_prf(counts[..., 0], counts[..., 1], counts[..., 2], beta)[2]

    def key(running: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, ...]:
        local = running + candidates
        return f(local), local[..., 0], -(local[..., 1] + b2 * local[..., 2])

    return GreedyReferences([[tuple(c) for c in refs] for refs in per_sentence], key, f)


def sentence_m2(counts: Iterable[Sequence[M2Counts]], beta: float = 0.5) -> M2Result:
    """Sentence-averaged M² (SentM²): each sentence scored alone, P/R/F the means of the sentence values."""
    chosen, scores = [], []
    totals = M2Counts(0, 0, 0)
    for candidates in counts:
        k = choose_annotator(candidates, M2Counts(0, 0, 0), beta)
        chosen.append(k)
        scores.append(prf(candidates[k], beta))
        totals = totals + candidates[k]
    n = len(scores)
    if not n:
        raise ValueError("no sentences to score")
    mean = [sum(s[i] for s in scores) / n for i in range(3)]
    return M2Result(mean[0], mean[1], mean[2], totals, tuple(chosen), tuple(scores))
