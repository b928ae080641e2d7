"""GED fine-tuning: token classification of source words as CORRECT or an error class.

The label of a word sits on its first sub-word; other sub-words and special tokens are ignored by the loss
(-100). The best epoch is chosen on the dev set: F0.5 of the INCORRECT class in the 2-class setting, macro F0.5
(from macro precision and recall over all classes) otherwise, as `ged_baselines` does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gecscore.common.fbeta import f_beta
from gecscore.training.corpora import Pair
from gecscore.training.labels import label_counts, label_set, token_labels
from gecscore.training.runs import FitConfig, Stage, fit, freeze_lower_layers, set_seed

IGNORE = -100


@dataclass(frozen=True)
class GEDOptions:
    """Settings of GED fine-tuning (defaults: Yuan et al. 2021 / the IMPARA-GED paper's 5 epochs)."""

    num_classes: int = 2
    epochs: int = 5
    lr: float = 1e-5
    batch_size: int = 32
    max_length: int = 128
    seed: int = 1
    train_layers: int | None = None


def label_corpus(pairs: Sequence[Pair], num_classes: int, *, extractor: Any = None,
                 progress: bool = False) -> list[tuple[list[str], list[str]]]:
    """(words, labels) per pair with a non-empty source, from ERRANT edits between source and target."""
    from gecscore.common.edits import get_extractor

    label_set(num_classes)
    pairs = [p for p in pairs if p[0].strip()]
    extractor = extractor or get_extractor()
    edits = extractor.extract([s for s, _ in pairs], [t for _, t in pairs], progress=progress)
    return [(source.split(), token_labels(source, e, num_classes)) for (source, _), e in zip(pairs, edits)]


def write_labelled(path: Path, examples: Sequence[tuple[list[str], list[str]]]) -> None:
    """One JSON line per sentence: {"words": [...], "labels": [...]}."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for words, labels in examples:
            out.write(json.dumps({"words": words, "labels": labels}) + "\n")
    tmp.replace(path)


def read_labelled(path: Path) -> list[tuple[list[str], list[str]]]:
    """Inverse of `write_labelled`."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [(row["words"], row["labels"]) for row in rows]


def encode_words(tokenizer: Any, words: Sequence[Sequence[str]], max_length: int) -> list[tuple[list[int], list[int]]]:
    """Sub-word ids and, per sub-word, the index of its word where it is the word's first piece (else -1)."""
    encoded = tokenizer([list(w) for w in words], is_split_into_words=True, truncation=True, max_length=max_length)
    out = []
    for i in range(len(words)):
        word_ids = encoded.word_ids(i)
        firsts, previous = [], None
        for word in word_ids:
            firsts.append(word if word is not None and word != previous else -1)
            previous = word
        out.append((encoded["input_ids"][i], firsts))
    return out


def _pad(tokenizer: Any, rows: Sequence[list[int]], device: str) -> tuple[Any, Any]:
    padded = tokenizer.pad({"input_ids": list(rows)}, return_tensors="pt")
    return padded["input_ids"].to(device), padded["attention_mask"].to(device)


def length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length (longest first), so padding stays small."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


def predict_words(model: Any, tokenizer: Any, words: Sequence[Sequence[str]], *, max_length: int = 128,
                  batch_size: int = 32, device: str = "cpu") -> list[list[int]]:
    """Predicted label id per word (words cut off by truncation get CORRECT = 0)."""
    import torch

    encoded = encode_words(tokenizer, words, max_length)
    predictions = [[0] * len(w) for w in words]
    with torch.inference_mode():
        for batch in length_batches([len(ids) for ids, _ in encoded], batch_size):
            input_ids, mask = _pad(tokenizer, [encoded[i][0] for i in batch], device)
            best = model(input_ids=input_ids, attention_mask=mask).logits.argmax(-1).cpu().numpy()
            for row, i in enumerate(batch):
                for position, word in enumerate(encoded[i][1]):
                    if word >= 0:
                        predictions[i][word] = int(best[row, position])
    return predictions


def ged_scores(gold: Sequence[Sequence[int]], predicted: Sequence[Sequence[int]], num_classes: int) -> dict[str, float]:
    """Binarised P/R/F0.5 of the error class and macro P/R/F0.5 over all classes (word level)."""
    g = np.array([x for row in gold for x in row], dtype=np.int64)
    p = np.array([x for row in predicted for x in row], dtype=np.int64)
    if g.shape != p.shape:
        raise ValueError(f"gold has {g.size} words but predictions have {p.size}")
    tp = float(np.sum((g > 0) & (p > 0)))
    precision = tp / max(float(np.sum(p > 0)), 1.0)
    recall = tp / max(float(np.sum(g > 0)), 1.0)
    present = sorted(set(g.tolist()) | set(p.tolist()))
    macro_p = float(np.mean([np.sum((g == c) & (p == c)) / max(np.sum(p == c), 1) for c in present]))
    macro_r = float(np.mean([np.sum((g == c) & (p == c)) / max(np.sum(g == c), 1) for c in present]))
    scores = {"precision": precision, "recall": recall, "f0.5": f_beta(precision, recall, 0.5, "m2"),
              "macro_precision": macro_p, "macro_recall": macro_r,
              "macro_f0.5": f_beta(macro_p, macro_r, 0.5, "m2")}
    scores["selection"] = scores["f0.5"] if num_classes == 2 else scores["macro_f0.5"]
    return scores


def train_ged(train: Sequence[Pair], dev: Sequence[Pair], out_dir: str | Path, *, model: str = "minilm",
              options: GEDOptions = GEDOptions(), device: str | None = None, extractor: Any = None,
              progress: bool = True) -> Path:
    """Label `train`/`dev` with ERRANT, fine-tune `model` for token-level GED; returns the best checkpoint dir.

    Resumable: labelled data is kept in `out_dir`, and training continues after the last finished epoch.
    """
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    from gecscore.common.encoders import resolve_model, select_device

    out = Path(out_dir)
    stage = Stage(out, "GED", {"model": model, **options.__dict__, "train_size": len(train), "dev_size": len(dev)})
    if stage.finished:
        return stage.best_dir
    labels = label_set(options.num_classes)
    label_id = {label: i for i, label in enumerate(labels)}
    data = {}
    for split, pairs in (("train", train), ("dev", dev)):
        path = out / f"labels.{split}.jsonl"
        if not path.exists():
            write_labelled(path, label_corpus(pairs, options.num_classes, extractor=extractor, progress=progress))
        data[split] = read_labelled(path)
        if not data[split]:
            raise ValueError(f"the GED {split} set has no sentence with a non-empty source")
    (out / "label_counts.json").write_text(json.dumps(
        {split: label_counts([l for _, l in rows]) for split, rows in data.items()}, indent=2) + "\n")

    set_seed(options.seed)
    device = select_device(device)
    path = resolve_model(model)
    tokenizer = AutoTokenizer.from_pretrained(path)
    net = AutoModelForTokenClassification.from_pretrained(
        path, num_labels=len(labels), id2label=dict(enumerate(labels)), label2id=label_id)
    freeze_lower_layers(net, options.train_layers)

    encoded = encode_words(tokenizer, [w for w, _ in data["train"]], options.max_length)
    targets = []
    for (ids, firsts), (_, word_labels) in zip(encoded, data["train"]):
        targets.append([label_id[word_labels[w]] if w >= 0 else IGNORE for w in firsts])
    dev_words = [w for w, _ in data["dev"]]
    dev_gold = [[label_id[l] for l in word_labels] for _, word_labels in data["dev"]]

    def loss_fn(m: Any, batch: list[int]) -> Any:
        import torch

        input_ids, mask = _pad(tokenizer, [encoded[i][0] for i in batch], device)
        label_rows = torch.full(input_ids.shape, IGNORE, dtype=torch.long)
        for row, i in enumerate(batch):
            label_rows[row, : len(targets[i])] = torch.tensor(targets[i])
        return m(input_ids=input_ids, attention_mask=mask, labels=label_rows.to(device)).loss

    def evaluate_fn(m: Any) -> dict[str, float]:
        predicted = predict_words(m, tokenizer, dev_words, max_length=options.max_length,
                                  batch_size=options.batch_size, device=device)
        return ged_scores(dev_gold, predicted, options.num_classes)

    config = FitConfig(options.epochs, options.lr, options.batch_size, options.seed, device, progress)
    return fit(stage, net, tokenizer, lengths=[len(ids) for ids, _ in encoded], loss_fn=loss_fn,
               evaluate_fn=evaluate_fn, key="selection", higher_is_better=True, config=config)

