"""The encoder cache's byte budget, the model loading errors that say what was wrong, and `max_length` limits."""

import re
import sys
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from gecscore.common import encoders
from gecscore.common.encoders import Encoder, load_model

from conftest import build_tiny_model


def _counting(encoder):
    """Count the rows (texts) that actually reach the model's forward."""
    rows = []
    encoder.model.register_forward_pre_hook(lambda _m, _a, kw: rows.append(kw["input_ids"].shape[0]),
                                            with_kwargs=True)
    return rows


def _size(text, array):
    return array.nbytes + sys.getsizeof(text) + encoders.ENTRY_OVERHEAD


# ---------------------------------------------------------------------------------------------------
# The byte budget

def test_token_states_are_counted_in_bytes_and_evicted_lru(tiny_bert):
    texts = ["a", "the cat is here .", "he go to school yesterday and buyed some apple ."]
    probe = Encoder(str(tiny_bert), cache_bytes=0)
    sizes = [_size(t, s) for t, s in zip(texts, probe.token_states(texts))]
    assert sizes[0] < sizes[1] < sizes[2]  # (T_i, 32) float32: longer texts cost more
    assert probe.cache_entries == probe.cache_used_bytes == 0  # budget 0: nothing is kept

    enc = Encoder(str(tiny_bert), cache_bytes=sizes[1] + sizes[2])
    rows = _counting(enc)
    enc.token_states(texts[1:])
    assert enc.cache_used_bytes == sizes[1] + sizes[2] and enc.cache_entries == 2
    enc.token_states(texts[:1])  # over budget by sizes[0]: the least recently used (texts[1]) goes
    assert enc.cache_used_bytes == sizes[0] + sizes[2] <= enc.cache_bytes
    assert {key[1] for key in enc._cache} == {texts[0], texts[2]}
    enc.token_states(texts)  # texts[1] is computed again, the other two are hits
    assert sum(rows) == enc.forward_count == 4 and enc.cache_hits == 2
    enc.clear_cache()
    assert enc.cache_entries == enc.cache_used_bytes == 0


def test_an_output_larger_than_the_budget_is_returned_but_not_cached(tiny_bert):
    long = "he go to school yesterday and buyed some apple ."
    enc = Encoder(str(tiny_bert), cache_bytes=1000)  # one 12-token state is 12 * 32 * 4 = 1536 bytes
    rows = _counting(enc)
    enc.embed(["a"])
    assert enc.cache_entries == 1
    first = enc.token_states([long])[0]
    assert first.shape == (12, 32) and _size(long, first) > enc.cache_bytes
    assert enc.cache_entries == 1 and ("a" in {key[1] for key in enc._cache})  # nothing evicted for it
    second = enc.token_states([long])[0]
    np.testing.assert_array_equal(first, second)
    assert second is not first and sum(rows) == enc.forward_count == 3


def test_cached_vectors_own_their_memory(tiny_bert):
    """A cached row of a batch must not keep the whole batch array alive (the count would understate memory)."""
    enc = Encoder(str(tiny_bert))
    enc.embed(["a", "b", "c"], batch_size=3)
    enc.embed(["a", "b"], pooling="cls", batch_size=2)
    for value, size in enc._cache.values():
        assert value.base is None and value.flags.owndata
    assert enc.cache_used_bytes == sum(size for _, size in enc._cache.values())


def test_cache_budget_from_the_environment(tiny_bert, monkeypatch):
    monkeypatch.delenv(encoders.CACHE_BYTES_ENV, raising=False)
    assert Encoder(str(tiny_bert)).cache_bytes == encoders.DEFAULT_CACHE_BYTES == 1 << 30
    monkeypatch.setenv("GECSCORE_CACHE_BYTES", "64MiB")
    assert Encoder(str(tiny_bert)).cache_bytes == 64 << 20
    assert Encoder(str(tiny_bert), cache_bytes=5000).cache_bytes == 5000  # the argument wins
    monkeypatch.setenv("GECSCORE_CACHE_BYTES", "2000000")
    assert Encoder(str(tiny_bert)).cache_bytes == 2_000_000
    monkeypatch.setenv("GECSCORE_CACHE_BYTES", "lots")
    with pytest.raises(ValueError, match=r"the environment variable GECSCORE_CACHE_BYTES must be a non-negative "
                                         r"number of bytes such as .*got 'lots'"):
        Encoder(str(tiny_bert))
    assert Encoder(str(tiny_bert), cache_bytes="1GB").cache_bytes == 10**9  # not read when an argument is given


@pytest.mark.parametrize("text, expected", [
    ("1073741824", 1 << 30), ("512MiB", 512 << 20), ("2G", 2 << 30), ("500MB", 500_000_000), ("1.5GiB", 3 << 29),
    (" 64 kib ", 64 << 10), ("100B", 100), ("0", 0), ("1_000_000", 10**6),
])
def test_parse_cache_bytes(text, expected):
    assert encoders.parse_cache_bytes(text) == expected


@pytest.mark.parametrize("bad", ["-1", "", "1 gigabyte", "1GX", "0x10", -1, True, None, float("nan"), [1]])
def test_parse_cache_bytes_rejects(bad):
    with pytest.raises(ValueError, match="`cache_bytes` must be a non-negative number of bytes"):
        encoders.parse_cache_bytes(bad)


def test_bad_budget_fails_before_loading(monkeypatch, tiny_bert):
    monkeypatch.setattr(encoders, "load_model", lambda *a, **k: pytest.fail("loaded a model"))
    with pytest.raises(ValueError, match="`cache_bytes`"):
        Encoder(str(tiny_bert), cache_bytes="-5")


# ---------------------------------------------------------------------------------------------------
# Loading errors

def test_a_directory_without_config_is_not_a_model_directory(tmp_path):
    folder = tmp_path / "weights"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"")
    with pytest.raises(OSError, match=r"cannot load model '.*weights': .*weights is not a model directory "
                                      r"\(no config\.json\)\. Give a local directory") as caught:
        Encoder(str(folder))
    assert str(folder) in str(caught.value)
    with pytest.raises(OSError, match=r"not a model directory \(no config\.json\)"):
        load_model(str(folder))


def test_a_file_is_not_a_model_directory(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"0")
    with pytest.raises(OSError, match=r"model\.bin is a file, not a model directory"):
        Encoder(str(path))


@pytest.mark.parametrize("name", ["/no/such/dir", "./no-such-model", "../no/such", "~/no-such-gecscore-model",
                                  "models/org/no-such-model"])
def test_a_missing_path_is_no_such_directory(name, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # the path is never sent to the Hub either way
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr("transformers.AutoTokenizer.from_pretrained", lambda *a, **k: pytest.fail("tried to load"))
    with pytest.raises(OSError, match=rf"cannot load model '{name}': no such directory /") as caught:
        Encoder(name)
    assert "offline" not in str(caught.value)


@pytest.mark.parametrize("name", ["no-such-model-gecscore", "no-such-org/no-such-model"])
def test_a_hub_id_offline_keeps_the_offline_message(name, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match=rf"cannot load model '{name}'\. It cannot be loaded offline: HF_HUB_OFFLINE "
                                      r"is set.*local directory.*minilm.*Cause: "):
        Encoder(name)


def test_a_tilde_path_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    build_tiny_model(tmp_path / "models" / "tiny", "bert")
    enc = Encoder("~/models/tiny")
    assert enc.embed(["a"]).shape == (1, 32)
    assert Encoder.get("~/models/tiny") is Encoder.get(str(tmp_path / "models" / "tiny"))


def test_other_loaders_say_what_was_wrong(tmp_path):
    from gecscore.cleme2.weights import LLMRater
    from gecscore.impara_ged.metric import QualityEstimator

    with pytest.raises(OSError, match=r"cannot load model '.*': .* is not a model directory \(no config\.json\)"):
        LLMRater(str(tmp_path), device="cpu")
    with pytest.raises(OSError, match=r"cannot load the quality estimator '/no/such/qe': no such directory"):
        QualityEstimator.load("/no/such/qe", device="cpu")
    with pytest.raises(OSError, match=r"cannot load the quality estimator '.*': .* is not a model directory "
                                      r"\(no config\.json\).*model='embedded'"):
        encoders.check_model_path(str(tmp_path), role="the quality estimator", alternative="model='embedded'")


def test_quality_estimator_in_a_directory_without_config(tmp_path):
    from gecscore.impara_ged.metric import QualityEstimator

    with pytest.raises(OSError, match=r"cannot load the quality estimator '.*': .* is not a model directory "
                                      r"\(no config\.json\).*model='embedded'"):
        QualityEstimator.load(str(tmp_path), device="cpu")


# ---------------------------------------------------------------------------------------------------
# max_length against the model's own limit

def test_max_length_above_the_model_limit_is_an_error_before_any_forward(tiny_bert):
    enc = Encoder(str(tiny_bert))  # tokenizer: 128; config: max_position_embeddings=256
    rows = _counting(enc)
    assert enc.model_max_length == enc.model_limit == 128
    assert len(enc.token_ids(["a " * 300], max_length=128)[0]) == 128
    message = (r"`max_length` is 129, above the limit of model '.*': 128 tokens \(its tokenizer's model_max_length "
               r"capped by max_position_embeddings\); give at most 128")
    with pytest.raises(ValueError, match=message):
        enc.embed(["a"], max_length=129)
    with pytest.raises(ValueError, match=message):
        enc.token_states(["a"], max_length=129)
    with pytest.raises(ValueError, match=message):
        enc.token_ids(["a"], max_length=129)
    for bad in (0, -1, 2.5, True, "64"):
        with pytest.raises(ValueError, match="`max_length` must be None or a positive int"):
            enc.embed(["a"], max_length=bad)
    assert rows == [] and enc.forward_count == 0 and enc.cache_entries == 0
    with pytest.raises(ValueError, match=r"`layer` must be None or 0\.\.2"):
        enc.token_states(["a"], layer=-1)


def test_model_max_length_is_the_tokenizer_capped_by_the_positions(tiny_bert, monkeypatch):
    enc = Encoder(str(tiny_bert))
    monkeypatch.setattr(enc.tokenizer, "model_max_length", int(1e30))  # transformers' "no limit known"
    assert enc.model_max_length == 256 and enc.model_limit == 256
    monkeypatch.setattr(enc.model.config, "max_position_embeddings", 64)
    assert enc.model_max_length == enc.model_limit == 64
    with pytest.raises(ValueError, match="`max_length` is 128.*64 tokens"):
        enc.embed(["a"])  # embed's default of 128 (UOT-ERRANT's) does not fit this model
    assert enc.token_states(["a " * 100])[0].shape == (64, 32)  # None: the model's limit
    monkeypatch.setattr(enc.model.config, "max_position_embeddings", 4096)
    assert enc.model_max_length == 4096 and enc.model_limit == 512  # None reads at most 512 tokens
    monkeypatch.setattr(enc.tokenizer, "model_max_length", None)
    monkeypatch.setattr(enc, "model", SimpleNamespace(config=SimpleNamespace()))  # neither says: 512
    assert enc.model_max_length == enc.model_limit == 512


def test_uot_errant_max_length_above_the_limit_names_it(tiny_bert, nlp):
    from gecscore.uot_errant.metric import UOTErrant

    scorer = UOTErrant(model=str(tiny_bert), nlp=nlp, max_length=200)
    before = scorer.encoder.forward_count  # the encoder is shared with other tests
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="`max_length` is 200, above the limit of model .*: 128 tokens"):
            scorer.score(["He go to school ."], ["He goes to school ."], [["He went to school ."]])
    assert scorer.encoder.forward_count == before


@pytest.mark.real_model
def test_minilm_limit_and_budget(minilm):
    budget = Encoder.get("minilm").cache_bytes  # the shared instance's, restored for the tests after this one
    try:
        _check_minilm_limit_and_budget()
    finally:
        Encoder.get("minilm").resize_cache(budget)


def _check_minilm_limit_and_budget():
    enc = Encoder.get("minilm", cache_bytes="4MiB")
    assert enc.model_max_length == enc.model_limit == 512 and enc.cache_bytes == 4 << 20
    # The process-wide encoder keeps the spelling it was first loaded under ('minilm' or its path, by whichever test
    # ran first on this pytest worker), and the message names that.
    with pytest.raises(ValueError, match=re.escape(f"`max_length` is 513, above the limit of model {enc.name!r}: 512 "
                                                   "tokens")):
        enc.embed(["a"], max_length=513)
    before = enc.cache_used_bytes
    states = enc.token_states(["This is a sentence with an error in it ."], layer=6)
    assert states[0].shape[1] == 384 and enc.cache_used_bytes <= before + _size("x" * 40, states[0])
