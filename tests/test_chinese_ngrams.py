"""GLEU and GREEN on Chinese (`language="zh"`): every character is a token, as at ChERRANT's char level. On MuCGEC
dev with its example prediction (`../shared/data/MuCGEC`), the raw text scored with `language="zh"` equals the
character-split text scored in English mode, bit for bit: GLEU (the official script's algorithm and gec-metrics'),
SentGLEU and GREEN, through the registry and the CLI. The signature records `language:zh`; English signatures do not
change; unsegmented Chinese in English mode, and options that cannot mean anything in Chinese, are errors that name
the option."""

from __future__ import annotations

import json

import pytest

from gecscore import registry
from gecscore.cli import main
from gecscore.common.inputs import characters

CASES = [("gleu", {}), ("gleu", {"variant": "gec-metrics"}), ("sentgleu", {}), ("green", {})]


@pytest.fixture(scope="module")
def mucgec(shared_data):
    """(sources, prediction, references) of MuCGEC dev: 1,137 sentences, 1-7 references each."""
    folder = shared_data / "MuCGEC" / "derived"

    def read(name):
        return (folder / name).read_text(encoding="utf-8").split("\n")[:1137]

    counts = [int(n) for n in read("num_refs.txt")]
    columns = [read(f"REF{k}.txt") for k in range(7)]
    references = [[columns[k][i] for k in range(n)] for i, n in enumerate(counts)]
    return read("INPUT.txt"), read("PRED_example.txt"), references


def split(texts):
    return [characters(t) for t in texts]


@pytest.mark.parametrize("name, options", CASES)
def test_chinese_is_scored_on_characters(mucgec, name, options):
    sources, prediction, references = mucgec
    chinese = registry.run(name, sources, prediction, references, language="zh", sentences=True, **options)
    spaced = registry.run(name, split(sources), split(prediction), [split(r) for r in references],
                          sentences=True, **options)
    assert chinese.scores == spaced.scores and 0 < chinese.score < 1
    assert [s["score"] for s in chinese.sentences] == [s["score"] for s in spaced.sentences]
    assert "|language:zh" in chinese.signature and "language" not in spaced.signature
    assert chinese.signature.replace("|language:zh", "") == spaced.signature


def test_the_cli_takes_the_language(mucgec, tmp_path, capsys):
    sources, prediction, references = mucgec
    files = {}
    for name, texts in (("src", sources), ("hyp", prediction), ("ref0", [r[0] for r in references])):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(texts) + "\n", encoding="utf-8")
    assert main(["score", "gleu", "--language", "zh", "--sources", str(files["src"]), "--predictions",
                 str(files["hyp"]), "--references", str(files["ref0"]), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = registry.run("gleu", sources, prediction, [[r[0]] for r in references], language="zh")
    assert printed["gleu"] == expected.score and printed["signature"] == expected.signature


def test_unsegmented_chinese_in_english_mode_is_an_error(mucgec):
    sources, prediction, references = mucgec
    for name in ("gleu", "green", "gotoscorer"):
        with pytest.raises(ValueError, match=r"`sources\[0\]` is Chinese not segmented.*language='zh'"):
            registry.run(name, sources[:3], prediction[:3], [r[:1] for r in references[:3]])


@pytest.mark.parametrize("options, message", [
    ({"tokenize": True}, "`tokenize` does not apply to language='zh'"),
    ({"unit": "char"}, "`unit='char'` does not apply to language='zh'"),
])
def test_options_without_meaning_in_chinese_are_errors(mucgec, options, message):
    sources, prediction, references = mucgec
    with pytest.raises(ValueError, match=message):
        registry.run("green", sources[:3], prediction[:3], references[:3], language="zh", **options)
