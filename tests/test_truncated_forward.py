"""The truncated forward: a hidden layer runs only the blocks it needs, and gives the same tensors bit for bit.

Hidden state k of `truncated_hidden_state` (embeddings + the first k blocks, no `output_hidden_states`) must be
`torch.equal` to `hidden_states[k]` of the full forward for every k, 0 and the last included; the encoder and the
metrics built on it must give the same numbers as the full forward (`Encoder.truncate = False`, the former path).
"""

import shutil

import numpy as np
import pytest
import torch
import transformers

from gecscore import registry
from gecscore.common import encoders
from gecscore.common.encoders import Encoder, transformer_blocks, truncated_hidden_state

TEXTS = ["this is a sentence .", "he go to school yesterday and buyed some apple .", "", "a", "the cat [SEP] dog",
         "she like apple and the dogs were there , but not my cat !", "we went"]
FIXTURES = ["tiny_bert", "tiny_electra", "tiny_modernbert"]
SMALL = dict(vocab_size=120, hidden_size=32, num_hidden_layers=12, num_attention_heads=2, intermediate_size=64,
             max_position_embeddings=64)


def _config(kind):
    """A random-init model of `kind` (12 layers; `bert-base-uncased` is the real bert-base-uncased shape)."""
    if kind == "bert-base-uncased":
        return transformers.BertModel, transformers.BertConfig()  # 12 x 768, 12 heads, 3072, vocab 30522
    if kind == "bert":
        return transformers.BertModel, transformers.BertConfig(**SMALL)
    if kind == "roberta":
        return transformers.RobertaModel, transformers.RobertaConfig(**SMALL, pad_token_id=1)
    if kind == "xlm-roberta":
        return transformers.XLMRobertaModel, transformers.XLMRobertaConfig(**SMALL, pad_token_id=1)
    if kind == "camembert":
        return transformers.CamembertModel, transformers.CamembertConfig(**SMALL, pad_token_id=1)
    if kind == "electra":  # embedding_size != hidden_size: hidden state 0 is after `embeddings_project`
        return transformers.ElectraModel, transformers.ElectraConfig(**SMALL, embedding_size=16)
    if kind == "deberta":
        return transformers.DebertaModel, transformers.DebertaConfig(
            **SMALL, relative_attention=True, pos_att_type=["c2p", "p2c"], max_relative_positions=16)
    if kind == "deberta-v2":  # the conv after block 0 sits between block 0's output and hidden state 1
        return transformers.DebertaV2Model, transformers.DebertaV2Config(
            **SMALL, relative_attention=True, pos_att_type=["c2p", "p2c"], position_buckets=8, conv_kernel_size=3,
            norm_rel_ebd="layer_norm", share_att_key=True)
    if kind == "distilbert":
        return transformers.DistilBertModel, transformers.DistilBertConfig(
            vocab_size=120, dim=32, n_layers=12, n_heads=2, hidden_dim=64, max_position_embeddings=64)
    if kind == "modernbert":  # final_norm after the last block only; local and global attention layers
        return transformers.ModernBertModel, transformers.ModernBertConfig(
            **SMALL, pad_token_id=0, local_attention=4, global_attn_every_n_layers=3)
    raise ValueError(kind)


@pytest.fixture(scope="module")
def models():
    built = {}

    def get(kind):
        if kind not in built:
            cls, config = _config(kind)
            torch.manual_seed(0)
            built[kind] = cls(config).eval()
        return built[kind]

    return get


def _batch(vocab=120, lengths=(13, 9, 4, 1)):
    """Padded token ids (padding id 0, never inside a row) and the attention mask, longest row first."""
    generator = torch.Generator().manual_seed(1)
    ids = torch.zeros((len(lengths), max(lengths)), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for row, n in enumerate(lengths):
        ids[row, :n] = torch.randint(5, vocab, (n,), generator=generator)
        mask[row, :n] = 1
    return ids, mask


def _block_calls(model):
    """How often each transformer block runs to its end."""
    calls = [0] * len(transformer_blocks(model))
    for i, block in enumerate(transformer_blocks(model)):
        block.register_forward_hook(lambda *_a, i=i: calls.__setitem__(i, calls[i] + 1))
    return calls


def _check_every_layer(model, ids, mask):
    """Each hidden state k from the truncated forward is hidden_states[k] bit for bit, from k blocks."""
    with torch.inference_mode():
        full = model(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states
        n = len(transformer_blocks(model))
        assert len(full) == n + 1
        calls = _block_calls(model)
        for k in range(n + 1):
            before = list(calls)
            states = truncated_hidden_state(model, ids, mask, k)
            assert states.shape == full[k].shape and states.dtype == full[k].dtype
            assert torch.equal(states, full[k]), f"hidden state {k} differs"
            # the neighbours differ: an off-by-one truncation cannot pass
            assert all(not torch.equal(states, full[j]) for j in (k - 1, k + 1) if 0 <= j <= n)
            ran = [a - b for a, b in zip(calls, before)]
            assert ran == [1] * k + [0] * (n - k), f"layer {k} ran blocks {ran}"


@pytest.mark.parametrize("kind", ["bert-base-uncased", "bert", "roberta", "xlm-roberta", "camembert", "electra",
                                  "deberta", "deberta-v2", "distilbert", "modernbert"])
def test_every_hidden_state_is_bit_identical(kind, models):
    model = models(kind)
    ids, mask = _batch(vocab=min(model.config.vocab_size, 1000))
    if kind in ("roberta", "xlm-roberta", "camembert"):
        ids[mask == 0] = 1  # their padding id
    _check_every_layer(model, ids, mask)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_tiny_fixture_models_are_bit_identical(fixture, request):
    path = request.getfixturevalue(fixture)
    model = transformers.AutoModel.from_pretrained(path).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    encoded = tokenizer(TEXTS, padding=True, return_tensors="pt")
    _check_every_layer(model, encoded["input_ids"], encoded["attention_mask"])


def test_unknown_architectures_are_not_truncated(models):
    model = models("bert")
    assert transformer_blocks(model) is not None
    model.config.model_type = "some-new-model"
    try:
        assert transformer_blocks(model) is None
        assert truncated_hidden_state(model, *_batch(), 3) is None
    finally:
        model.config.model_type = "bert"


# ---------------------------------------------------------------------------------------------------
# The encoder: same outputs as the full forward, one forward per batch, output_hidden_states only to check

def _spy(encoder):
    """The `output_hidden_states` argument of every forward of the encoder's model."""
    asked = []
    encoder.model.register_forward_pre_hook(lambda _m, _a, kw: asked.append(kw.get("output_hidden_states")),
                                            with_kwargs=True)
    return asked


def _full_and_truncated(path, layer, **options):
    """token_states and mean vectors of TEXTS from the full forward and from the truncated one."""
    full, fast = Encoder(str(path)), Encoder(str(path))
    full.truncate = False
    asked = _spy(fast)
    results = [(e.token_states(TEXTS, layer=layer, batch_size=2, **options),
                e.embed(TEXTS, layer=layer, batch_size=3, **options)) for e in (full, fast)]
    return results, fast, asked


@pytest.fixture(scope="module")
def twelve_layers(tmp_path_factory, tiny_bert):
    """A 12-layer random BERT (hidden 32) with the tiny WordPiece tokenizer."""
    directory = tmp_path_factory.mktemp("bert-12")
    torch.manual_seed(0)
    transformers.BertModel(transformers.BertConfig(**dict(SMALL, vocab_size=200, max_position_embeddings=256))
                           ).eval().save_pretrained(directory)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(tiny_bert / name, directory / name)
    return directory


@pytest.mark.parametrize("fixture,layer", [*((f, k) for f in FIXTURES for k in (0, 1, 2)),
                                           *(("twelve_layers", k) for k in (0, 1, 6, 9, 11, 12))])
def test_encoder_outputs_are_unchanged(fixture, layer, request):
    path = request.getfixturevalue(fixture)
    ((states_full, mean_full), (states_fast, mean_fast)), fast, asked = _full_and_truncated(path, layer)
    assert fast.truncated_layers == {layer: True}
    assert len(states_full) == len(states_fast) == len(TEXTS)
    for a, b in zip(states_full, states_fast):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mean_full, mean_fast)
    # one forward per batch (4 batches of token states, 3 of mean vectors); only the first asks for hidden states
    assert asked == [True] + [False] * 6 and fast.forward_count == 2 * len(set(TEXTS))


def test_the_last_layer_is_last_hidden_state(tiny_modernbert):
    """ModernBERT's last hidden state is after `final_norm`, the others before; both come out as before."""
    ((states_full, _), (states_fast, _)), fast, _ = _full_and_truncated(tiny_modernbert, 2)
    for a, b in zip(states_full, states_fast):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.concatenate(states_fast),
                                  np.concatenate(Encoder(str(tiny_modernbert)).token_states(TEXTS, batch_size=2)))


def test_a_model_whose_last_state_is_not_last_hidden_state_keeps_the_full_forward(tiny_modernbert):
    """As in transformers 4.x, where ModernBERT's hidden_states[-1] is before `final_norm`: the check finds that
    last_hidden_state is not hidden_states[-1] and keeps the full forward."""
    full, fast = Encoder(str(tiny_modernbert)), Encoder(str(tiny_modernbert))
    full.truncate = False
    for encoder in (full, fast):
        encoder.model.config.tie_last_hidden_states = False
    asked = _spy(fast)
    expected = full.token_states(TEXTS, layer=2, batch_size=2)
    got = fast.token_states(TEXTS, layer=2, batch_size=2)
    assert fast.truncated_layers == {2: False} and asked == [True] * 4
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)
    last = Encoder(str(tiny_modernbert)).token_states(TEXTS, batch_size=2)
    assert not all(np.array_equal(a, b) for a, b in zip(last, got))


@pytest.mark.parametrize("shift", [1, -1])
def test_an_off_by_one_truncation_is_caught(twelve_layers, monkeypatch, shift):
    """A wrong block (one off) gives other tensors; the encoder's check finds it and keeps the full forward."""
    real = encoders.stop_block
    monkeypatch.setattr(encoders, "stop_block", lambda model, layer: real(model, layer + shift))
    model = transformers.AutoModel.from_pretrained(twelve_layers).eval()
    ids, mask = _batch(vocab=200)
    with torch.inference_mode():
        full = model(input_ids=ids, attention_mask=mask, output_hidden_states=True).hidden_states
        assert not torch.equal(truncated_hidden_state(model, ids, mask, 9), full[9])
    ((states_full, mean_full), (states_fast, mean_fast)), fast, asked = _full_and_truncated(twelve_layers, 9)
    assert fast.truncated_layers == {9: False} and asked == [True] * 7
    for a, b in zip(states_full, states_fast):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mean_full, mean_fast)


def test_unknown_architecture_keeps_the_full_forward(tiny_bert, monkeypatch):
    monkeypatch.setattr(encoders, "TRUNCATABLE", {})
    ((states_full, mean_full), (states_fast, mean_fast)), fast, asked = _full_and_truncated(tiny_bert, 1)
    assert fast.truncated_layers == {1: False} and asked == [True] * 7
    for a, b in zip(states_full, states_fast):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(mean_full, mean_fast)


def test_no_layer_is_last_hidden_state_without_hidden_states(tiny_bert):
    encoder = Encoder(str(tiny_bert))
    asked = _spy(encoder)
    encoder.embed(TEXTS, batch_size=3)
    assert asked == [False] * 3 and encoder.truncated_layers == {}


# ---------------------------------------------------------------------------------------------------
# The metrics: PT-M² and CLEME2.0 with BERTScore weights give the same results

GOLD = ("S he go to school yesterday .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
        "A 4 5|||R:OTHER|||today|||REQUIRED|||-NONE-|||0\n\n"
        "S she like apple .\nA 1 2|||R:VERB:SVA|||likes|||REQUIRED|||-NONE-|||0\n"
        "A 2 3|||R:NOUN:NUM|||apples|||REQUIRED|||-NONE-|||0\n\n"
        "S the cat is here .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||-1\n")
SOURCES = ["he go to school yesterday .", "she like apple .", "the cat is here ."]
PREDICTIONS = ["he goes to school .", "she likes apple .", "the cats is here ."]
REFERENCES = [["he goes to school today ."], ["she likes apples ."], ["the cat is here ."]]


def _both_ways(path, layer, run):
    """`run()` with the shared encoder of `path` running the full forward, then truncated (cache cleared).

    Before the truncated run, one text checks the layer, so that every batch of the metric runs truncated."""
    encoder = Encoder.get(str(path))
    try:
        results = []
        for truncate in (False, True):
            encoder.truncated_layers.clear()
            encoder.truncate = truncate
            if truncate:
                encoder.token_states(["a"], layer=layer)
            encoder.clear_cache()
            asked = []
            spy = encoder.model.register_forward_pre_hook(
                lambda _m, _a, kw: asked.append(kw.get("output_hidden_states")), with_kwargs=True)
            try:
                results.append(run())
            finally:
                spy.remove()
            assert asked and asked == [not truncate] * len(asked)  # truncated: no forward asks for hidden states
        return results, dict(encoder.truncated_layers)
    finally:
        encoder.truncate = True
        encoder.clear_cache()


@pytest.mark.parametrize("layer", [0, 1, 2])
def test_pt_m2_is_unchanged(tiny_bert, layer):
    for variant in ("m2", "errant"):
        (old, new), verdicts = _both_ways(tiny_bert, layer, lambda: registry.run(
            "pt_m2", SOURCES, PREDICTIONS, gold_m2=GOLD, references=None if variant == "m2" else REFERENCES,
            variant=variant, scorer="bertscore", model=str(tiny_bert), layer=layer, return_edits=True))
        assert verdicts == {layer: True}
        assert new.score == old.score and new.details == old.details


@pytest.mark.parametrize("layer", [1, 2])
def test_cleme2_is_unchanged(tiny_modernbert, layer):
    (old, new), verdicts = _both_ways(tiny_modernbert, layer, lambda: registry.run(
        "cleme2", SOURCES, PREDICTIONS, REFERENCES, model=str(tiny_modernbert), layer=layer, return_chunks=True))
    assert verdicts == {layer: True}
    assert new.score == old.score and new.details == old.details
