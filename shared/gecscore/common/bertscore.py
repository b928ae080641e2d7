"""BERTScore P/R/F1 as bert_score 0.3.13 computes it, on the shared encoder service.

Greedy cosine matching over the token states of one layer. Without idf every token weighs 1 except the
tokenizer's CLS and SEP ids, which weigh 0 but still take part in the max-similarity; with idf (`idf=True`, as
bert_score's) a token weighs log((M + 1) / (df + 1)), df the number of the call's M references (all of them, in
reading order, each encoded as bert_score encodes it) that hold the token id, log(M + 1) for an id none holds, CLS
and SEP still 0; candidates and references weigh their tokens alike. F = 2PR/(P+R) with NaN → 0, a sentence with
no weighted token (the empty one; with idf also one whose every token is in every reference) scores
P = R = F = 0 before rescaling.
Multi-reference: each of P, R, F is the maximum over the references, then rescaled with the baseline
`(x - b) / (1 - b)`. Each unique sentence is embedded once (through the encoder cache). Texts longer than the
model's window (`window`, at most 512 tokens) are truncated, as bert_score does; `token_lengths` tells which.

Known differences to bert_score, all outside what real inputs hit: bert_score computes in float32 and
batches differently (values agree to ~1e-7); it zero-pads the similarity matrix of a batch, so a token
whose best cosine is negative scores 0 there when its partner is shorter than the batch's longest (real
encoders give positive cosines); a text made only of literal "[CLS]"/"[SEP]" scores NaN there, 0 here.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from gecscore.common.encoders import Encoder
from gecscore.common.inputs import check_references, check_texts

#: bert_score's default layers (`model2layers`) for the models our metrics name.
DEFAULT_LAYERS = {
    "bert-base-uncased": 9,
    "bert-base-cased": 9,
    "bert-large-uncased": 18,
    "bert-base-multilingual-cased": 9,
    "bert-base-chinese": 8,
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


#: What to pass when no rescaling baseline is known: the bertscore metric's options (the only caller that rescales).
NO_BASELINE_HINT = ("pass baseline_path=<tsv> (a bert_score baseline file, columns LAYER,P,R,F) or "
                    "rescale_with_baseline=False")


def packaged_baseline(model: str, layer: int, lang: str = "en") -> tuple[float, float, float]:
    """The baseline bert_score ships for (model, layer), if the bert_score package is installed."""
    try:
        import bert_score
    except ImportError as error:
        raise ValueError(f"no baseline given for {model!r}, and bert_score, which ships the baselines, is not "
                         f"installed; {NO_BASELINE_HINT}") from error
    path = Path(bert_score.__file__).parent / "rescale_baseline" / lang / f"{model}.tsv"
    if not path.is_file():
        raise ValueError(f"bert_score has no baseline for {model!r}; {NO_BASELINE_HINT}")
    return read_baseline(path, layer)


@dataclass(frozen=True)
class Tokens:
    """One sentence's token states scaled to unit length, and its token weights (0 for special tokens)."""

    unit: np.ndarray  # (T, H) float32
    weight: np.ndarray  # (T,) float64

    @classmethod
    def of(cls, states: np.ndarray, ids: Sequence[int], special_ids: set[int],
           idf: "IdfWeights | None" = None) -> "Tokens":
        """From raw (T, H) states and the token ids they belong to, weighed by `idf` (None: 1 each)."""
        unit = states / np.linalg.norm(states, axis=1, keepdims=True)
        return cls(unit, np.array([0.0 if i in special_ids else 1.0 if idf is None else idf.weight(i) for i in ids]))


@dataclass(frozen=True)
class IdfWeights:
    """bert_score's idf over a set of references: log((M + 1) / (df + 1)) per token id, log(M + 1) for an id no
    reference holds (see the module docstring)."""

    documents: int
    counts: Mapping[int, int]

    @classmethod
    def of(cls, token_ids: Sequence[Sequence[int]]) -> "IdfWeights":
        """From each reference's token ids (special tokens included, as bert_score counts them)."""
        return cls(len(token_ids), Counter(i for ids in token_ids for i in set(ids)))

    def weight(self, token_id: int) -> float:
        """The idf of one token id."""
        return math.log((self.documents + 1) / (self.counts.get(token_id, 0) + 1))


def greedy_match(cand: Tokens, ref: Tokens) -> tuple[float, float, float]:
    """P, R, F of one candidate against one reference: weighted mean of each token's best cosine."""
    if not cand.weight.any() or not ref.weight.any():
        return 0.0, 0.0, 0.0
    # einsum stays single-threaded: BLAS threads on these small matrices fight torch's threads for the cores
    sim = np.einsum("ik,jk->ij", cand.unit, ref.unit).astype(np.float64)
    precision = float(sim.max(axis=1) @ cand.weight / cand.weight.sum())
    recall = float(sim.max(axis=0) @ ref.weight / ref.weight.sum())
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

    def tokens(self, texts: Sequence[str], idf: IdfWeights | None = None) -> list[Tokens]:
        """Unit token states and weights of each text (stripped, as bert_score encodes), via the encoder cache;
        weighed by `idf` (None: 1 each)."""
        stripped = [t.strip() for t in texts]
        states = self.encoder.token_states(stripped, layer=self.layer, batch_size=self.batch_size)
        tokenizer = self.encoder.tokenizer
        special = {i for i in (tokenizer.cls_token_id, tokenizer.sep_token_id) if i is not None}
        return [Tokens.of(s, ids, special, idf) for s, ids in zip(states, self.encoder.token_ids(stripped))]

    def idf_weights(self, references: Sequence[str]) -> IdfWeights:
        """bert_score's idf over `references` (every reference of the call, duplicates counted)."""
        return IdfWeights.of(self.encoder.token_ids([r.strip() for r in references]))

    @property
    def window(self) -> int:
        """The most tokens (special tokens included) of a text the model sees; longer texts are truncated."""
        return self.encoder.model_limit

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        """Untruncated token counts of the texts as they are encoded (stripped, special tokens included)."""
        return self.encoder.token_lengths([t.strip() for t in texts])

    def score(self, candidates: Sequence[str], references: Sequence[str] | Sequence[Sequence[str]], *,
              idf: bool = False) -> BERTScoreResult:
        """Scores of each candidate against its reference (or the best of its references, per measure); `idf`:
        tokens weighed by their idf over all the references given."""
        best = np.stack([each.max(axis=0) for each in self.score_each(candidates, references, idf=idf)])
        return BERTScoreResult(best[:, 0], best[:, 1], best[:, 2])

    def score_each(self, candidates: Sequence[str], references: Sequence[str] | Sequence[Sequence[str]], *,
                   idf: bool = False) -> list[np.ndarray]:
        """Per candidate, a (references, 3) array of P, R, F against each of its references (rescaled when the
        scorer rescales: the maximum of an affine map's values is the map of the maximum, so `score` is the
        per-measure maximum of these rows); `idf`: as `score`."""
        candidates = check_texts("candidates", candidates)
        groups = check_references(references, len(candidates))
        unique = list(dict.fromkeys([*candidates, *(r for g in groups for r in g)]))
        weights = self.idf_weights([r for g in groups for r in g]) if idf else None
        tokens = dict(zip(unique, self.tokens(unique, weights)))
        rows = [np.array([greedy_match(tokens[cand], tokens[ref]) for ref in group])
                for cand, group in zip(candidates, groups)]
        if self.baseline is not None:
            b = np.asarray(self.baseline)
            rows = [(row - b) / (1 - b) for row in rows]
        return rows
