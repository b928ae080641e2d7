"""One way of reading sentences from text for the CLI and the Spaces: BOM, line ends, blank lines, control characters."""

import pytest
from hypothesis import example, given, settings, strategies as st

from gecscore.cli import main
from gecscore.common import inputs
from gecscore.common.inputs import control_character, decode_utf8, split_lines
from gecscore.spaces.inputs import InputError, read_upload, split_lines as spaces_split_lines


@pytest.mark.parametrize("text, lines", [
    ("\ufeffHe goes .\nShe went .\n", ["He goes .", "She went ."]),
    ("He goes .\r\nShe went .\r\n", ["He goes .", "She went ."]),
    ("He goes .\rShe went .", ["He goes .", "She went ."]),
    ("He goes .  \n\nShe went .\n\n", ["He goes .", "", "She went .", ""]),  # blank lines are sentences
])
def test_split_lines(text, lines):
    assert split_lines(text) == lines
    assert spaces_split_lines is split_lines  # the Spaces read files with the same function


def test_control_characters_and_utf8():
    assert control_character("He\tgoes .") is None
    assert control_character("He go\x00es .") == (6, "U+0000")
    assert control_character("a\x1bb") == (2, "U+001B")
    assert decode_utf8("é\n".encode()) == ("é\n", 0)
    assert decode_utf8(b"ok\n\xff\n") == (None, 2)


@pytest.fixture()
def files(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("He go to school .\n", encoding="utf-8")
    return tmp_path, src


def test_cli_reads_a_bom_file_like_a_plain_one(files, capsys):
    tmp, src = files
    plain, bom = tmp / "hyp.txt", tmp / "hyp_bom.txt"
    plain.write_text("He goes to school .\n", encoding="utf-8")
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes().replace(b"\n", b"\r\n"))
    outs = []
    for hyp in (plain, bom):
        assert main(["score", "errant", "--sources", str(src), "--predictions", str(hyp), "--references",
                     str(plain), "--json"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and '"f0.5": 1.0' in outs[0]


def test_cli_and_spaces_name_line_and_column_of_a_control_character(files, capsys):
    tmp, src = files
    bad = tmp / "bad.txt"
    bad.write_text("He goes to\x00 school .\n", encoding="utf-8")
    assert main(["score", "errant", "--sources", str(src), "--predictions", str(bad), "--references",
                 str(src)]) == 2
    assert f"predictions file {bad}, line 1, column 11: control character U+0000" in capsys.readouterr().err
    with pytest.raises(InputError, match=r"line 1, column 11: control character U\+0000"):
        read_upload("Hypothesis file", bad)
    assert read_upload("Hypothesis file", src) == "He go to school .\n"
    src.write_bytes(b"\xef\xbb\xbfS He go .\n")
    assert read_upload("Gold M2", src).startswith("S He go")  # no BOM in front of an M2 file's first line


# The input layer searches all texts of an argument at once; these hold it to the per-text rules it replaces.
_PIECES = [*"abZQé1'-,.;:!?", " ", "  ", "\t", "\n", "\xa0", "\u3000", "\x00", "\x1b", "\u200b", "e\u0301", "中文字"]
_TEXT = st.lists(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join), max_size=6)


@settings(max_examples=300, deadline=None)
@given(texts=_TEXT)
@example(["Za. then", "he said Ab, x", "x ab.", "ab.c d", "a, b", "end.", "Ends. x"])
def test_glued_tokens_are_found_in_the_texts_the_pattern_finds_them_in(texts):
    assert inputs._glued_texts(texts) == [i for i, text in enumerate(texts) if inputs._GLUED_TOKEN.search(text)]


@settings(max_examples=300, deadline=None)
@given(texts=_TEXT, max_tokens=st.sampled_from([None, 2, 5]), normalize=st.booleans())
def test_checking_all_texts_at_once_refuses_and_reports_what_one_by_one_would(texts, max_tokens, normalize):
    def one_by_one():
        out, found = [], []
        for i, text in enumerate(texts):
            if control_character(text) is not None:
                return ValueError, f"`t[{i}]` has control character"
            if max_tokens is not None and len(text.split()) > max_tokens:
                return ValueError, f"`t[{i}]` has {len(text.split())} tokens"
            problem = inputs.hygiene_problem(text)
            if problem is not None:
                found.append(f"`t[{i}]` column {problem[0]}: {problem[1]}")
            out.append(inputs.normalize_text(text) if problem is not None and normalize else text)
        return out, found

    expected = one_by_one()
    found: list[str] = []
    try:
        result = inputs.check_clean("t", texts, normalize=normalize, max_tokens=max_tokens, found=found)
    except ValueError as error:
        assert expected[0] is ValueError and str(error).startswith(expected[1])
    else:
        assert (result, found) == expected


@settings(max_examples=200, deadline=None)
@given(groups=st.lists(_TEXT, max_size=4), normalize=st.booleans())
def test_reference_groups_checked_at_once_refuse_and_report_what_group_by_group_would(groups, normalize):
    def group_by_group():
        found: list[str] = []
        try:
            out = [inputs.check_clean(f"references[{i}][]", group, normalize=normalize, max_tokens=5, found=found)
                   for i, group in enumerate(groups)]
        except ValueError as error:
            return ValueError, str(error)
        return out, found

    expected = group_by_group()
    found: list[str] = []
    try:
        result = inputs.check_clean_groups(groups, normalize=normalize, max_tokens=5, found=found)
    except ValueError as error:
        assert expected[0] is ValueError and str(error) == expected[1]
    else:
        assert (result, found) == expected


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(st.sampled_from(["中", "文", " ", "\n", "a", "字"]), max_size=20), max_size=5))
def test_unsegmented_chinese_is_found_in_the_first_text_that_has_it(texts):
    first = next((i for i, text in enumerate(texts) if inputs._UNSEGMENTED.search(text)), None)
    assert (inputs._texts_matching(inputs._UNSEGMENTED, texts) or [None])[0] == first
