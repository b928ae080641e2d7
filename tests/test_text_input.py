"""One way of reading sentences from text for the CLI and the Spaces: BOM, line ends, blank lines, control characters."""

import pytest

from gecscore.cli import main
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
