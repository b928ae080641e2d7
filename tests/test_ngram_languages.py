"""GLEU and GREEN in other languages (`language`).

Chinese (`language="zh"`): every character is a token, as at ChERRANT's char level. On MuCGEC dev with its example
prediction (`../shared/data/MuCGEC`), the raw text scored with `language="zh"` equals the character-split text scored
in English mode, bit for bit: GLEU (the official script's algorithm and gec-metrics'), SentGLEU and GREEN, through the
registry and the CLI. The signature records `language:zh`; English signatures do not change; unsegmented Chinese in
English mode, and options that cannot mean anything in Chinese, are errors that name the option.

Other languages (French here): words are whitespace-separated, and `tokenize=True` applies spaCy's tokenizer rules of
the language (French elision: "l'école" is "l'" + "école"), so raw French scores as the same text tokenised by hand.
The metrics that extract edits refuse Chinese text (ChERRANT's char alignment is not built), naming the option.
"""

from __future__ import annotations

import json

import pytest

from gecscore import registry
from gecscore.cli import main
from gecscore.common.inputs import characters

FRENCH = {  # raw text, and the same tokenised as French is (elision split, punctuation apart)
    "sources": (["Je suis allé à l'école hier.", "Elle a oublié son livre, je crois."],
                ["Je suis allé à l' école hier .", "Elle a oublié son livre , je crois ."]),
    "predictions": (["Je suis allée à l'école hier.", "Elle a oublié son livre, je croit."],
                    ["Je suis allée à l' école hier .", "Elle a oublié son livre , je croit ."]),
    "references": ([["Je suis allée à l'école hier."], ["Elle a oublié son livre, je crois."]],
                   [["Je suis allée à l' école hier ."], ["Elle a oublié son livre , je crois ."]]),
}
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


@pytest.mark.parametrize("name, options", CASES)
def test_french_is_tokenised_by_its_own_rules(name, options):
    raw = {key: pair[0] for key, pair in FRENCH.items()}
    tokenised = {key: pair[1] for key, pair in FRENCH.items()}
    french = registry.run(name, raw["sources"], raw["predictions"], raw["references"], language="fr", tokenize=True,
                          **options)
    by_hand = registry.run(name, tokenised["sources"], tokenised["predictions"], tokenised["references"],
                           language="fr", **options)
    assert french.scores == by_hand.scores and 0 < french.score < 1
    assert "|language:fr" in french.signature and "|tokenize:True" in french.signature


def test_french_through_the_cli(tmp_path, capsys):
    files = []
    for key in ("sources", "predictions", "references"):
        texts = FRENCH[key][0] if key != "references" else [refs[0] for refs in FRENCH[key][0]]
        files.append(tmp_path / f"{key}.txt")
        files[-1].write_text("\n".join(texts) + "\n", encoding="utf-8")
    assert main(["score", "green", "--language", "fr", "--tokenize", "--sources", str(files[0]), "--predictions",
                 str(files[1]), "--references", str(files[2]), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = registry.run("green", *(FRENCH[key][1] for key in ("sources", "predictions", "references")),
                            language="fr")
    assert printed["green"] == expected.score and "language:fr" in printed["signature"]


def test_edit_metrics_refuse_chinese_text_they_cannot_read(monkeypatch):
    """Chinese edits from text are ChERRANT's (tests/test_chinese_edits.py): ERRANT needs errant_compare's rules,
    M² and GoToScorer the lexicon; each an error naming the option. Other languages extract plain edits
    (tests/test_plain_edits.py)."""
    monkeypatch.delenv("GECSCORE_ZH_LEXICON", raising=False)
    sources, predictions, references = (FRENCH[key][1] for key in ("sources", "predictions", "references"))
    with pytest.raises(ValueError, match=r"`language` is errant_compare's option"):
        registry.run("errant", sources, predictions, references, language="zh")
    with pytest.raises(ValueError, match=r"pass `zh_lexicon`"):
        registry.run("m2", sources, predictions, references, language="zh")
    with pytest.raises(ValueError, match=r"pass `zh_lexicon`"):
        registry.run("gotoscorer", sources, predictions, references, language="zh")


#: Finnish, which gecscore did not accept before any code was: raw, and tokenised as spaCy's Finnish rules do
#: ("EU:n", the EU's, is one token, where English rules split it into three).
FINNISH = {
    "sources": (["Suomi on EU:n jäsen vuodesta 1995.", "Hän meni kouluun eilen."],
                ["Suomi on EU:n jäsen vuodesta 1995 .", "Hän meni kouluun eilen ."]),
    "predictions": (["Suomi on ollut EU:n jäsen vuodesta 1995.", "Hän meni koulu eilen."],
                    ["Suomi on ollut EU:n jäsen vuodesta 1995 .", "Hän meni koulu eilen ."]),
    "references": ([["Suomi on ollut EU:n jäsen vuodesta 1995."], ["Hän meni kouluun eilen."]],
                   [["Suomi on ollut EU:n jäsen vuodesta 1995 ."], ["Hän meni kouluun eilen ."]]),
}
#: Māori, a language spaCy has no tokenizer rules for: whitespace tokens only.
MAORI = (["Kei te haere au ki te kura ."], ["Kei te haere ahau ki te kura ."], [["Kei te haere ahau ki te kura ."]])


@pytest.mark.parametrize("name, options", [("gleu", {}), ("green", {})])
def test_any_language_spacy_has_rules_for_is_tokenised_by_them(name, options):
    raw = [FINNISH[key][0] for key in ("sources", "predictions", "references")]
    tokens = [FINNISH[key][1] for key in ("sources", "predictions", "references")]
    finnish = registry.run(name, *raw, language="fi", tokenize=True, **options)
    by_hand = registry.run(name, *tokens, language="fi", **options)
    assert finnish.scores == by_hand.scores and 0 < finnish.score < 1
    assert "|language:fi|" in by_hand.signature and "|tokenize:True" in finnish.signature
    assert by_hand.signature.replace("|language:fi", "") == registry.run(name, *tokens, **options).signature


def test_a_language_without_spacy_rules_scores_whitespace_tokens_and_refuses_tokenize():
    maori = registry.run("gleu", *MAORI, language="mi")
    assert maori.scores == registry.run("gleu", *MAORI).scores and "|language:mi" in maori.signature
    for call in (lambda: registry.check_options("gleu", {"language": "mi", "tokenize": True}),  # before any data
                 lambda: registry.run("green", *MAORI, language="mi", tokenize=True)):
        with pytest.raises(ValueError, match=r"`tokenize` needs spaCy's tokenizer rules for language='mi'"):
            call()


@pytest.mark.parametrize("value, message", [
    ("eng", r"`language` takes the two-letter ISO 639-1 code, got 'eng' \(did you mean 'en'\?\)"),
    ("zho", r"did you mean 'zh'"), ("cmn", r"did you mean 'zh'"),
    ("French", r"`language` must be a lowercase two-letter ISO 639-1 code"),
    ("f", r"`language` must be a lowercase two-letter ISO 639-1 code"),
    ("FR", r"`language` must be .*got 'FR' \(did you mean 'fr'\?\)"),
])
def test_a_malformed_language_code_is_an_error_naming_language(value, message):
    with pytest.raises(ValueError, match=message):
        registry.run("gleu", *MAORI, language=value)
    with pytest.raises(ValueError, match=message):
        registry.check_options("m2", {"language": value})
