"""IMPARA's quality-estimation training data: pairs (worse, better) of partial corrections ranked by edit impact.

For a source with edits E (ERRANT, source → target), the impact of edit *i* is 1 − cos(emb(target),
emb(target without edit i)), with emb the masked mean of the encoder's last hidden states (special tokens in).
A pair draws a random non-empty subset S1 of E (size uniform in 1..|E|) and S2 by flipping each edit's membership
with probability 1/|E|; the subset with the larger total impact gives the better sentence. Equal subsets, equal
totals (the reference script would reuse its previous pair there), duplicates and empty sentences are skipped.
`n_try` draws per source; all pairs are shuffled and cut to `max_pairs` (Maeda et al. 2022; gotutiyan/IMPARA).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gecscore.common.edits import Edit, apply_edits
from gecscore.impara_ged.metric import cosine_rows
from gecscore.training.corpora import Pair

QEPair = tuple[str, str]  # (worse, better)


def without_each(source: str, edits: Sequence[Edit]) -> list[str]:
    """The source with all edits applied except edit i, for each i."""
    return [apply_edits(source, [e for j, e in enumerate(edits) if j != i]) for i in range(len(edits))]


def edit_impacts(embed: Any, targets: Sequence[str], minus: Sequence[Sequence[str]]) -> list[np.ndarray]:
    """Per sentence, 1 − cosine between the target and each target-without-one-edit (one batched `embed` call)."""
    flat = [t for group in minus for t in group]
    vectors = embed(list(targets) + flat)
    target_vectors, minus_vectors = vectors[: len(targets)], vectors[len(targets):]
    impacts, start = [], 0
    for i, group in enumerate(minus):
        rows = minus_vectors[start:start + len(group)]
        impacts.append(1.0 - cosine_rows(np.repeat(target_vectors[i:i + 1], len(group), axis=0), rows))
        start += len(group)
    return impacts


def draw_subsets(n: int, rng: random.Random) -> tuple[list[int], list[int]]:
    """Two edit subsets as IMPARA draws them: a random non-empty one and a per-edit 1/n flip of it."""
    first = sorted(rng.sample(range(n), rng.randint(1, n)))
    second = set(first)
    for i in range(n):
        if rng.randint(1, n) == 1:
            second ^= {i}
    return first, sorted(second)


def sentence_pairs(source: str, edits: Sequence[Edit], impacts: np.ndarray, n_try: int,
                   rng: random.Random) -> list[QEPair]:
    """Distinct (worse, better) pairs of one source."""
    pairs: list[QEPair] = []
    for _ in range(n_try):
        first, second = draw_subsets(len(edits), rng)
        if first == second:
            continue
        impact_first, impact_second = float(impacts[first].sum()), float(impacts[second].sum())
        if impact_first == impact_second:
            continue
        low, high = (first, second) if impact_first < impact_second else (second, first)
        pair = (apply_edits(source, [edits[i] for i in low]), apply_edits(source, [edits[i] for i in high]))
        if pair[0] and pair[1] and pair[0] != pair[1] and pair not in pairs:
            pairs.append(pair)
    return pairs


def encoder_embedder(model: str, *, max_length: int = 128, batch_size: int = 32, device: str | None = None,
                     progress: bool = False) -> Any:
    """`embed(texts) -> (N, H)`: masked mean of the last hidden states of `model` (through `gecscore.common.encoders`)."""
    from gecscore.common.encoders import Encoder

    encoder = Encoder.get(model, device=device)

    def embed(texts: Sequence[str]) -> np.ndarray:
        return encoder.embed(list(texts), pooling="mean", max_length=max_length, batch_size=batch_size,
                             progress=progress)

    return embed


def make_qe_pairs(pairs: Sequence[Pair], embed: Any, *, n_try: int = 30, max_pairs: int | None = 4096,
                  seed: int = 1, extractor: Any = None, progress: bool = False) -> list[QEPair]:
    """IMPARA training pairs from parallel data (sources with at least one ERRANT edit)."""
    from gecscore.common.edits import get_extractor

    extractor = extractor or get_extractor()
    pairs = [p for p in pairs if p[0].strip() and p[1].strip()]
    edits = extractor.extract([s for s, _ in pairs], [t for _, t in pairs], progress=progress)
    kept = [(source, e) for (source, _), e in zip(pairs, edits) if e]
    targets = [apply_edits(source, e) for source, e in kept]
    impacts = edit_impacts(embed, targets, [without_each(source, e) for source, e in kept])
    rng = random.Random(seed)
    out: list[QEPair] = []
    for (source, e), impact in zip(kept, impacts):
        out += sentence_pairs(source, e, impact, n_try, rng)
    rng.shuffle(out)
    return out if max_pairs is None else out[:max_pairs]


def write_pairs(path: str | Path, pairs: Sequence[QEPair]) -> None:
    """TSV, one `worse<TAB>better` line per pair (atomic write)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(f"{worse}\t{better}\n" for worse, better in pairs), encoding="utf-8")
    tmp.replace(path)


def read_pairs(path: str | Path) -> list[QEPair]:
    """Inverse of `write_pairs`."""
    out = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
        fields = line.split("\t")
        if len(fields) != 2:
            raise ValueError(f"{path}:{i + 1}: expected 'worse<TAB>better', got {len(fields)} fields")
        out.append((fields[0], fields[1]))
    return out
