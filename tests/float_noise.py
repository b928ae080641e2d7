"""Per-value float sensitivity for the golden-parity tests: the one tolerance rule of docs/tolerances.md.

A golden value was computed by the reference implementation on some machine; ours is computed on this one. Both
carry float32 rounding that depends on the CPU kernels (torch's AVX-512 / AVX2 / default paths, MKL's code path,
BLAS summation order), and how far that rounding moves a score is a property of the value, not of the machine:
most scores barely move, a few (small transports, ratios of tiny weights) move by 1e-4. So each value's bar is

    max(FLOOR, K × spread)

where `spread` is the largest change of that value over re-runs whose encoder outputs carry a float-level
perturbation (`Perturbed`): noise of the size that changing the CPU kernels causes, and the hidden dimensions
permuted, which changes nothing mathematically but every later dot product's summation order. Values that do not
move keep the strict FLOOR; the corpus bars are not derived from spreads.
"""

from __future__ import annotations

import functools
import json
import os
import zlib
from typing import Any, Sequence

import numpy as np

#: The strict bar of every model-weighted parity check (absolute).
FLOOR = 1e-5
#: Multiple of the measured spread: about three times the largest |ours − golden| / spread of any value above the
#: floor over the kernel matrix of docs/tolerances.md (10.7, a PT-M² sentence F under MKL_CBWR=AVX2).
K = 30.0
#: Noise on every encoder output, relative to its row's root mean square: twice the largest difference that
#: changing torch's CPU kernels (AVX-512 / AVX2 / default) or MKL_CBWR made to MiniLM's outputs (5.0e-6).
JITTER = 1e-5
#: One perturbed re-run per seed; the spread is the largest change over them.
SEEDS = (1, 2, 3)


@functools.lru_cache(maxsize=None)
def machine() -> str:
    """The float conditions of this process (torch's CPU kernel and BLAS, numpy's BLAS, threads, the switches)."""
    import torch
    from threadpoolctl import threadpool_info

    config = torch.__config__.show()
    libraries = [line.strip(" -") for line in config.splitlines()
                 if "Math Kernel Library" in line or "MKL-DNN" in line or "oneDNN" in line]
    numpy_blas = [f"{p.get('internal_api')} {p.get('version')} {p.get('architecture', '')}".strip()
                  for p in threadpool_info() if p.get("user_api") == "blas"]
    switches = {name: os.environ[name] for name in ("ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                    "MKL_CBWR", "OPENBLAS_CORETYPE") if name in os.environ}
    return (f"torch {torch.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}, "
            f"{torch.get_num_threads()} threads, {'; '.join(libraries) or 'no MKL'}; numpy BLAS "
            f"{', '.join(numpy_blas) or 'unknown'}; switches {switches or 'none'}")


def _noise(seed: int, text: str, array: np.ndarray) -> np.ndarray:
    """`array` with the perturbation of (seed, text): the same text always gets the same noise, so outputs that are
    equal stay exactly equal (an edit the encoder cannot see keeps its zero vector)."""
    rows = np.asarray(array, dtype=np.float32)
    rng = np.random.default_rng([seed, zlib.crc32(text.encode("utf-8"))])
    scale = np.sqrt(np.mean(np.square(rows, dtype=np.float64), axis=-1, keepdims=True))
    noisy = rows + (JITTER * scale * rng.standard_normal(rows.shape)).astype(np.float32)
    order = np.random.default_rng(seed).permutation(rows.shape[-1])
    return np.ascontiguousarray(noisy[..., order])


class Perturbed:
    """An encoder whose sentence vectors and token states carry the float-level perturbation of `seed`; everything
    else (tokenizer, token ids, limits, cache) is the wrapped encoder's."""

    def __init__(self, encoder: Any, seed: int) -> None:
        self._encoder = encoder
        self._seed = seed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._encoder, name)

    def embed(self, texts: Sequence[str], **options: Any) -> np.ndarray:
        out = self._encoder.embed(texts, **options)
        if not len(texts):
            return out
        return np.stack([_noise(self._seed, text, row) for text, row in zip(texts, out)])

    def token_states(self, texts: Sequence[str], **options: Any) -> list[np.ndarray]:
        return [_noise(self._seed, text, states)
                for text, states in zip(texts, self._encoder.token_states(texts, **options))]


def spread(base: Any, runs: Sequence[Any]) -> np.ndarray:
    """Elementwise largest |run − base| over the perturbed runs."""
    base = np.asarray(base, dtype=np.float64)
    return np.max([np.abs(np.asarray(run, dtype=np.float64) - base) for run in runs], axis=0)


def bar(spreads: Any, floor: float = FLOOR) -> np.ndarray:
    """The per-value bar: max(floor, K × spread)."""
    return np.maximum(floor, K * np.asarray(spreads, dtype=np.float64))


def check(ours: Any, golden: Any, bars: Any, what: str, spreads: Any = None) -> None:
    """|ours − golden| ≤ bars elementwise; a failure names the values, their bars and spreads, and the machine."""
    ours, golden = np.asarray(ours, dtype=np.float64), np.asarray(golden, dtype=np.float64)
    bars = np.broadcast_to(np.asarray(bars, dtype=np.float64), ours.shape)
    diff = np.abs(ours - golden)
    _record(what, diff, bars, spreads)
    bad = np.flatnonzero(~(diff <= bars))
    if bad.size:
        shown = []
        for k in bad[:5]:
            sp = "" if spreads is None else f", spread {np.broadcast_to(spreads, ours.shape).flat[k]:.2e}"
            shown.append(f"[{k}] ours {ours.flat[k]!r} golden {golden.flat[k]!r} |diff| {diff.flat[k]:.2e} > "
                         f"bar {bars.flat[k]:.2e}{sp}")
        raise AssertionError(f"{what}: {bad.size} value(s) off: " + "; ".join(shown) + f"\nmachine: {machine()}")


def _record(what: str, diff: np.ndarray, bars: np.ndarray, spreads: Any) -> None:
    """With GECSCORE_FLOAT_REPORT=<file>, append each checked value's |diff|, bar and spread as a JSON line (the
    calibration of K and the kernel matrix in docs/tolerances.md are summarised from these by
    benchmarks/float_kernels.py)."""
    path = os.environ.get("GECSCORE_FLOAT_REPORT")
    if not path:
        return
    spreads = np.broadcast_to(np.nan if spreads is None else np.asarray(spreads, dtype=np.float64), diff.shape)
    with open(path, "a", encoding="utf-8") as out:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
        out.write(json.dumps({"test": test, "what": what, "diff": diff.ravel().tolist(), "bar": bars.ravel().tolist(),
                              "spread": [None if np.isnan(x) else x for x in spreads.ravel().tolist()],
                              "machine": machine()}) + "\n")
