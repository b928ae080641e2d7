"""`gecscore.cleme2.chunks`: CLEME's joint chunk partition, chunk labels and the M2 / raw-text inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscore.cleme2.chunks import (
    FN, FP_NE, FP_UN, TN, TP, Chunk, Sample, Target, chunk_bounds, label_chunks, m2_blocks, partition,
    partition_sample, samples_from_m2, samples_from_text, shared_intervals,
)
from gecscore.common.edits import Edit
from gecscore.common.m2io import parse_m2


def edit(o_start: int, o_end: int, c_start: int, correction: str, type_: str = "R:X") -> Edit:
    tokens = correction.split()
    return Edit(o_start, o_end, "", c_start, c_start + len(tokens), correction, type_)


def texts(chunks: list[Chunk]) -> list[str]:
    return [" ".join(c.tgt) for c in chunks]


# ---------------------------------------------------------------------------------------------------
# partition


def test_touching_edits_merge_and_lone_insertions_make_dummy_chunks():
    assert shared_intervals([[edit(2, 3, 2, "x")], [edit(3, 4, 3, "y")]]) == [(2, 4)]
    assert shared_intervals([[edit(2, 3, 2, "x"), edit(3, 3, 3, "z")]]) == [(2, 3)]
    assert shared_intervals([[edit(1, 2, 1, "x")], [edit(3, 3, 3, "y")]]) == [(1, 2), (3, 3)]
    assert chunk_bounds(5, [(1, 2), (3, 3)]) == [(0, 1), (1, 2), (2, 3), (3, 3), (3, 5)]
    assert chunk_bounds(2, [(0, 0), (2, 2)]) == [(0, 0), (0, 2), (2, 2)]


def test_partition_widens_edits_and_maps_unedited_targets():
    source = "a b c d e".split()
    hyp = "a B c d e".split()  # edits chunk [1, 2) only
    ref = "a C D d e".split()  # edits [1, 2) and [2, 3): touching, so one chunk [1, 3)
    hyp_chunks, ref_chunks = partition(source, [hyp, ref], [[edit(1, 2, 1, "B")],
                                                            [edit(1, 2, 1, "C", "T1"), edit(2, 3, 2, "D", "T2")]])
    assert [(c.o_start, c.o_end) for c in hyp_chunks] == [(0, 1), (1, 3), (3, 5)]
    assert texts(hyp_chunks) == ["a", "B c", "d e"]  # the hypothesis edit widened to the shared interval
    assert texts(ref_chunks) == ["a", "C D", "d e"]
    assert ref_chunks[1].types == ("T1", "T2") and hyp_chunks[1].types == ("R:X",)
    assert not hyp_chunks[0].marked and hyp_chunks[1].marked


def test_dummy_chunk_of_a_target_that_does_not_insert_is_empty():
    source = "a b c".split()
    hyp, ref = partition(source, [source, "a b new c".split()], [[], [edit(2, 2, 2, "new")]])
    assert [(c.o_start, c.o_end) for c in hyp] == [(0, 2), (2, 2), (2, 3)]
    assert hyp[1].tgt == () and not hyp[1].marked
    assert ref[1].tgt == ("new",) and ref[1].marked


def test_cleme_readme_demo_partition():
    """The chunk table printed in the CLEME v1.0 README (`demo.errant`, three annotators)."""
    m2 = """S When we are diagonosed out with certain genetic disease , are we suppose to disclose this result to our relatives ?
A 3 5|||R:VERB:FORM|||diagnosed|||REQUIRED|||-NONE-|||0
A 8 9|||R:NOUN:NUM|||diseases|||REQUIRED|||-NONE-|||0
A 3 5|||R:VERB:FORM|||diagnosed|||REQUIRED|||-NONE-|||1
A 6 6|||M:DET|||a|||REQUIRED|||-NONE-|||1
A 12 13|||R:VERB:FORM|||supposed|||REQUIRED|||-NONE-|||1
A 3 4|||R:SPELL|||diagnosed|||REQUIRED|||-NONE-|||2
A 8 9|||R:NOUN:NUM|||diseases|||REQUIRED|||-NONE-|||2
A 15 17|||R:OTHER|||the results|||REQUIRED|||-NONE-|||2
A 18 19|||R:PRON|||their|||REQUIRED|||-NONE-|||2
"""
    hyp = m2.split("\n")[0] + "\n"
    (sample,) = samples_from_m2(hyp, m2)
    chunks = partition_sample(sample)
    src = [" ".join(c.src) for c in chunks[0]]
    assert src == ["When we are", "diagonosed out", "with", "", "certain genetic", "disease", ", are we", "suppose",
                   "to disclose", "this result", "to", "our", "relatives ?"]
    assert texts(chunks[1]) == ["When we are", "diagnosed", "with", "", "certain genetic", "diseases", ", are we",
                                "suppose", "to disclose", "this result", "to", "our", "relatives ?"]
    assert texts(chunks[2])[1:4] == ["diagnosed", "with", "a"] and texts(chunks[2])[7] == "supposed"
    assert texts(chunks[3])[1] == "diagnosed out" and texts(chunks[3])[9:12] == ["the results", "to", "their"]


@st.composite
def _targets(draw):
    """A source and up to three targets, each built from random non-overlapping edits."""
    n = draw(st.integers(0, 7))
    source = [f"s{i}" for i in range(n)]
    targets, edit_lists = [], []
    for t in range(draw(st.integers(1, 3))):
        tokens, edits, pos, shift = list(source), [], 0, 0
        while pos <= n and draw(st.booleans()):
            start = draw(st.integers(pos, n))
            end = draw(st.integers(start, min(n, start + 2)))
            correction = [f"t{t}e{len(edits)}w{k}" for k in range(draw(st.integers(0 if end > start else 1, 2)))]
            c_start = start + shift
            tokens[c_start:end + shift] = correction
            shift += len(correction) - (end - start)
            edits.append(Edit(start, end, "", c_start, c_start + len(correction), " ".join(correction), "X"))
            pos = end + 1
        targets.append(tokens)
        edit_lists.append(edits)
    return source, targets, edit_lists


@settings(max_examples=300, deadline=None)
@given(_targets())
def test_partition_invariants(case):
    source, targets, edit_lists = case
    chunked = partition(source, targets, edit_lists)
    bounds = [(c.o_start, c.o_end) for c in chunked[0]]
    for tokens, edits, chunks in zip(targets, edit_lists, chunked):
        assert [(c.o_start, c.o_end) for c in chunks] == bounds  # one cut for all targets
        assert [t for c in chunks for t in c.src] == source
        assert [t for c in chunks for t in c.tgt] == tokens  # every target token in exactly one chunk
        def inside(e: Edit, c: Chunk) -> bool:
            return c.o_start <= e.o_start and e.o_end <= c.o_end

        for e in edits:  # every edit lies in a chunk its target marks
            assert any(c.marked and inside(e, c) for c in chunks)
        for c in chunks:  # a marked chunk holds an edit of its target; an unmarked one is unchanged
            assert not c.marked or any(inside(e, c) for e in edits)
            assert c.marked or c.tgt == c.src


# ---------------------------------------------------------------------------------------------------
# labels


def _chunks(*rows: tuple[str, bool]) -> list[Chunk]:
    return [Chunk(i, i, i + 1, ("s",), tuple(text.split()), ("X",) if marked else ()) for i, (text, marked) in
            enumerate(rows)]


def test_sharing_partitions_chunks_each_sample_once_and_hands_out_fresh_lists(monkeypatch):
    """Inside `sharing_partitions` a sample is partitioned once (the least recently used dropped past the bound);
    the chunks equal the unshared ones, each call gets its own lists, and outside the block nothing is kept."""
    from gecscore.cleme2 import chunks, sharing_partitions

    hyp = Target("a b d", (edit(2, 3, 2, "d"),))
    samples = [Sample(src, hyp, (Target("a c c", (edit(1, 2, 1, "c"),)),), (0,)) for src in ("a b c", "a b e")]
    calls = []
    unshared = chunks._partition_sample
    monkeypatch.setattr(chunks, "_partition_sample", lambda s: calls.append(s) or unshared(s))
    expected = [unshared(s) for s in samples]
    with sharing_partitions(max_samples=1):
        with sharing_partitions():  # nested: the outer block's store and bound
            first = partition_sample(samples[0])
        second = partition_sample(samples[0])
        assert first == second == expected[0] and first is not second and first[0] is not second[0]
        first[0].clear()
        assert partition_sample(samples[0]) == expected[0] and len(calls) == 1
        assert partition_sample(samples[1]) == expected[1] and len(calls) == 2  # evicts samples[0]
        assert partition_sample(samples[0]) == expected[0] and len(calls) == 3
    assert not chunks._PARTITIONS.active
    assert partition_sample(samples[0]) == expected[0] and len(calls) == 4


def test_dependent_and_independent_labels():
    hyp = _chunks(("a", True), ("b", True), ("c", True), ("s", False), ("s", False), ("s", False))
    ref1 = _chunks(("a", True), ("x", True), ("s", False), ("y", True), ("s", False), ("z", True))
    ref2 = _chunks(("q", True), ("b", True), ("s", False), ("y", True), ("s", False), ("s", False))
    assert label_chunks([hyp, ref1, ref2], "dependent") == [
        [TP, FP_NE, FP_UN, FN, TN, FN],
        [FP_NE, TP, FP_UN, FN, TN, TN],
    ]
    # independent: TP if any reference agrees, FN only if all references edit
    assert label_chunks([hyp, ref1, ref2], "independent") == [[TP, TP, FP_UN, FN, TN, TN]] * 2
    with pytest.raises(ValueError, match="assumption"):
        label_chunks([hyp, ref1], "both")
    with pytest.raises(ValueError, match="at least one reference"):
        label_chunks([hyp], "dependent")


def test_marked_chunk_with_unchanged_tokens_is_an_edit():
    """An ERRANT `UNK` edit leaves the tokens but marks the chunk: TP against an unmarked equal reference chunk."""
    hyp = _chunks(("s", True))
    assert label_chunks([hyp, _chunks(("s", False))], "dependent") == [[TP]]
    assert label_chunks([_chunks(("s", False)), _chunks(("s", True))], "dependent") == [[TN]]


# ---------------------------------------------------------------------------------------------------
# inputs


def test_m2_blocks_follow_cleme_reader():
    block = parse_m2("S a b c\nA 0 1|||X|||A|||REQUIRED|||-NONE-|||0\nA 1 2|||X|||B|||REQUIRED|||-NONE-|||2\n"
                     "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\nA 2 3|||X|||C|||REQUIRED|||-NONE-|||2\n")[0]
    # id 2 after 0 is not "previous + 1": its line joins target 0; then annotators 1 and 2 start targets 1 and 2
    assert [[(e.o_start, e.annotator) for e in lines] for lines in m2_blocks(block)] == [
        [(0, 0), (1, 2)], [(-1, 1)], [(2, 2)]]
    assert m2_blocks(parse_m2("S a b\n")[0]) == [[]]


def test_samples_from_m2_targets_noop_deletion_and_checks(tmp_path):
    ref = ("S a b c d\nA 1 2|||U:X|||-NONE-|||REQUIRED|||-NONE-|||0\nA 3 3|||M:X|||e f|||REQUIRED|||-NONE-|||0\n"
           "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n\n")
    hyp = "S a b c d\nA 0 1|||UNK|||a|||REQUIRED|||-NONE-|||0\n\n"
    path = tmp_path / "ref.m2"
    path.write_text(ref, encoding="utf-8")
    (sample,) = samples_from_m2(hyp, str(path))
    assert [r.text for r in sample.references] == ["a c e f d", "a b c d"]
    assert sample.references[0].edits == (Edit(1, 2, "b", 1, 1, "", "U:X"), Edit(3, 3, "", 2, 4, "e f", "M:X"))
    assert sample.hypothesis.edits[0].type == "UNK"  # kept: the chunk counts as edited
    assert partition_sample(sample)[0][0].marked
    with pytest.raises(ValueError, match="empty source"):
        samples_from_m2("S\n", "S\n")
    with pytest.raises(ValueError, match="sources differ"):
        samples_from_m2("S a b\n", "S a c\n")
    with pytest.raises(ValueError, match="2 sentences"):
        samples_from_m2("S a\n\nS b\n", "S a\n")
    with pytest.raises(ValueError, match="one correction per M2 line"):
        samples_from_m2("S a b\n", "S a b\nA 0 1|||X|||c||d|||REQUIRED|||-NONE-|||0\n")
    with pytest.raises(ValueError, match="hypothesis M2 has one"):
        samples_from_m2("S a b\nA 0 1|||X|||c|||REQUIRED|||-NONE-|||0\nA 0 1|||X|||d|||REQUIRED|||-NONE-|||1\n",
                        "S a b\n")
    with pytest.raises(ValueError, match="neither an existing file"):
        samples_from_m2(str(tmp_path / "missing.m2"), ref)


def test_empty_references_dropped_but_one_kept():
    ref = ("S a b\nA 0 2|||U:X|||-NONE-|||REQUIRED|||-NONE-|||0\nA 0 1|||R:X|||c|||REQUIRED|||-NONE-|||1\n"
           "A 0 2|||U:X|||-NONE-|||REQUIRED|||-NONE-|||2\n")
    (sample,) = samples_from_m2("S a b\n", ref)
    assert [r.text for r in sample.references] == ["c b"] and sample.reference_ids == (1,)
    (sample,) = samples_from_m2("S a b\n", "S a b\nA 0 2|||U:X|||-NONE-|||REQUIRED|||-NONE-|||0\n")
    assert [r.text for r in sample.references] == [""] and sample.reference_ids == (0,)


class _StubExtractor:
    """Edits of a fixed table, recording what it was asked (no spaCy needed)."""

    def __init__(self, table: dict[tuple[str, str], list[Edit]]) -> None:
        self.table = table
        self.calls: list[dict] = []

    def extract(self, sources, targets, *, keep_unk=False, progress=False):
        self.calls.append({"pairs": list(zip(sources, targets)), "keep_unk": keep_unk})
        return [self.table.get((s, t), []) for s, t in zip(sources, targets)]


def test_samples_from_text_uses_errant_with_unk_and_drops_empty_references():
    e = Edit(1, 2, "go", 1, 2, "goes", "R:VERB:SVA")
    stub = _StubExtractor({("He go .", "He goes ."): [e]})
    (sample,) = samples_from_text(["He  go ."], ["He goes ."], [["", "He goes .", "  "]], stub)
    assert stub.calls[0]["keep_unk"] is True
    assert sample == Sample("He go .", Target("He goes .", (e,)), (Target("He goes .", (e,)),), (1,))
    with pytest.raises(ValueError, match=r"`sources\[1\]` is empty"):
        samples_from_text(["a", " "], ["a", "b"], ["a", "b"], stub)
    with pytest.raises(ValueError, match="references"):
        samples_from_text(["a"], ["a"], [], stub)
