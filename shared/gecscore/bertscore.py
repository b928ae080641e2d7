"""BERTScore P/R/F1 as bert_score 0.3.13 computes it, on the shared encoder service.

Greedy cosine matching over the token states of one layer, idf off (every token weighs 1 except the
special tokens [CLS]/[SEP], which weigh 0 but still take part in the max-similarity), F = 2PR/(P+R)
with NaN → 0, an empty sentence scores 0. Each unique sentence is embedded once.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .encoders import Encoder
from .validation import check_same_length, check_texts

#: bert_score's default layers (`model2layers`) for the models our metrics name.
DEFAULT_LAYERS = {
    "bert-base-uncased": 9,
    "bert-base-cased": 9,
    "bert-large-uncased": 18,
    "bert-base-multilingual-cased": 9,
    "roberta-base": 10,
    "roberta-large": 17,
    "distilbert-base-uncased": 5,
    "google/electra-base-discriminator": 9,
    "google/electra-large-discriminator": 14,
    "microsoft/deberta-base": 9,
    "microsoft/deberta-large": 16,
}


@dataclass(frozen=True)
class BERTScoreResult:
    """Per-candidate precision, recall and F1 (float64 arrays)."""

    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray


def default_layer(model: str) -> int:
    """bert_score's layer for `model`; unknown models need an explicit `layer`."""
    if model not in DEFAULT_LAYERS:
        raise ValueError(f"no default BERTScore layer for {model!r}; pass layer=<int> (e.g. 6 for 'minilm')")
    return DEFAULT_LAYERS[model]


def read_baseline(path: str | Path, layer: int) -> tuple[float, float, float]:
    """(P, R, F) baseline of `layer` from a bert_score baseline tsv (columns LAYER,P,R,F)."""
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if int(row["LAYER"]) == layer:
                return float(row["P"]), float(row["R"]), float(row["F"])
    raise ValueError(f"baseline file {path} has no row for layer {layer}")


def packaged_baseline(model: str, layer: int, lang: str = "en") -> tuple[float, float, float]:
    """The baseline bert_score ships for (model, layer), if the bert_score package is installed."""
    try:
        import bert_score
    except ImportError as error:
        raise ValueError(f"no baseline given for {model!r}; pass baseline=(P, R, F) or a tsv path") from error
    path = Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model}.tsv"
    if not path.is_file():
        raise ValueError(f"bert_score has no baseline for {model!r}; pass baseline=(P, R, F) or a tsv path")
    return read_baseline(path, layer)


def greedy_match(cand: np.ndarray, ref: np.ndarray) -> tuple[float, float, float]:
    """P, R, F of one pair of (T, H) token-state matrices whose first and last rows are special tokens."""
    if len(cand) <= 2 or len(ref) <= 2:
        return 0.0, 0.0, 0.0
    c = cand / np.linalg.norm(cand, axis=1, keepdims=True)
    r = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    sim = c @ r.T
    precision = float(sim.max(axis=1)[1:-1].mean(dtype=np.float64))
    recall = float(sim.max(axis=0)[1:-1].mean(dtype=np.float64))
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


class BERTScorer:
    """BERTScore with a fixed model, layer and optional baseline rescaling."""

    def __init__(self, model: str = "bert-base-uncased", *, layer: int | None = None,
                 rescale_with_baseline: bool = False, baseline: tuple[float, float, float] | str | Path | None = None,
                 encoder: Encoder | None = None, device: str | None = None, batch_size: int = 64) -> None:
        self.model = model
        self.layer = default_layer(model) if layer is None else int(layer)
        self.encoder = encoder or Encoder.get(model, device=device)
        if not 0 <= self.layer <= self.encoder.num_layers:
            raise ValueError(f"layer {self.layer} out of range for {model!r} (0..{self.encoder.num_layers})")
        self.batch_size = batch_size
        self.baseline: tuple[float, float, float] | None = None
        if rescale_with_baseline:
            if baseline is None:
                self.baseline = packaged_baseline(model, self.layer)
            elif isinstance(baseline, (str, Path)):
                self.baseline = read_baseline(baseline, self.layer)
            else:
                self.baseline = tuple(float(b) for b in baseline)  # type: ignore[assignment]

    def states(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Token states of each text (stripped, as bert_score encodes), from the encoder cache."""
        return self.encoder.token_states([t.strip() for t in texts], layer=self.layer, batch_size=self.batch_size)

    def score(self, candidates: Sequence[str], references: Sequence[str] | Sequence[Sequence[str]]) -> BERTScoreResult:
        """Scores of each candidate against its reference (or the best of its references, per measure)."""
        candidates = check_texts("candidates", candidates)
        if references is None or isinstance(references, str):
            raise TypeError("`references` must be a list with one string (or list of strings) per candidate")
        groups = [[r] if isinstance(r, str) else list(r) for r in references]
        check_same_length(candidates=candidates, references=groups)
        for i, group in enumerate(groups):
            check_texts(f"references[{i}]", group)
        unique = list(dict.fromkeys([*candidates, *(r for g in groups for r in g)]))
        states = dict(zip(unique, self.states(unique)))
        out = np.zeros((len(candidates), 3))
        for i, (cand, group) in enumerate(zip(candidates, groups)):
            out[i] = np.max([greedy_match(states[cand], states[ref]) for ref in group], axis=0)
        if self.baseline is not None:
            b = np.asarray(self.baseline)
            out = (out - b) / (1 - b)
        return BERTScoreResult(out[:, 0], out[:, 1], out[:, 2])
