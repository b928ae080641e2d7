"""Edits between whitespace-tokenised sentences: the `Edit` value, its application, and ERRANT extraction."""

from __future__ import annotations

import sys
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from gecscore.common.inputs import (check_same_length, check_texts, default_pipeline_name, load_spacy,
                                    loaded_name, loaded_pipeline)
from gecscore.common.progress import progress_bar
from gecscore.common.sharing import LRU
from gecscore.common import workers
from gecscore.common.workers import cpu_workers, user_chose_workers

if TYPE_CHECKING:
    from errant.alignment import Alignment
    from spacy.language import Language
    from spacy.tokens import Doc


@dataclass(frozen=True)
class Edit:
    """One edit: source tokens [o_start, o_end) replaced by `c_str` (target tokens [c_start, c_end))."""

    o_start: int
    o_end: int
    o_str: str
    c_start: int
    c_end: int
    c_str: str
    type: str = ""

    @property
    def key(self) -> tuple[int, int, str]:
        """Identity used for matching (ERRANT's `(o_start, o_end, c_str)`)."""
        return (self.o_start, self.o_end, self.c_str)


def apply_edits(source: str, edits: Iterable[Edit]) -> str:
    """Apply edits left to right in the given order, as the reference `apply_edits` does.

    Tokens come from splitting on single spaces; edits with `o_start == -1` (noop) are skipped;
    the offsets of later edits shift by the length change of earlier ones.
    """
    tokens = source.split(" ") if source else []
    shift = 0
    for edit in edits:
        if edit.o_start == -1:
            continue
        replacement = edit.c_str.split(" ") if edit.c_str else []
        start, end = edit.o_start + shift, edit.o_end + shift
        tokens[start:end] = replacement
        shift += len(replacement) - (edit.o_end - edit.o_start)
    return " ".join(tokens)


# ---------------------------------------------------------------------------------------------------
# ERRANT extraction

_EXTRACTORS: dict[int | None, EditExtractor] = {}
_EMPTY_TENSOR = np.zeros((0, 0), dtype=np.float32)
INF = float("inf")


def _whitespace_doc(nlp: Language, text: str) -> Doc:
    """The unparsed `Doc` ERRANT's `parse(text, tokenise=False)` builds: tokens from `text.split()`."""
    from spacy.tokens import Doc

    return Doc(nlp.vocab, words=text.split())


#: The parse cache's budget (bytes, by `parse_bytes`): about 30,000 parses of 20-token sentences.
PARSE_CACHE_BYTES = 64 << 20
#: What a cached parse holds (its tensor dropped), measured on SEEDA's 3,336 texts (about 2.1 KB for 22 tokens:
#: the tokens' C structs, the `Doc` and its arrays); `parse_bytes` counts by these.
DOC_BYTES, TOKEN_BYTES = 256, 100


def parse_bytes(doc: Doc) -> int:
    """The bytes a cached parse is counted for: `DOC_BYTES` plus `TOKEN_BYTES` a token."""
    return DOC_BYTES + TOKEN_BYTES * len(doc)


class EditExtractor:
    """ERRANT 3.0.2 edits (`lev=False`, `merging='rules'`) between whitespace-tokenised sentences.

    Equal to `annotator.annotate(annotator.parse(src), annotator.parse(trg))` pair by pair, but every distinct
    sentence is parsed once through `nlp.pipe`, and parses and edit lists are kept in bounded LRU caches.
    """

    def __init__(self, nlp: Language | None = None, *, cache_size: int = 100_000,
                 parse_cache_bytes: int = PARSE_CACHE_BYTES, batch_size: int = 256) -> None:
        if cache_size < 0 or parse_cache_bytes < 0:
            raise ValueError("cache sizes must be >= 0")
        # Without `nlp`, the default pipeline (`load_spacy()`) is loaded on first use in this process: when every
        # changed pair goes to the worker processes, this one never loads spaCy (nor torch through it).
        self._nlp = nlp
        self._name = None if nlp is not None else default_pipeline_name()  # fails now if none is installed
        self._annotator: Any = None
        self.batch_size = batch_size
        self._docs: LRU[str, Doc] = LRU(parse_cache_bytes, weight=parse_bytes)
        self._edits: LRU[tuple[str, str], tuple[Edit, ...]] = LRU(cache_size)

    @property
    def nlp(self) -> Language:
        """The spaCy pipeline (the default one loaded here on first use)."""
        if self._nlp is None:
            self._nlp = load_spacy()
            _EXTRACTORS.setdefault(id(self._nlp), self)
        return self._nlp

    @property
    def annotator(self) -> Any:
        """ERRANT's English annotator over `nlp`, its alignment replaced by `align` (made on first use)."""
        if self._annotator is None:
            import errant

            self._annotator = errant.load("en", nlp=self.nlp)
            self._annotator.align = align  # ERRANT's alignment, filled over token lists (see `align`)
        return self._annotator

    @annotator.setter
    def annotator(self, annotator: Any) -> None:
        self._annotator = annotator

    def extract(self, sources: Sequence[str], targets: Sequence[str], *, keep_unk: bool = False,
                progress: bool = False) -> list[list[Edit]]:
        """Edits turning each source into its target; `noop` never and `UNK` only with `keep_unk` kept."""
        sources = check_texts("sources", sources)
        targets = check_texts("targets", targets)
        check_same_length(sources=sources, targets=targets)
        found: dict[tuple[str, str], tuple[Edit, ...]] = {}
        todo = []
        for pair in dict.fromkeys(zip(sources, targets)):
            edits = self._edits.get(pair)
            if edits is None:
                todo.append(pair)
            else:
                found[pair] = edits
        changed = [pair for pair in todo if pair[0].split() != pair[1].split()]
        name = self.pipeline_name()
        count = use_workers(len(changed), name)
        if count > 1 and name is not None:
            for pair, edits in zip(changed, parallel_annotate(name, changed, count, progress)):
                found[pair] = edits
                self._edits.put(pair, edits)
            todo = [pair for pair in todo if pair not in found]  # left: the pairs with identical tokens
            changed = []
        docs = self._parse(list(dict.fromkeys(text for pair in changed for text in pair)), progress)
        for pair in progress_bar(todo, desc="ERRANT edits", disable=not progress or not todo, leave=False):
            found[pair] = self._annotate(*pair, docs)
            self._edits.put(pair, found[pair])
        return [
            [e for e in found[pair] if e.type != "noop" and (keep_unk or e.type != "UNK")]
            for pair in zip(sources, targets)
        ]

    def pipeline_name(self) -> str | None:
        """The name `load_spacy` loaded this extractor's pipeline by (None for a pipeline given as an object),
        which worker processes load again."""
        return self._name if self._nlp is None else loaded_name(self._nlp)

    def extract_one(self, source: str, target: str, *, keep_unk: bool = False) -> list[Edit]:
        """Edits of a single pair."""
        return self.extract([source], [target], keep_unk=keep_unk)[0]

    def _parse(self, texts: list[str], progress: bool) -> dict[str, Doc]:
        """Parses of distinct `texts`: cached ones looked up, the others run through `nlp.pipe` in batches."""
        found: dict[str, Doc] = {}
        missing = []
        for text in texts:
            doc = self._docs.get(text)
            if doc is None:
                missing.append(text)
            else:
                found[text] = doc
        if not missing:
            return found
        stream = self.nlp.pipe((_whitespace_doc(self.nlp, t) for t in missing), batch_size=self.batch_size)
        bar = progress_bar(stream, total=len(missing), desc="spaCy parse", disable=not progress, leave=False)
        for text, doc in zip(missing, bar):
            doc.tensor = _EMPTY_TENSOR  # ERRANT never reads the tok2vec output; dropping it keeps cached parses small
            self._docs.put(text, doc)
            found[text] = doc
        return found

    def _annotate(self, source: str, target: str, docs: dict[str, Doc]) -> tuple[Edit, ...]:
        """ERRANT edits of one pair (identical token lists align as all matches: no edits, no parse needed)."""
        if source.split() == target.split():
            return ()
        return tuple(
            Edit(e.o_start, e.o_end, e.o_str, e.c_start, e.c_end, e.c_str, e.type)
            for e in self.annotator.annotate(docs[source], docs[target])
        )

    def clear_cache(self) -> None:
        """Forget all cached parses and edit lists."""
        self._docs.clear()
        self._edits.clear()


# ---------------------------------------------------------------------------------------------------
# Worker processes (`gecscore.common.workers`)

#: Below this many pairs to annotate, handing them to worker processes costs more than it saves.
PARALLEL_MIN_PAIRS = 256
#: Below this many, worker processes are not started for them (by default: a user who set the number of workers
#: asked for them): starting each, with its own spaCy pipeline, costs a few seconds of every core.
POOL_START_PAIRS = 1_024
#: The parse cache of each worker process (bytes, as `PARSE_CACHE_BYTES`): a source is sent back to the worker that
#: parsed it (`workers.balanced_shares`), so the hypotheses of a later call (another system, the next reward step)
#: find their source parsed there.
WORKER_PARSE_CACHE_BYTES = 64 << 20
#: How far above an even share of a call's pairs a worker may be loaded to keep a source it parsed before.
AFFINITY_SLACK = 1.125


def use_workers(changed: int, name: str | None) -> int:
    """How many processes extract `changed` pairs: the workers when there are enough pairs and the pipeline can
    be loaded again by `name` (a pool not yet running starts for `POOL_START_PAIRS`, or `PARALLEL_MIN_PAIRS` when
    the user chose the number), else 1."""
    count = cpu_workers()
    if count <= 1 or name is None or changed < PARALLEL_MIN_PAIRS:
        return 1
    return count if workers.pool_running(count) or user_chose_workers() or changed >= POOL_START_PAIRS else 1


def parallel_annotate(name: str, pairs: Sequence[tuple[str, str]], count: int,
                      progress: bool = False) -> list[tuple[Edit, ...]]:
    """ERRANT edits of every (source, target) pair (noop and UNK kept), computed in `count` worker processes that
    each load the spaCy pipeline `name` once and keep their parses; in the order of `pairs`, and equal to one
    process's, pair for pair. All pairs of a source go to one worker, the one that parsed it before if it can."""
    pool = workers.worker_pool(count)
    by_source: dict[str, list[int]] = {}
    for k, (source, _) in enumerate(pairs):
        by_source.setdefault(source, []).append(k)
    shares = workers.balanced_shares(list(by_source.items()), count, pool.affinity, AFFINITY_SLACK)
    out: list[tuple[Edit, ...]] = [()] * len(pairs)
    with progress_bar(total=len(pairs), desc=f"ERRANT edits ({count} processes)", disable=not progress,
                      leave=False) as bar:
        try:
            found = pool.run(_annotate_chunk, [[pairs[k] for k in share] for share in shares], name,
                             on_done=bar.update)
        except BrokenProcessPool as error:
            raise workers.broken_pool(count, "ERRANT", error) from error
    for share, edits in zip(shares, found):
        for k, pair_edits in zip(share, edits):
            out[k] = pair_edits
    return out


def _annotate_chunk(name: str, pairs: list[tuple[str, str]]) -> list[tuple[Edit, ...]]:
    """In a worker: parse the chunk's sentences not parsed before, in batches, then annotate every pair (the
    worker's extractor over pipeline `name` is made on first use and kept, with its parses)."""
    extractor = workers.WORKER_STATE.get(f"errant:{name}")
    if extractor is None:
        extractor = workers.WORKER_STATE[f"errant:{name}"] = EditExtractor(
            _worker_pipeline(name), cache_size=0, parse_cache_bytes=WORKER_PARSE_CACHE_BYTES)
    docs = extractor._parse(list(dict.fromkeys(text for pair in pairs for text in pair)), False)
    return [extractor._annotate(source, target, docs) for source, target in pairs]


def _worker_pipeline(name: str) -> Language:
    """In a worker: the spaCy pipeline `name`, with spaCy imported without torch where neither is loaded yet.
    thinc imports torch whenever it can, but ERRANT's pipeline never runs it and a worker runs nothing else: this
    halves a worker's start (about 2 s less) and its memory (about 180 MB less); the parses are the same."""
    if "spacy" not in sys.modules and "torch" not in sys.modules:
        sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError meanwhile
        try:
            import spacy  # noqa: F401
        finally:
            del sys.modules["torch"]
    return load_spacy(name)


def align(orig: Doc, cor: Doc, lev: bool = False) -> Alignment:
    """ERRANT's `Alignment(orig, cor, lev)`: the same cost and operation matrices, filled faster.

    ERRANT fills its linguistic Damerau-Levenshtein matrices cell by cell in Python, indexing the `Doc`s (each
    index builds a new `Token`) and computing each substitution cost from token attributes. Here the substitution
    costs of all token pairs come first, as arrays (the same terms added in the same order, so the same doubles),
    and the programme runs over plain lists; the recurrence, its tie-breaking (first cheapest of transposition,
    substitution, insertion, deletion) and the transposition search are ERRANT 3.0.2's. The finished alignment is
    an ERRANT `Alignment` holding the `Doc`s, which its merger slices. `lev=True` (plain Levenshtein) is left to
    ERRANT.
    """
    from errant.alignment import Alignment

    if lev:
        return Alignment(orig, cor, lev)
    alignment = Alignment.__new__(Alignment)
    alignment.orig, alignment.cor = orig, cor
    alignment.cost_matrix, alignment.op_matrix = _linguistic_matrices(list(orig), list(cor))
    alignment.align_seq = alignment.get_cheapest_align_seq()
    return alignment


def _substitution_costs(orig: list, cor: list) -> list[list[float]]:
    """ERRANT's substitution cost of every token pair: 0 if only case differs, else lemma (0 or 0.499) + POS (0,
    0.25 between two open classes, 0.5) + normalised character Indel distance."""
    from errant.alignment import Alignment
    from rapidfuzz import process
    from rapidfuzz.distance import Indel

    def column(tokens: list, attribute: str) -> np.ndarray:
        return np.array([getattr(t, attribute) for t in tokens], dtype=np.uint64)

    same = lambda attribute: column(orig, attribute)[:, None] == column(cor, attribute)[None, :]
    open_o = np.array([t.pos in Alignment._open_pos for t in orig])
    open_c = np.array([t.pos in Alignment._open_pos for t in cor])
    lemma = np.where(same("lemma"), 0.0, 0.499)
    pos = np.where(same("pos"), 0.0, np.where(open_o[:, None] & open_c[None, :], 0.25, 0.5))
    chars = process.cdist([t.text for t in orig], [t.text for t in cor], scorer=Indel.normalized_distance,
                          dtype=np.float64)
    return np.where(same("lower"), 0.0, lemma + pos + chars).tolist()


def _linguistic_matrices(orig: list, cor: list) -> tuple[list[list[float]], list[list[str]]]:
    """ERRANT's cost and operation matrices ("M", "S", "I", "D", "T<k>") for token lists `orig` and `cor`."""
    o_len, c_len = len(orig), len(cor)
    o_orth, c_orth = [t.orth for t in orig], [t.orth for t in cor]
    o_low, c_low = [t.lower for t in orig], [t.lower for t in cor]
    sub = _substitution_costs(orig, cor) if o_len and c_len else [[] for _ in range(o_len)]
    cost = [[0.0] * (c_len + 1) for _ in range(o_len + 1)]
    ops = [["O"] * (c_len + 1) for _ in range(o_len + 1)]
    for i in range(1, o_len + 1):
        cost[i][0], ops[i][0] = cost[i - 1][0] + 1, "D"
    for j in range(1, c_len + 1):
        cost[0][j], ops[0][j] = cost[0][j - 1] + 1, "I"
    for i in range(o_len):
        above, row, row_ops, sub_i, orth = cost[i], cost[i + 1], ops[i + 1], sub[i], o_orth[i]
        for j in range(c_len):
            if orth == c_orth[j]:
                row[j + 1], row_ops[j + 1] = above[j], "M"
                continue
            best, op = INF, ""  # a transposition needs >= 2 tokens; search back along the diagonal
            k = 1
            while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                if sorted(o_low[i - k:i + 1]) == sorted(c_low[j - k:j + 1]):
                    best, op = cost[i - k][j - k] + k, f"T{k + 1}"
                    break
                k += 1
            # Strict comparisons in ERRANT's order (transposition, substitution, insertion, deletion): the first
            # cheapest wins ties, as its `costs.index(min(costs))`.
            candidate = above[j] + sub_i[j]
            if candidate < best:
                best, op = candidate, "S"
            candidate = row[j] + 1
            if candidate < best:
                best, op = candidate, "I"
            candidate = above[j + 1] + 1
            if candidate < best:
                best, op = candidate, "D"
            row[j + 1], row_ops[j + 1] = best, op
    return cost, ops


def get_extractor(nlp: Language | None = None) -> EditExtractor:
    """The process-wide `EditExtractor` for `nlp` (default: `load_spacy()`'s pipeline, loaded when first needed)."""
    nlp = nlp if nlp is not None else loaded_pipeline()
    key = None if nlp is None else id(nlp)  # the extractor keeps `nlp` alive, so its id stays unique
    extractor = _EXTRACTORS.get(key)
    if extractor is None:
        extractor = _EXTRACTORS[key] = EditExtractor(nlp)
    return extractor
