"""`gecscore.common.m2io`: parsing, writing and target reconstruction on toy blocks and the real CoNLL-2014 files."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscore.common.edits import Edit, apply_edits
from gecscore.common.m2io import M2Edit, M2Sentence, edits_to_m2, format_m2, m2_target, parse_m2, read_m2

TOY = """S When we are diagonosed out with certain genetic disease .
A 3 4|||Mec|||diagnosed|||REQUIRED|||-NONE-|||0
A 4 5|||Prep|||-NONE-|||REQUIRED|||-NONE-|||0
A 8 9|||Nn|||diseases||illnesses|||REQUIRED|||-NONE-|||0
A 3 5|||Rloc-|||diagnosed|||REQUIRED|||-NONE-|||1
A 6 6|||ArtOrDet|||a|||REQUIRED|||-NONE-|||1

S Nothing to do here .

S If it is true .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
A 0 1|||Trans||||||REQUIRED|||-NONE-|||1

"""


def test_parse_toy_blocks():
    first, second, third = parse_m2(TOY)
    assert first.source == "When we are diagonosed out with certain genetic disease ."
    assert first.annotators == [0, 1]
    assert first.edits[1] == M2Edit(4, 5, "Prep", ("",), 0)  # -NONE- correction = deletion
    assert first.edits[2].corrections == ("diseases", "illnesses")
    assert [e.o_start for e in first.edits_of(1)] == [3, 6]
    assert second == M2Sentence("Nothing to do here .", [])
    assert second.annotators == []
    noop = third.edits[0]
    assert noop.is_noop and (noop.o_start, noop.o_end, noop.type, noop.corrections) == (-1, -1, "noop", ("",))
    assert not third.edits[1].is_noop and third.edits[1].corrections == ("",)
    assert third.annotators == [0, 1]


def test_targets_use_first_alternative_and_skip_noop():
    first, second, third = parse_m2(TOY)
    assert m2_target(first, 0) == "When we are diagnosed with certain genetic diseases ."
    assert m2_target(first, 1) == "When we are diagnosed with a certain genetic disease ."
    assert m2_target(first, 7) == first.source  # annotator without lines: the source
    assert m2_target(second, 0) == second.source
    assert m2_target(third, 0) == "If it is true ."
    assert m2_target(third, 1) == "it is true ."


def test_target_applies_by_offset_whatever_the_file_order():
    block = parse_m2("S a b c d\nA 3 4|||X|||D|||REQUIRED|||-NONE-|||0\nA 0 1|||X|||A A|||REQUIRED|||-NONE-|||0\n")[0]
    assert m2_target(block, 0) == "A A b c D"
    overlapping = parse_m2("S a b c\nA 0 2|||X|||x|||REQUIRED|||-NONE-|||0\nA 1 3|||X|||y|||REQUIRED|||-NONE-|||0\n")
    with pytest.raises(ValueError, match="overlaps"):
        m2_target(overlapping[0], 0)


def test_toy_round_trip_keeps_none_spelling():
    assert format_m2(parse_m2(TOY)) == TOY
    assert "A 4 5|||Prep|||-NONE-|||" in format_m2(parse_m2(TOY))
    assert "A 0 1|||Trans||||||" in format_m2(parse_m2(TOY))


def test_crlf_trailing_whitespace_and_extra_blank_lines():
    messy = "\r\n\r\nS a b  \r\nA 0 1|||X|||c|||REQUIRED|||-NONE-|||0 \r\n\r\n\r\n\r\nS d\r\n"
    first, second = parse_m2(messy)
    assert first == M2Sentence("a b", [M2Edit(0, 1, "X", ("c",), 0)])
    assert second == M2Sentence("d", [])
    assert format_m2([first, second]) == "S a b\nA 0 1|||X|||c|||REQUIRED|||-NONE-|||0\n\nS d\n"


def test_empty_inputs():
    assert parse_m2("") == [] and format_m2([]) == ""
    (block,) = parse_m2("S\nA 0 0|||M:OTHER|||Hello .|||REQUIRED|||-NONE-|||0\n\n")
    assert block.source == "" and m2_target(block, 0) == "Hello ."
    assert format_m2([block]) == "S\nA 0 0|||M:OTHER|||Hello .|||REQUIRED|||-NONE-|||0\n\n"


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("S a b\nA 0 1|||X|||c|||REQUIRED|||0\n", r"line 2: expected 6 '\|\|\|'-separated fields, found 5"),
        ("S a b\nA 0 x|||X|||c|||REQUIRED|||-NONE-|||0\n", r"line 2: offsets and annotator id must be integers"),
        ("S a b\nA 0 1|||X|||c|||REQUIRED|||-NONE-|||zero\n", r"line 2: offsets and annotator id"),
        ("S a b\nA 0|||X|||c|||REQUIRED|||-NONE-|||0\n", r"line 2: expected 'A <start> <end>'"),
        ("S a b\nA 2 1|||X|||c|||REQUIRED|||-NONE-|||0\n", r"line 2: bad span 2 1"),
        ("S a b\nA 1 3|||X|||c|||REQUIRED|||-NONE-|||0\n", r"line 2: span 1 3 is beyond the 2 source tokens"),
        ("\nA 0 1|||X|||c|||REQUIRED|||-NONE-|||0\n", r"line 2: 'A' line outside a block"),
        ("S a\n\nS b\nS c\n", r"line 4: 'S' line without a blank line"),
        ("S a\nB what\n", r"line 2: expected an 'S', 'T', 'A' or blank line"),
        ("S a\nT0-Ax a\n", r"line 2: expected an 'S', 'T', 'A' or blank line"),
        ("\nT0-A0 a\n", r"line 2: 'T' line outside a block"),
    ],
)
def test_malformed_lines_name_the_line(text, pattern):
    with pytest.raises(ValueError, match=pattern):
        parse_m2(text)


def test_parse_rejects_non_string():
    with pytest.raises(TypeError, match="`text` must be a str"):
        parse_m2(b"S a\n")


def test_edits_to_m2_writes_errant_lines_and_noop():
    edits = [Edit(1, 2, "has", 1, 2, "have", "R:VERB:SVA"), Edit(3, 4, "apple", 3, 3, "", "U:NOUN")]
    block = edits_to_m2("I has a apple .", [edits, []])
    assert format_m2([block]) == (
        "S I has a apple .\n"
        "A 1 2|||R:VERB:SVA|||have|||REQUIRED|||-NONE-|||0\n"
        "A 3 4|||U:NOUN||||||REQUIRED|||-NONE-|||0\n"
        "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n\n"
    )
    assert m2_target(block, 0) == apply_edits("I has a apple .", edits) == "I have a ."
    assert m2_target(block, 1) == "I has a apple ."


_token = st.text(alphabet="abcXYZ,.'", min_size=1, max_size=4)


@st.composite
def _sentences(draw):
    tokens = draw(st.lists(_token, max_size=6))
    edits = []
    for annotator in range(draw(st.integers(0, 2))):
        if draw(st.booleans()):
            edits.append(M2Edit(-1, -1, "noop", ("",), annotator))
            continue
        for _ in range(draw(st.integers(1, 3))):
            start = draw(st.integers(0, len(tokens)))
            end = draw(st.integers(start, len(tokens)))
            alts = draw(st.lists(st.lists(_token, max_size=2).map(" ".join), min_size=1, max_size=2))
            edits.append(M2Edit(start, end, draw(st.sampled_from(["R:DET", "Nn", "UNK"])), tuple(alts), annotator))
    return M2Sentence(" ".join(tokens), edits)


@settings(max_examples=60, deadline=None)
@given(st.lists(_sentences(), max_size=4))
def test_format_then_parse_round_trip(sentences):
    text = format_m2(sentences)
    assert parse_m2(text) == sentences
    assert format_m2(parse_m2(text)) == text


# ----------------------------------------------------------------------------------------------- real files

def _real_m2_files(shared_data):
    conll = shared_data / "CoNLL-2014"
    return [conll / "PT-M2/data/reference.m2", conll / "nusnlp-gecmetrics/data/conll14st-test/conll14st-test.m2",
            *sorted((conll / "CLEME/demo/examples").glob("*.errant"))]


def test_real_files_round_trip_exactly(shared_data):
    files = _real_m2_files(shared_data)
    assert len(files) == 16
    for path in files:
        text = path.read_text(encoding="utf-8")
        sentences = parse_m2(text)
        assert len(sentences) == 1312, path.name
        assert format_m2(sentences) == text, path.name
    amu = (shared_data / "CoNLL-2014/CLEME/demo/examples/conll14-AMU.errant").read_text(encoding="utf-8")
    assert amu.endswith("|||0\n")  # this one has no blank line after its last block, and keeps it that way


def test_official_conll14_gold_counts(shared_data):
    """Counts documented in ../shared/data/CoNLL-2014/README.md."""
    gold = read_m2(shared_data / "CoNLL-2014/PT-M2/data/reference.m2")
    edits = [e for s in gold for e in s.edits]
    assert sum(1 for e in edits if e.annotator == 0 and not e.is_noop) == 2391
    assert sum(1 for e in edits if e.annotator == 1 and not e.is_noop) == 3207
    assert sum(1 for e in edits if e.annotator == 0 and e.is_noop) == 229
    assert sum(1 for e in edits if e.annotator == 1 and e.is_noop) == 46
    assert sum(1 for s in gold if not s.edits) == 136
    assert sum(1 for s in gold if s.annotators == [0]) == 88
    assert [s.source for s in gold] == (shared_data / "CoNLL-2014/derived/INPUT.txt").read_text().split("\n")[:1312]


@pytest.mark.parametrize("k", [0, 1])
def test_targets_reproduce_derived_references(shared_data, k):
    """gec-metrics convention: annotator k's edits applied, the source where k has no line."""
    gold = read_m2(shared_data / "CoNLL-2014/PT-M2/data/reference.m2")
    refs = (shared_data / f"CoNLL-2014/derived/REF{k}.txt").read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert [m2_target(s, k) for s in gold] == refs


@pytest.mark.parametrize("k", [0, 1])
def test_errant_file_targets_reproduce_pt_m2_references(shared_data, k):
    errant_m2 = read_m2(shared_data / "CoNLL-2014/CLEME/demo/examples/conll14.errant")
    ref_file = shared_data / f"CoNLL-2014/PT-M2/data/reference/ref{k}"
    refs = ref_file.read_text(encoding="utf-8").rstrip("\n").split("\n")
    assert [m2_target(s, k) for s in errant_m2] == refs


def test_m2edit_needs_corrections():
    with pytest.raises(ValueError, match="non-empty tuple"):
        M2Edit(0, 1, "X", (), 0)
    with pytest.raises(ValueError, match="non-empty tuple"):
        M2Edit(0, 1, "X", ["a"], 0)
