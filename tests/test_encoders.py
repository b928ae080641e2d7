"""The encoder service: pooling, layers, caching, deduplication, device/dtype choice, clear load errors."""

import numpy as np
import pytest
import torch
import transformers

from gecscore import encoders
from gecscore.encoders import Encoder, resolve_model


def _reference_mean(path, texts, layer=None):
    """Masked mean of one text at a time, padded to 128 like the UOT-ERRANT reference."""
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval()
    out = []
    for text in texts:
        enc = tok(text, max_length=128, padding="max_length", truncation=True, return_tensors="pt")
        with torch.no_grad():
            o = model(**enc, output_hidden_states=True)
        h = o.last_hidden_state if layer is None else o.hidden_states[layer]
        m = enc["attention_mask"].unsqueeze(-1).float()
        out.append(((h * m).sum(1) / m.sum(1))[0].numpy())
    return np.stack(out)


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_electra", "tiny_modernbert"])
def test_mean_pooling_matches_padded_reference(fixture, request):
    path = request.getfixturevalue(fixture)
    texts = ["this is a sentence .", "he go to school yesterday and buyed some apple .", "", "a"]
    enc = Encoder(str(path))
    got = enc.embed(texts, batch_size=3)
    np.testing.assert_allclose(got, _reference_mean(path, texts), atol=2e-6)
    assert got.dtype == np.float32


def test_layers_cls_and_token_states(tiny_bert):
    enc = Encoder(str(tiny_bert))
    texts = ["the cat is here .", "dogs"]
    np.testing.assert_allclose(enc.embed(texts, layer=1), _reference_mean(tiny_bert, texts, layer=1), atol=2e-6)
    states = enc.token_states(texts, layer=2)
    assert [s.shape[0] for s in states] == [len(ids) for ids in enc.token_ids(texts)]
    cls = enc.embed(texts, pooling="cls", layer=2)
    np.testing.assert_allclose(cls, np.stack([s[0] for s in states]), atol=1e-6)
    with pytest.raises(ValueError, match="`pooling` must be"):
        enc.embed(texts, pooling="max")


def test_batching_and_order_do_not_change_values(tiny_bert):
    enc = Encoder(str(tiny_bert))
    texts = [f"the cat {'is ' * i}here ." for i in range(9)]
    a = enc.embed(texts, batch_size=1)
    enc.clear_cache()
    b = enc.embed(texts[::-1], batch_size=4)[::-1]
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_each_unique_text_runs_once_across_systems(tiny_bert, shared_data):
    sentences = (shared_data / "SEEDA/outputs/subset/INPUT.txt").read_text(encoding="utf-8").rstrip().split("\n")
    enc = Encoder(str(tiny_bert))
    first = enc.embed(sentences)
    for _ in range(14):
        np.testing.assert_array_equal(enc.embed(sentences), first)
    assert enc.forward_count == len(set(sentences))


def test_cache_is_bounded(tiny_bert):
    enc = Encoder(str(tiny_bert))
    enc.cache_size = 3
    enc.embed(["a", "b", "c", "d"])
    assert len(enc._cache) == 3
    enc.embed(["a"])
    assert enc.forward_count == 5


def test_get_shares_instances_and_resolves_alias(tiny_bert, minilm):
    assert Encoder.get(str(tiny_bert)) is Encoder.get(str(tiny_bert), device="cpu")
    assert resolve_model("minilm") == str(minilm)
    assert resolve_model("bert-base-uncased") == "bert-base-uncased"


def test_device_and_dtype_selection(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert encoders.select_device() == "cuda"
    assert encoders._resolve_dtype("fp16", "cuda") == "float16"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert encoders.select_device() == "cpu"
    assert encoders.select_device("cuda:1") == "cuda:1"
    with pytest.raises(ValueError, match="only supported on a GPU"):
        encoders._resolve_dtype("float16", "cpu")
    with pytest.raises(ValueError, match="`dtype` must be one of"):
        encoders._resolve_dtype("int8", "cpu")


def test_unknown_model_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match=r"cannot load model 'no-such-org/no-such-model'.*offline.*minilm"):
        Encoder("no-such-org/no-such-model")


def test_bad_input(tiny_bert):
    enc = Encoder(str(tiny_bert))
    with pytest.raises(ValueError, match="`texts` is None"):
        enc.embed(None)
    with pytest.raises(ValueError, match=r"`texts\[1\]` is None"):
        enc.embed(["a", None])
    with pytest.raises(TypeError, match=r"`texts\[0\]` must be a string"):
        enc.embed([3])
    assert enc.embed([]).shape == (0, 32)
    with pytest.raises(ValueError, match="non-empty model id"):
        resolve_model("")


@pytest.mark.real_model
def test_minilm_real_embedding(minilm):
    enc = Encoder.get("minilm")
    a, b = enc.embed(["This are a sentence with a error .", "This is a sentence with an error ."])
    cos = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    assert 0.95 < cos < 0.999
