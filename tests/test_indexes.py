"""One index convention (docs/sentence-records.md, "Indexes"): a sentence is its 0-based `index` in every Python
result and file record; files and the Spaces also give its 1-based `line`."""

import json

from gecscore.cli import main
from gecscore.registry import run
from gecscore.spaces.messages import degenerate_note
from gecscore.spaces.ranking_view import ranking
from gecscore.spaces.results import corpus_outputs

SOURCES = ["He go to school .", "She like apples .", "It is fine .", "We was late .", "They has gone .",
           "I has a cat .", "You is here ."]
REFERENCES = [["He goes to school ."], ["She likes apples ."], ["It is fine ."], ["We were late ."],
              ["They have gone ."], ["I have a cat ."], ["You are here ."]]
EMPTY = 5  # the prediction left empty: flagged `empty prediction`
PREDICTIONS = [refs[0] for refs in REFERENCES[:EMPTY]] + [""] + [REFERENCES[EMPTY + 1][0]]


def write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_sentence_file_records_carry_the_index_of_the_results_and_the_file_line(tmp_path, capsys):
    src, hyp = write(tmp_path / "src.txt", SOURCES), write(tmp_path / "hyp.txt", PREDICTIONS)
    ref, out = write(tmp_path / "ref.txt", [r[0] for r in REFERENCES]), tmp_path / "sentences.jsonl"
    assert main(["score", "errant", "--sources", src, "--predictions", hyp, "--references", ref, "--json",
                 "--sentences", str(out)]) == 0
    flagged = [d["index"] for d in json.loads(capsys.readouterr().out)["degenerate_sentences"]]
    assert flagged == [EMPTY]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["index"], r["line"]) for r in records] == [(i, i + 1) for i in range(len(SOURCES))]
    # the index a result names finds the record, whose line finds the sentence in the file
    lines = (tmp_path / "hyp.txt").read_text(encoding="utf-8").split("\n")
    assert lines[records[flagged[0]]["line"] - 1] == "" and lines[records[flagged[0]]["index"]] == ""


def test_sentence_file_records_of_several_systems_count_from_zero_per_system(tmp_path):
    src, ref = write(tmp_path / "src.txt", SOURCES), write(tmp_path / "ref.txt", [r[0] for r in REFERENCES])
    systems = [write(tmp_path / f"{name}.txt", lines) for name, lines in (("a", PREDICTIONS), ("b", SOURCES))]
    out = tmp_path / "sentences.jsonl"
    assert main(["score", "errant", "--sources", src, "--predictions", *systems, "--references", ref,
                 "--bootstrap", "0", "--sentences", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    n = len(SOURCES)
    assert [(r["system"], r["index"], r["line"]) for r in records] == [
        (name, i, i + 1) for name in ("a", "b") for i in range(n)]


def test_space_text_names_the_index_and_the_line():
    result = run("errant", SOURCES, PREDICTIONS, REFERENCES)
    (index,) = [d["index"] for d in result.details["degenerate_sentences"]]
    note = degenerate_note({**result.details, "signature": result.signature})
    assert f"empty prediction: sentence index {index} (line {index + 1})" in note
    several = degenerate_note({"degenerate_sentences": [{"index": i, "reason": "truncated"} for i in (9, 2)]})
    assert "truncated: sentence indexes 2, 9 (lines 3, 10)" in several


def test_space_tables_and_download_give_index_and_line():
    per_sentence = [{"score": float(i)} for i in range(len(SOURCES))]
    _, _, table, path = corpus_outputs("errant", SOURCES, PREDICTIONS, {"f0.5": 0.5}, per_sentence, {}, ())
    assert list(table.columns[:4]) == ["index", "line", "source", "hypothesis"]
    assert table["index"].tolist() == list(range(len(SOURCES))) and table["line"].tolist() == list(
        range(1, len(SOURCES) + 1))
    with open(path, encoding="utf-8") as saved:
        rows = json.load(saved)["sentences"]
    assert [(r["index"], r["line"], r["source"]) for r in rows] == [(i, i + 1, s) for i, s in enumerate(SOURCES)]
    ranked = ranking(["a b", "c d", "e f"], [0.2, 0.9, 0.5])
    assert ranked[["hypothesis", "index", "line"]].values.tolist() == [["c d", 1, 2], ["e f", 2, 3], ["a b", 0, 1]]
