"""BERTScore equals the bert_score package (test-only dependency) on tiny models and on the real MiniLM."""

from pathlib import Path

import numpy as np
import pytest

from gecscore.common.bertscore import BERTScorer, Tokens, default_layer, greedy_match, packaged_baseline, read_baseline
from gecscore.common.encoders import Encoder

# bert_score turns its baseline row into a tensor from a read-only array
pytestmark = pytest.mark.filterwarnings("ignore:The given NumPy array is not writable:UserWarning")

CANDIDATES = ["the cat is here .", "he go to school yesterday and buyed some apple .", "dogs go", "a cat [SEP] dog",
              "it was the dog ."]
REFERENCES = [["the cat", "a cat is here"], ["he went to school yesterday and bought some apples .", "he goes"],
              ["dogs go", "the dog went"], ["a cat", "cat dog"], ["it is a dog .", "this was the dog"]]


def _tokens(rows, ids):
    """Tokens of `rows` whose token id 9 is the special one."""
    return Tokens.of(np.asarray(rows, dtype=np.float32), ids, special_ids={9})


def _baseline_tsv(path, layers=7):
    path.write_text("LAYER,P,R,F\n" + "".join(f"{k},{0.6 + k / 100},{0.62 - k / 100},{0.61 + k / 200}\n"
                                              for k in range(layers)))
    return path


def test_greedy_match_by_hand():
    cand = _tokens([[1, 0], [1, 1], [0, 1]], [9, 5, 9])
    ref = _tokens([[1, 0], [1, 0], [0, 1], [0, 1]], [9, 5, 6, 9])
    p, r, f = greedy_match(cand, ref)
    assert p == pytest.approx(np.sqrt(0.5))
    assert r == pytest.approx(1.0)  # the special rows of the candidate still match the reference tokens exactly
    assert f == pytest.approx(2 * p / (p + 1))
    assert greedy_match(_tokens([[1, 0], [0, 1]], [9, 9]), ref) == (0.0, 0.0, 0.0)
    assert greedy_match(cand, _tokens([[1, 0], [0, 1]], [9, 9])) == (0.0, 0.0, 0.0)


def test_special_tokens_weigh_zero_by_id(tiny_bert):
    scorer = BERTScorer(str(tiny_bert), layer=2)
    tok = scorer.encoder.tokenizer
    (tokens,) = scorer.tokens(["a cat [SEP] dog"])
    ids = scorer.encoder.token_ids(["a cat [SEP] dog"])[0]
    assert ids.count(tok.sep_token_id) == 2
    np.testing.assert_array_equal(tokens.weight, [0.0 if i in (tok.cls_token_id, tok.sep_token_id) else 1.0
                                                  for i in ids])
    np.testing.assert_allclose(np.linalg.norm(tokens.unit, axis=1), 1.0, rtol=1e-6)


def test_layers_and_errors(tiny_bert):
    assert default_layer("bert-base-uncased") == 9
    assert default_layer("roberta-large") == 17
    with pytest.raises(ValueError, match="pass layer="):
        default_layer("some/unknown-model")
    with pytest.raises(ValueError, match="pass layer="):
        BERTScorer(str(tiny_bert))
    with pytest.raises(ValueError, match="out of range"):
        BERTScorer(str(tiny_bert), layer=7)
    scorer = BERTScorer(str(tiny_bert), layer=2)
    with pytest.raises(ValueError, match="`references` has 1 entries but there are 2"):
        scorer.score(["a", "b"], ["a"])
    with pytest.raises(ValueError, match=r"`candidates\[0\]` is None"):
        scorer.score([None], ["a"])
    with pytest.raises(TypeError, match=r"`references\[0\]\[1\]` must be a string"):
        scorer.score(["a"], [["a", 3]])
    with pytest.raises(ValueError, match=r"`references\[0\]` is an empty list"):
        scorer.score(["a"], [[]])
    with pytest.raises(ValueError, match="`candidates` is empty"):
        scorer.score([], [])


def test_identity_empty_and_multi_reference(tiny_bert):
    scorer = BERTScorer(str(tiny_bert), layer=2)
    res = scorer.score(["the cat is here .", "", "dogs go", "  the cat is here .  "],
                       ["the cat is here .", "a cat", ["the cat", "dogs go"], ""])
    assert res.f1[0] == pytest.approx(1.0, abs=1e-6)
    assert (res.precision[1], res.recall[1], res.f1[1]) == (0.0, 0.0, 0.0)
    assert res.f1[2] == pytest.approx(1.0, abs=1e-6)
    assert (res.precision[3], res.recall[3], res.f1[3]) == (0.0, 0.0, 0.0)
    # per measure maximum over the references, each reference scored as if alone
    single = [scorer.score(["dogs go"], [r]) for r in ("the cat", "dogs go")]
    for field in ("precision", "recall", "f1"):
        assert getattr(res, field)[2] == max(getattr(s, field)[0] for s in single)


def test_each_unique_sentence_embedded_once(tiny_bert):
    encoder = Encoder(str(tiny_bert))
    scorer = BERTScorer(str(tiny_bert), layer=1, encoder=encoder)
    scorer.score(["the cat", "the cat", "a dog"], [["a dog", "the cat"], "a dog", " the cat "])
    assert encoder.forward_count == 2
    scorer.score(["a dog"], ["dogs"])
    assert encoder.forward_count == 3


def test_baseline_rescaling(tiny_bert, tmp_path):
    tsv = tmp_path / "base.tsv"
    tsv.write_text("LAYER,P,R,F\n1,0.1,0.2,0.3\n2,0.5,0.4,0.45\n")
    assert read_baseline(tsv, 2) == (0.5, 0.4, 0.45)
    with pytest.raises(ValueError, match="no row for layer 0"):
        read_baseline(tsv, 0)
    raw = BERTScorer(str(tiny_bert), layer=2).score(["the cat", ""], ["a dog", "a dog"])
    for baseline in (tsv, (0.5, 0.4, 0.45)):
        scaled = BERTScorer(str(tiny_bert), layer=2, rescale_with_baseline=True, baseline=baseline).score(
            ["the cat", ""], ["a dog", "a dog"])
        for field, b in zip(("precision", "recall", "f1"), (0.5, 0.4, 0.45)):
            np.testing.assert_allclose(getattr(scaled, field), (getattr(raw, field) - b) / (1 - b), rtol=1e-12)
    assert scaled.f1[1] == pytest.approx(-0.45 / 0.55)  # empty sentence: raw 0, rescaled negative
    with pytest.raises(ValueError, match="bert_score has no baseline for"):
        BERTScorer(str(tiny_bert), layer=2, rescale_with_baseline=True)


def test_packaged_baseline_is_the_row_bert_score_uses():
    bert_score = pytest.importorskip("bert_score")
    pandas = pytest.importorskip("pandas")
    path = Path(bert_score.__file__).parent / "rescale_baseline" / "en" / "bert-base-uncased.tsv"
    row = pandas.read_csv(path).iloc[9].to_numpy()[1:]  # bert_score: row `num_layers`, columns after LAYER
    assert packaged_baseline("bert-base-uncased", 9) == tuple(float(x) for x in row)


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_electra"])
@pytest.mark.parametrize("layer", [0, 1, 2])
def test_matches_bert_score_package_on_tiny_models(fixture, layer, request, tmp_path):
    bert_score = pytest.importorskip("bert_score")
    path = str(request.getfixturevalue(fixture))
    baseline = _baseline_tsv(tmp_path / "tiny.tsv", layers=3)
    P, R, F = bert_score.score(CANDIDATES, REFERENCES, model_type=path, num_layers=layer, lang="en",
                               rescale_with_baseline=True, baseline_path=str(baseline))
    res = BERTScorer(path, layer=layer, rescale_with_baseline=True, baseline=baseline).score(CANDIDATES, REFERENCES)
    np.testing.assert_allclose(res.precision, P.numpy(), atol=1e-6)
    np.testing.assert_allclose(res.recall, R.numpy(), atol=1e-6)
    np.testing.assert_allclose(res.f1, F.numpy(), atol=1e-6)


def _seeda_pairs(shared_data, n):
    def lines(name):
        return (shared_data / name).read_text(encoding="utf-8").rstrip().split("\n")

    # bert_score 0.3.13 cannot encode an empty sentence under transformers 5 (golden README, patch 5)
    columns = zip(lines("SEEDA/outputs/subset/INPUT.txt"), lines("SEEDA/derived/REF0.txt"),
                  lines("SEEDA/derived/REF1.txt"))
    rows = [row for row in columns if all(text.strip() for text in row)]
    assert len(rows) >= n
    return rows[:n]


@pytest.mark.real_model
@pytest.mark.parametrize("layer", [4, 6])
@pytest.mark.parametrize("rescale", [False, True])
def test_matches_bert_score_package(minilm, shared_data, tmp_path, layer, rescale):
    bert_score = pytest.importorskip("bert_score")
    rows = _seeda_pairs(shared_data, 200)
    cands, refs = [r[0] for r in rows], [r[1] for r in rows]
    baseline = _baseline_tsv(tmp_path / "minilm.tsv")
    P, R, F = bert_score.score(cands, refs, model_type=str(minilm), num_layers=layer, lang="en",
                               rescale_with_baseline=rescale, baseline_path=str(baseline) if rescale else None)
    ours = BERTScorer("minilm", layer=layer, rescale_with_baseline=rescale, baseline=baseline if rescale else None)
    res = ours.score(cands, refs)
    np.testing.assert_allclose(res.precision, P.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.recall, R.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.f1, F.numpy(), atol=1e-5)


@pytest.mark.real_model
def test_multi_reference_matches_bert_score_package(minilm, shared_data, tmp_path):
    bert_score = pytest.importorskip("bert_score")
    rows = _seeda_pairs(shared_data, 100)
    cands, refs = [r[0] for r in rows], [[r[1], r[2]] for r in rows]
    baseline = _baseline_tsv(tmp_path / "minilm.tsv")
    P, R, F = bert_score.score(cands, refs, model_type=str(minilm), num_layers=6, lang="en",
                               rescale_with_baseline=True, baseline_path=str(baseline))
    res = BERTScorer("minilm", layer=6, rescale_with_baseline=True, baseline=baseline).score(cands, refs)
    np.testing.assert_allclose(res.precision, P.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.recall, R.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.f1, F.numpy(), atol=1e-5)


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_electra"])
def test_idf_matches_bert_score_package_on_tiny_models(fixture, request):
    """bert_score's `idf=True`: idf over every reference of the call, multi-reference included (issue 42)."""
    bert_score = pytest.importorskip("bert_score")
    path = str(request.getfixturevalue(fixture))
    P, R, F = bert_score.score(CANDIDATES, REFERENCES, model_type=path, num_layers=1, lang="en", idf=True)
    res = BERTScorer(path, layer=1).score(CANDIDATES, REFERENCES, idf=True)
    plain = BERTScorer(path, layer=1).score(CANDIDATES, REFERENCES)
    np.testing.assert_allclose(res.precision, P.numpy(), atol=1e-6)
    np.testing.assert_allclose(res.recall, R.numpy(), atol=1e-6)
    np.testing.assert_allclose(res.f1, F.numpy(), atol=1e-6)
    assert not np.allclose(res.f1, plain.f1)  # the weights change the numbers


def test_idf_weights_by_hand():
    from gecscore.common.bertscore import IdfWeights

    idf = IdfWeights.of([[1, 5, 7, 2], [1, 5, 5, 2], [1, 8, 2]])  # three references; 1 and 2 are CLS and SEP
    assert idf.weight(5) == pytest.approx(np.log(4 / 3)) and idf.weight(7) == pytest.approx(np.log(4 / 2))
    assert idf.weight(99) == pytest.approx(np.log(4))  # in no reference
    assert idf.weight(1) == pytest.approx(0.0)  # in every one (the scorer weighs CLS and SEP 0 anyway)


@pytest.mark.real_model
def test_idf_matches_bert_score_package_on_seeda(minilm, shared_data):
    bert_score = pytest.importorskip("bert_score")
    rows = _seeda_pairs(shared_data, 200)
    cands, refs = [r[0] for r in rows], [[r[1], r[2]] for r in rows]
    P, R, F = bert_score.score(cands, refs, model_type=str(minilm), num_layers=6, lang="en", idf=True)
    res = BERTScorer("minilm", layer=6).score(cands, refs, idf=True)
    np.testing.assert_allclose(res.precision, P.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.recall, R.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.f1, F.numpy(), atol=1e-5)
