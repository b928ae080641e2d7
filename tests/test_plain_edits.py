"""Edits in any language (`gecscore.common.plain_edits`): ERRANT's language-independent options, typed M/R/U.

The reference is ERRANT itself (3.0.2, installed): `Alignment(orig, cor, lev=True).get_all_merge_edits()` is what
`errant_parallel -lev -merge all-merge` extracts before classifying. Every span and correction must be the same,
on every CoNLL-2014 hypothesis and reference (`../shared/data`), and on random token lists with many ties; the type
is the edit's operation (M, R or U).

End to end, a metric given `language` other than English scores as the same metric scores M2 files written from
ERRANT's own lev / all-merge edits (ERRANT-style F0.5 in both conventions, M², CLEME; GoToScorer and gec-metrics'
convention, which take no M2, as English mode with those edits), and records how its edits
were made in the signature; French text is tokenised by French rules; English types for French are an error.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gecscore import registry
from gecscore.cli import main
from gecscore.common.edits import Edit
from gecscore.common.m2io import edits_to_m2, format_m2
from gecscore.common.plain_edits import PLAIN, PLAIN_TYPES, plain_edits

#: Sentences of CoNLL-2014 scored end to end (the metrics' own tests cover their rules; this is the edit source).
END_TO_END = 250


@pytest.fixture(scope="module")
def errant_spans():
    """ERRANT's lev / all-merge spans of a pair, with the operation its span shape gives."""
    import spacy
    from errant.alignment import Alignment
    from spacy.tokens import Doc

    vocab = spacy.blank("en").vocab

    def spans(source: str, target: str) -> list[tuple]:
        orig, cor = Doc(vocab, words=source.split()), Doc(vocab, words=target.split())
        found = []
        for edit in Alignment(orig, cor, lev=True).get_all_merge_edits():
            kind = "M" if edit.o_start == edit.o_end else "U" if edit.c_start == edit.c_end else "R"
            found.append((edit.o_start, edit.o_end, edit.o_str, edit.c_start, edit.c_end, edit.c_str, kind))
        return found

    return spans


def ours(source: str, target: str) -> list[tuple]:
    return [(e.o_start, e.o_end, e.o_str, e.c_start, e.c_end, e.c_str, e.type) for e in plain_edits(source, target)]


def test_conll_2014_pairs_have_errant_s_spans(shared_data, errant_spans):
    folder = shared_data / "CoNLL-2014" / "PT-M2" / "data"
    read = lambda path: path.read_text(encoding="utf-8").splitlines()  # noqa: E731
    sources = read(folder / "source")
    targets = [read(folder / "hypothesis"), read(folder / "reference" / "ref0"), read(folder / "reference" / "ref1")]
    compared = 0
    for lines in targets:
        for source, target in zip(sources, lines):
            assert ours(source, target) == errant_spans(source, target), (source, target)
            compared += source.split() != target.split()
    assert compared > 1500  # changed pairs, not only copies


@settings(max_examples=300, deadline=None)
@given(source=st.lists(st.sampled_from("a b c the ,".split()), max_size=9),
       target=st.lists(st.sampled_from("a b c the , d".split()), max_size=9))
def test_random_token_lists_have_errant_s_spans(errant_spans, source, target):
    """A five-word vocabulary makes ties everywhere: the tie-breaking and the read-back order are ERRANT's."""
    assert ours(" ".join(source), " ".join(target)) == errant_spans(" ".join(source), " ".join(target))


def test_each_edit_is_typed_by_its_shape():
    edits = plain_edits("Je suis allé à l' école hier .", "Je suis allée à l' école .")
    assert [(e.o_str, e.c_str, e.type) for e in edits] == [("allé", "allée", "R"), ("hier", "", "U")]
    assert [e.type for e in plain_edits("il mange", "il mange une pomme")] == ["M"]
    assert {e.type for e in plain_edits("a b c", "c a d e")} <= set(PLAIN_TYPES)
    assert plain_edits("même texte", "même   texte") == ()


def test_the_extractor_keeps_the_order_and_caches_pairs():
    PLAIN.clear_cache()
    pairs = [("a b", "a c"), ("x", "x"), ("a b", "a c")]
    found = PLAIN.extract([s for s, _ in pairs], [t for _, t in pairs])
    assert [[e.key for e in edits] for edits in found] == [[(1, 2, "c")], [], [(1, 2, "c")]]
    with pytest.raises(ValueError, match="sources"):
        PLAIN.extract(["a"], ["a", "b"])


@pytest.fixture(scope="module")
def conll(shared_data, errant_spans):
    """CoNLL-2014's first sentences (sources, hypothesis, two references) and M2 files of ERRANT's lev/all-merge
    edits: the hypothesis as one annotator, the references as two."""
    folder = shared_data / "CoNLL-2014" / "PT-M2" / "data"
    read = lambda path: path.read_text(encoding="utf-8").splitlines()[:END_TO_END]  # noqa: E731
    sources, hyps = read(folder / "source"), read(folder / "hypothesis")
    refs = [list(pair) for pair in zip(read(folder / "reference" / "ref0"), read(folder / "reference" / "ref1"))]
    edits = lambda s, t: [Edit(*span) for span in errant_spans(s, t)]  # noqa: E731
    hyp_m2 = format_m2(edits_to_m2(s, [edits(s, h)]) for s, h in zip(sources, hyps))
    ref_m2 = format_m2(edits_to_m2(s, [edits(s, r) for r in rs]) for s, rs in zip(sources, refs))
    return sources, hyps, refs, hyp_m2, ref_m2


SCORES = {"errant": ("tp", "fp", "fn", "precision", "recall", "f0.5"), "m2": ("precision", "recall", "f0.5"),
          "sentm2": ("f0.5",), "cleme": ("score", "precision", "recall"),
          "gotoscorer": ("tp", "fp", "fn", "tn", "f0.5")}


class ErrantLev:
    """An extractor giving ERRANT's own lev / all-merge edits (`errant_spans`): an English-mode run over it is the
    run over ERRANT's language-independent edits."""

    def __init__(self, errant_spans) -> None:
        self.spans = errant_spans

    def extract(self, sources, targets, *, keep_unk=False, progress=False):
        return [[Edit(*span) for span in self.spans(s, t)] for s, t in zip(sources, targets)]


@pytest.mark.parametrize("name, options", [("errant", {}), ("errant", {"convention": "errant_compare"}),
                                           ("m2", {}), ("sentm2", {}), ("cleme", {}), ("gotoscorer", {})])
def test_another_language_scores_as_m2_files_of_errant_s_plain_edits(conll, errant_spans, monkeypatch, name,
                                                                      options):
    sources, hyps, refs, hyp_m2, ref_m2 = conll
    ours = registry.run(name, sources, hyps, refs, language="fr", **options)
    if name in ("m2", "sentm2"):
        expected = registry.run(name, sources, hyps, None, gold_m2=ref_m2, **options)
    elif name in ("gotoscorer", "errant") and not options:  # no M2 input: English mode, ERRANT's lev edits
        import gecscore.gotoscorer.metric as gotoscorer
        import gecscore.uot_errant.metric as uot

        module = uot if name == "errant" else gotoscorer
        monkeypatch.setattr(module, "extractor_for", lambda *args, **kwargs: ErrantLev(errant_spans))
        expected = registry.run(name, sources, hyps, refs)
    else:
        m2 = {"hyp_m2": hyp_m2, "ref_m2": ref_m2}
        expected = registry.run(name, None, None, None, **m2, **({"convention": "errant_compare"}
                                                                 if name == "errant" else {}))
    for key in SCORES[name]:
        assert ours.scores[key] == expected.scores[key], key
    assert "|language:fr|edits:plain|types:M/R/U|" in ours.signature
    assert "language:" not in registry.run(name, sources[:3], hyps[:3], refs[:3], **options).signature


def test_uot_errant_transports_plain_edits_in_another_language(conll, errant_spans, monkeypatch, tiny_bert):
    """UOT-ERRANT's transport (variant uot) in French with a tiny random BERT equals the same transport in English
    mode over ERRANT's lev / all-merge edits: the language changes the edits, nothing else."""
    import gecscore.uot_errant.metric as uot

    sources, hyps, refs, _, _ = conll
    n = 20
    ours = registry.run("uot_errant", sources[:n], hyps[:n], refs[:n], language="fr", model=str(tiny_bert))
    monkeypatch.setattr(uot, "extractor_for", lambda *args, **kwargs: ErrantLev(errant_spans))
    expected = registry.run("uot_errant", sources[:n], hyps[:n], refs[:n], model=str(tiny_bert))
    assert ours.scores == expected.scores and 0 < ours.score < 1
    assert "|language:fr|edits:plain|types:M/R/U|" in ours.signature


def test_types_are_the_operations_only(conll):
    sources, hyps, refs, _, _ = conll
    result = registry.run("errant", sources, hyps, refs, language="de", convention="errant_compare",
                          return_types=3)
    assert set(result.details["types"]["rows"]) <= set(PLAIN_TYPES)
    with pytest.raises(ValueError, match=r"`filter_types` \['R:SPELL'\] are ERRANT's English error types"):
        registry.run("errant", sources, hyps, refs, language="de", convention="errant_compare",
                     filter_types=["R:SPELL"])


def test_french_text_is_tokenised_by_french_rules_before_its_edits():
    raw = registry.run("m2", ["Je suis allé à l'école hier."], ["Je suis allée à l'école."],
                       [["Je suis allée à l'école hier."]], language="fr", tokenize=True)
    tokens = registry.run("m2", ["Je suis allé à l' école hier ."], ["Je suis allée à l' école ."],
                          [["Je suis allée à l' école hier ."]], language="fr")
    assert raw.scores == tokens.scores and raw.scores["recall"] == 1.0  # "allé → allée" found, "hier" dropped
    assert raw.scores["precision"] == 0.5


def test_chinese_text_without_a_lexicon_and_m2_files_with_a_language_are_errors(monkeypatch):
    monkeypatch.delenv("GECSCORE_ZH_LEXICON", raising=False)
    with pytest.raises(ValueError, match="pass `zh_lexicon`"):
        registry.run("gotoscorer", ["他 很 好"], ["他 很 好"], [["他 很 好"]], language="zh")
    with pytest.raises(ValueError, match="`language` applies to text"):
        registry.run("cleme", None, None, None, hyp_m2="S a\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n",
                     ref_m2="S a\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", language="fr")


def test_the_cli_scores_french_with_m2(tmp_path, capsys):
    files = {"src": ["Je suis allé à l' école hier ."], "hyp": ["Je suis allée à l' école ."],
             "ref": ["Je suis allée à l' école hier ."]}
    for name, lines in files.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["score", "m2", "--sources", str(tmp_path / "src"), "--predictions", str(tmp_path / "hyp"),
                 "--references", str(tmp_path / "ref"), "--language", "fr", "--format", "json"])
    assert code == 0
    printed = capsys.readouterr().out
    assert '"language:fr' in printed or "language:fr" in printed
    assert registry.run("m2", *files.values(), language="fr").score == pytest.approx(0.5 * 1.25 / 1.125)


#: Finnish, which gecscore did not accept before any language code was: raw, and tokenised as spaCy's Finnish rules
#: do ("EU:n" one token). One edit of the prediction is right (ollut inserted), one wrong (kouluun → koulu).
FINNISH_RAW = (["Suomi on EU:n jäsen vuodesta 1995.", "Hän meni kouluun eilen."],
               ["Suomi on ollut EU:n jäsen vuodesta 1995.", "Hän meni koulu eilen."],
               [["Suomi on ollut EU:n jäsen vuodesta 1995."], ["Hän meni kouluun eilen."]])
FINNISH = (["Suomi on EU:n jäsen vuodesta 1995 .", "Hän meni kouluun eilen ."],
           ["Suomi on ollut EU:n jäsen vuodesta 1995 .", "Hän meni koulu eilen ."],
           [["Suomi on ollut EU:n jäsen vuodesta 1995 ."], ["Hän meni kouluun eilen ."]])


@pytest.mark.parametrize("name", ["m2", "errant", "cleme"])
def test_any_language_code_scores_with_plain_edits(name):
    """Any code takes the language-agnostic path, as the suggested ones do: Finnish scores as French on the same
    tokens, raw Finnish is tokenised by spaCy's Finnish rules, and Māori (no spaCy rules) scores on its tokens with
    `tokenize` an error naming it."""
    finnish = registry.run(name, *FINNISH, language="fi")
    assert (finnish.scores["precision"], finnish.scores["recall"]) == (0.5, 1.0)
    assert finnish.scores == registry.run(name, *FINNISH, language="fr").scores
    assert finnish.scores == registry.run(name, *FINNISH_RAW, language="fi", tokenize=True).scores
    assert "|language:fi|edits:plain|types:M/R/U|" in finnish.signature
    maori = [["Kei te haere au ki te kura ."], ["Kei te haere ahau ki te kura ."], [["Kei te haere ahau ki te kura ."]]]
    assert "|language:mi|edits:plain|types:M/R/U|" in registry.run(name, *maori, language="mi").signature
    with pytest.raises(ValueError, match=r"`tokenize` needs spaCy's tokenizer rules for language='mi'"):
        registry.run(name, *maori, language="mi", tokenize=True)
