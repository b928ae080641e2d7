"""Tiny random SOME regressors and a tiny random Scribendi language model, rebuilt bit for bit from fixed seeds.

The published checkpoints (`gfm-models/grammer|fluency|meaning`, `gpt2`) are not reachable offline, so parity with
gec-metrics is shown on models that both implementations load from the same folder. The weights come from numpy's
legacy Mersenne Twister (`RandomState`, a stream numpy keeps stable across versions), not from torch's initialisers,
so a rebuild on another machine or torch version gives the same floats; `weights_hash` checks that it does.

Used by `make_golden.py` (run with gec-metrics' interpreter) and by `tests/test_some_scribendi.py`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

#: Seed of each model's weights.
SEEDS = {"grammer": 11, "fluency": 12, "meaning": 13, "lm": 14}
#: Where the one-logit regressors' outputs are centred (SOME's regressors predict a 1-4 rating).
LOGIT_CENTRE = 2.5

# The WordPiece vocabulary of the regressors: common words, then letters and digits (whole and `##` pieces), so that
# every ASCII word has a tokenisation; other characters become [UNK].
_WORDS = (
    "the a an this that these those is are was were be been being he she it they we i you me him her them us my "
    "your his its our their to of in on at for with by from about as into than then and or but not no so if when "
    "because people can will would should could may might must do does did have has had get make more most many "
    "much some any all other one two time year day way life world family families health school students student "
    "work job money government society children parents problem problems important good better best new first "
    "also only very just there here what which who how why where think know say said use used like need want "
    "help take give go goes went . , ! ? ' \" - ( ) : ;"
).split()
_SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
#: Byte-pair merges of the language model's byte-level tokenizer (its vocabulary is the 256 byte symbols, these
#: merges' results and `<|endoftext|>`).
_MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a"), ("e", "r"), ("o", "n"), ("Ġ", "s"),
           ("r", "e"), ("a", "n"), ("Ġ", "o"), ("e", "n"), ("i", "s"), ("Ġ", "w"), ("a", "t")]
EOS = "<|endoftext|>"


def wordpiece_vocab() -> list[str]:
    """The regressors' vocabulary, in id order."""
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    return list(dict.fromkeys(_SPECIAL + _WORDS + letters + ["##" + ch for ch in letters] + ["##s", "##ed", "##ing"]))


def byte_vocab() -> dict[str, int]:
    """The language model's vocabulary: byte symbols (sorted), merged symbols, then `<|endoftext|>`."""
    from tokenizers import pre_tokenizers

    symbols = sorted(pre_tokenizers.ByteLevel.alphabet()) + [a + b for a, b in _MERGES] + [EOS]
    return {symbol: i for i, symbol in enumerate(symbols)}


def fill(model, seed: int, *, bias: float = 0.0) -> None:
    """Overwrite every parameter of `model` from `RandomState(seed)`, in name order: N(0, 0.05), layer-norm scales
    1 + N(0, 0.05); `bias` is added to the classification head's bias."""
    import torch

    rng = np.random.RandomState(seed)
    with torch.no_grad():
        for name, parameter in sorted(model.named_parameters()):
            values = rng.normal(0.0, 0.05, size=tuple(parameter.shape)).astype(np.float32)
            if ("LayerNorm" in name or ".ln_" in name or name.startswith("ln_") or "ln_f" in name) \
                    and name.endswith("weight"):
                values += 1.0
            if name == "classifier.bias":
                values += bias
            parameter.copy_(torch.from_numpy(values))


def weights_hash(directory: Path, auto_class: str) -> str:
    """SHA-256 of the saved model's parameters (name and float32 bytes, in name order) as `auto_class` loads them."""
    import transformers

    model = getattr(transformers, auto_class).from_pretrained(str(directory))
    digest = hashlib.sha256()
    for name, parameter in sorted(model.named_parameters()):
        digest.update(name.encode("utf-8"))
        digest.update(parameter.detach().cpu().numpy().astype("<f4").tobytes())
    return digest.hexdigest()


def build_regressor(directory: Path, seed: int) -> Path:
    """A 2-layer BERT with a one-logit regression head and a lower-casing WordPiece tokenizer, in `directory`."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = {token: i for i, token in enumerate(wordpiece_vocab())}
    tk = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tk.normalizer = normalizers.BertNormalizer(lowercase=True)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tk.decoder = decoders.WordPiece()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]", model_max_length=128)
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=256,
                                     num_labels=1)
    model = transformers.BertForSequenceClassification(config).eval()
    fill(model, seed, bias=LOGIT_CENTRE)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory


def build_language_model(directory: Path, seed: int, n_positions: int = 512) -> Path:
    """A 2-layer GPT-2 with a byte-level BPE tokenizer whose BOS, EOS and UNK are `<|endoftext|>`, in `directory`."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    vocab = byte_vocab()
    tk = Tokenizer(models.BPE(vocab, list(_MERGES)))
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tk, bos_token=EOS, eos_token=EOS,
                                                     unk_token=EOS, model_max_length=n_positions)
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=n_positions, n_embd=32, n_layer=2, n_head=2,
                                     bos_token_id=vocab[EOS], eos_token_id=vocab[EOS])
    model = transformers.GPT2LMHeadModel(config).eval()
    fill(model, seed)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory


def build_all(folder: Path) -> dict[str, Path]:
    """The three regressors (`grammer`, `fluency`, `meaning`, as gec-metrics names them) and the language model
    (`lm`) in sub-folders of `folder`."""
    paths = {name: build_regressor(folder / name, SEEDS[name]) for name in ("grammer", "fluency", "meaning")}
    paths["lm"] = build_language_model(folder / "lm", SEEDS["lm"])
    return paths


def hashes(paths: dict[str, Path]) -> dict[str, str]:
    """`weights_hash` of every model `build_all` wrote."""
    return {name: weights_hash(path, "AutoModelForCausalLM" if name == "lm" else
                               "AutoModelForSequenceClassification") for name, path in paths.items()}
