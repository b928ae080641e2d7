"""Input checks name the argument and the position."""

import pytest

from gecscore.common.inputs import check_references, check_same_length, check_texts, check_tokenised


@pytest.mark.parametrize(
    "value, error, message",
    [
        (None, ValueError, "`predictions` is None"),
        ("a b", TypeError, "not a single string"),
        ([], ValueError, "`predictions` is empty"),
        (["a", None], ValueError, r"`predictions\[1\]` is None"),
        (["a", 3], TypeError, r"`predictions\[1\]` must be a string, got int"),
        (5, TypeError, "must be a list of strings, got int"),
    ],
)
def test_check_texts_rejects(value, error, message):
    with pytest.raises(error, match=message):
        check_texts("predictions", value)


def test_check_texts_accepts_tuples_and_empty_strings():
    assert check_texts("sources", ("a", "")) == ["a", ""]


def test_check_same_length_names_both():
    with pytest.raises(ValueError, match="sources=2, predictions=1"):
        check_same_length(sources=["a", "b"], predictions=["a"])
    assert check_same_length(sources=["a"], predictions=["b"]) == 1


def test_check_references_normalises_and_rejects():
    assert check_references(["a", ["b", "c"]], 2) == [["a"], ["b", "c"]]
    with pytest.raises(ValueError, match="has 1 entries but there are 2"):
        check_references(["a"], 2)
    with pytest.raises(ValueError, match=r"`references\[0\]` is an empty list"):
        check_references([[]], 1)
    with pytest.raises(TypeError, match=r"`references\[0\]\[1\]` must be a string"):
        check_references([["a", 2]], 1)
    with pytest.raises(ValueError, match=r"`references\[1\]\[0\]` is None"):
        check_references([["a"], [None]], 2)


def test_check_tokenised():
    check_tokenised("sources", ["This is , as you know , fine .", "U.S. e.g. ...", ""])
    with pytest.raises(ValueError, match=r"`sources\[1\]` does not look whitespace-tokenised \(token 'word,'"):
        check_tokenised("sources", ["fine .", "a word, glued"])
    check_tokenised("references", ["fine ."] * 19 + ["one slip."])
    with pytest.raises(ValueError, match="tokenize=True"):
        check_tokenised("predictions", ["It ends here."])


def test_real_tokenised_data_passes(shared_data):
    for path in [shared_data / "SEEDA/outputs/subset/INPUT.txt", shared_data / "CoNLL-2014/PT-M2/data/source"]:
        lines = path.read_text(encoding="utf-8").splitlines()
        check_tokenised(str(path.name), lines)
