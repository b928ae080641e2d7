"""CLEME2.0 in other languages than English, end to end from text: Chinese (`language="zh"`) and French.

CLEME2.0 has no reference implementation outside English, so these are consistency tests, with a tiny random
encoder for the similarity weights (the weighting that needs a model):

* Chinese: `cleme2` from MuCGEC dev's text (the first `ZH_SENTENCES` sentences: references with several equally
  cheap alignments, 没有错误 and 无法标注 ones among them) with the test lexicon equals `cleme2` over ChERRANT's own
  M2 of the same sentences (../shared/golden/cherrant, made by running ChERRANT), reduced to each annotator's first
  alignment, which is what CLEME's Chinese mode reads; under both assumptions, with the same tiny random BERT whose
  vocabulary holds the sentences' characters.
* French: `cleme2` with `language="fr"` equals `cleme2` over M2 files of ERRANT's own language-independent edits
  (`-lev -merge all-merge`) of CoNLL-2014 sentences (tests/test_plain_edits.py's fixtures), with a tiny random BERT.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from gecscore import registry
from gecscore.common import chinese_edits as ce
from gecscore.common.results import DegenerateOutputWarning, MetricResult
from test_chinese_edits import LEXICON, _blocks, _first_alignments
from test_plain_edits import conll, errant_spans  # noqa: F401  (module fixtures used by the French test)

#: MuCGEC dev sentences scored (the first ones: a few seconds of alignment; three references among them have
#: several alignments, 24, 64 and 81).
ZH_SENTENCES = 100
#: The settings compared: every indicator, the weighted and unweighted counts.
KEYS = ("score", "hit", "err", "und", "ove", "counts", "unweighted_counts")


@pytest.fixture(scope="module")
def zh_dev(shared_data: Path, golden: Path) -> tuple[list[str], list[str], list[list[str]], str, str]:
    """The first `ZH_SENTENCES` of MuCGEC dev (sources, example predictions, references) and those blocks of
    ChERRANT's own M2 (prediction, references), each annotator's first alignment only."""
    folder = shared_data / "MuCGEC" / "MuCGEC"
    rows = [line.split("\t") for line in
            (folder / "MuCGEC_dev.txt").read_text(encoding="utf-8").strip().split("\n")[:ZH_SENTENCES]]
    predictions = [line.split("\t")[2] for line in (folder / "example_pred_dev.txt").read_text(encoding="utf-8")
                   .strip().split("\n")[:ZH_SENTENCES]]
    root = golden / "cherrant" / "mucgec_dev"
    hyp_m2, ref_m2 = (_first_alignments("".join(block + "\n\n" for block in _blocks(
        (root / name).read_text(encoding="utf-8"))[:ZH_SENTENCES]))
        for name in ("example_pred_dev.hyp.m2.char", "MuCGEC_dev.ref.m2.char"))
    return [r[1] for r in rows], predictions, [r[2:] for r in rows], hyp_m2, ref_m2


@pytest.fixture(scope="module")
def tiny_chinese_bert(tmp_path_factory, zh_dev) -> str:
    """A tiny random BERT whose vocabulary holds every character of the Chinese sentences."""
    from conftest import build_tiny_model

    sources, predictions, references, _, _ = zh_dev
    characters = sorted({c for text in [*sources, *predictions, *sum(references, [])] for c in text})
    return str(build_tiny_model(tmp_path_factory.mktemp("tiny-chinese-bert"), "bert",
                                extra_tokens=tuple(characters)))


def _quietly(*args, **options) -> MetricResult:
    """`registry.run`, its summary warning of degenerate sentences (sentences past the tiny model's 128 tokens)
    silenced: the flagged sentences themselves are compared."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateOutputWarning)
        return registry.run(*args, **options)


#: What only text input can add to a flag: the prediction equals a reference (M2 input has no texts to compare).
TEXT_NOTES = ("perfect_reference", "note")


def _flags(result: MetricResult) -> list[dict]:
    """The flagged sentences, without the notes that only text input can give."""
    return [{k: v for k, v in flag.items() if k not in TEXT_NOTES} for flag in result.details["degenerate_sentences"]]


def _assert_same(ours: MetricResult, expected: MetricResult) -> None:
    """The corpus values, every sentence's score and chosen reference, and the flagged sentences are equal."""
    values = [{k: {**result.scores, **result.details}[k] for k in KEYS} for result in (ours, expected)]
    assert values[0] == values[1]
    assert [(s["score"], s["reference"]) for s in ours.sentences] == \
        [(s["score"], s["reference"]) for s in expected.sentences]
    assert _flags(ours) == _flags(expected)


@pytest.mark.parametrize("assumption", ["dependent", "independent"])
def test_cleme2_from_chinese_text_equals_cleme2_over_cherrants_first_alignments(zh_dev, tiny_chinese_bert,
                                                                                 assumption):
    sources, predictions, references, hyp_m2, ref_m2 = zh_dev
    options = {"weighting": "similarity", "model": tiny_chinese_bert, "layer": 2, "assumption": assumption,
               "sentences": True}
    ours = _quietly("cleme2", sources, predictions, references, language="zh", zh_lexicon=str(LEXICON), **options)
    expected = _quietly("cleme2", None, None, None, hyp_m2=hyp_m2, ref_m2=ref_m2, **options)
    _assert_same(ours, expected)
    assert 0 < ours.score < 1
    weighted, unweighted = ours.details["counts"], ours.details["unweighted_counts"]
    assert weighted["TP"] != unweighted["TP"] and unweighted["TP"] > 0  # the encoder weighed the chunks
    # past the tiny model's 128 tokens: sentences 17, 29 and 52 (over 126 characters)
    assert sorted({(d["index"], d["reason"]) for d in ours.details["degenerate_sentences"]}) == [
        (17, "truncated"), (29, "truncated"), (52, "truncated")]
    assert f"language:zh|edits:cherrant-char|alignment:first|zh_lexicon:{ce.load_lexicon(LEXICON).digest}" \
        in ours.signature


@pytest.mark.parametrize("level", ["corpus", "sentence"])
def test_cleme2_in_french_equals_cleme2_over_m2_of_errant_s_plain_edits(conll, tiny_bert, level):  # noqa: F811
    sources, hyps, refs, hyp_m2, ref_m2 = conll
    options = {"weighting": "similarity", "model": str(tiny_bert), "layer": 2, "level": level, "sentences": True}
    ours = _quietly("cleme2", sources, hyps, refs, language="fr", **options)
    expected = _quietly("cleme2", None, None, None, hyp_m2=hyp_m2, ref_m2=ref_m2, **options)
    _assert_same(ours, expected)
    assert 0 < ours.score < 1 and ours.details["counts"]["TP"] != ours.details["unweighted_counts"]["TP"]
    assert "|language:fr|edits:plain|types:M/R/U|" in ours.signature
