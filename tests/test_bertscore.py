"""BERTScore equals the bert_score package (test-only dependency)."""

import numpy as np
import pytest

from gecscore.bertscore import BERTScorer, default_layer, greedy_match, read_baseline


def test_greedy_match_by_hand():
    cls, sep = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    cand = np.stack([cls, [1.0, 1.0], sep])
    ref = np.stack([cls, [1.0, 0.0], [0.0, 1.0], sep])
    p, r, f = greedy_match(cand, ref)
    assert p == pytest.approx(np.sqrt(0.5))
    assert r == pytest.approx(1.0)  # [CLS] and [SEP] of the candidate match the reference tokens exactly
    assert f == pytest.approx(2 * p / (p + 1))
    assert greedy_match(cand[[0, 2]], ref) == (0.0, 0.0, 0.0)


def test_layers_and_errors(tiny_bert):
    assert default_layer("bert-base-uncased") == 9
    with pytest.raises(ValueError, match="pass layer="):
        default_layer("some/unknown-model")
    with pytest.raises(ValueError, match="out of range"):
        BERTScorer(str(tiny_bert), layer=7)
    scorer = BERTScorer(str(tiny_bert), layer=2)
    with pytest.raises(ValueError, match="candidates=2, references=1"):
        scorer.score(["a", "b"], ["a"])
    with pytest.raises(ValueError, match=r"`candidates\[0\]` is None"):
        scorer.score([None], ["a"])


def test_identity_empty_and_multi_reference(tiny_bert):
    scorer = BERTScorer(str(tiny_bert), layer=2)
    res = scorer.score(["the cat is here .", "", "dogs go"], ["the cat is here .", "a cat", ["the cat", "dogs go"]])
    assert res.f1[0] == pytest.approx(1.0, abs=1e-6)
    assert res.f1[1] == 0.0
    assert res.f1[2] == pytest.approx(1.0, abs=1e-6)


def test_baseline_rescaling(tiny_bert, tmp_path):
    tsv = tmp_path / "base.tsv"
    tsv.write_text("LAYER,P,R,F\n1,0.1,0.2,0.3\n2,0.5,0.5,0.5\n")
    assert read_baseline(tsv, 2) == (0.5, 0.5, 0.5)
    raw = BERTScorer(str(tiny_bert), layer=2).score(["the cat"], ["a dog"])
    scaled = BERTScorer(str(tiny_bert), layer=2, rescale_with_baseline=True, baseline=tsv).score(["the cat"], ["a dog"])
    assert scaled.f1[0] == pytest.approx((raw.f1[0] - 0.5) / 0.5)


@pytest.mark.real_model
@pytest.mark.parametrize("layer", [4, 6])
@pytest.mark.parametrize("rescale", [False, True])
def test_matches_bert_score_package(minilm, shared_data, tmp_path, layer, rescale):
    bert_score = pytest.importorskip("bert_score")
    src = (shared_data / "SEEDA/outputs/subset/INPUT.txt").read_text(encoding="utf-8").rstrip().split("\n")
    ref = (shared_data / "SEEDA/derived/REF0.txt").read_text(encoding="utf-8").rstrip().split("\n")
    pairs = [(s, r) for s, r in zip(src, ref) if s.strip() and r.strip()][:200]
    cands, refs = [p[0] for p in pairs], [p[1] for p in pairs]
    assert len(cands) == 200
    baseline = tmp_path / "minilm.tsv"
    baseline.write_text("LAYER,P,R,F\n" + "".join(f"{k},0.61,0.62,0.615\n" for k in range(7)))
    P, R, F = bert_score.score(cands, refs, model_type=str(minilm), num_layers=layer, lang="en",
                               rescale_with_baseline=rescale, baseline_path=str(baseline) if rescale else None)
    ours = BERTScorer("minilm", layer=layer, rescale_with_baseline=rescale, baseline=baseline if rescale else None)
    res = ours.score(cands, refs)
    np.testing.assert_allclose(res.f1, F.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.precision, P.numpy(), atol=1e-5)
    np.testing.assert_allclose(res.recall, R.numpy(), atol=1e-5)
