"""What a user reads: help texts of their own, unambiguous short flags, errors in shell syntax at the shell, and
the nearest name suggested for a typo in an option, a choice or a metric."""

import pytest

from gecscore import registry
from gecscore.cli import build_parser, main, shell_syntax


def _help(parser, flag):
    return next(action.help for action in parser._actions if flag in action.option_strings)


def test_m2_inputs_have_their_own_help_and_short_flags_follow_errant_compare(tmp_path):
    parser = build_parser("score")
    score = next(a for a in parser._actions if a.dest == "command").choices["score"]
    assert _help(score, "--ref-m2") != _help(score, "--hyp-m2")
    assert "reference M2" in _help(score, "--ref-m2") and "hypothesis" in _help(score, "--hyp-m2")
    args = parser.parse_args(["score", "errant", "-hyp", "h.m2", "-ref", "r.m2"])
    assert [str(p) for p in args.input_hyp_m2] == ["h.m2"] and [str(p) for p in args.input_ref_m2] == ["r.m2"]
    assert args.gold_m2 is None


def test_ref_and_gold_m2_together_are_refused(tmp_path, capsys):
    m2 = tmp_path / "a.m2"
    m2.write_text("S He go .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    assert main(["score", "errant", "-hyp", str(m2), "-ref", str(m2), "--gold-m2", str(m2)]) == 2
    assert "--ref-m2 (-ref) and --gold-m2 both give the reference M2" in capsys.readouterr().err
    assert main(["score", "pt_m2", "--predictions", str(m2), "--sources", str(m2), "-ref", str(m2)]) == 2
    assert "pt_m2 takes no --ref-m2; give the gold M2 as --gold-m2" in capsys.readouterr().err


@pytest.mark.parametrize("message, shell", [
    ("or use model='minilm' (all-MiniLM-L6-v2)", "or use -o model=minilm (all-MiniLM-L6-v2)"),
    ('needs scorer="self", robust=True and layer=None', "needs -o scorer=self, -o robust=true and -o layer=null"),
    ("filter_types=['R:SPELL', 'M:DET'] given", """-o 'filter_types=["R:SPELL", "M:DET"]' given"""),
    ("model='a b' and variant=m2", "-o 'model=a b' and -o variant=m2"),
    ("x=3 and -o beta=2 stay", "x=3 and -o beta=2 stay"),  # not an option; already shell syntax
    ("pass api_key=... or set OPENAI_API_KEY", "pass -o api_key=... or set OPENAI_API_KEY"),  # not JSON: kept
])
def test_python_keywords_become_shell_options(message, shell):
    assert shell_syntax(message, "-o") == shell


def test_cli_errors_show_options_as_a_shell_user_types_them(tmp_path, capsys):
    text = tmp_path / "p.txt"
    text.write_text("He goes to school .\n", encoding="utf-8")
    missing = str(tmp_path / "no" / "such" / "model")
    assert main(["score", "impara_ged", "--predictions", str(text), "--sources", str(text), "-o",
                 f"model={missing}"]) == 2
    err = capsys.readouterr().err
    assert "-o model=embedded" in err and "model='embedded'" not in err
    with pytest.raises(OSError, match="model='embedded'"):  # the Python API keeps Python's syntax
        registry.run("impara_ged", ["He goes to school ."], ["He goes to school ."], model=missing)


def test_typos_get_the_nearest_name():
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['bta'\] \(did you mean 'beta'\?\); known"):
        registry.check_options("errant", {"bta": 0.3})
    with pytest.raises(TypeError, match=r"did you mean 'beta' for 'bta', 'variant' for 'varient'\?"):
        registry.check_options("pt_m2", {"bta": 0.3, "varient": "m2", "zzzzqq": 1})
    with pytest.raises(TypeError) as far:
        registry.check_options("errant", {"zzzzqq": 1})
    assert "did you mean" not in str(far.value)
    with pytest.raises(ValueError, match=r"got 'sentm3' \(did you mean 'sentm2'\?\)"):
        registry.check_options("pt_m2", {"variant": "sentm3"})
    with pytest.raises(ValueError, match=r"unknown metric 'uot_erant' \(did you mean 'uot_errant'\?\)"):
        registry.spec("uot_erant")


def test_cli_metric_typo_names_the_nearest(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["score", "cleme_2", "--predictions", "x"])
    assert exit_.value.code == 2
    assert "unknown metric 'cleme_2' (did you mean 'cleme2'?)" in capsys.readouterr().err


def test_score_help_explains_language_and_empty_reference_lines():
    """`gecscore score --help`: the intro names raw Chinese, `--language` has a paragraph of its own (any code
    accepted, the suggested ones listed, when --tokenize works, what en, zh and the others give, the docs page),
    and `--references` says what an empty line means."""
    from gecscore.common.options import SUGGESTED_LANGUAGES

    parser = build_parser("score")
    score = next(a for a in parser._actions if a.dest == "command").choices["score"]
    assert "raw Chinese with --language zh" in score.description
    group = next(g for g in score._action_groups if g.title == "language")
    paragraph = group.description
    codes = paragraph.split("among them ")[1].split(":")[0].split()
    assert ["en", "zh", *codes] == list(SUGGESTED_LANGUAGES)
    for said in ("en (the default)", "zh: raw Chinese", "--zh-lexicon", "Any other ISO 639-1 code",
                 "an error where spaCy has none", "typed only M (missing), R (replacement) or "
                 "U (unnecessary)", "docs/other-languages.md", '"Other languages"'):
        assert said in paragraph, said
    assert [action.option_strings for action in group._group_actions] == [["--language"]]
    references = _help(score, "--references")
    assert "An empty line is a reference that deletes the whole sentence" in references
    assert "with --language zh it is no such reference" in references
    assert "--language" in score.format_help().split("\nlanguage:\n")[1]


def test_a_chinese_sentence_without_any_reference_is_an_error_naming_its_line(tmp_path, capsys):
    files = {}
    for name, lines in (("src", ["他很喜欢看书书。", "我明天去公园"]), ("hyp", ["他很喜欢看书。", "我明天去公园。"]),
                        ("ref0", ["他很喜欢看书。", ""]), ("ref1", ["他喜欢看书。", ""])):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["score", "gleu", "--language", "zh", "--sources", str(files["src"]), "--predictions",
                 str(files["hyp"]), "--references", str(files["ref0"]), str(files["ref1"])]) == 2
    assert ("`references[1]` (line 2 of the reference files) has no reference: all its 2 are empty"
            in capsys.readouterr().err)
